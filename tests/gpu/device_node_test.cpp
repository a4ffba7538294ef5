// Device-updatable kernel nodes on the device (graphdsl/device_node.hpp): a kernel of the graph
// re-points, rescales, regrids and disables the node for the next launch through its typed handle;
// host setters and update() on such an executable; the executable's refusals. Plan rules:
// tests/unit/device_node_test.cpp. The updaters are in tests/gpu/rdc/device_node_kernels.cu (-rdc=true).
#include <string>
#include <vector>

#include "device_node_kernels.hpp"
#include "gpu_support.hpp"

namespace {

namespace gd = graphdsl;
using gpu_test::DeviceBuffer;
using gpu_test::Stream;

constexpr int n = 256;
constexpr float sentinel = -1.0f;

/// v[i] * factor for i < upto, the sentinel after.
std::vector<float> scaled(const std::vector<float>& v, float factor, int upto = n) {
  std::vector<float> out(v.size(), sentinel);
  for (int i = 0; i < upto; ++i) out[i] = v[i] * factor;
  return out;
}

/// Inputs a, b, c (random, distinct), the output (reset to the sentinel) and the updaters' status word.
struct Buffers {
  std::mt19937 gen = gpu_test::rng(16);
  std::vector<float> ha = gpu_test::random_floats(n, gen), hb = gpu_test::random_floats(n, gen),
                     hc = gpu_test::random_floats(n, gen);
  DeviceBuffer<float> a{ha}, b{hb}, c{hc}, out{std::vector<float>(n, sentinel)};
  DeviceBuffer<int> status{std::vector<int>{-1}};
  void reset() { out.upload(std::vector<float>(n, sentinel)); }
  int last_status() const { return status.download()[0]; }
};

/// A plan: 'w' (read_scaled, device-updatable) reads `in`, then 'u' (an updater taking w's handle
/// as its first argument, a placeholder until compiled) runs after it.
template <class... U, class... A>
gd::Graph plan_with_updater(const char* name, const gd::Launch& launch, const float* in, float* out, float factor,
                            void (*updater)(gpu_test::ReadScaledNode, U...), A... rest) {
  gd::Graph g(name);
  auto w = g.add_kernel(gpu_test::read_scaled, launch, in, out, factor, n).name("w");
  g.add_kernel(updater, gd::Launch{1, 1}, gpu_test::ReadScaledNode{}, rest...).name("u").after(w);
  return g;
}

gd::KernelNodeOf<decltype(gpu_test::read_scaled)> w_of(const gd::Graph& g) {
  return gd::node_cast<gd::KernelNodeOf<decltype(gpu_test::read_scaled)>>(g.node(0));
}

/// Compiles g and gives updater 'u' the handle of 'w' (with its other arguments `rest`).
template <class... U, class... A>
gd::Executable compile_with_handle(const gd::Graph& g, void (*)(gpu_test::ReadScaledNode, U...), A... rest) {
  gd::Executable exec = g.instantiate();
  auto u = gd::node_cast<gd::KernelNode<gpu_test::ReadScaledNode, U...>>(g.node(1));
  exec.set_kernel_args(u, exec.device_node(w_of(g)), rest...);
  return exec;
}

void run(gd::Executable& exec, const Stream& s) {
  exec.launch(s);
  exec.synchronize(s);
}

}  // namespace

TEST_CASE("device_node: a kernel re-points the next launch's node; host setters still apply", "[gpu][device_node]") {
  Buffers m;
  Stream s;
  const gd::Graph g = plan_with_updater("repoint", gd::cover(n, 64).with_device_updatable(), m.a.get(), m.out.get(),
                                        2.0f, gpu_test::repoint_input, static_cast<const float*>(m.b.get()),
                                        m.status.get());
  gd::Executable exec = compile_with_handle(g, gpu_test::repoint_input, static_cast<const float*>(m.b.get()),
                                            m.status.get());
  run(exec, s);
  CHECK(m.last_status() == cudaSuccess);
  gpu_test::require_equal(m.out.download(), scaled(m.ha, 2.0f), "first launch: w reads a");
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.hb, 2.0f), "second launch: w reads b, set by the updater");
  // A host setter on the node (which makes the executable upload again before its next launch).
  exec.set_kernel_args(w_of(g), m.a.get(), m.out.get(), 3.0f, n);
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.ha, 3.0f), "after set_kernel_args: a again, factor 3");
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.hb, 3.0f), "and the updater re-points it again");
}

