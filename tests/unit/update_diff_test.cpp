// Unit tests of the host-side update diff (graphdsl::diff), fingerprints and UpdateResult printing.
// No CUDA call: every case also checks debug::cuda_calls().
#include <memory>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

#include "catch.hpp"

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace update_diff_test {

namespace {
void scale(float*, float, int) {}
void shift(float*, float, int) {}
void add3(const float*, const float*, float*, int) {}

float* const X = reinterpret_cast<float*>(0x1000);
float* const Y = reinterpret_cast<float*>(0x2000);
float* const Z = reinterpret_cast<float*>(0x3000);

struct Params {
  float a = 2.0f;
  float b = 3.0f;
  int memset_value = 7;
  bool extra_node = false;
  bool host_kind = false;
  bool other_function = false;
  bool rewire = false;
  bool reverse_edge_order = false;
};

// 'upload' -> {'scale', 'shift'} -> 'sum' -> 'fill'
gd::Graph pipeline(const Params& p, std::shared_ptr<int> counter = nullptr) {
  gd::Graph g("pipe");
  auto up = g.add_memcpy(X, Y, 64).name("upload");
  auto a = g.add_kernel(p.other_function ? shift : scale, gd::Launch{1, 64}, X, p.a, 64).name("scale").after(up);
  auto b = g.add_kernel(shift, gd::Launch{1, 64}, Y, p.b, 64).name("shift").after(up);
  gd::Node sum;
  if (p.host_kind) {
    sum = g.add_host([] {}).name("sum");
  } else {
    sum = g.add_kernel(add3, gd::Launch{1, 64}, X, Y, Z, 64).name("sum");
  }
  if (p.reverse_edge_order) {
    g.add_edge(b, sum);
    g.add_edge(p.rewire ? gd::Node(up) : gd::Node(a), sum);
  } else {
    g.add_edge(p.rewire ? gd::Node(up) : gd::Node(a), sum);
    g.add_edge(b, sum);
  }
  auto fill = g.add_memset(reinterpret_cast<int*>(Z), p.memset_value, 64).name("fill").after(sum);
  if (p.extra_node) g.add_empty().name("extra").after(fill);
  if (counter) g.add_host([counter] { ++*counter; }).name("count").after(fill);
  return g;
}
}  // namespace

TEST_CASE("diff of identical plans succeeds with nothing changed", "[update][diff]") {
  const auto calls = gd::debug::cuda_calls();
  const gd::UpdateResult r = gd::diff(pipeline({}), pipeline({}));
  CHECK(r);
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed.empty());
  CHECK(r.strategy == gd::UpdateStrategy::none);
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("diff names the node a template adds or drops", "[update][diff]") {
  const auto calls = gd::debug::cuda_calls();
  Params more;
  more.extra_node = true;
  gd::UpdateResult r = gd::diff(pipeline({}), pipeline(more));
  CHECK_FALSE(r);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  REQUIRE(r.node);
  CHECK(r.node->name == "extra");
  CHECK(r.node->index == 5);
  CHECK(r.reason == "the template has 6 nodes, the executable 5: empty node 'extra' (#5) is not in the executable");

  r = gd::diff(pipeline(more), pipeline({}));
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "the template has 5 nodes, the executable 6: empty node 'extra' (#5) is not in the template");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("diff refuses a changed node kind", "[update][diff]") {
  Params host;
  host.host_kind = true;
  const gd::UpdateResult r = gd::diff(pipeline({}), pipeline(host));
  CHECK(r.status == gd::UpdateStatus::node_type_changed);
  REQUIRE(r.node);
  CHECK(r.node->index == 3);
  CHECK(r.reason == "node #3 is a kernel node in the executable but a host node in the template");
}

TEST_CASE("diff refuses a changed kernel function", "[update][diff]") {
  Params other;
  other.other_function = true;
  const gd::UpdateResult r = gd::diff(pipeline({}), pipeline(other));
  CHECK(r.status == gd::UpdateStatus::function_changed);
  REQUIRE(r.node);
  CHECK(r.node->name == "scale");
  CHECK(r.reason == "kernel node 'scale' (#1) launches a different kernel function in the template");
}

TEST_CASE("diff names both ends of a rewired edge", "[update][diff]") {
  Params rewired;
  rewired.rewire = true;
  gd::UpdateResult r = gd::diff(pipeline({}), pipeline(rewired));
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  REQUIRE(r.node);
  REQUIRE(r.from_node);
  CHECK(r.node->name == "sum");
  CHECK(r.from_node->name == "scale");
  CHECK(r.reason == "edge 'scale' -> 'sum' exists in the executable but not in the template");
  CHECK(fmt::format("{}", r) ==
        "update refused (topology changed): edge 'scale' -> 'sum' exists in the executable but not in the template");

  // An extra edge only in the template.
  gd::Graph base = pipeline({});
  gd::Graph extra = pipeline({});
  extra.add_edge(*extra.find("shift"), *extra.find("fill"));
  r = gd::diff(base, extra);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "edge 'shift' -> 'fill' exists in the template but not in the executable");
  CHECK(r.from_node->name == "shift");
  CHECK(r.node->name == "fill");
}

TEST_CASE("edge insertion order is not part of the shape", "[update][diff][fingerprint]") {
  Params reversed;
  reversed.reverse_edge_order = true;
  CHECK(gd::diff(pipeline({}), pipeline(reversed)));
  CHECK(pipeline({}).fingerprint() == pipeline(reversed).fingerprint());
}

