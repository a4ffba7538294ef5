// Plans large enough for the diff's wholesale compare (blocks of kernel nodes, src/kinds/kernel_diff.cpp):
// what it reports is what the node-by-node compare reports, for changes in the first, a middle
// and the last block, renamed nodes, edges added in another order, nested plans and plans the
// wholesale compare does not cover (launch attributes, other node kinds in a block); and with the
// blocks of plans of 4,096 nodes or more shared with the helper thread (plan/diff_helper.cpp).
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <graphdsl/format.hpp>
#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "plan/diff.hpp"  // diff_helper_shares, shared_diff_nodes (src/, not installed)

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where step, tiny and plan_of would collide with other files'.
namespace diff_blocks_test {

namespace {
void step(float*, int, float, float) {}
void other_step(float*, int, float, float) {}
float* const D = reinterpret_cast<float*>(0x1000);
const gd::Launch tiny{dim3(1), dim3(32)};

enum class Shape { chain, fork_join };

/// What differs from the base plan: b of some nodes, a node's name, a node's launch or function,
/// the join's edge order, launch attributes on node 0, a memset in place of node `memset_at`.
struct Plan {
  Shape shape = Shape::chain;
  int n = 300;
  std::vector<int> changed;  ///< nodes whose b is 1.5 instead of 0.5
  int renamed = -1;          ///< this node is named "renamed"
  int wider = -1;            ///< this node's block is 64 threads
  int other_function = -1;
  bool reversed_join = false;
  bool cluster = false;
  int memset_at = -1;
};

gd::Graph plan_of(const Plan& p) {
  gd::Graph g(p.shape == Shape::chain ? "chain" : "fork-join");
  std::vector<gd::Node> nodes;
  for (int i = 0; i < p.n; ++i) {
    const float b = std::find(p.changed.begin(), p.changed.end(), i) != p.changed.end() ? 1.5f : 0.5f;
    gd::Launch l = i == p.wider ? gd::Launch{dim3(1), dim3(64)} : tiny;
    if (p.cluster && i == 0) l = gd::Launch{dim3(2), dim3(32)}.with_cluster(2);
    const char* name = i == p.renamed ? "renamed" : "";
    if (i == p.memset_at) {
      nodes.push_back(g.add_memset(reinterpret_cast<int*>(D), 0, 4).name(name));
    } else {
      nodes.push_back(g.add_kernel(i == p.other_function ? other_step : step, l, D, i, 2.0f, b).name(name));
    }
  }
  if (p.shape == Shape::chain) {
    for (int i = 1; i < p.n; ++i) g.add_edge(nodes[i - 1], nodes[i]);
  } else {
    for (int i = 1; i < p.n - 1; ++i) g.add_edge(nodes[0], nodes[i]);
    for (int k = 1; k < p.n - 1; ++k) {
      const int i = p.reversed_join ? p.n - 1 - k : k;
      g.add_edge(nodes[i], nodes[p.n - 1]);
    }
  }
  return g;
}

std::vector<std::uint32_t> indices(std::initializer_list<std::uint32_t> v) { return v; }
}  // namespace

TEST_CASE("diff of large plans lists the one changed node, wherever it is", "[update][diff][blocks]") {
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    CAPTURE(static_cast<int>(shape));
    Plan base;
    base.shape = shape;
    CHECK(gd::diff(plan_of(base), plan_of(base)).changed.empty());
    for (int i : {0, 63, 64, 150, 255, 256, 299}) {
      Plan p = base;
      p.changed = {i};
      const gd::UpdateResult r = gd::diff(plan_of(base), plan_of(p));
      CHECK(r);
      CHECK(r.changed == indices({static_cast<std::uint32_t>(i)}));
    }
    Plan many = base;
    many.changed = {1, 2, 70, 299};
    CHECK(gd::diff(plan_of(base), plan_of(many)).changed == indices({1, 2, 70, 299}));
    Plan wider = base;
    wider.wider = 200;
    CHECK(gd::diff(plan_of(base), plan_of(wider)).changed == indices({200}));
  }
}

TEST_CASE("diff of large plans: a renamed node is no change, and refusals use the template's names",
          "[update][diff][blocks]") {
  Plan base;
  Plan renamed = base;
  renamed.renamed = 130;
  gd::UpdateResult r = gd::diff(plan_of(base), plan_of(renamed));
  CHECK(r);
  CHECK(r.changed.empty());

  renamed.other_function = 130;
  r = gd::diff(plan_of(base), plan_of(renamed));
  CHECK(r.status == gd::UpdateStatus::function_changed);
  REQUIRE(r.node);
  CHECK(r.node->name == "renamed");
  CHECK(r.reason == "kernel node 'renamed' (#130) launches a different kernel function in the template");
}

