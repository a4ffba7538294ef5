// samples/common/sample_util.hpp — small helpers shared by the samples (not part of graphdsl):
// a checked-CUDA-call macro, a device probe that makes no assumption about a driver being
// present, a steady_clock stopwatch, a cudaEvent timer, medians, and the `--dot` mode.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <exception>

#include <cuda_runtime_api.h>

#include <graphdsl/debug.hpp>
#include <graphdsl/error.hpp>
// fmt and graphdsl's formatters (graphdsl/graphdsl.hpp leaves them out).
#include <graphdsl/format.hpp>

/// Checks a CUDA runtime call made by the sample itself (graphdsl checks its own): on failure it
/// prints the call, the file and line and the error, and exits with status 1.
#define CUDA_CHECK(call) ::sample::cuda_check((call), #call, __FILE__, __LINE__)

namespace sample {

inline void cuda_check(cudaError_t rc, const char* what, const char* file, int line) {
  if (rc != cudaSuccess) {
    std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(rc),
                 cudaGetErrorString(rc));
    std::exit(1);
  }
}

/// The number of CUDA devices; 0 when there is none, no driver, or a driver too old for this
/// runtime (the error is cleared, so later calls do not see it).
inline int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

/// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), driver 12.8, runtime 13.0" for device `dev`.
inline std::string device_summary(int dev) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  return fmt::format("{} (sm_{}{}, {} SMs), driver API {}.{}, runtime {}.{}", p.name, p.major, p.minor,
                     p.multiProcessorCount, driver / 1000, (driver % 1000) / 10, runtime / 1000,
                     (runtime % 1000) / 10);
}

/// Host wall time with std::chrono::steady_clock.
class Stopwatch {
 public:
  Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
  void restart() { t0_ = std::chrono::steady_clock::now(); }
  /// Microseconds since construction or the last restart().
  double us() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

/// Device time between two events recorded on one stream.
class EventTimer {
 public:
  EventTimer() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(start_, s)); }
  /// Records the stop event, waits for it and returns the elapsed time in microseconds.
  double stop_us(cudaStream_t s) {
    CUDA_CHECK(cudaEventRecord(stop_, s));
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return 1000.0 * static_cast<double>(ms);
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

/// The median of `v` (the mean of the two middle values for an even count); 0 for an empty vector.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Half the range of `v` as a fraction of its median: a rough run-to-run noise figure.
inline double half_spread(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double m = median(v);
  return m > 0.0 ? 0.5 * (*hi - *lo) / m : 0.0;
}

/// True when the command line holds `--dot`. A sample started with it prints only its plans'
/// Graphviz DOT (print_dot) and returns before its first CUDA call: the output then depends on the
/// code alone and needs no GPU (docs/pictures is made from it, and the pictures.* tests compare it).
inline bool dot_only(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dot") == 0) return true;
  }
  return false;
}

/// The `--dot` output: each plan's Graph::to_dot(), one after another, and nothing else. Returns the
/// exit status: 0, or 1 when graphdsl made a CUDA call since `cuda_calls_before` (building and
/// validating a plan must make none).
template <class... Plans>
int print_dot(std::uint64_t cuda_calls_before, const Plans&... plans) {
  const std::uint64_t calls = graphdsl::debug::cuda_calls() - cuda_calls_before;
  if (calls != 0) {
    std::fprintf(stderr, "--dot: building the plans made %llu CUDA calls; expected none\n",
                 static_cast<unsigned long long>(calls));
    return 1;
  }
  (fmt::print("{}", plans.to_dot()), ...);
  return 0;
}

/// Runs a sample's body and turns an escaping exception into a message and exit status 1. A
/// graphdsl::Error (UsageError or CudaError) is printed as is: its message names the node.
template <class Body>
int run_main(Body body) {
  try {
    return body();
  } catch (const graphdsl::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace sample
