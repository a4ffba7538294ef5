// The child graphs set_child(node, plan) keeps (src/exec/child_cache.cpp), on the host: entries stay
// sorted by node whatever the order they are kept in, a plan is found only on the node it was set
// on, the bound is 16 or two per child node, and the least recently set entry goes first. The
// kept graphs here are empty (no CUDA call); the GPU suite sets real ones (tests/gpu/update_test.cpp).
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "exec/child_cache.hpp"  // src/, not installed
#include "plan/graph_impl.hpp"
#include "unit_support.hpp"

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt).
namespace child_cache_test {

namespace {

unsigned* const slots = reinterpret_cast<unsigned*>(0x10000);  // never written: no graph is launched

gd::Graph fill(unsigned value) {
  gd::Graph c("child");
  c.add_memset(slots + 3, value, 1).name("fill");
  return c;
}

/// An executable's state (no CUDA graph) compiled from a plan of `children` child nodes.
gd::detail::ExecImpl exec_of(int children) {
  gd::Graph outer("outer");
  for (int j = 0; j < children; ++j) outer.add_child(fill(0));
  return gd::detail::ExecImpl(std::move(outer));
}

void keep(gd::detail::ExecImpl& x, std::uint32_t node, const gd::Graph& plan) {
  gd::detail::reserve_cached_child(x);
  gd::detail::keep_cached_child(x, node, std::make_shared<gd::detail::GraphImpl>(plan.impl()),
                                gd::detail::Materialized{});
}

bool sorted_by_node(const gd::detail::ExecImpl& x) {
  for (std::size_t k = 1; k < x.child_cache.size(); ++k) {
    if (x.child_cache[k - 1].node > x.child_cache[k].node) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("kept child graphs: found on their own node, sorted by node, bounded, least recently set evicted",
          "[child][setters][cache]") {
  gd::detail::ExecImpl x = exec_of(3);
  std::vector<gd::Graph> plans;
  for (unsigned v = 1; v <= 40; ++v) plans.push_back(fill(v));
  const std::pair<std::uint32_t, int> kept[] = {{2, 0}, {0, 1}, {1, 2}, {1, 3}, {0, 4}, {2, 5}};
  for (const auto& [node, p] : kept) {
    keep(x, node, plans[p]);
    CHECK(sorted_by_node(x));
  }
  for (const auto& [node, p] : kept) CHECK(gd::detail::find_cached_child(x, node, plans[p].impl()) != nullptr);
  CHECK(gd::detail::find_cached_child(x, 0, plans[0].impl()) == nullptr);  // kept on node 2 only
  CHECK(gd::detail::find_cached_child(x, 1, fill(3).impl()) != nullptr);   // an equal plan built again
  for (int p = 6; p < 40; ++p) keep(x, 1, plans[p]);
  CHECK(sorted_by_node(x));
  CHECK(x.child_cache.size() == 16);  // three child nodes: two each is fewer than 16
  CHECK(gd::detail::find_cached_child(x, 1, plans[39].impl()) != nullptr);
  CHECK(gd::detail::find_cached_child(x, 2, plans[0].impl()) == nullptr);  // the least recently set

  gd::detail::ExecImpl wide = exec_of(12);  // two per child node: 24
  for (std::uint32_t node = 0; node < 12; ++node) {
    keep(wide, node, plans[node]);
    keep(wide, node, plans[20 + node]);
  }
  CHECK(wide.child_cache.size() == 24);
  CHECK(sorted_by_node(wide));
  for (std::uint32_t node = 0; node < 12; ++node) {
    CHECK(gd::detail::find_cached_child(wide, node, plans[node].impl()) != nullptr);
    CHECK(gd::detail::find_cached_child(wide, node, plans[20 + node].impl()) != nullptr);
  }
}

}  // namespace child_cache_test
