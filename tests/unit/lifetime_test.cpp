// Value semantics and lifetimes: moved-from Graph and Executable, copies as new plans, handles
// across moves, and host closures owned by plans (debug::live_counts()).
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)
#include "unit_support.hpp"

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace lifetime_test {

namespace {

std::vector<std::uint32_t> indices(const std::vector<gd::Node>& nodes) {
  std::vector<std::uint32_t> out;
  for (const auto& n : nodes) out.push_back(n.index());
  return out;
}

/// A move-only callable that counts how many of its instances are alive.
struct MoveOnlyTask {
  static int alive;
  std::unique_ptr<int> payload;
  explicit MoveOnlyTask(int v) : payload(std::make_unique<int>(v)) { ++alive; }
  MoveOnlyTask(MoveOnlyTask&& o) noexcept : payload(std::move(o.payload)) { ++alive; }
  MoveOnlyTask& operator=(MoveOnlyTask&&) = delete;
  MoveOnlyTask(const MoveOnlyTask&) = delete;
  ~MoveOnlyTask() { --alive; }
  void operator()() { ++*payload; }
};
int MoveOnlyTask::alive = 0;

}  // namespace

// ---- moved-from Graph --------------------------------------------------------------------------

TEST_CASE("every use of a moved-from Graph is a UsageError without a CUDA call", "[graph][lifetime][errors]") {
  gd::Graph g("src");
  unit::Buffers b;
  auto a = g.add_empty().name("a");
  auto k = g.add_kernel(unit::scale, gd::Launch{}, b.x, 1.0f, 4).after(a);
  auto c = g.add_child(gd::Graph("sub"));
  gd::Graph h = std::move(g);
  const auto closures = gd::debug::live_counts().host_closures;

  const char* msg = "graphdsl: use of a moved-from Graph";
  CHECK_USAGE_ERROR(g.name(), msg);
  CHECK_USAGE_ERROR(g.id(), msg);
  CHECK_USAGE_ERROR(g.node_count(), msg);
  CHECK_USAGE_ERROR(g.edge_count(), msg);
  CHECK_USAGE_ERROR(g.node(0), msg);
  CHECK_USAGE_ERROR(g.nodes(), msg);
  CHECK_USAGE_ERROR(g.find("a"), msg);
  CHECK_USAGE_ERROR(g.edges(), msg);
  CHECK_USAGE_ERROR(g.predecessors(k), msg);
  CHECK_USAGE_ERROR(g.successors(a), msg);
  CHECK_USAGE_ERROR(g.launch_of(k), msg);
  CHECK_USAGE_ERROR(g.child_plan(c), msg);
  CHECK_USAGE_ERROR(g.add_empty(), msg);
  CHECK_USAGE_ERROR(g.add_kernel(unit::scale, gd::Launch{}, b.x, 1.0f, 4), msg);
  CHECK_USAGE_ERROR(g.add_memset(b.flags, 0, 4), msg);
  CHECK_USAGE_ERROR(g.add_memcpy(b.x, b.y, 4), msg);
  CHECK_USAGE_ERROR(g.add_host([] {}), msg);
  CHECK_USAGE_ERROR(g.add_child(h), msg);
  CHECK_USAGE_ERROR(h.add_child(g), msg);
  CHECK_USAGE_ERROR(g.add_event_wait(gd::Event{}), msg);
  CHECK_USAGE_ERROR(g.add_edge(a, k), msg);
  CHECK_USAGE_ERROR(g.validate(), msg);
  CHECK_USAGE_ERROR(g.instantiate(), msg);
  CHECK_USAGE_ERROR(g.dump(), msg);
  CHECK_USAGE_ERROR(g.to_dot(), msg);
  CHECK_USAGE_ERROR(g.storage_bytes(), msg);
  CHECK_USAGE_ERROR(g.reserve(16), msg);
  CHECK_USAGE_ERROR(g.impl(), msg);
  CHECK_USAGE_ERROR(fmt::format("{}", g), msg);
  CHECK_USAGE_ERROR(gd::Graph(g), msg);
  // The rejected add_host did not leak its closure.
  CHECK(gd::debug::live_counts().host_closures == closures);
  // h is untouched by all of the above.
  CHECK(h.node_count() == 3);
  CHECK(h.edge_count() == 1);
}

TEST_CASE("handles keep referring to the plan after it moves to another Graph", "[graph][lifetime]") {
  gd::Graph g("plan");
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b").after(a);
  const auto id = g.id();

  SECTION("move construction") {
    gd::Graph h = std::move(g);
    CHECK(h.id() == id);
    CHECK(a.name() == "a");
    CHECK(b.info().graph == "plan");
    CHECK(indices(h.predecessors(b)) == std::vector<std::uint32_t>{0});
    auto c = h.add_empty().after(b);  // mixing old and new handles
    b.name("renamed");
    CHECK(h.find("renamed") == std::optional<gd::Node>(b));
    CHECK(h.node(0) == a);
    CHECK(indices(h.successors(b)) == std::vector<std::uint32_t>{c.index()});
  }
  SECTION("move assignment") {
    gd::Graph h("other");
    h = std::move(g);
    CHECK(h.id() == id);
    CHECK(h.name() == "plan");
    CHECK(indices(h.predecessors(b)) == std::vector<std::uint32_t>{0});
    h.add_edge(a, h.add_empty());
    CHECK(h.edge_count() == 2);
  }
  SECTION("inside a std::vector that reallocates") {
    std::vector<gd::Graph> plans;
    plans.push_back(std::move(g));
    for (int i = 0; i < 64; ++i) plans.emplace_back("filler");
    CHECK(plans[0].id() == id);
    CHECK(indices(plans[0].predecessors(b)) == std::vector<std::uint32_t>{0});
    CHECK(a.name() == "a");
  }
}

// Node handles hold no count: copying and dropping one is a copy of 16 bytes, no atomic operation.
static_assert(std::is_trivially_copyable_v<gd::Node> && sizeof(gd::Node) == 16);
static_assert(std::is_trivially_copyable_v<gd::EmptyNode> && std::is_trivially_destructible_v<gd::EmptyNode>);
static_assert(std::is_trivially_copyable_v<gd::KernelNode<float*, float, int>>);

TEST_CASE("node handles share nothing with their plan: making and copying them leaves its token's count",
          "[graph][lifetime]") {
  unit::Buffers b;
  gd::Graph g("chain");
  const long base = g.impl().token.use_count();  // the plan (and its Parameters, none here)
  gd::Node prev = g.add_kernel(unit::scale, gd::Launch{}, b.x, 1.0f, 0);
  for (int i = 1; i < 4; ++i) {
    gd::Node next = g.add_kernel(unit::scale, gd::Launch{}, b.x, 1.0f, i);
    g.add_edge(prev, next);
    prev = next;
    CHECK(prev.index() == static_cast<std::uint32_t>(i));
  }
  const std::vector<gd::Node> all = g.nodes();
  CHECK(g.impl().token.use_count() == base);
  gd::Graph other("other");
  gd::Node elsewhere = other.add_empty();
  prev = elsewhere;
  CHECK(prev == elsewhere);
  CHECK(prev != all.back());
  CHECK(g.node_count() == 4);
  CHECK(g.edge_count() == 3);
  CHECK(indices(g.predecessors(all[3])) == std::vector<std::uint32_t>{2});
}

TEST_CASE("a moved-from Graph can be assigned a new plan", "[graph][lifetime]") {
  gd::Graph g("one");
  g.add_empty();
  gd::Graph h = std::move(g);
  g = gd::Graph("two");
  CHECK(g.name() == "two");
  CHECK(g.node_count() == 0);
  g = h;  // copy assignment into it works too
  CHECK(g.node_count() == 1);
  CHECK(g.id() != h.id());
}

// ---- copies ------------------------------------------------------------------------------------

TEST_CASE("a copy of a Graph is a new plan with a new id and the same content", "[graph][lifetime][copy]") {
  gd::Graph g("plan");
  unit::Buffers b;
  auto a = g.add_memcpy(b.x, b.host_in, 8).name("a");
  auto k = g.add_kernel(unit::scale, gd::Launch{dim3(2), dim3(64)}, b.x, 2.0f, 8).name("k").after(a);
  g.add_empty().after(a, k);

  gd::Graph copy = g;
  CHECK(copy.id() != g.id());
  CHECK(copy.name() == g.name());
  CHECK(copy.node_count() == 3);
  CHECK(copy.edge_count() == 3);
  CHECK(copy.dump() == g.dump());
  CHECK(copy.to_dot() == g.to_dot());

  SECTION("changes to the copy do not reach the original") {
    copy.add_empty().after(copy.node(0));
    CHECK(g.node_count() == 3);
    CHECK(g.edge_count() == 3);
  }
  SECTION("copy assignment also makes a new plan") {
    gd::Graph other("other");
    const auto other_id = other.id();
    other = g;
    CHECK(other.id() != g.id());
    CHECK(other.id() != other_id);
    CHECK(other.name() == "plan");
  }
  SECTION("the copy's handles are not the original's") {
    CHECK(copy.node(0) != a);
    CHECK(copy.node(0).name() == "a");
    CHECK(copy.find("k") != std::optional<gd::Node>(k));
  }
}

TEST_CASE("handles of the original used with a copy are a UsageError naming both plans",
          "[graph][lifetime][copy][errors]") {
  gd::Graph g("plan");
  auto a = g.add_empty().name("a");
  auto k = g.add_kernel(unit::no_args, gd::Launch{}).after(a);
  gd::Graph copy = g;
  const char* hint =
      "; a handle refers only to the plan that made it, not to its copies: look the node up in the "
      "plan you use (Graph::find or Graph::node)";
  const std::string expected_a = fmt::format(
      "graphdsl: empty node 'a' (#0) belongs to graph 'plan' (plan id {}), not to a copy of it (plan id {}){}", g.id(),
      copy.id(), hint);
  const std::string expected_k =
      fmt::format("graphdsl: kernel node #1 belongs to graph 'plan' (plan id {}), not to a copy of it (plan id {}){}",
                  g.id(), copy.id(), hint);
  CHECK_USAGE_ERROR(copy.predecessors(k), expected_k);
  CHECK_USAGE_ERROR(copy.successors(a), expected_a);
  CHECK_USAGE_ERROR(copy.launch_of(k), expected_k);
  CHECK_USAGE_ERROR(copy.add_edge(a, copy.node(1)), expected_a);
  // after() with one handle of each plan: the edge message names both plans
  CHECK_USAGE_ERROR(
      copy.add_empty().after(a),
      fmt::format("graphdsl: edge 'a' -> #2: empty node 'a' (#0) belongs to graph 'plan' (plan id {}) but "
                  "empty node #2 belongs to a copy of it (plan id {}); an edge must join two nodes of the "
                  "same graph{}",
                  g.id(), copy.id(), hint));
  CHECK(copy.edge_count() == 1);
  // the other way round: a handle of the copy used with the original
  auto c0 = copy.node(0);
  CHECK_USAGE_ERROR(g.successors(c0),
                    fmt::format("graphdsl: empty node 'a' (#0) belongs to graph 'plan' (plan id {}), not to graph "
                                "'plan' (plan id {}), the plan it is a copy of{}",
                                copy.id(), g.id(), hint));
}

// ---- Executable --------------------------------------------------------------------------------

TEST_CASE("every use of an empty or moved-from Executable is a UsageError without a CUDA call",
          "[executable][lifetime][errors]") {
  gd::Graph g;
  auto n = g.add_empty();
  gd::Executable empty;
  CHECK_FALSE(empty);
  gd::Executable moved_to = std::move(empty);
  CHECK_FALSE(moved_to);

  for (gd::Executable* e : {&empty, &moved_to}) {
    const char* msg = "graphdsl: use of an empty or moved-from Executable";
    CHECK_USAGE_ERROR(e->launch(), msg);
    CHECK_USAGE_ERROR(e->launch(nullptr), msg);
    CHECK_USAGE_ERROR(e->upload(), msg);
    CHECK_USAGE_ERROR(e->synchronize(), msg);
    CHECK_USAGE_ERROR(e->rethrow_host_error(), msg);
    CHECK_USAGE_ERROR(e->has_host_error(), msg);
    CHECK_USAGE_ERROR(e->plan(), msg);
    CHECK_USAGE_ERROR(e->flags(), msg);
    CHECK_USAGE_ERROR(e->native_handle(), msg);
    CHECK_USAGE_ERROR(e->native_graph(), msg);
    CHECK_USAGE_ERROR(e->native_node(n), msg);
    CHECK_USAGE_ERROR(e->device_graph(), msg);
  }
  const auto calls = gd::debug::cuda_calls();
  const auto live = gd::debug::live_counts();
  {
    gd::Executable a;
    gd::Executable b;
    b = std::move(a);
  }  // destroying empty executables makes no CUDA call
  CHECK(gd::debug::cuda_calls() == calls);
  CHECK(gd::debug::live_counts().executables == live.executables);
}

// ---- host closures -----------------------------------------------------------------------------

TEST_CASE("a plan owns its host closures; copies share them", "[host][lifetime]") {
  const auto base = gd::debug::live_counts();
  std::weak_ptr<int> witness;
  {
    gd::Graph g("owner");
    {
      auto state = std::make_shared<int>(41);
      witness = state;
      g.add_host([state] { ++*state; }).name("bump");
    }
    CHECK_FALSE(witness.expired());  // only the plan holds it now
    CHECK(witness.use_count() == 1);
    CHECK(*witness.lock() == 41);  // never called while building
    CHECK(gd::debug::live_counts().host_closures == base.host_closures + 1);
    CHECK(gd::debug::live_counts().plans == base.plans + 1);

    {
      gd::Graph copy = g;
      CHECK(gd::debug::live_counts().plans == base.plans + 2);
      CHECK(gd::debug::live_counts().host_closures == base.host_closures + 1);  // shared, not cloned
      CHECK(copy.impl().hosts.at(0) == g.impl().hosts.at(0));
      g = gd::Graph("replacement");    // the original plan is gone...
      CHECK_FALSE(witness.expired());  // ...the copy keeps the closure
      CHECK(gd::debug::live_counts().plans == base.plans + 2);
    }
    CHECK(witness.expired());
    CHECK(gd::debug::live_counts().host_closures == base.host_closures);
  }
  const auto after = gd::debug::live_counts();
  CHECK(after.plans == base.plans);
  CHECK(after.host_closures == base.host_closures);
  CHECK(after.native_graphs == base.native_graphs);
  CHECK(after.executables == base.executables);
  CHECK(after.events == base.events);
}

TEST_CASE("host closures survive moves of their plan and live in child plans", "[host][lifetime][child]") {
  const auto base = gd::debug::live_counts();
  std::weak_ptr<int> witness;
  {
    gd::Graph parent("parent");
    {
      gd::Graph body("body");
      auto state = std::make_shared<int>(0);
      witness = state;
      body.add_host([state] { ++*state; });
      gd::Graph moved = std::move(body);
      parent.add_child(moved);  // a copy of `moved` (sharing the closure)
      CHECK(gd::debug::live_counts().host_closures == base.host_closures + 1);
    }
    CHECK_FALSE(witness.expired());  // the child copy inside `parent` holds it
    {
      gd::Graph inner = parent.child_plan(gd::ChildNode(parent.node(0).ref()));
      CHECK(inner.node_count() == 1);
      CHECK(inner.node(0).kind() == gd::NodeKind::host);
      CHECK(gd::debug::live_counts().plans == base.plans + 3);  // parent, its child, the returned copy
    }
    CHECK(gd::debug::live_counts().plans == base.plans + 2);
  }
  CHECK(witness.expired());
  CHECK(gd::debug::live_counts().plans == base.plans);
  CHECK(gd::debug::live_counts().host_closures == base.host_closures);
}

TEST_CASE("add_host accepts move-only callables and stores one instance", "[host][lifetime]") {
  const auto base = gd::debug::live_counts();
  REQUIRE(MoveOnlyTask::alive == 0);
  {
    gd::Graph g;
    auto owned = std::make_unique<int>(5);
    g.add_host([p = std::move(owned)] { ++*p; });
    g.add_host(MoveOnlyTask(7));
    CHECK(MoveOnlyTask::alive == 1);  // the temporary is gone, the plan's copy remains
    CHECK(gd::debug::live_counts().host_closures == base.host_closures + 2);
    CHECK_NO_CUDA_CALL(g.validate());
    gd::Graph copy = g;  // copying the plan shares the closures, so move-only is fine
    CHECK(MoveOnlyTask::alive == 1);
  }
  CHECK(MoveOnlyTask::alive == 0);
  CHECK(gd::debug::live_counts().host_closures == base.host_closures);
  CHECK(gd::debug::live_counts().plans == base.plans);
}

TEST_CASE("building, copying, printing and validating plans never calls CUDA", "[lifetime]") {
  const auto calls = gd::debug::cuda_calls();
  const auto base = gd::debug::live_counts();
  {
    unit::Buffers b;
    gd::Graph g("all kinds");
    auto up = g.add_memcpy(b.x, b.host_in, 16);
    auto k = g.add_kernel(unit::saxpy, gd::cover(16), b.x, b.y, 1.0f, 16).after(up);
    g.add_memset(b.flags, 0, 16).after(k);
    g.add_host([] {}).after(k);
    g.add_event_record(gd::Event{}).after(k);
    g.add_event_wait(gd::Event{});
    g.add_child(gd::Graph("c")).after(k);
    g.add_empty().after(k);
    gd::Graph copy = g;
    (void)copy.dump();
    (void)copy.to_dot();
    (void)copy.storage_bytes();
    (void)fmt::format("{}", copy);
  }
  CHECK(gd::debug::cuda_calls() == calls);
  const auto after = gd::debug::live_counts();
  CHECK(after.plans == base.plans);
  CHECK(after.host_closures == base.host_closures);
  CHECK(after.events == base.events);
  CHECK(after.native_graphs == base.native_graphs);
}

}  // namespace lifetime_test
