// samples/bench/bench_device_launch.cu — the device-launch figure: a tiny work graph (one
// step<<<1, 32>>> node) launched N times in a row, from the host (a loop of Executable::launch /
// cudaGraphLaunch) and from the device (a scheduler graph whose kernel tail-launches the work graph
// and then its own graph, N times), each built by graphdsl (gd::DeviceGraph) and by the raw graph
// API with the same kernels; the four forms interleaved in one run, device time from cudaEvents
// around the whole sequence, per work-graph launch, medians with noise. The device form needs
// relocatable device code: the bench target is built with CUDA_SEPARABLE_COMPILATION ON.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "bench_common.hpp"
#include "bench_device_launch.hpp"

namespace gd = graphdsl;

namespace bench {
namespace {

constexpr int launches = 1000;  // work-graph launches per measurement

/// While *remaining > 0: --*remaining, tail-launch `work`, then this kernel's own graph again.
/// *failed takes the first launch error (0: none).
__global__ void dl_schedule(gd::DeviceGraph work, int* remaining, int* failed) {
  if (threadIdx.x != 0 || *remaining <= 0) return;
  --*remaining;
  cudaError_t rc = work.launch_tail();
  if (rc == cudaSuccess) rc = gd::DeviceGraph::current().launch_tail();
  if (rc != cudaSuccess && *failed == 0) *failed = static_cast<int>(rc);
}

/// cudaGraphInstantiateWithParams with cudaGraphInstantiateFlagDeviceLaunch, then cudaGraphUpload on `s`.
cudaGraphExec_t raw_device_instantiate(cudaGraph_t g, cudaStream_t s) {
  cudaGraphInstantiateParams p{};
  p.flags = cudaGraphInstantiateFlagDeviceLaunch;
  cudaGraphExec_t e = nullptr;
  CUDA_CHECK(cudaGraphInstantiateWithParams(&e, g, &p));
  if (p.result_out != cudaGraphInstantiateSuccess) {
    std::fprintf(stderr, "raw device-launch instantiate: result %d\n", static_cast<int>(p.result_out));
    std::exit(1);
  }
  CUDA_CHECK(cudaGraphUpload(e, s));
  return e;
}

/// The raw graph API's work graph (one step node) and scheduler graph, both device-launchable.
class RawDeviceLoop {
 public:
  RawDeviceLoop(float* data, int* remaining, int* failed, cudaStream_t s) : work_(raw_graph_of(Shape::chain, 1, data)) {
    work_exec_ = raw_device_instantiate(work_.graph, s);
    CUDA_CHECK(cudaGraphCreate(&sched_, 0));
    gd::DeviceGraph work(work_exec_);
    void* args[] = {&work, &remaining, &failed};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(&dl_schedule);
    p.gridDim = tiny.grid;
    p.blockDim = tiny.block;
    p.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(cudaGraphAddKernelNode(&node, sched_, nullptr, 0, &p));
    sched_exec_ = raw_device_instantiate(sched_, s);
  }
  ~RawDeviceLoop() {
    (void)cudaGraphExecDestroy(sched_exec_);
    (void)cudaGraphDestroy(sched_);
    (void)cudaGraphExecDestroy(work_exec_);
  }
  RawDeviceLoop(const RawDeviceLoop&) = delete;
  RawDeviceLoop& operator=(const RawDeviceLoop&) = delete;
  void launch_work(cudaStream_t s) const { CUDA_CHECK(cudaGraphLaunch(work_exec_, s)); }
  void launch_scheduler(cudaStream_t s) const { CUDA_CHECK(cudaGraphLaunch(sched_exec_, s)); }

