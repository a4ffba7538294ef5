// Kernel launch attributes on the device (Hopper): a cluster kernel sees its cluster and reads a
// neighbour's shared memory, a cooperative kernel synchronizes its grid, the memory sync domain and
// the L2 window reach the driver node; the device rules (cooperative grid too large) and what
// setters and update() do with attributes. Plan rules: tests/unit/launch_attributes_test.cpp.
#include "gpu_support.hpp"
#include "hopper_kernels.hpp"

namespace {

using gpu_test::DeviceBuffer;
using gpu_test::Stream;

int device_attribute(cudaDeviceAttr a) {
  int device = 0, v = 0;
  GPU_REQUIRE(cudaGetDevice(&device));
  GPU_REQUIRE(cudaDeviceGetAttribute(&v, a, device));
  return v;
}

bool hopper() { return device_attribute(cudaDevAttrComputeCapabilityMajor) >= 9; }

/// What cluster_probe writes for `blocks` blocks in clusters of `cluster` (1-D).
std::vector<int> cluster_expected(int blocks, int cluster) {
  std::vector<int> want;
  for (int b = 0; b < blocks; ++b) {
    const int r = b % cluster;
    want.insert(want.end(), {cluster, r, 100 * (b - r + (r + 1) % cluster) + 7});
  }
  return want;
}

}  // namespace

TEST_CASE("launch attributes: a cluster kernel sees its cluster and its neighbour's shared memory",
          "[gpu][attributes]") {
  if (!hopper()) {
    WARN("skipped: thread-block clusters need compute capability 9.0");
    return;
  }
  constexpr int blocks = 16;
  DeviceBuffer<int> out(3 * blocks);
  gd::Graph g("clusters");
  auto k = g.add_kernel(gpu_test::cluster_probe, gd::Launch{blocks, 64}.with_cluster(4), out.get()).name("probe");
  CHECK_THAT(g.dump(), has_substr("cluster (4,1,1)"));
  gd::Executable exec = g.instantiate();
  cudaLaunchAttributeValue v{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaLaunchAttributeClusterDimension, &v));
  CHECK(v.clusterDim.x == 4);
  CHECK(v.clusterDim.y == 1);
  Stream s;
  exec.launch(s);
  exec.synchronize(s);
  CHECK(out.download() == cluster_expected(blocks, 4));

  SECTION("set_kernel_args patches the cluster node's arguments; the cluster stays") {
    DeviceBuffer<int> other(3 * blocks);
    exec.set_kernel_args(k, other.get());
    exec.launch(s);
    exec.synchronize(s);
    CHECK(other.download() == cluster_expected(blocks, 4));
  }
  SECTION("a setter's launch without the node's cluster is refused, and the executable is left as it was") {
    const auto calls = gd::debug::cuda_calls();
    REQUIRE_THROWS_MATCHES(exec.set_launch(k, gd::Launch{blocks, 64}), gd::UsageError,
                           message_is("graphdsl: kernel node 'probe' (#0): a setter's launch has other launch "
                                      "attributes (cluster, cooperative, sync domain, L2 window, device-updatable) "
                                      "than the node's; "
                                      "CUDA cannot patch them on one node: give the node's own attributes, or update "
                                      "the executable from a plan (whole graph)"));
    CHECK(gd::debug::cuda_calls() == calls);
    CHECK(g.launch_of(k).cluster.x == 4);
    GPU_REQUIRE(cudaMemset(out.get(), 0, out.bytes()));
    GPU_REQUIRE(cudaStreamSynchronize(
        cudaStreamLegacy));  // cudaMemset is asynchronous; non-blocking streams do not wait for it
    exec.launch(s);
    exec.synchronize(s);
    CHECK(out.download() == cluster_expected(blocks, 4));
  }
  SECTION("a setter with the node's cluster and a new grid") {
    exec.set_launch(k, gd::Launch{8, 64}.with_cluster(4));
    GPU_REQUIRE(cudaMemset(out.get(), 0, out.bytes()));
    GPU_REQUIRE(cudaStreamSynchronize(
        cudaStreamLegacy));  // cudaMemset is asynchronous; non-blocking streams do not wait for it
    exec.launch(s);
    exec.synchronize(s);
    std::vector<int> want = cluster_expected(8, 4);
    want.resize(3 * blocks, 0);
    CHECK(out.download() == want);
  }
  SECTION("update() to other clusters is refused (CUDA accepts it, then the node faults), the executable as it was") {
    gd::Graph t("clusters");
    t.add_kernel(gpu_test::cluster_probe, gd::Launch{blocks, 64}.with_cluster(2), out.get()).name("probe");
    for (gd::UpdatePolicy policy :
         {gd::UpdatePolicy::automatic, gd::UpdatePolicy::whole_graph, gd::UpdatePolicy::per_node}) {
      const gd::UpdateResult r = exec.update(t, policy);
      CHECK(r.status == gd::UpdateStatus::attributes_changed);
      CHECK(r.reason ==
            "kernel node 'probe' (#0): its cluster or cooperative launch changed (cluster (4,1,1), not "
            "cooperative to cluster (2,1,1), not cooperative), which CUDA cannot patch in an executable; "
            "compile the new plan instead");
    }
    GPU_REQUIRE(cudaMemset(out.get(), 0, out.bytes()));
    GPU_REQUIRE(cudaStreamSynchronize(
        cudaStreamLegacy));  // cudaMemset is asynchronous; non-blocking streams do not wait for it
    exec.launch(s);
    exec.synchronize(s);
    CHECK(out.download() == cluster_expected(blocks, 4));
  }
}

