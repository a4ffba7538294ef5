// samples/device_launch — a scheduler kernel that picks the next graph from device data.
//
// The Collatz walk of a number, driven entirely by the GPU: three small work graphs and one
// scheduler graph, all compiled for device launch (InstantiateOptions::device_launch()). The
// scheduler kernel reads the state in device memory, tail-launches the work graph that fits, then
// tail-launches its own graph (DeviceGraph::current()) to decide again once that work has run:
//
//   scheduler --tail--> halve   (value even: value /= 2)      --+
//      ^      --tail--> triple  (value odd:  value = 3 v + 1)   +--> the scheduler again (tail)
//      |      --tail--> finish  (value 1, or the step limit)    |
//      +--------------------------------------------------------+
//
// Each work graph is two nodes: `record` appends the value to the trace, then the step itself.
// The host launches the scheduler once and waits; every later launch is made on the device
// (tail launches run one after another, in the order they were made, each after its launching
// graph has finished). The work graphs reach the scheduler as kernel arguments: gd::DeviceGraph,
// from Executable::device_graph(), which refuses an executable that device code cannot launch.
//
// Device code that launches graphs is compiled with relocatable device code (this target:
// CUDA_SEPARABLE_COMPILATION ON) and linked with cudadevrt. The walk and the trace are checked
// against the CPU. Without a GPU the plans are built, validated and printed; `--dot`: their DOT.
// Exit status: 0 when the checks pass (or when there is no GPU), 1 otherwise.
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr unsigned long long start_value = 27;  // 111 steps, peaking at 9232
constexpr int max_steps = 1000;                 // the scheduler stops here regardless

/// The walk's state, in device memory; the scheduler reads it, the work graphs change it.
struct Walk {
  unsigned long long value;
  int steps;    ///< work graphs run so far (halve or triple)
  int halves;   ///< of which halve
  int triples;  ///< of which triple
  int done;     ///< set by finish
  int error;    ///< the first cudaError_t a device launch returned (0: none)
};

__global__ void record(Walk* w, unsigned long long* trace) {
  if (threadIdx.x == 0 && w->steps < max_steps) trace[w->steps] = w->value;
}

__global__ void halve(Walk* w) {
  if (threadIdx.x != 0) return;
  w->value /= 2;
  ++w->halves;
  ++w->steps;
}

__global__ void triple(Walk* w) {
  if (threadIdx.x != 0) return;
  w->value = 3 * w->value + 1;
  ++w->triples;
  ++w->steps;
}

__global__ void finish(Walk* w) {
  if (threadIdx.x == 0) w->done = 1;
}

/// Picks the next work graph from the state, tail-launches it, and (unless that was finish)
/// tail-launches this scheduler's own graph after it.
__global__ void schedule(gd::DeviceGraph halve_g, gd::DeviceGraph triple_g, gd::DeviceGraph finish_g, Walk* w) {
  if (threadIdx.x != 0) return;
  const bool stop = w->value <= 1 || w->steps >= max_steps;
  const gd::DeviceGraph next = stop ? finish_g : (w->value % 2 == 0 ? halve_g : triple_g);
  cudaError_t rc = next.launch_tail();
  if (rc == cudaSuccess && !stop) rc = gd::DeviceGraph::current().launch_tail();
  if (rc != cudaSuccess && w->error == 0) w->error = static_cast<int>(rc);
}

const gd::Launch one{1, 32};

/// A work graph: record the value, then `step` it.
gd::Graph work(const char* name, void (*step)(Walk*), Walk* w, unsigned long long* trace) {
  gd::Graph g(name);
  auto rec = g.add_kernel(record, one, w, trace).name("record");
  g.add_kernel(step, one, w).name(name).after(rec);
  return g;
}

gd::Graph scheduler(gd::DeviceGraph h, gd::DeviceGraph t, gd::DeviceGraph f, Walk* w) {
  gd::Graph g("scheduler");
  g.add_kernel(schedule, one, h, t, f, w).name("schedule");
  return g;
}

