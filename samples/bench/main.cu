// samples/bench — what graphdsl costs on top of raw CUDA, measured in one run on one GPU.
//
// Every figure is a ratio of two medians taken in this process, interleaved (graphdsl, raw, raw,
// graphdsl, ...), after warm-up. The method behind each figure is in docs/performance.md.
//
//   B1 replay  launching a graphdsl-built graph vs the same graph built with raw CUDA calls
//   B1 build   plan + instantiate + destroy vs raw cudaGraphAddKernelNode + instantiate + destroy
//   B2         replaying a graph of N kernels vs launching the N kernels on a stream
//   B6         the first launch of a fresh executable, with and without uploading it first
//   storage    host bytes of plan storage per kernel node
//   U update   Executable::update() (automatic, per_node, whole_graph) vs raw cudaGraphExecUpdate,
//              re-instantiation and per-node setters, for k of N changed kernel nodes; the
//              per_node / whole_graph crossover; the cost of a refusal
//   C1, C2     conditional nodes (bench_conditional.cu): WHILE loops vs raw CUDA and a host loop;
//              IF-ELSE and SWITCH vs host-side selection of separate graphs
//
//   setters    typed setters (kernel args, launch, memset, memcpy, enable, event, host, child) on one node and on
//              every node of N vs the raw exec setters, with heap allocations per call (bench_hot.cu)
//   hupdate    update(plan) automatic / per_node / whole_graph (template prebuilt, and built
//              inside the timing) vs raw cudaGraphExecUpdate, k of N changed, chain and fork-join
//   hbuild     build + instantiate vs raw, and host heap per node of an instantiated graph
//   hreplay    20 launches + synchronize at N = 100, 1000, 10000
//   launch     Executable::launch vs cudaGraphLaunch, 1-node graph, 10000 launches
//   pdl        a chain of 1,000 dependent kernels, programmatic vs full edges, graphdsl and raw
//   dlaunch    a one-kernel graph launched 1,000 times from the host vs from the device (a
//              scheduler graph tail-launching it and itself), graphdsl and raw (bench_device_launch.cu)
//   dupdate    change one node's argument then launch: from the device (an updater kernel
//              in the graph, DeviceKernelNode) vs the host (set_kernel_args) vs raw (bench_device_update.cu)
//   shapes     one executable for 8 batch sizes (gd::ShapeFamily) vs 8 executables: memory, build, switch
//              cost, replay, LRU budget; device-side dispatch vs host-selected executables (bench_shapes.cu)
//   adopt      a decode step's re-capture loop: re-capture + cudaGraphExecUpdate vs re-capture + adopt +
//              update(), set_kernel_arg on the adopted plan, raw setters; an alternating shape (bench_adopt.cu)
//   generic    the generic exec setter (cudaGraphExecNodeSetParams, cuGraphExecNodeSetParams) vs the per-type
//              runtime and driver setters, kernel / memset / memcpy / host, one node of N, raw CUDA (bench_generic.cu)
//   peers      raw CUDA, graphdsl and the C++ peers (cuda-api-wrappers, Taskflow; built where configured with
//              -DGRAPHDSL_BENCH_PEERS=<dir>): build + instantiate per node, set one node's / every node's
//              arguments, replay; chain and fork-join of N tiny kernels (bench_peers.cu, bench_peer_sides.cu)
//   params     one Parameter used by k = 1, 100, 1000 of 10000 chain nodes: Executable::set vs
//              update(plan) vs per-node setters vs raw cudaGraphExecKernelNodeSetParams (bench_param.cu)
//
// Usage: bench [--quick] [--csv FILE] [--max-nodes N] [--processes P] [section...]   (bench --help lists
// the sections). --processes P runs the sections in P processes one after the other and prints each
// figure's median over them, its range and every process's value (bench_combine.hpp).
//
// Without a GPU it prints "skipped: no CUDA device" and exits 0. It exits 1 when a result check or
// a CUDA call fails; a missed goal is reported in the table, not in the exit status.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

#include "bench_combine.hpp"
#include "bench_common.hpp"
#include "bench_conditional.hpp"
#include "bench_device_launch.hpp"
#include "bench_device_update.hpp"
#include "bench_generic.hpp"
#include "bench_hot.hpp"
#include "bench_pdl.hpp"
#include "bench_peers.hpp"
#include "bench_adopt.hpp"
#include "bench_shapes.hpp"
#include "bench_param.hpp"
#include "bench_workload.hpp"
#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

using bench::Bench;
using bench::Pair;
using bench::Phases;
using bench::RawExec;
using bench::graphdsl_build;
using bench::raw_build;
using bench::Shape;
using bench::StepNode;
using bench::data_len;
using bench::interleave;
using bench::plan_of;
using bench::shape_name;
using bench::step;
using bench::step_a;
using bench::step_b;
using bench::stream_batch;
using bench::tiny;

// ---- output ------------------------------------------------------------------------------------

void table_header(const char* left_label, const char* a, const char* b, const char* ratio) {
  fmt::print("  {:<26} {:>12} {:>12} {:>8} {:>7}  {}\n", left_label, a, b, ratio, "noise", "goal");
}

void table_row(const std::string& label, const Pair& p, const std::string& goal) {
  fmt::print("  {:<26} {:>12.2f} {:>12.2f} {:>8.3f} {:>6.1f}%  {}\n", label, p.ma(), p.mb(), p.ratio(),
             100.0 * p.noise(), goal);
}

std::string goal_mark(bool met, const char* goal) { return fmt::format("{} {}", goal, met ? "met" : "MISSED"); }

// ---- B1 replay ----------------------------------------------------------------------------------

constexpr int replay_nodes = 100;
constexpr int replay_launches = 500;
constexpr int replay_reps = 9;

void b1_replay_attached(Bench& bench);

/// 20 warm-up launches of each, then replay_reps interleaved series of replay_launches launches:
/// microseconds per launch, graphdsl against raw.
Pair replay_pair(Bench& bench, gd::Executable& exec, RawExec& raw) {
  for (int i = 0; i < 20; ++i) {  // warm-up
    exec.launch(bench.s);
    raw.launch(bench.s);
  }
  CUDA_CHECK(cudaStreamSynchronize(bench.s));
  return interleave(
      replay_reps, [&] { return bench.per_launch_us(replay_launches, [&] { exec.launch(bench.s); }); },
      [&] { return bench.per_launch_us(replay_launches, [&] { raw.launch(bench.s); }); });
}