TEST_CASE("launch attributes: a cooperative kernel synchronizes its grid; a grid too large is refused",
          "[gpu][attributes]") {
  if (device_attribute(cudaDevAttrCooperativeLaunch) == 0) {
    WARN("skipped: the device has no cooperative launch");
    return;
  }
  const int sms = device_attribute(cudaDevAttrMultiProcessorCount);
  int per_sm = 0;
  GPU_REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, reinterpret_cast<const void*>(gpu_test::grid_sync_probe), 128, 0));
  REQUIRE(per_sm > 0);
  const int blocks = 2 * sms;  // more blocks than multiprocessors: the sync must wait across them
  REQUIRE(blocks <= per_sm * sms);
  DeviceBuffer<int> scratch(static_cast<std::size_t>(per_sm * sms + 1));
  DeviceBuffer<int> out(static_cast<std::size_t>(per_sm * sms + 1));
  gd::Graph g("cooperative");
  auto k = g.add_kernel(gpu_test::grid_sync_probe, gd::Launch{static_cast<unsigned>(blocks), 128}.with_cooperative(),
                        scratch.get(), out.get())
               .name("sync");
  gd::Executable exec = g.instantiate();
  cudaLaunchAttributeValue v{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaLaunchAttributeCooperative, &v));
  CHECK(v.cooperative == 1);
  Stream s;
  for (int round = 0; round < 3; ++round) {
    GPU_REQUIRE(cudaMemset(scratch.get(), 0, scratch.bytes()));
    GPU_REQUIRE(cudaStreamSynchronize(
        cudaStreamLegacy));  // cudaMemset is asynchronous; non-blocking streams do not wait for it
    exec.launch(s);
    exec.synchronize(s);
    const std::vector<int> got = out.download();
    std::vector<int> want(got.size(), 0);
    for (int b = 0; b < blocks; ++b) want[static_cast<std::size_t>(b)] = (b + 1) % blocks + 1;
    CHECK(std::equal(want.begin(), want.begin() + blocks, got.begin()));
  }

  const unsigned too_many = static_cast<unsigned>(per_sm * sms + 1);
  gd::Graph big("cooperative");
  big.add_kernel(gpu_test::grid_sync_probe, gd::Launch{too_many, 128}.with_cooperative(), scratch.get(), out.get())
      .name("sync");
  const auto live = gd::debug::live_counts();
  int device = 0;
  GPU_REQUIRE(cudaGetDevice(&device));
  REQUIRE_THROWS_MATCHES(
      big.instantiate(), gd::UsageError,
      message_is(
          fmt::format("graphdsl: kernel node 'sync' (#0): a cooperative launch of {} blocks, but device {} runs "
                      "at most {} blocks of this kernel at once ({} per multiprocessor x {} multiprocessors, for "
                      "128 threads and 0 B of dynamic shared memory per block); every block of a cooperative "
                      "grid must be resident",
                      too_many, device, per_sm * sms, per_sm, sms)));
  CHECK(gd::debug::live_counts().native_graphs == live.native_graphs);
}

