// Editing a plan's nodes in place: the typed setters of Graph (set_kernel_args, set_memset, ...)
// and Graph::remove_node. Each edit leaves the plan equal to one built with the edited values (or
// without the node), is refused with a UsageError naming the node and the rule, changing nothing,
// and makes no CUDA call.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "plan/graph_impl.hpp"
#include "unit_support.hpp"

namespace edit_nodes_test {

namespace {

namespace gd = graphdsl;
using unit::Buffers;

void work(float*, float, int) {}
void other_work(float*, float, int) {}
void bytes_kernel(unsigned char*, int) {}

/// Everything a plan shows of itself: what an edited plan and a plan built with the edited values
/// must agree on.
void check_same_plan(const gd::Graph& edited, const gd::Graph& built) {
  CHECK(edited.dump() == built.dump());
  CHECK(edited.to_dot() == built.to_dot());
  CHECK(edited.fingerprint() == built.fingerprint());
  const gd::UpdateResult r = gd::diff(edited, built);
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed.empty());
}

}  // namespace

// ---- the setters ---------------------------------------------------------------------------------

TEST_CASE("set_kernel_args, set_kernel and set_launch change a kernel node in the plan", "[edit][setters]") {
  Buffers b;
  gd::Graph g("g");
  auto k = g.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32).name("k");
  auto tail = g.add_empty().name("tail").after(k);
  const gd::Graph before = g;
  g.set_kernel_args(k, b.y, 2.5f, 64);
  {
    gd::Graph built("g");
    auto k2 = built.add_kernel(work, gd::Launch{1, 32}, b.y, 2.5f, 64).name("k");
    built.add_empty().name("tail").after(k2);
    check_same_plan(g, built);
  }
  // The plan diffs against its state before as a parameter change of that node only.
  const gd::UpdateResult r = gd::diff(before, g);
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed == std::vector<std::uint32_t>{k.index()});
  g.set_kernel(k, other_work, gd::Launch{4, 128}, b.z, 3.0f, 16);
  g.set_launch(k, gd::Launch{8, 64, 256, 2}.with_cluster(2));
  gd::Graph built("g");
  auto k2 = built.add_kernel(other_work, gd::Launch{8, 64, 256, 2}.with_cluster(2), b.z, 3.0f, 16)
                .name("k");
  built.add_empty().name("tail").after(k2);
  check_same_plan(g, built);
  CHECK(g.launch_of(k).cluster.x == 2);  // the plan takes the whole launch, attributes included
  CHECK(g.predecessors(tail) == std::vector<gd::Node>{k});
}

TEST_CASE("the kernel setters of a plan are checked like add_kernel and leave the plan unchanged when refused",
          "[edit][setters]") {
  Buffers b;
  gd::Graph g("g");
  auto k = g.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32).name("k");
  const std::string before = g.dump();
  CHECK_USAGE_ERROR(g.set_launch(k, gd::Launch{1, 2048}),
                    "graphdsl: kernel node 'k' (#0): block (2048,1,1) has 2048 threads; CUDA allows at most 1024 "
                    "threads per block");
  CHECK(g.dump() == before);
  CHECK(g.launch_of(k).block.x == 32);
  // A handle of another signature made from a NodeRef: the layouts differ.
  const gd::KernelNode<unsigned char*, int> wrong(k.ref());
  unsigned char c[4] = {};
  CHECK_USAGE_ERROR(g.set_kernel_args(wrong, c, 1),
                    "graphdsl: kernel node 'k' (#0): the setter's kernel arguments (2 parameters, 12 bytes) do not "
                    "match the kernel the node launches (3 parameters, 16 bytes): a KernelNode handle of another "
                    "signature (node_cast checks it; KernelNodeOf<decltype(kernel)> names it), or one from before set_kernel "
                      "switched the node to another signature (use the handle it returned)");
  CHECK(g.dump() == before);
  (void)bytes_kernel;
}

