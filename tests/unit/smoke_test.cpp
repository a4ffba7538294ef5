#include "catch.hpp"
#include <graphdsl/graphdsl.hpp>
void k1(float*, float, int) {}
TEST_CASE("smoke") {
  graphdsl::Graph g("g");
  float* p = nullptr;
  auto a = g.add_kernel(k1, graphdsl::Launch{1, 32}, p, 2.0, 3).name("a");
  auto b = g.add_empty().after(a);
  (void)b;
  REQUIRE(g.node_count() == 2);
}