TEST_CASE("launch attributes: the memory sync domain and the L2 window reach the driver node; the kernel runs",
          "[gpu][attributes]") {
  const std::size_t n = 1 << 16;
  DeviceBuffer<float> x(std::vector<float>(n, 1.5f));
  const int window = device_attribute(cudaDevAttrMaxAccessPolicyWindowSize);
  if (window <= 0) {
    WARN("skipped: the device has no L2 access-policy window");
    return;
  }
  const std::size_t bytes = std::min<std::size_t>(x.bytes(), static_cast<std::size_t>(window));
  gd::Graph g("domains");
  auto k = g.add_kernel(gpu_test::scale_by,
                        gd::cover(n)
                            .with_sync_domain(gd::MemSyncDomain::remote)
                            .with_l2_window(x.get(), bytes, 0.75f, gd::L2Access::persisting, gd::L2Access::normal),
                        x.get(), 2.0f, static_cast<int>(n))
               .name("scale");
  gd::Executable exec = g.instantiate();
  cudaLaunchAttributeValue v{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaLaunchAttributeMemSyncDomain, &v));
  CHECK(v.memSyncDomain == cudaLaunchMemSyncDomainRemote);
  v = cudaLaunchAttributeValue{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaLaunchAttributeAccessPolicyWindow, &v));
  CHECK(v.accessPolicyWindow.base_ptr == x.get());
  CHECK(v.accessPolicyWindow.num_bytes == bytes);
  CHECK(v.accessPolicyWindow.hitRatio == 0.75f);
  CHECK(v.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting);
  CHECK(v.accessPolicyWindow.missProp == cudaAccessPropertyNormal);
  Stream s;
  exec.launch(s);
  exec.synchronize(s);
  CHECK(x.download() == std::vector<float>(n, 3.0f));

  // Another sync domain and window through update(): a whole-graph update (per node: refused).
  gd::Graph t("domains");
  t.add_kernel(gpu_test::scale_by, gd::cover(n).with_l2_window(x.get(), bytes / 2, 0.5f), x.get(), 2.0f,
               static_cast<int>(n))
      .name("scale");
  CHECK(exec.update(t, gd::UpdatePolicy::per_node).status == gd::UpdateStatus::attributes_changed);
  const gd::UpdateResult whole = exec.update(t);
  INFO(whole.to_string());
  CHECK(whole.status == gd::UpdateStatus::success);
  CHECK(whole.strategy == gd::UpdateStrategy::whole_graph);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(x.download() == std::vector<float>(n, 6.0f));
  // native_graph() shows what the executable now launches: the default domain and the new window.
  REQUIRE(exec.native_graph() != nullptr);
  v = cudaLaunchAttributeValue{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaLaunchAttributeMemSyncDomain, &v));
  CHECK(v.memSyncDomain == cudaLaunchMemSyncDomainDefault);
  v = cudaLaunchAttributeValue{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaLaunchAttributeAccessPolicyWindow, &v));
  CHECK(v.accessPolicyWindow.num_bytes == bytes / 2);
  CHECK(v.accessPolicyWindow.hitRatio == 0.5f);
  // ... and back to no window at all.
  gd::Graph plain("domains");
  plain.add_kernel(gpu_test::scale_by, gd::cover(n), x.get(), 2.0f, static_cast<int>(n)).name("scale");
  CHECK(exec.update(plain).status == gd::UpdateStatus::success);
  REQUIRE(exec.native_graph() != nullptr);
  v = cudaLaunchAttributeValue{};
  GPU_REQUIRE(cudaGraphKernelNodeGetAttribute(exec.native_node(k), cudaLaunchAttributeAccessPolicyWindow, &v));
  CHECK(v.accessPolicyWindow.num_bytes == 0);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(x.download() == std::vector<float>(n, 12.0f));

  gd::Graph wide("domains");
  wide.add_kernel(gpu_test::scale_by, gd::cover(n).with_l2_window(x.get(), static_cast<std::size_t>(window) + 1),
                  x.get(), 2.0f, static_cast<int>(n))
      .name("scale");
  int device = 0;
  GPU_REQUIRE(cudaGetDevice(&device));
  REQUIRE_THROWS_MATCHES(wide.instantiate(), gd::UsageError,
                         message_is(fmt::format("graphdsl: kernel node 'scale' (#0): its L2 window of {} bytes is "
                                                "larger than device {}'s largest, {} bytes "
                                                "(cudaDevAttrMaxAccessPolicyWindowSize)",
                                                window + 1, device, window)));
  // As an update's template, the same rule is a refusal (a value), and the executable runs as before.
  const gd::UpdateResult refused = exec.update(wide);
  CHECK(refused.status == gd::UpdateStatus::invalid_template);
  CHECK_THAT(refused.reason, has_substr(fmt::format("its L2 window of {} bytes is larger than device {}'s largest",
                                                    window + 1, device)));
  exec.launch(s);
  exec.synchronize(s);
  CHECK(x.download() == std::vector<float>(n, 24.0f));
}

