// samples/bench/bench_hot.cu — the hot paths (setters, updates, build, replay, launch), each against
// raw CUDA in the same run.
//
//   setters  typed setter on one node of a chain of N (a batch of 100 calls alternating two values)
//            and on every node (one sweep of N calls) vs the raw exec setter: set_kernel_args and
//            set_launch vs cudaGraphExecKernelNodeSetParams, set_memset vs
//            cudaGraphExecMemsetNodeSetParams, set_memcpy vs cudaGraphExecMemcpyNodeSetParams1D,
//            set_enabled vs cudaGraphNodeSetEnabled; and at N = 100 and 1,000 set_event (record, wait),
//            set_host vs cudaGraphExecHostNodeSetParams, set_child vs cudaGraphExecChildGraphNodeSetParams
//            (a prebuilt child graph, and one built and destroyed per call; set_child with a PreparedChild
//            against the prebuilt one); "floor" rows: the driver's
//            own setter vs the runtime's; µs per call and operator-new allocations per call
//   hupdate  update(plan): automatic, per_node, whole_graph with the template prebuilt, automatic with
//            the template built inside the timing; update(prepared) alternating two prepared templates,
//            and plan + prepare_update + update(prepared) built inside the timing; raw
//            cudaGraphExecUpdate with a prebuilt template and with the template built inside;
//            k = 1, 10, 100, 1000, N of N; chain and fork-join
//   hbuild   plan + instantiate() vs cudaGraphCreate + N cudaGraphAddKernelNode + instantiate
//            (destruction timed apart), and the host heap an instantiated graph holds per node
//   hreplay  20 launches + cudaStreamSynchronize (host wall time), chain and fork-join
//   launch   a 1-node graph launched 10000 times + synchronize, µs per launch
//
// Every executable timed here is launched and checked bit for bit against the CPU (node i's
// data[i] = init[i] * 0.5 + b_i; memset and memcpy nodes: their destination's exact bits).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda.h>  // CUDA_KERNEL_NODE_PARAMS for the driver floor (no libcuda link: an entry point)

#include <graphdsl/format.hpp>
#include <graphdsl/graphdsl.hpp>

#include "bench_common.hpp"
#include "bench_driver.hpp"
#include "bench_hot.hpp"

namespace bench {
namespace {

const int sizes[] = {100, 1000, 10000};
constexpr int one_node_batch = 100;  // setter calls per timed batch on one node (even: ends on gen 2)
const gd::Launch wide{dim3(1), dim3(64)};
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

/// b of generation `gen`: 0 the base, 1 and 2 the two values updates and setters alternate between.
float b_gen(int gen) { return 0.25f + 0.5f * static_cast<float>(gen); }

// ---- measuring: interleaved pairs with operator-new counts ---------------------------------------

/// A Pair of µs-per-call series (a = graphdsl, b = raw) with the allocations each side made.
struct Measured {
  Pair p;
  HeapCount heap[2];
  double calls[2] = {0, 0};
  double allocs(int side) const { return calls[side] > 0 ? static_cast<double>(heap[side].allocs) / calls[side] : 0; }
  double bytes(int side) const { return calls[side] > 0 ? static_cast<double>(heap[side].bytes) / calls[side] : 0; }
};

/// One untimed batch of each side, then `reps` interleaved batches; a batch makes `calls` calls.
template <class G, class R>
Measured measure(int reps, int calls, G&& gd_batch, R&& raw_batch) {
  Measured m;
  gd_batch();
  raw_batch();
  auto timed = [&](int side, auto& batch) {
    const HeapCount h0 = thread_heap();
    sample::Stopwatch w;
    batch();
    const double us = w.us();
    m.heap[side] = m.heap[side] + (thread_heap() - h0);
    m.calls[side] += calls;
    return us / calls;
  };
  m.p = interleave(
      reps, [&] { return timed(0, gd_batch); }, [&] { return timed(1, raw_batch); });
  return m;
}

void row_header(const char* what) {
  fmt::print("  {:<44} {:>11} {:>11} {:>7} {:>6} {:>9} {:>9}  {}\n", what, "graphdsl us", "raw us", "ratio", "noise",
             "gd alloc", "raw alloc", "goal");
}

/// Prints one row (allocations per call of each side) and writes its two CSV rows.
void report(const std::string& section, const std::string& workload, int n, int k, const std::string& label,
            const std::string& gd_variant, const std::string& raw_variant, const Measured& m, const std::string& goal) {
  fmt::print("  {:<44} {:>11.3f} {:>11.3f} {:>7.3f} {:>5.1f}% {:>9.2f} {:>9.2f}  {}\n", label, m.p.ma(), m.p.mb(),
             m.p.ratio(), 100.0 * m.p.noise(), m.allocs(0), m.allocs(1), goal);
  csv_row({section, workload, n, k, gd_variant, m.p.ma(), m.p.noise(), m.p.ratio(), m.allocs(0), m.bytes(0)});
  csv_row({section, workload, n, k, raw_variant, m.p.mb(), m.p.noise(), 1.0, m.allocs(1), m.bytes(1)});
}

std::string goal_at_most(double value, double limit) {
  return fmt::format("<={:.2f} {}", limit, value <= limit ? "met" : "MISSED");
}

// ---- setters --------------------------------------------------------------------------------------

/// One setter under test: `set(side, j, gen)` makes one call (side 0 graphdsl, 1 raw) giving node j
/// the value of generation `gen` (1 or 2) and records it; `check(what)` launches both sides and
/// compares their output with the recorded values.
struct SetterKind {
  const char* name;
  const char* gd_variant;
  const char* raw_variant;
  std::function<void(int side, int j, int gen)> set;
  std::function<void(const std::string& what)> check;
};

/// The one-node batch and the every-node sweep of one setter kind at size n, then the check. `goal`:
/// the ratio side 0 / side 1 to reach (0: a reference row without a goal).
void run_setter_kind(Bench& bench, int n, const char* workload, const SetterKind& kind, double goal = 0.8) {
  auto goal_of = [goal](double ratio) { return goal > 0 ? goal_at_most(ratio, goal) : std::string("(floor)"); };
  const int reps = options().reps(15);
  const int mid = n / 2;
  int calls[2] = {0, 0};  // calls made so far per side: call c sets generation 1 + c % 2
  auto one_node = [&](int side) {
    for (int c = 0; c < one_node_batch; ++c) kind.set(side, mid, 1 + calls[side]++ % 2);
  };
  const Measured one = measure(
      reps, one_node_batch, [&] { one_node(0); }, [&] { one_node(1); });
  const std::string section = std::string("setters ") + kind.name;
  report(section, workload, n, 1, fmt::format("{}: one node of N={}", kind.name, n), kind.gd_variant, kind.raw_variant,
         one, goal_of(one.p.ratio()));
  int sweeps[2] = {0, 0};
  auto every = [&](int side) {
    const int gen = 1 + sweeps[side]++ % 2;
    for (int j = 0; j < n; ++j) kind.set(side, j, gen);
  };
  const Measured all = measure(
      reps, n, [&] { every(0); }, [&] { every(1); });
  report(section, workload, n, n, fmt::format("{}: every node of N={}", kind.name, n), kind.gd_variant,
         kind.raw_variant, all, goal_of(all.p.ratio()));
  kind.check(fmt::format("setters {} N={}", kind.name, n));
}

/// A chain of N nodes made by `add(graph, j)` (graphdsl) — handles kept for the setters.
template <class H, class Add>
gd::Graph gd_chain(int n, std::vector<H>& handles, Add add) {
  gd::Graph g("setter chain");
  g.reserve(n);
  handles.clear();
  for (int j = 0; j < n; ++j) {
    H h = add(g, j);
    if (j > 0) h.after(handles.back());
    handles.push_back(h);
  }
  return g;
}

/// The same chain with raw CUDA: `add(graph, deps, ndeps, j)` returns the new node.
template <class Add>
RawGraph raw_chain(int n, Add add) {
  RawGraph r;
  CUDA_CHECK(cudaGraphCreate(&r.graph, 0));
  r.nodes.reserve(n);
  for (int j = 0; j < n; ++j) r.nodes.push_back(add(r.graph, j > 0 ? &r.nodes.back() : nullptr, j > 0 ? 1 : 0, j));
  return r;
}

/// Poisons `count` elements at `dev` (0xff bytes), runs `launch`, and compares them bit for bit with `want`.
template <class T>
void check_bits(Bench& bench, const std::string& what, T* dev, const std::vector<T>& want,
                const std::function<void()>& launch) {
  CUDA_CHECK(cudaMemsetAsync(dev, 0xff, want.size() * sizeof(T), bench.s));
  launch();
  std::vector<T> got(want.size());
  CUDA_CHECK(cudaMemcpyAsync(got.data(), dev, want.size() * sizeof(T), cudaMemcpyDeviceToHost, bench.s));
  CUDA_CHECK(cudaStreamSynchronize(bench.s));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) bad += std::memcmp(&got[i], &want[i], sizeof(T)) != 0;
  bench.expect(bad == 0, what, fmt::format("{} of {} values differ", bad, want.size()));
}

/// What one side of the step chain holds: node j's b and whether it is enabled.
struct StepState {
  std::vector<float> b;
  std::vector<char> on;
  explicit StepState(int n) : b(n, b_gen(0)), on(n, 1) {}
  std::vector<float> expected() const {
    std::vector<float> e(b);
    for (std::size_t j = 0; j < e.size(); ++j) e[j] = on[j] ? b[j] : nan_f;
    return e;
  }
};

/// The floor of the kernel setters: the driver's cuGraphExecKernelNodeSetParams (side 0, on one raw
/// executable) against the runtime's cudaGraphExecKernelNodeSetParams (side 1, on another), the same
/// calls as the "kernel args" rows. graphdsl's setter makes the driver call (src/exec/setters.cpp), so
/// this ratio is as low as its ratio to the runtime can go without skipping the driver's work.
void driver_floor(Bench& bench, int n) {
  using DriverKernelSet = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*);
  const auto set = driver_fn<DriverKernelSet>("cuGraphExecKernelNodeSetParams", 12000, "kernel args floor");
  if (set == nullptr) return;
  RawExec drv(Shape::chain, n, bench.data);
  RawExec raw(Shape::chain, n, bench.data);
  cudaFunction_t step_fn = nullptr;
  CUDA_CHECK(cudaGetFuncBySymbol(&step_fn, reinterpret_cast<const void*>(&step)));
  StepState st[2] = {StepState(n), StepState(n)};
  const SetterKind floor{"kernel args floor", "raw driver cuGraphExecKernelNodeSetParams",
                         "raw cudaGraphExecKernelNodeSetParams",
                         [&](int side, int j, int gen) {
                           StepArgs a(bench.data, j, b_gen(gen));
                           const cudaKernelNodeParams p = a.params(tiny);
                           if (side == 0) {
                             CUDA_KERNEL_NODE_PARAMS d{};
                             d.func = step_fn;
                             d.gridDimX = p.gridDim.x, d.gridDimY = p.gridDim.y, d.gridDimZ = p.gridDim.z;
                             d.blockDimX = p.blockDim.x, d.blockDimY = p.blockDim.y, d.blockDimZ = p.blockDim.z;
                             d.sharedMemBytes = p.sharedMemBytes;
                             d.kernelParams = p.kernelParams;
                             if (set(drv.exec, drv.g.nodes[j], &d) != CUDA_SUCCESS)
                               bench.expect(false, "driver setter", "failed");
                           } else {
                             CUDA_CHECK(cudaGraphExecKernelNodeSetParams(raw.exec, raw.g.nodes[j], &p));
                           }
                           st[side].b[j] = b_gen(gen);
                         },
                         [&](const std::string& what) {
                           bench.check_b(what + " driver", st[0].expected(), [&] { drv.launch(bench.s); });
                           bench.check_b(what + " runtime", st[1].expected(), [&] { raw.launch(bench.s); });
                         }};
  run_setter_kind(bench, n, "chain step", floor, 0);
  using DriverEnable = CUresult (*)(CUgraphExec, CUgraphNode, unsigned int);
  const auto enable = driver_fn<DriverEnable>("cuGraphNodeSetEnabled", 11060, "enable floor");
  if (enable == nullptr) return;
  const SetterKind enable_floor{"enable floor", "raw driver cuGraphNodeSetEnabled", "raw cudaGraphNodeSetEnabled",
                                [&](int side, int j, int gen) {
                                  if (side == 0) {
                                    if (enable(drv.exec, drv.g.nodes[j], gen == 2 ? 1u : 0u) != CUDA_SUCCESS)
                                      bench.expect(false, "driver enable", "failed");
                                  } else {
                                    CUDA_CHECK(cudaGraphNodeSetEnabled(raw.exec, raw.g.nodes[j], gen == 2 ? 1u : 0u));
                                  }
                                  st[side].on[j] = gen == 2;
                                },
                                floor.check};
  run_setter_kind(bench, n, "chain step", enable_floor, 0);
  for (int side = 0; side < 2; ++side) std::fill(st[side].on.begin(), st[side].on.end(), 1);
  for (int j = 0; j < n; ++j) {  // leave both executables enabled for whatever launches them next
    (void)enable(drv.exec, drv.g.nodes[j], 1u);
    CUDA_CHECK(cudaGraphNodeSetEnabled(raw.exec, raw.g.nodes[j], 1u));
  }
}

