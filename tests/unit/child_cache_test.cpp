// The child graphs set_child(node, plan) keeps (src/exec/child_cache.cpp), on the host: every entry
// is in the list of all entries and in its node's list whatever the order they are kept in, a plan
// is found only on the node it was set on, the bound is 16 or two per child node, the least recently
// set entry goes first and its slot is used again. The
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
  return gd::detail::ExecImpl(std::move(outer), {}, nullptr);
}

void keep(gd::detail::ExecImpl& x, std::uint32_t node, const gd::Graph& plan, std::uint64_t stamp = 0) {
  gd::detail::reserve_cached_child(x);
  gd::detail::keep_cached_child(x, node, std::make_shared<gd::detail::GraphImpl>(plan.impl()),
                                gd::detail::Materialized{}, stamp);
}

/// The content stamp of `g` (stamping it first): what set_child passes to find and keep.
std::uint64_t stamp_of(const gd::Graph& g) { return g.impl().content_stamp(); }

/// Whether the cache's lists hold its entries: the list of all entries (oldest to newest, linked
/// both ways) has `entries` slots, each in use and found in its own node's list.
bool consistent(const gd::detail::ExecImpl& x) {
  const gd::detail::ChildCache& c = x.child_cache;
  constexpr std::uint32_t none = gd::detail::CachedChild::none;
  std::size_t seen = 0;
  std::uint32_t before = none;
  for (std::uint32_t e = c.oldest; e != none; before = e, e = c.slots[e].newer) {
    const gd::detail::CachedChild& s = c.slots[e];
    if (s.plan == nullptr || s.older != before || ++seen > c.entries) return false;
    bool on_node = false;
    for (std::uint32_t k = c.node_first[s.node]; k != none; k = c.slots[k].node_next) on_node |= k == e;
    if (!on_node) return false;
  }
  return seen == c.entries && before == c.newest;
}

}  // namespace

TEST_CASE("kept child graphs: found on their own node, listed whatever the order kept, bounded, least recently set evicted",
          "[child][setters][cache]") {
  gd::detail::ExecImpl x = exec_of(3);
  std::vector<gd::Graph> plans;
  for (unsigned v = 1; v <= 40; ++v) plans.push_back(fill(v));
  const std::pair<std::uint32_t, int> kept[] = {{2, 0}, {0, 1}, {1, 2}, {1, 3}, {0, 4}, {2, 5}};
  for (const auto& [node, p] : kept) {
    keep(x, node, plans[p]);
    CHECK(consistent(x));
  }
  for (const auto& [node, p] : kept) CHECK(gd::detail::find_cached_child(x, node, plans[p].impl()) != nullptr);
  CHECK(gd::detail::find_cached_child(x, 0, plans[0].impl()) == nullptr);  // kept on node 2 only
  CHECK(gd::detail::find_cached_child(x, 1, fill(3).impl()) != nullptr);   // an equal plan built again
  for (int p = 6; p < 40; ++p) keep(x, 1, plans[p]);
  CHECK(consistent(x));
  CHECK(x.child_cache.entries == 16);  // three child nodes: two each is fewer than 16
  CHECK(gd::detail::find_cached_child(x, 1, plans[39].impl()) != nullptr);
  CHECK(gd::detail::find_cached_child(x, 2, plans[0].impl()) == nullptr);  // the least recently set
  CHECK(x.child_cache.slots.size() == 17);  // evicted slots are used again: the bound and one more at most

  gd::detail::ExecImpl wide = exec_of(12);  // two per child node: 24
  for (std::uint32_t node = 0; node < 12; ++node) {
    keep(wide, node, plans[node]);
    keep(wide, node, plans[20 + node]);
  }
  CHECK(wide.child_cache.entries == 24);
  CHECK(consistent(wide));
  for (std::uint32_t node = 0; node < 12; ++node) {
    CHECK(gd::detail::find_cached_child(wide, node, plans[node].impl()) != nullptr);
    CHECK(gd::detail::find_cached_child(wide, node, plans[20 + node].impl()) != nullptr);
  }
  // Found again, node 0's first plan is the most recently set: the next keep evicts node 0's second.
  CHECK(gd::detail::find_cached_child(wide, 0, plans[0].impl()) != nullptr);
  keep(wide, 5, plans[39]);
  CHECK(consistent(wide));
  CHECK(wide.child_cache.entries == 24);
  CHECK(gd::detail::find_cached_child(wide, 0, plans[0].impl()) != nullptr);
  CHECK(gd::detail::find_cached_child(wide, 0, plans[20].impl()) == nullptr);
  CHECK(gd::detail::find_cached_child(wide, 5, plans[39].impl()) != nullptr);
}

