// Unit tests of graph allocations used inside conditional bodies and child plans: which plans may
// use a top-level plan's buffer, what validate() checks there (lifetime, slice ranges, copies out of
// their plan), dumps, diffs of two builds, and the race checker. No CUDA call.
#include <cstdint>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "plan_checks.hpp"

namespace gd = graphdsl;
using test_support::require_invalid;

// The file's names live in a namespace of its own (unity builds of the suite, tests/CMakeLists.txt).
namespace nested_buffers_test {

namespace {
void step(float*, int) {}
void peek(const float*, int) {}
void stop(cudaGraphConditionalHandle, const float*) {}
float* const HOST = reinterpret_cast<float*>(0x5000);

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// 'top': 'field' (256 floats) allocated, a WHILE loop whose body steps it, clears a slice of it and
/// reads it to decide; the result copied out; the buffer freed. `slice_at` places the body's memset.
gd::Graph loop_plan(std::size_t slice_at = 64, const char* name = "top") {
  gd::Graph g(name);
  auto [alloc, field] = g.add_mem_alloc<float>(256);
  alloc.name("field");
  const gd::Condition more = g.add_condition(1);
  auto loop = g.add_while(more, [&, field = field](gd::Graph& body) {
                 auto s = body.add_kernel(step, gd::cover(256), field, 256).name("step");
                 auto z = body.add_memset(field.slice(slice_at, 16), 0.0f, 16).name("clear").after(s);
                 body.add_kernel(stop, gd::Launch{1, 1}, more, field).name("decide").after(z);
               })
                  .name("loop")
                  .after(alloc);
  auto out = g.add_memcpy(HOST, field, 256).name("out").after(loop);
  g.add_mem_free(field).name("free").after(out);
  return g;
}

}  // namespace

TEST_CASE("a conditional body uses the buffers of the plan it is built in", "[nested_buffers]") {
  const gd::Graph g = loop_plan();
  CHECK_NOTHROW(g.validate());
  const std::string dump = g.dump();
  CHECK(has(dump, "argument 1: buffer of #0 of the plan 1 level out, bytes [0, 1024)"));
  CHECK(has(dump, "destination #0 of the plan 1 level out, bytes [256, 320)"));
  CHECK(g.check_races().ok());
}

TEST_CASE("a body inside a body reaches the top-level plan's buffer", "[nested_buffers]") {
  gd::Graph g("top");
  auto [alloc, field] = g.add_mem_alloc<float>(64);
  const gd::Condition outer = g.add_condition(1);
  const gd::Condition inner = g.add_condition(0);
  g.add_while(outer, [&, field = field](gd::Graph& body) {
     body.add_if(inner, [&](gd::Graph& then) { then.add_kernel(step, gd::cover(64), field, 64).name("deep"); });
     body.add_kernel(stop, gd::Launch{1, 1}, outer, field).name("decide");
   }).after(alloc);
  CHECK_NOTHROW(g.validate());
  CHECK(has(g.dump(), "buffer of #0 of the plan 2 levels out, bytes [0, 256)"));
}

TEST_CASE("a child plan built on its own uses the buffer of the plan it is added to", "[nested_buffers]") {
  gd::Graph g("top");
  auto [alloc, field] = g.add_mem_alloc<float>(128);
  alloc.name("field");
  gd::Graph boundary("boundary");
  boundary.add_memset(field.slice(127, 1), 100.0f, 1).name("edge");
  boundary.add_kernel(step, gd::cover(128), field, 128).name("smooth");
  // On its own the child plan cannot compile: no plan it is in allocates the buffer.
  require_invalid(boundary,
                  "memset node 'edge' (#0): its destination is a GraphBuffer not allocated by graph 'boundary' or a plan "
                  "enclosing it (a buffer is used in the plan that allocates it, in that plan's conditional bodies and "
                  "in child plans added to it)");
  auto child = g.add_child(boundary).name("bc").after(alloc);
  g.add_mem_free(field).after(child);
  CHECK_NOTHROW(g.validate());
  CHECK(has(g.dump(), "destination #0 of the plan 1 level out, bytes [508, 512)"));
  // The plan the child was built as is unchanged, and still refused on its own.
  require_invalid(boundary,
                  "memset node 'edge' (#0): its destination is a GraphBuffer not allocated by graph 'boundary' or a plan "
                  "enclosing it (a buffer is used in the plan that allocates it, in that plan's conditional bodies and "
                  "in child plans added to it)");
  // Moved in, the same.
  gd::Graph moved("moved");
  moved.add_kernel(step, gd::cover(128), field, 128);
  auto m = g.add_child(std::move(moved)).after(alloc);
  g.add_edge(m, g.node(2));  // before the free
  CHECK_NOTHROW(g.validate());
}

TEST_CASE("a child plan nested in a child plan resolves when the outer one is added", "[nested_buffers]") {
  gd::Graph g("top");
  auto [alloc, field] = g.add_mem_alloc<float>(32);
  gd::Graph inner("inner");
  inner.add_kernel(step, gd::cover(32), field, 32).name("k");
  gd::Graph middle("middle");
  middle.add_child(inner).name("in");  // 'middle' does not allocate 'field': still open
  require_invalid(middle,
                  "in child node 'in' (#0) of graph 'middle': kernel node 'k' (#0): a GraphBuffer argument is not "
                  "allocated by graph 'inner' or a plan enclosing it (a buffer is used in the plan that allocates it, "
                  "in that plan's conditional bodies and in child plans added to it)");
  g.add_child(middle).after(alloc);
  CHECK_NOTHROW(g.validate());
  CHECK(has(g.dump(), "buffer of #0 of the plan 2 levels out, bytes [0, 128)"));
}

TEST_CASE("a node holding a plan that uses a buffer runs between its allocation and its free", "[nested_buffers]") {
  gd::Graph g("top");
  auto [alloc, field] = g.add_mem_alloc<float>(64);
  alloc.name("field");
  const gd::Condition go = g.add_condition(1);
  auto branch = g.add_if(go, [&, field = field](gd::Graph& body) { body.add_kernel(step, gd::cover(64), field, 64); })
                    .name("branch");
  require_invalid(g,
                  "conditional node 'branch' (#1) uses the buffer of mem_alloc node 'field' (#0) but is not ordered "
                  "after it; add edges so that 'field' runs before 'branch'");
  g.add_edge(alloc, branch);
  auto f = g.add_mem_free(field).name("free").after(alloc);
  require_invalid(g,
                  "conditional node 'branch' (#1) uses the buffer of mem_alloc node 'field' (#0) but is not ordered "
                  "before its free, mem_free node 'free' (#2); add edges so that 'branch' runs before 'free'");
  g.set_predecessors(f, {branch});
  CHECK_NOTHROW(g.validate());
}

TEST_CASE("a body copied out keeps its buffer references: embedded elsewhere it is refused", "[nested_buffers]") {
  const gd::Graph g = loop_plan();
  const gd::Graph fragment = g.body_plan(gd::node_cast<gd::ConditionalNode>(g.node(1)), 0);
  require_invalid(fragment,
                  "kernel node 'step' (#0): argument 1 is a GraphBuffer not allocated by graph 'while body' or a plan it "
                  "is compiled in: it refers to the plan 1 level out, which this plan was copied out of (body_plan, "
                  "child_plan) (a buffer is used in the plan that allocates it, in that plan's conditional bodies and "
                  "in child plans added to it)");
  gd::Graph other("other");
  auto [a, b] = other.add_mem_alloc<float>(8);  // node #0 allocates another buffer
  other.add_child(fragment).name("copied").after(a);
  require_invalid(other,
                  "in child node 'copied' (#1) of graph 'other': kernel node 'step' (#0): argument 1 is a GraphBuffer "
                  "not allocated by graph 'other', 1 level out, at the place it refers to (a plan copied out with "
                  "body_plan or child_plan keeps its references to the buffers of the plan it came from: embed it "
                  "there)");
  (void)b;
}

TEST_CASE("a memset in a body larger than the buffer it is given is refused", "[nested_buffers]") {
  gd::Graph g("top");
  auto [alloc, field] = g.add_mem_alloc<float>(16);
  const gd::Condition go = g.add_condition(1);
  g.add_if(go, [&, field = field](gd::Graph& body) {
     body.add_memset(field.slice(8, 8), 1.0f, 16).name("over");
   }).after(alloc);
  require_invalid(g,
                  "in body 0 (if body) of conditional node #1 of graph 'top': memset node 'over' (#0): touches 64 "
                  "bytes of its destination, a GraphBuffer of a plan enclosing graph 'if body', which holds 32 bytes");
}

TEST_CASE("two builds of a plan whose body uses its buffers diff as equal; another slice is a change",
          "[nested_buffers]") {
  const gd::Graph a = loop_plan(64);
  const gd::Graph b = loop_plan(64);
  CHECK(a.fingerprint() == b.fingerprint());
  const gd::UpdateResult same = gd::diff(a, b);
  CHECK(same.status == gd::UpdateStatus::success);
  CHECK(same.changed.empty());
  // A body changes only through cudaGraphExecUpdate, which graphdsl does not use on a plan that
  // allocates: the diff names the change it cannot apply.
  const gd::UpdateResult moved = gd::diff(a, loop_plan(128));
  CHECK(moved.status == gd::UpdateStatus::not_supported);
  CHECK(has(moved.reason, "graph 'top' allocates graph memory"));
}

TEST_CASE("the race checker sees a body's use of a buffer as the conditional node's", "[nested_buffers]") {
  gd::Graph g("top");
  auto [alloc, field] = g.add_mem_alloc<float>(64);
  const gd::Condition go = g.add_condition(1);
  auto branch = g.add_if(go, [&, field = field](gd::Graph& body) { body.add_kernel(step, gd::cover(64), field, 64); })
                    .name("branch")
                    .after(alloc);
  g.add_kernel(peek, gd::cover(64), field, 64).name("reader").after(alloc);  // unordered with 'branch'
  const gd::RaceReport r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(has(r.to_string(), "'branch'"));
  CHECK(has(r.to_string(), "'reader'"));
  (void)branch;
}

}  // namespace nested_buffers_test

