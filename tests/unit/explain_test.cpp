// gd::explain: the node and the first field in which two plans differ, in the user's names, on the
// host (no CUDA call); it lists exactly the nodes diff() finds changed.
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"

namespace gd = graphdsl;

namespace explain_test {

namespace {
void scale(float*, float, int) {}
void shift(float*, float, int) {}

float* const X = reinterpret_cast<float*>(0x1000);
float* const Y = reinterpret_cast<float*>(0x2000);

struct Spec {
  dim3 grid{4, 1, 1};
  dim3 block{64, 1, 1};
  unsigned int shared = 0;
  float a = 2.0f;
  float* target = X;
  int memset_value = 7;
  std::size_t copy = 64;
  bool other_function = false;
};

// 'scale' -> 'fill' -> 'copy'
gd::Graph plan(const Spec& s) {
  gd::Graph g("p");
  auto k = g.add_kernel(s.other_function ? shift : scale, gd::Launch{s.grid, s.block, s.shared}, s.target, s.a, 64)
               .name("scale");
  auto f = g.add_memset(Y, s.memset_value, 16).name("fill").after(k);
  g.add_memcpy(Y, static_cast<const float*>(X), s.copy).name("copy").after(f);
  return g;
}

std::string only(const std::vector<gd::NodeChange>& v) {
  REQUIRE(v.size() == 1);
  REQUIRE(v[0].node);
  return v[0].node->describe() + ": " + v[0].what;
}

}  // namespace

TEST_CASE("explain names the node and the first field that differs", "[explain]") {
  const std::uint64_t calls = gd::debug::cuda_calls();
  const gd::Graph base = plan({});
  Spec s;
  s.grid = dim3(8, 1, 1);
  CHECK(only(gd::explain(base, plan(s))) == "kernel node 'scale' (#0): grid (4,1,1) -> (8,1,1)");
  s = {};
  s.block = dim3(128, 1, 1);
  CHECK(only(gd::explain(base, plan(s))) == "kernel node 'scale' (#0): block (64,1,1) -> (128,1,1)");
  s = {};
  s.shared = 256;
  CHECK(only(gd::explain(base, plan(s))) == "kernel node 'scale' (#0): dynamic shared memory 0 B -> 256 B");
  s = {};
  s.a = 1.0f;
  CHECK(only(gd::explain(base, plan(s))) == "kernel node 'scale' (#0): argument 1 (4 bytes): 0x40000000 -> 0x3f800000");
  s = {};
  s.target = Y;
  CHECK(only(gd::explain(base, plan(s))) == "kernel node 'scale' (#0): argument 0 (8 bytes): 0x1000 -> 0x2000");
  s = {};
  s.other_function = true;
  // Both nodes are named 'scale': the functions are told apart by address.
  CHECK(only(gd::explain(base, plan(s))).rfind("kernel node 'scale' (#0): function 0x", 0) == 0);
  s = {};
  s.memset_value = 9;
  const std::string memset = only(gd::explain(base, plan(s)));
  CHECK(memset.rfind("memset node 'fill' (#1): '", 0) == 0);
  CHECK(memset.find("' -> '") != std::string::npos);
  s = {};
  s.copy = 32;
  CHECK(only(gd::explain(base, plan(s))).rfind("memcpy node 'copy' (#2): '256 x 1 x 1 bytes", 0) == 0);
  CHECK(gd::explain(base, plan({})).empty());
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("explain of plans of other shapes is the refusal, naming the node", "[explain]") {
  const gd::Graph base = plan({});
  gd::Graph longer = plan({});
  longer.add_empty().name("extra");
  const std::vector<gd::NodeChange> why = gd::explain(base, longer);
  REQUIRE(why.size() == 1);
  CHECK(why[0].what == gd::diff(base, longer).reason);
  CHECK_FALSE(why[0].what.empty());
}

TEST_CASE("explain lists exactly the nodes diff finds changed, in order", "[explain]") {
  Spec s;
  s.a = 5.0f;
  s.memset_value = 1;
  s.copy = 16;
  const gd::Graph a = plan({}), b = plan(s);
  const gd::UpdateResult d = gd::diff(a, b);
  const std::vector<gd::NodeChange> why = gd::explain(a, b);
  REQUIRE(why.size() == d.changed.size());
  for (std::size_t k = 0; k < why.size(); ++k) {
    REQUIRE(why[k].node);
    CHECK(why[k].node->index == d.changed[k]);
  }
}

}  // namespace explain_test
