// tests/unit/plan_reliability_test.cpp — handles that outlive
// their plan, bodies shared by copies, deep and self-embedding nesting, and allocation/edge counts
// that made validate() and diff() quadratic. No CUDA call.
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "unit_support.hpp"

using namespace unit;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace plan_reliability_test {

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A plan with one WHILE node whose body holds two kernels; `first`/`second` are the body's handles.
gd::Graph plan_with_body(Buffers& buf, gd::KernelNode<float*, float, int>& first,
                         gd::KernelNode<float*, float, int>& second) {
  gd::Graph g("outer");
  const gd::Condition c = g.add_condition(1);
  g.add_while(c, [&](gd::Graph& body) {
    first = body.add_kernel(scale, gd::Launch{1, 1}, buf.x, 2.0f, 1).name("first");
    second = body.add_kernel(scale, gd::Launch{1, 1}, buf.y, 3.0f, 1).name("second").after(first);
    body.add_set_condition(c, buf.flags, gd::Compare::less, 3).after(second);
  });
  return g;
}

}  // namespace

// ---- conditional bodies shared between copies --------------------------------------------------

TEST_CASE("a handle taken inside a body builder cannot change the plan's copies", "[reliability]") {
  Buffers buf;
  gd::KernelNode<float*, float, int> first, second;
  gd::Graph g = plan_with_body(buf, first, second);
  const gd::Graph snapshot = g;
  snapshot.validate();

  const std::string rename = usage_error_of([&] { first.name("renamed"); });
  CHECK(has(rename, "kernel node 'first' (#0)"));
  CHECK(has(rename, "fixed once its builder returns"));
  CHECK(has(usage_error_of([&] { first.after(second); }), "fixed once its builder returns"));  // would be a cycle
  CHECK(has(usage_error_of([&] { first.on_device(0); }), "fixed once its builder returns"));

  // Reading through the handle still works; neither the copy nor the original changed.
  CHECK(first.name() == "first");
  const gd::Graph body = snapshot.body_plan(gd::ConditionalNode(snapshot.node(0).ref()), 0);
  CHECK(body.node(0).name() == "first");
  CHECK(body.predecessors(body.node(0)).empty());
  CHECK_NOTHROW(snapshot.validate());
  CHECK_NOTHROW(g.validate());
  const gd::UpdateResult same = gd::diff(snapshot, g);
  CHECK(same);
  CHECK(same.changed.empty());

  // A copy taken out of the body (body_plan) is an ordinary plan again.
  gd::Graph copy = g.body_plan(gd::ConditionalNode(g.node(0).ref()), 0);
  CHECK_NOTHROW(copy.node(0).info());
  gd::EmptyNode(copy.node(0).ref()).name("free to rename");
  CHECK(copy.node(0).name() == "free to rename");
}

// ---- handles after their plan is gone ------------------------------------------------------------

