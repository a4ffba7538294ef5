// samples/switch_dispatch — choosing work on the device: a SWITCH node that runs one of several
// kernels per launch from a value the data itself determines, and an IF-ELSE node driven by
// graphdsl's set-condition helper. No value travels back to the host to make the choice.
//
// SWITCH ("dispatch"), one launch per input, compiled once:
//
//   upload --> summarize --> select case --+--> SWITCH (mode) --> download
//   poison y ------------------------------+      case 0: "double"   y = 2 x
//   poison marker -------------------------+      case 1: "square"   y = x * x
//                                                 case 2: "offset"   y = x + 7  -->  "halve"  y = y / 2
//                                                 mode 3: no case: no body runs, y stays poisoned
//
//   summarize     one block sums x (ints) exactly; mode = sum % 4
//   select case   cudaGraphSetConditional(handle, mode): the user's kernel receives the
//                 condition's handle as an ordinary kernel argument (a gd::Condition in add_kernel)
//   each case's last kernel writes its case number to *marker: the host sees which body ran
//
// IF-ELSE ("threshold"): upload --> summarize --> set condition (sum > 500 n) --> IF-ELSE -->
// download, with then = "above": y = x - 500, else = "below": y = 500 - x. The condition is set by
// Graph::add_set_condition() from the sum the user's kernel computed.
//
// With `--dot` the sample prints the two plans' DOT alone, before any CUDA call, and exits
// (docs/pictures/switch_dispatch-dispatch.svg and switch_dispatch-threshold.svg are drawn from it).
//
// Every launch gets fresh random data (chosen so that each case, the out-of-range mode, and both
// IF-ELSE branches occur), and the host checks which body ran and every output element.
// Exit status: 0 when the checks pass (or when there is no GPU), 1 otherwise.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int n = 1 << 16;          // ints per input (values in [0, 1000): the sum fits in an int)
constexpr int cases = 3;            // SWITCH bodies; mode = sum % 4, so mode 3 selects none
constexpr int modes = 4;
constexpr int threshold = 500 * n;  // IF-ELSE: sum > threshold (mean above 500) runs "then"
constexpr int no_body = -1;         // the marker's value when no body ran
constexpr int summarize_threads = 1024;

/// One block: *sum = sum of x, *mode = sum % modes (exact integer arithmetic).
__global__ void summarize(const int* x, int count, int* sum, int* mode) {
  __shared__ int partial[summarize_threads / 32];
  int s = 0;
  for (int i = static_cast<int>(threadIdx.x); i < count; i += blockDim.x) s += x[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) total += partial[w];
    *sum = total;
    *mode = total % modes;
  }
}

/// Sets the SWITCH's condition from a value in device memory. A kernel parameter of type
/// cudaGraphConditionalHandle receives a gd::Condition in add_kernel; graphdsl patches in the real
/// handle when the plan is compiled.
__global__ void select_case(cudaGraphConditionalHandle handle, const int* mode) {
  cudaGraphSetConditional(handle, static_cast<unsigned int>(*mode));
}

// The bodies' kernels: each writes y from x; the last kernel of a body records which body it is.
__global__ void twice(const int* x, float* y, int* marker, int id, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = 2.0f * static_cast<float>(x[i]);
  if (i == 0) *marker = id;
}
__global__ void square(const int* x, float* y, int* marker, int id, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = static_cast<float>(x[i]) * static_cast<float>(x[i]);
  if (i == 0) *marker = id;
}
__global__ void offset(const int* x, float* y, float by, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = static_cast<float>(x[i]) + by;
}
__global__ void halve(float* y, int* marker, int id, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] *= 0.5f;
  if (i == 0) *marker = id;
}
/// y = sign * (x - 500)
__global__ void centre(const int* x, float* y, float sign, int* marker, int id, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = sign * (static_cast<float>(x[i]) - 500.0f);
  if (i == 0) *marker = id;
}

constexpr int above_id = 10;  // markers of the IF-ELSE bodies
constexpr int below_id = 20;