TEST_CASE("diff of large plans: edges added in another order are the same edges", "[update][diff][blocks]") {
  Plan base;
  base.shape = Shape::fork_join;
  Plan reversed = base;
  reversed.reversed_join = true;
  CHECK(gd::diff(plan_of(base), plan_of(reversed)));
  CHECK(gd::diff(plan_of(base), plan_of(reversed)).changed.empty());
  reversed.changed = {299};
  CHECK(gd::diff(plan_of(base), plan_of(reversed)).changed == indices({299}));
  CHECK(gd::diff(plan_of(reversed), plan_of(base)).changed == indices({299}));

  // One edge of the join replaced by another: the first missing one is named, both ways.
  gd::Graph a = plan_of(base);
  gd::Graph b = plan_of(reversed);
  b.add_edge(b.node(0), b.node(299));  // not an edge of `a`; the join keeps all its other edges
  gd::UpdateResult r = gd::diff(a, b);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "edge #0 -> #299 exists in the template but not in the executable");
  r = gd::diff(b, a);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "edge #0 -> #299 exists in the executable but not in the template");
}

TEST_CASE("diff of large plans: a change inside a child plan or a conditional body", "[update][diff][blocks]") {
  Plan inner;
  inner.n = 200;
  Plan inner_changed = inner;
  inner_changed.changed = {170};
  auto outer = [&](const Plan& child_plan, const Plan& body_plan) {
    Plan top;
    gd::Graph g = plan_of(top);
    g.add_child(plan_of(child_plan)).after(g.node(299));
    const gd::Condition c = g.add_condition(1);
    g.add_if(c, [&](gd::Graph& body) {
      const gd::Graph made = plan_of(body_plan);
      body.add_child(made);
    });
    return g;
  };
  CHECK(gd::diff(outer(inner, inner), outer(inner, inner)).changed.empty());
  CHECK(gd::diff(outer(inner, inner), outer(inner_changed, inner)).changed == indices({300}));
  CHECK(gd::diff(outer(inner, inner), outer(inner, inner_changed)).changed == indices({301}));

  Plan inner_other = inner;
  inner_other.other_function = 100;
  const gd::UpdateResult r = gd::diff(outer(inner, inner), outer(inner_other, inner));
  CHECK(r.status == gd::UpdateStatus::function_changed);
  CHECK(r.reason == "in child node #300: kernel node #100 launches a different kernel function in the template");
}

TEST_CASE("diff of large plans the wholesale compare does not cover", "[update][diff][blocks]") {
  Plan base;
  base.cluster = true;  // launch attributes: every block node by node
  Plan changed = base;
  changed.changed = {5, 250};
  CHECK(gd::diff(plan_of(base), plan_of(changed)).changed == indices({5, 250}));

  Plan mixed;
  mixed.memset_at = 100;  // a memset node in the second block
  Plan mixed_changed = mixed;
  mixed_changed.changed = {99, 101, 200};
  CHECK(gd::diff(plan_of(mixed), plan_of(mixed_changed)).changed == indices({99, 101, 200}));

  Plan kernel_there;  // node 100 a kernel in the template
  const gd::UpdateResult r = gd::diff(plan_of(mixed), plan_of(kernel_there));
  CHECK(r.status == gd::UpdateStatus::node_type_changed);
  CHECK(r.reason == "node #100 is a memset node in the executable but a kernel node in the template");
}

TEST_CASE("node names kept apart from the node records", "[update][diff][blocks][names]") {
  Plan named;
  named.renamed = 250;  // the only named node: names beyond it are not stored
  gd::Graph g = plan_of(named);
  REQUIRE(g.find("renamed"));
  CHECK(g.find("renamed")->index() == 250);
  REQUIRE(g.find(""));
  CHECK(g.find("")->index() == 0);
  CHECK(g.node(299).name().empty());
  CHECK(g.node(250).info().describe() == "kernel node 'renamed' (#250)");
  const gd::Graph copy = g;
  CHECK(copy.node(250).name() == "renamed");
  CHECK(gd::diff(g, copy).changed.empty());

  gd::Graph one("one");
  auto k = one.add_kernel(step, tiny, D, 0, 2.0f, 0.5f).name("k");
  k.name("");  // named, then unnamed: no name again
  CHECK(one.node(0).name().empty());
  REQUIRE(one.find(""));
  CHECK(one.find("")->index() == 0);
}

