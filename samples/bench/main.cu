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
//
// Without a GPU it prints "skipped: no CUDA device" and exits 0. It exits 1 when a result check or
// a CUDA call fails; a missed goal is reported in the table, not in the exit status.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

// ---- the workload: tiny single-block kernels with 4 arguments ----------------------------------

constexpr float step_a = 0.5f;   // data[i] = data[i] * 0.5 + 0.25: exact multiply, so fused or not
constexpr float step_b = 0.25f;  // the GPU result equals the CPU one bit for bit
constexpr int data_len = 16384;  // >= the largest N: node i touches only data[i]

__global__ void step(float* data, int i, float a, float b) {
  if (threadIdx.x == 0) data[i] = data[i] * a + b;
}
const gd::Launch tiny{dim3(1), dim3(32)};
using StepNode = gd::KernelNode<float*, int, float, float>;

enum class Shape { chain, fork_join };
const char* shape_name(Shape s) { return s == Shape::chain ? "chain" : "fork-join"; }

/// graphdsl: a chain (node i after node i-1) or a fork-join (one root, N-2 parallel nodes, one join).
gd::Graph plan_of(Shape shape, int nodes, float* data) {
  gd::Graph g(shape_name(shape));
  g.reserve(nodes);
  if (shape == Shape::chain) {
    StepNode prev;
    for (int i = 0; i < nodes; ++i) {
      StepNode k = g.add_kernel(step, tiny, data, i, step_a, step_b);
      if (i > 0) k.after(prev);
      prev = k;
    }
  } else {
    StepNode root = g.add_kernel(step, tiny, data, 0, step_a, step_b);
    std::vector<StepNode> mid;
    mid.reserve(nodes - 2);
    for (int i = 1; i < nodes - 1; ++i) mid.push_back(g.add_kernel(step, tiny, data, i, step_a, step_b).after(root));
    g.add_kernel(step, tiny, data, nodes - 1, step_a, step_b).after(mid);
  }
  return g;
}

/// Raw CUDA: one cudaGraphAddKernelNode per node, dependencies given at creation.
cudaGraphNode_t raw_add(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t ndeps, float* data, int i) {
  float a = step_a, b = step_b;
  void* args[] = {&data, &i, &a, &b};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(&step);
  p.gridDim = tiny.grid;
  p.blockDim = tiny.block;
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  cudaGraphNode_t node = nullptr;
  CUDA_CHECK(cudaGraphAddKernelNode(&node, g, deps, ndeps, &p));
  return node;
}

cudaGraph_t raw_graph_of(Shape shape, int nodes, float* data) {
  cudaGraph_t g = nullptr;
  CUDA_CHECK(cudaGraphCreate(&g, 0));
  std::vector<cudaGraphNode_t> made;
  made.reserve(nodes);
  if (shape == Shape::chain) {
    made.push_back(raw_add(g, nullptr, 0, data, 0));
    for (int i = 1; i < nodes; ++i) made.push_back(raw_add(g, &made.back(), 1, data, i));
  } else {
    made.push_back(raw_add(g, nullptr, 0, data, 0));
    for (int i = 1; i < nodes - 1; ++i) made.push_back(raw_add(g, &made.front(), 1, data, i));
    raw_add(g, made.data() + 1, made.size() - 1, data, nodes - 1);
  }
  return g;
}

cudaGraphExec_t raw_instantiate(cudaGraph_t g) {
  cudaGraphInstantiateParams p{};  // flags 0, like graphdsl's default InstantiateOptions
  cudaGraphExec_t e = nullptr;
  CUDA_CHECK(cudaGraphInstantiateWithParams(&e, g, &p));
  if (p.result_out != cudaGraphInstantiateSuccess) {
    std::fprintf(stderr, "raw cudaGraphInstantiateWithParams: result %d\n", static_cast<int>(p.result_out));
    std::exit(1);
  }
  return e;
}

/// A raw graph and its executable, destroyed together.
struct RawExec {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  RawExec(Shape shape, int nodes, float* data) : graph(raw_graph_of(shape, nodes, data)), exec(raw_instantiate(graph)) {}
  ~RawExec() {
    (void)cudaGraphExecDestroy(exec);
    (void)cudaGraphDestroy(graph);
  }
  RawExec(const RawExec&) = delete;
  RawExec& operator=(const RawExec&) = delete;
  void launch(cudaStream_t s) const { CUDA_CHECK(cudaGraphLaunch(exec, s)); }
};

void stream_batch(int nodes, float* data, cudaStream_t s) {
  for (int i = 0; i < nodes; ++i) step<<<tiny.grid, tiny.block, 0, s>>>(data, i, step_a, step_b);
  CUDA_CHECK(cudaGetLastError());
}

// ---- the context every measurement shares --------------------------------------------------------

struct Bench {
  cudaStream_t s = nullptr;
  float* data = nullptr;
  std::vector<float> init;  // random start values (never zeros)
  sample::EventTimer timer;
  int checks = 0;
  int checks_passed = 0;