/// The buffers (device memory, or host stand-ins for the host-only preview).
struct Buffers {
  int* h_x = nullptr;       // pinned input
  float* h_y = nullptr;     // pinned output
  int* h_info = nullptr;    // pinned: sum, mode, marker
  int* d_x = nullptr;
  float* d_y = nullptr;
  int* d_info = nullptr;    // device: sum, mode, marker
  int* sum() const { return d_info + 0; }
  int* mode() const { return d_info + 1; }
  int* marker() const { return d_info + 2; }
};

const gd::Launch all = gd::cover(n);

/// The SWITCH plan. Building it makes no CUDA call.
gd::Graph build_dispatch(const Buffers& b) {
  gd::Graph g("dispatch");
  auto upload = g.add_memcpy(b.d_x, b.h_x, n, cudaMemcpyHostToDevice).name("upload");
  auto poison_y = g.add_memset(b.d_y, std::numeric_limits<float>::quiet_NaN(), n).name("poison y");
  auto poison_marker = g.add_memset(b.marker(), no_body, 1).name("poison marker");
  auto sum = g.add_kernel(summarize, gd::Launch{dim3(1), dim3(summarize_threads)}, b.d_x, n, b.sum(), b.mode())
                 .name("summarize")
                 .after(upload);
  // No default: select_case sets the condition on every launch before the SWITCH reads it.
  gd::Condition mode = g.add_condition(/*default_value=*/0, /*assign_default=*/false);
  auto select = g.add_kernel(select_case, gd::Launch{dim3(1), dim3(1)}, mode, b.mode()).name("select case").after(sum);
  auto dispatch =
      g.add_switch(
           mode,
           [&](gd::Graph& body) { body.add_kernel(twice, all, b.d_x, b.d_y, b.marker(), 0, n).name("double"); },
           [&](gd::Graph& body) { body.add_kernel(square, all, b.d_x, b.d_y, b.marker(), 1, n).name("square"); },
           [&](gd::Graph& body) {
             auto off = body.add_kernel(offset, all, b.d_x, b.d_y, 7.0f, n).name("offset");
             body.add_kernel(halve, all, b.d_y, b.marker(), 2, n).name("halve").after(off);
           })
          .name("dispatch")
          .after(select, poison_y, poison_marker);
  auto down_y = g.add_memcpy(b.h_y, b.d_y, n, cudaMemcpyDeviceToHost).name("download y").after(dispatch);
  g.add_memcpy(b.h_info, b.d_info, 3, cudaMemcpyDeviceToHost).name("download info").after(down_y);
  return g;
}

/// The IF-ELSE plan.
gd::Graph build_threshold(const Buffers& b) {
  gd::Graph g("threshold");
  auto upload = g.add_memcpy(b.d_x, b.h_x, n, cudaMemcpyHostToDevice).name("upload");
  auto poison_y = g.add_memset(b.d_y, std::numeric_limits<float>::quiet_NaN(), n).name("poison y");
  auto poison_marker = g.add_memset(b.marker(), no_body, 1).name("poison marker");
  auto sum = g.add_kernel(summarize, gd::Launch{dim3(1), dim3(summarize_threads)}, b.d_x, n, b.sum(), b.mode())
                 .name("summarize")
                 .after(upload);
  gd::Condition high = g.add_condition();  // default 0 at each launch; the helper node sets it
  auto test = g.add_set_condition(high, b.sum(), gd::Compare::greater, threshold).name("sum > 500 n").after(sum);
  auto branch =
      g.add_if_else(
           high,
           [&](gd::Graph& then_body) {
             then_body.add_kernel(centre, all, b.d_x, b.d_y, 1.0f, b.marker(), above_id, n).name("above");
           },
           [&](gd::Graph& else_body) {
             else_body.add_kernel(centre, all, b.d_x, b.d_y, -1.0f, b.marker(), below_id, n).name("below");
           })
          .name("branch")
          .after(test, poison_y, poison_marker);
  auto down_y = g.add_memcpy(b.h_y, b.d_y, n, cudaMemcpyDeviceToHost).name("download y").after(branch);
  g.add_memcpy(b.h_info, b.d_info, 3, cudaMemcpyDeviceToHost).name("download info").after(down_y);
  return g;
}

// ---- inputs and checks ------------------------------------------------------------------------