TEST_CASE("kept child graphs: a plan unchanged since it was set is found by its content stamp, a changed one only "
          "by comparing",
          "[child][setters][cache]") {
  gd::detail::ExecImpl x = exec_of(2);
  gd::Graph p = fill(7);
  const std::uint64_t s = stamp_of(p);
  CHECK(s != 0);
  CHECK(stamp_of(p) == s);  // reading keeps it
  keep(x, 0, p, s);
  // The stamp alone finds the entry: a plan of other content presented with it is not read.
  CHECK(gd::detail::find_cached_child(x, 0, fill(8).impl(), s) != nullptr);
  CHECK(gd::detail::find_cached_child(x, 1, p.impl(), s) == nullptr);  // kept on node 0 only

  // Changed through its node handle: the stamp is cleared, a new one is another number, and the
  // changed plan (value 9, kept 7) is not found.
  p.set_memset(gd::node_cast<gd::MemsetNode>(p.node(0)), slots + 3, 9u, 1);
  CHECK(std::as_const(p).impl().stamp.load() == 0);
  const std::uint64_t changed = stamp_of(p);
  CHECK(changed != s);
  CHECK(gd::detail::find_cached_child(x, 0, std::as_const(p).impl(), changed) == nullptr);

  // An equal plan built again is found by comparing, and the entry takes its stamp.
  const gd::Graph q = fill(7);
  const std::uint64_t t = stamp_of(q);
  CHECK(t != s);
  gd::detail::CachedChild* e = gd::detail::find_cached_child(x, 0, q.impl(), t);
  REQUIRE(e != nullptr);
  CHECK(e->stamp == t);
  const gd::Graph copy = q;  // a copy is a plan of its own: another stamp
  CHECK(stamp_of(copy) != t);
}

TEST_CASE("a plan's content stamp is cleared by each way to change the plan and kept by reading it",
          "[child][setters][cache]") {
  gd::Graph p("p");
  const gd::MemsetNode fill_node = p.add_memset(slots + 3, 7u, 1);
  const gd::Parameter<float> scale = p.parameter(1.0f);
  const std::uint64_t first = stamp_of(p);
  // Reading keeps the stamp (const Graph methods see only a const GraphImpl).
  (void)p.dump();
  (void)p.to_dot();
  (void)p.fingerprint();
  (void)p.node_count();
  p.validate();
  const gd::Graph copy = p;
  CHECK(stamp_of(p) == first);
  CHECK(stamp_of(copy) != first);

  auto cleared_by = [&](const char* what, auto&& change) {
    INFO(what);
    const std::uint64_t before = stamp_of(p);
    change();
    CHECK(std::as_const(p).impl().stamp.load() == 0);
    CHECK(stamp_of(p) != before);
  };
  cleared_by("a Graph member", [&] { p.add_empty(); });
  cleared_by("a node handle", [&] { fill_node.name("renamed"); });
  cleared_by("a node handle placing its node", [&] { fill_node.on_device(0); });
  cleared_by("a Parameter handle", [&] { scale.name("scale"); });
}

}  // namespace child_cache_test