TEST_CASE("diff lists exactly the nodes whose parameters changed", "[update][diff]") {
  Params p;
  p.b = 4.0f;        // 'shift' (#2)
  p.memset_value = 9;  // 'fill' (#4)
  gd::UpdateResult r = gd::diff(pipeline({}), pipeline(p));
  CHECK(r);
  CHECK(r.changed == std::vector<std::uint32_t>{2, 4});

  // A new host closure is a change; the same closure (a copied plan) is not.
  auto counter = std::make_shared<int>(0);
  gd::Graph with_host = pipeline({}, counter);
  CHECK(gd::diff(with_host, gd::Graph(with_host)).changed.empty());
  CHECK(gd::diff(with_host, pipeline({}, counter)).changed == std::vector<std::uint32_t>{5});
}

TEST_CASE("diff sees launch-shape and memcpy changes", "[update][diff]") {
  auto build = [](unsigned grid, float* src) {
    gd::Graph g("g");
    auto c = g.add_memcpy(X, src, 16).name("copy");
    g.add_kernel(scale, gd::Launch{grid, 32}, X, 1.0f, 16).name("k").after(c);
    return g;
  };
  const gd::Graph base = build(1, Y);
  CHECK(gd::diff(base, build(2, Y)).changed == std::vector<std::uint32_t>{1});
  CHECK(gd::diff(base, build(1, Z)).changed == std::vector<std::uint32_t>{0});
}

TEST_CASE("diff descends into child plans", "[update][diff]") {
  auto child = [](float factor, bool extra) {
    gd::Graph c("inner");
    auto k = c.add_kernel(scale, gd::Launch{1, 32}, X, factor, 32).name("inner_scale");
    if (extra) c.add_empty().name("inner_extra").after(k);
    return c;
  };
  auto outer = [&](float factor, bool extra) {
    gd::Graph g("outer");
    auto first = g.add_empty().name("first");
    g.add_child(child(factor, extra)).name("sub").after(first);
    return g;
  };
  CHECK(gd::diff(outer(1, false), outer(2, false)).changed == std::vector<std::uint32_t>{1});
  const gd::UpdateResult r = gd::diff(outer(1, false), outer(1, true));
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  REQUIRE(r.node);
  CHECK(r.node->name == "sub");
  CHECK(r.reason ==
        "in child node 'sub' (#1): the template has 2 nodes, the executable 1: empty node 'inner_extra' (#1) is not in "
        "the executable");
  CHECK(outer(1, false).fingerprint() == outer(2, false).fingerprint());
  CHECK(outer(1, false).fingerprint() != outer(1, true).fingerprint());
}

TEST_CASE("a cyclic template is refused as a topology change naming the new edge", "[update][diff]") {
  gd::Graph bad = pipeline({});
  bad.add_edge(*bad.find("fill"), *bad.find("upload"));
  const gd::UpdateResult r = gd::diff(pipeline({}), bad);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "edge 'fill' -> 'upload' exists in the template but not in the executable");
}

TEST_CASE("a template whose changed node breaks a rule is refused with the validation message", "[update][diff]") {
  gd::Graph bad("pipe");
  gd::Graph good("pipe");
  for (gd::Graph* g : {&good, &bad}) {
    auto k = g->add_kernel(scale, gd::Launch{1, 64}, X, 1.0f, 64).name("k");
    g->add_memset(g == &bad ? static_cast<int*>(nullptr) : reinterpret_cast<int*>(Z), 1, 64).name("fill").after(k);
  }
  const auto calls = gd::debug::cuda_calls();
  const gd::UpdateResult r = gd::diff(good, bad);
  CHECK(r.status == gd::UpdateStatus::invalid_template);
  CHECK(r.reason == "memset node 'fill' (#1): the destination pointer is null");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("renaming nodes is not a parameter change", "[update][diff]") {
  gd::Graph renamed = pipeline({});
  gd::KernelNode<float*, float, int>(renamed.find("scale")->ref()).name("scale2");
  CHECK(gd::diff(pipeline({}), renamed).changed.empty());
}

TEST_CASE("fingerprints follow structure, not parameters", "[fingerprint]") {
  Params p;
  p.a = 10.0f;
  p.memset_value = 1;
  CHECK(pipeline({}).fingerprint() == pipeline(p).fingerprint());
  Params kind;
  kind.host_kind = true;
  Params fn;
  fn.other_function = true;
  Params rewired;
  rewired.rewire = true;
  Params more;
  more.extra_node = true;
  const auto base = pipeline({}).fingerprint();
  CHECK(base != pipeline(kind).fingerprint());
  CHECK(base != pipeline(fn).fingerprint());
  CHECK(base != pipeline(rewired).fingerprint());
  CHECK(base != pipeline(more).fingerprint());
}

TEST_CASE("UpdateResult prints how an update was applied", "[update][format]") {
  gd::UpdateResult r;
  r.strategy = gd::UpdateStrategy::per_node;
  r.patched = 3;
  CHECK(r.to_string() == "update applied (per_node): 3 nodes patched");
  r.patched = 1;
  r.strategy = gd::UpdateStrategy::whole_graph;
  CHECK(fmt::format("{}", r) == "update applied (whole_graph): 1 node patched");
  CHECK(fmt::format("{}", gd::UpdateStatus::unsupported_function_change) == "unsupported function change");
}

}  // namespace update_diff_test