/// Fills x with random values in [lo, hi) whose sum % modes == target (x[0] absorbs the difference).
long long fill(int* x, std::mt19937& rng, int lo, int hi, int target) {
  std::uniform_int_distribution<int> dist(lo, hi - 1);
  long long rest = 0;
  for (int i = 1; i < n; ++i) rest += x[i] = dist(rng);
  const int need = static_cast<int>(((target - rest % modes) % modes + modes) % modes);
  x[0] = need + modes * std::uniform_int_distribution<int>(lo / modes + 1, (hi - 1 - need) / modes - 1)(rng);
  return rest + x[0];
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// Number of elements of y that differ from f(x) (bit for bit); with no f, from the poison NaN.
template <class F>
int mismatches(const Buffers& b, F&& f, bool untouched) {
  const std::uint32_t poison = bits(std::numeric_limits<float>::quiet_NaN());
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const bool ok = untouched ? bits(b.h_y[i]) == poison : b.h_y[i] == f(b.h_x[i]);
    bad += ok ? 0 : 1;
  }
  return bad;
}

const char* case_name(int c) {
  switch (c) {
    case 0: return "double";
    case 1: return "square";
    case 2: return "offset+halve";
    default: return "(none)";
  }
}

float expected_case(int c, int x) {
  switch (c) {
    case 0: return 2.0f * static_cast<float>(x);
    case 1: return static_cast<float>(x) * static_cast<float>(x);
    default: return (static_cast<float>(x) + 7.0f) * 0.5f;
  }
}

