// GPU tests of the kernel-argument setter's short path: after a first set_kernel_args, an
// executable patches the node from a record of its function, launch shape and argument layout. Every
// other change of the node (set_launch, set_kernel, an update under each policy) must reach that
// record, and the handle checks must stay as strict as on the checked path. Each case reads the
// device's results back: a stale record would launch the old shape or function with the new
// arguments.
#include <vector>

#include "gpu_support.hpp"

using namespace gpu_test;

namespace kernel_setter_test {

namespace {

constexpr int N = 2048;
constexpr unsigned threads = 256;
constexpr unsigned full = N / threads;  // blocks covering the buffer

using ScaleNode = gd::KernelNodeOf<decltype(scale_by)>;

/// A buffer of ones and a plan of one kernel `x *= factor` over `blocks` blocks of it.
struct Scaled {
  DeviceBuffer<float> x{std::vector<float>(N, 1.0f)};
  Stream s;

  gd::Graph plan(float factor, unsigned blocks) {
    gd::Graph g("scaled");
    g.add_kernel(scale_by, gd::Launch{blocks, threads}, x.get(), factor, N).name("scale");
    return g;
  }
  /// Launches `exec` on a buffer of ones and checks that the first `reach` elements hold `value`
  /// and the others are still 1; with `last`, the last element holds 0 (the memset after the kernel).
  void check(gd::Executable& exec, int reach, float value, const char* what, bool last = false) {
    INFO(what);
    x.upload(std::vector<float>(N, 1.0f));
    exec.launch(s);
    exec.synchronize(s);
    const std::vector<float> got = x.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != (last && i == N - 1 ? 0.0f : i < reach ? value : 1.0f);
    CHECK(bad == 0);
  }
};

}  // namespace

TEST_CASE("set_kernel_args keeps the launch shape and function that set_launch, set_kernel and updates gave the node",
          "[gpu][update][setters]") {
  Scaled t;
  gd::Graph g = t.plan(2.0f, full);
  const ScaleNode k = gd::node_cast<ScaleNode>(g.node(0));
  gd::Executable exec = g.instantiate();
  exec.set_kernel_args(k, t.x.get(), 3.0f, N);
  exec.set_kernel_args(k, t.x.get(), 4.0f, N);  // the second call takes the short path
  t.check(exec, N, 4.0f, "set_kernel_args twice");

  exec.set_launch(k, gd::Launch{1, threads});
  exec.set_kernel_args(k, t.x.get(), 5.0f, N);
  t.check(exec, threads, 5.0f, "set_launch to one block, then set_kernel_args");

  const gd::UpdatePolicy policies[] = {gd::UpdatePolicy::per_node, gd::UpdatePolicy::whole_graph,
                                       gd::UpdatePolicy::automatic};
  unsigned blocks = 2;
  for (gd::UpdatePolicy policy : policies) {
    INFO("policy " << static_cast<int>(policy) << ", " << blocks << " blocks");
    const gd::UpdateResult r = exec.update(t.plan(6.0f, blocks), policy);
    INFO(r.to_string());
    REQUIRE(r.status == gd::UpdateStatus::success);
    exec.set_kernel_args(k, t.x.get(), 7.0f, N);
    t.check(exec, static_cast<int>(blocks * threads), 7.0f, "an update of the launch, then set_kernel_args");
    blocks *= 2;
  }

  exec.set_kernel(k, add_scalar, gd::Launch{full, threads}, t.x.get(), 1.0f, N);
  exec.set_kernel_args(k, t.x.get(), 8.0f, N);  // add_scalar's arguments: x += 8
  t.check(exec, N, 9.0f, "set_kernel to add_scalar, then set_kernel_args");
  exec.set_kernel(k, scale_by, gd::Launch{full, threads}, t.x.get(), 1.0f, N);
  exec.set_kernel_args(k, t.x.get(), 10.0f, N);
  t.check(exec, N, 10.0f, "set_kernel back to scale_by, then set_kernel_args");
}

TEST_CASE("set_kernel_args after its record exists refuses the handles it refused before, naming them",
          "[gpu][update][setters][reliability]") {
  Scaled t;
  gd::Graph g = t.plan(2.0f, full);
  const ScaleNode k = gd::node_cast<ScaleNode>(g.node(0));
  g.add_memset(t.x.get() + N - 1, 0.0f, 1).name("after").after(k);
  gd::Executable exec = g.instantiate();
  exec.set_kernel_args(k, t.x.get(), 3.0f, N);  // makes the record
  exec.set_kernel_args(k, t.x.get(), 3.0f, N);

  REQUIRE_THROWS_WITH(exec.set_kernel_args(ScaleNode{}, t.x.get(), 5.0f, N),
                      has_substr("empty node handle (a default-constructed Node was used)"));
  gd::Graph other = t.plan(2.0f, full);
  REQUIRE_THROWS_WITH(exec.set_kernel_args(gd::node_cast<ScaleNode>(other.node(0)), t.x.get(), 5.0f, N),
                      has_substr("belongs to graph 'scaled'"));
  const ScaleNode memset_as_kernel(g.node(1).ref());
  REQUIRE_THROWS_WITH(exec.set_kernel_args(memset_as_kernel, t.x.get(), 5.0f, N),
                      has_substr("is not a kernel node of this executable's plan"));
  t.check(exec, N, 3.0f, "the refusals changed nothing", true);

  // A handle of the last update's template is one the executable accepts, also on the short path.
  gd::Graph next = t.plan(2.0f, full);
  next.add_memset(t.x.get() + N - 1, 0.0f, 1).name("after").after(next.node(0));
  REQUIRE(exec.update(next).status == gd::UpdateStatus::success);
  exec.set_kernel_args(gd::node_cast<ScaleNode>(next.node(0)), t.x.get(), 6.0f, N);
  exec.set_kernel_args(gd::node_cast<ScaleNode>(next.node(0)), t.x.get(), 7.0f, N);
  t.check(exec, N, 7.0f, "set through the template's handle", true);
  exec.set_kernel_args(k, t.x.get(), 8.0f, N);  // and through the first plan's
  t.check(exec, N, 8.0f, "set through the compiled plan's handle", true);
}

}  // namespace kernel_setter_test