/// set_kernel_args, set_launch and set_enabled on a chain of N step nodes.
void step_setters(Bench& bench, int n) {
  std::vector<StepNode> h;
  const gd::Graph plan = plan_of(Shape::chain, n, bench.data, nullptr, &h);
  gd::Executable exec = plan.instantiate();
  RawExec raw(Shape::chain, n, bench.data);
  StepState st[2] = {StepState(n), StepState(n)};
  auto check = [&](const std::string& what) {
    bench.check_b(what + " graphdsl", st[0].expected(), [&] { exec.launch(bench.s); });
    bench.check_b(what + " raw", st[1].expected(), [&] { raw.launch(bench.s); });
  };
  auto raw_params = [&](int j, float b, const gd::Launch& l) {
    StepArgs a(bench.data, j, b);
    const cudaKernelNodeParams p = a.params(l);
    CUDA_CHECK(cudaGraphExecKernelNodeSetParams(raw.exec, raw.g.nodes[j], &p));
  };
  const SetterKind args{"kernel args", "graphdsl set_kernel_args", "raw cudaGraphExecKernelNodeSetParams",
                        [&](int side, int j, int gen) {
                          if (side == 0) {
                            exec.set_kernel_args(h[j], bench.data, j, step_a, b_gen(gen));
                          } else {
                            raw_params(j, b_gen(gen), tiny);
                          }
                          st[side].b[j] = b_gen(gen);
                        },
                        check};
  const SetterKind launch{"launch", "graphdsl set_launch", "raw cudaGraphExecKernelNodeSetParams",
                          [&](int side, int j, int gen) {
                            const gd::Launch& l = gen == 1 ? wide : tiny;
                            if (side == 0) {
                              exec.set_launch(h[j], l);
                            } else {
                              raw_params(j, st[1].b[j], l);
                            }
                          },
                          check};
  const SetterKind enable{"enable", "graphdsl set_enabled", "raw cudaGraphNodeSetEnabled",
                          [&](int side, int j, int gen) {
                            if (side == 0) {
                              exec.set_enabled(h[j], gen == 2);
                            } else {
                              CUDA_CHECK(cudaGraphNodeSetEnabled(raw.exec, raw.g.nodes[j], gen == 2 ? 1u : 0u));
                            }
                            st[side].on[j] = gen == 2;
                          },
                          check};
  for (const SetterKind* k : {&args, &launch, &enable}) run_setter_kind(bench, n, "chain step", *k);
  driver_floor(bench, n);
}

