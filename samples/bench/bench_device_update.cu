// samples/bench/bench_device_update.cu — the device-updatable node figure: the cost per
// iteration of "change one kernel node's argument, then launch the graph", three ways, interleaved
// in one run:
//   device    graph [w (device-updatable) -> u]: u, a one-thread kernel, sets w's factor for the next
//             launch through its DeviceKernelNode (cudaGraphKernelNodeSetParam); the host only launches
//   host      graph [w -> t] (t: the same one-thread kernel without the device call): set_kernel_args
//             on w, then Executable::launch
//   raw       the same graph built with the raw API: cuGraphExecKernelNodeSetParams (the driver's entry
//             point, as graphdsl's direct setter path uses) + cudaGraphLaunch
// Each measurement: `iterations` iterations on one stream, then a stream synchronize; wall time per
// iteration (host work and device work together), median of the repetitions with its noise. This
// file is compiled with relocatable device code (the bench target: CUDA_SEPARABLE_COMPILATION ON).
#include <array>
#include <functional>
#include <string>
#include <vector>

#include <cuda.h>
#include <graphdsl/graphdsl.hpp>

#include "bench_common.hpp"
#include "bench_device_update.hpp"

namespace gd = graphdsl;

namespace bench {
namespace {

constexpr int update_elements = 256;
constexpr int iterations = 200;

/// x[i] = init[i] * factor.
__global__ void du_scale(const float* init, float* x, float factor, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) x[i] = init[i] * factor;
}
using ScaleNode = gd::DeviceKernelNodeOf<decltype(du_scale)>;

/// ++*counter, and w's factor for the next launch = *counter (from the device).
__global__ void du_bump(ScaleNode w, int* counter) {
  const int c = ++*counter;
  (void)w.set_arg<2>(static_cast<float>(c));
}
/// ++*counter only: the host and raw forms' second node, the same work without the device update.
__global__ void du_tick(ScaleNode, int* counter) { ++*counter; }

/// The raw form: du_scale -> du_tick, cuGraphExecKernelNodeSetParams on du_scale per iteration.
class RawUpdateGraph {
 public:
  RawUpdateGraph(const float* init, float* x, int* counter) : init_(init), x_(x) {
    CUDA_CHECK(cudaGraphCreate(&graph_, 0));
    int n = update_elements;
    float factor = 1.0f;
    void* scale_args[] = {&init_, &x_, &factor, &n};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(du_scale);
    p.gridDim = dim3(1);
    p.blockDim = dim3(update_elements);
    p.kernelParams = scale_args;
    CUDA_CHECK(cudaGraphAddKernelNode(&scale_, graph_, nullptr, 0, &p));
    ScaleNode none;
    void* tick_args[] = {&none, &counter};
    p.func = reinterpret_cast<void*>(du_tick);
    p.blockDim = dim3(1);
    p.kernelParams = tick_args;
    cudaGraphNode_t tick = nullptr;
    CUDA_CHECK(cudaGraphAddKernelNode(&tick, graph_, &scale_, 1, &p));
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuGraphExecKernelNodeSetParams", reinterpret_cast<void**>(&set_),
                                                12000, cudaEnableDefault, &found));
    CUDA_CHECK(cudaGetFuncBySymbol(&function_, reinterpret_cast<const void*>(du_scale)));
  }
  ~RawUpdateGraph() {
    (void)cudaGraphExecDestroy(exec_);
    (void)cudaGraphDestroy(graph_);
  }
  RawUpdateGraph(const RawUpdateGraph&) = delete;
  RawUpdateGraph& operator=(const RawUpdateGraph&) = delete;

  /// One iteration: w's factor = `factor`, then a launch.
  void step(float factor, cudaStream_t s) {
    int n = update_elements;
    void* args[] = {&init_, &x_, &factor, &n};
    CUDA_KERNEL_NODE_PARAMS d{};
    d.func = reinterpret_cast<CUfunction>(function_);
    d.gridDimX = d.gridDimY = d.gridDimZ = 1;
    d.blockDimX = update_elements;
    d.blockDimY = d.blockDimZ = 1;
    d.kernelParams = args;
    if (set_(exec_, scale_, &d) != CUDA_SUCCESS)
      sample::cuda_check(cudaErrorUnknown, "cuGraphExecKernelNodeSetParams", __FILE__, __LINE__);
    CUDA_CHECK(cudaGraphLaunch(exec_, s));
  }

 private:
  using SetParams = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*);
  const float* init_;
  float* x_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  cudaGraphNode_t scale_ = nullptr;
  SetParams set_ = nullptr;
  cudaFunction_t function_ = nullptr;
};

}  // namespace

