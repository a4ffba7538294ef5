// samples/bench/bench_peers.cu — graphdsl and the C++ peers side by side with raw CUDA, in one run.
//
//   Sides: raw CUDA (the runtime API: cudaGraphAddKernelNode with dependencies at creation,
//   cudaGraphInstantiateWithParams, cudaGraphExecKernelNodeSetParams), graphdsl, and the peers this
//   build has (bench_peer_sides.cu: cuda-api-wrappers, Taskflow), each building the same chain or
//   fork-join of N step nodes. Figures:
//     build      build + instantiate, us per node (destruction not timed), N = 100, 1,000, 10,000
//     set one    one node's kernel arguments, batches of 100 calls alternating two values, us per call
//     set every  every node's arguments, one sweep of N calls, us per call (N = 1,000 and 10,000)
//     replay     launches + cudaStreamSynchronize (host wall time), us per launch
//   Every side is timed in the same repetition, the order rotated each repetition; medians of 15
//   repetitions, noise = the largest half-range / median of the sides' series; ratio = side / raw.
//   After the set figures each side's executable is launched and checked bit for bit against the
//   values it was given.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.hpp"
#include "bench_peers.hpp"

namespace bench {
namespace peer_bench {

/// Raw CUDA runtime calls (bench_workload's raw_graph_of and raw_instantiate).
class RawSide final : public PeerSide {
 public:
  explicit RawSide(float* data) : data_(data) {}
  ~RawSide() override { destroy(); }
  const char* name() const override { return "raw"; }
  void build(Shape shape, int n) override {
    graph_.emplace(raw_graph_of(shape, n, data_));
    exec_ = raw_instantiate(graph_->graph);
  }
  void destroy() override {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
    graph_.reset();
  }
  void set(int j, float b) override {
    StepArgs a(data_, j, b);
    const cudaKernelNodeParams p = a.params();
    CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec_, graph_->nodes[j], &p));
  }
  void launch(cudaStream_t s) override { CUDA_CHECK(cudaGraphLaunch(exec_, s)); }

 private:
  float* data_;
  std::optional<RawGraph> graph_;
  cudaGraphExec_t exec_ = nullptr;
};

/// graphdsl: plan_of, the plan moved into its executable (instantiate() on an rvalue), set_kernel_args.
class GraphdslSide final : public PeerSide {
 public:
  explicit GraphdslSide(float* data) : data_(data) {}
  const char* name() const override { return "graphdsl"; }
  void build(Shape shape, int n) override {
    nodes_.clear();
    exec_.emplace(plan_of(shape, n, data_, nullptr, &nodes_).instantiate());
  }
  void destroy() override { exec_.reset(); }
  void set(int j, float b) override { exec_->set_kernel_args(nodes_[j], data_, j, step_a, b); }
  void launch(cudaStream_t s) override { exec_->launch(s); }

 private:
  float* data_;
  std::vector<StepNode> nodes_;
  std::optional<gd::Executable> exec_;
};

using Sides = std::vector<std::unique_ptr<PeerSide>>;
using Series = std::vector<std::vector<double>>;

/// Raw first (the baseline of every ratio), graphdsl, then the peers this build has.
Sides all_sides(float* data) {
  Sides s;
  s.push_back(std::make_unique<RawSide>(data));
  s.push_back(std::make_unique<GraphdslSide>(data));
#ifdef GRAPHDSL_BENCH_WITH_PEERS
  for (auto& p : peer_sides(data)) s.push_back(std::move(p));
#endif
  return s;
}

/// Each side measured by `one(side)` in every repetition, the order rotated; one untimed round first.
Series measure_all(const Sides& sides, int reps, const std::function<double(std::size_t)>& one) {
  std::vector<std::function<double()>> m;
  for (std::size_t i = 0; i < sides.size(); ++i) m.push_back([&one, i] { return one(i); });
  for (auto& f : m) (void)f();
  return rotate(reps, m);
}

void header(const Sides& sides) {
  std::string line = fmt::format("  {:<30}", "case (us, ratio to raw)");
  for (const auto& s : sides) line += fmt::format(" {:>24}", s->name());
  fmt::print("{} {:>7}\n", line, "noise");
}

/// One table row and a CSV row per side (ratio to side 0, noise of the side's and raw's series).
void report(const Sides& sides, const std::string& section, const std::string& workload, int n, int k,
            const std::string& label, const Series& s) {
  const double raw = sample::median(s[0]);
  double noise = 0;
  std::string line = fmt::format("  {:<30}", label);
  for (std::size_t i = 0; i < sides.size(); ++i) {
    const double med = sample::median(s[i]);
    const double ratio = raw > 0 ? med / raw : 0.0;
    noise = std::max(noise, sample::half_spread(s[i]));
    line += i == 0 ? fmt::format(" {:>24.3f}", med) : fmt::format(" {:>14.3f} {:>8.3f}x", med, ratio);
    const double row_noise = std::max(sample::half_spread(s[i]), sample::half_spread(s[0]));
    csv_row({section, workload, n, k, sides[i]->name(), med, row_noise, ratio});
  }
  fmt::print("{} {:>6.1f}%\n", line, 100.0 * noise);
}