namespace nested_buffers_test {

TEST_CASE("diff() refuses a child plan that must be rebuilt with a memset of its parent's graph memory",
          "[nested_buffers][diff]") {
  auto plan = [](float value, bool memset) {
    gd::Graph g("top");
    auto [alloc, field] = g.add_mem_alloc<float>(64);
    gd::Graph c("bc");
    if (memset) {
      c.add_memset(field.slice(0, 8), value, 8).name("fill");
    } else {
      c.add_kernel(step, gd::cover(8), field.slice(0, 8), static_cast<int>(value));
    }
    g.add_child(c).name("child").after(alloc);
    return g;
  };
  const gd::UpdateResult copies = gd::diff(plan(1.0f, true), plan(2.0f, true));
  CHECK(copies.status == gd::UpdateStatus::not_supported);
  CHECK(copies.reason ==
        "child node 'child' (#1): its new child plan has memset node 'fill' (#0), a memset or memcpy on graph memory "
        "of the enclosing plan; CUDA creates such nodes only while the plan that allocates the memory is being "
        "compiled (cudaGraphAddMemsetNode and cudaGraphAddMemcpyNode return cudaErrorInvalidValue for it "
        "afterwards), so the child cannot be rebuilt in an executable: compile the new plan (kernels on that memory "
        "can be replaced)");
  const gd::UpdateResult kernels = gd::diff(plan(1.0f, false), plan(2.0f, false));
  CHECK(kernels.status == gd::UpdateStatus::success);
  CHECK(kernels.changed == std::vector<std::uint32_t>{1});
}

}  // namespace nested_buffers_test