TEST_CASE("device_node: set_arg writes a float, and an int behind a char and a pointer, at CUDA's offsets",
          "[gpu][device_node]") {
  Buffers m;
  Stream s;
  const gd::Graph g = plan_with_updater("rescale", gd::cover(n, 64).with_device_updatable(), m.a.get(), m.out.get(),
                                        2.0f, gpu_test::set_factor, 5.0f, m.status.get());
  gd::Executable exec = compile_with_handle(g, gpu_test::set_factor, 5.0f, m.status.get());
  run(exec, s);
  CHECK(m.last_status() == cudaSuccess);
  gpu_test::require_equal(m.out.download(), scaled(m.ha, 2.0f), "factor 2");
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.ha, 5.0f), "factor 5, set by the updater");

  DeviceBuffer<int> word{std::vector<int>{0}};
  gd::Graph t("tagged");
  auto w = t.add_kernel(gpu_test::tagged_write, gd::Launch{}.with_device_updatable(), char{3}, word.get(), 1).name("w");
  auto u = t.add_kernel(gpu_test::set_tagged_value, gd::Launch{}, gpu_test::TaggedWriteNode{}, 42, m.status.get())
               .name("u")
               .after(w);
  gd::Executable tagged = t.instantiate();
  tagged.set_kernel_args(u, tagged.device_node(w), 42, m.status.get());
  run(tagged, s);
  CHECK(word.download()[0] == 3001);
  CHECK(m.last_status() == cudaSuccess);
  run(tagged, s);
  CHECK(word.download()[0] == 3042);  // the int at byte 16; graphdsl's packed block has it at byte 9
}

TEST_CASE("device_node: set_grid changes the work the node does", "[gpu][device_node]") {
  Buffers m;
  Stream s;
  const gd::Graph g = plan_with_updater("regrid", gd::Launch{1, 64}.with_device_updatable(), m.a.get(), m.out.get(),
                                        2.0f, gpu_test::set_blocks, 4u, m.status.get());
  gd::Executable exec = compile_with_handle(g, gpu_test::set_blocks, 4u, m.status.get());
  run(exec, s);
  CHECK(m.last_status() == cudaSuccess);
  gpu_test::require_equal(m.out.download(), scaled(m.ha, 2.0f, 64), "one block: 64 elements");
  m.reset();
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.ha, 2.0f), "four blocks, set by the updater: all 256");
}

TEST_CASE("device_node: set_enabled disables the node", "[gpu][device_node]") {
  Buffers m;
  Stream s;
  const gd::Graph g = plan_with_updater("disable", gd::cover(n, 64).with_device_updatable(), m.a.get(), m.out.get(),
                                        2.0f, gpu_test::set_node_enabled, 0, m.status.get());
  gd::Executable exec = compile_with_handle(g, gpu_test::set_node_enabled, 0, m.status.get());
  run(exec, s);
  CHECK(m.last_status() == cudaSuccess);
  gpu_test::require_equal(m.out.download(), scaled(m.ha, 2.0f), "enabled on the first launch");
  m.reset();
  run(exec, s);
  gpu_test::require_equal(m.out.download(), std::vector<float>(n, sentinel), "disabled by the updater");
}

