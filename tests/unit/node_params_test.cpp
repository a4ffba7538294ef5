// Reading node parameters back from a plan (memset_of, memcpy_of, event_of, has_callable,
// allocation_of, freed_allocation), owns(), chain(), add_child(Graph&&), and the dump lines that
// show those parameters.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "unit_support.hpp"

namespace gd = graphdsl;

TEST_CASE("memset_of returns what add_memset, add_memset_2d and add_memset_raw recorded", "[graph][getters][memset]") {
  gd::Graph g("getters");
  unit::Buffers b;
  auto one = g.add_memset(b.x, 1.0f, 16);
  auto rows = g.add_memset_2d(reinterpret_cast<std::uint8_t*>(b.y), 64, 0x22, 48, 3);
  auto raw = g.add_memset_raw(b.z, 0xdeadbeef, 4, 8, 2, 40);

  const gd::MemsetParams p = g.memset_of(one);
  CHECK(p.dst == b.x);
  CHECK(p.buffer == 0);
  CHECK(p.value == 0x3f800000u);
  CHECK(p.element_size == 4);
  CHECK(p.width == 16);
  CHECK(p.height == 1);

  const gd::MemsetParams r = g.memset_of(rows);
  CHECK(r.dst == static_cast<void*>(b.y));
  CHECK(r.value == 0x22u);
  CHECK(r.element_size == 1);
  CHECK(r.width == 48);
  CHECK(r.height == 3);
  CHECK(r.pitch == 64);

  const gd::MemsetParams w = g.memset_of(raw);
  CHECK(w.value == 0xdeadbeefu);
  CHECK(w.width == 8);
  CHECK(w.height == 2);
  CHECK(w.pitch == 40);
}

TEST_CASE("memset_of and memcpy_of name the graph buffer a node uses", "[graph][getters][graph-memory]") {
  gd::Graph g("buffers");
  unit::Buffers b;
  auto a = g.add_mem_alloc<float>(64);
  auto set = g.add_memset(a.buffer, 0, 64).after(a.node);
  auto in = g.add_memcpy(a.buffer, b.host_in, 64).after(set);
  auto out = g.add_memcpy(b.host_out, a.buffer, 64).after(in);
  g.add_mem_free(a.buffer).after(out);

  CHECK(g.memset_of(set).dst == nullptr);
  CHECK(g.memset_of(set).buffer == a.buffer.id());
  CHECK(g.memcpy_of(in).dst_buffer == a.buffer.id());
  CHECK(g.memcpy_of(in).src_buffer == 0);
  CHECK(g.memcpy_of(in).src == b.host_in);
  CHECK(g.memcpy_of(out).src_buffer == a.buffer.id());
  CHECK(g.memcpy_of(out).dst == b.host_out);
  CHECK(g.memcpy_of(out).bytes == 64 * sizeof(float));
}

TEST_CASE("memcpy_of returns endpoints, bytes, kind and the whole 3-D record", "[graph][getters][memcpy]") {
  gd::Graph g("copies");
  unit::Buffers b;
  auto flat = g.add_memcpy(b.x, b.y, 32, cudaMemcpyDeviceToDevice);
  auto rows = g.add_memcpy_2d(b.z, 128, b.x, 256, 64, 4);
  cudaMemcpy3DParms p3{};
  p3.srcPtr = cudaPitchedPtr{b.x, 64, 16, 4};
  p3.dstPtr = cudaPitchedPtr{b.y, 64, 16, 4};
  p3.srcPos = cudaPos{4, 1, 0};
  p3.extent = cudaExtent{32, 2, 2};
  p3.kind = cudaMemcpyHostToDevice;
  auto box = g.add_memcpy_3d(p3);

  const gd::MemcpyParams f = g.memcpy_of(flat);
  CHECK(f.dst == b.x);
  CHECK(f.src == b.y);
  CHECK(f.bytes == 32 * sizeof(float));
  CHECK(f.kind == cudaMemcpyDeviceToDevice);

  const gd::MemcpyParams r = g.memcpy_of(rows);
  CHECK(r.bytes == 64 * 4);
  CHECK(r.kind == cudaMemcpyDefault);
  CHECK(r.full.dstPtr.pitch == 128);
  CHECK(r.full.srcPtr.pitch == 256);
  CHECK(r.full.extent.width == 64);
  CHECK(r.full.extent.height == 4);

  const gd::MemcpyParams x = g.memcpy_of(box);
  CHECK(x.bytes == 32 * 2 * 2);
  CHECK(x.kind == cudaMemcpyHostToDevice);
  CHECK(x.full.srcPos.x == 4);
  CHECK(x.full.srcPos.y == 1);
  CHECK(x.full.extent.depth == 2);
}

