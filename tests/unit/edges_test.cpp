// Dependency edges: after(), before(), Graph::add_edge, set semantics, ordering of the edge queries,
// and the misuses (self edge, empty handle, node of another graph).
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "unit_support.hpp"

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace edges_test {

namespace {

std::vector<std::uint32_t> indices(const std::vector<gd::Node>& nodes) {
  std::vector<std::uint32_t> out;
  for (const auto& n : nodes) out.push_back(n.index());
  return out;
}

using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

Pairs edge_pairs(const gd::Graph& g) {
  Pairs out;
  for (const auto& e : g.edges()) out.emplace_back(e.from.index(), e.to.index());
  return out;
}

}  // namespace

TEST_CASE("after() adds an edge from each predecessor to the node", "[graph][edges]") {
  gd::Graph g;
  auto a = g.add_empty();
  auto b = g.add_empty();
  auto c = g.add_empty().after(a, b);
  CHECK(g.edge_count() == 2);
  CHECK(edge_pairs(g) == Pairs{{0, 2}, {1, 2}});
  CHECK(indices(g.predecessors(c)) == std::vector<std::uint32_t>{0, 1});
  CHECK(indices(g.successors(a)) == std::vector<std::uint32_t>{2});
}

TEST_CASE("before() adds an edge from the node to each successor", "[graph][edges]") {
  gd::Graph g;
  auto a = g.add_empty();
  auto b = g.add_empty();
  auto c = g.add_empty();
  a.before(b, c);
  CHECK(g.edge_count() == 2);
  CHECK(edge_pairs(g) == Pairs{{0, 1}, {0, 2}});
  CHECK(indices(g.predecessors(b)) == std::vector<std::uint32_t>{0});
  CHECK(indices(g.predecessors(c)) == std::vector<std::uint32_t>{0});
}

TEST_CASE("Graph::add_edge(from, to) makes `to` run after `from`", "[graph][edges]") {
  gd::Graph g;
  auto a = g.add_empty();
  auto b = g.add_empty();
  g.add_edge(b, a);
  CHECK(g.edge_count() == 1);
  CHECK(edge_pairs(g) == Pairs{{1, 0}});
  CHECK(indices(g.predecessors(a)) == std::vector<std::uint32_t>{1});
  CHECK(g.predecessors(b).empty());
}

TEST_CASE("after() and before() return the typed handle so calls chain", "[graph][edges]") {
  gd::Graph g;
  unit::Buffers buf;
  auto up = g.add_empty();
  auto k = g.add_kernel(unit::scale, gd::Launch{}, buf.x, 2.0f, 256).after(up).name("scale").before(g.add_empty());
  STATIC_REQUIRE(std::is_same_v<decltype(k), gd::KernelNode<float*, float, int>>);
  CHECK(k.name() == "scale");
  CHECK(g.edge_count() == 2);
  CHECK(edge_pairs(g) == Pairs{{0, 1}, {1, 2}});
}

TEST_CASE("edges have set semantics: a repeated edge is stored once", "[graph][edges]") {
  gd::Graph g;
  auto a = g.add_empty();
  auto b = g.add_empty();

  SECTION("after(a, a)") {
    b.after(a, a);
  }
  SECTION("after(a) twice") {
    b.after(a);
    b.after(a);
  }
  SECTION("after(), before() and add_edge for the same pair") {
    b.after(a);
    a.before(b);
    g.add_edge(a, b);
  }
  SECTION("a range holding the same node twice") {
    b.after(std::vector<gd::Node>{a, a});
  }
  CHECK(g.edge_count() == 1);
  CHECK(edge_pairs(g) == Pairs{{0, 1}});
  CHECK(g.predecessors(b).size() == 1);
  CHECK(g.successors(a).size() == 1);
}

TEST_CASE("edges in both directions are two edges (the cycle is reported by validate)", "[graph][edges]") {
  gd::Graph g;
  auto a = g.add_empty();
  auto b = g.add_empty().after(a);
  a.after(b);
  CHECK(g.edge_count() == 2);
  CHECK(edge_pairs(g) == Pairs{{0, 1}, {1, 0}});
}

TEST_CASE("edges() are sorted by (from, to) whatever the order they were added in", "[graph][edges]") {
  gd::Graph g;
  std::vector<gd::EmptyNode> n;
  for (int i = 0; i < 5; ++i) n.push_back(g.add_empty());
  n[4].after(n[2]);
  n[1].after(n[0]);
  n[3].after(n[2]);
  n[4].after(n[0]);
  n[3].after(n[1]);
  n[2].after(n[0]);
  CHECK(g.edge_count() == 6);
  CHECK(edge_pairs(g) == Pairs{{0, 1}, {0, 2}, {0, 4}, {1, 3}, {2, 3}, {2, 4}});
  for (const auto& e : g.edges()) {
    CHECK(e.from.valid());
    CHECK(e.to.valid());
  }
}

TEST_CASE("predecessors() lists the edges in insertion order, successors() in index order", "[graph][edges]") {
  gd::Graph g;
  auto a = g.add_empty();  // #0
  auto b = g.add_empty();  // #1
  auto c = g.add_empty();  // #2
  auto d = g.add_empty();  // #3
  auto e = g.add_empty();  // #4
  e.after(c);
  e.after(a, d);
  e.after(b);
  CHECK(indices(g.predecessors(e)) == std::vector<std::uint32_t>{2, 0, 3, 1});

  a.before(d);
  a.before(b);
  a.before(c);
  CHECK(indices(g.successors(a)) == std::vector<std::uint32_t>{1, 2, 3, 4});
  CHECK(g.successors(e).empty());
  CHECK(g.predecessors(a).empty());
}

TEST_CASE("after() and before() take ranges of handles as well as handles", "[graph][edges]") {
  gd::Graph g;
  std::vector<gd::Node> stage;
  for (int i = 0; i < 3; ++i) stage.push_back(g.add_empty());  // #0..#2
  auto x = g.add_empty();                                      // #3

  SECTION("a std::vector<Node>") {
    auto join = g.add_empty().after(stage);  // #4
    CHECK(indices(g.predecessors(join)) == std::vector<std::uint32_t>{0, 1, 2});
  }
  SECTION("a range mixed with single handles") {
    auto join = g.add_empty().after(x, stage);
    CHECK(indices(g.predecessors(join)) == std::vector<std::uint32_t>{3, 0, 1, 2});
  }
  SECTION("a std::array of typed handles, through before()") {
    std::array<gd::EmptyNode, 2> outs{g.add_empty(), g.add_empty()};  // #4, #5
    x.before(outs);
    CHECK(indices(g.successors(x)) == std::vector<std::uint32_t>{4, 5});
  }
  SECTION("an empty range adds nothing") {
    g.add_empty().after(std::vector<gd::Node>{});
    CHECK(g.edge_count() == 0);
  }
}

TEST_CASE("a self edge is a UsageError naming the node", "[graph][edges][errors]") {
  gd::Graph g("plan");
  auto a = g.add_empty().name("a");
  auto k = g.add_kernel(unit::no_args, gd::Launch{});
  CHECK_USAGE_ERROR(a.after(a), "graphdsl: self edge: empty node 'a' (#0) cannot run after itself");
  CHECK_USAGE_ERROR(a.before(a), "graphdsl: self edge: empty node 'a' (#0) cannot run after itself");
  CHECK_USAGE_ERROR(g.add_edge(k, k), "graphdsl: self edge: kernel node #1 cannot run after itself");
  CHECK(g.edge_count() == 0);
}

TEST_CASE("an empty node handle is a UsageError", "[graph][edges][errors]") {
  gd::Graph g;
  auto a = g.add_empty().name("a");
  const gd::Node none;
  const char* msg = "graphdsl: empty node handle (a default-constructed Node was used)";
  CHECK_USAGE_ERROR(a.after(none), msg);
  CHECK_USAGE_ERROR(a.before(none), msg);
  CHECK_USAGE_ERROR(a.after(std::vector<gd::Node>{none}), msg);
  CHECK_USAGE_ERROR(g.add_edge(none, a), msg);
  CHECK_USAGE_ERROR(g.add_edge(a, none), msg);
  CHECK_USAGE_ERROR(gd::EmptyNode{}.after(a), msg);
  CHECK_USAGE_ERROR(g.predecessors(none), msg);
  CHECK_USAGE_ERROR(g.successors(none), msg);
  CHECK(g.edge_count() == 0);
}

TEST_CASE("a node of another graph in after() or before() is a UsageError naming both graphs",
          "[graph][edges][errors]") {
  gd::Graph g1("producer");
  gd::Graph g2("consumer");
  auto p = g1.add_kernel(unit::no_args, gd::Launch{}).name("load");
  g2.add_empty();
  auto c = g2.add_empty().name("use");
  const std::string ids1 = fmt::format("(plan id {})", g1.id());
  const std::string ids2 = fmt::format("(plan id {})", g2.id());

  CHECK_USAGE_ERROR(c.after(p), "graphdsl: edge 'load' -> 'use': kernel node 'load' (#0) belongs to graph 'producer' " +
                                    ids1 + " but empty node 'use' (#1) belongs to graph 'consumer' " + ids2 +
                                    "; an edge must join two nodes of the same graph");
  CHECK_USAGE_ERROR(c.before(p), "graphdsl: edge 'use' -> 'load': empty node 'use' (#1) belongs to graph 'consumer' " +
                                     ids2 + " but kernel node 'load' (#0) belongs to graph 'producer' " + ids1 +
                                     "; an edge must join two nodes of the same graph");
  CHECK(g1.edge_count() == 0);
  CHECK(g2.edge_count() == 0);
}

TEST_CASE("a node of another graph in Graph::add_edge is a UsageError naming both graphs", "[graph][edges][errors]") {
  gd::Graph g1("producer");
  gd::Graph g2("consumer");
  auto p = g1.add_empty();
  auto c = g2.add_empty().name("use");
  const std::string expected = fmt::format(
      "graphdsl: empty node #0 belongs to graph 'producer' (plan id {}), not to graph 'consumer' (plan id {})",
      g1.id(), g2.id());
  CHECK_USAGE_ERROR(g2.add_edge(p, c), expected);
  CHECK_USAGE_ERROR(g2.add_edge(c, p), expected);
  // Both handles of g1, added through g2: still not g2's nodes.
  auto p2 = g1.add_empty();
  CHECK_USAGE_ERROR(g2.add_edge(p, p2), expected);
  CHECK(g1.edge_count() == 0);
  CHECK(g2.edge_count() == 0);
}

TEST_CASE("graphs with the same name are told apart by plan id in the message", "[graph][edges][errors]") {
  gd::Graph g1("same");
  gd::Graph g2("same");
  REQUIRE(g1.id() != g2.id());
  auto a = g1.add_empty().name("a");
  auto b = g2.add_empty().name("b");
  CHECK_USAGE_ERROR(b.after(a), fmt::format("graphdsl: edge 'a' -> 'b': empty node 'a' (#0) belongs to graph 'same' "
                                            "(plan id {}) but empty node 'b' (#0) belongs to graph 'same' (plan id {}); "
                                            "an edge must join two nodes of the same graph",
                                            g1.id(), g2.id()));
}

TEST_CASE("a rejected after() adds none of its edges", "[graph][edges][errors]") {
  // Expected: strong guarantee (check every handle, then add). Actual: the edges before the bad
  // handle are already added when the UsageError is thrown.
  gd::Graph g1("one");
  gd::Graph g2("two");
  auto a = g1.add_empty();
  auto b = g1.add_empty();
  auto foreign = g2.add_empty();
  auto c = g1.add_empty();
  CHECK(unit::usage_error_of([&] { c.after(a, b, foreign); }).rfind("graphdsl: edge #0 -> #2: ", 0) == 0);
  CHECK(unit::usage_error_of([&] { c.after(std::vector<gd::Node>{a, foreign}); }).rfind("graphdsl: edge #0 -> #2: ", 0) ==
        0);
  CHECK(g1.edge_count() == 0);
  CHECK(g1.predecessors(c).empty());
}

}  // namespace edges_test