/// B1's chain after a gd::profile() of it: replay with profiling off (the executable profiled
/// before, graphdsl still attached to CUPTI: profiler_attach) against raw CUDA, which must stay at
/// 1.00; and profiling on (launches traced by CUPTI, cudaEvents around each) against off.
void b1_replay_profiled(Bench& bench) {
  if (!gd::profiler_available()) {
    fmt::print("  (replay after profile(): CUPTI not available, skipped)\n");
    return;
  }
  try {
    b1_replay_attached(bench);
  } catch (const gd::ProfilerError& e) {
    fmt::print("  (replay after profile(): {}: skipped)\n", e.what());
  }
  gd::profiler_detach();  // later sections build with no CUPTI subscriber
}

void b1_replay_attached(Bench& bench) {
  gd::profiler_attach();  // before instantiate(): the executable's own node ids are recorded
  gd::Executable exec = plan_of(Shape::chain, replay_nodes, bench.data).instantiate();
  RawExec raw(Shape::chain, replay_nodes, bench.data);
  exec.launch(bench.s);
  CUDA_CHECK(cudaStreamSynchronize(bench.s));
  const gd::Profile profiled = gd::profile(exec, bench.s, replay_reps);
  const Pair p = replay_pair(bench, exec, raw);
  const bool met = p.ratio() >= 0.99 && p.ratio() <= 1.01;
  table_row(fmt::format("chain N={}, profiled before", replay_nodes), p, goal_mark(met, "1.00+-0.01"));
  bench::csv_pair("B1 replay", "chain profiled before", replay_nodes, -1, "graphdsl", "raw", p);
  std::vector<double> on;
  for (std::uint64_t ns : profiled.launch_ns) on.push_back(static_cast<double>(ns) / 1e3);
  const double on_us = sample::median(on);
  fmt::print("  profiling on (profile(): CUPTI tracing, one launch between two events): {:.2f} us per launch, "
             "x{:.2f} of replay off ({:.2f} us); {} records, {} unattributed\n",
             on_us, p.ma() > 0.0 ? on_us / p.ma() : 0.0, p.ma(), profiled.records.size(), profiled.unattributed);
}

void b1_replay(Bench& bench) {
  fmt::print("B1 replay: graph of {} kernels, time per launch (cudaEvent over {} launches; median of {} reps)\n",
             replay_nodes, replay_launches, replay_reps);
  table_header("graph", "graphdsl us", "raw us", "ratio");
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    gd::Executable exec = plan_of(shape, replay_nodes, bench.data).instantiate();
    RawExec raw(shape, replay_nodes, bench.data);
    bench.check("B1 graphdsl graph", replay_nodes, [&] { exec.launch(bench.s); });
    bench.check("B1 raw graph", replay_nodes, [&] { raw.launch(bench.s); });
    const Pair p = replay_pair(bench, exec, raw);
    const bool met = p.ratio() >= 0.97 && p.ratio() <= 1.03;
    table_row(fmt::format("{} N={}", shape_name(shape), replay_nodes), p, goal_mark(met, "1.00+-0.03"));
    bench::csv_pair("B1 replay", shape_name(shape), replay_nodes, -1, "graphdsl", "raw", p);
  }
  b1_replay_profiled(bench);
}

// ---- B1 build ------------------------------------------------------------------------------------

struct BuildRow {
  std::string label;
  Pair total;
  std::vector<Phases> gd_phases, raw_phases;
};

void b1_build(Bench& bench) {
  fmt::print("\nB1 build: plan + instantiate + destroy vs raw add + instantiate + destroy (host wall time, "
             "steady_clock; median of {} reps, {} at N=10000)\n",
             bench::options().reps(11), bench::options().reps(5));
  table_header("graph", "graphdsl us", "raw us", "ratio");
  std::vector<BuildRow> rows;
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    for (int nodes : {100, 1000, 10000}) {
      const int reps = bench::options().reps(nodes >= 10000 ? 5 : 11);
      (void)graphdsl_build(shape, nodes, bench.data);  // warm-up
      (void)raw_build(shape, nodes, bench.data);
      BuildRow row;
      row.label = fmt::format("{} N={}", shape_name(shape), nodes);
      row.total = interleave(
          reps,
          [&] {
            row.gd_phases.push_back(graphdsl_build(shape, nodes, bench.data));
            return row.gd_phases.back().total();
          },
          [&] {
            row.raw_phases.push_back(raw_build(shape, nodes, bench.data));
            return row.raw_phases.back().total();
          });
      std::string goal;
      if (nodes == 10000) goal = goal_mark(row.total.ratio() <= 1.10, "<=1.10");
      table_row(row.label, row.total, goal);
      bench::csv_pair("B1 build", shape_name(shape), nodes, -1, "graphdsl", "raw", row.total);
      rows.push_back(std::move(row));
    }
  }
  // Where the time goes (medians of each phase; the phases of one rep add up to its total).
  fmt::print("  {:<26} {:>15} {:>14} {:>8} | {:>9} {:>12} {:>8}\n", "phases (median us)", "graphdsl plan",
             "instantiate()", "destroy", "raw add", "instantiate", "destroy");
  for (const BuildRow& r : rows) {
    auto med = [](const std::vector<Phases>& v, double Phases::*f) {
      std::vector<double> x;
      for (const Phases& p : v) x.push_back(p.*f);
      return sample::median(x);
    };
    fmt::print("  {:<26} {:>15.1f} {:>14.1f} {:>8.1f} | {:>9.1f} {:>12.1f} {:>8.1f}\n", r.label,
               med(r.gd_phases, &Phases::build), med(r.gd_phases, &Phases::instantiate),
               med(r.gd_phases, &Phases::destroy), med(r.raw_phases, &Phases::build),
               med(r.raw_phases, &Phases::instantiate), med(r.raw_phases, &Phases::destroy));
  }
}

// ---- B2 graph replay vs stream launches --------------------------------------------------------

void b2_graph_vs_stream(Bench& bench) {
  constexpr int reps = 9;
  fmt::print("\nB2: chain of N kernels, graphdsl graph replay vs the same kernels launched on a stream; time per "
             "batch (cudaEvent; median of {} reps)\n",
             reps);
  table_header("batch", "graph us", "stream us", "g/s");
  for (int nodes : {100, 1000}) {
    const int batches = nodes >= 1000 ? 20 : 200;
    gd::Executable exec = plan_of(Shape::chain, nodes, bench.data).instantiate();
    bench.check("B2 graph", nodes, [&] { exec.launch(bench.s); });
    bench.check("B2 stream", nodes, [&] { stream_batch(nodes, bench.data, bench.s); });
    for (int i = 0; i < 5; ++i) {  // warm-up
      exec.launch(bench.s);
      stream_batch(nodes, bench.data, bench.s);
    }
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const Pair p = interleave(
        reps, [&] { return bench.per_launch_us(batches, [&] { exec.launch(bench.s); }); },
        [&] { return bench.per_launch_us(batches, [&] { stream_batch(nodes, bench.data, bench.s); }); });
    table_row(fmt::format("N={} ({} batches/rep)", nodes, batches), p, "");
    bench::csv_pair("B2", "chain", nodes, -1, "graph", "stream", p);
  }
}

