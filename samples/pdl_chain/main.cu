// samples/pdl_chain — programmatic dependent launch in a plan: a chain of 1,000 short kernels, each
// depending on the one before, joined by plain edges, by programmatic edges (b.after(a,
// gd::programmatic)) and by launch-completion edges (gd::launch_completion). With a programmatic
// edge the next kernel is launched while its predecessor still runs: it does its prologue, then
// waits in cudaGridDependencySynchronize() until the predecessor's blocks have called
// cudaTriggerProgrammaticLaunchCompletion() (or exited) and their writes are visible.
//
//   step0 --> step1 --> step2 --> ... --> step999      (x = x * 0.5 + k at step k)
//
// The time per kernel (cudaEvent around 5 launches of the graph, median of 9 rounds, the three
// forms interleaved) is printed for two sizes; every round's result is checked against the CPU.
// Needs compute capability 9.0 (Hopper) for the programmatic forms: elsewhere it prints the plan and
// says so. `--dot`: the first links' DOT (programmatic edges dashed), no GPU needed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

#include "pdl_step.cuh"
#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int links = 1000;
constexpr int rounds = 9;
constexpr int launches = 5;  // graph launches per timed round

using sample::pdl_step;

gd::Graph chain(float* x, int n, gd::EdgeKind kind, int count = links) {
  gd::Graph g(std::string("chain_") + gd::to_string(kind));
  gd::KernelNodeOf<decltype(pdl_step)> prev;
  for (int k = 0; k < count; ++k) {
    auto node = g.add_kernel(pdl_step, gd::cover(static_cast<unsigned long long>(n)), x, static_cast<float>(k), n)
                    .name("step" + std::to_string(k));
    if (k > 0) node.after(prev, kind);
    prev = node;
  }
  return g;
}

std::vector<float> reference(int n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i % 101);
  return v;
}

int run(bool dot_only) {
  const auto calls_before = gd::debug::cuda_calls();
  std::vector<float> stand_in(4);
  const gd::Graph preview = chain(stand_in.data(), 4, gd::programmatic, 4);
  preview.validate();
  if (dot_only) return sample::print_dot(calls_before, preview);
  fmt::print("graphdsl {} pdl_chain sample: {} dependent kernels, plain vs programmatic edges\n\n", gd::version_string,
             links);
  fmt::print("--- the first links of the plan, Graph::dump() ---\n{}\n", preview.dump());
  if (sample::cuda_device_count() == 0) {
    fmt::print("skipped: no CUDA device\n");
    return 0;
  }
  CUDA_CHECK(cudaSetDevice(0));
  int major = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  fmt::print("device 0: {}\n\n", sample::device_summary(0));
  if (major < 9) {
    fmt::print("skipped: programmatic dependent launch needs compute capability 9.0\n");
    return 0;
  }
  const gd::EdgeKind kinds[] = {gd::EdgeKind::full, gd::EdgeKind::programmatic, gd::EdgeKind::launch_completion};
  bool ok = true;
  fmt::print("time per kernel in us (median of {} rounds of {} graph launches, forms interleaved; noise = half the "
             "range / median):\n",
             rounds, launches);
  fmt::print("  {:>8}  {:>12}  {:>14}  {:>18}  {:>12}  {:>7}\n", "floats", "full edges", "programmatic",
             "launch_completion", "prog/full", "noise");
  for (int n : {256, 1 << 16}) {
    const std::vector<float> start = reference(n);
    std::vector<float> want = start;
    for (int k = 0; k < links; ++k) {
      for (float& v : want) v = v * 0.5f + static_cast<float>(k);
    }
    float* x[3] = {};
    std::vector<gd::Executable> execs;
    for (int f = 0; f < 3; ++f) {
      CUDA_CHECK(cudaMalloc(&x[f], static_cast<std::size_t>(n) * sizeof(float)));
      execs.push_back(chain(x[f], n, kinds[f]).instantiate());
    }
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sample::EventTimer timer;
    std::vector<double> us[3];
    std::vector<float> got(static_cast<std::size_t>(n));
    for (int r = -1; r < rounds; ++r) {  // round -1: warm-up
      for (int j = 0; j < 3; ++j) {
        const int f = (j + (r < 0 ? 0 : r)) % 3;  // rotate the order
        CUDA_CHECK(cudaMemcpy(x[f], start.data(), start.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // a pageable upload may still be in flight: other streams do not wait for it
        timer.start(s);
        for (int l = 0; l < launches; ++l) execs[static_cast<std::size_t>(f)].launch(s);
        const double t = timer.stop_us(s);
        if (r >= 0) us[f].push_back(t / (launches * links));
        // After `launches` passes the value is the chain applied `launches` times: check one pass.
        CUDA_CHECK(cudaMemcpy(x[f], start.data(), start.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // a pageable upload may still be in flight: other streams do not wait for it
        execs[static_cast<std::size_t>(f)].launch(s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaMemcpy(got.data(), x[f], got.size() * sizeof(float), cudaMemcpyDeviceToHost));
        if (got != want) {
          ok = false;
          fmt::print("  {} edges, {} floats: result differs from the CPU reference\n", gd::to_string(kinds[f]), n);
        }
      }
    }
    const double full = sample::median(us[0]);
    const double prog = sample::median(us[1]);
    double noise = 0.0;
    for (const auto& v : us) noise = std::max(noise, sample::half_spread(v));
    fmt::print("  {:>8}  {:>12.3f}  {:>14.3f}  {:>18.3f}  {:>12.3f}  {:>6.1f}%\n", n, full, prog, sample::median(us[2]),
               full > 0.0 ? prog / full : 0.0, 100.0 * noise);
    CUDA_CHECK(cudaStreamDestroy(s));
    for (float* p : x) CUDA_CHECK(cudaFree(p));
  }
  fmt::print("\nresults checked against the CPU after every round: {}\n\n{}\n", ok ? "all ok" : "MISMATCH",
             ok ? "pdl_chain: PASSED" : "pdl_chain: FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv)); });
}