TEST_CASE("event_of returns the node's Event, shared with the plan", "[graph][getters][event]") {
  gd::Graph g("events");
  const gd::Event e = gd::Event::create();
  auto rec = g.add_event_record(e);
  auto wait = g.add_event_wait(e);
  auto empty = g.add_event_wait(gd::Event{});
  CHECK(g.event_of(rec).state() == e.state());
  CHECK(g.event_of(wait).state() == e.state());
  CHECK_FALSE(g.event_of(empty));
}

TEST_CASE("has_callable is false only for a null function pointer or an empty std::function",
          "[graph][getters][host]") {
  gd::Graph g("hosts");
  auto lambda = g.add_host([] {});
  auto empty_fn = g.add_host(std::function<void()>{});
  void (*null_fn)() = nullptr;
  auto null_ptr = g.add_host(null_fn);
  CHECK(g.has_callable(lambda));
  CHECK_FALSE(g.has_callable(empty_fn));
  CHECK_FALSE(g.has_callable(null_ptr));
}

TEST_CASE("allocation_of and freed_allocation return the allocation's bytes, options and node",
          "[graph][getters][graph-memory]") {
  gd::Graph g("memory");
  auto a = g.add_mem_alloc<double>(100, gd::MemAllocOptions{1, {0, 2}});
  auto f = g.add_mem_free(a.buffer).after(a.node);
  const gd::AllocationParams p = g.allocation_of(a.node);
  CHECK(p.bytes == 100 * sizeof(double));
  CHECK(p.options.device == 1);
  CHECK(p.options.peer_access == std::vector<int>{0, 2});
  CHECK(p.buffer == a.buffer.id());
  CHECK(g.freed_allocation(f) == a.node);

  gd::Graph other("other");
  auto foreign = other.add_mem_free(a.buffer);
  CHECK_FALSE(other.freed_allocation(foreign).valid());
}

TEST_CASE("the getters refuse a node of another plan, of another kind, or an empty handle",
          "[graph][getters][errors]") {
  gd::Graph a("a");
  gd::Graph b("b");
  unit::Buffers buf;
  auto ms = a.add_memset(buf.x, 0.0f, 4);
  b.add_empty();
  auto k = b.add_kernel(unit::no_args, gd::Launch{}).name("k");
  CHECK_USAGE_ERROR(b.memset_of(ms), fmt::format("graphdsl: memset node #0 belongs to graph 'a' (plan id {}), not to "
                                                 "graph 'b' (plan id {})",
                                                 a.id(), b.id()));
  // A typed handle made from another node's reference (the internal constructor) is checked too.
  CHECK_USAGE_ERROR(b.memset_of(gd::MemsetNode(k.ref())),
                    "graphdsl: memset_of: kernel node 'k' (#1) is not a memset node");
  CHECK_USAGE_ERROR(b.memcpy_of(gd::MemcpyNode(k.ref())),
                    "graphdsl: memcpy_of: kernel node 'k' (#1) is not a memcpy node");
  CHECK_USAGE_ERROR(b.event_of(gd::EventRecordNode(k.ref())),
                    "graphdsl: event_of: kernel node 'k' (#1) is not an event_record node");
  CHECK_USAGE_ERROR(b.event_of(gd::EventWaitNode(k.ref())),
                    "graphdsl: event_of: kernel node 'k' (#1) is not an event_wait node");
  CHECK_USAGE_ERROR(b.has_callable(gd::HostNode(k.ref())),
                    "graphdsl: has_callable: kernel node 'k' (#1) is not a host node");
  CHECK_USAGE_ERROR(b.allocation_of(gd::MemAllocNode(k.ref())),
                    "graphdsl: allocation_of: kernel node 'k' (#1) is not a mem_alloc node");
  CHECK_USAGE_ERROR(b.freed_allocation(gd::MemFreeNode(k.ref())),
                    "graphdsl: freed_allocation: kernel node 'k' (#1) is not a mem_free node");
  CHECK_USAGE_ERROR(b.memcpy_of(gd::MemcpyNode{}), "graphdsl: empty node handle (a default-constructed Node was used)");
}