TEST_CASE("diff of plans of 4,096 nodes or more: the same result with and without the helper thread",
          "[update][diff][blocks][helper]") {
  const bool was = gd::diff_helper_enabled();
  const int n = static_cast<int>(gd::detail::shared_diff_nodes) + 904;  // 5,000 nodes: 79 blocks, the last partial
  auto both = [&](const Plan& x, const Plan& y) {
    const gd::Graph a = plan_of(x), b = plan_of(y);
    gd::set_diff_helper(false);
    const gd::UpdateResult alone = gd::diff(a, b);
    gd::set_diff_helper(true);
    const gd::UpdateResult shared = gd::diff(a, b);
    CHECK(shared.status == alone.status);
    CHECK(shared.changed == alone.changed);
    CHECK(shared.reason == alone.reason);
    CHECK(shared.node.has_value() == alone.node.has_value());
    if (shared.node && alone.node) CHECK(shared.node->index == alone.node->index);
    return shared;
  };
  for (Shape shape : {Shape::chain, Shape::fork_join}) {
    CAPTURE(static_cast<int>(shape));
    Plan base;
    base.shape = shape;
    base.n = n;
    CHECK(both(base, base).changed.empty());
    for (int i : {0, 127, 128, 2500, 4095, 4096, n - 1}) {
      CAPTURE(i);
      Plan p = base;
      p.changed = {i};
      CHECK(both(base, p).changed == indices({static_cast<std::uint32_t>(i)}));
    }
    Plan many = base;
    many.changed = {1, 700, 701, 3000, n - 2};
    CHECK(both(base, many).changed.size() == 5);
    Plan other = base;
    other.other_function = 3333;
    other.renamed = 3333;
    const gd::UpdateResult r = both(base, other);
    CHECK(r.status == gd::UpdateStatus::function_changed);
    CHECK(r.reason == "kernel node 'renamed' (#3333) launches a different kernel function in the template");
    Plan mixed = base;
    mixed.memset_at = 4500;
    CHECK(both(base, mixed).status == gd::UpdateStatus::node_type_changed);
    CHECK(both(mixed, mixed).changed.empty());
  }
  Plan cluster;
  cluster.n = n;
  cluster.cluster = true;  // launch attributes: no block is shown identical wholesale
  Plan cluster_changed = cluster;
  cluster_changed.changed = {5, 4999};
  CHECK(both(cluster, cluster_changed).changed == indices({5, 4999}));

  // The helper takes blocks when it is on (it wakes within a few diffs on a machine of 2 or more
  // threads), none when it is off.
  Plan base;
  base.n = n;
  Plan one = base;
  one.changed = {2500};
  const gd::Graph a = plan_of(base), b = plan_of(one);
  gd::set_diff_helper(false);
  std::uint64_t before = gd::detail::diff_helper_shares();
  for (int r = 0; r < 20; ++r) CHECK(gd::diff(a, b).changed == indices({2500}));
  CHECK(gd::detail::diff_helper_shares() == before);
  if (std::thread::hardware_concurrency() >= 2) {
    gd::set_diff_helper(true);
    before = gd::detail::diff_helper_shares();
    for (int r = 0; r < 2000 && gd::detail::diff_helper_shares() == before; ++r) {
      CHECK(gd::diff(a, b).changed == indices({2500}));
    }
    CHECK(gd::detail::diff_helper_shares() > before);
  }
  gd::set_diff_helper(was);
}

namespace {
void no_args() {}
void wide_step(double, double, float*, int) {}
void take_condition(cudaGraphConditionalHandle, float*, int) {}
void take_buffer(float*, int) {}

/// What a node of mixed_plan launches: step, wide_step, no_args, take_condition with the plan's
/// Condition or with the plain handle 0 (the same argument bytes as the Condition's placeholder),
/// take_buffer with the buffer of node 0 or with a plain null pointer (again the same bytes).
enum class K { step, wide, none, condition, plain_handle, buffer, plain_pointer };

/// A chain of 300 nodes (with `alloc`, node 0 allocates a buffer) of the kernels kind(i); a kernel's
/// int argument is i, or i + 1000 for node `changed`.
template <class F>
gd::Graph mixed_plan(F kind, bool alloc = false, int changed = -1) {
  gd::Graph g("mixed");
  const gd::Condition c = g.add_condition(1);
  gd::GraphBuffer<float> buffer;
  if (alloc) buffer = g.add_mem_alloc<float>(64).buffer;
  for (int i = alloc ? 1 : 0; i < 300; ++i) {
    const int v = i == changed ? i + 1000 : i;
    switch (kind(i)) {
      case K::step: g.add_kernel(step, tiny, D, v, 2.0f, 0.5f); break;
      case K::wide: g.add_kernel(wide_step, tiny, 1.0, 2.0, D, v); break;
      case K::none: g.add_kernel(no_args, tiny); break;
      case K::condition: g.add_kernel(take_condition, tiny, c, D, v); break;
      case K::plain_handle: g.add_kernel(take_condition, tiny, cudaGraphConditionalHandle{0}, D, v); break;
      case K::buffer: g.add_kernel(take_buffer, tiny, buffer, v); break;
      case K::plain_pointer: g.add_kernel(take_buffer, tiny, static_cast<float*>(nullptr), v); break;
    }
    if (i > 0) g.add_edge(g.node(i - 1), g.node(i));
  }
  return g;
}

/// step everywhere but at the nodes of `at`, which launch `there`.
auto kinds_at(std::initializer_list<int> at, K there) {
  const std::vector<int> nodes(at);
  return [nodes, there](int i) { return std::find(nodes.begin(), nodes.end(), i) != nodes.end() ? there : K::step; };
}
}  // namespace

