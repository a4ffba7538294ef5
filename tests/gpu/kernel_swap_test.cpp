// GPU tests of Executable::set_kernel with a kernel of another signature: the node launches the new
// kernel with its own arguments, the recorded plan follows (dump, diff and update() agree with a
// plan built with the new kernel), what graphdsl refuses before CUDA sees it, what CUDA refuses, and
// the recorded plan taking the handles of the plan it was compiled from.
#include <string>
#include <vector>

#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt).
namespace kernel_swap_test {

namespace {

constexpr int N = 4096;

/// Stand-ins that never reach CUDA: kernels of signatures set_kernel refuses to switch to.
void takes_device_node(gd::DeviceKernelNode<float*, float, int>, float*) {}
void takes_device_graph(gd::DeviceGraph, float*) {}
/// A host function of another signature, which CUDA refuses as a kernel.
void not_a_kernel(float*, const float*, float, float, int) {}

struct Buffers {
  std::mt19937 gen = rng(511);
  std::vector<float> hx = random_floats(N, gen);
  DeviceBuffer<float> x{hx};
  DeviceBuffer<float> y{N};
  Stream s;

  /// Launches `exec` from x as it was and y poisoned; returns x and y after it.
  std::pair<std::vector<float>, std::vector<float>> run(gd::Executable& exec) {
    x.upload(hx);
    y.upload(std::vector<float>(N, -1.0f));
    exec.launch(s);
    exec.synchronize(s);
    return {x.download(), y.download()};
  }
};

/// 'k': x *= factor (scale_by), then 'fill': y[0..8) = 9.
gd::Graph scaling(Buffers& b, float factor) {
  gd::Graph g("swap");
  auto k = g.add_kernel(scale_by, gd::cover(N), b.x.get(), factor, N).name("k");
  g.add_memset(b.y.get(), 9.0f, 8).name("fill").after(k);
  return g;
}

/// The same plan with 'k' launching affine: y = m * x + c.
gd::Graph affined(Buffers& b, float m, float c) {
  gd::Graph g("swap");
  auto k = g.add_kernel(affine, gd::cover(N), b.y.get(), static_cast<const float*>(b.x.get()), m, c, N).name("k");
  g.add_memset(b.y.get(), 9.0f, 8).name("fill").after(k);
  return g;
}

/// Whether a run left x scaled by `factor` and y poisoned but for the fill.
bool scaled(Buffers& b, const std::pair<std::vector<float>, std::vector<float>>& got, float factor) {
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    bad += got.first[i] != factor * b.hx[i];
    bad += got.second[i] != (i < 8 ? 9.0f : -1.0f);
  }
  INFO(bad << " values differ from x *= " << factor);
  return bad == 0;
}

/// Whether a run left x as it was and y = m * x + c but for the fill.
bool affine_ran(Buffers& b, const std::pair<std::vector<float>, std::vector<float>>& got, float m, float c) {
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    bad += got.first[i] != b.hx[i];
    bad += got.second[i] != (i < 8 ? 9.0f : m * b.hx[i] + c);
  }
  INFO(bad << " values differ from y = " << m << " x + " << c);
  return bad == 0;
}

}  // namespace