void device_update_bench(Bench& bench) {
  const int reps = options().reps(15);
  fmt::print(
      "\ndupdate: change one kernel node's argument, then launch ({} floats; wall time per iteration over {} "
      "iterations + one synchronize; median of {} reps, the three interleaved)\n",
      update_elements, iterations, reps);
  int driver = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  if (driver < 12040) {
    fmt::print("  skipped: device-updatable kernel nodes need CUDA 12.4; this driver supports {}.{}\n", driver / 1000,
               driver % 1000 / 10);
    return;
  }
  float* x = bench.data;  // at least `update_elements` floats
  float* init = nullptr;
  int* counter = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&init), update_elements * sizeof(float)));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&counter), sizeof(int)));
  CUDA_CHECK(cudaMemcpy(init, bench.init.data(), update_elements * sizeof(float), cudaMemcpyHostToDevice));

  auto graph = [&](bool device_form) {
    gd::Graph g(device_form ? "dupdate device" : "dupdate host");
    auto w = g.add_kernel(du_scale, gd::cover(update_elements).with_device_updatable(device_form), init, x, 1.0f, update_elements)
                 .name("w");
    g.add_kernel(device_form ? du_bump : du_tick, gd::Launch{1, 1}, ScaleNode{}, counter).name("u").after(w);
    return g;
  };
  const gd::Graph device_plan = graph(true);
  const gd::Graph host_plan = graph(false);
  gd::Executable device_exec = device_plan.instantiate();
  gd::Executable host_exec = host_plan.instantiate();
  const auto w_device = gd::node_cast<gd::KernelNodeOf<decltype(du_scale)>>(device_plan.node(0));
  const auto u_device = gd::node_cast<gd::KernelNodeOf<decltype(du_bump)>>(device_plan.node(1));
  const auto w_host = gd::node_cast<gd::KernelNodeOf<decltype(du_scale)>>(host_plan.node(0));
  device_exec.set_kernel_args(u_device, device_exec.device_node(w_device), counter);
  RawUpdateGraph raw(init, x, counter);

  // Each form from counter 0: after launch k (from 1) x = init * (k - 1) for the device form (the
  // factor the previous launch's updater set; 1 on the first), init * k for the others.
  float factor = 0.0f;
  const std::array<std::function<void()>, 3> forms = {[&] { device_exec.launch(bench.s); },
                                                      [&] {
                                                        host_exec.set_kernel_args(w_host, init, x, factor += 1.0f,
                                                                                  update_elements);
                                                        host_exec.launch(bench.s);
                                                      },
                                                      [&] { raw.step(factor += 1.0f, bench.s); }};
  const char* const names[] = {"device", "host", "raw"};
  for (int f = 0; f < 3; ++f) {
    CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
    factor = 0.0f;
    for (int k = 0; k < 3; ++k) forms[static_cast<std::size_t>(f)]();
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    std::vector<float> got(update_elements);
    CUDA_CHECK(cudaMemcpy(got.data(), x, update_elements * sizeof(float), cudaMemcpyDeviceToHost));
    const float want_factor = f == 0 ? 2.0f : 3.0f;
    bool ok = true;
    for (int i = 0; i < update_elements; ++i)
      ok = ok && got[static_cast<std::size_t>(i)] == bench.init[static_cast<std::size_t>(i)] * want_factor;
    bench.expect(ok, std::string("dupdate ") + names[f], "x is not init times the factor of the third launch");
  }

  auto per_iteration = [&](const std::function<void()>& one) {
    sample::Stopwatch t;
    for (int k = 0; k < iterations; ++k) one();
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    return t.us() / iterations;
  };
  std::array<std::vector<double>, 3> us;
  for (const auto& f : forms) (void)per_iteration(f);  // warm-up
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < 3; ++j) {
      const int f = (j + r) % 3;  // rotate the order
      us[static_cast<std::size_t>(f)].push_back(per_iteration(forms[static_cast<std::size_t>(f)]));
    }
  }
  const Pair device_raw{us[0], us[2]};
  const Pair host_raw{us[1], us[2]};
  fmt::print("  {:<44} {:>11} {:>11} {:>7} {:>6}\n", "per iteration", "form us", "raw us", "ratio", "noise");
  fmt::print("  {:<44} {:>11.3f} {:>11.3f} {:>7.3f} {:>5.1f}%\n", "device (updater kernel in the graph)",
             device_raw.ma(), device_raw.mb(), device_raw.ratio(), 100.0 * device_raw.noise());
  fmt::print("  {:<44} {:>11.3f} {:>11.3f} {:>7.3f} {:>5.1f}%\n", "host (set_kernel_args + launch)", host_raw.ma(),
             host_raw.mb(), host_raw.ratio(), 100.0 * host_raw.noise());
  csv_pair("dupdate", "w + updater, 256 floats", 2, 1, "graphdsl device update", "raw host setter + launch",
           device_raw);
  csv_pair("dupdate", "w + updater, 256 floats", 2, 1, "graphdsl host setter + launch", "raw host setter + launch",
           host_raw);
  CUDA_CHECK(cudaFree(init));
  CUDA_CHECK(cudaFree(counter));
}

}  // namespace bench
