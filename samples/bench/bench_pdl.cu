// samples/bench/bench_pdl.cu — the programmatic-dependent-launch figure: a chain of 1,000
// dependent kernels with full edges and with programmatic edges, built by graphdsl and by the raw
// graph API (cudaGraphAddKernelNode + cudaGraphAddDependencies with cudaGraphEdgeData), all four
// interleaved in one run; device time per kernel from cudaEvents, medians with noise.
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "bench_common.hpp"
#include "bench_pdl.hpp"
#include "pdl_step.cuh"

namespace gd = graphdsl;

namespace bench {
namespace {

constexpr int links = 1000;
constexpr int elements = 256;

using sample::pdl_step;

gd::Executable graphdsl_chain(float* x, gd::EdgeKind kind) {
  gd::Graph g("pdl");
  gd::KernelNodeOf<decltype(pdl_step)> prev;
  for (int k = 0; k < links; ++k) {
    auto node = g.add_kernel(pdl_step, gd::cover(elements), x, static_cast<float>(k), elements);
    if (k > 0) node.after(prev, kind);
    prev = node;
  }
  return g.instantiate();
}

/// The same chain with the raw graph API.
class RawChain {
 public:
  RawChain(float* x, bool programmatic) {
    CUDA_CHECK(cudaGraphCreate(&graph_, 0));
    std::vector<cudaGraphNode_t> nodes(links);
    std::vector<float> b(links);
    int n = elements;
    for (int k = 0; k < links; ++k) {
      b[static_cast<std::size_t>(k)] = static_cast<float>(k);
      void* args[] = {&x, &b[static_cast<std::size_t>(k)], &n};
      cudaKernelNodeParams p{};
      p.func = reinterpret_cast<void*>(pdl_step);
      p.gridDim = dim3(1);
      p.blockDim = dim3(elements);
      p.kernelParams = args;
      const bool first = k == 0;
      const bool plain = !programmatic && !first;
      CUDA_CHECK(cudaGraphAddKernelNode(&nodes[static_cast<std::size_t>(k)], graph_,
                                        plain ? &nodes[static_cast<std::size_t>(k - 1)] : nullptr, plain ? 1 : 0, &p));
      if (programmatic && !first) {
        cudaGraphEdgeData e{};
        e.from_port = cudaGraphKernelNodePortProgrammatic;
        e.type = cudaGraphDependencyTypeProgrammatic;
        CUDA_CHECK(cudaGraphAddDependencies(graph_, &nodes[static_cast<std::size_t>(k - 1)],
                                            &nodes[static_cast<std::size_t>(k)], &e, 1));
      }
    }
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~RawChain() {
    (void)cudaGraphExecDestroy(exec_);
    (void)cudaGraphDestroy(graph_);
  }
  RawChain(const RawChain&) = delete;
  RawChain& operator=(const RawChain&) = delete;
  void launch(cudaStream_t s) const { CUDA_CHECK(cudaGraphLaunch(exec_, s)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

void pdl_bench(Bench& bench) {
  int major = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  fmt::print("\npdl: a chain of {} dependent kernels ({} floats, x = x * 0.5 + k), full vs programmatic edges, "
             "graphdsl and raw graph API; device time per kernel (cudaEvent around 5 launches; median of {} reps, "
             "the four interleaved)\n",
             links, elements, options().reps(15));
  if (major < 9) {
    fmt::print("  skipped: programmatic dependent launch needs compute capability 9.0\n");
    return;
  }
  float* x = bench.data;  // at least `elements` floats
  gd::Executable gd_full = graphdsl_chain(x, gd::EdgeKind::full);
  gd::Executable gd_prog = graphdsl_chain(x, gd::programmatic);
  const RawChain raw_full(x, false);
  const RawChain raw_prog(x, true);
  // Every form computes the same values.
  std::vector<float> want(elements);
  for (int i = 0; i < elements; ++i) {
    float v = bench.init[static_cast<std::size_t>(i)];
    for (int k = 0; k < links; ++k) v = v * 0.5f + static_cast<float>(k);
    want[static_cast<std::size_t>(i)] = v;
  }
  auto check = [&](const char* what, const std::function<void()>& once) {
    CUDA_CHECK(cudaMemcpy(x, bench.init.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // a pageable upload may still be in flight: other streams do not wait for it
    once();
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    std::vector<float> got(elements);
    CUDA_CHECK(cudaMemcpy(got.data(), x, elements * sizeof(float), cudaMemcpyDeviceToHost));
    bench.expect(got == want, std::string("pdl ") + what, "result differs from the CPU reference");
  };
  check("graphdsl full", [&] { gd_full.launch(bench.s); });
  check("graphdsl programmatic", [&] { gd_prog.launch(bench.s); });
  check("raw full", [&] { raw_full.launch(bench.s); });
  check("raw programmatic", [&] { raw_prog.launch(bench.s); });

  constexpr int launches = 5;
  auto per_kernel = [&](const std::function<void()>& launch) {
    return bench.per_launch_us(launches, launch) / links;
  };
  std::array<std::vector<double>, 4> us;
  const std::array<std::function<void()>, 4> forms = {[&] { gd_full.launch(bench.s); },
                                                      [&] { gd_prog.launch(bench.s); },
                                                      [&] { raw_full.launch(bench.s); },
                                                      [&] { raw_prog.launch(bench.s); }};
  for (const auto& f : forms) (void)per_kernel(f);  // warm-up
  const int reps = options().reps(15);
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < 4; ++j) {
      const int f = (j + r) % 4;  // rotate the order
      us[static_cast<std::size_t>(f)].push_back(per_kernel(forms[static_cast<std::size_t>(f)]));
    }
  }
  Pair full{us[0], us[2]};
  Pair prog{us[1], us[3]};
  Pair gain{us[1], us[0]};
  fmt::print("  {:<44} {:>11} {:>11} {:>7} {:>6}\n", "chain of 1000, per kernel", "graphdsl us", "raw us", "ratio", "noise");
  fmt::print("  {:<44} {:>11.3f} {:>11.3f} {:>7.3f} {:>5.1f}%\n", "full edges", full.ma(), full.mb(), full.ratio(),
             100.0 * full.noise());
  fmt::print("  {:<44} {:>11.3f} {:>11.3f} {:>7.3f} {:>5.1f}%\n", "programmatic edges", prog.ma(), prog.mb(),
             prog.ratio(), 100.0 * prog.noise());
  const double faster = 100.0 * (1.0 - gain.ratio());
  fmt::print("  programmatic / full (graphdsl): {:.3f}, {:.1f} % faster per kernel (goal >= 20 %: {}); raw: {:.3f}\n",
             gain.ratio(), faster, faster >= 20.0 ? "met" : "MISSED", prog.mb() / full.mb());
  csv_pair("pdl", "chain 1000 x 256 floats", links, -1, "graphdsl full edges", "raw full edges", full);
  csv_pair("pdl", "chain 1000 x 256 floats", links, -1, "graphdsl programmatic edges", "raw programmatic edges", prog);
}

}  // namespace bench