TEST_CASE("set_kernel switches a node to a kernel of another signature, and the recorded plan follows",
          "[gpu][update][setters][set_kernel]") {
  Buffers b;
  const gd::Graph g = scaling(b, 2.0f);
  const auto k = gd::node_cast<gd::KernelNodeOf<decltype(scale_by)>>(*g.find("k"));
  gd::Executable exec = g.instantiate();
  REQUIRE(scaled(b, b.run(exec), 2.0f));

  const gd::KernelNodeOf<decltype(affine)> k2 =
      exec.set_kernel(k, affine, gd::cover(N), b.y.get(), b.x.get(), 3.0f, 1.0f, N);
  CHECK(k2.index() == k.index());
  CHECK(affine_ran(b, b.run(exec), 3.0f, 1.0f));
  const gd::Graph w = affined(b, 3.0f, 1.0f);
  CHECK(exec.plan().dump() == w.dump());
  CHECK(gd::diff(exec.plan(), w).changed.empty());

  // The returned handle takes the new signature's setters (the direct path).
  exec.set_kernel_args(k2, b.y.get(), b.x.get(), 0.5f, 0.0f, N);
  CHECK(affine_ran(b, b.run(exec), 0.5f, 0.0f));
  exec.set_launch(k2, gd::Launch{dim3((N + 127) / 128), dim3(128)});
  CHECK(affine_ran(b, b.run(exec), 0.5f, 0.0f));
  // The old handle names the old signature: refused, naming the node, nothing changed.
  CHECK_THROWS_MATCHES(
      exec.set_kernel_args(k, b.x.get(), 5.0f, N), gd::UsageError,
      message_is("graphdsl: kernel node 'k' (#0): the setter's kernel arguments (3 parameters, 16 bytes) do not match "
                 "the kernel the node launches (5 parameters, 28 bytes): a KernelNode handle of another signature "
                 "(node_cast checks it; KernelNodeOf<decltype(kernel)> names it), or one from before set_kernel "
                 "switched the node to another signature (use the handle it returned)"));
  CHECK_THROWS_MATCHES(
      exec.set_kernel(k, triple_plus, gd::cover(N), b.x.get(), 1.0f, N), gd::UsageError,
      message_is("graphdsl: kernel node 'k' (#0): the setter's kernel arguments (3 parameters, 16 bytes) do not match "
                 "the kernel the node launches (5 parameters, 28 bytes): a KernelNode handle of another signature "
                 "(node_cast checks it; KernelNodeOf<decltype(kernel)> names it), or one from before set_kernel "
                 "switched the node to another signature (use the handle it returned)"));
  CHECK(affine_ran(b, b.run(exec), 0.5f, 0.0f));

  // update() decides as diff() does: the compiled plan launches another function now.
  for (const gd::UpdatePolicy policy :
       {gd::UpdatePolicy::automatic, gd::UpdatePolicy::per_node, gd::UpdatePolicy::whole_graph}) {
    const gd::UpdateResult d = gd::diff(exec.plan(), g);
    const gd::UpdateResult r = exec.update(g, policy);
    CHECK(d.status == gd::UpdateStatus::function_changed);
    CHECK(r.status == d.status);
    CHECK(r.reason == d.reason);
    CHECK(r.reason == "kernel node 'k' (#0) launches a different kernel function in the template");
    CHECK(affine_ran(b, b.run(exec), 0.5f, 0.0f));
  }
  // A template with the new kernel: a parameter change of 'k', per node or whole graph.
  for (const gd::UpdatePolicy policy :
       {gd::UpdatePolicy::automatic, gd::UpdatePolicy::per_node, gd::UpdatePolicy::whole_graph}) {
    // Another value each time: each update changes 'k' again.
    const float m = policy == gd::UpdatePolicy::whole_graph ? 4.0f : policy == gd::UpdatePolicy::per_node ? 2.5f : 1.5f;
    const gd::Graph t = affined(b, m, 2.0f);
    const gd::UpdateResult d = gd::diff(exec.plan(), t);
    const gd::UpdateResult r = exec.update(t, policy);
    INFO(r.to_string());
    REQUIRE(r);
    CHECK(r.changed == d.changed);
    CHECK(r.changed == std::vector<std::uint32_t>{0});
    CHECK(affine_ran(b, b.run(exec), m, 2.0f));
    CHECK(exec.plan().dump() == t.dump());
  }
  // And back to the first signature, through the handle of the second: update(g) works again.
  const gd::KernelNodeOf<decltype(scale_by)> k3 = exec.set_kernel(k2, scale_by, gd::cover(N), b.x.get(), 0.25f, N);
  CHECK(k3 == k);
  CHECK(scaled(b, b.run(exec), 0.25f));
  const gd::UpdateResult d = gd::diff(exec.plan(), g);
  const gd::UpdateResult r = exec.update(g);
  REQUIRE(r);
  CHECK(r.changed == d.changed);
  CHECK(scaled(b, b.run(exec), 2.0f));
  CHECK(exec.plan().dump() == g.dump());
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a PreparedUpdate prepared before set_kernel gave a node another function is refused",
          "[gpu][update][prepared][set_kernel]") {
  Buffers b;
  const gd::Graph g = scaling(b, 2.0f);
  const auto k = gd::node_cast<gd::KernelNodeOf<decltype(scale_by)>>(*g.find("k"));
  gd::Executable exec = g.instantiate();
  const gd::PreparedUpdate before = exec.prepare_update(scaling(b, 3.0f));
  REQUIRE(before.result());
  (void)exec.set_kernel(k, affine, gd::cover(N), b.y.get(), b.x.get(), 3.0f, 1.0f, N);
  const gd::UpdateResult r = exec.update(before);
  CHECK(r.status == gd::UpdateStatus::function_changed);
  REQUIRE(r.node);
  CHECK(r.node->name == "k");
  CHECK(r.reason ==
        "kernel node 'k' (#0) launches another kernel function since the update from template 'swap' was prepared "
        "(set_kernel); prepare it again");
  CHECK(affine_ran(b, b.run(exec), 3.0f, 1.0f));
  // Prepared after the switch, from a plan with the new kernel: applied.
  const gd::PreparedUpdate after = exec.prepare_update(affined(b, 0.5f, 1.0f));
  REQUIRE(after.result());
  CHECK(exec.update(after));
  CHECK(affine_ran(b, b.run(exec), 0.5f, 1.0f));
  CHECK(exec.plan().dump() == affined(b, 0.5f, 1.0f).dump());
}

