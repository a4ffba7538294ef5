// tests/complexity/child_cache_complexity_test.cpp — the child graphs Executable::set_child(node,
// plan) keeps (src/exec/child_cache.cpp): finding a kept plan, keeping another and evicting the least
// recently set cost the same whatever the number of child nodes and of entries kept, timed on a
// full cache at n and 8n child nodes (complexity_support.hpp). The kept graphs are empty: no CUDA call.
#include <cstdint>
#include <memory>
#include <utility>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "complexity_support.hpp"
#include "exec/child_cache.hpp"
#include "plan/graph_impl.hpp"

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace child_cache_complexity_test {

namespace gd = graphdsl;
using complexity::check_flat;

unsigned* const slot = reinterpret_cast<unsigned*>(0x10000);  // never written: no graph is launched

gd::Graph fill(unsigned value) {
  gd::Graph c("child");
  c.add_memset(slot, value, 1).name("fill");
  return c;
}

/// An executable's state (no CUDA graph) of n child nodes, each with two kept plans: the cache is full.
struct Full {
  explicit Full(gd::Graph&& plan) : x(std::move(plan), {}, nullptr) {}
  gd::detail::ExecImpl x;
  std::shared_ptr<const gd::detail::GraphImpl> kept[3];
};

void keep(gd::detail::ExecImpl& x, std::uint32_t node, const std::shared_ptr<const gd::detail::GraphImpl>& plan) {
  gd::detail::reserve_cached_child(x);
  gd::detail::keep_cached_child(x, node, plan, gd::detail::Materialized{});
}

TEST_CASE("complexity: set_child's kept graphs, found, kept and evicted", "[complexity][child]") {
  check_flat(
      "2000 finds and keeps in a full child-graph cache", 500,
      [](std::size_t n) {
        gd::Graph outer("outer");
        for (std::size_t j = 0; j < n; ++j) outer.add_child(fill(0));
        auto f = std::make_unique<Full>(std::move(outer));
        for (unsigned v = 0; v < 3; ++v) f->kept[v] = std::make_shared<gd::detail::GraphImpl>(fill(v + 1).impl());
        for (std::uint32_t j = 0; j < n; ++j) {
          keep(f->x, j, f->kept[0]);
          keep(f->x, j, f->kept[1]);
        }
        REQUIRE(f->x.child_cache.entries == 2 * n);
        return f;
      },
      [](std::unique_ptr<Full>& f) {
        std::size_t found = 0;
        for (std::uint32_t k = 0; k < 2000; ++k) {
          const std::uint32_t j = k % 64;
          found += gd::detail::find_cached_child(f->x, j, *f->kept[k % 2]) != nullptr ? 1 : 0;
          keep(f->x, j, f->kept[2]);  // evicts the least recently set entry
        }
        return found;
      });
}

}  // namespace child_cache_complexity_test