/// The value memset node j writes in generation `gen`.
unsigned memset_value(int j, int gen) { return 0x10000u * static_cast<unsigned>(gen + 1) + static_cast<unsigned>(j); }

cudaMemsetParams memset_params(unsigned* dst, unsigned value) {
  cudaMemsetParams p{};
  p.dst = dst;
  p.value = value;
  p.elementSize = sizeof(unsigned);
  p.width = 1;
  p.height = 1;
  return p;
}

/// set_memset on a chain of N one-element memset nodes.
void memset_setters(Bench& bench, SetterBuffers& buf, int n) {
  std::vector<gd::MemsetNode> h;
  const gd::Graph plan = gd_chain(n, h, [&](gd::Graph& g, int j) {
    return g.add_memset(buf.slots + j, memset_value(j, 0), 1);
  });
  gd::Executable exec = plan.instantiate();
  RawGraph rg = raw_chain(n, [&](cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t nd, int j) {
    const cudaMemsetParams p = memset_params(buf.slots + j, memset_value(j, 0));
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(cudaGraphAddMemsetNode(&node, g, deps, nd, &p));
    return node;
  });
  const cudaGraphExec_t rx = raw_instantiate(rg.graph);
  std::vector<unsigned> st[2];
  for (auto& s : st) {
    for (int j = 0; j < n; ++j) s.push_back(memset_value(j, 0));
  }
  const SetterKind kind{"memset", "graphdsl set_memset", "raw cudaGraphExecMemsetNodeSetParams",
                        [&](int side, int j, int gen) {
                          const unsigned v = memset_value(j, gen);
                          if (side == 0) {
                            exec.set_memset(h[j], buf.slots + j, v, 1);
                          } else {
                            const cudaMemsetParams p = memset_params(buf.slots + j, v);
                            CUDA_CHECK(cudaGraphExecMemsetNodeSetParams(rx, rg.nodes[j], &p));
                          }
                          st[side][j] = v;
                        },
                        [&](const std::string& what) {
                          check_bits(bench, what + " graphdsl", buf.slots, st[0], [&] { exec.launch(bench.s); });
                          check_bits(bench, what + " raw", buf.slots, st[1],
                                     [&] { CUDA_CHECK(cudaGraphLaunch(rx, bench.s)); });
                        }};
  run_setter_kind(bench, n, "chain memset", kind);
  // The floor: the driver's setter (the node's context known) on a second executable of the raw graph.
  using DriverMemset = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_MEMSET_NODE_PARAMS*, CUcontext);
  const auto set = driver_fn<DriverMemset>("cuGraphExecMemsetNodeSetParams", 12000, "memset floor");
  const CUcontext ctx = bench_context();
  if (set != nullptr && ctx != nullptr) {
    const cudaGraphExec_t dx = raw_instantiate(rg.graph);
    for (int j = 0; j < n; ++j) st[0][j] = memset_value(j, 0);  // dx is new; st[1] stays rx's
    const SetterKind floor{"memset floor", "raw driver cuGraphExecMemsetNodeSetParams",
                           "raw cudaGraphExecMemsetNodeSetParams",
                           [&](int side, int j, int gen) {
                             const unsigned v = memset_value(j, gen);
                             const cudaMemsetParams p = memset_params(buf.slots + j, v);
                             if (side == 0) {
                               CUDA_MEMSET_NODE_PARAMS d{};
                               d.dst = reinterpret_cast<CUdeviceptr>(p.dst);
                               d.value = p.value;
                               d.elementSize = p.elementSize;
                               d.width = p.width;
                               d.height = p.height;
                               if (set(dx, rg.nodes[j], &d, ctx) != CUDA_SUCCESS)
                                 bench.expect(false, "driver memset setter", "failed");
                             } else {
                               CUDA_CHECK(cudaGraphExecMemsetNodeSetParams(rx, rg.nodes[j], &p));
                             }
                             st[side][j] = v;
                           },
                           [&](const std::string& what) {
                             check_bits(bench, what + " driver", buf.slots, st[0],
                                        [&] { CUDA_CHECK(cudaGraphLaunch(dx, bench.s)); });
                             check_bits(bench, what + " runtime", buf.slots, st[1],
                                        [&] { CUDA_CHECK(cudaGraphLaunch(rx, bench.s)); });
                           }};
    run_setter_kind(bench, n, "chain memset", floor, 0);
    CUDA_CHECK(cudaGraphExecDestroy(dx));
  }
  CUDA_CHECK(cudaGraphExecDestroy(rx));
}

/// set_memcpy on a chain of N one-element device-to-device copies (the source alternates).
void memcpy_setters(Bench& bench, SetterBuffers& buf, int n) {
  constexpr cudaMemcpyKind d2d = cudaMemcpyDeviceToDevice;
  std::vector<gd::MemcpyNode> h;
  const gd::Graph plan = gd_chain(n, h, [&](gd::Graph& g, int j) {
    return g.add_memcpy(buf.dst + j, buf.src[0] + j, 1, d2d);
  });
  gd::Executable exec = plan.instantiate();
  RawGraph rg = raw_chain(n, [&](cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t nd, int j) {
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(cudaGraphAddMemcpyNode1D(&node, g, deps, nd, buf.dst + j, buf.src[0] + j, sizeof(float), d2d));
    return node;
  });
  const cudaGraphExec_t rx = raw_instantiate(rg.graph);
  std::vector<float> st[2] = {std::vector<float>(buf.hsrc[0].begin(), buf.hsrc[0].begin() + n),
                              std::vector<float>(buf.hsrc[0].begin(), buf.hsrc[0].begin() + n)};
  const SetterKind kind{
      "memcpy", "graphdsl set_memcpy", "raw cudaGraphExecMemcpyNodeSetParams1D",
      [&](int side, int j, int gen) {
        const float* from = buf.src[gen] + j;
        if (side == 0) {
          exec.set_memcpy(h[j], buf.dst + j, from, 1, d2d);
        } else {
          CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams1D(rx, rg.nodes[j], buf.dst + j, from, sizeof(float), d2d));
        }
        st[side][j] = buf.hsrc[gen][j];
      },
      [&](const std::string& what) {
        check_bits(bench, what + " graphdsl", buf.dst, st[0], [&] { exec.launch(bench.s); });
        check_bits(bench, what + " raw", buf.dst, st[1], [&] { CUDA_CHECK(cudaGraphLaunch(rx, bench.s)); });
      }};
  run_setter_kind(bench, n, "chain memcpy", kind);
  // The floor: the driver's setter (the node's context known) on a second executable of the raw graph.
  using DriverMemcpy = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_MEMCPY3D*, CUcontext);
  const auto set = driver_fn<DriverMemcpy>("cuGraphExecMemcpyNodeSetParams", 12000, "memcpy floor");
  const CUcontext ctx = bench_context();
  if (set != nullptr && ctx != nullptr) {
    const cudaGraphExec_t dx = raw_instantiate(rg.graph);
    st[0].assign(buf.hsrc[0].begin(), buf.hsrc[0].begin() + n);  // dx is new; st[1] stays rx's
    const SetterKind floor{
        "memcpy floor", "raw driver cuGraphExecMemcpyNodeSetParams", "raw cudaGraphExecMemcpyNodeSetParams1D",
        [&](int side, int j, int gen) {
          const float* from = buf.src[gen] + j;
          if (side == 0) {
            CUDA_MEMCPY3D d{};
            d.srcMemoryType = d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
            d.srcDevice = reinterpret_cast<CUdeviceptr>(from);
            d.dstDevice = reinterpret_cast<CUdeviceptr>(buf.dst + j);
            d.WidthInBytes = sizeof(float);
            d.Height = d.Depth = 1;
            if (set(dx, rg.nodes[j], &d, ctx) != CUDA_SUCCESS) bench.expect(false, "driver memcpy setter", "failed");
          } else {
            CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams1D(rx, rg.nodes[j], buf.dst + j, from, sizeof(float), d2d));
          }
          st[side][j] = buf.hsrc[gen][j];
        },
        [&](const std::string& what) {
          check_bits(bench, what + " driver", buf.dst, st[0], [&] { CUDA_CHECK(cudaGraphLaunch(dx, bench.s)); });
          check_bits(bench, what + " runtime", buf.dst, st[1], [&] { CUDA_CHECK(cudaGraphLaunch(rx, bench.s)); });
        }};
    run_setter_kind(bench, n, "chain memcpy", floor, 0);
    CUDA_CHECK(cudaGraphExecDestroy(dx));
  }
  CUDA_CHECK(cudaGraphExecDestroy(rx));
}