TEST_CASE("set_memset and set_memcpy change memset and memcpy nodes, raw pointers and graph buffers",
          "[edit][setters]") {
  Buffers b;
  gd::Graph g("g");
  auto buf = g.add_mem_alloc<float>(64);
  buf.node.name("buf");
  auto m = g.add_memset(b.x, 1.0f, 16).name("m");
  auto bm = g.add_memset(buf.buffer, 0.0f, 64).name("bm").after(buf.node);
  auto c = g.add_memcpy(b.y, b.x, 16).name("c").after(m);
  auto in = g.add_memcpy(buf.buffer, b.host_in, 64).name("in").after(bm);
  auto out = g.add_memcpy(b.host_out, buf.buffer, 64).name("out").after(in);
  g.add_mem_free(buf.buffer).name("free").after(out);
  g.set_memset(m, b.z, 7.0f, 32);
  g.set_memset(bm, buf.buffer.slice(8, 16), 2.0f, 16);
  g.set_memcpy(c, b.z, b.y, 8);
  g.set_memcpy(in, buf.buffer.slice(0, 32), b.host_in, 32);
  g.set_memcpy(out, b.host_out, buf.buffer.slice(32, 32), 32);
  gd::Graph built("g");
  auto buf2 = built.add_mem_alloc<float>(64);
  buf2.node.name("buf");
  auto m2 = built.add_memset(b.z, 7.0f, 32).name("m");
  auto bm2 = built.add_memset(buf2.buffer.slice(8, 16), 2.0f, 16).name("bm").after(buf2.node);
  built.add_memcpy(b.z, b.y, 8).name("c").after(m2);
  auto in2 = built.add_memcpy(buf2.buffer.slice(0, 32), b.host_in, 32).name("in").after(bm2);
  auto out2 = built.add_memcpy(b.host_out, buf2.buffer.slice(32, 32), 32).name("out").after(in2);
  built.add_mem_free(buf2.buffer).name("free").after(out2);
  check_same_plan(g, built);
  CHECK(g.memset_of(m).value == gd::detail::bit_pattern(7.0f));
  CHECK(g.memcpy_of(c).bytes == 8 * sizeof(float));
  g.validate();
}

TEST_CASE("set_memset and set_memcpy are refused with the messages of the executable's setters, changing nothing",
          "[edit][setters]") {
  Buffers b;
  unsigned char u8[16] = {};
  gd::Graph g("g");
  auto buf = g.add_mem_alloc<float>(64);
  buf.node.name("buf");
  auto m = g.add_memset(b.x, 1.0f, 16).name("m");
  auto m8 = g.add_memset(u8, std::uint8_t{1}, 16).name("m8");
  auto bm = g.add_memset(buf.buffer, 0.0f, 64).name("bm").after(buf.node);
  auto c = g.add_memcpy(b.y, b.x, 16).name("c");
  auto in = g.add_memcpy(buf.buffer, b.host_in, 64).name("in").after(bm);
  g.add_mem_free(buf.buffer).name("free").after(in);
  const std::string before = g.dump();
  const std::uint64_t fingerprint = g.fingerprint();
  CHECK_USAGE_ERROR(g.set_memset(m8, u8, 300, 16),
                    "graphdsl: set_memset: 300 does not convert exactly to the element type (8-bit unsigned integer)");
  CHECK_USAGE_ERROR(g.set_memset(m, b.x, 1.0f, std::numeric_limits<std::size_t>::max()),
                    fmt::format("graphdsl: add_memset: the count {} is not a size (-1 as a signed number: a negative "
                                "count converted to std::size_t?); counts must be at most {}",
                                std::numeric_limits<std::size_t>::max(), gd::detail::max_bytes));
  CHECK_USAGE_ERROR(g.set_memset(m, static_cast<float*>(nullptr), 1.0f, 16),
                    "graphdsl: memset node 'm' (#1): the destination pointer is null");
  CHECK_USAGE_ERROR(
      g.set_memset(bm, b.x, 1.0f, 16),
      "graphdsl: memset node 'bm' (#3): the destination is the GraphBuffer of mem_alloc node 'buf' (#0) in the plan "
      "but a plain pointer in the setter; setters and update() patch values, not which arguments are Conditions, "
      "GraphBuffers or __device__ symbols (remove the node and add a new one for that)");
  CHECK_USAGE_ERROR(
      g.set_memcpy(c, buf.buffer, b.host_in, 16),
      "graphdsl: memcpy node 'c' (#4): the destination is a plain pointer in the plan but the GraphBuffer of mem_alloc "
      "node 'buf' (#0) in the setter; setters and update() patch values, not which arguments are Conditions, "
      "GraphBuffers or __device__ symbols (remove the node and add a new one for that)");
  CHECK_USAGE_ERROR(g.set_memcpy(in, buf.buffer, b.host_in, 128),
                    "graphdsl: memcpy node 'in' (#5): touches 512 bytes of its destination, the buffer of mem_alloc "
                    "node 'buf' (#0), which holds 256 bytes");
  CHECK(g.dump() == before);
  CHECK(g.fingerprint() == fingerprint);
}

