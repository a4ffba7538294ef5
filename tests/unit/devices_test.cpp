// Multi-device plans without a GPU: placement, peer copies, the rules validate() applies, how
// dumps, DOT, fingerprints and diffs show devices. The rules that need CUDA (does the device
// exist, peer access, where a pointer lives) are in tests/multi_gpu.
#include "plan_checks.hpp"
#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)
#include "unit_support.hpp"

using test_support::require_invalid;
namespace gd = graphdsl;

namespace {
/// Two copies in, a kernel on each device, a peer copy from device 1 to device 0.
gd::Graph two_device_plan(unit::Buffers& b, float factor) {
  gd::Graph g("split");
  auto in0 = g.add_memcpy(b.x, b.host_in, 128).name("in0").on_device(0);
  auto in1 = g.add_memcpy(b.y, b.host_in + 128, 128).name("in1").on_device(1);
  auto k0 = g.add_kernel(unit::scale, gd::cover(128), b.x, factor, 128).name("k0").on_device(0).after(in0);
  auto k1 = g.add_kernel(unit::scale, gd::cover(128), b.y, factor, 128).name("k1").on_device(1).after(in1);
  g.add_memcpy_peer(b.z, 0, b.y, 1, 128).name("pull").after(k0, k1);
  return g;
}
}  // namespace

TEST_CASE("nodes are placed with on_device, set_default_device and add_memcpy_peer, with no CUDA call", "[devices]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  gd::Graph g("placed");
  auto a = g.add_kernel(unit::no_args, gd::Launch{}).name("a");
  CHECK(g.default_device() == -1);
  g.set_default_device(1);
  auto c = g.add_memset(b.flags, 0, 64).name("c");
  auto d = g.add_kernel(unit::no_args, gd::Launch{}).name("d").on_device(0);
  auto p = g.add_memcpy_peer(b.x, 0, b.y, 1, 16).name("p");
  auto [alloc, buf] = g.add_mem_alloc<float>(8, gd::MemAllocOptions{2, {}});
  CHECK(g.device_of(a) == -1);
  CHECK(g.device_of(c) == 1);
  CHECK(g.device_of(d) == 0);
  CHECK(g.device_of(p) == 0);  // a peer copy runs in the destination's context
  CHECK(g.device_of(alloc) == 2);
  CHECK(g.default_device() == 1);
  CHECK_NOTHROW(g.validate());
  CHECK(gd::debug::cuda_calls() == calls);
  gd::Graph other("other");
  auto foreign = other.add_empty();
  CHECK_THAT(unit::usage_error_of([&] { (void)g.device_of(foreign); }),
             has_substr("empty node #0 belongs to graph 'other'"));
}

TEST_CASE("a device number below -1 is refused where it is given", "[devices]") {
  unit::Buffers b;
  gd::Graph g("g");
  auto k = g.add_kernel(unit::no_args, gd::Launch{}).name("k");
  CHECK_USAGE_ERROR(k.on_device(-2),
                    "graphdsl: on_device of kernel node 'k' (#0): -2 is not a device number (use 0, 1, ... or -1 "
                    "for the current device at compile time)");
  CHECK(g.device_of(k) == -1);
  CHECK_USAGE_ERROR(g.set_default_device(-5),
                    "graphdsl: set_default_device: -5 is not a device number (use 0, 1, ... or -1 for the current "
                    "device at compile time)");
  CHECK_USAGE_ERROR(g.add_memcpy_peer(b.x, 0, b.y, -3, 4),
                    "graphdsl: add_memcpy_peer (source device): -3 is not a device number (use 0, 1, ... or -1 for the "
                    "current device at compile time)");
  CHECK(g.node_count() == 1);  // the refused peer copy added nothing
}

TEST_CASE("host, child and conditional nodes cannot be placed (events: tests/multi_gpu)", "[devices]") {
  {
    gd::Graph g("g");
    g.add_host([] {}).name("cpu").on_device(1);
    require_invalid(g, "host node 'cpu' (#0): cannot be placed on device 1: a host node runs on the CPU");
  }
  {
    gd::Graph g("g");
    gd::Graph inner("inner");
    inner.add_empty();
    g.add_child(inner).name("sub").on_device(0);
    require_invalid(g, "child node 'sub' (#0): cannot be placed on device 0: a child plan places its own nodes "
                       "(call on_device on them)");
  }
  {
    gd::Graph g("g");
    auto cond = g.add_condition(1);
    g.add_if(cond, [](gd::Graph& body) { body.add_kernel(unit::no_args, gd::Launch{}); }).name("if").on_device(1);
    require_invalid(g, "conditional node 'if' (#0): cannot be placed on device 1: a conditional node runs on the "
                       "device its plan is compiled on");
  }
}

TEST_CASE("nodes inside conditional bodies cannot be placed", "[devices]") {
  gd::Graph g("g");
  auto cond = g.add_condition(1);
  g.add_if(cond, [](gd::Graph& body) { body.add_kernel(unit::no_args, gd::Launch{}).name("inner").on_device(1); })
      .name("if");
  require_invalid(g, "in body 0 (if body) of conditional node 'if' (#0) of graph 'g': kernel node 'inner' (#0): is "
                     "placed on device 1 inside a conditional body; a body's nodes run on the device of its "
                     "conditional node (place nothing inside bodies)");
}