/// Device and pinned memory; declared before the executables so that it is destroyed after them.
struct Memory {
  Buffers b;
  Memory() {
    CUDA_CHECK(cudaMallocHost(&b.h_x, n * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&b.h_y, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&b.h_info, 3 * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&b.d_x, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&b.d_y, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b.d_info, 3 * sizeof(int)));
  }
  ~Memory() {
    (void)cudaFreeHost(b.h_x);
    (void)cudaFreeHost(b.h_y);
    (void)cudaFreeHost(b.h_info);
    (void)cudaFree(b.d_x);
    (void)cudaFree(b.d_y);
    (void)cudaFree(b.d_info);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  /// Garbage in the host copies of the outputs, so that a download that did not happen shows.
  void poison_host() {
    for (int i = 0; i < n; ++i) b.h_y[i] = -12345.0f;
    for (int i = 0; i < 3; ++i) b.h_info[i] = -777;
  }
};

int run(bool dot_only) {
  // ---- 1. the plans, on the host ---------------------------------------------------------------
  std::vector<int> stand_in_x(n), stand_in_info(6);
  std::vector<float> stand_in_y(2 * static_cast<std::size_t>(n));
  const Buffers preview{stand_in_x.data(), stand_in_y.data(), stand_in_info.data(),
                        stand_in_x.data(), stand_in_y.data() + n, stand_in_info.data() + 3};
  const auto calls_before = gd::debug::cuda_calls();
  const gd::Graph dispatch_preview = build_dispatch(preview);
  const gd::Graph threshold_preview = build_threshold(preview);
  dispatch_preview.validate();
  threshold_preview.validate();
  if (dot_only) return sample::print_dot(calls_before, dispatch_preview, threshold_preview);
  fmt::print("graphdsl {} switch_dispatch sample: {} ints per input\n\n", gd::version_string, n);
  fmt::print("plans '{}' ({} nodes) and '{}' ({} nodes) built and validated on the host, {} CUDA calls\n\n",
             dispatch_preview.name(), dispatch_preview.node_count(), threshold_preview.name(),
             threshold_preview.node_count(), gd::debug::cuda_calls() - calls_before);
  fmt::print("--- Graph::dump() ---\n{}\n{}\n", dispatch_preview.dump(), threshold_preview.dump());
  fmt::print("--- Graph::to_dot() (render with: dot -Tsvg) ---\n{}\n{}\n", dispatch_preview.to_dot(),
             threshold_preview.to_dot());

  // ---- 2. is there a device? -------------------------------------------------------------------
  if (sample::cuda_device_count() == 0) {
    fmt::print("no CUDA device found: the plans above were built and validated on the host; "
               "run on a GPU machine to execute them\n");
    return 0;
  }
  CUDA_CHECK(cudaSetDevice(0));
  fmt::print("device: {}\n\n", sample::device_summary(0));

  Memory mem;
  const Buffers& b = mem.b;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::mt19937 rng(20261121u);
  bool ok = true;

  // ---- 3. SWITCH: one compile, one launch per input -------------------------------------------
  gd::Executable dispatch = build_dispatch(b).instantiate();  // needs a CUDA 12.8 driver (SWITCH)
  const int targets[] = {0, 1, 2, 3, 2, 0, 3, 1, 1, 2};
  int ran[modes] = {};
  fmt::print("SWITCH '{}': {} launches, fresh data each\n", "dispatch", sizeof(targets) / sizeof(targets[0]));
  int launch_no = 0;
  for (int target : targets) {
    const long long sum = fill(b.h_x, rng, 0, 1000, target);
    mem.poison_host();
    dispatch.launch(stream);
    dispatch.synchronize(stream);
    const int mode = static_cast<int>(sum % modes);
    const int want_marker = mode < cases ? mode : no_body;
    const int bad = mismatches(b, [&](int x) { return expected_case(mode, x); }, mode >= cases);
    const bool good = b.h_info[0] == sum && b.h_info[1] == mode && b.h_info[2] == want_marker && bad == 0;
    if (b.h_info[2] >= 0 && b.h_info[2] < modes) ++ran[b.h_info[2]];
    fmt::print("  launch {:>2}: sum {:>9} (device {:>9}), mode {} (device {}) -> body ran: {:<13} (marker {:>2}, "
               "expected {:>2}); y {}: {}\n",
               launch_no++, sum, b.h_info[0], mode, b.h_info[1], case_name(b.h_info[2]), b.h_info[2], want_marker,
               mode < cases ? fmt::format("= {}(x), {} of {} wrong", case_name(mode), bad, n)
                            : fmt::format("untouched, {} of {} written", bad, n),
               good ? "ok" : "FAILED");
    ok = ok && good;
  }
  fmt::print("  bodies run: double {}, square {}, offset+halve {}; launches with mode 3 (no body) {}\n\n", ran[0],
             ran[1], ran[2], [&] {
               int k = 0;
               for (int t : targets) k += t >= cases ? 1 : 0;
               return k;
             }());

  // ---- 4. IF-ELSE ---------------------------------------------------------------------------------
  gd::Executable branch = build_threshold(b).instantiate();  // needs a CUDA 12.8 driver (IF-ELSE)
  fmt::print("IF-ELSE '{}': then = above (y = x - 500), else = below (y = 500 - x)\n", "threshold");
  const bool highs[] = {true, false, false, true, true, false};
  launch_no = 0;
  for (bool want_high : highs) {
    std::uniform_int_distribution<int> pick(0, modes - 1);
    const long long sum = want_high ? fill(b.h_x, rng, 300, 1000, pick(rng)) : fill(b.h_x, rng, 0, 700, pick(rng));
    mem.poison_host();
    branch.launch(stream);
    branch.synchronize(stream);
    const bool high = sum > threshold;
    const int want_marker = high ? above_id : below_id;
    const float sign = high ? 1.0f : -1.0f;
    const int bad = mismatches(b, [&](int x) { return sign * (static_cast<float>(x) - 500.0f); }, false);
    const bool good = high == want_high && b.h_info[0] == sum && b.h_info[2] == want_marker && bad == 0;
    fmt::print("  launch {}: mean {:7.2f} -> {} ran (marker {}, expected {}); y {} of {} wrong: {}\n", launch_no++,
               static_cast<double>(sum) / n, b.h_info[2] == above_id ? "then (above)"
                                             : b.h_info[2] == below_id ? "else (below)"
                                                                       : "no body",
               b.h_info[2], want_marker, bad, n, good ? "ok" : "FAILED");
    ok = ok && good;
  }

  fmt::print("\n{}\n", ok ? "switch_dispatch: PASSED" : "switch_dispatch: FAILED");
  dispatch = gd::Executable();
  branch = gd::Executable();
  CUDA_CHECK(cudaStreamDestroy(stream));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv)); });
}