TEST_CASE("set_host, set_event and set_child replace what the node holds", "[edit][setters]") {
  gd::Graph g("g");
  auto witness = std::make_shared<int>(1);
  std::weak_ptr<int> old_closure = witness;
  auto h = g.add_host([w = std::move(witness)] { (void)w; }).name("h");
  const gd::Event e1 = gd::Event::create(), e2 = gd::Event::create();
  auto rec = g.add_event_record(e1).name("rec");
  auto wait = g.add_event_wait(e1).name("wait").after(rec);
  gd::Graph child("child");
  child.add_empty().name("inner");
  auto c = g.add_child(child).name("c");
  const gd::Graph before = g;
  g.set_host(h, [] {});
  CHECK(old_closure.expired() == false);  // the copy `before` still holds it
  g.set_event(rec, e2);
  g.set_event(wait, e2);
  CHECK(g.event_of(rec).state().get() == e2.state().get());
  CHECK(g.event_of(wait).state().get() == e2.state().get());
  gd::Graph renamed("child2");
  renamed.add_empty().name("inner2");
  g.set_child(c, renamed);
  CHECK(g.child_plan(c).name() == "child2");
  CHECK(g.dump().find("'inner2'") != std::string::npos);
  const gd::UpdateResult r = gd::diff(before, g);
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed == std::vector<std::uint32_t>{h.index(), rec.index(), wait.index()});
  gd::Graph wider("child");
  wider.add_empty();
  wider.add_empty();
  const std::string dump = g.dump();
  CHECK_USAGE_ERROR(g.set_child(c, wider),
                    "graphdsl: child node 'c' (#3): the new child plan has another shape (the template has 2 nodes, "
                    "the executable 1: empty node #1 is not in the executable)");
  CHECK(g.dump() == dump);
  CHECK_USAGE_ERROR(g.set_event(rec, gd::Event()), "graphdsl: event_record node 'rec' (#1): the Event is empty "
                                                   "(default-constructed); make one with Event::create()");
  CHECK(g.event_of(rec).state().get() == e2.state().get());
}

TEST_CASE("the plan's setters refuse a handle of another plan and a fixed plan, naming the node", "[edit][setters]") {
  Buffers b;
  gd::Graph g("g");
  auto k = g.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32).name("k");
  gd::Graph other("other");
  auto m = other.add_memset(b.x, 1.0f, 16).name("m");
  CHECK_USAGE_ERROR(g.set_memset(m, b.x, 2.0f, 16),
                    fmt::format("graphdsl: memset node 'm' (#0) belongs to graph 'other' (plan id {}), not to graph "
                                "'g' (plan id {})",
                                other.id(), g.id()));
  gd::Graph copy = g;
  CHECK_USAGE_ERROR(copy.set_kernel_args(k, b.y, 1.0f, 32),
                    fmt::format("graphdsl: kernel node 'k' (#0) belongs to graph 'g' (plan id {}), not to a copy of "
                                "it (plan id {}); a handle refers only to the plan that made it, not to its copies: "
                                "look the node up in the plan you use (Graph::find or Graph::node)",
                                g.id(), copy.id()));
  // An executable's recorded plan (Executable::plan()) is fixed: here one sealed by hand.
  g.impl().sealed = gd::detail::Sealed::recorded;
  CHECK_USAGE_ERROR(g.set_kernel_args(k, b.y, 1.0f, 32),
                    "graphdsl: kernel node 'k' (#0) belongs to the recorded plan of an executable "
                    "(Executable::plan()), which changes only through update() and the setters; changing its "
                    "parameters is allowed on a copy of the plan");
  CHECK_USAGE_ERROR(g.remove_node(k),
                    "graphdsl: kernel node 'k' (#0) belongs to the recorded plan of an executable "
                    "(Executable::plan()), which changes only through update() and the setters; removing it is "
                    "allowed on a copy of the plan");
  g.impl().sealed = gd::detail::Sealed::no;
}

