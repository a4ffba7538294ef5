// Unit tests of graph memory on the host: typed graph buffers, ordering rules, double frees,
// foreign buffers, sizes, where memory nodes may go. No CUDA call.
#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "plan_checks.hpp"

namespace gd = graphdsl;
using test_support::require_invalid;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace graph_memory_test {

namespace {
void scale(float*, float, int) {}
void read_only(const float*, int) {}
float* const HOST = reinterpret_cast<float*>(0x5000);

}  // namespace

TEST_CASE("a buffer allocated, filled, used and freed in order validates and prints", "[memory]") {
  gd::Graph g("mem");
  auto [alloc, tmp] = g.add_mem_alloc<float>(1024);
  alloc.name("tmp");
  auto fill = g.add_memset(tmp, 1.5f, 1024).name("fill").after(alloc);
  auto k = g.add_kernel(scale, gd::cover(1024), tmp, 2.0f, 1024).name("scale").after(fill);
  auto r = g.add_kernel(read_only, gd::cover(1024), tmp, 1024).name("read").after(k);  // const float* too
  auto out = g.add_memcpy(HOST, tmp, 1024).name("out").after(r);
  g.add_mem_free(tmp).name("free").after(out);
  CHECK(tmp.size() == 1024);
  CHECK(tmp.bytes() == 4096);
  CHECK_NOTHROW(g.validate());
  const std::string dump = g.dump();
  CHECK(dump.find("#0 mem_alloc 'tmp': 4096 bytes on the current device") != std::string::npos);
  CHECK(dump.find("#5 mem_free 'free': frees 'tmp', 4096 bytes; after 'out'") != std::string::npos);
  CHECK(g.to_dot().find("n0 [label=\"tmp\\nmem_alloc\", shape=cylinder];") != std::string::npos);
}

TEST_CASE("every use of a buffer must be ordered after its allocation and before its free", "[memory][errors]") {
  {
    gd::Graph g("early");
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    alloc.name("tmp");
    g.add_kernel(scale, gd::cover(64), tmp, 2.0f, 64).name("k");  // no edge from 'tmp'
    require_invalid(g,
                    "kernel node 'k' (#1) uses the buffer of mem_alloc node 'tmp' (#0) but is not ordered after it; "
                    "add edges so that 'tmp' runs before 'k'");
  }
  {
    gd::Graph g("late");
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    alloc.name("tmp");
    auto k = g.add_kernel(scale, gd::cover(64), tmp, 2.0f, 64).name("k").after(alloc);
    auto f = g.add_mem_free(tmp).name("free").after(alloc);  // not after 'k'
    g.add_memcpy(HOST, tmp, 64).name("copy").after(f, k);     // after the free
    require_invalid(g,
                    "kernel node 'k' (#1) uses the buffer of mem_alloc node 'tmp' (#0) but is not ordered before its "
                    "free, mem_free node 'free' (#2); add edges so that 'k' runs before 'free'");
  }
  {
    gd::Graph g("free-first");
    auto [alloc, tmp] = g.add_mem_alloc<int>(8);
    alloc.name("a");
    g.add_mem_free(tmp).name("f");
    require_invalid(g,
                    "mem_free node 'f' (#1) is not ordered after mem_alloc node 'a' (#0), the allocation it frees; add "
                    "edges so that 'a' runs before 'f'");
  }
}

TEST_CASE("a buffer is freed once, in the plan that allocates it", "[memory][errors]") {
  gd::Graph g("twice");
  auto [alloc, tmp] = g.add_mem_alloc<float>(64);
  alloc.name("a");
  auto f1 = g.add_mem_free(tmp).name("f1").after(alloc);
  g.add_mem_free(tmp).name("f2").after(f1);
  require_invalid(g, "mem_free node 'f1' (#1) and mem_free node 'f2' (#2) both free the buffer of mem_alloc node 'a' "
                     "(#0); a graph allocation is freed once");

  gd::Graph other("other");
  other.add_mem_free(tmp).name("foreign");
  require_invalid(other, "mem_free node 'foreign' (#0): the GraphBuffer it frees is not allocated by graph 'other' (a "
                         "buffer is freed in the plan that allocates it)");
  gd::Graph user("user");
  user.add_kernel(scale, gd::cover(64), tmp, 1.0f, 64).name("k");
  require_invalid(user, "kernel node 'k' (#0): a GraphBuffer argument is not allocated by graph 'user' or a plan "
                        "enclosing it (a buffer is used in the plan that allocates it, in that plan's conditional "
                        "bodies and in child plans added to it)");
  gd::Graph copier("copier");
  copier.add_memcpy(HOST, tmp, 64).name("c");
  require_invalid(copier, "memcpy node 'c' (#0): its source is a GraphBuffer not allocated by graph 'copier' or a plan "
                          "enclosing it (a buffer is used in the plan that allocates it, in that plan's conditional "
                          "bodies and in child plans added to it)");
}

TEST_CASE("sizes: no empty allocation, no copy beyond the buffer", "[memory][errors]") {
  gd::Graph empty("empty");
  empty.add_mem_alloc<float>(0).node.name("none");
  require_invalid(empty, "mem_alloc node 'none' (#0): allocates 0 bytes; a graph allocation needs at least one");

  gd::Graph big("big");
  auto [alloc, tmp] = big.add_mem_alloc<float>(16);
  alloc.name("a");
  big.add_memset(tmp, 0.0f, 32).name("too much").after(alloc);
  require_invalid(big, "memset node 'too much' (#1): touches 128 bytes of its destination, the buffer of mem_alloc "
                       "node 'a' (#0), which holds 64 bytes");
}

TEST_CASE("memory nodes stay out of conditional bodies and embedded child plans", "[memory][errors]") {
  gd::Graph g("g");
  const auto c = g.add_condition(1);
  g.add_while(c, [](gd::Graph& body) { body.add_mem_alloc<float>(4).node.name("inner"); }).name("loop");
  require_invalid(g, "in body 0 (while body) of conditional node 'loop' (#0) of graph 'g': mem_alloc node 'inner' "
                     "(#0): mem_alloc nodes are not allowed in a conditional body (bodies may hold kernel, empty, "
                     "child, memset, memcpy and conditional nodes)");

  gd::Graph child("child");
  auto [alloc, tmp] = child.add_mem_alloc<float>(4);
  child.add_mem_free(tmp).after(alloc);
  CHECK_NOTHROW(child.validate());
  gd::Graph outer("outer");
  outer.add_child(child).name("sub");
  require_invalid(outer, "child node 'sub' (#0): child plan 'child' contains a mem_alloc node; CUDA cannot embed graph "
                         "allocations in a child graph by copy (allocate in the enclosing plan instead)");
}

TEST_CASE("the diff treats allocations as structure", "[memory][update][diff]") {
  auto build = [](std::size_t n, float factor) {
    gd::Graph g("m");
    auto [alloc, tmp] = g.add_mem_alloc<float>(n);
    auto k = g.add_kernel(scale, gd::cover(64), tmp, factor, 64).after(alloc);
    g.add_mem_free(tmp).after(k);
    return g;
  };
  CHECK(gd::diff(build(64, 1.0f), build(64, 2.0f)).changed == std::vector<std::uint32_t>{1});
  const gd::UpdateResult r = gd::diff(build(64, 1.0f), build(128, 1.0f));
  CHECK(r.status == gd::UpdateStatus::not_supported);
  CHECK(r.reason == "mem_alloc node #0 allocates 256 bytes in the executable but 512 in the template (or on another "
                    "device); CUDA cannot change a graph allocation");
}

}  // namespace graph_memory_test