 private:
  RawGraph work_;
  cudaGraphExec_t work_exec_ = nullptr;
  cudaGraph_t sched_ = nullptr;
  cudaGraphExec_t sched_exec_ = nullptr;
};

}  // namespace

void device_launch_bench(Bench& bench) {
  fmt::print("\ndlaunch: a one-kernel work graph (step<<<1, 32>>>) launched {} times in a row from the host "
             "(a launch loop) vs from the device (a scheduler graph tail-launching it, then itself), graphdsl "
             "and raw graph API; device time per work-graph launch (cudaEvent around the {}; median of {} reps, "
             "the four interleaved)\n",
             launches, launches, options().reps(15));
  int* counters = nullptr;  // [0] remaining launches, [1] the first device launch error
  CUDA_CHECK(cudaMalloc(&counters, 2 * sizeof(int)));
  CUDA_CHECK(cudaMemsetAsync(counters, 0, 2 * sizeof(int), bench.s));
  const auto device_launch = gd::InstantiateOptions{}.device_launch().upload_on(bench.s);
  gd::Executable gd_work = plan_of(Shape::chain, 1, bench.data).instantiate(device_launch);
  gd::Graph sched_plan("scheduler");
  sched_plan.add_kernel(dl_schedule, tiny, gd_work.device_graph(), counters, counters + 1).name("schedule");
  gd::Executable gd_sched = sched_plan.instantiate(device_launch);
  const RawDeviceLoop raw(bench.data, counters, counters + 1, bench.s);

  auto set_remaining = [&](int n) {  // pageable source: staged before the call returns
    CUDA_CHECK(cudaMemcpyAsync(counters, &n, sizeof(int), cudaMemcpyHostToDevice, bench.s));
  };
  auto counters_now = [&] {
    std::array<int, 2> c{};
    CUDA_CHECK(cudaMemcpyAsync(c.data(), counters, sizeof(c), cudaMemcpyDeviceToHost, bench.s));
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    return c;
  };
  // Forms 0, 1: one host launch of the work graph; 2, 3: one host launch of the scheduler, which
  // makes set_remaining(n)'s n work-graph launches on the device.
  const std::array<std::function<void()>, 4> forms = {
      [&] { gd_work.launch(bench.s); }, [&] { raw.launch_work(bench.s); }, [&] { gd_sched.launch(bench.s); },
      [&] { raw.launch_scheduler(bench.s); }};
  const char* const names[] = {"dlaunch graphdsl host", "dlaunch raw host", "dlaunch graphdsl device",
                               "dlaunch raw device"};
  for (int f = 0; f < 4; ++f) {  // each form applies the work graph exactly once per work launch
    bench.check(names[f], 1, [&] {
      if (f >= 2) set_remaining(1);
      forms[static_cast<std::size_t>(f)]();
    });
  }
  auto per_launch = [&](int f) {
    const bool device = f >= 2;
    if (device) set_remaining(launches);
    bench.timer.start(bench.s);
    for (int i = 0; i < (device ? 1 : launches); ++i) forms[static_cast<std::size_t>(f)]();
    return bench.timer.stop_us(bench.s) / launches;
  };
  std::array<std::vector<double>, 4> us;
  for (int f = 0; f < 4; ++f) (void)per_launch(f);  // warm-up
  const int reps = options().reps(15);
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < 4; ++j) {
      const int f = (j + r) % 4;  // rotate the order
      us[static_cast<std::size_t>(f)].push_back(per_launch(f));
    }
  }
  const std::array<int, 2> left = counters_now();
  bench.expect(left[0] == 0 && left[1] == 0, "dlaunch device loops",
               fmt::format("{} launches left, device launch error {}", left[0], left[1]));
  CUDA_CHECK(cudaFree(counters));

  Pair host{us[0], us[1]};
  Pair device{us[2], us[3]};
  Pair gain{us[2], us[0]};
  fmt::print("  {:<44} {:>11} {:>11} {:>7} {:>6}\n", "per work-graph launch", "graphdsl us", "raw us", "ratio", "noise");
  fmt::print("  {:<44} {:>11.3f} {:>11.3f} {:>7.3f} {:>5.1f}%\n", "host launch loop (cudaGraphLaunch)", host.ma(),
             host.mb(), host.ratio(), 100.0 * host.noise());
  fmt::print("  {:<44} {:>11.3f} {:>11.3f} {:>7.3f} {:>5.1f}%\n", "device: work + scheduler tail launches",
             device.ma(), device.mb(), device.ratio(), 100.0 * device.noise());
  fmt::print("  device / host (graphdsl): {:.3f}; raw: {:.3f} (each device iteration is two graph launches and the "
             "scheduler kernel)\n",
             gain.ratio(), device.mb() / host.mb());
  csv_pair("dlaunch", "1-node work graph x 1000", launches, -1, "graphdsl host launch", "raw host launch", host);
  csv_pair("dlaunch", "1-node work graph x 1000", launches, -1, "graphdsl device launch", "raw device launch", device);
}

}  // namespace bench