TEST_CASE("getters on a copy of a plan return what they return on the plan", "[graph][getters][copy]") {
  gd::Graph g("original");
  unit::Buffers b;
  auto ms = g.add_memset_2d(b.x, 64, 2.0f, 8, 4);
  auto mc = g.add_memcpy(b.y, b.x, 16);
  const gd::Graph copy = g;
  const auto ms_copy = gd::node_cast<gd::MemsetNode>(copy.node(ms.index()));
  const auto mc_copy = gd::node_cast<gd::MemcpyNode>(copy.node(mc.index()));
  CHECK(copy.memset_of(ms_copy).pitch == g.memset_of(ms).pitch);
  CHECK(copy.memset_of(ms_copy).value == g.memset_of(ms).value);
  CHECK(copy.memcpy_of(mc_copy).bytes == g.memcpy_of(mc).bytes);
}

TEST_CASE("owns is true for a live node of the plan only", "[graph][owns]") {
  gd::Graph g("g");
  gd::Graph other("other");
  auto n = g.add_empty();
  auto m = other.add_empty();
  CHECK(g.owns(n));
  CHECK_FALSE(g.owns(m));
  CHECK_FALSE(g.owns(gd::Node{}));
  const gd::Graph copy = g;
  CHECK_FALSE(copy.owns(n));
  gd::Node dead;
  {
    gd::Graph gone("gone");
    dead = gone.add_empty();
    CHECK(gone.owns(dead));
  }
  CHECK_FALSE(g.owns(dead));
  gd::Graph moved = std::move(g);
  CHECK(moved.owns(n));
  CHECK_FALSE(g.owns(n));  // NOLINT(bugprone-use-after-move): a moved-from Graph owns nothing
}

TEST_CASE("chain adds an edge from each node to the next", "[graph][chain][edges]") {
  gd::Graph g("chain");
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b");
  auto c = g.add_empty().name("c");
  auto d = g.add_empty().name("d");
  g.chain({a, b, c});
  CHECK(g.edge_count() == 2);
  CHECK(g.predecessors(b) == std::vector<gd::Node>{a});
  CHECK(g.predecessors(c) == std::vector<gd::Node>{b});
  g.chain({a, b, c, d});  // set semantics: only c -> d is new
  CHECK(g.edge_count() == 3);
  g.chain(std::vector<gd::Node>{d});  // one node: no edge
  g.chain(std::vector<gd::Node>{});
  CHECK(g.edge_count() == 3);
}

TEST_CASE("chain refuses a foreign handle, an empty handle or a self edge, adding no edge", "[graph][chain][errors]") {
  gd::Graph g("g");
  gd::Graph other("other");
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b");
  auto x = other.add_empty().name("x");
  CHECK_USAGE_ERROR(g.chain({a, b, x}), fmt::format("graphdsl: empty node 'x' (#0) belongs to graph 'other' (plan id "
                                                    "{}), not to graph 'g' (plan id {})",
                                                    other.id(), g.id()));
  CHECK_USAGE_ERROR(g.chain({a, gd::Node{}}), "graphdsl: empty node handle (a default-constructed Node was used)");
  const std::string self = unit::usage_error_of([&] { g.chain({a, b, b}); });
  CHECK(self.find("'b'") != std::string::npos);
  CHECK(g.edge_count() == 0);
}