TEST_CASE("set_kernel to another signature refuses what graphdsl knows CUDA or itself would not take",
          "[gpu][setters][set_kernel][errors]") {
  Buffers b;
  auto refused = [&](const gd::Graph& g, auto&& swap, const std::string& why, const char* node = "'k' (#0)") {
    gd::Executable exec = g.instantiate();
    const std::string dump = exec.plan().dump();
    const auto calls = gd::debug::cuda_calls();
    CHECK_THROWS_MATCHES(swap(exec), gd::UsageError,
                         message_is(std::string("graphdsl: set_kernel: kernel node ") + node +
                                    " cannot switch to a kernel of another signature: " + why));
    CHECK(gd::debug::cuda_calls() == calls);
    CHECK(exec.plan().dump() == dump);
  };
  // A device-updatable node: device code holds its typed handle.
  {
    gd::Graph g("swap");
    auto k = g.add_kernel(scale_by, gd::cover(N).with_device_updatable(), b.x.get(), 2.0f, N).name("k");
    refused(
        g, [&](gd::Executable& e) { e.set_kernel(k, affine, gd::cover(N), b.y.get(), b.x.get(), 1.0f, 0.0f, N); },
        "it is device-updatable (Launch::with_device_updatable), and device code holds its DeviceKernelNode, typed "
        "for the node's signature; compile a plan with the new kernel instead");
  }
  const gd::Graph plain = scaling(b, 2.0f);
  const auto k = gd::node_cast<gd::KernelNodeOf<decltype(scale_by)>>(*plain.find("k"));
  refused(
      plain,
      [&](gd::Executable& e) {
        e.set_kernel(k, takes_device_node, gd::Launch{}, gd::DeviceKernelNode<float*, float, int>{}, b.x.get());
      },
      "the new kernel takes a DeviceKernelNode and the node's kernel does not; CUDA does not switch a kernel node to a "
      "function making device-side node updates (cudaGraphExecKernelNodeSetParams); compile a plan with the new "
      "kernel instead");
  refused(
      plain, [&](gd::Executable& e) { e.set_kernel(k, takes_device_graph, gd::Launch{}, gd::DeviceGraph{}, b.x.get()); },
      "the new kernel takes a DeviceGraph and the node's kernel does not; CUDA switches a kernel node of an executable "
      "not compiled for device launch to a function launching graphs from the device only where such a function ran "
      "at compile time, which graphdsl cannot tell; compile the plan with the new kernel, or with "
      "InstantiateOptions::device_launch()");
  // A launch with other attributes than the node's (as every setter).
  {
    gd::Executable exec = plain.instantiate();
    CHECK_THROWS_MATCHES(
        exec.set_kernel(k, affine, gd::cover(N).with_cooperative(), b.y.get(), b.x.get(), 1.0f, 0.0f, N),
        gd::UsageError,
        message_is("graphdsl: kernel node 'k' (#0): a setter's launch has other launch attributes (cluster, "
                   "cooperative, sync domain, L2 window, device-updatable) than the node's; CUDA cannot patch them on "
                   "one node: give the node's own attributes, or update the executable from a plan (whole graph)"));
    CHECK(scaled(b, b.run(exec), 2.0f));
  }
  // A GraphBuffer argument, in the node or in the new kernel.
  {
    gd::Graph g("swap");
    auto [alloc, tmp] = g.add_mem_alloc<float>(N);
    auto kb = g.add_kernel(scale_by, gd::cover(N), tmp, 2.0f, N).name("k").after(alloc);
    g.add_mem_free(tmp).after(kb);
    refused(
        g, [&](gd::Executable& e) { e.set_kernel(kb, affine, gd::cover(N), b.y.get(), b.x.get(), 1.0f, 0.0f, N); },
        "its kernel or the new one takes a Condition or GraphBuffer argument, which stands at a position of the "
        "signature; set_kernel of the node's own signature patches them, or compile a plan with the new kernel",
        "'k' (#1)");
  }
  // A node that uses a Parameter.
  {
    gd::Graph g("swap");
    const auto lr = g.parameter<float>(2.0f).name("lr");
    auto kp = g.add_kernel(scale_by, gd::cover(N), b.x.get(), lr, N).name("k");
    refused(
        g, [&](gd::Executable& e) { e.set_kernel(kp, affine, gd::cover(N), b.y.get(), b.x.get(), 1.0f, 0.0f, N); },
        "it uses parameter 'lr' of graph 'swap', which Executable::set writes at a position of the node's signature; "
        "compile a plan with the new kernel instead");
  }
  // A launch rule of the new node (checked on the node as it would be): nothing changed.
  {
    gd::Executable exec = plain.instantiate();
    CHECK_THROWS_MATCHES(exec.set_kernel(k, affine, gd::Launch{1, 2048}, b.y.get(), b.x.get(), 1.0f, 0.0f, N),
                         gd::UsageError,
                         message_is("graphdsl: kernel node 'k' (#0): block (2048,1,1) has 2048 threads; CUDA allows at "
                                    "most 1024 threads per block"));
    CHECK(exec.plan().dump() == plain.dump());
    CHECK(scaled(b, b.run(exec), 2.0f));
  }
}