TEST_CASE("the kernel setters of a plan keep Conditions and GraphBuffers where they stand", "[edit][setters]") {
  Buffers b;
  gd::Graph g("g");
  const gd::Condition c0 = g.add_condition(1), c1 = g.add_condition(0);
  auto buf = g.add_mem_alloc<float>(64);
  buf.node.name("buf");
  int flags[2] = {};
  auto set = g.add_set_condition(c0, flags, gd::Compare::greater, 0).name("set");
  auto k = g.add_kernel(work, gd::Launch{1, 32}, buf.buffer, 1.0f, 64).name("k").after(buf.node);
  g.add_while(c0, [&](gd::Graph& body) { body.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32); }).after(set);
  g.add_if(c1, [&](gd::Graph& body) { body.add_kernel(work, gd::Launch{1, 32}, b.y, 1.0f, 32); });
  // The same condition and buffer (a slice of it): accepted.
  g.set_kernel_args(set, c0, flags + 1, static_cast<int>(gd::Compare::less), 3);
  g.set_kernel_args(k, buf.buffer.slice(16, 32), 2.0f, 32);
  CHECK(g.dump().find("bytes [64, 192)") != std::string::npos);
  g.validate();
  const std::string before = g.dump();
  CHECK_USAGE_ERROR(g.set_kernel_args(set, c1, flags, 0, 0),
                    "graphdsl: kernel node 'set' (#1): argument 0 is condition number 0 of graph 'g' in the plan but "
                    "condition number 1 of graph 'g' in the setter; setters and update() patch values, not which "
                    "arguments are Conditions, GraphBuffers or __device__ symbols (remove the node and add a new one "
                    "for that)");
  CHECK_USAGE_ERROR(g.set_kernel_args(k, b.x, 2.0f, 32),
                    "graphdsl: kernel node 'k' (#2): argument 0 is the GraphBuffer of mem_alloc node 'buf' (#0) in the "
                    "plan but a plain value in the setter; setters and update() patch values, not which arguments are "
                    "Conditions, GraphBuffers or __device__ symbols (remove the node and add a new one for that)");
  CHECK(g.dump() == before);
}

// ---- remove_node -----------------------------------------------------------------------------------

TEST_CASE("remove_node takes a node and its edges out; the other handles keep working", "[edit][remove]") {
  Buffers b;
  gd::Graph g("g");
  auto a = g.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32).name("a");
  auto m = g.add_memset(b.y, 0.0f, 16).name("m").after(a);
  auto c = g.add_kernel(work, gd::Launch{1, 32}, b.z, 2.0f, 32).name("c").after(m);
  auto d = g.add_empty().name("d").after(a, m, c);
  REQUIRE(g.edge_count() == 5);
  g.remove_node(m);
  CHECK(g.node_count() == 3);
  CHECK(g.edge_count() == 2);
  CHECK(g.nodes() == std::vector<gd::Node>{a, c, d});
  CHECK(g.predecessors(c).empty());  // a -> m -> c is not joined into a -> c
  CHECK(g.predecessors(d) == std::vector<gd::Node>{a, c});
  CHECK(g.successors(a) == std::vector<gd::Node>{d});
  CHECK(g.edges().size() == 2);
  CHECK_FALSE(g.owns(m));
  CHECK(g.owns(c));
  CHECK_FALSE(g.find("m").has_value());
  CHECK(g.dump() ==
        "graph 'g': 3 nodes, 2 edges\n"
        "  #0 kernel 'a': grid (1,1,1) block (32,1,1) shared 0 B, 3 args (16 B)\n"
        "  #2 kernel 'c': grid (1,1,1) block (32,1,1) shared 0 B, 3 args (16 B)\n"
        "  #3 empty 'd'; after 'a', 'c'\n");
  CHECK(g.to_dot().find("'m'") == std::string::npos);
  CHECK(g.to_dot().find("n1") == std::string::npos);
  g.validate();
  CHECK(g.check_races().ok());
  // The handles of the others still work: the plan keeps growing and editing around the tombstone.
  auto e = g.add_empty().name("e").after(c);
  CHECK(e.index() == 4);
  g.set_kernel_args(c, b.x, 4.0f, 8);
  c.after(a);
  CHECK(g.predecessors(c) == std::vector<gd::Node>{a});
  // A node of the removed one's name can come again.
  auto m2 = g.add_memset(b.y, 0.0f, 16).name("m");
  CHECK(g.find("m") == std::optional<gd::Node>(m2));
}