/// The CPU's walk: the trace of values before each step.
std::vector<unsigned long long> collatz(unsigned long long v) {
  std::vector<unsigned long long> trace;
  while (v > 1 && static_cast<int>(trace.size()) < max_steps) {
    trace.push_back(v);
    v = v % 2 == 0 ? v / 2 : 3 * v + 1;
  }
  return trace;
}

int run(bool dot_only) {
  const auto calls_before = gd::debug::cuda_calls();
  // Stand-ins for the preview: plans are built and checked without a GPU (null device handles).
  Walk w_stand_in{};
  std::vector<unsigned long long> trace_stand_in(1);
  const gd::Graph preview_work = work("halve", halve, &w_stand_in, trace_stand_in.data());
  const gd::Graph preview_sched = scheduler(gd::DeviceGraph{}, gd::DeviceGraph{}, gd::DeviceGraph{}, &w_stand_in);
  preview_work.validate();
  preview_sched.validate();
  if (dot_only) return sample::print_dot(calls_before, preview_sched, preview_work);
  fmt::print("graphdsl {} device_launch sample: a scheduler kernel picks the next graph from device data\n\n",
             gd::version_string);
  fmt::print("--- the scheduler plan ---\n{}\n--- a work plan (halve; triple and finish alike) ---\n{}\n",
             preview_sched.dump(), preview_work.dump());
  if (sample::cuda_device_count() == 0) {
    fmt::print("skipped: no CUDA device\n");
    return 0;
  }
  CUDA_CHECK(cudaSetDevice(0));
  fmt::print("device 0: {}\n\n", sample::device_summary(0));

  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gd::DeviceValue<Walk> w(Walk{start_value, 0, 0, 0, 0, 0}, s);
  unsigned long long* trace = nullptr;
  CUDA_CHECK(cudaMalloc(&trace, max_steps * sizeof(unsigned long long)));
  const auto device_launch = gd::InstantiateOptions{}.device_launch().upload_on(s);  // compiled and uploaded
  gd::Executable halve_x = work("halve", halve, w.get(), trace).instantiate(device_launch);
  gd::Executable triple_x = work("triple", triple, w.get(), trace).instantiate(device_launch);
  gd::Executable finish_x = work("finish", finish, w.get(), trace).instantiate(device_launch);
  gd::Executable sched_x =
      scheduler(halve_x.device_graph(), triple_x.device_graph(), finish_x.device_graph(), w.get())
          .instantiate(device_launch);

  sample::EventTimer timer;
  timer.start(s);
  sched_x.launch(s);  // the only host launch; the device makes the others
  const double us = timer.stop_us(s);
  sched_x.synchronize(s);
  const Walk got = w.read(s);
  std::vector<unsigned long long> got_trace(static_cast<std::size_t>(got.steps < max_steps ? got.steps : max_steps));
  CUDA_CHECK(cudaMemcpy(got_trace.data(), trace, got_trace.size() * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost));

  const std::vector<unsigned long long> want = collatz(start_value);
  int want_halves = 0;
  for (unsigned long long v : want) want_halves += v % 2 == 0 ? 1 : 0;
  const int launches = 2 * got.steps + 1;  // each step: a work graph and the scheduler again; then finish
  fmt::print("{} reaches 1 in {} steps ({} halvings, {} triplings); {} device-side graph launches in {:.1f} us "
             "({:.2f} us per launch, kernels included)\n",
             start_value, got.steps, got.halves, got.triples, launches, us, launches > 0 ? us / launches : 0.0);
  std::string head;
  for (std::size_t i = 0; i < got_trace.size() && i < 12; ++i) head += fmt::format("{} ", got_trace[i]);
  fmt::print("trace: {}...\n", head);
  const bool ok = got.error == 0 && got.done == 1 && got.value == 1 && got_trace == want &&
                  got.halves == want_halves && got.triples == static_cast<int>(want.size()) - want_halves;
  if (got.error != 0) {
    fmt::print("a device launch failed: {}\n", cudaGetErrorName(static_cast<cudaError_t>(got.error)));
  }
  fmt::print("\nchecked against the CPU's walk: {}\n\n{}\n", ok ? "ok" : "MISMATCH",
             ok ? "device_launch: PASSED" : "device_launch: FAILED");
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(trace));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv)); });
}