/// Launches the graphdsl side and the raw side once each and checks that both ran without error
/// (event nodes have no output to compare: which event a node records or waits for is the setter's
/// whole effect; the GPU tests check it).
void check_runs(Bench& bench, const std::string& what, gd::Executable& exec, cudaGraphExec_t raw) {
  exec.launch(bench.s);
  CUDA_CHECK(cudaGraphLaunch(raw, bench.s));
  bench.expect(cudaStreamSynchronize(bench.s) == cudaSuccess, what, "a launch failed");
}

/// set_event on chains of N event record nodes and of N event wait nodes; generation g of node j
/// is event ev[g][j] (created before timing: a setter given an event whose cudaEvent_t exists makes
/// one CUDA call).
void event_setters(Bench& bench, int n) {
  std::vector<gd::Event> ev[3];
  for (auto& gen : ev) {
    for (int j = 0; j < n; ++j) (void)gen.emplace_back(gd::Event::create()).native_handle();
  }
  auto run_kind = [&](auto handle, const char* name, const char* gd_variant, const char* raw_variant) {
    using H = decltype(handle);  // EventRecordNode or EventWaitNode
    constexpr bool record = std::is_same_v<H, gd::EventRecordNode>;
    std::vector<H> h;
    const gd::Graph plan = gd_chain(n, h, [&](gd::Graph& g, int j) {
      if constexpr (record) {
        return g.add_event_record(ev[0][j]);
      } else {
        return g.add_event_wait(ev[0][j]);
      }
    });
    gd::Executable exec = plan.instantiate();
    RawGraph rg = raw_chain(n, [&](cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t nd, int j) {
      cudaGraphNode_t node = nullptr;
      const cudaEvent_t e = ev[0][j].native_handle();
      CUDA_CHECK(record ? cudaGraphAddEventRecordNode(&node, g, deps, nd, e) : cudaGraphAddEventWaitNode(&node, g, deps, nd, e));
      return node;
    });
    const cudaGraphExec_t rx = raw_instantiate(rg.graph);
    const SetterKind kind{name, gd_variant, raw_variant,
                          [&](int side, int j, int gen) {
                            if (side == 0) {
                              exec.set_event(h[j], ev[gen][j]);
                            } else {
                              const cudaEvent_t e = ev[gen][j].native_handle();
                              CUDA_CHECK(record ? cudaGraphExecEventRecordNodeSetEvent(rx, rg.nodes[j], e)
                                                : cudaGraphExecEventWaitNodeSetEvent(rx, rg.nodes[j], e));
                            }
                          },
                          [&](const std::string& what) { check_runs(bench, what, exec, rx); }};
    run_setter_kind(bench, n, record ? "chain event record" : "chain event wait", kind);
    CUDA_CHECK(cudaGraphExecDestroy(rx));
  };
  run_kind(gd::EventRecordNode(), "event record", "graphdsl set_event", "raw cudaGraphExecEventRecordNodeSetEvent");
  run_kind(gd::EventWaitNode(), "event wait", "graphdsl set_event", "raw cudaGraphExecEventWaitNodeSetEvent");
}

/// What a raw host node of generation g writes: *slot = g.
struct RawHostArgs {
  int* slot;
  int gen;
};
void CUDART_CB raw_host_write(void* p) {
  const auto* a = static_cast<const RawHostArgs*>(p);
  *a->slot = a->gen;
}

/// set_host on a chain of N host nodes: generation g of node j writes g into slot j (graphdsl: a
/// lambda, stored by the executable; raw: a function pointer and prebuilt arguments).
void host_setters(Bench& bench, int n) {
  std::vector<int> slots[2] = {std::vector<int>(n, -1), std::vector<int>(n, -1)};
  std::vector<int> st[2] = {std::vector<int>(n, 0), std::vector<int>(n, 0)};
  std::vector<RawHostArgs> args[3];
  for (int g = 0; g < 3; ++g) {
    for (int j = 0; j < n; ++j) args[g].push_back(RawHostArgs{&slots[1][j], g});
  }
  std::vector<gd::HostNode> h;
  const gd::Graph plan = gd_chain(n, h, [&](gd::Graph& g, int j) {
    return g.add_host([slot = &slots[0][j]] { *slot = 0; });
  });
  gd::Executable exec = plan.instantiate();
  RawGraph rg = raw_chain(n, [&](cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t nd, int j) {
    cudaGraphNode_t node = nullptr;
    const cudaHostNodeParams p{&raw_host_write, &args[0][j]};
    CUDA_CHECK(cudaGraphAddHostNode(&node, g, deps, nd, &p));
    return node;
  });
  const cudaGraphExec_t rx = raw_instantiate(rg.graph);
  const SetterKind kind{"host", "graphdsl set_host", "raw cudaGraphExecHostNodeSetParams",
                        [&](int side, int j, int gen) {
                          if (side == 0) {
                            exec.set_host(h[j], [slot = &slots[0][j], gen] { *slot = gen; });
                          } else {
                            const cudaHostNodeParams p{&raw_host_write, &args[gen][j]};
                            CUDA_CHECK(cudaGraphExecHostNodeSetParams(rx, rg.nodes[j], &p));
                          }
                          st[side][j] = gen;
                        },
                        [&](const std::string& what) {
                          for (auto& s : slots) std::fill(s.begin(), s.end(), -1);
                          check_runs(bench, what, exec, rx);
                          bench.expect(slots[0] == st[0], what + " graphdsl", "a host node wrote another generation");
                          bench.expect(slots[1] == st[1], what + " raw", "a host node wrote another generation");
                        }};
  run_setter_kind(bench, n, "chain host", kind);
  CUDA_CHECK(cudaGraphExecDestroy(rx));
}