TEST_CASE("a removed node's handle is refused by every call, naming the node", "[edit][remove]") {
  Buffers b;
  gd::Graph g("g");
  auto k = g.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32).name("k");
  auto m = g.add_memset(b.y, 0.0f, 16).name("m").after(k);
  auto e = g.add_empty();
  g.remove_node(m);
  g.remove_node(e);
  const std::string removed = "graphdsl: node 'm' (#1) was removed from graph 'g' (Graph::remove_node); its handle "
                              "names no node";
  CHECK_USAGE_ERROR(g.remove_node(m), removed);
  CHECK_USAGE_ERROR(g.set_memset(m, b.y, 1.0f, 16), removed);
  CHECK_USAGE_ERROR(g.memset_of(m), removed);
  CHECK_USAGE_ERROR(g.predecessors(m), removed);
  CHECK_USAGE_ERROR(g.successors(m), removed);
  CHECK_USAGE_ERROR(g.node(1), removed);
  CHECK_USAGE_ERROR(g.add_edge(k, m), removed);
  CHECK_USAGE_ERROR(g.add_edge(m, k), removed);
  CHECK_USAGE_ERROR(g.remove_edge(k, m), removed);
  CHECK_USAGE_ERROR(g.set_predecessors(k, {m}), removed);
  CHECK_USAGE_ERROR(g.device_of(m), removed);
  CHECK_USAGE_ERROR(m.name(), removed);
  CHECK_USAGE_ERROR(m.kind(), removed);
  CHECK_USAGE_ERROR(m.name("again"), removed);
  CHECK_USAGE_ERROR(m.after(k), removed);
  CHECK_USAGE_ERROR(k.after(m), removed);
  CHECK_USAGE_ERROR(m.on_device(0), removed);
  CHECK_USAGE_ERROR(g.chain({k, m}), removed);
  CHECK_USAGE_ERROR(g.node(2), "graphdsl: node #2 was removed from graph 'g' (Graph::remove_node); its handle names "
                               "no node");
  CHECK_USAGE_ERROR(g.node(3), "graphdsl: graph 'g' has 1 node and 2 removed; there is no node #3");
  CHECK(g.node_count() == 1);
}

