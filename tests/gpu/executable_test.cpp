// tests/gpu/executable_test.cpp — instantiate options reach the driver and the executable still
// computes the right thing; native_node() maps plan nodes to driver nodes of the right type;
// moving an Executable.
#include <thread>

#include "gpu_support.hpp"

using namespace gpu_test;

namespace {

/// A small plan y = m x + c (one kernel node), for the option tests.
struct AffinePlan {
  explicit AffinePlan(unsigned salt, int size = 1537)
      : gen(rng(salt)), n(size), x(random_floats(n, gen)), d_x(x), d_y(n) {}
  std::mt19937 gen;
  int n;
  std::vector<float> x;
  DeviceBuffer<float> d_x;
  DeviceBuffer<float> d_y;

  /// Launches `exec` on `s` `times` times; y must be m x + c after each.
  void check(gd::Executable& exec, cudaStream_t s, float m, float c, int times = 2) {
    for (int launch = 0; launch < times; ++launch) {
      GPU_REQUIRE(cudaMemset(d_y.get(), 0xFF, d_y.bytes()));
      GPU_REQUIRE(cudaDeviceSynchronize());
      exec.launch(s);
      exec.synchronize(s);
      std::vector<float> want(n);
      for (int i = 0; i < n; ++i) want[i] = m * x[i] + c;
      INFO("launch " << launch);
      require_equal(d_y.download(), want, "y = m x + c");
    }
  }
};

}  // namespace

// ---- instantiate options -------------------------------------------------------------------------

TEST_CASE("upload_on(stream) uploads at instantiation; the executable then launches", "[gpu][instantiate]") {
  AffinePlan p(400);
  gd::Graph g("upload_on");
  g.add_kernel(affine, gd::cover(p.n), p.d_y.get(), p.d_x.get(), 1.5, 2, p.n).name("affine");
  Stream s;
  gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.upload_on(s));
  CHECK((exec.flags() & cudaGraphInstantiateFlagUpload) != 0);
  GPU_REQUIRE(cudaStreamSynchronize(s));
  p.check(exec, s, 1.5f, 2.0f);
}

TEST_CASE("Executable::upload(stream) before the first launch", "[gpu][instantiate]") {
  AffinePlan p(401);
  gd::Graph g("upload");
  g.add_kernel(affine, gd::cover(p.n), p.d_y.get(), p.d_x.get(), -0.5, 1, p.n).name("affine");
  gd::Executable exec = g.instantiate();
  CHECK(exec.flags() == 0);
  Stream s;
  exec.upload(s);
  p.check(exec, s, -0.5f, 1.0f);
  exec.upload();  // the legacy default stream, after launches
  p.check(exec, nullptr, -0.5f, 1.0f, 1);
}

TEST_CASE("use_node_priority with a kernel node priority instantiates and runs", "[gpu][instantiate]") {
  int least = 0, greatest = 0;
  GPU_REQUIRE(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  INFO("stream priorities: least " << least << ", greatest " << greatest);
  const int priority = greatest != 0 ? greatest : -1;  // non-zero, so the node attribute is set
  AffinePlan p(402);
  gd::Graph g("priority");
  auto k = g.add_kernel(affine, gd::Launch{dim3((p.n + 127) / 128), dim3(128), 0, priority}, p.d_y.get(), p.d_x.get(),
                        4, -0.25, p.n)
               .name("urgent");
  REQUIRE(g.launch_of(k).priority == priority);
  gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.use_node_priority());
  CHECK((exec.flags() & cudaGraphInstantiateFlagUseNodePriority) != 0);
  // the driver node carries the priority attribute
  cudaKernelNodeAttrValue v{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaKernelNodeAttributePriority, &v));
  CHECK(v.priority == priority);
  Stream s;
  p.check(exec, s, 4.0f, -0.25f);
}

