// Unit tests of the per-kind compare concern (src/kinds/<kind>.cpp, "compare" sections): diff()
// and fingerprint() reach every kind's own comparison through the node-kind table, in the same
// order as before the table (a child plan is compared after its node's edges, a conditional's
// bodies before). No CUDA call.
#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace kind_table_test {

namespace {
void scale(float*, float, int) {}

float* const X = reinterpret_cast<float*>(0x1000);
int* const I = reinterpret_cast<int*>(0x2000);

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
}  // namespace

TEST_CASE("diff compares memset and host parameters per kind", "[update][diff][kinds]") {
  auto build = [](int value) {
    gd::Graph g("kinds");
    auto m = g.add_memset(I, value, 16).name("fill");
    g.add_host([] {}).name("host").after(m);
    return g;
  };
  const gd::Graph base = build(1);
  const gd::Graph copy = base;  // shares the host closure: the same parameters
  CHECK(gd::diff(base, copy).changed.empty());
  CHECK(gd::diff(base, build(2)).changed == std::vector<std::uint32_t>{0, 1});  // a new closure is a change
}

TEST_CASE("diff refuses a changed graph allocation and conditional shape", "[update][diff][kinds]") {
  auto alloc = [](std::size_t n) {
    gd::Graph g("alloc");
    auto buf = g.add_mem_alloc<int>(n);
    g.add_mem_free(buf.buffer).after(buf.node);
    return g;
  };
  const gd::UpdateResult a = gd::diff(alloc(64), alloc(128));
  CHECK(a.status == gd::UpdateStatus::not_supported);
  CHECK(a.reason.find("allocates 256 bytes in the executable but 512 in the template") != std::string::npos);
  CHECK(alloc(64).fingerprint() != alloc(128).fingerprint());
  CHECK(alloc(64).fingerprint() == alloc(64).fingerprint());

  auto cond = [](bool loop, float factor) {
    gd::Graph g("cond");
    const gd::Condition c = g.add_condition(1);
    auto body = [&](gd::Graph& b) { b.add_kernel(scale, gd::Launch{1, 32}, X, factor, 32).name("k"); };
    if (loop) {
      g.add_while(c, body).name("c");
    } else {
      g.add_if(c, body).name("c");
    }
    return g;
  };
  const gd::UpdateResult c = gd::diff(cond(false, 1), cond(true, 1));
  CHECK(c.status == gd::UpdateStatus::not_supported);
  CHECK(c.reason.find("CUDA cannot change a conditional node's shape") != std::string::npos);
  CHECK(cond(false, 1).fingerprint() != cond(true, 1).fingerprint());
  CHECK(cond(false, 1).fingerprint() == cond(false, 2).fingerprint());
  CHECK(gd::diff(cond(false, 1), cond(false, 2)).changed == std::vector<std::uint32_t>{0});
}

TEST_CASE("a child plan is compared after its node's edges, a conditional's bodies before", "[update][diff][kinds]") {
  auto with_child = [](bool rewire, bool extra) {
    gd::Graph inner("inner");
    inner.add_empty().name("a");
    if (extra) inner.add_empty().name("b");
    gd::Graph g("outer");
    auto first = g.add_empty().name("first");
    auto second = g.add_empty().name("second");
    g.add_child(inner).name("sub").after(rewire ? second : first);
    return g;
  };
  const gd::UpdateResult both = gd::diff(with_child(false, false), with_child(true, true));
  CHECK(both.status == gd::UpdateStatus::topology_changed);
  CHECK(starts_with(both.reason, "edge "));
  const gd::UpdateResult inner = gd::diff(with_child(false, false), with_child(false, true));
  CHECK(starts_with(inner.reason, "in child node 'sub' (#2): "));

  auto with_if = [](bool rewire, bool extra) {
    gd::Graph g("outer");
    const gd::Condition c = g.add_condition(1);
    auto first = g.add_empty().name("first");
    auto second = g.add_empty().name("second");
    g.add_if(c, [&](gd::Graph& b) {
       b.add_empty().name("a");
       if (extra) b.add_empty().name("b");
     }).name("maybe").after(rewire ? second : first);
    return g;
  };
  const gd::UpdateResult body_first = gd::diff(with_if(false, false), with_if(true, true));
  CHECK(body_first.status == gd::UpdateStatus::topology_changed);
  CHECK(starts_with(body_first.reason, "in body 0 of "));
}

}  // namespace kind_table_test
