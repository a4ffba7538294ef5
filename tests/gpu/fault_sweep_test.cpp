// Allocation failures inside the executable's mutating operations (tests/faults/alloc_hook.hpp: the
// k-th allocation of the calling thread fails, for every k until the operation makes no more):
// Executable::set(param), update() (per node and whole graph), set_child, prepare_update,
// update(prepared), prepare_child and set_kernel to a kernel of another signature either complete or
// leave every node launching the old values, never a mix, and the recorded plan as it was;
// reset_graph_memory_high_marks allocates nothing; the kernel setters allocate once per executable
// (their records) and apply the call when that allocation fails. The plan-side sweep is tests/faults.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "alloc_hook.hpp"
#include "gpu_support.hpp"
#include "graphdsl/adopt.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds), where N and Cells would collide with other files'.
namespace fault_sweep_test {

namespace {

constexpr int N = 1024;

struct Cells {
  std::mt19937 gen = rng(97);
  DeviceBuffer<float> x{random_floats(N, gen)};
  std::vector<float> hx = x.download();
  DeviceBuffer<float> top{N}, body{N}, fill{N}, child{N};
  Stream s;
};

/// 'top' top = a*x + 0.5; 'fill' fill = a; 'branch' (if, taken): body = in_body*x; 'sub' (child
/// plan): child = b*x. `a` and `in_body` are floats or a Parameter<float>. Executable::set patches the
/// top-level uses first, so a failure in the body's patch comes after nodes were patched; a
/// per-node update patches the child plan's node last.
template <class A, class Body>
void add_nodes(gd::Graph& g, Cells& c, const A& a, const Body& in_body, float b) {
  g.add_kernel(axpb, gd::cover(N), c.top.get(), c.x.get(), a, 0.5f, N).name("top");
  g.add_memset(c.fill.get(), a, N).name("fill");
  g.add_if(g.add_condition(1), [&](gd::Graph& body) {
     body.add_kernel(axpb, gd::cover(N), c.body.get(), c.x.get(), in_body, 0.0f, N).name("body");
   }).name("branch");
  gd::Graph sub("sub");
  sub.add_kernel(axpb, gd::cover(N), c.child.get(), c.x.get(), b, 0.0f, N).name("scale");
  g.add_child(sub).name("sub");
}

/// Launches `exec`; whether every node computed with `a`, `in_body` and `b` (exact in float).
bool launches(gd::Executable& exec, Cells& c, float a, float in_body, float b) {
  exec.launch(c.s);
  exec.synchronize(c.s);
  const auto top = c.top.download(), body = c.body.download(), fill = c.fill.download(), child = c.child.download();
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    bad += top[i] != a * c.hx[i] + 0.5f;
    bad += body[i] != in_body * c.hx[i];
    bad += fill[i] != a;
    bad += child[i] != b * c.hx[i];
  }
  INFO("expected a = " << a << ", in the body " << in_body << ", b = " << b << ": " << bad << " wrong values");
  CHECK(bad == 0);
  return bad == 0;
}

/// Runs `op` with allocation k failing, k = 1, 2, ...; after each run, `check(threw)` judges the
/// executable (threw: std::bad_alloc, or a CudaError for memory, came out of `op`). Stops when `op`
/// completes without reaching allocation k, or at the first run `check` refuses. Returns the number
/// of allocations failed.
template <class Op, class Check>
std::uint64_t sweep(const char* what, Op op, Check check) {
  for (std::uint64_t k = 1;; ++k) {
    bool cuda_memory = false;  // the CUDA runtime's own allocation failed: refused all the same
    faults::Outcome run = faults::run_failing(k, [&] {
      try {
        op();
      } catch (const gd::CudaError& e) {
        if (e.code() != cudaErrorMemoryAllocation) throw;
        cuda_memory = true;
      }
    });
    INFO(what << ": allocation " << k << " failed");
    CHECK(run.other == "");
    if (!check(run.threw || cuda_memory) || !run.other.empty() || !run.failed) return k - 1;
  }
}

}  // namespace