/// set_child on a chain of N child nodes, each a one-memset plan writing memset_value(j, g) into slot
/// j. Two raw sides: child graphs prebuilt for every generation (the setter call alone), and the
/// child graph built, set and destroyed per call (what set_child does with a plan); and
/// set_child(node, prepared) with child plans prepared ahead against the prebuilt raw graphs.
void child_setters(Bench& bench, SetterBuffers& buf, int n) {
  std::vector<gd::Graph> plans[3];
  std::vector<cudaGraph_t> graphs[3];
  auto raw_child = [&](int j, int gen) {
    cudaGraph_t c = nullptr;
    CUDA_CHECK(cudaGraphCreate(&c, 0));
    cudaGraphNode_t node = nullptr;
    const cudaMemsetParams p = memset_params(buf.slots + j, memset_value(j, gen));
    CUDA_CHECK(cudaGraphAddMemsetNode(&node, c, nullptr, 0, &p));
    return c;
  };
  for (int g = 0; g < 3; ++g) {
    for (int j = 0; j < n; ++j) {
      gd::Graph c("child");
      c.add_memset(buf.slots + j, memset_value(j, g), 1);
      plans[g].push_back(std::move(c));
      graphs[g].push_back(raw_child(j, g));
    }
  }
  std::vector<gd::ChildNode> h;
  const gd::Graph plan = gd_chain(n, h, [&](gd::Graph& g, int j) { return g.add_child(plans[0][j]); });
  gd::Executable exec = plan.instantiate();
  RawGraph rg = raw_chain(n, [&](cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t nd, int j) {
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(cudaGraphAddChildGraphNode(&node, g, deps, nd, graphs[0][j]));
    return node;
  });
  const cudaGraphExec_t rx = raw_instantiate(rg.graph);
  std::vector<unsigned> st[2];
  for (auto& s : st) {
    for (int j = 0; j < n; ++j) s.push_back(memset_value(j, 0));
  }
  auto check = [&](const std::string& what) {
    check_bits(bench, what + " graphdsl", buf.slots, st[0], [&] { exec.launch(bench.s); });
    check_bits(bench, what + " raw", buf.slots, st[1], [&] { CUDA_CHECK(cudaGraphLaunch(rx, bench.s)); });
  };
  auto gd_set = [&](int j, int gen) { exec.set_child(h[j], plans[gen][j]); };
  const SetterKind prebuilt{"child", "graphdsl set_child", "raw cudaGraphExecChildGraphNodeSetParams (prebuilt)",
                            [&](int side, int j, int gen) {
                              if (side == 0) {
                                gd_set(j, gen);
                              } else {
                                CUDA_CHECK(cudaGraphExecChildGraphNodeSetParams(rx, rg.nodes[j], graphs[gen][j]));
                              }
                              st[side][j] = memset_value(j, gen);
                            },
                            check};
  run_setter_kind(bench, n, "chain child", prebuilt);
  const SetterKind built{"child, raw builds it", "graphdsl set_child",
                         "raw create + add memset + cudaGraphExecChildGraphNodeSetParams + destroy",
                         [&](int side, int j, int gen) {
                           if (side == 0) {
                             gd_set(j, gen);
                           } else {
                             const cudaGraph_t c = raw_child(j, gen);
                             CUDA_CHECK(cudaGraphExecChildGraphNodeSetParams(rx, rg.nodes[j], c));
                             CUDA_CHECK(cudaGraphDestroy(c));
                           }
                           st[side][j] = memset_value(j, gen);
                         },
                         check};
  run_setter_kind(bench, n, "chain child", built);
  // set_child(node, prepared): the child plans prepared once per node and generation, as the raw
  // side's prebuilt child graphs.
  std::vector<gd::PreparedChild> prepared[3];
  for (int g = 1; g < 3; ++g) {
    for (int j = 0; j < n; ++j) prepared[g].push_back(exec.prepare_child(h[j], plans[g][j]));
  }
  const SetterKind ready{"child, prepared", "graphdsl set_child (prepared)",
                         "raw cudaGraphExecChildGraphNodeSetParams (prebuilt)",
                         [&](int side, int j, int gen) {
                           if (side == 0) {
                             exec.set_child(h[j], prepared[gen][j]);
                           } else {
                             CUDA_CHECK(cudaGraphExecChildGraphNodeSetParams(rx, rg.nodes[j], graphs[gen][j]));
                           }
                           st[side][j] = memset_value(j, gen);
                         },
                         check};
  run_setter_kind(bench, n, "chain child", ready);
  CUDA_CHECK(cudaGraphExecDestroy(rx));
  for (auto& gen : graphs) {
    for (cudaGraph_t c : gen) CUDA_CHECK(cudaGraphDestroy(c));
  }
}

}  // namespace

void setters_bench(Bench& bench) {
  sample::Stopwatch section;
  fmt::print(
      "\nsetters: typed setter vs the raw exec setter on a chain of N nodes; one node: batches of {} calls "
      "alternating two values; every node: one sweep of N calls; us per call (steady_clock; median of {} "
      "reps, interleaved); alloc = operator-new allocations per call on the calling thread\n",
      one_node_batch, options().reps(15));
  row_header("setter");
  SetterBuffers buf;
  for (int n : sizes) {
    step_setters(bench, n);
    memset_setters(bench, buf, n);
    memcpy_setters(bench, buf, n);
    if (n <= 1000) {  // the kinds below: N = 100 and 1,000 (a chain of 10,000 host nodes runs for a second)
      event_setters(bench, n);
      host_setters(bench, n);
      child_setters(bench, buf, n);
    }
  }
  fmt::print("  goal: ratio <= 0.80 and 0 allocations per call   (setters took {:.1f} s)\n",
             section.us() / 1e6);
}

// ---- hupdate -------------------------------------------------------------------------------------

namespace {

enum HotVariant {
  h_auto,        // exec.update(prebuilt template)                       automatic
  h_per_node,    // exec.update(prebuilt template, UpdatePolicy::per_node)
  h_whole,       // exec.update(prebuilt template, UpdatePolicy::whole_graph)
  h_build_auto,  // plan_of(template values) + exec.update() + plan destroyed, all timed
  h_prep,        // exec.update(prepared template), alternating two prepared templates
  h_build_prep,  // plan_of + exec.prepare_update + exec.update(prepared) + both destroyed, all timed
  h_one_thread,  // exec.update(prebuilt template), automatic, with gd::set_diff_helper(false)
  h_raw,         // cudaGraphExecUpdate(raw exec, prebuilt raw template)
  h_raw_build,   // raw template built + cudaGraphExecUpdate + cudaGraphDestroy, all timed
  h_count
};
const char* const hot_names[h_count] = {"graphdsl update automatic",
                                        "graphdsl update per_node",
                                        "graphdsl update whole_graph",
                                        "graphdsl build+update automatic",
                                        "graphdsl update prepared",
                                        "graphdsl build+prepare+update prepared",
                                        "graphdsl update automatic (diff on one thread)",
                                        "raw cudaGraphExecUpdate",
                                        "raw build+cudaGraphExecUpdate"};
/// The baseline each variant's ratio is taken against.
int hot_baseline(int v) { return v == h_build_auto || v == h_build_prep || v == h_raw_build ? h_raw_build : h_raw; }

struct HotRow {
  int n = 0, k = 0;
  std::vector<double> s[h_count];
  HeapCount heap[h_count];
  gd::UpdateStrategy auto_path = gd::UpdateStrategy::none;
  double med(int v) const { return sample::median(s[v]); }
  double ratio(int v) const { return med(hot_baseline(v)) > 0 ? med(v) / med(hot_baseline(v)) : 0.0; }
  double noise(int v) const { return std::max(sample::half_spread(s[v]), sample::half_spread(s[hot_baseline(v)])); }
  double allocs(int v) const { return s[v].empty() ? 0.0 : static_cast<double>(heap[v].allocs) / s[v].size(); }
};

/// Both executables of one (shape, N) and the templates of one k.
struct HotCase {
  Bench& bench;
  Shape shape;
  int n;
  std::vector<float> base, vals[2];  // b per node: the base and templates A, B
  gd::Graph base_plan, plans[2];
  RawExec raw;
  gd::Executable exec;
  gd::PreparedUpdate prepared[2];  // plans[0] and plans[1], prepared for exec
  std::optional<RawGraph> raw_t[2];
  int gd_next = 0, raw_next = 0;  // the template each side's next update applies
  const std::vector<float>* gd_now;
  const std::vector<float>* raw_now;
  HotCase(Bench& b, Shape s, int nodes)
      : bench(b),
        shape(s),
        n(nodes),
        base(nodes, b_gen(0)),
        base_plan(plan_of(s, nodes, b.data, &base)),
        raw(s, nodes, b.data, &base),
        exec(base_plan.instantiate()),
        gd_now(&base),
        raw_now(&base) {}