TEST_CASE("device_launch instantiation of a kernel/memset/memcpy plan sets the flag and runs from the host",
          "[gpu][instantiate]") {
  AffinePlan p(403);
  DeviceBuffer<float> d_copy(p.n);
  gd::Graph g("device_graph");
  auto fill = g.add_memset(p.d_y.get(), 0.75f, p.n).name("fill");
  auto k = g.add_kernel(affine, gd::cover(p.n), p.d_y.get(), p.d_x.get(), 2, 3, p.n).name("affine").after(fill);
  g.add_memcpy(d_copy.get(), static_cast<const float*>(p.d_y.get()), p.n).name("copy").after(k);
  gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.device_launch());
  CHECK((exec.flags() & cudaGraphInstantiateFlagDeviceLaunch) != 0);
  Stream s;
  exec.upload(s);  // device graphs are uploaded before use
  p.check(exec, s, 2.0f, 3.0f);
  std::vector<float> want(p.n);
  for (int i = 0; i < p.n; ++i) want[i] = 2.0f * p.x[i] + 3.0f;
  require_equal(d_copy.download(), want, "the D2D memcpy node ran after the kernel");
  // Launching it from device code (cudaGraphLaunch(exec, cudaStreamGraphFireAndForget) in a kernel)
  // needs relocatable device code, which this test target is not built with.
}