TEST_CASE("an allocation failure inside Executable::set leaves every node on the old value",
          "[gpu][faults][parameter]") {
  Cells c;
  gd::Graph g("set");
  const auto lr = g.parameter<float>(2.0f).name("lr");
  add_nodes(g, c, lr, lr, 3.0f);
  gd::Executable exec = g.instantiate();
  REQUIRE(launches(exec, c, 2.0f, 2.0f, 3.0f));
  const std::string compiled = exec.plan().dump();
  const std::uint64_t failed = sweep(
      "Executable::set", [&] { (void)exec.set(lr, 0.25f); },
      [&](bool threw) {
        if (!threw) return launches(exec, c, 0.25f, 0.25f, 3.0f);  // completed, a failure absorbed or none
        CHECK(exec.plan().dump() == compiled);
        return launches(exec, c, 2.0f, 2.0f, 3.0f) && exec.plan().dump() == compiled;
      });
  // Every use here takes the setters' direct path, which allocates nothing (failed == 0): then no
  // allocation can fail part way, and the run above checked the completed set. A use that needs
  // its parameters built from the plan (a Condition or GraphBuffer argument) allocates, and each of
  // those allocations was failed in turn above.
  INFO("Executable::set made " << failed << " allocations");
  CHECK(launches(exec, c, 0.25f, 0.25f, 3.0f));
}

TEST_CASE("an allocation failure inside update() leaves every node on the old parameters", "[gpu][faults][update]") {
  Cells c;
  gd::Graph g("update");
  add_nodes(g, c, 2.0f, 1.0f, 3.0f);
  gd::Graph next("update");
  add_nodes(next, c, 0.25f, 1.0f, 1.5f);  // the body as it was: per-node setters can make the change
  for (const gd::UpdatePolicy policy : {gd::UpdatePolicy::per_node, gd::UpdatePolicy::whole_graph}) {
    const std::string what = policy == gd::UpdatePolicy::per_node ? "update(per_node)" : "update(whole_graph)";
    gd::Executable exec = g.instantiate();
    REQUIRE(launches(exec, c, 2.0f, 1.0f, 3.0f));
    const std::string compiled = exec.plan().dump();
    bool updated = false;
    const std::uint64_t failed = sweep(
        what.c_str(),
        [&] {
          updated = false;
          updated = static_cast<bool>(exec.update(next, policy));
        },
        [&](bool threw) {
          // A refusal is a value and changes nothing; an exception must change nothing either.
          if (!threw && updated) return launches(exec, c, 0.25f, 1.0f, 1.5f);
          CHECK(exec.plan().dump() == compiled);
          return launches(exec, c, 2.0f, 1.0f, 3.0f) && exec.plan().dump() == compiled;
        });
    INFO(what);
    CHECK(failed > 0);
    CHECK(updated);
  }
}

TEST_CASE("an allocation failure inside set_child, prepare_update, update(prepared) and prepare_child changes nothing",
          "[gpu][faults][update]") {
  Cells c;
  gd::Graph g("setters");
  add_nodes(g, c, 2.0f, 1.0f, 3.0f);
  gd::Graph next("setters");
  add_nodes(next, c, 0.25f, 1.0f, 1.5f);
  gd::Graph sub("sub");
  sub.add_kernel(axpb, gd::cover(N), c.child.get(), c.x.get(), 1.5f, 0.0f, N).name("scale");
  const auto node = gd::node_cast<gd::ChildNode>(*g.find("sub"));

  // set_child(node, plan): the child plan is copied, checked and materialized, then set.
  {
    gd::Executable exec = g.instantiate();
    REQUIRE(launches(exec, c, 2.0f, 1.0f, 3.0f));
    const std::string compiled = exec.plan().dump();
    const std::uint64_t failed = sweep(
        "set_child", [&] { exec.set_child(node, sub); },
        [&](bool threw) {
          if (!threw) return launches(exec, c, 2.0f, 1.0f, 1.5f);
          CHECK(exec.plan().dump() == compiled);
          return launches(exec, c, 2.0f, 1.0f, 3.0f) && exec.plan().dump() == compiled;
        });
    CHECK(failed > 0);
  }
  // prepare_update changes nothing whatever fails; update(prepared) completes or changes nothing.
  {
    gd::Executable exec = g.instantiate();
    REQUIRE(launches(exec, c, 2.0f, 1.0f, 3.0f));
    const std::string compiled = exec.plan().dump();
    std::optional<gd::PreparedUpdate> prepared;
    const std::uint64_t preparing = sweep(
        "prepare_update", [&] { prepared.emplace(exec.prepare_update(next)); },
        [&](bool threw) {
          CHECK(exec.plan().dump() == compiled);
          const bool same = launches(exec, c, 2.0f, 1.0f, 3.0f);
          if (threw) prepared.reset();
          return same;
        });
    CHECK(preparing > 0);
    REQUIRE(prepared.has_value());
    bool updated = false;
    const std::uint64_t applying = sweep(
        "update(prepared)",
        [&] {
          updated = false;
          updated = static_cast<bool>(exec.update(*prepared));
        },
        [&](bool threw) {
          if (!threw && updated) return launches(exec, c, 0.25f, 1.0f, 1.5f);
          CHECK(exec.plan().dump() == compiled);
          return launches(exec, c, 2.0f, 1.0f, 3.0f) && exec.plan().dump() == compiled;
        });
    INFO("update(prepared) made " << applying << " allocations");
    CHECK(updated);
  }
  // prepare_child, then set_child(node, prepared).
  {
    gd::Executable exec = g.instantiate();
    REQUIRE(launches(exec, c, 2.0f, 1.0f, 3.0f));
    std::optional<gd::PreparedChild> prepared;
    const std::uint64_t preparing = sweep(
        "prepare_child", [&] { prepared.emplace(exec.prepare_child(node, sub)); },
        [&](bool threw) {
          if (threw) prepared.reset();
          return launches(exec, c, 2.0f, 1.0f, 3.0f);
        });
    CHECK(preparing > 0);
    REQUIRE(prepared.has_value());
    const std::uint64_t setting = sweep(
        "set_child(prepared)", [&] { exec.set_child(node, *prepared); },
        [&](bool threw) { return launches(exec, c, 2.0f, 1.0f, threw ? 3.0f : 1.5f); });
    INFO("set_child(prepared) made " << setting << " allocations");
    CHECK(launches(exec, c, 2.0f, 1.0f, 1.5f));
  }
}

}  // namespace fault_sweep_test