/// The b each side's executable holds per node (for the checks after the set figures).
struct Held {
  std::vector<std::vector<float>> b;
  Held(std::size_t sides, int n) : b(sides, std::vector<float>(n, step_b)) {}
};

/// What the header names the peers by: their versions as configured, or a note that they were not given.
std::string versions() {
#ifdef GRAPHDSL_BENCH_WITH_PEERS
  const std::string v = peer_versions();
  if (!v.empty()) return v;
#endif
  return "versions not recorded (configure with -DGRAPHDSL_BENCH_PEERS_VERSIONS=...)";
}

float b_alt(int gen) { return step_b + 0.5f * static_cast<float>(1 + gen % 2); }  // the two values sets alternate

/// The set-one and set-every figures of one shape at N, then a checked launch of every side.
void set_rows(Bench& bench, const Sides& sides, Shape shape, int n, int reps) {
  constexpr int batch = 100;
  const std::string workload = fmt::format("{} step", shape_name(shape));
  Held held(sides.size(), n);
  std::vector<int> calls(sides.size(), 0);
  auto set = [&](std::size_t i, int j, float b) {
    sides[i]->set(j, b);
    held.b[i][j] = b;
  };
  const Series one = measure_all(sides, reps, [&](std::size_t i) {
    sample::Stopwatch w;
    for (int c = 0; c < batch; ++c) set(i, n / 2, b_alt(calls[i]++));
    return w.us() / batch;
  });
  report(sides, "peers set one", workload, n, 1, fmt::format("set one, {} N={}", shape_name(shape), n), one);
  const Series every = measure_all(sides, reps, [&](std::size_t i) {
    const float b = b_alt(calls[i]++);
    sample::Stopwatch w;
    for (int j = 0; j < n; ++j) set(i, j, b);
    return w.us() / n;
  });
  report(sides, "peers set every", workload, n, n, fmt::format("set every, {} N={}", shape_name(shape), n), every);
  for (std::size_t i = 0; i < sides.size(); ++i) {
    bench.check_b(fmt::format("peers {} {} N={} after the sets", sides[i]->name(), shape_name(shape), n), held.b[i],
                  [&] { sides[i]->launch(bench.s); });
  }
}

/// Build + instantiate per node, the checks of what was built, the set figures (N >= 1,000) and replay.
void shape_rows(Bench& bench, const Sides& sides, Shape shape, int n, int reps) {
  const std::string workload = fmt::format("{} step", shape_name(shape));
  const Series build = measure_all(sides, reps, [&](std::size_t i) {
    sides[i]->destroy();
    sample::Stopwatch w;
    sides[i]->build(shape, n);
    return w.us() / n;
  });
  report(sides, "peers build", workload, n, -1, fmt::format("build/node, {} N={}", shape_name(shape), n), build);
  for (const auto& s : sides) {
    bench.check(fmt::format("peers {} {} N={} built", s->name(), shape_name(shape), n).c_str(), n,
                [&] { s->launch(bench.s); });
  }
  if (n >= 1000) set_rows(bench, sides, shape, n, reps);
  const int launches = n >= 10000 ? 5 : 20;
  const Series replay = measure_all(sides, reps, [&](std::size_t i) {
    sample::Stopwatch w;
    for (int l = 0; l < launches; ++l) sides[i]->launch(bench.s);
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    return w.us() / launches;
  });
  report(sides, "peers replay", workload, n, -1,
         fmt::format("replay x{}, {} N={}", launches, shape_name(shape), n), replay);
}

}  // namespace peer_bench

void peers_bench(Bench& bench) {
  namespace pb = peer_bench;
  const pb::Sides sides = pb::all_sides(bench.data);
  if (sides.size() <= 2) {
    fmt::print("\npeers: not built (configure with -DGRAPHDSL_BENCH_PEERS=<dir>)\n");
    return;
  }
  sample::Stopwatch section;
  const int reps = options().reps(15);
  fmt::print(
      "\npeers: raw CUDA, graphdsl and the C++ peers on one workload (step<<<1, 32>>> nodes, chain and fork-join); "
      "host wall time (steady_clock), median of {} reps, every side in each rep, order rotated; ratio = side / raw\n"
      "  peers: {}\n",
      reps, pb::versions());
  pb::header(sides);
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    for (int n : {100, 1000, 10000}) {
      if (options().builds(n)) pb::shape_rows(bench, sides, shape, n, reps);
    }
  }
  for (const auto& s : sides) s->destroy();
  fmt::print("  (peers took {:.1f} s)\n", section.us() / 1e6);
}

}  // namespace bench