TEST_CASE("a plan with a removed node equals, node for node, the plan built without it", "[edit][remove]") {
  Buffers b;
  auto build = [&](bool with_m) {
    gd::Graph g("g");
    auto p = g.parameter(1.5f).name("p");
    auto a = g.add_kernel(work, gd::Launch{1, 32}, b.x, p, 32).name("a");
    auto k2 = g.add_kernel(work, gd::Launch{1, 32}, b.y, 1.0f, 32).name("b").after(a);
    if (with_m) {
      auto m = g.add_kernel(work, gd::Launch{1, 32}, gd::writes(b.z, 32), p, 32).name("m").after(a, k2);
      g.remove_node(m);
    }
    g.add_host([] {}).name("h").after(k2);
    return g;
  };
  const gd::Graph with = build(true), twice = build(true), without = build(false);
  CHECK(with.node_count() == 3);
  // The parameter no longer feeds the removed node; the dump skips it (its index stays a gap).
  CHECK(with.dump().find("parameter #0 'p': float = 1.5, 1 use\n") != std::string::npos);
  CHECK(with.dump().find("  #1 kernel 'b': grid (1,1,1) block (32,1,1) shared 0 B, 3 args (16 B); after 'a'\n"
                        "  #3 host 'h': a callable; after 'b'\n") != std::string::npos);
  CHECK(without.dump().find("  #2 host 'h': a callable; after 'b'\n") != std::string::npos);
  CHECK(with.check_races().ok());
  // Plans with the same removal: the same shape (host callables differ by identity).
  CHECK(with.fingerprint() == twice.fingerprint());
  CHECK(with.fingerprint() != without.fingerprint());
  const gd::UpdateResult same = gd::diff(with, twice);
  CHECK(same.status == gd::UpdateStatus::success);
  CHECK(same.changed == std::vector<std::uint32_t>{3});
  // Against the plan before the removal: a topology change, naming the node.
  gd::Graph before("g");
  auto p = before.parameter(1.5f).name("p");
  auto a = before.add_kernel(work, gd::Launch{1, 32}, b.x, p, 32).name("a");
  auto k2 = before.add_kernel(work, gd::Launch{1, 32}, b.y, 1.0f, 32).name("b").after(a);
  auto m = before.add_kernel(work, gd::Launch{1, 32}, gd::writes(b.z, 32), p, 32).name("m").after(a, k2);
  before.add_host([] {}).name("h").after(k2);
  gd::Graph after = before;
  after.remove_node(after.node(m.index()));
  gd::UpdateResult r = gd::diff(before, after);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "argument 2 of kernel node 'm' (#2) is parameter 'p' in the executable but not in the template");
  r = gd::diff(after, before);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
}

TEST_CASE("removing a node without parameter uses diffs as a topology change naming it", "[edit][remove]") {
  Buffers b;
  gd::Graph before("g");
  auto a = before.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32).name("a");
  before.add_kernel(work, gd::Launch{1, 32}, b.y, 1.0f, 32).name("m").after(a);
  before.add_empty().name("e");
  gd::Graph after = before;
  after.remove_node(*after.find("m"));
  gd::UpdateResult r = gd::diff(before, after);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "kernel node 'm' (#1) was removed from the template");
  REQUIRE(r.node.has_value());
  CHECK(r.node->name == "m");
  r = gd::diff(after, before);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "kernel node 'm' (#1) is in the template but was removed from the executable's plan");
}

TEST_CASE("remove_node of graph memory: an allocation goes once nothing uses its buffer", "[edit][remove]") {
  Buffers b;
  gd::Graph g("g");
  auto buf = g.add_mem_alloc<float>(64);
  buf.node.name("buf");
  auto k = g.add_kernel(work, gd::Launch{1, 32}, buf.buffer, 1.0f, 64).name("k").after(buf.node);
  auto m = g.add_memset(buf.buffer, 0.0f, 64).name("m").after(k);
  auto f = g.add_mem_free(buf.buffer).name("free").after(m);
  const std::string before = g.dump();
  CHECK_USAGE_ERROR(g.remove_node(buf.node),
                    "graphdsl: remove_node: mem_alloc node 'buf' (#0) allocates the buffer that memset node 'm' (#2) "
                    "uses; remove that use first (change or remove the node)");
  g.remove_node(m);
  CHECK_USAGE_ERROR(g.remove_node(buf.node),
                    "graphdsl: remove_node: mem_alloc node 'buf' (#0) allocates the buffer that kernel node 'k' (#1) "
                    "uses; remove that use first (change or remove the node)");
  g.remove_node(k);
  CHECK_USAGE_ERROR(g.remove_node(buf.node),
                    "graphdsl: remove_node: mem_alloc node 'buf' (#0) allocates the buffer that mem_free node 'free' "
                    "(#3) uses; remove that use first (change or remove the node)");
  // Without its free, the buffer stays allocated after a launch (as for a plan that never frees it).
  g.remove_node(f);
  g.validate();
  CHECK(g.dump().find("mem_free") == std::string::npos);
  g.remove_node(buf.node);
  CHECK(g.node_count() == 0);
  CHECK(g.dump() == "graph 'g': 0 nodes, 0 edges\n");
  g.validate();
  // A use of the buffer added afterwards refers to no allocation of the plan: validate() says so.
  g.add_memset(buf.buffer, 0.0f, 64).name("late");
  CHECK_THROWS_AS(g.validate(), gd::UsageError);
  (void)before;
}