namespace fault_sweep_test {

TEST_CASE("an allocation failure inside adopt() throws and leaves nothing behind; the graph adopts afterwards",
          "[gpu][faults][adopt]") {
  Cells c;
  gd::Graph g("adopt me");
  g.add_kernel(axpb, gd::cover(N), c.top.get(), c.x.get(), 2.0f, 0.5f, N).name("top");
  g.add_memset(c.fill.get(), 2.0f, N).name("fill");
  gd::Graph sub("sub");
  sub.add_kernel(axpb, gd::cover(N), c.child.get(), c.x.get(), 3.0f, 0.0f, N).name("scale");
  g.add_child(sub).name("sub").after(*g.find("top"));
  g.add_empty().after(*g.find("fill"), *g.find("sub"));
  gd::Executable exec = g.instantiate();
  const gd::debug::LiveCounts before = gd::debug::live_counts();
  std::size_t nodes = 0;
  const std::uint64_t failed = sweep(
      "adopt", [&] { nodes = gd::adopt(exec.native_graph()).node_count(); },
      [&](bool threw) {
        const gd::debug::LiveCounts now = gd::debug::live_counts();
        CHECK(now.plans == before.plans);
        CHECK(now.host_closures == before.host_closures);
        CHECK(now.native_graphs == before.native_graphs);
        return threw || nodes == 4;
      });
  INFO("adopt made " << failed << " allocations");
  CHECK(failed > 0);
  CHECK(gd::adopt(exec.native_graph()).node_count() == 4);
}

TEST_CASE("an allocation failure inside set_kernel_arg leaves the kernel on its old argument", "[gpu][faults][adopt]") {
  Cells c;
  gd::Graph g("set one argument");
  add_nodes(g, c, 2.0f, 1.0f, 3.0f);
  gd::Executable exec = g.instantiate();
  REQUIRE(launches(exec, c, 2.0f, 1.0f, 3.0f));
  const std::string compiled = exec.plan().dump();
  bool done = false;
  const std::uint64_t failed = sweep(
      "set_kernel_arg",
      [&] {
        done = false;
        exec.set_kernel_arg(*g.find("top"), 2, 0.25f);
        done = true;
      },
      [&](bool threw) {
        if (!threw && done) return true;
        CHECK(exec.plan().dump() == compiled);
        return launches(exec, c, 2.0f, 1.0f, 3.0f);
      });
  INFO("set_kernel_arg made " << failed << " allocations");
  exec.launch(c.s);  // the completed set: 'top' scales by 0.25, 'fill' still sets 2
  exec.synchronize(c.s);
  const std::vector<float> top = c.top.download(), fill = c.fill.download();
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += (top[i] != 0.25f * c.hx[i] + 0.5f) + (fill[i] != 2.0f);
  CHECK(bad == 0);
}

}  // namespace fault_sweep_test