  void set_k(int k) {
    const std::vector<int> changed = spread(n, k);
    for (int t = 0; t < 2; ++t) {
      vals[t] = base;
      for (int j : changed) vals[t][j] = b_gen(t + 1);
      plans[t] = plan_of(shape, n, bench.data, &vals[t]);
      prepared[t] = exec.prepare_update(plans[t]);
      bench.expect(prepared[t].ok(), "hupdate prepare_update", prepared[t].result().to_string());
      raw_t[t].emplace(raw_graph_of(shape, n, bench.data, &vals[t]));
    }
  }
  /// Back to the base values, untimed.
  void reset() {
    const gd::UpdateResult r = exec.update(base_plan);
    bench.expect(static_cast<bool>(r), "hupdate reset to the base plan", r.to_string());
    cudaGraphExecUpdateResultInfo info{};
    CUDA_CHECK(cudaGraphExecUpdate(raw.exec, raw.g.graph, &info));
    gd_now = raw_now = &base;
    gd_next = raw_next = 0;
  }
};

/// One update of variant v on its side; returns µs and records the UpdateResult's correctness.
double hot_one(HotCase& c, HotRow& row, int v, int& bad, std::string& first_bad) {
  const int k = row.k;
  if (v >= h_raw) {
    const int t = c.raw_next;
    cudaGraphExecUpdateResultInfo info{};
    sample::Stopwatch w;
    if (v == h_raw) {
      CUDA_CHECK(cudaGraphExecUpdate(c.raw.exec, c.raw_t[t]->graph, &info));
    } else {
      std::optional<RawGraph> tmp(raw_graph_of(c.shape, c.n, c.bench.data, &c.vals[t]));
      CUDA_CHECK(cudaGraphExecUpdate(c.raw.exec, tmp->graph, &info));
    }
    const double us = w.us();
    c.raw_now = &c.vals[t];
    c.raw_next = 1 - t;
    return us;
  }
  const int t = c.gd_next;
  const bool helper = gd::diff_helper_enabled();
  const gd::UpdatePolicy policy = v == h_per_node ? gd::UpdatePolicy::per_node
                                  : v == h_whole  ? gd::UpdatePolicy::whole_graph
                                                  : gd::UpdatePolicy::automatic;
  sample::Stopwatch w;
  gd::UpdateResult r;
  if (v == h_build_auto) {
    const gd::Graph tmp = plan_of(c.shape, c.n, c.bench.data, &c.vals[t]);
    r = c.exec.update(tmp, policy);
  } else if (v == h_prep) {
    r = c.exec.update(c.prepared[t]);
  } else if (v == h_build_prep) {
    const gd::Graph tmp = plan_of(c.shape, c.n, c.bench.data, &c.vals[t]);
    const gd::PreparedUpdate p = c.exec.prepare_update(tmp);
    r = c.exec.update(p);
  } else if (v == h_one_thread) {
    gd::set_diff_helper(false);
    r = c.exec.update(c.plans[t], policy);
    gd::set_diff_helper(helper);
  } else {
    r = c.exec.update(c.plans[t], policy);
  }
  const double us = w.us();
  const bool prep = v == h_prep || v == h_build_prep;  // every node goes to cudaGraphExecUpdate
  const bool path_ok = v == h_per_node        ? r.strategy == gd::UpdateStrategy::per_node
                       : v == h_whole || prep ? r.strategy == gd::UpdateStrategy::whole_graph
                                              : true;
  if (!(r && r.patched == static_cast<std::size_t>(prep ? c.n : k) && path_ok) && bad++ == 0) {
    first_bad = fmt::format("{}: {}", hot_names[v], r.to_string());
  }
  if (v == h_auto) row.auto_path = r.strategy;
  if (r) {
    c.gd_now = &c.vals[t];
    c.gd_next = 1 - t;
  }
  return us;
}

/// All variants of one (shape, N, k), rotated each repetition, then both sides checked.
HotRow hot_row(HotCase& c, int k, int reps) {
  HotRow row;
  row.n = c.n;
  row.k = k;
  c.set_k(k);
  c.reset();
  int bad = 0;
  std::string first_bad;
  double slowest = 0;  // the warm-up's slowest update: a row whose updates take seconds gets 3 reps
  for (int v = 0; v < h_count; ++v) slowest = std::max(slowest, hot_one(c, row, v, bad, first_bad));
  if (slowest > 250e3 && reps > 3) {
    fmt::print("  ({} N={} k={}: an update takes {:.0f} ms; 3 reps instead of {})\n", shape_name(c.shape), c.n, k,
               slowest / 1e3, reps);
    reps = 3;
  }
  std::mt19937 shuffle(static_cast<unsigned>(c.n + k));  // the same orders in every run
  int order[h_count];
  for (int i = 0; i < h_count; ++i) order[i] = i;
  for (int r = 0; r < reps; ++r) {
    // A new order every repetition: with a rotation every variant always followed the same one,
    // and `auto` always came right after the raw template build (cudaGraphExecUpdate, then
    // cudaGraphDestroy of N nodes), measuring 1.07-1.67x per_node though both run the same code.
    std::shuffle(order, order + h_count, shuffle);
    for (int i = 0; i < h_count; ++i) {
      const int v = order[i];
      // Each sample is the second of two back-to-back updates of the variant.
      (void)hot_one(c, row, v, bad, first_bad);
      const HeapCount h0 = thread_heap();
      row.s[v].push_back(hot_one(c, row, v, bad, first_bad));
      row.heap[v] = row.heap[v] + (thread_heap() - h0);
    }
  }
  const std::string what = fmt::format("hupdate {} N={} k={}", shape_name(c.shape), c.n, k);
  c.bench.expect(bad == 0, what + " update results", first_bad);
  c.bench.check_b(what + " graphdsl", *c.gd_now, [&] { c.exec.launch(c.bench.s); });
  c.bench.check_b(what + " raw", *c.raw_now, [&] { c.raw.launch(c.bench.s); });
  c.reset();
  return row;
}

void hot_update_table(Shape shape, const std::vector<HotRow>& rows) {
  for (const HotRow& r : rows) {
    const double best = std::min(r.med(h_per_node), r.med(h_whole));
    fmt::print(
        "  {:<24} {:>9.2f} {:<11} {:>9.2f} {:>9.2f} {:>10.2f} {:>9.2f} {:>10.2f} | {:>9.2f} {:>10.2f} | {:>7.3f} "
        "{:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f} {:>5.1f}% {:>6.1f}\n",
        fmt::format("{} N={} k={}", shape_name(shape), r.n, r.k), r.med(h_auto), gd::to_string(r.auto_path),
        r.med(h_per_node), r.med(h_whole), r.med(h_build_auto), r.med(h_prep), r.med(h_build_prep), r.med(h_raw),
        r.med(h_raw_build), r.ratio(h_auto), r.ratio(h_whole), r.ratio(h_build_auto), r.ratio(h_prep),
        r.ratio(h_build_prep), best > 0 ? r.med(h_auto) / best : 0.0, 100.0 * r.noise(h_auto), r.allocs(h_auto));
    const std::string workload = fmt::format("{} step", shape_name(shape));
    for (int v = 0; v < h_count; ++v) {
      csv_row({"hupdate", workload, r.n, r.k, hot_names[v], r.med(v), r.noise(v), r.ratio(v), r.allocs(v),
               r.s[v].empty() ? -1.0 : static_cast<double>(r.heap[v].bytes) / r.s[v].size()});
    }
  }
}

/// The goal lines of one shape: 1 of 10000, all of N, like for like, automatic vs the better strategy.
void hot_update_goals(Shape shape, const std::vector<HotRow>& rows) {
  for (const HotRow& r : rows) {
    const std::string at = fmt::format("{} N={} k={}", shape_name(shape), r.n, r.k);
    if (r.n == 10000 && r.k == 1) {
      const double x = r.med(h_auto) > 0 ? r.med(h_raw) / r.med(h_auto) : 0.0;
      const double one = r.med(h_one_thread) > 0 ? r.med(h_raw) / r.med(h_one_thread) : 0.0;
      fmt::print(
          "  goal {}: raw cudaGraphExecUpdate / update() = {:.1f}x (>= 20x): {} (diff helper {}; with the diff on "
          "one thread {:.1f}x)\n",
          at, x, x >= 20.0 ? "met" : "MISSED", gd::diff_helper_enabled() ? "on" : "off", one);
    }
    if (r.k == r.n) {
      fmt::print(
          "  goal {}: automatic / raw (prebuilt) {:.3f} (<= 1.10: {}); build+automatic / raw build+update "
          "{:.3f} (<= 0.80: {})\n",
          at, r.ratio(h_auto), r.ratio(h_auto) <= 1.10 ? "met" : "MISSED", r.ratio(h_build_auto),
          r.ratio(h_build_auto) <= 0.80 ? "met" : "MISSED");
      fmt::print(
          "  goal {}: update(prepared) / raw (prebuilt) {:.3f} (<= 1.10: {}); build+prepare+update / raw "
          "build+update {:.3f} (<= 0.80: {}); noise {:.1f}% / {:.1f}%\n",
          at, r.ratio(h_prep), r.ratio(h_prep) <= 1.10 ? "met" : "MISSED", r.ratio(h_build_prep),
          r.ratio(h_build_prep) <= 0.80 ? "met" : "MISSED", 100.0 * r.noise(h_prep), 100.0 * r.noise(h_build_prep));
    }
    const double best = std::min(r.med(h_per_node), r.med(h_whole));
    if (best > 0 && r.med(h_auto) > 1.05 * best) {
      fmt::print("  goal {}: automatic {:.2f} us is more than 5% above the better strategy ({:.2f} us): MISSED\n", at,
                 r.med(h_auto), best);
    }
  }
}

}  // namespace