// ---- B6 first launch with and without upload ---------------------------------------------------

enum class Upload { none, upload_call, upload_on };

struct FirstLaunch {
  double instantiate = 0, upload = 0, first = 0, second = 0;
};

FirstLaunch first_launch(const gd::Graph& plan, Upload how, cudaStream_t s) {
  CUDA_CHECK(cudaDeviceSynchronize());
  FirstLaunch t;
  sample::Stopwatch w;
  gd::Executable e = how == Upload::upload_on ? plan.instantiate(gd::InstantiateOptions{}.upload_on(s))
                                              : plan.instantiate();
  if (how == Upload::upload_on) CUDA_CHECK(cudaStreamSynchronize(s));  // the upload is part of this step
  t.instantiate = w.us();
  if (how == Upload::upload_call) {
    w.restart();
    e.upload(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    t.upload = w.us();
  }
  w.restart();
  e.launch(s);
  e.synchronize(s);
  t.first = w.us();
  w.restart();
  e.launch(s);
  e.synchronize(s);
  t.second = w.us();
  return t;  // the executable is destroyed here, outside every timed region
}

void b6_first_launch(Bench& bench) {
  constexpr int reps = 7;
  fmt::print("\nB6: first launch of a fresh executable (chain of N kernels), launch + synchronize, host wall time "
             "(steady_clock; median of {} reps, fresh executable each)\n",
             reps);
  fmt::print("  {:<32} {:>14} {:>10} {:>12} {:>12} {:>10}\n", "executable", "instantiate us", "upload us",
             "1st launch", "2nd launch", "1st/none");
  const char* names[] = {"no upload", "Executable::upload()", "upload_on(stream)"};
  for (int nodes : {100, 1000}) {
    const gd::Graph plan = plan_of(Shape::chain, nodes, bench.data);
    (void)first_launch(plan, Upload::none, bench.s);  // warm-up
    std::vector<FirstLaunch> runs[3];
    for (int r = 0; r < reps; ++r) {
      for (int k = 0; k < 3; ++k) {  // rotate the order of the three variants
        const int v = (k + r) % 3;
        runs[v].push_back(first_launch(plan, static_cast<Upload>(v), bench.s));
      }
    }
    auto med = [](const std::vector<FirstLaunch>& v, double FirstLaunch::*f) {
      std::vector<double> x;
      for (const FirstLaunch& t : v) x.push_back(t.*f);
      return sample::median(x);
    };
    const double none_first = med(runs[0], &FirstLaunch::first);
    for (int v = 0; v < 3; ++v) {
      const double first = med(runs[v], &FirstLaunch::first);
      const std::string upload = v == 1   ? fmt::format("{:.1f}", med(runs[v], &FirstLaunch::upload))
                                 : v == 2 ? std::string("in inst.")
                                          : std::string("-");
      fmt::print("  {:<32} {:>14.1f} {:>10} {:>12.1f} {:>12.1f} {:>10.3f}\n",
                 fmt::format("N={} {}", nodes, names[v]), med(runs[v], &FirstLaunch::instantiate), upload, first,
                 med(runs[v], &FirstLaunch::second), none_first > 0 ? first / none_first : 0.0);
    }
  }
}

// ---- plan storage --------------------------------------------------------------------------------

void storage(float* data) {
  constexpr int nodes = 10000;
  fmt::print("\nplan storage: Graph::storage_bytes() / nodes for a chain of {} 4-argument kernel nodes (host bytes)\n",
             nodes);
  const gd::Graph reserved = plan_of(Shape::chain, nodes, data);  // plan_of calls reserve(nodes)
  gd::Graph grown("chain, no reserve");
  StepNode prev;
  for (int i = 0; i < nodes; ++i) {
    StepNode k = grown.add_kernel(step, tiny, data, i, step_a, step_b);
    if (i > 0) k.after(prev);
    prev = k;
  }
  const double a = static_cast<double>(reserved.storage_bytes()) / nodes;
  const double b = static_cast<double>(grown.storage_bytes()) / nodes;
  fmt::print("  with reserve({})            {:>8.1f} B/node   {}\n", nodes, a, goal_mark(a <= 256.0, "<=256 B"));
  fmt::print("  without reserve              {:>8.1f} B/node   {}\n", b, goal_mark(b <= 256.0, "<=256 B"));
}

// ---- U: in-place update ------------------------------------------------------------------------
//
// A chain of N kernel nodes; node j computes y[j*256 .. j*256+255] = a_j * x + b_j (one block of
// 256 threads), so every node has its own scalar a_j and its own output slice, and a launch checks
// every node. k of the nodes change a_j. Two templates per (N, k) -- "A" and "B" -- differ from the
// base values in the same k nodes, so alternating A, B, A, ... changes exactly k nodes each time.

constexpr int upd_elems = 256;
constexpr int upd_max_nodes = 10000;

__global__ void axpb(float* y, const float* x, float a, float b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
const gd::Launch upd_launch{dim3(1), dim3(upd_elems)};
using AxpbNode = gd::KernelNode<float*, const float*, float, float, int>;

/// a_j: generation 0 is the base, 1 and 2 the two alternating templates (all differ from each other).
float upd_a(int j, int gen) {
  switch (gen) {
    case 0: return 1.0f + 0.015625f * static_cast<float>(j % 64);
    case 1: return -2.0f - 0.0625f * static_cast<float>(j % 32);
    default: return 3.0f + 0.125f * static_cast<float>(j % 16);
  }
}
float upd_b(int j) { return 0.25f * static_cast<float>(j % 8) - 1.0f; }


/// A raw template graph and its nodes (nodes[j] is chain node j), destroyed with it.
struct RawChain {
  cudaGraph_t graph = nullptr;
  std::vector<cudaGraphNode_t> nodes;
  RawChain() = default;
  RawChain(RawChain&& o) noexcept : graph(std::exchange(o.graph, nullptr)), nodes(std::move(o.nodes)) {}
  RawChain& operator=(RawChain&&) = delete;
  ~RawChain() {
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
  }
};

struct UpdBuffers {
  float* x = nullptr;  // upd_elems random inputs (never zeros)
  float* y = nullptr;  // upd_max_nodes slices of upd_elems outputs
  std::vector<float> hx;
  UpdBuffers() : hx(upd_elems) {
    std::mt19937 rng(20261203u);
    std::uniform_real_distribution<float> dist(0.5f, 2.0f);
    for (float& v : hx) v = std::bernoulli_distribution(0.5)(rng) ? dist(rng) : -dist(rng);
    CUDA_CHECK(cudaMalloc(&x, upd_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&y, std::size_t{upd_max_nodes} * upd_elems * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(x, hx.data(), upd_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // a pageable upload may still be in flight: other streams do not wait for it
  }
  ~UpdBuffers() {
    (void)cudaFree(x);
    (void)cudaFree(y);
  }
  UpdBuffers(const UpdBuffers&) = delete;
  UpdBuffers& operator=(const UpdBuffers&) = delete;
};

/// Raw CUDA: the chain (plus one empty node after the last when `extra`), one cudaGraphAddKernelNode per node.
RawChain upd_raw_chain(const UpdBuffers& u, const std::vector<float>& a, bool extra) {
  const int nodes = static_cast<int>(a.size());
  RawChain r;
  CUDA_CHECK(cudaGraphCreate(&r.graph, 0));
  r.nodes.reserve(nodes + 1);
  for (int j = 0; j < nodes; ++j) {
    float* y = u.y + std::size_t(j) * upd_elems;
    const float* x = u.x;
    float aj = a[j], bj = upd_b(j);
    int n = upd_elems;
    void* args[] = {&y, &x, &aj, &bj, &n};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(&axpb);
    p.gridDim = upd_launch.grid;
    p.blockDim = upd_launch.block;
    p.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(cudaGraphAddKernelNode(&node, r.graph, j > 0 ? &r.nodes.back() : nullptr, j > 0 ? 1 : 0, &p));
    r.nodes.push_back(node);
  }
  if (extra) {
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(cudaGraphAddEmptyNode(&node, r.graph, &r.nodes.back(), 1));
    r.nodes.push_back(node);
  }
  return r;
}

/// graphdsl: the same chain as a plan.
gd::Graph upd_plan(const UpdBuffers& u, const std::vector<float>& a, bool extra) {
  const int nodes = static_cast<int>(a.size());
  gd::Graph g("update chain");
  g.reserve(nodes + 1);
  AxpbNode prev;
  for (int j = 0; j < nodes; ++j) {
    AxpbNode k = g.add_kernel(axpb, upd_launch, u.y + std::size_t(j) * upd_elems, u.x, a[j], upd_b(j), upd_elems);
    if (j > 0) k.after(prev);
    prev = k;
  }
  if (extra) g.add_empty().name("extra").after(prev);
  return g;
}

/// One template: its values, its graphdsl plan and its raw graph, both built before any timing.
struct UpdTemplate {
  std::vector<float> a;
  gd::Graph plan;
  RawChain raw;
};

/// Builds a template, timing the plan and the raw graph builds into `plan_us` / `raw_us`.
UpdTemplate upd_template(const UpdBuffers& u, std::vector<float> a, bool extra, std::vector<double>& plan_us,
                         std::vector<double>& raw_us) {
  sample::Stopwatch w;
  gd::Graph plan = upd_plan(u, a, extra);
  plan_us.push_back(w.us());
  w.restart();
  RawChain raw = upd_raw_chain(u, a, extra);
  raw_us.push_back(w.us());
  return UpdTemplate{std::move(a), std::move(plan), std::move(raw)};
}

/// The values of a template: generation `gen` at the nodes in `changed`, the base elsewhere.
std::vector<float> upd_values(int nodes, const std::vector<int>& changed, int gen) {
  std::vector<float> a(nodes);
  for (int j = 0; j < nodes; ++j) a[j] = upd_a(j, 0);
  for (int j : changed) a[j] = upd_a(j, gen);
  return a;
}

/// Poisons the outputs (NaN), runs `launch`, and checks every node's slice against a_j * x + b_j.
void upd_check(Bench& bench, const UpdBuffers& u, const std::string& what, const std::vector<float>& a,
               const std::function<void()>& launch) {
  const std::size_t count = a.size() * upd_elems;
  CUDA_CHECK(cudaMemsetAsync(u.y, 0xff, count * sizeof(float), bench.s));
  launch();
  std::vector<float> out(count);
  CUDA_CHECK(cudaMemcpyAsync(out.data(), u.y, count * sizeof(float), cudaMemcpyDeviceToHost, bench.s));
  CUDA_CHECK(cudaStreamSynchronize(bench.s));
  std::size_t bad = 0, first_bad = 0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    for (int i = 0; i < upd_elems; ++i) {
      const double want = static_cast<double>(a[j]) * u.hx[i] + upd_b(static_cast<int>(j));
      const double got = out[j * upd_elems + i];
      if (!(std::fabs(got - want) <= 1e-5 * std::max(1.0, std::fabs(want)))) {
        if (bad++ == 0) first_bad = j;
      }
    }
  }
  ++bench.checks;
  if (bad == 0) {
    ++bench.checks_passed;
  } else {
    std::fprintf(stderr, "check FAILED: %s: %zu of %zu outputs differ from a_j * x + b_j (first in node %zu)\n",
                 what.c_str(), bad, count, first_bad);
  }
}

enum UpdVariant {
  v_auto,             // graphdsl exec.update(templ) (UpdatePolicy::automatic)
  v_per_node,         // graphdsl exec.update(templ, UpdatePolicy::per_node)
  v_whole,            // graphdsl exec.update(templ, UpdatePolicy::whole_graph)
  v_gd_setters,       // graphdsl exec.set_kernel_args(node, ...) for the k changed nodes (no template)
  v_raw_update,       // raw cudaGraphExecUpdate(exec, prebuilt template)
  v_raw_reinst,       // raw cudaGraphInstantiateWithParams(prebuilt template) + cudaGraphExecDestroy(old)
  v_raw_setters,      // raw cudaGraphExecKernelNodeSetParams for the k changed nodes
  v_raw_build_update, // raw template built (cudaGraphAddKernelNode x N) + cudaGraphExecUpdate + cudaGraphDestroy
  v_count
};
const char* const upd_variant_names[v_count] = {"graphdsl automatic", "graphdsl per_node", "graphdsl whole_graph",
                                                "graphdsl set_kernel_args",
                                                "raw cudaGraphExecUpdate", "raw re-instantiate",
                                                "raw per-node setters", "raw build + cudaGraphExecUpdate"};

struct UpdRow {
  int nodes = 0, k = 0;
  std::vector<double> s[v_count];
  std::vector<double> raw_build, raw_exec_update, raw_destroy;  // phases of v_raw_build_update
  std::vector<double> diff_us;                                  // graphdsl::diff alone
  gd::UpdateStrategy auto_path = gd::UpdateStrategy::none;
  double med(int v) const { return sample::median(s[v]); }
  /// The noise of the upd/auto ratio: the larger half-range / median of its two series.
  double noise() const { return std::max(sample::half_spread(s[v_auto]), sample::half_spread(s[v_raw_update])); }
};

struct UpdRefusal {
  int nodes = 0;
  std::vector<double> gd_us, raw_us;
};

/// The graphdsl executable and the raw one, each with the template whose values it holds now.
struct UpdSides {
  gd::Executable exec;
  const UpdTemplate* gd_now = nullptr;
  cudaGraphExec_t raw = nullptr;
  const RawChain* raw_origin = nullptr;  // the graph `raw` was instantiated from (per-node setters need its nodes)
  const UpdTemplate* raw_now = nullptr;
  ~UpdSides() {
    if (raw != nullptr) (void)cudaGraphExecDestroy(raw);
  }
};

/// Counts a wrong UpdateResult as a failed check (and says why).
void upd_expect(Bench& bench, bool ok, const std::string& what, const gd::UpdateResult& r) {
  ++bench.checks;
  if (ok) {
    ++bench.checks_passed;
  } else {
    std::fprintf(stderr, "check FAILED: %s: unexpected result: %s\n", what.c_str(), r.to_string().c_str());
  }
}

/// The UpdateResults of a series of updates: one check for the whole series, the first wrong one printed.
struct ResultTally {
  int bad = 0;
  void see(bool ok, const std::string& what, const gd::UpdateResult& r) {
    if (!ok && bad++ == 0) {
      std::fprintf(stderr, "check FAILED: %s: unexpected result: %s\n", what.c_str(), r.to_string().c_str());
    }
  }
  void close(Bench& bench) {
    ++bench.checks;
    if (bad == 0) ++bench.checks_passed;
    bad = 0;
  }
};

/// Brings both executables back to the base values, untimed (the raw one re-instantiated from the
/// base graph if it was last instantiated from a template, whose graph is about to be destroyed).
void upd_reset(Bench& bench, UpdSides& x, const UpdTemplate& base) {
  const gd::UpdateResult r = x.exec.update(base.plan);
  upd_expect(bench, static_cast<bool>(r), "reset to the base plan", r);
  x.gd_now = &base;
  if (x.raw_origin != &base.raw) {
    CUDA_CHECK(cudaGraphExecDestroy(std::exchange(x.raw, nullptr)));
    x.raw = bench::raw_instantiate(base.raw.graph);
    x.raw_origin = &base.raw;
  } else {
    cudaGraphExecUpdateResultInfo info{};
    CUDA_CHECK(cudaGraphExecUpdate(x.raw, base.raw.graph, &info));
  }
  x.raw_now = &base;
}

void update_bench(Bench& bench) {
  fmt::print("\nU update: chain of N axpb<<<1, 256>>> kernel nodes (own scalar a_j and output slice each); k nodes "
             "change a_j; host wall time per update (steady_clock; median of {} reps, {} at N=1000, {} at "
             "N=10000; order of the variants rotated each rep)\n",
             bench::options().reps(31), bench::options().reps(21), bench::options().reps(15));
  fmt::print("  auto / per_node / whole: graphdsl exec.update(template[, UpdatePolicy]), template plan prebuilt\n"
             "  gd set: graphdsl exec.set_kernel_args(node, ...) for the k changed nodes (no template)\n"
             "  diff: graphdsl::diff(exec.plan(), template) alone, the host-side part of every update\n"
             "  raw upd: cudaGraphExecUpdate from a prebuilt template graph\n"
             "  raw inst: cudaGraphInstantiateWithParams of the prebuilt template + cudaGraphExecDestroy of the old\n"
             "  raw set: cudaGraphExecKernelNodeSetParams for the k changed nodes\n"
             "  raw bld+upd: cudaGraphCreate + cudaGraphAddKernelNode x N + cudaGraphExecUpdate + cudaGraphDestroy\n"
             "  upd/auto = raw upd / auto (above 1: graphdsl faster); noise: of the auto and raw upd series\n");
  sample::Stopwatch section;
  UpdBuffers u;
  std::vector<UpdRow> rows;
  std::vector<UpdRefusal> refusals;
  std::vector<std::pair<int, std::pair<double, double>>> build_times;  // N -> (plan us, raw template us)

  for (int nodes : {100, 1000, 10000}) {
    const int reps = bench::options().reps(nodes >= 10000 ? 15 : nodes >= 1000 ? 21 : 31);
    std::vector<double> plan_us, raw_us;
    const UpdTemplate base = upd_template(u, upd_values(nodes, {}, 0), false, plan_us, raw_us);
    UpdSides x;
    x.exec = base.plan.instantiate();
    x.gd_now = &base;
    x.raw = bench::raw_instantiate(base.raw.graph);
    x.raw_origin = &base.raw;
    x.raw_now = &base;
    upd_check(bench, u, fmt::format("update N={} graphdsl base", nodes), base.a, [&] { x.exec.launch(bench.s); });
    std::vector<AxpbNode> handles;  // handles of the plan the executable was compiled from, for the setters
    handles.reserve(nodes);
    for (int j = 0; j < nodes; ++j) handles.emplace_back(base.plan.node(static_cast<std::uint32_t>(j)).ref());
    upd_check(bench, u, fmt::format("update N={} raw base", nodes), base.a,
              [&] { CUDA_CHECK(cudaGraphLaunch(x.raw, bench.s)); });

    for (int k : {1, nodes / 10, nodes / 4, nodes / 2, nodes}) {
      const std::vector<int> changed = bench::spread(nodes, k);
      const UpdTemplate ta = upd_template(u, upd_values(nodes, changed, 1), false, plan_us, raw_us);
      const UpdTemplate tb = upd_template(u, upd_values(nodes, changed, 2), false, plan_us, raw_us);
      upd_reset(bench, x, base);
      bool gd_next_a = true, raw_next_a = true;
      UpdRow row;
      row.nodes = nodes;
      row.k = k;
      std::vector<double> phase_build, phase_update, phase_destroy;
      ResultTally results;

      // One update of variant v: moves that side's executable to the other template; returns µs.
      auto one = [&](int v) -> double {
        if (v == v_gd_setters) {
          const UpdTemplate& t = gd_next_a ? ta : tb;
          sample::Stopwatch w;
          for (int j : changed) {
            x.exec.set_kernel_args(handles[j], u.y + std::size_t(j) * upd_elems, u.x, t.a[j], upd_b(j), upd_elems);
          }
          const double us = w.us();
          gd_next_a = !gd_next_a;
          x.gd_now = &t;
          return us;
        }
        if (v <= v_whole) {
          const UpdTemplate& t = gd_next_a ? ta : tb;
          const gd::UpdatePolicy policy = v == v_auto       ? gd::UpdatePolicy::automatic
                                          : v == v_per_node ? gd::UpdatePolicy::per_node
                                                            : gd::UpdatePolicy::whole_graph;
          sample::Stopwatch w;
          const gd::UpdateResult r = x.exec.update(t.plan, policy);
          const double us = w.us();
          const bool path_ok = v == v_auto || r.strategy == (v == v_per_node ? gd::UpdateStrategy::per_node
                                                                              : gd::UpdateStrategy::whole_graph);
          const bool ok = r && r.patched == static_cast<std::size_t>(k) && path_ok;
          results.see(ok, fmt::format("update N={} k={} {}", nodes, k, upd_variant_names[v]), r);
          if (r) {
            gd_next_a = !gd_next_a;
            x.gd_now = &t;
          }
          if (v == v_auto) row.auto_path = r.strategy;
          return us;
        }
        const UpdTemplate& t = raw_next_a ? ta : tb;
        raw_next_a = !raw_next_a;
        double us = 0;
        switch (v) {
          case v_raw_update: {
            cudaGraphExecUpdateResultInfo info{};
            sample::Stopwatch w;
            const cudaError_t rc = cudaGraphExecUpdate(x.raw, t.raw.graph, &info);
            us = w.us();
            CUDA_CHECK(rc);
            break;
          }
          case v_raw_reinst: {
            sample::Stopwatch w;
            cudaGraphInstantiateParams p{};
            cudaGraphExec_t e = nullptr;
            CUDA_CHECK(cudaGraphInstantiateWithParams(&e, t.raw.graph, &p));
            CUDA_CHECK(cudaGraphExecDestroy(x.raw));
            us = w.us();
            if (p.result_out != cudaGraphInstantiateSuccess) {
              std::fprintf(stderr, "raw cudaGraphInstantiateWithParams: result %d\n", static_cast<int>(p.result_out));
              std::exit(1);
            }
            x.raw = e;
            x.raw_origin = &t.raw;
            break;
          }
          case v_raw_setters: {
            const cudaGraphExec_t exec = x.raw;
            const std::vector<cudaGraphNode_t>& origin = x.raw_origin->nodes;
            sample::Stopwatch w;
            for (int j : changed) {
              float* y = u.y + std::size_t(j) * upd_elems;
              const float* xp = u.x;
              float aj = t.a[j], bj = upd_b(j);
              int n = upd_elems;
              void* args[] = {&y, &xp, &aj, &bj, &n};
              cudaKernelNodeParams p{};
              p.func = reinterpret_cast<void*>(&axpb);
              p.gridDim = upd_launch.grid;
              p.blockDim = upd_launch.block;
              p.kernelParams = args;
              CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec, origin[j], &p));
            }
            us = w.us();
            break;
          }
          default: {  // v_raw_build_update
            sample::Stopwatch w;
            std::optional<RawChain> tmp(upd_raw_chain(u, t.a, false));
            const double built = w.us();
            cudaGraphExecUpdateResultInfo info{};
            CUDA_CHECK(cudaGraphExecUpdate(x.raw, tmp->graph, &info));
            const double updated = w.us();
            tmp.reset();
            us = w.us();
            phase_build.push_back(built);
            phase_update.push_back(updated - built);
            phase_destroy.push_back(us - updated);
            break;
          }
        }
        x.raw_now = &t;
        return us;
      };

      for (int v = 0; v < v_count; ++v) (void)one(v);  // warm-up
      phase_build.clear();
      phase_update.clear();
      phase_destroy.clear();
      for (int r = 0; r < reps; ++r) {
        for (int i = 0; i < v_count; ++i) {
          const int v = (r + i) % v_count;
          row.s[v].push_back(one(v));
        }
      }
      row.raw_build = phase_build;
      row.raw_exec_update = phase_update;
      row.raw_destroy = phase_destroy;
      // The host-side diff alone, against the template the next update would apply (k nodes differ).
      for (int r = 0; r < reps; ++r) {
        const gd::Graph& next = gd_next_a ? ta.plan : tb.plan;
        sample::Stopwatch w;
        const gd::UpdateResult d = gd::diff(x.exec.plan(), next);
        row.diff_us.push_back(w.us());
        results.see(d && d.changed.size() == static_cast<std::size_t>(k), fmt::format("diff N={} k={}", nodes, k), d);
      }
      // Each variant once more, then a launch checked against the values it should now hold.
      for (int v = 0; v < v_count; ++v) {
        (void)one(v);
        const std::string what = fmt::format("update N={} k={} after {}", nodes, k, upd_variant_names[v]);
        if (v <= v_gd_setters) {
          upd_check(bench, u, what, x.gd_now->a, [&] { x.exec.launch(bench.s); });
        } else {
          upd_check(bench, u, what, x.raw_now->a, [&] { CUDA_CHECK(cudaGraphLaunch(x.raw, bench.s)); });
        }
      }
      results.close(bench);
      upd_reset(bench, x, base);  // before ta and tb (and their raw graphs) go
      rows.push_back(std::move(row));
    }

    // Refusal: a template with one extra node. graphdsl refuses it on the host (no CUDA call);
    // raw cudaGraphExecUpdate refuses it with cudaErrorGraphExecUpdateFailure / TopologyChanged.
    {
      std::vector<double> unused_plan, unused_raw;
      const UpdTemplate extra = upd_template(u, base.a, true, unused_plan, unused_raw);
      UpdRefusal ref;
      ref.nodes = nodes;
      ResultTally results;
      auto gd_refuse = [&] {
        const std::uint64_t calls = gd::debug::cuda_calls();
        sample::Stopwatch w;
        const gd::UpdateResult r = x.exec.update(extra.plan);
        const double us = w.us();
        const bool ok = !r && r.status == gd::UpdateStatus::topology_changed &&
                        r.strategy == gd::UpdateStrategy::none && gd::debug::cuda_calls() == calls;
        results.see(ok, fmt::format("refusal N={} (graphdsl)", nodes), r);
        return us;
      };
      auto raw_refuse = [&] {
        cudaGraphExecUpdateResultInfo info{};
        sample::Stopwatch w;
        const cudaError_t rc = cudaGraphExecUpdate(x.raw, extra.raw.graph, &info);
        const double us = w.us();
        (void)cudaGetLastError();  // the refusal is also left as the thread's last error
        if (rc != cudaErrorGraphExecUpdateFailure || info.result != cudaGraphExecUpdateErrorTopologyChanged) {
          std::fprintf(stderr, "raw refusal N=%d: cudaGraphExecUpdate returned %s, result %d\n", nodes,
                       cudaGetErrorName(rc), static_cast<int>(info.result));
          std::exit(1);
        }
        return us;
      };
      (void)gd_refuse();  // warm-up
      (void)raw_refuse();
      const Pair p = interleave(reps, gd_refuse, raw_refuse);
      ref.gd_us = p.a;
      ref.raw_us = p.b;
      results.close(bench);
      upd_check(bench, u, fmt::format("update N={} graphdsl after a refused update", nodes), x.gd_now->a,
                [&] { x.exec.launch(bench.s); });
      upd_check(bench, u, fmt::format("update N={} raw after a refused update", nodes), x.raw_now->a,
                [&] { CUDA_CHECK(cudaGraphLaunch(x.raw, bench.s)); });
      refusals.push_back(std::move(ref));
    }
    build_times.push_back({nodes, {sample::median(plan_us), sample::median(raw_us)}});
  }

  // ---- the table ----
  fmt::print("  {:<15} {:>9} {:<11} {:>9} {:>9} {:>8} {:>8} | {:>9} {:>9} {:>8} {:>11} | {:>8} {:>6}\n", "case (us)",
             "auto", "auto path", "per_node", "whole", "gd set", "diff", "raw upd", "raw inst", "raw set",
             "raw bld+upd", "upd/auto", "noise");
  for (const UpdRow& r : rows) {
    fmt::print("  {:<15} {:>9.2f} {:<11} {:>9.2f} {:>9.2f} {:>8.2f} {:>8.2f} | {:>9.2f} {:>9.2f} {:>8.2f} {:>11.2f} | "
               "{:>7.1f}x {:>5.1f}%\n",
               fmt::format("N={} k={}", r.nodes, r.k), r.med(v_auto), gd::to_string(r.auto_path), r.med(v_per_node),
               r.med(v_whole), r.med(v_gd_setters), sample::median(r.diff_us), r.med(v_raw_update), r.med(v_raw_reinst),
               r.med(v_raw_setters), r.med(v_raw_build_update),
               r.med(v_auto) > 0 ? r.med(v_raw_update) / r.med(v_auto) : 0.0, 100.0 * r.noise());
  }

  for (const UpdRow& r : rows) {
    const double raw = r.med(v_raw_update);
    for (int v = 0; v < v_count; ++v) {
      const double noise = sample::half_spread(r.s[v]);
      bench::csv_row({"U", "chain axpb", r.nodes, r.k, upd_variant_names[v], r.med(v), noise,
                      raw > 0 ? r.med(v) / raw : -1.0});
    }
    bench::csv_row({"U", "chain axpb", r.nodes, r.k, "graphdsl diff", sample::median(r.diff_us),
                    sample::half_spread(r.diff_us), raw > 0 ? sample::median(r.diff_us) / raw : -1.0});
  }

  // ---- crossover: from which k/N is one cudaGraphExecUpdate of the template cheaper than k setters ----
  for (int nodes : {100, 1000, 10000}) {
    std::vector<int> ks;
    std::vector<double> per_node, whole;
    for (const UpdRow& r : rows) {
      if (r.nodes != nodes) continue;
      ks.push_back(r.k);
      per_node.push_back(r.med(v_per_node));
      whole.push_back(r.med(v_whole));
    }
    const std::string line = bench::crossover_line(nodes, ks, per_node, whole);
    // What the automatic policy chose at each k (src/exec/update.cpp decides; nothing is tuned here).
    std::string chose;
    for (const UpdRow& r : rows) {
      if (r.nodes != nodes) continue;
      chose += fmt::format("{}k={} {}", chose.empty() ? "" : ", ", r.k, gd::to_string(r.auto_path));
    }
    fmt::print("  crossover N={}: {}\n    automatic chose: {}\n", nodes, line, chose);
  }

  fmt::print("  template build (median us): ");
  for (const auto& [nodes, t] : build_times) {
    fmt::print("N={}: graphdsl plan {:.1f}, raw graph {:.1f}; ", nodes, t.first, t.second);
  }
  fmt::print("\n  (the plan build is not inside any update figure above; raw bld+upd includes the raw graph build)\n");

  fmt::print("  refusal (template with one extra node; median us): ");
  for (const UpdRefusal& r : refusals) {
    fmt::print("N={}: graphdsl {:.2f} (no CUDA call), raw cudaGraphExecUpdate {:.2f}; ", r.nodes,
               sample::median(r.gd_us), sample::median(r.raw_us));
  }
  fmt::print("\n");

  // ---- goals ----
  fmt::print("  whole-template path, k=N: graphdsl update(whole_graph) vs raw build + cudaGraphExecUpdate + destroy\n");
  fmt::print("  {:<14} {:>12} {:>12} {:>8} {:>7}  {:>10} {:>10} {:>10}  {}\n", "case", "graphdsl us", "raw us",
             "ratio", "noise", "raw build", "raw update", "raw destr", "goal");
  const UpdRow* one_10k = nullptr;
  const UpdRow* all_10k = nullptr;
  for (const UpdRow& r : rows) {
    if (r.nodes == 10000 && r.k == 1) one_10k = &r;
    if (r.nodes == 10000 && r.k == r.nodes) all_10k = &r;
    if (r.k != r.nodes) continue;
    const double ratio = r.med(v_whole) / r.med(v_raw_build_update);
    const double noise = std::max(sample::half_spread(r.s[v_whole]), sample::half_spread(r.s[v_raw_build_update]));
    fmt::print("  {:<14} {:>12.1f} {:>12.1f} {:>8.3f} {:>6.1f}%  {:>10.1f} {:>10.1f} {:>10.1f}  {}\n",
               fmt::format("N={} k={}", r.nodes, r.k), r.med(v_whole), r.med(v_raw_build_update), ratio,
               100.0 * noise, sample::median(r.raw_build), sample::median(r.raw_exec_update),
               sample::median(r.raw_destroy), r.nodes == 10000 ? goal_mark(ratio <= 1.10, "<=1.10") : std::string());
  }
  if (one_10k != nullptr) {
    const double speedup = one_10k->med(v_raw_update) / one_10k->med(v_auto);
    fmt::print("  goal: 1 changed node of 10000: raw cudaGraphExecUpdate {:.1f} us / graphdsl update() {:.2f} us = "
               "{:.1f}x (>= 10x): {}\n",
               one_10k->med(v_raw_update), one_10k->med(v_auto), speedup, speedup >= 10.0 ? "MET" : "MISSED");
  }
  if (all_10k != nullptr) {
    const double ratio = all_10k->med(v_whole) / all_10k->med(v_raw_build_update);
    fmt::print("  goal: whole-template path, N=10000 k=N: graphdsl / raw = {:.3f} (<= 1.10): {}\n", ratio,
               ratio <= 1.10 ? "MET" : "MISSED");
  }
  for (const UpdRefusal& r : refusals) {
    if (r.nodes == 10000) {
      fmt::print("  reported: refusal detection, N=10000, one extra node: graphdsl {:.2f} us on the host, no CUDA "
                 "call (raw cudaGraphExecUpdate needs {:.2f} us to refuse)\n",
                 sample::median(r.gd_us), sample::median(r.raw_us));
    }
  }
  fmt::print("  (U took {:.1f} s)\n", section.us() / 1e6);
}

const char* const all_sections[] = {"replay", "build", "b2", "b6", "storage", "update", "conditional",
                                    "setters", "hupdate", "hbuild", "hreplay", "launch", "pdl",
                                    "params", "dlaunch", "dupdate", "shapes", "adopt", "generic", "peers"};

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: bench [--quick] [--csv FILE] [--max-nodes N] [--processes P] [section...]\n"
               "  sections: replay build b2 b6 storage update conditional (existing figures)\n"
               "            setters hupdate hbuild hreplay launch (the hot paths; 'hot' = all five)\n"
               "            pdl (programmatic edges vs full edges, graphdsl and raw)\n"
               "            dlaunch (graph launches from the host vs from the device, graphdsl and raw)\n"
               "            params (one Parameter in k of 10000 nodes: set vs update vs setters vs raw)\n"
               "            dupdate (change a node's argument then launch: device vs host vs raw)\n"
               "            shapes (one executable for 8 batch sizes vs 8; device-side dispatch vs host selection)\n"
               "            adopt (a decode step's re-capture loop: raw CUDA vs adopt + update vs setters)\n"
               "            generic (per-type vs generic cudaGraphExecNodeSetParams / cuGraphExecNodeSetParams, raw)\n"
               "            peers (raw vs graphdsl vs cuda-api-wrappers vs Taskflow: build, set one / every, replay;\n"
               "                   built with -DGRAPHDSL_BENCH_PEERS=<dir>, otherwise it says so)\n"
               "            default: every section\n"
               "  --csv FILE  also write one row per figure to FILE (section,workload,N,k,variant,median_us,\n"
               "              noise,ratio_vs_raw,allocs_per_call,bytes_per_call); scripts/plot-bench.sh draws it\n"
               "  --quick     about half the repetitions (noisier; the same result checks)\n"
               "  --max-nodes N  hbuild and peers skip graphs of more than N nodes (the fork-join of 10,000\n"
               "              takes seconds per build)\n"
               "  --processes P  run the sections in P processes one after the other (their output and CSVs\n"
               "              in a new folder under $TMPDIR), then print each figure's median over them, its\n"
               "              range and each process's value (with --csv FILE: the combined figures); a goal\n"
               "              counts when the median of several processes meets it\n"
               "Without a CUDA device it prints 'skipped: no CUDA device' and exits 0. Exit status 1: a result\n"
               "check or a CUDA call failed (a missed goal is shown in the tables, not in the status).\n");
}