TEST_CASE("peer copies and allocations: devices must agree", "[devices]") {
  unit::Buffers b;
  {
    gd::Graph g("g");
    g.add_memcpy_peer(b.x, 1, b.y, 1, 4).name("self");
    require_invalid(g, "memcpy node 'self' (#0): a peer copy from device 1 to itself; use add_memcpy for a copy "
                       "within one device");
  }
  {
    gd::Graph g("g");
    g.add_memcpy_peer(b.x, 0, b.y, 1, 4).name("moved").on_device(2);
    require_invalid(g, "memcpy node 'moved' (#0): a peer copy from device 1 to device 0 is placed on device 2; place "
                       "it on one of the two");
  }
  {
    gd::Graph g("g");
    g.add_memcpy_peer(b.x, 0, b.y, -1, 4).name("vague");
    require_invalid(g, "memcpy node 'vague' (#0): a peer copy names both devices (0, 1, ...); -1 is not allowed here");
  }
  {
    gd::Graph g("g");
    auto [alloc, buf] = g.add_mem_alloc<float>(8, gd::MemAllocOptions{0, {}});
    alloc.name("tmp").on_device(1);
    g.add_mem_free(buf).after(alloc);
    require_invalid(g, "mem_alloc node 'tmp' (#0): is placed on device 1 but its MemAllocOptions name device 0; give "
                       "one device");
  }
  {
    gd::Graph g("g");
    auto [alloc, buf] = g.add_mem_alloc<float>(8, gd::MemAllocOptions{1, {}});
    alloc.name("tmp");
    g.add_mem_free(buf).name("free").on_device(0).after(alloc);
    require_invalid(g, "mem_free node 'free' (#1): is placed on device 0 but frees memory of device 1 (mem_alloc node "
                       "'tmp' (#0)); a free runs on its allocation's device (leave it unplaced)");
  }
  {
    gd::Graph g("g");
    g.add_memcpy_peer(b.x, -1, b.y, -1, 4).name("nowhere");
    require_invalid(g, "memcpy node 'nowhere' (#0): a peer copy names both devices (0, 1, ...); -1 is not allowed here");
  }
}

TEST_CASE("dump and DOT show devices and peer copies; the fingerprint includes them", "[devices]") {
  unit::Buffers b;
  const gd::Graph g = two_device_plan(b, 2.0f);
  CHECK(g.dump() ==
        "graph 'split': 5 nodes, 4 edges\n"
        "  #0 memcpy 'in0': 512 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), on device 0\n"
        "  #1 memcpy 'in1': 512 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), on device 1\n"
        "  #2 kernel 'k0': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), on device 0; after 'in0'\n"
        "  #3 kernel 'k1': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), on device 1; after 'in1'\n"
        "  #4 memcpy 'pull': 512 bytes, peer copy device 1 -> device 0, on device 0; after 'k0', 'k1'\n");
  const std::string dot = g.to_dot();
  CHECK_THAT(dot, has_substr("n3 [label=\"k1\\nkernel @ gpu 1\", shape=box];"));
  CHECK_THAT(dot, has_substr("n4 [label=\"pull\\nmemcpy @ gpu 0\", shape=cds];"));
  gd::Graph moved = two_device_plan(b, 2.0f);
  CHECK(moved.fingerprint() == g.fingerprint());
  moved.impl().nodes[moved.find("k1")->index()].device = 0;  // the same plan with k1 on device 0
  CHECK(moved.fingerprint() != g.fingerprint());
}

TEST_CASE("diff: new arguments on both devices patch per node; a node moved to another device is refused", "[devices]") {
  unit::Buffers b;
  const gd::Graph g = two_device_plan(b, 2.0f);
  const gd::UpdateResult same = gd::diff(g, two_device_plan(b, 3.0f));
  CHECK(same.status == gd::UpdateStatus::success);
  REQUIRE(same.changed.size() == 2);
  CHECK(same.changed[0] == 2);  // k0
  CHECK(same.changed[1] == 3);  // k1

  gd::Graph moved("split");
  auto in0 = moved.add_memcpy(b.x, b.host_in, 128).name("in0").on_device(0);
  auto in1 = moved.add_memcpy(b.y, b.host_in + 128, 128).name("in1").on_device(1);
  auto k0 = moved.add_kernel(unit::scale, gd::cover(128), b.x, 2.0f, 128).name("k0").on_device(0).after(in0);
  auto k1 = moved.add_kernel(unit::scale, gd::cover(128), b.y, 2.0f, 128).name("k1").on_device(0).after(in1);
  moved.add_memcpy_peer(b.z, 0, b.y, 1, 128).name("pull").after(k0, k1);
  const gd::UpdateResult r = gd::diff(g, moved);
  CHECK(r.status == gd::UpdateStatus::not_supported);
  REQUIRE(r.node);
  CHECK(r.node->name == "k1");
  CHECK(r.reason == "kernel node 'k1' (#3) is placed on device 1 in the executable but on device 0 in the template; "
                    "CUDA cannot move a node to another device");

  gd::Graph other_peer = two_device_plan(b, 2.0f);
  other_peer.impl().peer_copies[0].src_device = 2;
  const gd::UpdateResult p = gd::diff(g, other_peer);
  CHECK(p.status == gd::UpdateStatus::not_supported);
  CHECK(p.reason == "the peer copies of graph 'split' (add_memcpy_peer) copy between other devices in the template; "
                    "CUDA cannot move a copy to other devices");
}
