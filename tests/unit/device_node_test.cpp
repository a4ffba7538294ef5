// Device-updatable kernel nodes on the plan (Launch::with_device_updatable, graphdsl/device_node.hpp):
// the marking, dumps and DOT, fingerprint and diff, the nesting rule, the device handle's layout, all
// without a GPU. On the device: tests/gpu/device_node_test.cpp.
#include <type_traits>

#include <graphdsl/device_node.hpp>

#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {
void mixed(char, int*, int) {}
void updater(gd::DeviceKernelNodeOf<decltype(mixed)>, int) {}
}  // namespace

TEST_CASE("device_node: the marking is a launch attribute, shown in dumps and DOT", "[device_node]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  const gd::Launch l = gd::cover(256, 64).with_device_updatable();
  CHECK(l.has_attributes());
  CHECK(l.device_updatable);
  CHECK_FALSE(gd::Launch{}.device_updatable);
  gd::Graph g("du");
  auto k = g.add_kernel(unit::scale, l, b.x, 2.0f, 64).name("k");
  CHECK_NOTHROW(g.validate());
  CHECK(g.launch_of(k).device_updatable);
  CHECK(g.dump() ==
        "graph 'du': 1 nodes, 0 edges\n"
        "  #0 kernel 'k': grid (4,1,1) block (64,1,1) shared 0 B, 3 args (16 B), device-updatable\n");
  CHECK_THAT(g.to_dot(), has_substr("n0 [label=\"k\\nkernel\\ndevice-updatable\", shape=box];"));
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("device_node: the marking is part of the shape (fingerprint, diff)", "[device_node]") {
  unit::Buffers b;
  auto plan = [&](bool marked, float factor) {
    gd::Graph g("du");
    g.add_kernel(unit::scale, gd::cover(256, 64).with_device_updatable(marked), b.x, factor, 64).name("k");
    return g;
  };
  CHECK(plan(true, 2.0f).fingerprint() == plan(true, 3.0f).fingerprint());
  CHECK(plan(true, 2.0f).fingerprint() != plan(false, 2.0f).fingerprint());
  CHECK(gd::diff(plan(true, 2.0f), plan(true, 3.0f)).changed == std::vector<std::uint32_t>{0});
  const gd::UpdateResult r = gd::diff(plan(true, 2.0f), plan(false, 2.0f));
  CHECK_FALSE(r);
  CHECK(r.status == gd::UpdateStatus::attributes_changed);
  CHECK(r.reason ==
        "kernel node 'k' (#0) is device-updatable in the executable but not in the template; CUDA cannot change "
        "that in an executable (a node cannot opt out, and a graph with device-updatable nodes cannot be given to "
        "cudaGraphExecUpdate); compile the new plan instead");
  const gd::UpdateResult back = gd::diff(plan(false, 2.0f), plan(true, 2.0f));
  CHECK(back.status == gd::UpdateStatus::attributes_changed);
  CHECK_THAT(back.reason, has_substr("is not device-updatable in the executable but device-updatable in the template"));
}

TEST_CASE("device_node: a device-updatable node in a child plan or a conditional body is refused", "[device_node]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  const std::string rule =
      "kernel node 'k' (#0): a device-updatable kernel node must be a node of the top-level plan; graphdsl refuses "
      "it in a child plan or a conditional body (CUDA embeds a child graph by copy, does not document device "
      "updates inside conditional bodies, and Executable::device_node() names top-level nodes only)";
  gd::Graph child("sub");
  child.add_kernel(unit::scale, gd::Launch{1, 32}.with_device_updatable(), b.x, 2.0f, 32).name("k");
  CHECK_NOTHROW(child.validate());  // on its own it is a top-level plan
  gd::Graph g("main");
  g.add_child(child).name("inner");
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: in child node 'inner' (#0) of graph 'main': " + rule);

  gd::Graph h("h");
  const gd::Condition c = h.add_condition(1);
  h.add_if(c, [&](gd::Graph& body) {
     body.add_kernel(unit::scale, gd::Launch{1, 32}.with_device_updatable(), b.x, 2.0f, 32).name("k");
   }).name("maybe");
  CHECK_USAGE_ERROR(h.validate(),
                    "graphdsl: in body 0 (if body) of conditional node 'maybe' (#0) of graph 'h': " + rule);
  CHECK_USAGE_ERROR(h.instantiate(),
                    "graphdsl: in body 0 (if body) of conditional node 'maybe' (#0) of graph 'h': " + rule);
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("device_node: the device handle writes at CUDA's parameter offsets, not graphdsl's packed ones",
          "[device_node]") {
  using Layout = gd::detail::ArgLayoutOf<char, int*, int>;
  CHECK(Layout::offsets[1] == 1);  // the packed block: no padding
  CHECK(Layout::offsets[2] == 9);
  CHECK(Layout::abi_offsets[0] == 0);  // the kernel's parameter buffer: each at its alignment
  CHECK(Layout::abi_offsets[1] == 8);
  CHECK(Layout::abi_offsets[2] == 16);
  CHECK(Layout::value.abi_offsets[2] == 16);
  using Handle = gd::DeviceKernelNodeOf<decltype(mixed)>;
  STATIC_REQUIRE(std::is_same_v<Handle, gd::DeviceKernelNode<char, int*, int>>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<Handle>);
  STATIC_REQUIRE(Handle::param_offset<0>() == 0);
  STATIC_REQUIRE(Handle::param_offset<1>() == 8);
  STATIC_REQUIRE(Handle::param_offset<2>() == 16);
  STATIC_REQUIRE(gd::DeviceKernelNode<float, double>::param_offset<1>() == 8);
  STATIC_REQUIRE(gd::DeviceKernelNode<short, char, int>::param_offset<2>() == 4);
  // The setters are device code: on the host they do nothing.
  const Handle none;
  CHECK_FALSE(none);
  CHECK(none.native() == nullptr);
  CHECK(none.set_arg<2>(5) == cudaErrorNotSupported);
  CHECK(none.set_grid(dim3(2)) == cudaErrorNotSupported);
  CHECK(none.set_enabled(false) == cudaErrorNotSupported);
}

TEST_CASE("device_node: a handle is an ordinary kernel argument of the plan", "[device_node]") {
  unit::Buffers b;
  gd::Graph g("g");
  auto w = g.add_kernel(mixed, gd::Launch{}.with_device_updatable(), 'a', reinterpret_cast<int*>(b.x), 1).name("w");
  auto u = g.add_kernel(updater, gd::Launch{}, gd::DeviceKernelNodeOf<decltype(mixed)>{}, 7).name("u").after(w);
  CHECK_NOTHROW(g.validate());
  CHECK(g.dump() ==
        "graph 'g': 2 nodes, 1 edges\n"
        "  #0 kernel 'w': grid (1,1,1) block (1,1,1) shared 0 B, 3 args (13 B), device-updatable\n"
        "  #1 kernel 'u': grid (1,1,1) block (1,1,1) shared 0 B, 2 args (12 B); after 'w'\n");
  (void)u;
}
