// samples/bench/bench_shapes.cu — the shapes section (bench_shapes.hpp says what each figure is).
//
// Method: one process, one GPU; host wall times (steady_clock) unless said otherwise; medians over
// the steps or repetitions named in each table, with noise = half-range / median where two series are
// interleaved. Memory: the cudaMemGetInfo delta (device, graph memory included: executables are
// uploaded and launched once before it is read) and the malloc heap delta (host, glibc mallinfo2:
// what the driver allocates with malloc too), each around building what is measured, with graph
// memory trimmed before. Every executable's output is checked against the per-size executables.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <graphdsl/dispatch.hpp>
#include <graphdsl/format.hpp>
#include <graphdsl/graphdsl.hpp>
#include <graphdsl/shape_family.hpp>

#include "bench_common.hpp"
#include "bench_shapes.hpp"
#include "serving_step.cuh"

namespace bench {
// A namespace of its own: with GRAPHDSL_BENCH_ONE_TU the benchmark's files are one translation unit.
namespace shapes_section {
namespace {

using serving::H;
using serving::max_batch;
using serving::Model;

constexpr int big_layers = 500;  // 1 + 4 * 500 = 2,001 nodes per step
constexpr int K = 100;           // changing steps

// ---- workloads ------------------------------------------------------------------------------------

/// The step with only its first `exact` layers following the batch size (the others run max_batch
/// rows, padded): 1 + 4 * exact nodes differ between two sizes.
gd::Graph mixed_step(const Model& m, int rows, int exact) {
  gd::Graph g("step b=" + std::to_string(rows));
  g.reserve(static_cast<std::size_t>(1 + 4 * m.layers));
  gd::Node prev = g.add_memcpy(m.x, m.x0, static_cast<std::size_t>(rows) * H, cudaMemcpyDeviceToDevice).name("input");
  for (int l = 0; l < m.layers; ++l) {
    const int r = l < exact ? rows : max_batch;
    const gd::Launch launch = serving::rows_launch(r);
    const std::size_t L = static_cast<std::size_t>(l);
    auto mm = g.add_kernel(serving::gemm_rows, launch, m.y, m.x, m.w + L * H * H, r).after(prev);
    auto act = g.add_kernel(serving::bias_tanh, launch, m.y, m.bias + L * H, r).after(mm);
    auto at = g.add_kernel(serving::attend, launch, m.att, m.y, m.keys + L * serving::C * H,
                           m.values + L * serving::C * H, r)
                  .after(act);
    prev = g.add_kernel(serving::residual, launch, m.x, m.att, r).after(at);
  }
  return g;
}

/// The step with a graph allocation: a 2 MiB workspace allocated first, `rows` rows of it cleared,
/// freed last (sized for the largest batch in every variant, as CUDA cannot update an allocation).
gd::Graph alloc_step(const Model& m, int rows) {
  gd::Graph g("step+ws b=" + std::to_string(rows));
  auto ws = g.add_mem_alloc<float>(static_cast<std::size_t>(max_batch) * 4096);
  ws.node.name("workspace");
  auto clear = g.add_memset(ws.buffer, 0.0f, static_cast<std::size_t>(rows) * 4096).name("clear").after(ws.node);
  const serving::StepNodes s = serving::add_step(g, m, rows);
  g.add_edge(clear, s.first);
  g.add_mem_free(ws.buffer).name("free").after(s.last);
  return g;
}

struct MemDelta {
  double device_mib = 0, host_mib = 0;
};

std::size_t free_device() {
  std::size_t f = 0, t = 0;
  CUDA_CHECK(cudaMemGetInfo(&f, &t));
  return f;
}

/// Free device memory and heap in use at one moment (graph memory trimmed, the device idle).
struct MemMark {
  std::size_t device;
  std::uint64_t host;
};
MemMark mem_mark() {
  CUDA_CHECK(cudaDeviceSynchronize());
  gd::trim_graph_memory();
  return {free_device(), malloc_in_use()};
}
/// What was taken since `m0`.
MemDelta since(const MemMark& m0) {
  CUDA_CHECK(cudaDeviceSynchronize());
  const MemMark m1{free_device(), malloc_in_use()};
  MemDelta d;
  d.device_mib = m0.device > m1.device ? static_cast<double>(m0.device - m1.device) / (1 << 20) : 0.0;
  d.host_mib = m1.host > m0.host ? static_cast<double>(m1.host - m0.host) / (1 << 20) : 0.0;
  return d;
}

/// Memory that `build()` keeps (its result alive), after launching what it built once.
template <class Build, class Use>
MemDelta memory_of(Build&& build, Use&& use) {
  const MemMark m0 = mem_mark();
  auto kept = build();
  use(kept);
  return since(m0);
}

// ---- S1, S2: memory and build ---------------------------------------------------------------------

using PlanFn = gd::Graph (*)(const Model&, int);

/// The batch sizes a figure covers: the first `count` (all 8 by default).
std::vector<int> first_sizes(std::size_t count = 8) {
  std::vector<int> all = serving::batch_sizes();
  all.resize(std::min(count, all.size()));
  return all;
}

std::map<int, gd::Executable> build_separate(const Model& m, PlanFn plan, cudaStream_t s) {
  std::map<int, gd::Executable> e;
  for (int b : first_sizes()) {
    e.emplace(b, plan(m, b).instantiate());
    e.at(b).upload(s);
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  return e;
}

gd::ShapeFamily<int> build_family(const Model& m, PlanFn plan, cudaStream_t s, const gd::FamilyOptions& o = {},
                                  std::size_t count = 8) {
  gd::ShapeFamily<int> f(o);
  for (int b : first_sizes(count)) f.add(b, plan(m, b));
  f.compile(s);
  return f;
}

/// The size counts of S5's figures.
constexpr std::size_t size_counts[] = {1, 2, 4, 8};

/// Memory of families of the first 1, 2, 4 and 8 sizes of the plain step, and of one executable per
/// size for as many sizes, each built, uploaded and launched once. Measured first in the process,
/// everything kept alive until the last figure: CUDA keeps the device memory of destroyed
/// executables for the next ones, so a figure taken after others were destroyed reads low.
struct SizesMemory {
  MemDelta family[4], separate[4];
};

SizesMemory measure_sizes_memory(const Model& m, cudaStream_t s) {
  {  // the kernels loaded and the library's first-use allocations made, with a 5-node step
    Model one = Model::create(1);
    gd::Executable warm = serving::step_plan(one, 1).instantiate();
    warm.launch(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    one.destroy();
  }
  SizesMemory r;
  std::vector<gd::ShapeFamily<int>> families;
  families.reserve(4);
  for (std::size_t c = 0; c < 4; ++c) {
    const MemMark m0 = mem_mark();
    families.push_back(build_family(m, serving::step_plan, s, {}, size_counts[c]));
    families.back().launch(first_sizes(size_counts[c]).back(), s);
    r.family[c] = since(m0);
  }
  const MemMark m0 = mem_mark();
  std::vector<gd::Executable> execs;
  std::size_t next = 0;
  for (int b : first_sizes()) {
    execs.push_back(serving::step_plan(m, b).instantiate());
    execs.back().upload(s);
    execs.back().launch(s);
    if (execs.size() == size_counts[next]) r.separate[next++] = since(m0);
  }
  return r;
}

void memory_and_build(Bench& bench, const Model& m, const SizesMemory& sizes) {
  fmt::print("\nS1/S2 shapes: memory and build of 8 batch sizes of a {}-node step, family vs 8 executables\n",
             1 + 4 * m.layers);
  fmt::print("  (PyTorch on H100, for reference: capture 2.2-2.8 ms + warm-up 4.5 ms per size)\n");
  fmt::print("{:>10} | {:>10} {:>10} {:>6} | {:>10} {:>10} {:>6} | {:>9} {:>9} {:>6} | goals\n", "step", "dev 8x MiB",
             "family", "ratio", "host 8x", "family", "ratio", "build 8x", "family", "ratio");
  const std::pair<const char*, PlanFn> workloads[] = {{"plain", serving::step_plan}, {"+2MiB ws", alloc_step}};
  for (const auto& workload : workloads) {
    const char* const name = workload.first;
    const PlanFn plan = workload.second;
    auto launch_all = [&](auto& execs) {
      for (auto& [b, e] : execs) e.launch(bench.s);
    };
    // The plain step's from measure_sizes_memory; the step with a workspace measured here, after
    // the plain step's executables were destroyed: both sides may reuse their memory.
    const bool plain = plan == serving::step_plan;
    const MemDelta sep = plain ? sizes.separate[3] : memory_of([&] { return build_separate(m, plan, bench.s); }, launch_all);
    const MemDelta fam = plain ? sizes.family[3]
                               : memory_of([&] { return build_family(m, plan, bench.s); },
                                           [&](gd::ShapeFamily<int>& f) { f.launch(128, bench.s); });
    const int reps = options().reps(5);
    const Pair build = interleave(
        reps,
        [&] {
          sample::Stopwatch t;
          auto f = build_family(m, plan, bench.s);
          return t.us() / 1e3;
        },
        [&] {
          sample::Stopwatch t;
          auto e = build_separate(m, plan, bench.s);
          return t.us() / 1e3;
        });
    const double dr = sep.device_mib > 0 ? fam.device_mib / sep.device_mib : 0.0;
    const double hr = sep.host_mib > 0 ? fam.host_mib / sep.host_mib : 0.0;
    fmt::print("{:>10} | {:10.2f} {:10.2f} {:6.3f} | {:10.2f} {:10.2f} {:6.3f} | {:7.1f}ms {:7.1f}ms {:6.3f} | "
               "dev <= 0.25: {}, host <= 0.25: {}, build <= 0.33: {} (noise {:.1f}%)\n",
               name, sep.device_mib, fam.device_mib, dr, sep.host_mib, fam.host_mib, hr, build.mb(), build.ma(),
               build.ratio(), dr <= 0.25 ? "met" : "MISSED", hr <= 0.25 ? "met" : "MISSED",
               build.ratio() <= 1.0 / 3 ? "met" : "MISSED", 100 * build.noise());
    const int n = 1 + 4 * m.layers;
    csv_row({"shapes", std::string("memory ") + name, n, 8, "device MiB family", fam.device_mib, -1, dr});
    csv_row({"shapes", std::string("memory ") + name, n, 8, "device MiB 8 executables", sep.device_mib, -1, 1.0});
    csv_row({"shapes", std::string("memory ") + name, n, 8, "host MiB family", fam.host_mib, -1, hr});
    csv_row({"shapes", std::string("memory ") + name, n, 8, "host MiB 8 executables", sep.host_mib, -1, 1.0});
    csv_pair("shapes", std::string("build ") + name, n, 8, "family (ms)", "8 executables (ms)", build);
  }
  // The same family with every variant prepared by compile() (FamilyOptions::prepare_eagerly): what
  // preparing on demand saves at build (the plain step).
  gd::FamilyOptions eager;
  eager.prepare_eagerly = true;
  const Pair e = interleave(
      options().reps(5),
      [&] {
        sample::Stopwatch t;
        auto f = build_family(m, serving::step_plan, bench.s, eager);
        return t.us() / 1e3;
      },
      [&] {
        sample::Stopwatch t;
        auto x = build_separate(m, serving::step_plan, bench.s);
        return t.us() / 1e3;
      });
  fmt::print("{:>10} | {:>10} {:>10} {:>6} | {:>10} {:>10} {:>6} | {:7.1f}ms {:7.1f}ms {:6.3f} | prepared eagerly "
             "(noise {:.1f}%)\n",
             "plain", "", "", "", "", "", "", e.mb(), e.ma(), e.ratio(), 100 * e.noise());
  csv_pair("shapes", "build plain, prepared eagerly", 1 + 4 * m.layers, 8, "family (ms)", "8 executables (ms)", e);
  bench.expect(true, "S1/S2");
}

// ---- S3: switch cost -------------------------------------------------------------------------------

/// A raw executable of variant 1's native graph, with what raw switches need per variant: the native
/// graph (for cudaGraphExecUpdate) and each node's parameters (for the per-node setters).
struct RawSwitch {
  std::map<int, gd::Executable> per;  // per-size executables: their native graphs are the templates
  cudaGraphExec_t exec = nullptr;
  std::vector<cudaGraphNode_t> nodes;  // of per[1]'s graph, which exec was instantiated from
  std::map<int, std::vector<cudaKernelNodeParams>> kernel;
  std::map<int, std::vector<cudaMemcpy3DParms>> copy;

  RawSwitch(const gd::ShapeFamily<int>& f) {
    for (int b : serving::batch_sizes()) per.emplace(b, f.plan(b).instantiate());
    const gd::Graph& p1 = f.plan(1);
    for (std::uint32_t i = 0; i < p1.node_count(); ++i) nodes.push_back(per.at(1).native_node(p1.node(i)));
    CUDA_CHECK(cudaGraphInstantiate(&exec, per.at(1).native_graph(), 0));
    for (int b : serving::batch_sizes()) {
      const gd::Graph& p = f.plan(b);
      auto& k = kernel[b];
      auto& c = copy[b];
      k.resize(p.node_count());
      c.resize(p.node_count());
      for (std::uint32_t i = 0; i < p.node_count(); ++i) {
        const cudaGraphNode_t n = per.at(b).native_node(p.node(i));
        if (p.node(i).kind() == gd::NodeKind::kernel) CUDA_CHECK(cudaGraphKernelNodeGetParams(n, &k[i]));
        else CUDA_CHECK(cudaGraphMemcpyNodeGetParams(n, &c[i]));
      }
    }
  }
  ~RawSwitch() { (void)cudaGraphExecDestroy(exec); }
  RawSwitch(const RawSwitch&) = delete;
  RawSwitch& operator=(const RawSwitch&) = delete;

  void update_to(int b) {
    cudaGraphExecUpdateResultInfo info{};
    CUDA_CHECK(cudaGraphExecUpdate(exec, per.at(b).native_graph(), &info));
  }
  void setters_to(int b, const std::vector<std::uint32_t>& changed) {
    for (std::uint32_t i : changed) {
      if (kernel[b][i].func != nullptr) CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec, nodes[i], &kernel[b][i]));
      else CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams(exec, nodes[i], &copy[b][i]));
    }
  }
};

/// Median switch time (SwitchReport::took_us) over the changing sequence, and how often each
/// strategy was chosen.
struct SwitchRun {
  double median_us = 0;
  std::size_t per_node = 0, prepared = 0;
};

SwitchRun run_switches(gd::ShapeFamily<int>& f, const std::vector<int>& seq, cudaStream_t s) {
  std::vector<double> took;
  const gd::FamilyStats before = f.stats();
  for (int b : seq) {
    f.launch(b, s);
    if (f.last_switch().took_us > 0) took.push_back(f.last_switch().took_us);
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  return {sample::median(took), f.stats().per_node - before.per_node, f.stats().prepared - before.prepared};
}

/// Launches variant b of the family and its per-size executable, and compares their output rows.
bool same_rows(gd::ShapeFamily<int>& f, gd::Executable& per, const Model& m, int b, cudaStream_t s) {
  std::vector<float> a(static_cast<std::size_t>(max_batch) * H), c(a.size());
  f.launch(b, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaMemcpy(a.data(), m.x, a.size() * sizeof(float), cudaMemcpyDeviceToHost));
  per.launch(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaMemcpy(c.data(), m.x, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return std::equal(a.begin(), a.begin() + b * H, c.begin());
}

void switch_row(Bench& bench, const Model& m, int exact, const std::vector<int>& seq) {
  std::map<gd::SwitchPolicy, gd::ShapeFamily<int>> fam;
  for (gd::SwitchPolicy p : {gd::SwitchPolicy::automatic, gd::SwitchPolicy::per_node, gd::SwitchPolicy::prepared}) {
    gd::FamilyOptions o;
    o.policy = p;
    gd::ShapeFamily<int> f(o);
    for (int b : serving::batch_sizes()) f.add(b, mixed_step(m, b, exact));
    f.compile(bench.s);
    fam.emplace(p, std::move(f));
  }
  gd::ShapeFamily<int>& automatic = fam.at(gd::SwitchPolicy::automatic);
  RawSwitch raw(automatic);
  const SwitchRun a = run_switches(automatic, seq, bench.s);
  const SwitchRun pn = run_switches(fam.at(gd::SwitchPolicy::per_node), seq, bench.s);
  const SwitchRun pr = run_switches(fam.at(gd::SwitchPolicy::prepared), seq, bench.s);
  std::vector<double> ru, rs;
  int held = 1;
  for (int b : seq) {
    const std::vector<std::uint32_t> changed = gd::diff(automatic.plan(held), automatic.plan(b)).changed;
    sample::Stopwatch t;
    raw.update_to(b);
    ru.push_back(t.us());
    raw.update_to(held);
    t.restart();
    raw.setters_to(b, changed);
    rs.push_back(t.us());
    held = b;
  }
  const double best_lib = std::min(pn.median_us, pr.median_us);
  const double best_raw = std::min(sample::median(ru), sample::median(rs));
  const std::size_t k = automatic.changed_nodes(1, 2), n = automatic.plan(1).node_count();
  fmt::print("{:6} {:6} | {:9.1f} ({:3}/{:3}) | {:9.1f} {:9.1f} | {:9.1f} {:9.1f} | auto/min(lib) {:5.2f} {} | "
             "auto/min(raw) {:5.2f}\n",
             n, k, a.median_us, a.per_node, a.prepared, pn.median_us, pr.median_us, sample::median(ru),
             sample::median(rs), a.median_us / best_lib, a.median_us <= 1.05 * best_lib ? "met" : "MISSED",
             a.median_us / best_raw);
  fmt::print("       last: {}\n", automatic.last_switch().to_string());
  const int ni = static_cast<int>(n), ki = static_cast<int>(k);
  csv_row({"shapes", "switch", ni, ki, "family automatic", a.median_us, -1, a.median_us / best_raw});
  csv_row({"shapes", "switch", ni, ki, "family per_node", pn.median_us, -1, pn.median_us / best_raw});
  csv_row({"shapes", "switch", ni, ki, "family prepared", pr.median_us, -1, pr.median_us / best_raw});
  csv_row({"shapes", "switch", ni, ki, "raw cudaGraphExecUpdate", sample::median(ru), -1, -1});
  csv_row({"shapes", "switch", ni, ki, "raw setters", sample::median(rs), -1, -1});
  bool ok = true;
  for (auto& [p, f] : fam) {
    for (int b : serving::batch_sizes()) ok = ok && same_rows(f, raw.per.at(b), m, b, bench.s);
  }
  bench.expect(ok, fmt::format("S3 k={}: every family computes each size as its per-size executable", k));
}

void switch_cost(Bench& bench, const Model& m) {
  fmt::print("\nS3 shapes: switch cost when the size changes every step ({} steps; us, medians; raw setters = the\n"
             "   nodes that differ, raw update = cudaGraphExecUpdate from the target's prebuilt graph)\n"
             "  (PyTorch/H100 reference: raw cudaGraphExecUpdate of a 1,000-kernel graph 78 us; one setter 0.34 us)\n",
             K);
  fmt::print("{:>6} {:>6} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>9} |\n", "N", "k", "auto", "(pn/prep)", "per_node",
             "prepared", "raw upd", "raw set");
  const std::vector<int> seq = serving::changing_sizes(K, 21);
  for (int exact : {1, 50, m.layers}) switch_row(bench, m, exact, seq);
}

// ---- S4: replay ------------------------------------------------------------------------------------

void replay(Bench& bench, const Model& m) {
  gd::ShapeFamily<int> f = build_family(m, serving::step_plan, bench.s);
  gd::Executable dedicated = serving::step_plan(m, 32).instantiate();
  f.launch(32, bench.s);  // switch once; then the size does not change
  constexpr int launches = 20;
  auto timed = [&](auto&& launch) {
    sample::Stopwatch t;
    for (int i = 0; i < launches; ++i) launch();
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    return t.us() / launches;
  };
  const Pair p = interleave(
      options().reps(15), [&] { return timed([&] { f.launch(32, bench.s); }); },
      [&] { return timed([&] { dedicated.launch(bench.s); }); });
  fmt::print("\nS4 shapes: replay at an unchanged size (b = 32, {} nodes, {} launches + synchronize, us per launch)\n",
             1 + 4 * m.layers, launches);
  fmt::print("  family {:.1f} us, dedicated executable {:.1f} us: ratio {:.3f} (noise {:.1f}%), goal 1.00 +- 0.01: {}\n",
             p.ma(), p.mb(), p.ratio(), 100 * p.noise(), std::abs(p.ratio() - 1.0) <= 0.01 ? "met" : "MISSED");
  fmt::print("  (PyTorch/H100 reference: replay 290-367 us)\n");
  csv_pair("shapes", "replay", 1 + 4 * m.layers, 0, "family", "dedicated executable", p);
  bench.expect(f.stats().unchanged >= static_cast<std::size_t>(launches), "S4: no switch at an unchanged size");
  // The family's executable was compiled for another size and updated to this one: is an executable
  // CUDA updated away and back as fast as a fresh one? (A dedicated executable, no family.)
  gd::Executable updated = serving::step_plan(m, 32).instantiate();
  const bool back = updated.update(serving::step_plan(m, 1)) && updated.update(serving::step_plan(m, 32));
  const Pair u = interleave(
      options().reps(15), [&] { return timed([&] { updated.launch(bench.s); }); },
      [&] { return timed([&] { dedicated.launch(bench.s); }); });
  fmt::print("  a dedicated executable updated to b = 1 and back {:.1f} us, fresh {:.1f} us: ratio {:.3f} (noise {:.1f}%)\n",
             u.ma(), u.mb(), u.ratio(), 100 * u.noise());
  csv_pair("shapes", "replay", 1 + 4 * m.layers, 1, "updated and back", "dedicated executable", u);
  bench.expect(back, "S4: the dedicated executable updated away and back");
}

// ---- S5: against the number of sizes and the budget ---------------------------------------------

void sizes_sweep(Bench& bench, const Model& m, const SizesMemory& mem) {
  fmt::print("\nS5 shapes: memory and switch cost against the number of sizes (step of {} nodes; memory: "
             "cudaMemGetInfo and heap deltas, measured first, everything kept alive)\n",
             1 + 4 * m.layers);
  fmt::print("{:>6} | {:>12} {:>12} {:>7} | {:>11} {:>12} | {:>10}\n", "sizes", "family MiB", "separate MiB", "ratio",
             "family host", "separate", "switch us");
  for (std::size_t c = 0; c < 4; ++c) {
    const std::size_t count = size_counts[c];
    const std::vector<int> sizes = first_sizes(count);
    gd::ShapeFamily<int> f = build_family(m, serving::step_plan, bench.s, {}, count);
    std::vector<int> seq;
    std::mt19937 gen(3);
    for (int i = 0; i < K; ++i) seq.push_back(sizes[gen() % count]);
    const SwitchRun r = run_switches(f, seq, bench.s);
    const MemDelta& fam = mem.family[c];
    const MemDelta& sep = mem.separate[c];
    fmt::print("{:6} | {:12.2f} {:12.2f} {:7.3f} | {:11.2f} {:12.2f} | {:10.1f}\n", count, fam.device_mib,
               sep.device_mib, sep.device_mib > 0 ? fam.device_mib / sep.device_mib : 0.0, fam.host_mib, sep.host_mib,
               r.median_us);
    const int n = static_cast<int>(count);
    csv_row({"shapes", "sizes", n, -1, "family device MiB", fam.device_mib});
    csv_row({"shapes", "sizes", n, -1, "separate device MiB", sep.device_mib});
    csv_row({"shapes", "sizes", n, -1, "family host MiB", fam.host_mib});
    csv_row({"shapes", "sizes", n, -1, "separate host MiB", sep.host_mib});
    csv_row({"shapes", "sizes", n, -1, "switch us", r.median_us});
  }
  bench.expect(true, "S5 sizes");
}

void budget_sweep(Bench& bench, const Model& m) {
  fmt::print("\nS5 shapes: the LRU budget: executables of their own for the hottest sizes (skewed: size i drawn with\n"
             "   weight 2^-i), {} steps after a warm pass; switch us = mean over steps (0 for a dedicated launch)\n",
             2 * K);
  fmt::print("{:>9} | {:>10} {:>10} | {:>10} {:>10}\n", "dedicated", "device MiB", "host MiB", "switch us", "own hits");
  gd::ShapeFamily<int> probe = build_family(m, serving::step_plan, bench.s);
  const std::size_t one = std::max<std::size_t>(probe.memory().device_bytes, 1);
  std::vector<int> seq;
  std::mt19937 gen(4);
  const std::vector<int> all = serving::batch_sizes();
  for (int i = 0; i < 2 * K; ++i) {
    int s = 0;
    while (s < 7 && (gen() & 1)) ++s;
    seq.push_back(all[s]);
  }
  for (int dedicated : {0, 1, 2, 4, 8}) {
    gd::FamilyOptions o;
    o.dedicated_budget_bytes = static_cast<std::size_t>(dedicated) * one;
    gd::ShapeFamily<int> f = build_family(m, serving::step_plan, bench.s, o);
    for (int b : seq) f.launch(b, bench.s);  // warm: promotions happen here
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const gd::FamilyStats before = f.stats();
    double sum = 0;
    for (int b : seq) {
      f.launch(b, bench.s);
      if (f.last_switch().chosen != gd::SwitchStrategy::dedicated) sum += f.last_switch().took_us;
    }
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const gd::FamilyMemory mem = f.memory();
    const double mean = sum / seq.size();
    fmt::print("{:9} | {:10.2f} {:10.2f} | {:10.1f} {:10}\n", dedicated, mem.device_bytes / double(1 << 20),
               mem.host_bytes / double(1 << 20), mean, f.stats().dedicated_launches - before.dedicated_launches);
    csv_row({"shapes", "budget", dedicated, -1, "device MiB", mem.device_bytes / double(1 << 20)});
    csv_row({"shapes", "budget", dedicated, -1, "host MiB", mem.host_bytes / double(1 << 20)});
    csv_row({"shapes", "budget", dedicated, -1, "switch us", mean});
  }
  bench.expect(true, "S5 budget");
}

// ---- S6: device dispatch -------------------------------------------------------------------------

struct DispatchRow {
  double body = 0, device = 0, host_switch = 0, host_known = 0, host_readback = 0;
};

DispatchRow dispatch_row(Bench& bench, int layers, const std::vector<int>& seq) {
  Model m = Model::create(layers);
  serving::LoopState st = serving::LoopState::create(seq);
  std::map<int, gd::Executable> per;
  for (int b : serving::batch_sizes()) per.emplace(b, serving::step_plan(m, b).instantiate());
  gd::Executable loop = serving::loop_plan(m, st, /*record=*/false).instantiate();
  gd::Executable one = serving::switch_plan(m, st).instantiate();
  const int reps = options().reps(7);
  std::vector<double> dev, sw, known, readback, body;
  int* host_size = nullptr;
  CUDA_CHECK(cudaMallocHost(&host_size, sizeof(int)));
  for (int r = 0; r < reps + 1; ++r) {  // the first round warms up
    sample::Stopwatch t;
    loop.launch(bench.s);
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const double d = t.us() / K;
    const int zero = 0;  // the host loop over the dispatch graph: step 0, the first size, then K launches
    CUDA_CHECK(cudaMemcpyAsync(st.step, &zero, sizeof(int), cudaMemcpyHostToDevice, bench.s));
    CUDA_CHECK(cudaMemcpyAsync(st.size, st.sizes, sizeof(int), cudaMemcpyDeviceToDevice, bench.s));
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    t.restart();
    for (int i = 0; i < K; ++i) one.launch(bench.s);
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const double w = t.us() / K;
    if (r == 0) {  // the dispatch graph advanced through all K sizes
      int steps = 0;
      CUDA_CHECK(cudaMemcpy(&steps, st.step, sizeof(int), cudaMemcpyDeviceToHost));
      bench.expect(steps == K, fmt::format("S6 layers={}: the dispatch graph ran {} steps", layers, steps));
    }
    t.restart();
    for (int b : seq) per.at(b).launch(bench.s);
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const double k = t.us() / K;
    t.restart();
    for (int i = 0; i < K; ++i) {  // the size is on the device: read it back, then choose
      CUDA_CHECK(cudaMemcpyAsync(host_size, st.sizes + i, sizeof(int), cudaMemcpyDeviceToHost, bench.s));
      CUDA_CHECK(cudaStreamSynchronize(bench.s));
      per.at(*host_size).launch(bench.s);
    }
    CUDA_CHECK(cudaStreamSynchronize(bench.s));
    const double rb = t.us() / K;
    bench.timer.start(bench.s);
    for (int b : seq) per.at(b).launch(bench.s);
    const double bd = bench.timer.stop_us(bench.s) / K;
    if (r == 0) continue;
    dev.push_back(d);
    sw.push_back(w);
    known.push_back(k);
    readback.push_back(rb);
    body.push_back(bd);
  }
  (void)cudaFreeHost(host_size);
  st.destroy();
  m.destroy();
  return {sample::median(body), sample::median(dev), sample::median(sw), sample::median(known),
          sample::median(readback)};
}

/// The record of every step of the device loop equals the per-size executables' output (2 layers).
void check_loop(Bench& bench, const std::vector<int>& seq) {
  Model m = Model::create(2);
  serving::LoopState st = serving::LoopState::create(seq);
  gd::Executable loop = serving::loop_plan(m, st).instantiate();
  loop.launch(bench.s);
  loop.synchronize(bench.s);
  std::vector<float> log(static_cast<std::size_t>(K) * max_batch * H), ref(static_cast<std::size_t>(max_batch) * H);
  CUDA_CHECK(cudaMemcpy(log.data(), st.log, log.size() * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b : serving::batch_sizes()) {
    gd::Executable e = serving::step_plan(m, b).instantiate();
    e.launch(bench.s);
    e.synchronize(bench.s);
    CUDA_CHECK(cudaMemcpy(ref.data(), m.x, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < K; ++i) {
      if (seq[i] != b) continue;
      const float* got = log.data() + static_cast<std::size_t>(i) * max_batch * H;
      ok = ok && std::equal(got, got + b * H, ref.begin());
    }
  }
  st.destroy();
  m.destroy();
  bench.expect(ok, "S6: the device loop's every step equals the per-size executable of its size");
}

void dispatch_bench(Bench& bench) {
  fmt::print("\nS6 shapes: device dispatch, K = {} steps of changing sizes (us per step, medians of {} rounds)\n"
             "   device = one launch of WHILE {{ dispatch(size) ; next size }}; switch = the host launching a graph of\n"
             "   {{ dispatch(size) ; next size }} K times; host known = the per-size executables launched back to\n"
             "   back (sizes known on the host); host read-back = the size read from the device (copy +\n"
             "   synchronize) before each launch, as when the device decides it; body = device time per step\n",
             K, options().reps(7));
  fmt::print("{:>6} {:>8} | {:>9} {:>9} {:>10} {:>13} | {:>12} {:>10}\n", "layers", "body us", "device", "switch",
             "host known", "host readback", "readback/dev", "known/dev");
  const std::vector<int> seq = serving::changing_sizes(K, 5);
  check_loop(bench, seq);
  double crossover = -1;
  for (int layers : {1, 2, 4, 8, 16, 32, 64}) {
    const DispatchRow r = dispatch_row(bench, layers, seq);
    const double rb = r.host_readback / r.device, kn = r.host_known / r.device;
    fmt::print("{:6} {:8.1f} | {:9.1f} {:9.1f} {:10.1f} {:13.1f} | {:12.2f} {:10.2f}{}\n", layers, r.body, r.device,
               r.host_switch, r.host_known, r.host_readback, rb, kn,
               r.body < 50 ? (rb >= 2 ? "   >= 2x: met" : "   >= 2x: MISSED") : "");
    if (crossover < 0 && rb < 2) crossover = r.body;
    csv_row({"shapes", "dispatch", layers, K, "device loop", r.device});
    csv_row({"shapes", "dispatch", layers, K, "host loop over dispatch graph", r.host_switch});
    csv_row({"shapes", "dispatch", layers, K, "host known", r.host_known, -1, kn});
    csv_row({"shapes", "dispatch", layers, K, "host readback", r.host_readback, -1, rb});
    csv_row({"shapes", "dispatch", layers, K, "body device us", r.body});
  }
  if (crossover < 0) fmt::print("  crossover: the device loop was >= 2x the read-back host loop at every body size\n");
  else fmt::print("  crossover: below 2x over the read-back host loop from a body of {:.1f} us\n", crossover);
}

}  // namespace
}  // namespace shapes_section

void shapes_bench(Bench& bench) {
  using namespace shapes_section;
  sample::Stopwatch section;
  Model m = Model::create(big_layers);
  const SizesMemory sizes = measure_sizes_memory(m, bench.s);  // first: see SizesMemory
  memory_and_build(bench, m, sizes);
  switch_cost(bench, m);
  replay(bench, m);
  sizes_sweep(bench, m, sizes);
  budget_sweep(bench, m);
  m.destroy();
  dispatch_bench(bench);
  fmt::print("  (shapes took {:.1f} s)\n", section.us() / 1e6);
}

}  // namespace bench
