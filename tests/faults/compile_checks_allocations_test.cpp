// The host-side steps every instantiate() runs before the driver sees the plan, counted with the
// allocation hook on a plan of a few nodes (compiling many small graphs is a serving hot path):
// whether a plan places nodes on devices is answered without allocating when it embeds no plan,
// and the creation order allocates only the order it returns once the thread has ordered a plan.
#include <cstdint>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "alloc_hook.hpp"
#include "catch.hpp"
#include "plan/graph_impl.hpp"
#include "plan/rules.hpp"

namespace gd = graphdsl;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace compile_checks_allocations_test {

namespace {

void tiny(float*, float, int) {}

gd::Graph three_kernels() {
  static float cell = 0;  // never written: the plan is not compiled
  gd::Graph g("small");
  auto a = g.add_kernel(tiny, gd::Launch{1, 32}, &cell, 1.0f, 1).name("a");
  auto b = g.add_kernel(tiny, gd::Launch{1, 32}, &cell, 2.0f, 1).name("b").after(a);
  g.add_kernel(tiny, gd::Launch{1, 32}, &cell, 3.0f, 1).name("c").after(b);
  return g;
}

/// Allocations op() makes on this thread.
template <class Op>
std::uint64_t allocations_of(Op&& op) {
  faults::arm(std::uint64_t{1} << 40);  // counts, fails none
  op();
  const std::uint64_t made = faults::allocations();
  faults::disarm();
  return made;
}

}  // namespace

TEST_CASE("instantiate's host-side checks of a small plan allocate only the order they return",
          "[faults][instantiate]") {
  const gd::Graph g = three_kernels();
  const gd::detail::GraphImpl& plan = g.impl();
  bool placed = true;
  CHECK(allocations_of([&] { placed = gd::detail::uses_devices(plan); }) == 0);
  CHECK_FALSE(placed);
  std::size_t bytes = 0;
  CHECK(allocations_of([&] { bytes = g.storage_bytes(); }) == 0);
  CHECK(bytes > 0);
  (void)gd::detail::creation_order(plan);  // the thread's first order keeps its scratch buffer
  std::vector<std::uint32_t> order;
  CHECK(allocations_of([&] { order = gd::detail::creation_order(plan); }) == 1);
  CHECK(order == std::vector<std::uint32_t>{0, 1, 2});

  // A plan that embeds one is still walked to the bottom: its child's placement counts.
  gd::Graph outer("outer");
  gd::Graph inner("inner");
  static float cell = 0;
  inner.add_kernel(tiny, gd::Launch{1, 32}, &cell, 1.0f, 1).name("placed").on_device(0);
  outer.add_child(inner);
  CHECK(gd::detail::uses_devices(outer.impl()));
}

}  // namespace compile_checks_allocations_test