TEST_CASE("device_node: the executable's refusals name the node and the rule", "[gpu][device_node]") {
  Buffers m;
  gd::Graph g("refusals");
  auto w = g.add_kernel(gpu_test::read_scaled, gd::cover(n, 64).with_device_updatable(), m.a.get(), m.out.get(), 2.0f,
                        n)
               .name("w");
  auto plain = g.add_kernel(gpu_test::read_scaled, gd::cover(n, 64), m.b.get(), m.out.get(), 2.0f, n).name("plain");
  plain.after(w);
  gd::Executable exec = g.instantiate();
  CHECK(static_cast<bool>(exec.device_node(w)));
  REQUIRE_THROWS_MATCHES(exec.device_node(plain), gd::UsageError,
                         message_is("graphdsl: kernel node 'plain' (#1) is not device-updatable: "
                                    "Executable::device_node() gives the handles of kernel nodes marked with "
                                    "Launch::with_device_updatable() in the plan the executable was compiled from"));
  gd::Graph other("other");
  auto foreign =
      other.add_kernel(gpu_test::read_scaled, gd::cover(n, 64).with_device_updatable(), m.a.get(), m.out.get(), 2.0f, n)
          .name("foreign");
  REQUIRE_THROWS_WITH(exec.device_node(foreign), has_substr("kernel node 'foreign' (#0) belongs to graph 'other'"));
  gd::Executable empty;
  REQUIRE_THROWS_MATCHES(empty.device_node(w), gd::UsageError,
                         message_is("graphdsl: Executable::device_node(kernel node 'w' (#0)): the executable is empty "
                                    "(default-constructed or moved-from)"));
  REQUIRE_THROWS_MATCHES(exec.set_launch(w, gd::cover(n, 64)), gd::UsageError,
                         message_is("graphdsl: kernel node 'w' (#0): a setter's launch has other launch attributes "
                                    "(cluster, cooperative, sync domain, L2 window, device-updatable) than the node's; "
                                    "CUDA cannot patch them on one node: give the node's own attributes, or update "
                                    "the executable from a plan (whole graph)"));
  CHECK_NOTHROW(exec.set_launch(w, gd::Launch{8, 32}.with_device_updatable()));
}

TEST_CASE("device_node: update() patches node by node and never calls cudaGraphExecUpdate", "[gpu][device_node]") {
  Buffers m;
  Stream s;
  const gd::Launch launch = gd::cover(n, 64).with_device_updatable();
  const gd::Graph g = plan_with_updater("upd", launch, m.a.get(), m.out.get(), 2.0f, gpu_test::repoint_input,
                                        static_cast<const float*>(m.b.get()), m.status.get());
  gd::Executable exec = compile_with_handle(g, gpu_test::repoint_input, static_cast<const float*>(m.b.get()),
                                            m.status.get());
  // A template passes the real handle: a placeholder would be patched into the updater as a change.
  auto templ = [&](const gd::Launch& l, const float* in) {
    gd::Graph t("upd");
    auto w = t.add_kernel(gpu_test::read_scaled, l, in, m.out.get(), 2.0f, n).name("w");
    t.add_kernel(gpu_test::repoint_input, gd::Launch{1, 1}, exec.device_node(w_of(g)),
                 static_cast<const float*>(m.b.get()), m.status.get())
        .name("u")
        .after(w);
    return t;
  };
  const gd::UpdateResult r = exec.update(templ(launch, m.c.get()));
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.patched == 1);
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.hc, 2.0f), "after the per-node update: w reads c");
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.hb, 2.0f), "then b, from the updater");

  const std::string whole =
      "graph 'upd' holds device-updatable kernel node 'w' (#0), and CUDA does not allow cudaGraphExecUpdate on a "
      "graph with device-updatable nodes; only changes per-node setters make (kernel arguments, grid, block, shared "
      "memory; memset and memcpy parameters) can be applied to it: compile the new plan instead";
  const gd::UpdateResult forced = exec.update(templ(launch, m.a.get()), gd::UpdatePolicy::whole_graph);
  CHECK_FALSE(forced);
  CHECK(forced.status == gd::UpdateStatus::not_supported);
  CHECK(forced.reason == whole);
  gd::Launch with_priority = launch;
  with_priority.priority = 1;
  const gd::UpdateResult attrs = exec.update(templ(with_priority, m.a.get()));  // needs whole-graph: refused
  CHECK(attrs.reason == whole);
  const gd::UpdateResult unmarked = exec.update(templ(gd::cover(n, 64), m.a.get()));
  CHECK(unmarked.status == gd::UpdateStatus::attributes_changed);
  CHECK_THAT(unmarked.reason, has_substr("is device-updatable in the executable but not in "
                                         "the template"));
  // The refusals left the executable as it was: w reads b (the updater's), then b again.
  run(exec, s);
  gpu_test::require_equal(m.out.download(), scaled(m.hb, 2.0f), "unchanged after the refusals");
}
