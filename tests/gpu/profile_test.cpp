// gd::profile (graphdsl/profile.hpp) on the device: every kernel, memcpy and memset record of a
// plan of more than 1,000 nodes attributed to its plan node (top level, a cloned child plan, a
// child plan moved into its node, a WHILE body, a captured node), a WHILE body node counted once
// per iteration, node times against the launch's event time, and the error without CUPTI.
// Kernels: tests/gpu/kernels.cu (no kernel of its own).
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <graphdsl/profile.hpp>
#include "gpu_support.hpp"

using namespace gpu_test;

namespace profile_gpu_test {
namespace {

constexpr int n = 1024;
constexpr unsigned iterations = 5;  // of the WHILE body

struct Cells {
  DeviceBuffer<float> a{n}, b{n}, c{n};
  DeviceBuffer<unsigned> counter{1};
  Stream s;
};

/// The entry of `path` in p (fails the test when there is none).
const gd::ProfileNode& entry(const gd::Profile& p, const std::string& path) {
  for (const gd::ProfileNode& e : p.nodes) {
    if (e.path == path) return e;
  }
  FAIL("no profile entry '" << path << "'");
  return p.nodes.front();
}

/// What each record-making node ran per launch: path -> executions.
using Expected = std::map<std::string, std::uint64_t>;

/// `chain` top-level nodes (kernel, memset, memcpy in turn, each after the one before), then a
/// captured node (a memset and a copy captured), a child plan 'sub' (cloned into its node), a
/// child plan 'psub' with a parameter of its own (moved into its node) and a WHILE 'loop' whose
/// body ('step', 'body_scale') runs `iterations` times.
gd::Graph big_plan(Cells& c, int chain, Expected& want) {
  gd::Graph g("big");
  gd::Node last;
  for (int k = 0; k < chain; ++k) {
    const std::string name = "n" + std::to_string(k);
    auto chained = [&](auto node) {
      if (k > 0) node.after(last);
      last = node;
    };
    if (k % 3 == 0) chained(g.add_kernel(scale_by, gd::cover(n), c.a.get(), 1.0f, n).name(name));
    if (k % 3 == 1) chained(g.add_memset(c.b.get(), 0.5f, n).name(name));
    if (k % 3 == 2) chained(g.add_memcpy(c.c.get(), static_cast<const float*>(c.b.get()), n).name(name));
    want[name] = 1;
  }
  float* a = c.a.get();
  float* b = c.b.get();
  auto cap = g.add_captured([a, b](cudaStream_t s) {
                (void)cudaMemsetAsync(b, 0, n * sizeof(float), s);
                (void)cudaMemcpyAsync(a, b, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
              })
                 .name("captured")
                 .after(last);
  want["captured"] = 2;
  gd::Graph sub("sub");
  auto k1 = sub.add_kernel(scale_by, gd::cover(n), c.a.get(), 1.0f, n).name("k");
  auto m1 = sub.add_memset(c.b.get(), 0.25f, n).name("m").after(k1);
  sub.add_memcpy(c.c.get(), static_cast<const float*>(c.b.get()), n).name("cp").after(m1);
  auto sub_node = g.add_child(sub).name("sub").after(cap);
  want["sub/k"] = want["sub/m"] = want["sub/cp"] = 1;
  gd::Graph psub("psub");
  auto factor = psub.parameter<float>(1.0f).name("factor");
  psub.add_kernel(scale_by, gd::cover(n), c.c.get(), factor, n).name("pk");
  auto psub_node = g.add_child(psub).name("psub").after(sub_node);
  want["psub/pk"] = 1;
  const auto more = g.add_condition(1);
  auto reset = g.add_memset(c.counter.get(), 0u, 1).name("reset").after(psub_node);
  want["reset"] = 1;
  g.add_while(
       more,
       [&](gd::Graph& body) {
         auto step = body.add_kernel(step_and_check, gd::Launch{1, 1}, c.counter.get(), iterations, more).name("step");
         body.add_kernel(scale_by, gd::cover(n), c.a.get(), 1.0f, n).name("body_scale").after(step);
       })
      .name("loop")
      .after(reset);
  want["loop[0]/step"] = want["loop[0]/body_scale"] = iterations;
  return g;
}

/// graphdsl attached to CUPTI (profiler_attach) for one test case, before its executables are
/// compiled, so that their own node ids are recorded; detached at the end of the case, so that the
/// rest of the suite compiles unobserved. Without CUPTI it says so (`ok` false: Catch2 v2 has no
/// SKIP, and the case then checks nothing).
struct Attached {
  bool ok = gd::profiler_available();
  Attached() {
    if (ok) {
      gd::profiler_attach();
    } else {
      WARN("skipped: CUPTI is not available (GRAPHDSL_CUPTI_PATH, libcupti.so.13)");
    }
  }
  ~Attached() { gd::profiler_detach(); }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;
};

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (std::uint64_t x : v) s += x;
  return s;
}

}  // namespace

TEST_CASE("profile attributes every record of a 1,000-node plan to its plan node, nested ones included",
          "[gpu][profile]") {
  const Attached attached;
  if (!attached.ok) return;
  Cells c;
  Expected want;
  gd::Graph g = big_plan(c, 994, want);
  gd::Executable exec = g.instantiate();
  exec.launch(c.s);  // the first launch uploads: keep it out of the profile
  exec.synchronize(c.s);
  const int launches = 3;
  const gd::Profile p = gd::profile(exec, c.s, launches);
  INFO(gd::to_table(p).substr(0, 4000));
  for (const std::string& note : p.notes) UNSCOPED_INFO("note: " << note);
  CHECK(p.nodes.size() >= 1000);
  CHECK(p.unattributed == 0);
  std::uint64_t expected_records = 0;
  for (const auto& [path, runs] : want) {
    INFO(path);
    CHECK(entry(p, path).count == runs * launches);
    expected_records += runs * launches;
  }
  std::uint64_t attributed = 0;
  for (const gd::ProfileRecord& r : p.records) attributed += r.node >= 0 ? 1 : 0;
  CHECK(attributed == expected_records);
  CHECK(p.records.size() == expected_records);
  // Each kind of record went to a node of that kind. CUPTI may report a memset or memcpy node as a
  // kernel (its "instrumentation" mode names the driver's kernel, e.g. memset32: NVIDIA's forum
  // reports it for memset nodes of conditional bodies), never a kernel node as a copy.
  std::uint64_t as_kernels = 0;
  for (const gd::ProfileRecord& r : p.records) {
    if (r.node < 0) continue;
    const gd::NodeKind k = p.nodes[static_cast<std::size_t>(r.node)].kind;
    INFO(p.nodes[static_cast<std::size_t>(r.node)].path << ": " << gd::to_string(r.work) << " " << r.what);
    if (k == gd::NodeKind::kernel) CHECK(r.work == gd::ProfileWork::kernel);
    if (k == gd::NodeKind::memset) CHECK((r.work == gd::ProfileWork::memset || r.work == gd::ProfileWork::kernel));
    if (k == gd::NodeKind::memcpy) CHECK((r.work == gd::ProfileWork::memcpy || r.work == gd::ProfileWork::kernel));
    as_kernels += k != gd::NodeKind::kernel && r.work == gd::ProfileWork::kernel ? 1 : 0;
  }
  std::printf("profile, 1,000-node plan: %llu memset/memcpy records reported as kernels\n",
              static_cast<unsigned long long>(as_kernels));
  CHECK(entry(p, "loop[0]/step").graph == "while body");
  // The writers take the real profile: the name map lists every node with its graph node id.
  const std::string names = gd::to_name_map(p);
  CHECK(names.find("\"path\":\"loop[0]/body_scale\"") != std::string::npos);
  CHECK(gd::to_chrome_trace(p).find("\"name\":\"sub/cp\"") != std::string::npos);
  // profile_nodes: the same nodes and ids without a launch (what an Nsight Systems user labels with).
  CHECK(gd::to_name_map(gd::profile_nodes(exec)) == names);
  std::printf("profile, 1,000-node plan: %zu records over %d launches, %.1f us in nodes of %.1f us launch time\n",
              p.records.size(), launches, gd::attributed_ns(p) / 1e3, sum(p.launch_ns) / 1e3);
}

TEST_CASE("profile counts a WHILE body node once per iteration", "[gpu][profile][while]") {
  const Attached attached;
  if (!attached.ok) return;
  Cells c;
  for (unsigned k : {1u, 4u, 9u}) {
    gd::Graph g("loop");
    const auto more = g.add_condition(1);
    auto reset = g.add_memset(c.counter.get(), 0u, 1).name("reset");
    g.add_while(more,
                [&](gd::Graph& body) {
                  body.add_kernel(step_and_check, gd::Launch{1, 1}, c.counter.get(), k, more).name("step");
                })
        .name("loop")
        .after(reset);
    gd::Executable exec = g.instantiate();
    const gd::Profile p = gd::profile(exec, c.s, 2);
    INFO(gd::to_table(p));
    CHECK(entry(p, "loop[0]/step").count == 2 * k);
    CHECK(entry(p, "reset").count == 2);
    CHECK(entry(p, "loop").count == 0);
    CHECK(p.unattributed == 0);
  }
}

TEST_CASE("the node times of a chain sum to at most the launch time the events measure", "[gpu][profile]") {
  const Attached attached;
  if (!attached.ok) return;
  Cells c;
  gd::Graph g("chain");
  gd::Node last;
  for (int k = 0; k < 64; ++k) {
    auto node = g.add_kernel(spin_kernel, gd::Launch{1, 1}, 2000ull).name("spin" + std::to_string(k));
    if (k > 0) node.after(last);
    last = node;
  }
  gd::Executable exec = g.instantiate();
  exec.launch(c.s);
  exec.synchronize(c.s);
  const gd::Profile p = gd::profile(exec, c.s, 5);
  REQUIRE(p.launch_ns.size() == 5);
  const std::uint64_t launch = sum(p.launch_ns);
  const std::uint64_t nodes = gd::attributed_ns(p);
  std::printf(
      "profile, 64-kernel chain: node times %.1f us, launch time (cudaEvent) %.1f us over 5 launches: %.1f %%\n",
      nodes / 1e3, launch / 1e3, 100.0 * static_cast<double>(nodes) / static_cast<double>(launch));
  CHECK(nodes > 0);
  CHECK(nodes <= launch + 5 * 1000);  // events resolve about 0.5 us each
  CHECK(nodes >= launch / 4);         // 2 us spins in a 64-node chain: the nodes dominate
}

TEST_CASE("profile refuses an empty executable and fewer than one launch", "[gpu][profile]") {
  Stream s;
  gd::Executable empty;
  CHECK_THROWS_AS(gd::profile(empty, s, 1), gd::UsageError);
  gd::Graph g("one");
  g.add_kernel(spin_kernel, gd::Launch{1, 1}, 0ull).name("k");
  gd::Executable exec = g.instantiate();
  CHECK_THROWS_WITH(gd::profile(exec, s, 0), "graphdsl: profile: launches must be at least 1 (got 0)");
}

// Run by CTest as gpu_profile_unattached, a process of its own where nothing called
// profiler_attach(): whether CUPTI's records name the nodes graphdsl created (then all are
// attributed without attaching) or the executable's clones of them (then profile() says to
// attach). Prints which.
TEST_CASE("without profiler_attach, every record is attributed or the profile says to attach",
          "[.][gpu][profile][profile_unattached]") {
  REQUIRE(gd::profiler_available());
  Cells c;
  Expected want;
  gd::Graph g = big_plan(c, 94, want);
  gd::Executable exec = g.instantiate();
  const gd::Profile p = gd::profile(exec, c.s, 2);
  std::uint64_t attributed = 0;
  for (const gd::ProfileRecord& r : p.records) attributed += r.node >= 0 ? 1 : 0;
  std::printf("profile without profiler_attach: %llu of %zu records attributed (CUPTI names the %s nodes)\n",
              static_cast<unsigned long long>(attributed), p.records.size(),
              p.unattributed == 0 ? "graph's own" : "executable's cloned");
  for (const std::string& note : p.notes) std::printf("  note: %s\n", note.c_str());
  if (p.unattributed != 0) {
    REQUIRE_FALSE(p.notes.empty());
    CHECK(p.notes.front().find("profiler_attach()") != std::string::npos);
  }
}

// Run by CTest as gpu_profile_no_cupti, with GRAPHDSL_CUPTI_PATH naming a file that does not exist
// (CUPTI is loaded once per process: a test process of its own).
TEST_CASE("without CUPTI, profile throws a ProfilerError that says how to get it", "[.][gpu][profile][no_cupti]") {
  const char* path = std::getenv("GRAPHDSL_CUPTI_PATH");
  REQUIRE(path != nullptr);
  CHECK_FALSE(gd::profiler_available());
  Stream s;
  gd::Graph g("one");
  g.add_kernel(spin_kernel, gd::Launch{1, 1}, 0ull).name("k");
  gd::Executable exec = g.instantiate();
  try {
    (void)gd::profile(exec, s, 1);
    FAIL("profile did not throw");
  } catch (const gd::ProfilerError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(e.api() == "dlopen");
    CHECK(e.code() == 0);
    CHECK(what.rfind("graphdsl: CUPTI is not available: loading it failed ('" + std::string(path) + "': ", 0) == 0);
    CHECK(what.find("GRAPHDSL_CUPTI_PATH") != std::string::npos);
  }
  // The executable still launches as before.
  exec.launch(s);
  exec.synchronize(s);
}

}  // namespace profile_gpu_test