  Bench() : init(data_len) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&data, data_len * sizeof(float)));
    std::mt19937 rng(20261121u);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    for (float& v : init) v = dist(rng);
  }
  ~Bench() {
    (void)cudaFree(data);
    (void)cudaStreamDestroy(s);
  }

  /// Runs `one_batch` once from the random start values and checks that exactly nodes 0..N-1 were
  /// applied once each (so the graph has every node, each with its own arguments).
  void check(const char* what, int nodes, const std::function<void()>& one_batch) {
    CUDA_CHECK(cudaMemcpyAsync(data, init.data(), data_len * sizeof(float), cudaMemcpyHostToDevice, s));
    one_batch();
    std::vector<float> out(data_len);
    CUDA_CHECK(cudaMemcpyAsync(out.data(), data, data_len * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    int bad = 0;
    for (int i = 0; i < data_len; ++i) {
      const float want = i < nodes ? init[i] * step_a + step_b : init[i];
      if (out[i] != want) ++bad;
    }
    ++checks;
    if (bad == 0) {
      ++checks_passed;
    } else {
      std::fprintf(stderr, "check FAILED: %s: %d of %d values differ from the CPU reference\n", what, bad, data_len);
    }
  }

  /// Device time of `launches` calls of `one` (cudaEvent), per call, in microseconds.
  double per_launch_us(int launches, const std::function<void()>& one) {
    timer.start(s);
    for (int i = 0; i < launches; ++i) one();
    return timer.stop_us(s) / launches;
  }
};

/// Medians (and noise) of two interleaved series: a = graphdsl, b = raw (or the stream baseline).
struct Pair {
  std::vector<double> a, b;
  double ma() const { return sample::median(a); }
  double mb() const { return sample::median(b); }
  double ratio() const { return mb() > 0 ? ma() / mb() : 0.0; }
  double noise() const { return std::max(sample::half_spread(a), sample::half_spread(b)); }
};

/// Runs `reps` repetitions of two measurements, alternating which goes first.
template <class A, class B>
Pair interleave(int reps, A&& measure_a, B&& measure_b) {
  Pair p;
  for (int r = 0; r < reps; ++r) {
    if (r % 2 == 0) {
      p.a.push_back(measure_a());
      p.b.push_back(measure_b());
    } else {
      p.b.push_back(measure_b());
      p.a.push_back(measure_a());
    }
  }
  return p;
}

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

void b1_replay(Bench& bench) {
  fmt::print("B1 replay: graph of {} kernels, time per launch (cudaEvent over {} launches; median of {} reps)\n",
             replay_nodes, replay_launches, replay_reps);
  table_header("graph", "graphdsl us", "raw us", "ratio");
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    gd::Executable exec = plan_of(shape, replay_nodes, bench.data).instantiate();
    RawExec raw(shape, replay_nodes, bench.data);
    bench.check("B1 graphdsl graph", replay_nodes, [&] { exec.launch(bench.s); });
    bench.check("B1 raw graph", replay_nodes, [&] { raw.launch(bench.s); });
    for (int i = 0; i < 20; ++i) {  // warm-up
      exec.launch(bench.s);
      raw.launch(bench.s);
    }
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const Pair p = interleave(
        replay_reps, [&] { return bench.per_launch_us(replay_launches, [&] { exec.launch(bench.s); }); },
        [&] { return bench.per_launch_us(replay_launches, [&] { raw.launch(bench.s); }); });
    const bool met = p.ratio() >= 0.97 && p.ratio() <= 1.03;
    table_row(fmt::format("{} N={}", shape_name(shape), replay_nodes), p, goal_mark(met, "1.00+-0.03"));
  }
}

// ---- B1 build ------------------------------------------------------------------------------------

struct Phases {
  double build = 0, instantiate = 0, destroy = 0;
  double total() const { return build + instantiate + destroy; }
};

Phases graphdsl_build(Shape shape, int nodes, float* data) {
  Phases t;
  sample::Stopwatch w;
  std::optional<gd::Graph> g;
  std::optional<gd::Executable> e;
  g.emplace(plan_of(shape, nodes, data));
  t.build = w.us();
  w.restart();
  e.emplace(g->instantiate());
  t.instantiate = w.us();
  w.restart();
  e.reset();
  g.reset();
  t.destroy = w.us();
  return t;
}

Phases raw_build(Shape shape, int nodes, float* data) {
  Phases t;
  sample::Stopwatch w;
  cudaGraph_t g = raw_graph_of(shape, nodes, data);
  t.build = w.us();
  w.restart();
  cudaGraphExec_t e = raw_instantiate(g);
  t.instantiate = w.us();
  w.restart();
  CUDA_CHECK(cudaGraphExecDestroy(e));
  CUDA_CHECK(cudaGraphDestroy(g));
  t.destroy = w.us();
  return t;
}

struct BuildRow {
  std::string label;
  Pair total;
  std::vector<Phases> gd_phases, raw_phases;
};

void b1_build(Bench& bench) {
  fmt::print("\nB1 build: plan + instantiate + destroy vs raw add + instantiate + destroy (host wall time, "
             "steady_clock; median of 11 reps, 5 at N=10000)\n");
  table_header("graph", "graphdsl us", "raw us", "ratio");
  std::vector<BuildRow> rows;
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    for (int nodes : {100, 1000, 10000}) {
      const int reps = nodes >= 10000 ? 5 : 11;
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

int run() {
  if (sample::cuda_device_count() == 0) {
    fmt::print("skipped: no CUDA device\n");
    return 0;
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

  b1_replay(bench);
  b1_build(bench);
  b2_graph_vs_stream(bench);
  b6_first_launch(bench);
  storage(bench.data);

  CUDA_CHECK(cudaDeviceSynchronize());
  const bool ok = bench.checks_passed == bench.checks;
  fmt::print("\nresult checks: {} of {} graphs/batches matched the CPU reference bit for bit: {}\n",
             bench.checks_passed, bench.checks, ok ? "ok" : "FAILED");
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  fmt::print("bench finished in {:.1f} s on {}\n", total.us() / 1e6, prop.name);
  return ok ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const gd::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