void hot_update_bench(Bench& bench) {
  sample::Stopwatch section;
  fmt::print(
      "\nhupdate: update(plan) of a graph of N step nodes where k nodes change b; host wall time per update "
      "(steady_clock; median of {} reps, {} at N=10000; variants rotated each rep)\n"
      "  auto/per_node/whole: exec.update(prebuilt template[, policy]); bld+auto: plan built + update() + plan "
      "destroyed\n  prep: exec.update(prepared template), two alternating; bld+prep: plan built + prepare_update + "
      "update(prepared) + both destroyed; p/raw: prep vs raw upd; bp/rb: bld+prep vs raw bld+upd\n  raw upd: "
      "cudaGraphExecUpdate(prebuilt raw template); raw bld+upd: raw template built + "
      "cudaGraphExecUpdate + cudaGraphDestroy\n  a/raw, w/raw: auto, whole vs raw upd; b/rb: bld+auto vs raw "
      "bld+upd; a/best: auto vs the better of per_node and whole; noise: auto and raw upd; alloc: auto's "
      "operator-new allocations per update\n",
      options().reps(15), options().reps(11));
  fmt::print(
      "  {:<24} {:>9} {:<11} {:>9} {:>9} {:>10} {:>9} {:>10} | {:>9} {:>10} | {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} "
      "{:>6} {:>6}\n",
      "case (us)", "auto", "auto path", "per_node", "whole", "bld+auto", "prep", "bld+prep", "raw upd", "raw bld+up",
      "a/raw", "w/raw", "b/rb", "p/raw", "bp/rb", "a/best", "noise", "alloc");
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    std::vector<std::vector<HotRow>> by_n;
    for (int n : sizes) {
      HotCase c(bench, shape, n);
      bench.check_b(fmt::format("hupdate {} N={} graphdsl base", shape_name(shape), n), c.base,
                    [&] { c.exec.launch(bench.s); });
      bench.check_b(fmt::format("hupdate {} N={} raw base", shape_name(shape), n), c.base,
                    [&] { c.raw.launch(bench.s); });
      std::vector<HotRow> rows;
      for (int k : {1, 10, 100, 1000, 10000}) {
        if (k <= n) rows.push_back(hot_row(c, k, options().reps(n >= 10000 ? 11 : 15)));
      }
      hot_update_table(shape, rows);
      by_n.push_back(std::move(rows));
    }
    for (const std::vector<HotRow>& rows : by_n) {
      std::vector<int> ks;
      std::vector<double> per_node, whole;
      std::string chose;
      for (const HotRow& r : rows) {
        ks.push_back(r.k);
        per_node.push_back(r.med(h_per_node));
        whole.push_back(r.med(h_whole));
        chose += fmt::format("{}k={} {}", chose.empty() ? "" : ", ", r.k, gd::to_string(r.auto_path));
      }
      fmt::print("  crossover {} N={}: {}\n    automatic chose: {}\n", shape_name(shape), rows.front().n,
                 crossover_line(rows.front().n, ks, per_node, whole), chose);
    }
    for (const std::vector<HotRow>& rows : by_n) hot_update_goals(shape, rows);
  }
  fmt::print("  (hupdate took {:.1f} s)\n", section.us() / 1e6);
}

// ---- hbuild --------------------------------------------------------------------------------------

namespace {

/// Heap an instantiated graph holds and the operator-new allocations building and instantiating it
/// made; also checks the executable's result. `held` is what destroying the executable (and, raw,
/// its graph) gives back to malloc: glibc mallinfo2 (uordblks + hblkhd) before the destruction minus
/// after it, which sees the driver's malloc too. `grew` is the older figure, the heap after
/// instantiation minus before building: it also counts what the driver allocates once, on first use
/// of a kind of graph, and keeps for the process (caches, pools), so it depended on which side and
/// which section ran first; `held` does not.
struct HeapUse {
  double held = 0;  // bytes
  double grew = 0;  // bytes
  HeapCount made;   // operator new on this thread
};

HeapUse gd_heap(Bench& bench, Shape shape, int n) {
  HeapUse u;
  const std::uint64_t m0 = malloc_in_use();
  const HeapCount h0 = thread_heap();
  std::optional<gd::Executable> e;
  {
    gd::Graph g = plan_of(shape, n, bench.data);
    e.emplace(std::move(g).instantiate());
  }
  u.made = thread_heap() - h0;
  const std::uint64_t m1 = malloc_in_use();
  u.grew = static_cast<double>(m1) - static_cast<double>(m0);
  bench.check(fmt::format("hbuild {} N={} graphdsl", shape_name(shape), n).c_str(), n, [&] { e->launch(bench.s); });
  CUDA_CHECK(cudaStreamSynchronize(bench.s));
  const std::uint64_t alive = malloc_in_use();
  e.reset();
  u.held = static_cast<double>(alive) - static_cast<double>(malloc_in_use());
  return u;
}

/// Interleaved pairs of hbuild at `n` nodes (before --quick halves them).
int build_reps(int n) { return n >= 10000 ? 5 : n >= 1000 ? 21 : n >= 100 ? 61 : 501; }

/// hbuild's sizes: one node shows the fixed cost of a build + instantiate (what serving code that
/// compiles many small graphs pays), the others the cost per node.
const int build_sizes[] = {1, 100, 1000, 10000};

HeapUse raw_heap(Bench& bench, Shape shape, int n) {
  HeapUse u;
  const std::uint64_t m0 = malloc_in_use();
  const HeapCount h0 = thread_heap();
  std::optional<RawGraph> g(raw_graph_of(shape, n, bench.data));
  const cudaGraphExec_t e = raw_instantiate(g->graph);
  u.made = thread_heap() - h0;
  u.grew = static_cast<double>(malloc_in_use()) - static_cast<double>(m0);
  bench.check(fmt::format("hbuild {} N={} raw", shape_name(shape), n).c_str(), n,
              [&] { CUDA_CHECK(cudaGraphLaunch(e, bench.s)); });
  CUDA_CHECK(cudaStreamSynchronize(bench.s));
  const std::uint64_t alive = malloc_in_use();
  CUDA_CHECK(cudaGraphExecDestroy(e));
  g.reset();  // cudaGraphDestroy
  u.held = static_cast<double>(alive) - static_cast<double>(malloc_in_use());
  return u;
}

}  // namespace