TEST_CASE("device_launch is refused before any CUDA call for host nodes and with auto_free_on_launch",
          "[gpu][instantiate][error]") {
  gd::Graph g("not_device");
  DeviceBuffer<float> d(16);
  auto k = g.add_memset(d.get(), 1.0f, 16).name("fill");
  g.add_host([] {}).name("cb").after(k);
  const std::uint64_t calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_MATCHES(g.instantiate(gd::InstantiateOptions{}.device_launch()), gd::UsageError,
                         message_is("graphdsl: host node 'cb' (#1) cannot be part of a device-launchable executable "
                                        "(device_launch allows only kernel, memcpy, memset and child nodes)"));
  REQUIRE_THROWS_MATCHES(g.instantiate(gd::InstantiateOptions{}.device_launch().auto_free_on_launch()),
                         gd::UsageError,
                         message_is("graphdsl: instantiating graph 'not_device': device_launch and "
                                        "auto_free_on_launch cannot be combined (CUDA refuses the pair)"));
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("auto_free_on_launch is accepted and the executable relaunches", "[gpu][instantiate]") {
  AffinePlan p(404);
  gd::Graph g("auto_free");
  g.add_kernel(affine, gd::cover(p.n), p.d_y.get(), p.d_x.get(), 0.5, -7, p.n).name("affine");
  gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.auto_free_on_launch());
  CHECK((exec.flags() & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0);
  Stream s;
  p.check(exec, s, 0.5f, -7.0f, 3);
}

TEST_CASE("InstantiateOptions combine: upload_on + use_node_priority + auto_free_on_launch", "[gpu][instantiate]") {
  AffinePlan p(405);
  gd::Graph g("combined");
  g.add_kernel(affine, gd::cover(p.n), p.d_y.get(), p.d_x.get(), 3, 0.125, p.n).name("affine");
  Stream s;
  gd::Executable exec =
      g.instantiate(gd::InstantiateOptions{}.upload_on(s).use_node_priority().auto_free_on_launch());
  CHECK(exec.flags() == (cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagUseNodePriority |
                         cudaGraphInstantiateFlagAutoFreeOnLaunch));
  p.check(exec, s, 3.0f, 0.125f);
}

// ---- native_node ---------------------------------------------------------------------------------

TEST_CASE("native_node returns a driver node of the matching type for every node kind", "[gpu][native]") {
  const int n = 64;
  DeviceBuffer<float> d_a(n), d_b(n);
  PinnedBuffer<float> h(n);
  gd::Event e = gd::Event::create();
  gd::Graph child("child");
  child.add_empty().name("inner");

  gd::Graph g("kinds");
  auto k = g.add_kernel(affine, gd::cover(n), d_b.get(), d_a.get(), 2, 1, n).name("kernel");
  auto ms = g.add_memset(d_a.get(), 2.5f, n).name("memset").before(k);
  auto mc = g.add_memcpy(h.data(), static_cast<const float*>(d_b.get()), n).name("memcpy").after(k);
  auto host = g.add_host([] {}).name("host").after(mc);
  auto ch = g.add_child(child).name("child").after(host);
  auto em = g.add_empty().name("empty").after(ch);
  auto rec = g.add_event_record(e).name("record").after(em);
  auto wt = g.add_event_wait(e).name("wait").after(rec);
  gd::Executable exec = g.instantiate();

  const std::pair<gd::Node, cudaGraphNodeType> expected[] = {
      {k, cudaGraphNodeTypeKernel},       {ms, cudaGraphNodeTypeMemset},     {mc, cudaGraphNodeTypeMemcpy},
      {host, cudaGraphNodeTypeHost},      {ch, cudaGraphNodeTypeGraph},      {em, cudaGraphNodeTypeEmpty},
      {rec, cudaGraphNodeTypeEventRecord}, {wt, cudaGraphNodeTypeWaitEvent}};
  std::vector<cudaGraphNode_t> seen;
  for (const auto& [node, type] : expected) {
    INFO(node.info().describe());
    cudaGraphNode_t native = exec.native_node(node);
    REQUIRE(native != nullptr);
    cudaGraphNodeType got{};
    GPU_REQUIRE(cudaGraphNodeGetType(native, &got));
    CHECK(got == type);
    seen.push_back(native);
  }
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());  // distinct driver nodes

  // the parameters and edges reached the driver
  cudaKernelNodeParams kp{};
  GPU_REQUIRE(cudaGraphKernelNodeGetParams(exec.native_node(k), &kp));
  CHECK(kp.func == reinterpret_cast<void*>(&affine));
  CHECK(kp.gridDim.x == gd::cover(n).grid.x);
  CHECK(kp.blockDim.x == 256u);
  cudaMemsetParams mp{};
  GPU_REQUIRE(cudaGraphMemsetNodeGetParams(exec.native_node(ms), &mp));
  CHECK(mp.dst == d_a.get());
  CHECK(mp.elementSize == 4u);
  CHECK(mp.width == static_cast<std::size_t>(n));
  float value = 0;
  std::memcpy(&value, &mp.value, sizeof value);
  CHECK(value == 2.5f);
  std::size_t deps = 0;
#if GRAPHDSL_CUDA_13
  GPU_REQUIRE(cudaGraphNodeGetDependencies(exec.native_node(k), nullptr, nullptr, &deps));
#else
  GPU_REQUIRE(cudaGraphNodeGetDependencies(exec.native_node(k), nullptr, &deps));
#endif
  CHECK(deps == 1);
  std::size_t total = 0;
  GPU_REQUIRE(cudaGraphGetNodes(exec.native_graph(), nullptr, &total));
  CHECK(total == g.node_count());

  exec.launch();
  exec.synchronize();
  require_equal(h.to_vector(), std::vector<float>(n, 6.0f), "2 * 2.5 + 1");
}

TEST_CASE("native_node refuses a node that is not in the executable's plan", "[gpu][native][error]") {
  const int n = 32;
  DeviceBuffer<float> d(n);
  gd::Graph g("small");
  auto fill = g.add_memset(d.get(), 1.0f, n).name("fill");
  g.add_empty().name("end").after(fill);
  gd::Executable exec = g.instantiate();

  gd::Graph other("other");
  other.add_empty().name("o0");
  other.add_empty().name("o1");
  auto beyond = other.add_memset(d.get(), 2.0f, n).name("beyond");  // index 2: the plan has 2 nodes
  auto wrong_kind = other.node(1);                                   // index 1 is an empty node: same kind
  auto wrong_kind_0 = other.node(0);                                 // index 0 is a memset in `g`, empty here

  for (const gd::Node& foreign : {gd::Node(beyond), wrong_kind_0, wrong_kind}) {
    REQUIRE_THROWS_WITH(exec.native_node(foreign),
                        Catch::Matchers::StartsWith("graphdsl: " + foreign.info().describe() + " belongs to graph 'other'") &&
                            has_substr("this executable was compiled from graph 'small'"));
  }
  REQUIRE_THROWS_MATCHES(exec.native_node(gd::Node{}), gd::UsageError,
                         message_is("graphdsl: empty node handle (a default-constructed Node was used)"));
  // A handle of the plan with the wrong kind for its index cannot exist; a node of the executable's
  // own recorded plan is accepted like the original's.
  // the plan's own handles work
  CHECK(exec.native_node(fill) != nullptr);
  CHECK(exec.native_node(exec.plan().node(1)) == exec.native_node(g.node(1)));
}

