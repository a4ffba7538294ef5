// Unit tests of an executable's recorded plan (Executable::plan()) without a GPU: the handles of the
// plan it was compiled from work with its getters, and the plan side of Executable::set_kernel to a
// kernel of another signature (swap_kernel, undo_kernel_swap, tidy_arguments: plan/records/
// kernel_access.hpp) leaves a plan that dumps, diffs and fingerprints as one built with the new
// kernel. The recorded plan is made as Graph::compile makes it: a copy, sealed. No CUDA call.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "plan/diff.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"
#include "unit_support.hpp"

namespace gd = graphdsl;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace recorded_plan_test {

namespace {
void scale(float*, float, int) {}
void wide(float*, const float*, float, float, int) {}
void tiny(int) {}

float* const X = reinterpret_cast<float*>(0x1000);
float* const Y = reinterpret_cast<float*>(0x2000);
int* const Z = reinterpret_cast<int*>(0x3000);

/// The recorded plan Graph::compile keeps of `g`: a copy, sealed, that knows g's id.
gd::Graph recorded_of(const gd::Graph& g) {
  gd::Graph r(g);
  gd::detail::seal_as_recorded(r.impl(), g.id());
  return r;
}

/// n kernels 'k0', 'k1', ... in a chain, each scale(X, 1 + i, 64) on grid 2 x 32.
gd::Graph chain(std::size_t n, const std::string& name = "chain") {
  gd::Graph g(name);
  gd::Node prev;
  for (std::size_t i = 0; i < n; ++i) {
    auto k = g.add_kernel(scale, gd::Launch{2, 32}, X, 1.0f + static_cast<float>(i), 64).name(fmt::format("k{}", i));
    if (i > 0) k.after(prev);
    prev = k;
  }
  return g;
}

/// chain(n) with node `at` launching wide(X, Y, a, b, 64) on grid 4 x 64 instead.
gd::Graph chain_with_wide(std::size_t n, std::uint32_t at, float a, float b) {
  gd::Graph g("chain");
  gd::Node prev;
  for (std::size_t i = 0; i < n; ++i) {
    gd::Node k;
    if (i == at) {
      k = g.add_kernel(wide, gd::Launch{4, 64}, X, Y, a, b, 64).name(fmt::format("k{}", i));
    } else {
      k = g.add_kernel(scale, gd::Launch{2, 32}, X, 1.0f + static_cast<float>(i), 64).name(fmt::format("k{}", i));
    }
    if (i > 0) g.add_edge(prev, k);
    prev = k;
  }
  return g;
}

/// Swaps kernel node `at` of recorded plan `r` to wide(X, Y, a, b, 64) on grid 4 x 64, as set_kernel does.
gd::detail::KernelSwap swap_to_wide(gd::Graph& r, std::uint32_t at, float a, float b) {
  gd::Graph one("setter");
  one.add_kernel(wide, gd::Launch{4, 64}, X, Y, a, b, 64);
  const gd::detail::GraphImpl& s = one.impl();
  const gd::detail::KernelData& k = gd::detail::kernel_of(s, 0);
  return gd::detail::swap_kernel(r.impl(), at, k.func, gd::detail::kernel_layout(s, gd::detail::kernel_index(s, 0)),
                                 gd::detail::argument_block(s, k), k.launch);
}

/// The same to tiny(v) on grid 1 x 1 (a smaller block than scale's).
gd::detail::KernelSwap swap_to_tiny(gd::Graph& r, std::uint32_t at, int v) {
  gd::Graph one("setter");
  one.add_kernel(tiny, gd::Launch{1, 1}, v);
  const gd::detail::GraphImpl& s = one.impl();
  const gd::detail::KernelData& k = gd::detail::kernel_of(s, 0);
  return gd::detail::swap_kernel(r.impl(), at, k.func, gd::detail::kernel_layout(s, gd::detail::kernel_index(s, 0)),
                                 gd::detail::argument_block(s, k), k.launch);
}

/// The bytes of the argument blocks of every kernel of g.
std::size_t used_argument_bytes(const gd::Graph& g) {
  std::size_t used = 0;
  for (const auto& l : g.impl().kernel_links) used += l.layout->total;
  return used;
}
}  // namespace

TEST_CASE("an executable's recorded plan takes the node handles of the plan it was compiled from",
          "[recorded][handles]") {
  gd::Graph g("origin");
  auto k = g.add_kernel(scale, gd::Launch{2, 32}, X, 2.0f, 64).name("k");
  auto m = g.add_memset(Z, 7, 64).name("fill").after(k);
  const gd::Graph r = recorded_of(g);
  CHECK(r.memset_of(m).value == 7u);
  CHECK(r.memset_of(m).width == 64u);
  CHECK(r.launch_of(k).grid.x == 2u);
  CHECK(r.predecessors(m) == std::vector<gd::Node>{r.node(0)});
  CHECK(r.successors(k) == std::vector<gd::Node>{r.node(1)});
  CHECK(r.device_of(k) == -1);

  // A node the origin got after compiling is not in the recorded plan.
  auto late = g.add_memset(Z, 1, 8).name("late");
  CHECK_USAGE_ERROR(r.memset_of(late),
                    fmt::format("graphdsl: node #2 of graph 'origin' (plan id {}) was added after the executable "
                                "was compiled; the executable's recorded plan 'origin' (plan id {}) has 2 nodes",
                                g.id(), r.id()));
  // Handles of another plan are refused as before, and so are the origin's in a copy of the recorded plan.
  gd::Graph other("other");
  auto o = other.add_memset(Z, 3, 64).name("o");
  CHECK_USAGE_ERROR(r.memset_of(o), fmt::format("graphdsl: memset node 'o' (#0) belongs to graph 'other' (plan id {}), "
                                                "not to graph 'origin' (plan id {})",
                                                other.id(), r.id()));
  const gd::Graph copy(r);
  CHECK_USAGE_ERROR(copy.memset_of(m), fmt::format("graphdsl: memset node 'fill' (#1) belongs to graph 'origin' (plan id "
                                                   "{}), not to graph 'origin' (plan id {})",
                                                   g.id(), copy.id()));
  // The origin may be gone: its handles still name the recorded plan's nodes (the setters take them too).
  {
    gd::Graph gone("gone");
    auto f = gone.add_memset(Z, 5, 32).name("f");
    const gd::Graph kept = recorded_of(gone);
    gone = gd::Graph("other");  // the plan f belongs to is destroyed
    CHECK_FALSE(f.valid());
    CHECK(kept.memset_of(f).value == 5u);
  }
}

TEST_CASE("a kernel swapped to another signature dumps, diffs and fingerprints as a plan built with it",
          "[recorded][set_kernel]") {
  const gd::Graph g = chain(4);
  gd::Graph r = recorded_of(g);
  const std::string before = r.dump();
  const gd::detail::KernelSwap swap = swap_to_wide(r, 1, 0.5f, 3.0f);
  const gd::Graph w = chain_with_wide(4, 1, 0.5f, 3.0f);
  CHECK(r.dump() == w.dump());
  CHECK(r.dump().find("#1 kernel 'k1': grid (4,1,1) block (64,1,1) shared 0 B, 5 args (28 B); after 'k0'") != std::string::npos);
  CHECK(gd::diff(r, w));
  CHECK(gd::diff(r, w).changed.empty());
  CHECK(r.fingerprint() == w.fingerprint());
  CHECK_NOTHROW(r.validate());
  // The plan with the old kernel: another function, as update() and diff() both say.
  const gd::UpdateResult back = gd::diff(r, g);
  CHECK(back.status == gd::UpdateStatus::function_changed);
  REQUIRE(back.node);
  CHECK(back.node->index == 1u);
  CHECK(back.reason == "kernel node 'k1' (#1) launches a different kernel function in the template");
  // A template with the new kernel's other arguments: a parameter change of that node alone, which
  // the recorded plan takes as update() leaves it.
  const gd::Graph w2 = chain_with_wide(4, 1, 0.25f, 3.0f);
  const gd::UpdateResult d = gd::diff(r, w2);
  REQUIRE(d);
  CHECK(d.changed == std::vector<std::uint32_t>{1});
  std::vector<std::uint32_t> renamed;
  bool conditions = false;
  const gd::UpdateResult pd = gd::detail::plan_diff(r.impl(), w2.impl(), &renamed, &conditions);
  REQUIRE(pd.changed == d.changed);
  const auto img = gd::detail::updated_copy(r.impl(), w2.impl(), pd.changed, renamed);
  CHECK(gd::Graph(new gd::detail::GraphImpl(*img)).dump() == w2.dump());
  // Undone, the plan is what it was.
  gd::detail::undo_kernel_swap(r.impl(), swap);
  CHECK(r.dump() == before);
  CHECK(gd::diff(r, g).changed.empty());
  CHECK(r.impl().args.size() == g.impl().args.size());
  CHECK(r.impl().unused_args == 0u);
}

TEST_CASE("swapped kernels keep the argument arena at most twice the blocks in use", "[recorded][set_kernel]") {
  const gd::Graph g = chain(16);
  gd::Graph r = recorded_of(g);
  // The block of the last kernel ends the arena: it grows and shrinks in place.
  for (int round = 0; round < 8; ++round) {
    (void)swap_to_wide(r, 15, 1.0f, 2.0f);
    (void)swap_to_tiny(r, 15, round);
  }
  CHECK(r.impl().unused_args == 0u);
  CHECK(r.impl().args.size() == used_argument_bytes(r));
  // Blocks in the middle: a larger one goes to the end, a smaller one over the old one; tidying
  // packs the arena again once more than half of it is unused.
  for (int round = 0; round < 40; ++round) {
    const std::uint32_t at = static_cast<std::uint32_t>(round % 8);
    (void)swap_to_wide(r, at, 1.0f, static_cast<float>(round));
    gd::detail::tidy_arguments(r.impl());
    CHECK(r.impl().args.size() <= 2 * used_argument_bytes(r));
    CHECK(r.impl().args.size() == used_argument_bytes(r) + r.impl().unused_args);
    (void)swap_to_tiny(r, at, round);
    gd::detail::tidy_arguments(r.impl());
    CHECK(r.impl().args.size() <= 2 * used_argument_bytes(r));
  }
  // Every kernel still holds its own arguments: swapped back to scale, the plan is the chain again.
  for (std::uint32_t i = 0; i < 16; ++i) {
    gd::Graph one("setter");
    one.add_kernel(scale, gd::Launch{2, 32}, X, 1.0f + static_cast<float>(i), 64);
    const gd::detail::GraphImpl& s = one.impl();
    const gd::detail::KernelData& k = gd::detail::kernel_of(s, 0);
    (void)gd::detail::swap_kernel(r.impl(), i, k.func, gd::detail::kernel_layout(s, 0), gd::detail::argument_block(s, k),
                                  k.launch);
    gd::detail::tidy_arguments(r.impl());
  }
  CHECK(r.dump() == g.dump());
  CHECK(gd::diff(r, g).changed.empty());
  CHECK(r.impl().args.size() <= 2 * used_argument_bytes(r));
}

TEST_CASE("parameter_of_node names the parameter a node uses", "[recorded][set_kernel]") {
  gd::Graph g("params");
  auto lr = g.parameter<float>(0.5f).name("lr");
  g.add_kernel(scale, gd::Launch{1, 32}, X, 2.0f, 64).name("plain");
  g.add_kernel(scale, gd::Launch{1, 32}, X, lr, 64).name("uses lr");
  CHECK(gd::detail::parameter_of_node(g.impl(), 0) == gd::detail::ConditionRef::unresolved);
  CHECK(gd::detail::parameter_of_node(g.impl(), 1) == 0u);
}

}  // namespace recorded_plan_test