TEST_CASE("add_child(Graph&&) embeds the plan without a copy and leaves it moved-from", "[graph][child]") {
  gd::Graph g("outer");
  gd::Graph child("inner");
  auto k = child.add_kernel(unit::no_args, gd::Launch{}).name("work");
  child.add_empty().name("after").after(k);
  gd::Graph by_copy("outer");
  by_copy.add_child(child).name("sub");
  auto c = g.add_child(std::move(child)).name("sub");
  CHECK(g.dump() == by_copy.dump());
  CHECK(g.fingerprint() == by_copy.fingerprint());
  CHECK(g.child_plan(c).node_count() == 2);
  CHECK_USAGE_ERROR(child.node_count(), "graphdsl: use of a moved-from Graph");  // NOLINT(bugprone-use-after-move)
  // The child's handles read the embedded plan and cannot change it.
  CHECK(k.valid());
  CHECK(k.name() == "work");
  CHECK_USAGE_ERROR(k.name("renamed"),
                    "graphdsl: kernel node 'work' (#0) is in graph 'inner', which was moved into a child node "
                    "(add_child(Graph&&)) and is fixed since (copies of the plan share it); naming it is allowed on a "
                    "copy of the plan (Graph::child_plan)");
}

TEST_CASE("add_child(Graph&&) of the plan itself copies it", "[graph][child]") {
  gd::Graph g("self");
  g.add_empty();
  g.add_child(std::move(g));  // NOLINT(bugprone-use-after-move)
  CHECK(g.node_count() == 2);
}

TEST_CASE("dumps show each node's parameters", "[graph][print][getters]") {
  gd::Graph g("shown");
  unit::Buffers b;
  g.add_memset_2d(b.x, 64, 1.0f, 8, 4).name("rows");
  g.add_event_record(gd::Event::create()).name("rec");
  g.add_event_wait(gd::Event::create(cudaEventDefault));
  g.add_event_wait(gd::Event::create(cudaEventBlockingSync | cudaEventDisableTiming));
  g.add_event_record(gd::Event{});
  g.add_host([] {}).name("cb");
  g.add_host(std::function<void()>{});
  auto a = g.add_mem_alloc<int>(16);
  g.add_mem_free(a.buffer).name("free").after(a.node);
  CHECK(g.dump() ==
        "graph 'shown': 9 nodes, 1 edges\n"
        "  #0 memset 'rows': value 1 (float), 4-byte elements, 8 x 4, pitch 64 bytes\n"
        "  #1 event_record 'rec': Event of flags cudaEventDisableTiming\n"
        "  #2 event_wait: Event of flags cudaEventDefault\n"
        "  #3 event_wait: Event of flags cudaEventBlockingSync | cudaEventDisableTiming\n"
        "  #4 event_record: empty Event\n"
        "  #5 host 'cb': a callable\n"
        "  #6 host: empty callable (a null function pointer or an empty std::function)\n"
        "  #7 mem_alloc: 64 bytes on the current device\n"
        "  #8 mem_free 'free': frees #7, 64 bytes; after #7\n");
}

TEST_CASE("Executable::set_memset takes an integer value as add_memset does", "[executable][memset][compile]") {
  // Compile-time only: both calls must compile (the setter itself needs a GPU, tests/gpu).
  using SetMemset = void (gd::Executable::*)(const gd::MemsetNode&, std::uint8_t*, int, std::size_t);
  SetMemset set = &gd::Executable::set_memset<std::uint8_t, int>;
  CHECK(set != nullptr);
  using SetFloat = void (gd::Executable::*)(const gd::MemsetNode&, float*, int, std::size_t);
  SetFloat set_float = &gd::Executable::set_memset<float, int>;
  CHECK(set_float != nullptr);
}

TEST_CASE("a parameter of a plan moved into a child node can no longer be renamed", "[graph][child][parameter]") {
  gd::Graph child("inner");
  unit::Buffers b;
  auto lr = child.parameter<float>(0.5f).name("lr");
  child.add_kernel(unit::scale, gd::Launch{}, b.x, lr, 16);
  gd::Graph g("outer");
  g.add_child(std::move(child));
  CHECK_USAGE_ERROR(lr.name("rate"),
                    "graphdsl: parameter 'lr' of graph 'inner' belongs to a plan moved into a child node "
                    "(add_child(Graph&&)), which is fixed since; name it before moving the plan");
  CHECK(g.dump().find("lr") != std::string::npos);
}
