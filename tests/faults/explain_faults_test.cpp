// gd::explain under the allocation-failure sweep: with each of its allocations failing in turn it
// throws std::bad_alloc (nothing else) or gives the fault-free answer, and both plans, const
// inputs, are left as they were.
#include <cstdint>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "alloc_hook.hpp"
#include "catch.hpp"

namespace explain_faults_test {

namespace gd = graphdsl;

namespace {
void scale(float*, float, int) {}
float* const X = reinterpret_cast<float*>(0x1000);

gd::Graph plan(float a, int fill, dim3 grid) {
  gd::Graph g("explained");
  auto k = g.add_kernel(scale, gd::Launch{grid, dim3(64)}, X, a, 64).name("scale");
  g.add_memset(X, fill, 16).name("fill").after(k);
  return g;
}

std::string text(const std::vector<gd::NodeChange>& v) {
  std::string out;
  for (const gd::NodeChange& c : v) out += (c.node ? c.node->describe() : std::string("-")) + ": " + c.what + "\n";
  return out;
}
}  // namespace

TEST_CASE("faults: explain throws std::bad_alloc or gives the fault-free answer", "[faults][explain]") {
  const gd::Graph a = plan(2.0f, 1, dim3(4)), b = plan(3.0f, 2, dim3(8));
  gd::Graph longer = plan(2.0f, 1, dim3(4));
  longer.add_empty().name("extra");
  const std::string dump_a = a.dump(), dump_b = b.dump();
  for (const gd::Graph* other : {&b, static_cast<const gd::Graph*>(&longer)}) {
    const std::string want = text(gd::explain(a, *other));
    std::uint64_t k = 1;
    for (;; ++k) {
      std::string got;
      const faults::Outcome run = faults::run_failing(k, [&] { got = text(gd::explain(a, *other)); });
      INFO("allocation " << k << " failed");
      CHECK(run.other.empty());
      if (!run.failed) {
        CHECK(got == want);
        break;
      }
      if (!run.threw) CHECK(got == want);
      CHECK(a.dump() == dump_a);
      CHECK(b.dump() == dump_b);
    }
    CHECK(k > 1);
  }
}

}  // namespace explain_faults_test