namespace fault_sweep_test {

TEST_CASE("an allocation failure inside set_kernel to another signature leaves the node on its old kernel",
          "[gpu][faults][set_kernel]") {
  Cells c;
  gd::Graph g("switch");
  add_nodes(g, c, 2.0f, 1.0f, 3.0f);
  const auto top = gd::node_cast<gd::KernelNodeOf<decltype(axpb)>>(*g.find("top"));
  gd::Executable exec = g.instantiate();
  REQUIRE(launches(exec, c, 2.0f, 1.0f, 3.0f));
  const std::string compiled = exec.plan().dump();
  std::optional<gd::KernelNodeOf<decltype(rel_fill)>> switched;
  const std::uint64_t failed = sweep(
      "set_kernel to another signature",
      [&] {
        switched.reset();
        switched = exec.set_kernel(top, rel_fill, gd::cover(N), c.top.get(), 7.0f, N);  // top = 7
      },
      [&](bool threw) {
        if (threw || !switched) {
          CHECK(exec.plan().dump() == compiled);
          return launches(exec, c, 2.0f, 1.0f, 3.0f) && exec.plan().dump() == compiled;
        }
        // Completed: 'top' fills 7, the other nodes as before; then back to the compiled kernel, so
        // that the next run starts from the compiled executable again.
        exec.launch(c.s);
        exec.synchronize(c.s);
        const std::vector<float> got = c.top.download();
        int bad = 0;
        for (int i = 0; i < N; ++i) bad += got[i] != 7.0f;
        CHECK(bad == 0);
        (void)exec.set_kernel(*switched, axpb, gd::cover(N), c.top.get(), c.x.get(), 2.0f, 0.5f, N);
        CHECK(exec.plan().dump() == compiled);
        return bad == 0 && launches(exec, c, 2.0f, 1.0f, 3.0f);
      });
  INFO("set_kernel to another signature made " << failed << " allocations");
  CHECK(failed > 0);
  CHECK(switched.has_value());
}

TEST_CASE("reset_graph_memory_high_marks allocates nothing", "[gpu][faults][memory]") {
  Cells c;
  gd::Graph g("reset");
  add_nodes(g, c, 2.0f, 1.0f, 3.0f);
  gd::Executable exec = g.instantiate();
  const std::uint64_t failed = sweep(
      "reset_graph_memory_high_marks", [&] { gd::reset_graph_memory_high_marks(); },
      [&](bool threw) { return !threw; });
  CHECK(failed == 0);
  CHECK(launches(exec, c, 2.0f, 1.0f, 3.0f));
}

TEST_CASE("compiling a one-kernel plan makes at most 2 allocations; a failure in any of them throws and leaves "
          "nothing alive",
          "[gpu][faults][instantiate]") {
  Cells c;
  auto plan = [&c] {
    gd::Graph g("one");
    g.add_kernel(axpb, gd::cover(N), c.top.get(), c.x.get(), 1.5f, 0.5f, N).name("k");
    return g;
  };
  auto run = [&c](gd::Executable& e) {
    e.launch();
    e.synchronize();
    const std::vector<float> got = c.top.download();
    const std::vector<float> hx = c.x.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != 1.5f * hx[i] + 0.5f;
    return bad == 0;
  };
  {
    gd::Graph g = plan();
    (void)plan().instantiate();           // the first compile sets up what a process keeps (its caches)
    faults::arm(std::uint64_t{1} << 40);    // counts this thread's allocations, fails none
    gd::Executable e = std::move(g).instantiate();
    const std::uint64_t made = faults::allocations();
    faults::disarm();
    // The plan is moved in (no copy); what is left: the executable's state and its native node list.
    // An executable used to build and drop an empty plan of its own first (20 allocations), to walk
    // the plan's nested plans with a stack and a hash set twice to learn that it had none (16), to
    // make an error sink, a liveness token, an argument list and an allocation-address list that a
    // plan of one kernel node does not use, and to allocate its order, condition-scope list and
    // per-node bits afresh (9). The thread's kept lists were made by the compile above.
    INFO("instantiate() && made " << made << " allocations");
    CHECK(made <= 2);
    CHECK(run(e));
  }
  const gd::debug::LiveCounts before = gd::debug::live_counts();
  const std::uint64_t failed = sweep(
      "instantiate", [&] { (void)plan().instantiate(); },
      [&](bool) {
        const gd::debug::LiveCounts now = gd::debug::live_counts();
        return now.plans == before.plans && now.native_graphs == before.native_graphs &&
               now.executables == before.executables;
      });
  CHECK(failed > 0);
  gd::Executable e = plan().instantiate();
  CHECK(run(e));
}

TEST_CASE("set_host allocates nothing once a callable of its size has been released, set_child nothing for a plan "
          "it has set before",
          "[gpu][faults][setters][host][child]") {
  std::atomic<int> hits{0};
  Cells c;
  gd::Graph g("setters");
  auto host = g.add_host([&hits] { hits += 1; }).name("cb");
  gd::Graph sub("sub");
  sub.add_kernel(axpb, gd::cover(N), c.child.get(), c.x.get(), 1.5f, 0.0f, N).name("scale");
  auto child = g.add_child(sub).name("sub").after(host);
  gd::Executable exec = g.instantiate();
  exec.set_host(host, [&hits] { hits += 2; });  // the plan g still holds the first callable
  exec.set_host(host, [&hits] { hits += 3; });  // releases the second: its blocks are recycled
  gd::Graph other("sub");
  other.add_kernel(axpb, gd::cover(N), c.child.get(), c.x.get(), 2.5f, 0.0f, N).name("scale");
  exec.set_child(child, other);
  exec.set_child(child, sub);
  faults::arm(std::uint64_t{1} << 40);  // counts this thread's allocations, fails none
  for (int k = 0; k < 10; ++k) exec.set_host(host, [&hits, k] { hits += 100 + k; });
  for (int k = 0; k < 10; ++k) exec.set_child(child, k % 2 == 0 ? other : sub);
  const std::uint64_t made = faults::allocations();
  faults::disarm();
  CHECK(made == 0);
  exec.launch();
  exec.synchronize();
  CHECK(hits == 109);
  const std::vector<float> got = c.child.download();
  const std::vector<float> hx = c.x.download();
  for (int i = 0; i < N; ++i) REQUIRE(got[i] == 1.5f * hx[i]);
}

TEST_CASE("the kernel setters allocate once per executable, for their records; a failure of that allocation still "
          "applies the call",
          "[gpu][faults][setters]") {
  Cells c;
  gd::Graph g("records");
  add_nodes(g, c, 2.0f, 1.0f, 3.0f);
  const auto top = gd::node_cast<gd::KernelNodeOf<decltype(axpb)>>(*g.find("top"));
  auto top_is = [&c](gd::Executable& e, float a) {  // 'top' computes a * x + 0.5
    e.launch(c.s);
    e.synchronize(c.s);
    const std::vector<float> got = c.top.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != a * c.hx[i] + 0.5f;
    INFO("a = " << a << ": " << bad << " wrong values");
    return bad == 0;
  };
  {
    gd::Executable exec = g.instantiate();
    faults::arm(std::uint64_t{1} << 40);  // counts this thread's allocations, fails none
    exec.set_kernel_args(top, c.top.get(), c.x.get(), 4.0f, 0.5f, N);
    const std::uint64_t first = faults::allocations();
    for (int k = 0; k < 10; ++k) {
      exec.set_kernel_args(top, c.top.get(), c.x.get(), k % 2 == 0 ? 5.0f : 4.0f, 0.5f, N);
      exec.set_launch(top, gd::cover(N, k % 2 == 0 ? 128 : 256));
    }
    const std::uint64_t later = faults::allocations() - first;
    faults::disarm();
    CHECK(first == 1);  // the records: one per top-level node
    CHECK(later == 0);
    CHECK(top_is(exec, 4.0f));
  }
  gd::Executable exec = g.instantiate();
  float a = 2.0f;
  const std::uint64_t failed = sweep(
      "set_kernel_args",
      [&] {
        a += 1.0f;
        exec.set_kernel_args(top, c.top.get(), c.x.get(), a, 0.5f, N);
      },
      [&](bool threw) { return !threw && top_is(exec, a); });
  CHECK(failed == 1);
  exec.set_kernel_args(top, c.top.get(), c.x.get(), 9.0f, 0.5f, N);  // the records, made now
  exec.set_kernel_args(top, c.top.get(), c.x.get(), 10.0f, 0.5f, N);
  CHECK(top_is(exec, 10.0f));
}

}  // namespace fault_sweep_test