int run(int argc, char** argv) {
  std::vector<std::string> wanted;
  std::string csv;
  int processes = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w == "--help" || w == "-h") {
      usage(stdout);
      return 0;
    } else if (w == "--quick") {
      bench::options().quick = true;
    } else if (w == "--csv" && i + 1 < argc) {
      csv = argv[++i];
    } else if (w == "--max-nodes" && i + 1 < argc) {
      bench::options().max_nodes = std::max(1, std::atoi(argv[++i]));
    } else if (w == "--processes" && i + 1 < argc) {
      processes = std::atoi(argv[++i]);
      if (processes < 1 || processes > 100) {
        std::fprintf(stderr, "bench: --processes takes 1 to 100\n");
        return 2;
      }
    } else if (w == "hot") {
      wanted.insert(wanted.end(), {"setters", "hupdate", "hbuild", "hreplay", "launch"});
    } else if (std::find_if(std::begin(all_sections), std::end(all_sections),
                            [&](const char* s) { return w == s; }) != std::end(all_sections)) {
      wanted.push_back(w);
    } else {
      usage(stderr);
      return 2;
    }
  }
  auto on = [&](const char* s) { return wanted.empty() || std::find(wanted.begin(), wanted.end(), s) != wanted.end(); };
  if (sample::cuda_device_count() == 0) {
    fmt::print("skipped: no CUDA device\n");
    return 0;
  }
  if (processes > 1) return bench::run_processes(argc, argv, processes, csv);
  if (!csv.empty() && !bench::csv_open(csv)) {
    std::fprintf(stderr, "bench: cannot write %s\n", csv.c_str());
    return 2;
  }
  CUDA_CHECK(cudaSetDevice(0));
  sample::Stopwatch total;
  fmt::print("graphdsl {} bench: ratios against raw CUDA measured in this run (method: docs/performance.md)\n",
             gd::version_string);
  fmt::print("device: {}\n", sample::device_summary(0));
  fmt::print("kernel: step<<<1, 32>>>(float*, int, float, float); ratio = graphdsl / raw; "
             "noise = largest half-range / median of the two series\n\n");

  Bench bench;
  {  // warm-up: module load, first graph creation and instantiation, first launches
    stream_batch(8, bench.data, bench.s);
    gd::Executable e = plan_of(Shape::fork_join, 8, bench.data).instantiate();
    e.launch(bench.s);
    RawExec raw(Shape::chain, 8, bench.data);
    raw.launch(bench.s);
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
  }

  if (on("replay")) b1_replay(bench);
  if (on("build")) b1_build(bench);
  if (on("b2")) b2_graph_vs_stream(bench);
  if (on("b6")) b6_first_launch(bench);
  if (on("storage")) storage(bench.data);
  if (on("update")) update_bench(bench);
  if (on("setters")) bench::setters_bench(bench);
  if (on("hupdate")) bench::hot_update_bench(bench);
  if (on("pdl")) bench::pdl_bench(bench);
  if (on("dlaunch")) bench::device_launch_bench(bench);
  if (on("hbuild")) bench::hot_build_bench(bench);
  if (on("hreplay")) bench::hot_replay_bench(bench);
  if (on("launch")) bench::launch_bench(bench);
  if (on("params")) bench::params_bench(bench);
  if (on("dupdate")) bench::device_update_bench(bench);
  if (on("shapes")) bench::shapes_bench(bench);
  if (on("adopt")) bench::adopt_bench(bench);
  if (on("generic")) bench::generic_setters_bench(bench);
  if (on("peers")) bench::peers_bench(bench);
  const bool conditional_ok = !on("conditional") || run_conditional_bench() == 0;  // prints its own check line

  CUDA_CHECK(cudaDeviceSynchronize());
  const bool ok = bench.checks_passed == bench.checks;
  fmt::print("\nresult checks: {} of {} passed (B1/B2: bit for bit against the CPU reference; U: every update's "
             "result and the outputs launched after it): {}\n",
             bench.checks_passed, bench.checks, ok ? "ok" : "FAILED");
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  fmt::print("bench finished in {:.1f} s on {}\n", total.us() / 1e6, prop.name);
  const bool csv_ok = bench::csv_close();
  if (!csv.empty()) fmt::print("csv: {} {}\n", csv, csv_ok ? "written" : "NOT fully written");
  return ok && conditional_ok && csv_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const gd::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