TEST_CASE("remove_node of a buffer used inside a conditional body is refused", "[edit][remove][conditional]") {
  gd::Graph g("g");
  auto buf = g.add_mem_alloc<float>(64);
  buf.node.name("buf");
  auto cond = g.add_condition(1);
  auto loop = g.add_if(cond, [&](gd::Graph& body) { body.add_memset(buf.buffer, 0.0f, 64).name("inner"); })
                  .name("if")
                  .after(buf.node);
  g.add_mem_free(buf.buffer).name("free").after(loop);
  CHECK_USAGE_ERROR(g.remove_node(buf.node),
                    "graphdsl: remove_node: mem_alloc node 'buf' (#0) allocates the buffer that a node in the plan "
                    "nested in conditional node 'if' (#1) uses; remove that use first (change or remove the node)");
}

TEST_CASE("remove_node of a conditional node leaves its Condition for another conditional node",
          "[edit][remove][conditional]") {
  Buffers b;
  gd::Graph g("g");
  auto cond = g.add_condition(1);
  auto loop = g.add_while(cond, [&](gd::Graph& body) {
                 body.add_kernel(work, gd::Launch{1, 32}, b.x, 1.0f, 32).name("step");
               }).name("loop");
  g.validate();
  g.remove_node(loop);
  CHECK_USAGE_ERROR(g.validate(),
                    "graphdsl: graph 'g' declares a Condition (number 0, default 1) that no conditional node uses; "
                    "CUDA refuses to instantiate a graph with an unused condition");
  g.add_if(cond, [&](gd::Graph& body) { body.add_kernel(work, gd::Launch{1, 32}, b.y, 2.0f, 32).name("once"); })
      .name("if");
  g.validate();
  CHECK(g.dump().find("'loop'") == std::string::npos);
  CHECK(g.dump().find("'step'") == std::string::npos);
}

TEST_CASE("remove_node of a child node: the plan may then be embedded where graph memory may not",
          "[edit][remove][child]") {
  gd::Graph inner("inner");
  auto buf = inner.add_mem_alloc<float>(16);
  auto fr = inner.add_mem_free(buf.buffer).after(buf.node);
  inner.add_empty().name("keep");
  gd::Graph outer("outer");
  CHECK_THROWS_AS((outer.add_child(inner), outer.validate()), gd::UsageError);
  inner.remove_node(fr);
  inner.remove_node(buf.node);
  gd::Graph fresh("outer");
  auto c = fresh.add_child(inner).name("c");
  fresh.validate();
  fresh.remove_node(c);
  CHECK(fresh.node_count() == 0);
  CHECK(fresh.dump() == "graph 'outer': 0 nodes, 0 edges\n");
  fresh.validate();
}

TEST_CASE("a removed host node's callable is released; copies of the plan before keep theirs", "[edit][remove]") {
  gd::Graph g("g");
  auto witness = std::make_shared<int>(1);
  std::weak_ptr<int> alive = witness;
  auto h = g.add_host([w = std::move(witness)] { (void)w; }).name("h");
  gd::Graph copy = g;
  g.remove_node(h);
  CHECK_FALSE(alive.expired());
  copy = gd::Graph("empty");
  CHECK(alive.expired());
}

TEST_CASE("remove_node refuses a node of another plan and an empty handle", "[edit][remove]") {
  gd::Graph g("g");
  g.add_empty().name("a");
  gd::Graph other("other");
  auto x = other.add_empty().name("x");
  CHECK_USAGE_ERROR(g.remove_node(x), fmt::format("graphdsl: empty node 'x' (#0) belongs to graph 'other' (plan id "
                                                  "{}), not to graph 'g' (plan id {})",
                                                  other.id(), g.id()));
  CHECK_USAGE_ERROR(g.remove_node(gd::Node()), "graphdsl: empty node handle (a default-constructed Node was used)");
  CHECK(g.node_count() == 1);
  CHECK(other.node_count() == 1);
}

}  // namespace edit_nodes_test