void hot_build_bench(Bench& bench) {
  sample::Stopwatch section;
  fmt::print(
      "\nhbuild: plan + instantiate() vs cudaGraphCreate + cudaGraphAddKernelNode x N + instantiate (host "
      "wall time; median of {} reps at N=1, {} at N=100, {} at N=1000, {} at N=10000, interleaved); destruction "
      "timed apart\n"
      "  instantiate(): the same graphdsl samples without the plan's build, against the whole raw build\n"
      "  heap: bytes per node that destroying the executable (raw: and its graph) gives back to malloc (glibc "
      "mallinfo2 uordblks + hblkhd before - after; sees the driver's malloc too); new: operator-new "
      "allocations per node while building + instantiating (calling thread)\n",
      options().reps(build_reps(1)), options().reps(build_reps(100)), options().reps(build_reps(1000)),
      options().reps(build_reps(10000)));
  fmt::print("  {:<20} {:>12} {:>12} {:>7} {:>6} {:>10} {:>10} | {:>9} {:>9} {:>6} {:>7} {:>7}\n", "case",
             "graphdsl us", "raw us", "ratio", "noise", "gd destr", "raw destr", "gd B/nd", "raw B/nd", "ratio",
             "gd new", "raw new");
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    for (int n : build_sizes) {
      if ((n == 1 && shape != Shape::chain) || !options().builds(n)) continue;  // one node has no fork-join
      const HeapUse gh = gd_heap(bench, shape, n);  // also the warm-up of each side
      const HeapUse rh = raw_heap(bench, shape, n);
      std::vector<double> gd_destroy, raw_destroy, gd_instantiate;
      // More repetitions where a build is short: at N = 100 one build + instantiate is ~0.1-0.3 ms and
      // the host's speed drifts between neighbouring samples, so 6 pairs left the median 10-70 % noisy.
      const Pair p = interleave(
          options().reps(build_reps(n)),
          [&] {
            const Phases t = graphdsl_build(shape, n, bench.data);
            gd_destroy.push_back(t.destroy);
            gd_instantiate.push_back(t.instantiate);
            return t.build + t.instantiate;
          },
          [&] {
            const Phases t = raw_build(shape, n, bench.data);
            raw_destroy.push_back(t.destroy);
            return t.build + t.instantiate;
          });
      const double gb = gh.held / n, rb = rh.held / n;
      fmt::print(
          "  {:<20} {:>12.1f} {:>12.1f} {:>7.3f} {:>5.1f}% {:>10.1f} {:>10.1f} | {:>9.1f} {:>9.1f} {:>6.2f} "
          "{:>7.2f} {:>7.2f}  {}\n",
          fmt::format("{} N={}", shape_name(shape), n), p.ma(), p.mb(), p.ratio(), 100.0 * p.noise(),
          sample::median(gd_destroy), sample::median(raw_destroy), gb, rb, rb > 0 ? gb / rb : 0.0,
          static_cast<double>(gh.made.allocs) / n, static_cast<double>(rh.made.allocs) / n,
          goal_at_most(p.ratio(), 1.0));
      const std::string workload = fmt::format("{} step", shape_name(shape));
      csv_pair("hbuild", workload, n, -1, "graphdsl build+instantiate", "raw build+instantiate", p);
      const Pair d{gd_destroy, raw_destroy};
      csv_pair("hbuild", workload, n, -1, "graphdsl destroy", "raw destroy", d);
      // instantiate() of the built plan against everything raw code does: the plan is the caller's
      // description of the graph, as raw code's node parameters are (which cost it nothing to time).
      const Pair inst{gd_instantiate, p.b};
      fmt::print("  {:<20} {:>12.1f} {:>12.1f} {:>7.3f} {:>5.1f}%   instantiate() alone: {:+.2f} us over raw\n",
                 "  instantiate()", inst.ma(), inst.mb(), inst.ratio(), 100.0 * inst.noise(), inst.ma() - inst.mb());
      csv_pair("hbuild", workload, n, -1, "graphdsl instantiate() of the built plan", "raw build+instantiate", inst);
      csv_row({"heap", workload, n, -1, "graphdsl executable held (mallinfo2, freed by destroy)", -1, -1,
               rb > 0 ? gb / rb : -1, static_cast<double>(gh.made.allocs) / n, gb});
      csv_row({"heap", workload, n, -1, "raw executable held (mallinfo2, freed by destroy)", -1, -1, 1.0,
               static_cast<double>(rh.made.allocs) / n, rb});
      const double gg = gh.grew / n, rg = rh.grew / n;
      csv_row({"heap", workload, n, -1, "graphdsl instantiate grew (mallinfo2, after - before)", -1, -1,
               rg > 0 ? gg / rg : -1, -1, gg});
      csv_row({"heap", workload, n, -1, "raw instantiate grew (mallinfo2, after - before)", -1, -1, 1.0, -1, rg});
    }
  }
  fmt::print(
      "  goals: build + instantiate <= 1.00 x raw; heap per node <= 1.10 x raw   (hbuild took "
      "{:.1f} s)\n",
      section.us() / 1e6);
}

// ---- hreplay and launch -------------------------------------------------------------------------

namespace {

/// `launches` launches of each side then cudaStreamSynchronize, host wall time per batch, interleaved.
Measured replay_pair(Bench& bench, gd::Executable& exec, const RawExec& raw, int launches, int reps) {
  auto batch = [&](auto&& one) {
    return [&bench, one, launches] {
      for (int i = 0; i < launches; ++i) one();
      CUDA_CHECK(cudaStreamSynchronize(bench.s));
    };
  };
  auto gd_one = [&] { exec.launch(bench.s); };
  auto raw_one = [&] { raw.launch(bench.s); };
  return measure(reps, launches, batch(gd_one), batch(raw_one));
}

}  // namespace

void hot_replay_bench(Bench& bench) {
  constexpr int launches = 20;
  fmt::print(
      "\nhreplay: {} launches + cudaStreamSynchronize, host wall time per launch (steady_clock; median of "
      "{} reps, {} at N=10000, interleaved)\n",
      launches, options().reps(15), options().reps(9));
  row_header("graph");
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    for (int n : sizes) {
      gd::Executable exec = plan_of(shape, n, bench.data).instantiate();
      RawExec raw(shape, n, bench.data);
      const std::string what = fmt::format("hreplay {} N={}", shape_name(shape), n);
      bench.check((what + " graphdsl").c_str(), n, [&] { exec.launch(bench.s); });
      bench.check((what + " raw").c_str(), n, [&] { raw.launch(bench.s); });
      const Measured m = replay_pair(bench, exec, raw, launches, options().reps(n >= 10000 ? 9 : 15));
      const double r = m.p.ratio();
      report("hreplay", fmt::format("{} step", shape_name(shape)), n, -1, fmt::format("{} N={}", shape_name(shape), n),
             "graphdsl 20 launches+sync", "raw 20 launches+sync", m,
             fmt::format("1.00+-0.01 {}", r >= 0.99 && r <= 1.01 ? "met" : "MISSED"));
    }
  }
}

void launch_bench(Bench& bench) {
  constexpr int launches = 10000;
  fmt::print(
      "\nlaunch: a 1-node graph launched {} times + cudaStreamSynchronize, host wall time per launch "
      "(steady_clock; median of {} reps, interleaved)\n",
      launches, options().reps(15));
  row_header("graph");
  gd::Executable exec = plan_of(Shape::chain, 1, bench.data).instantiate();
  RawExec raw(Shape::chain, 1, bench.data);
  bench.check("launch 1-node graphdsl", 1, [&] { exec.launch(bench.s); });
  bench.check("launch 1-node raw", 1, [&] { raw.launch(bench.s); });
  const Measured m = replay_pair(bench, exec, raw, launches, options().reps(15));
  const double extra = m.p.ma() - m.p.mb();
  report("launch", "1-node step", 1, -1, "Executable::launch vs cudaGraphLaunch", "graphdsl Executable::launch",
         "raw cudaGraphLaunch", m, fmt::format("+{:.3f} us (<= 0.05) {}", extra, extra <= 0.05 ? "met" : "MISSED"));
}

}  // namespace bench