TEST_CASE("programmatic edges: a chain of dependent kernels overlaps launches and computes what plain edges do",
          "[gpu][attributes][pdl]") {
  if (!hopper()) {
    WARN("skipped: programmatic dependent launch needs compute capability 9.0");
    return;
  }
  constexpr int n = 1 << 14;
  constexpr int links = 64;
  std::vector<float> start(n);
  for (int i = 0; i < n; ++i) start[static_cast<std::size_t>(i)] = static_cast<float>(i % 97);
  std::vector<float> want = start;
  for (int k = 0; k < links; ++k) {
    for (float& v : want) v = v * 0.5f + static_cast<float>(k);
  }
  auto build = [&](float* x, gd::EdgeKind kind) {
    gd::Graph g("pdl");
    gd::KernelNodeOf<decltype(gpu_test::pdl_step)> prev;
    for (int k = 0; k < links; ++k) {
      auto node =
          g.add_kernel(gpu_test::pdl_step, gd::cover(n), x, static_cast<float>(k), n).name("step" + std::to_string(k));
      if (k > 0) node.after(prev, kind);
      prev = node;
    }
    return g;
  };
  for (gd::EdgeKind kind : {gd::EdgeKind::full, gd::EdgeKind::programmatic, gd::EdgeKind::launch_completion}) {
    INFO("edge kind " << gd::to_string(kind));
    DeviceBuffer<float> x(start);
    gd::Graph g = build(x.get(), kind);
    gd::Executable exec = g.instantiate();
    // The driver holds the edge with its data.
    cudaGraphNode_t deps[2] = {};
    cudaGraphEdgeData data[2] = {};
    std::size_t count = 2;
    GPU_REQUIRE(cudaGraphNodeGetDependencies(exec.native_node(*g.find("step1")), deps, data, &count));
    REQUIRE(count == 1);
    CHECK(deps[0] == exec.native_node(*g.find("step0")));
    CHECK(data[0].type ==
          (kind == gd::EdgeKind::full ? cudaGraphDependencyTypeDefault : cudaGraphDependencyTypeProgrammatic));
    CHECK(data[0].from_port == (kind == gd::EdgeKind::full           ? cudaGraphKernelNodePortDefault
                                : kind == gd::EdgeKind::programmatic ? cudaGraphKernelNodePortProgrammatic
                                                                     : cudaGraphKernelNodePortLaunchCompletion));
    Stream s;
    for (int round = 0; round < 3; ++round) {
      x.upload(start);
      exec.launch(s);
      exec.synchronize(s);
      CHECK(x.download() == want);
    }
    // New arguments, same edges: patched node by node; another edge kind: refused, left as it was.
    DeviceBuffer<float> y(start);
    const gd::UpdateResult same = exec.update(build(y.get(), kind));
    CHECK(same.status == gd::UpdateStatus::success);
    exec.launch(s);
    exec.synchronize(s);
    CHECK(y.download() == want);
    const gd::EdgeKind other = kind == gd::EdgeKind::full ? gd::EdgeKind::programmatic : gd::EdgeKind::full;
    const gd::UpdateResult refused = exec.update(build(x.get(), other));
    CHECK(refused.status == gd::UpdateStatus::topology_changed);
    y.upload(start);
    exec.launch(s);
    exec.synchronize(s);
    CHECK(y.download() == want);
  }
}
