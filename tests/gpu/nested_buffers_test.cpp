// GPU tests of graph allocations used inside conditional bodies and child plans: a WHILE body that
// steps graph memory and counts its iterations in graph memory, an IF-ELSE whose branches copy
// between slices, a child plan built on its own that writes a slice of its parent's buffer, and
// set_child / prepare_child / parameter-free updates of such a child. Every value is read back.
#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own (unity builds of the suite, tests/CMakeLists.txt).
namespace nested_buffers_test {

namespace {

constexpr int N = 1024;

/// A child plan built on its own: element N - 1 of `field` set to `edge` (a memset), the first half
/// scaled by `factor`.
gd::Graph boundary(const gd::GraphBuffer<float>& field, float edge, float factor) {
  gd::Graph c("boundary");
  auto e = c.add_memset(field.slice(N - 1, 1), edge, 1).name("edge");
  c.add_kernel(scale_by, gd::cover(N / 2), field.slice(0, N / 2), factor, N / 2).name("half").after(e);
  return c;
}

/// The same with kernels only: `edge` added to element N - 1.
gd::Graph kernels_only(const gd::GraphBuffer<float>& field, float edge, float factor) {
  gd::Graph c("boundary");
  auto e = c.add_kernel(add_scalar, gd::Launch{1, 1}, field.slice(N - 1, 1), edge, 1).name("edge");
  c.add_kernel(scale_by, gd::cover(N / 2), field.slice(0, N / 2), factor, N / 2).name("half").after(e);
  return c;
}

std::vector<float> boundary_result(float edge, float factor) {
  std::vector<float> want(N, 1.0f);
  for (int i = 0; i < N / 2; ++i) want[i] = factor;
  want[N - 1] = edge;
  return want;
}

/// 'parent': `field` set to ones, the child plan `make(field, edge, factor)`, copied out to `out`.
template <class Make>
gd::Graph parent(Make make, float* out, float edge, float factor) {
  gd::Graph g("parent");
  auto [alloc, field] = g.add_mem_alloc<float>(N);
  auto ones = g.add_memset(field, 1.0f, N).after(alloc);
  auto child = g.add_child(make(field, edge, factor)).name("bc").after(ones);
  auto copy = g.add_memcpy(out, field, N).after(child);
  g.add_mem_free(field).after(copy);
  return g;
}

}  // namespace

TEST_CASE("a WHILE body steps graph memory of its plan and counts its iterations in graph memory",
          "[gpu][memory][nested_buffers]") {
  constexpr unsigned limit = 7;
  DeviceBuffer<float> d_out(N);
  DeviceBuffer<unsigned> d_count(1);
  gd::Graph g("loop");
  auto [a1, field] = g.add_mem_alloc<float>(N);
  auto [a2, counter] = g.add_mem_alloc<unsigned>(1);
  auto z1 = g.add_memset(field, 1.0f, N).name("ones").after(a1);
  auto z2 = g.add_memset(counter, 0u, 1).name("zero").after(a2);
  const gd::Condition more = g.add_condition(1);
  auto loop = g.add_while(more, [&, field = field, counter = counter](gd::Graph& body) {
                 auto s = body.add_kernel(add_scalar, gd::cover(N), field, 0.5f, N).name("step");
                 body.add_kernel(step_and_check, gd::Launch{1, 1}, counter, limit, more).name("count").after(s);
               })
                  .name("loop")
                  .after(z1, z2);
  auto out = g.add_memcpy(d_out.get(), field, N).name("out").after(loop);
  auto cnt = g.add_memcpy(d_count.get(), counter, 1).name("count out").after(loop);
  g.add_mem_free(field).after(out);
  g.add_mem_free(counter).after(cnt);
  gd::Executable exec = g.instantiate();
  for (int launch = 0; launch < 2; ++launch) {  // graph memory is reused: each launch starts over
    exec.launch();
    exec.synchronize();
    require_equal(d_out.download(), std::vector<float>(N, 1.0f + 0.5f * limit), "field after the loop");
    require_equal(d_count.download(), std::vector<unsigned>{limit}, "iterations");
  }
}

TEST_CASE("IF-ELSE branches copy between slices of a buffer of the enclosing plan", "[gpu][memory][nested_buffers]") {
  DeviceBuffer<int> d_flag(std::vector<int>{1});
  DeviceBuffer<int> d_out(N);
  gd::Graph g("branches");
  auto [alloc, buf] = g.add_mem_alloc<int>(N);
  auto lo = g.add_memset(buf.slice(0, N / 2), 1, N / 2).name("low").after(alloc);
  auto hi = g.add_memset(buf.slice(N / 2, N / 2), 2, N / 2).name("high").after(lo);
  const gd::Condition c = g.add_condition(0);
  auto set = g.add_kernel(set_from, gd::Launch{1, 1}, c, static_cast<const int*>(d_flag.get())).after(hi);
  auto branch = g.add_if_else(
                     c,
                     [&, buf = buf](gd::Graph& then) { then.add_memcpy(buf.slice(0, N / 2), buf.slice(N / 2, N / 2), N / 2); },
                     [&, buf = buf](gd::Graph& otherwise) {
                       otherwise.add_memcpy(buf.slice(N / 2, N / 2), buf.slice(0, N / 2), N / 2);
                     })
                    .name("branch")
                    .after(set);
  auto out = g.add_memcpy(d_out.get(), buf, N).after(branch);
  g.add_mem_free(buf).after(out);
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), std::vector<int>(N, 2), "then: the high half copied down");
  d_flag.upload(std::vector<int>{0});
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), std::vector<int>(N, 1), "else: the low half copied up");
}

