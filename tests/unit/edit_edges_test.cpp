// Graph::remove_edge and Graph::set_predecessors: editing a plan's dependencies in place, checked as
// add_edge is (the node and the rule named, nothing changed on a refusal). No CUDA call.
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"

namespace gd = graphdsl;

namespace edit_edges_test {

namespace {
void work(float*, float, int) {}
float* const X = reinterpret_cast<float*>(0x1000);
}  // namespace

TEST_CASE("remove_edge takes one edge out, of any kind; the others keep their order", "[edit]") {
  gd::Graph g("g");
  auto a = g.add_kernel(work, gd::Launch{1, 32}, X, 1.0f, 32).name("a");
  auto b = g.add_kernel(work, gd::Launch{1, 32}, X, 2.0f, 32).name("b");
  auto c = g.add_kernel(work, gd::Launch{1, 32}, X, 3.0f, 32).name("c").after(a).after(b, gd::EdgeKind::programmatic);
  auto d = g.add_empty().name("d").after(a, b, c);
  REQUIRE(g.edge_count() == 5);
  g.remove_edge(b, c);
  CHECK(g.edge_count() == 4);
  CHECK(g.predecessors(c) == std::vector<gd::Node>{a});
  // The programmatic kind went with the edge: added again, the edge is a full one.
  c.after(b);
  CHECK(g.dump().find("#2 kernel 'c'") != std::string::npos);
  gd::Graph same("g");
  auto a2 = same.add_kernel(work, gd::Launch{1, 32}, X, 1.0f, 32).name("a");
  auto b2 = same.add_kernel(work, gd::Launch{1, 32}, X, 2.0f, 32).name("b");
  auto c2 = same.add_kernel(work, gd::Launch{1, 32}, X, 3.0f, 32).name("c").after(a2, b2);
  same.add_empty().name("d").after(a2, b2, c2);
  CHECK(g.dump() == same.dump());
  g.remove_edge(b, d);
  CHECK(g.predecessors(d) == std::vector<gd::Node>{a, c});
  CHECK(g.successors(b) == std::vector<gd::Node>{c});
}

TEST_CASE("remove_edge refuses an edge the plan does not hold and a handle of another plan, changing nothing",
          "[edit]") {
  gd::Graph g("g");
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b").after(a);
  const std::string before = g.dump();
  CHECK_THROWS_WITH(g.remove_edge(b, a), "graphdsl: remove_edge: graph 'g' has no edge 'b' -> 'a'");
  gd::Graph other("other");
  auto x = other.add_empty().name("x");
  CHECK_THROWS_AS(g.remove_edge(x, b), gd::UsageError);
  CHECK_THROWS_AS(other.remove_edge(a, b), gd::UsageError);
  CHECK(g.dump() == before);
  CHECK(g.edge_count() == 1);
}

TEST_CASE("set_predecessors replaces a node's incoming edges, all or none", "[edit]") {
  gd::Graph g("g");
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b");
  auto c = g.add_kernel(work, gd::Launch{1, 32}, X, 1.0f, 32).name("c");
  auto d = g.add_kernel(work, gd::Launch{1, 32}, X, 2.0f, 32).name("d").after(a).after(c, gd::EdgeKind::programmatic);
  g.set_predecessors(d, {b, c});
  CHECK(g.predecessors(d) == std::vector<gd::Node>{c, b});  // kept edges first, in their order; new ones after
  CHECK(g.edge_count() == 2);
  CHECK(g.dump().find("programmatic") != std::string::npos);  // the kept edge kept its kind
  const std::string before = g.dump();
  CHECK_THROWS_WITH(g.set_predecessors(d, {a, d}), "graphdsl: self edge: kernel node 'd' (#3) cannot run after itself");
  CHECK(g.dump() == before);
  gd::Graph other("other");
  auto x = other.add_empty().name("x");
  CHECK_THROWS_AS(g.set_predecessors(d, {a, x}), gd::UsageError);
  CHECK(g.dump() == before);
  g.set_predecessors(d, {});
  CHECK(g.predecessors(d).empty());
  CHECK(g.edge_count() == 0);
}

}  // namespace edit_edges_test