TEST_CASE("node handles of a destroyed plan are invalid and refused, never read", "[reliability]") {
  gd::EmptyNode gone;
  {
    gd::Graph g("short-lived");
    gone = g.add_empty().name("e");
    CHECK(gone.valid());
  }
  CHECK_FALSE(gone.valid());
  const std::string use = usage_error_of([&] { (void)gone.name(); });
  CHECK(has(use, "node #0 of graph 'short-lived'"));
  CHECK(has(use, "used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { (void)gone.kind(); }), "used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { (void)gone.info(); }), "used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { gone.name("again"); }), "used after its plan was destroyed"));

  gd::Graph other("other");
  const gd::EmptyNode live = other.add_empty();
  CHECK(has(usage_error_of([&] { live.after(gone); }), "used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { gone.after(live); }), "used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { other.add_edge(gone, live); }), "used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { (void)other.predecessors(gone); }), "used after its plan was destroyed"));
  CHECK(other.edge_count() == 0);
}

TEST_CASE("a dead handle stays dead when a new plan takes its plan's slot in the plan table", "[reliability]") {
  // Handles hold no count: a plan's liveness is its slot in a process-wide table (src/plan/handles.hpp),
  // reused first-in first-out once more than 1,024 slots are free. A handle compares its plan id with
  // the slot's current one; a check of the slot alone would take the new plan for the old one.
  gd::Graph doomed("doomed");
  const gd::EmptyNode gone = doomed.add_empty().name("old");
  const std::uint32_t slot = gone.ref().slot;
  const std::uint64_t gone_id = doomed.id();
  {
    std::vector<gd::Graph> crowd;  // fills the free list behind the doomed plan's slot
    for (int i = 0; i < 2100; ++i) crowd.emplace_back("crowd");
    doomed = gd::Graph("replacement");
  }
  CHECK(has(usage_error_of([&] { (void)gone.name(); }),
            "node #0 of graph 'doomed' (plan id " + std::to_string(gone_id) + ") was used after its plan"));
  std::vector<gd::Graph> alive;
  std::vector<gd::Node> firsts;
  while (firsts.empty() || firsts.back().ref().slot != slot) {
    REQUIRE(alive.size() < 1000000);  // reached after the slots freed before it, at most
    alive.emplace_back("heir").add_empty().name("new");
    firsts.push_back(alive.back().node(0));
  }
  const gd::Node heir = firsts.back();  // node #0 of the plan now in the doomed plan's slot
  CHECK(heir.valid());
  CHECK(heir.name() == "new");
  CHECK_FALSE(gone.valid());
  CHECK(gone != heir);
  CHECK(gone.index() == heir.index());
  const std::string use = usage_error_of([&] { (void)gone.name(); });
  CHECK(has(use, "node #0 of a graph whose name is no longer kept (plan id " + std::to_string(gone_id) +
                     ") was used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { gone.name("renamed"); }), "used after its plan was destroyed"));
  CHECK(has(usage_error_of([&] { alive.back().add_edge(gone, heir); }), "used after its plan was destroyed"));
  CHECK(heir.name() == "new");
  CHECK(alive.back().edge_count() == 0);
}

TEST_CASE("node handles of a plan assigned over or lost in a throwing instantiate() are refused", "[reliability]") {
  gd::Graph g("first");
  const gd::EmptyNode a = g.add_empty();
  g = gd::Graph("second");
  CHECK_FALSE(a.valid());
  CHECK(has(usage_error_of([&] { (void)a.name(); }), "node #0 of graph 'first'"));

  const gd::EmptyNode b = g.add_empty();
  const gd::EmptyNode c = g.add_empty().after(b);
  b.after(c);  // a cycle: instantiate() refuses before any CUDA call
  CHECK(has(usage_error_of([&] { (void)std::move(g).instantiate(); }), "cycle"));
  CHECK_FALSE(b.valid());
  CHECK(has(usage_error_of([&] { (void)c.info(); }), "used after its plan was destroyed"));

  gd::Graph moved_into("moved");
  gd::Graph source("source");
  const gd::EmptyNode d = source.add_empty().name("d");
  moved_into = std::move(source);  // handles follow a moved plan
  CHECK(d.valid());
  CHECK(d.name() == "d");
}

// A builder that throws fails its add_if, which adds no conditional node; what the builder added to
// the enclosing plan through that plan's own add_* calls stays, so that the handles it took still
// name those nodes (undoing them would leave the handles naming the next nodes added there).
TEST_CASE("a builder that throws: no conditional node, and its own additions to the enclosing plan stay named",
          "[reliability]") {
  Buffers buf;
  gd::Graph g("outer");
  const gd::Condition c = g.add_condition(1);
  gd::MemsetNode side;
  REQUIRE_THROWS_AS(g.add_if(c,
                             [&](gd::Graph& body) {
                               side = g.add_memset(buf.x, 1.0f, 4).name("side");
                               body.add_kernel(scale, gd::Launch{1, 1}, buf.y, 3.0f, 1).name("inner");
                               throw std::runtime_error("builder gave up");
                             }),
                    std::runtime_error);
  REQUIRE(g.node_count() == 1);
  CHECK(side.name() == "side");
  CHECK(g.node(0).kind() == gd::NodeKind::memset);
  const gd::MemsetNode later = g.add_memset(buf.y, 2.0f, 4).name("later");
  CHECK(side.name() == "side");  // still the builder's node, not the one added after
  CHECK(later.index() == 1);
  CHECK(g.node_count() == 2);  // the memsets: no conditional node
}

TEST_CASE("a body builder that replaces or destroys the outer plan is refused", "[reliability]") {
  gd::Graph g("outer");
  const gd::EmptyNode before = g.add_empty();
  const gd::Condition c = g.add_condition(1);
  const std::string replaced = usage_error_of([&] {
    g.add_while(c, [&](gd::Graph& body) {
      body.add_empty();
      g = gd::Graph("replacement");
    });
  });
  CHECK(has(replaced, "destroyed, replaced or moved graph 'outer'"));
  CHECK_FALSE(before.valid());
  CHECK(g.name() == "replacement");
  CHECK(g.node_count() == 0);

  gd::Graph h("outer2");
  const gd::Condition c2 = h.add_condition(1);
  gd::Graph thief;
  const std::string moved = usage_error_of([&] { h.add_while(c2, [&](gd::Graph&) { thief = std::move(h); }); });
  CHECK(has(moved, "destroyed, replaced or moved graph 'outer2'"));
}

TEST_CASE("a body moved out of its builder no longer reaches the outer plan", "[reliability]") {
  Buffers buf;
  gd::Graph stolen;
  {
    gd::Graph g("outer");
    const gd::Condition c = g.add_condition(1);
    CHECK(has(usage_error_of([&] { g.add_while(c, [&](gd::Graph& body) { stolen = std::move(body); }); }),
              "moved from inside its builder"));
    stolen.add_set_condition(c, buf.flags, gd::Compare::less, 3);  // resolved now: the link is cut
  }
  stolen.add_set_condition(gd::Condition(12345), buf.flags, gd::Compare::less, 3);  // g is gone: nothing is read
  CHECK(has(usage_error_of([&] { stolen.validate(); }), "a Condition argument is not declared"));
}

TEST_CASE("Conditions and GraphBuffers of a destroyed plan are refused by the plan they are used in", "[reliability]") {
  Buffers buf;
  gd::Condition cond;
  gd::GraphBuffer<float> tmp;
  {
    gd::Graph g;
    cond = g.add_condition(1);
    tmp = g.add_mem_alloc<float>(16).buffer;
  }
  gd::Graph h("user");
  h.add_memset(tmp, 1.0f, 16);
  CHECK(has(usage_error_of([&] { h.validate(); }), "not allocated by graph 'user' or a plan enclosing it"));
  gd::Graph k("user2");
  k.add_while(cond, [&](gd::Graph& body) { body.add_kernel(scale, gd::Launch{1, 1}, buf.x, 1.0f, 1); });
  CHECK(has(usage_error_of([&] { k.validate(); }), "its Condition is not declared"));
}

// ---- nesting depth and self-embedding ----------------------------------------------------------

TEST_CASE("child plans nest at most max_nesting_depth levels, with a UsageError beyond", "[reliability]") {
  gd::Graph inner("leaf");
  inner.add_empty();
  std::size_t levels = 0;
  std::string error;
  for (; levels < 2 * gd::max_nesting_depth && error.empty(); ++levels) {
    gd::Graph outer(std::to_string(levels));
    error = usage_error_of([&] {
      outer.add_child(inner).name("c");
      outer.add_empty();
    });
    if (error == "<no exception>") {
      error.clear();
      inner = std::move(outer);
    }
  }
  CHECK(levels == gd::max_nesting_depth + 1);  // the failing call is the last one counted
  CHECK(has(error, "nest at most 64 levels"));
  // The deepest plan accepted works with every walk.
  CHECK_NOTHROW(inner.validate());
  CHECK(!inner.dump().empty());
  CHECK(!inner.to_dot().empty());
  CHECK(inner.fingerprint() == gd::Graph(inner).fingerprint());
  CHECK(inner.storage_bytes() > 0);
  CHECK(gd::diff(inner, gd::Graph(inner)));
}

TEST_CASE("conditional bodies count towards the nesting limit", "[reliability]") {
  gd::Graph g("top");
  std::function<void(gd::Graph&, unsigned)> nest = [&](gd::Graph& plan, unsigned left) {
    plan.add_empty();
    if (left == 0) return;
    const gd::Condition c = plan.add_condition(0);
    plan.add_if(c, [&](gd::Graph& body) { nest(body, left - 1); });
  };
  CHECK_NOTHROW(nest(g, gd::max_nesting_depth));
  CHECK_NOTHROW(g.validate());
  gd::Graph deeper("top");
  CHECK(has(usage_error_of([&] { nest(deeper, gd::max_nesting_depth + 1); }), "nest at most"));
}

TEST_CASE("a plan embedding copies of itself is refused before it explodes", "[reliability]") {
  gd::Graph g("self");
  g.add_empty();
  int accepted = 0;
  std::string error;
  for (int k = 0; k < 30 && error.empty(); ++k) {
    error = usage_error_of([&] { g.add_child(g); });
    if (error == "<no exception>") {
      error.clear();
      ++accepted;
    }
  }
  CHECK(accepted < 30);
  CHECK(has(error, "add_child: graph 'self' would hold more than 16777216 nodes"));
  CHECK(g.node_count() == static_cast<std::size_t>(accepted) + 1);  // the refused call added nothing

  gd::Graph small("small");
  small.add_empty();
  for (int k = 0; k < 12; ++k) small.add_child(small);  // 2^12 nodes when expanded: every walk finishes
  CHECK_NOTHROW(small.validate());
  CHECK(small.fingerprint() == gd::Graph(small).fingerprint());
  CHECK(gd::diff(small, gd::Graph(small)));
  CHECK(small.storage_bytes() > 0);
}

// ---- many allocations, many reordered edges -----------------------------------------------------

TEST_CASE("validate() checks 8,000 graph allocations, and still finds a misordered use", "[reliability]") {
  constexpr int count = 8000;
  gd::Graph g("allocs");
  for (int k = 0; k < count; ++k) {
    auto [alloc, buffer] = g.add_mem_alloc<float>(4);
    auto use = g.add_memset(buffer, 1.0f, 4).after(alloc);
    g.add_mem_free(buffer).after(use);
  }
  CHECK_NOTHROW(g.validate());
  gd::Graph bad = g;
  auto [alloc, buffer] = bad.add_mem_alloc<float>(4);
  bad.add_memset(buffer, 1.0f, 4).name("unordered");  // not after its allocation
  bad.add_mem_free(buffer).after(alloc);
  CHECK(has(usage_error_of([&] { bad.validate(); }), "memset node 'unordered' (#24001) uses the buffer of"));
  gd::Graph late = g;
  auto [alloc2, buffer2] = late.add_mem_alloc<float>(4);
  const auto free2 = late.add_mem_free(buffer2).after(alloc2);
  late.add_memset(buffer2, 1.0f, 4).name("after free").after(alloc2, free2);
  CHECK(has(usage_error_of([&] { late.validate(); }), "is not ordered before its free"));
}

TEST_CASE("diff() sees the same edges added in another order as equal, at scale", "[reliability]") {
  constexpr std::uint32_t fan = 20000;
  gd::Graph a("a"), b("b");
  std::vector<gd::Node> na, nb;
  for (std::uint32_t k = 0; k < fan; ++k) {
    na.push_back(a.add_empty());
    nb.push_back(b.add_empty());
  }
  const gd::EmptyNode ja = a.add_empty().after(na);
  std::vector<gd::Node> reversed(nb.rbegin(), nb.rend());
  const gd::EmptyNode jb = b.add_empty().after(reversed);
  const gd::UpdateResult same = gd::diff(a, b);
  CHECK(same);
  CHECK(same.changed.empty());
  gd::Graph c = b;
  c.add_edge(c.node(1), c.node(0));  // one extra edge elsewhere
  CHECK_FALSE(gd::diff(a, c));
  (void)ja;
  (void)jb;
}

}  // namespace plan_reliability_test