TEST_CASE("a child plan built on its own writes a slice of its parent's graph memory", "[gpu][memory][nested_buffers]") {
  DeviceBuffer<float> d_out(N);
  gd::Graph g = parent(boundary, d_out.get(), 100.0f, 3.0f);
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), boundary_result(100.0f, 3.0f), "the child's writes");
  CHECK(exec.plan().dump().find("destination #0 of the plan 1 level out, bytes [4092, 4096)") != std::string::npos);

  // CUDA builds a memset of graph memory only while the allocating plan is compiled: a new child
  // plan with one is refused before any CUDA call, and the executable keeps running the old one.
  const gd::ChildNode child = gd::node_cast<gd::ChildNode>(*exec.plan().find("bc"));
  gd::Graph other = parent(boundary, d_out.get(), -5.0f, 0.25f);
  REQUIRE_THROWS_WITH(exec.set_child(child, other.child_plan(gd::node_cast<gd::ChildNode>(*other.find("bc")))),
                      has_substr("child node 'bc' (#2): its new child plan has memset node 'edge' (#0), a memset or "
                                 "memcpy on graph memory of the enclosing plan"));
  const gd::UpdateResult r = exec.update(other);
  CHECK(r.status == gd::UpdateStatus::not_supported);
  CHECK(gd::diff(exec.plan(), other).reason == r.reason);
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), boundary_result(100.0f, 3.0f), "unchanged");
}

TEST_CASE("a child plan using its parent's graph memory through kernels is replaced by set_child, prepare_child and "
          "update()",
          "[gpu][memory][nested_buffers][setter]") {
  DeviceBuffer<float> d_out(N);
  gd::Graph g("parent");
  auto [alloc, field] = g.add_mem_alloc<float>(N);
  auto ones = g.add_memset(field, 1.0f, N).after(alloc);
  auto child = g.add_child(kernels_only(field, 99.0f, 3.0f)).name("bc").after(ones);
  auto out = g.add_memcpy(d_out.get(), field, N).after(child);
  g.add_mem_free(field).after(out);
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), boundary_result(100.0f, 3.0f), "the child's writes");

  exec.set_child(child, kernels_only(field, -6.0f, 0.25f));  // built on its own, with the parent's buffer
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), boundary_result(-5.0f, 0.25f), "after set_child");

  const gd::PreparedChild prepared = exec.prepare_child(child, kernels_only(field, 6.0f, 2.0f));
  exec.set_child(child, prepared);
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), boundary_result(7.0f, 2.0f), "after set_child(prepared)");

  const gd::Graph t = parent(kernels_only, d_out.get(), 8.0f, 4.0f);
  CHECK(gd::diff(exec.plan(), t).changed == std::vector<std::uint32_t>{2});
  const gd::UpdateResult r = exec.update(t);
  INFO(r.to_string());
  REQUIRE(r);
  exec.launch();
  exec.synchronize();
  require_equal(d_out.download(), boundary_result(9.0f, 4.0f), "after update()");
}

TEST_CASE("a buffer of another plan is refused for a child node before any CUDA call",
          "[gpu][memory][nested_buffers][setter]") {
  DeviceBuffer<float> d_out(N);
  gd::Graph g("parent");
  auto [alloc, field] = g.add_mem_alloc<float>(N);
  auto child = g.add_child(boundary(field, 1.0f, 1.0f)).name("bc").after(alloc);
  g.add_mem_free(field).after(child);
  gd::Executable exec = g.instantiate();
  gd::Graph other("other");
  auto [oa, foreign] = other.add_mem_alloc<float>(N);
  REQUIRE_THROWS_WITH(exec.set_child(child, boundary(foreign, 1.0f, 1.0f)),
                      has_substr("child node 'bc' (#1): the new child plan has another shape"));
  (void)oa;
  exec.launch();
  exec.synchronize();
  require_device_healthy();
}

}  // namespace nested_buffers_test