TEST_CASE("set_kernel to a host function of another signature: CUDA refuses, the node keeps its kernel",
          "[gpu][setters][set_kernel][errors]") {
  Buffers b;
  const gd::Graph g = scaling(b, 2.0f);
  const auto k = gd::node_cast<gd::KernelNodeOf<decltype(scale_by)>>(*g.find("k"));
  gd::Executable exec = g.instantiate();
  const std::string dump = exec.plan().dump();
  try {
    (void)exec.set_kernel(k, not_a_kernel, gd::cover(N), b.y.get(), b.x.get(), 1.0f, 0.0f, N);
    FAIL("CUDA took a host function as a kernel");
  } catch (const gd::CudaError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("cudaGraphExecKernelNodeSetParams failed") != std::string::npos);
    CHECK(std::string(e.what()).find("at kernel node 'k' (#0)") != std::string::npos);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(exec.plan().dump() == dump);
  CHECK(scaled(b, b.run(exec), 2.0f));
  CHECK(exec.update(scaling(b, 3.0f)));  // the recorded plan still diffs as the compiled one
  CHECK(scaled(b, b.run(exec), 3.0f));
}

TEST_CASE("an executable's recorded plan takes the node handles of the plan it was compiled from",
          "[gpu][update][handles]") {
  Buffers b;
  gd::Graph g = scaling(b, 2.0f);
  const auto k = gd::node_cast<gd::KernelNodeOf<decltype(scale_by)>>(*g.find("k"));
  const auto fill = gd::node_cast<gd::MemsetNode>(*g.find("fill"));
  gd::Executable exec = g.instantiate();
  CHECK(exec.plan().memset_of(fill).width == 8u);
  CHECK(exec.plan().launch_of(k).grid.x == gd::cover(N).grid.x);
  CHECK(exec.plan().predecessors(fill) == std::vector<gd::Node>{exec.plan().node(0)});
  // The recorded plan says what the executable launches: a setter's launch, by the origin's handle.
  exec.set_launch(k, gd::Launch{dim3((N + 127) / 128), dim3(128)});
  CHECK(exec.plan().launch_of(k).block.x == 128u);
  CHECK(g.launch_of(k).block.x == gd::cover(N).block.x);
  // Handles of another plan are refused as before.
  const gd::Graph other = scaling(b, 2.0f);
  const auto foreign = gd::node_cast<gd::MemsetNode>(*other.find("fill"));
  CHECK_THROWS_MATCHES(exec.plan().memset_of(foreign), gd::UsageError,
                       message_is(fmt::format("graphdsl: memset node 'fill' (#1) belongs to graph 'swap' (plan id {}), "
                                              "not to graph 'swap' (plan id {})",
                                              other.id(), exec.plan().id())));
  // The origin destroyed: its handles still name the recorded plan's nodes.
  g = gd::Graph("gone");
  CHECK(exec.plan().memset_of(fill).width == 8u);
}

}  // namespace kernel_swap_test