// ---- moving --------------------------------------------------------------------------------------

TEST_CASE("a moved-to Executable launches; the moved-from one throws UsageError", "[gpu][executable]") {
  AffinePlan p(410);
  gd::Graph g("movable");
  g.add_kernel(affine, gd::cover(p.n), p.d_y.get(), p.d_x.get(), -1, 9, p.n).name("affine");
  gd::Executable first = g.instantiate();
  const cudaGraphExec_t native = first.native_handle();

  gd::Executable second(std::move(first));
  CHECK(static_cast<bool>(second));
  CHECK_FALSE(static_cast<bool>(first));
  CHECK(second.native_handle() == native);
  Stream s;
  p.check(second, s, -1.0f, 9.0f);

  const char* const moved = "graphdsl: use of an empty or moved-from Executable";
  REQUIRE_THROWS_MATCHES(first.launch(s), gd::UsageError, message_is(moved));
  REQUIRE_THROWS_MATCHES(first.synchronize(s), gd::UsageError, message_is(moved));
  REQUIRE_THROWS_MATCHES(first.upload(s), gd::UsageError, message_is(moved));
  REQUIRE_THROWS_MATCHES(first.native_handle(), gd::UsageError, message_is(moved));
  REQUIRE_THROWS_MATCHES(first.has_host_error(), gd::UsageError, message_is(moved));

  gd::Executable third;
  CHECK_FALSE(static_cast<bool>(third));
  REQUIRE_THROWS_AS(third.launch(s), gd::UsageError);
  third = std::move(second);  // move assignment
  CHECK_FALSE(static_cast<bool>(second));
  REQUIRE_THROWS_MATCHES(second.launch(s), gd::UsageError, message_is(moved));
  p.check(third, s, -1.0f, 9.0f);

  // move-assigning over a live executable releases the old one
  const gd::debug::LiveCounts before = gd::debug::live_counts();
  gd::Executable fourth = g.instantiate();
  CHECK(gd::debug::live_counts().executables == before.executables + 1);
  third = std::move(fourth);
  CHECK(gd::debug::live_counts().executables == before.executables);
  p.check(third, s, -1.0f, 9.0f, 1);
}

TEST_CASE("debug::cuda_calls counts the calling thread's CUDA calls only", "[gpu][instantiate]") {
  DeviceBuffer<int> d(64);
  const std::uint64_t here = gd::debug::cuda_calls();
  std::uint64_t there = 0;
  cudaError_t synced = cudaErrorUnknown;
  std::thread worker([&] {  // no Catch2 assertion in this thread: results are checked below
    const std::uint64_t before = gd::debug::cuda_calls();
    gd::Graph g("elsewhere");
    g.add_memset(d.get(), 7, 64).name("fill");
    gd::Executable exec = g.instantiate();  // graph create, memset node add, instantiation, ...
    exec.launch(nullptr);
    there = gd::debug::cuda_calls() - before;
    synced = cudaStreamSynchronize(nullptr);
  });
  worker.join();
  REQUIRE(synced == cudaSuccess);
  CHECK(d.download() == std::vector<int>(64, 7));
  CHECK(there >= 4);
  CHECK(gd::debug::cuda_calls() == here);  // the worker's calls are not this thread's
}