TEST_CASE("diff of large plans: a Condition in one plan, a plain value of the same bytes in the other",
          "[update][diff][blocks]") {
  // The placeholder's bytes are those of the plain handle 0: only the placeholder records tell the
  // two apart, in whichever plan has them (in a block otherwise identical).
  const auto plain = [](int i) { return i == 100 ? K::plain_handle : K::step; };
  const auto with_condition = [](int i) { return i == 100 ? K::condition : K::step; };
  const std::string reason = "kernel node #100 takes other Condition or GraphBuffer arguments in the template";
  for (const bool forward : {true, false}) {
    CAPTURE(forward);
    const gd::Graph a = mixed_plan(forward ? +plain : +with_condition);
    const gd::Graph b = mixed_plan(forward ? +with_condition : +plain);
    const gd::UpdateResult r = gd::diff(a, b);
    CHECK(r.status == gd::UpdateStatus::topology_changed);
    CHECK(r.reason == reason);
  }
  // Both plans have placeholders (at node 10), so both plans' records are read.
  const auto one = [](int i) { return i == 10 ? K::condition : i == 100 ? K::plain_handle : K::step; };
  const auto two = [](int i) { return i == 10 || i == 100 ? K::condition : K::step; };
  CHECK(gd::diff(mixed_plan(one), mixed_plan(two)).reason == reason);
  CHECK(gd::diff(mixed_plan(two), mixed_plan(one)).reason == reason);
  CHECK(gd::diff(mixed_plan(two), mixed_plan(two)).changed.empty());
  CHECK(gd::diff(mixed_plan(two), mixed_plan(two, false, 11)).changed == indices({11}));
  CHECK(gd::diff(mixed_plan(two), mixed_plan(two, false, 101)).changed == indices({101}));
  CHECK(gd::diff(mixed_plan(two), mixed_plan(two, false, 200)).changed == indices({200}));

  // A GraphBuffer in one plan, a plain null pointer in the other.
  const gd::Graph buffer = mixed_plan(kinds_at({100}, K::buffer), true);
  const gd::Graph pointer = mixed_plan(kinds_at({100}, K::plain_pointer), true);
  CHECK(gd::diff(buffer, pointer).reason == reason);
  CHECK(gd::diff(pointer, buffer).reason == reason);
  CHECK(gd::diff(buffer, buffer).changed.empty());
}

TEST_CASE("diff of large plans: argument bytes of kernels of other signatures in a block", "[update][diff][blocks]") {
  // Wider argument blocks in the middle and at the end of a block, and kernels without arguments
  // (whose block is empty: offsets that do not increase), each changed alone.
  const auto wide = [](int i) { return i % 3 == 1 ? K::wide : K::step; };
  const auto none = [](int i) { return i % 5 == 0 ? K::none : K::step; };
  CHECK(gd::diff(mixed_plan(wide), mixed_plan(wide)).changed.empty());
  CHECK(gd::diff(mixed_plan(none), mixed_plan(none)).changed.empty());
  for (int i : {64, 100, 101, 126, 127, 299}) {
    CAPTURE(i);
    const std::vector<std::uint32_t> just_i{static_cast<std::uint32_t>(i)};
    CHECK(gd::diff(mixed_plan(wide), mixed_plan(wide, false, i)).changed == just_i);
    if (i % 5 != 0) CHECK(gd::diff(mixed_plan(none), mixed_plan(none, false, i)).changed == just_i);
  }
}

}  // namespace diff_blocks_test
