// Plans over two GPUs: nodes placed on each device, peer copies, NCCL collectives captured into the
// plan, updates that patch kernels on both devices, and the errors of multi-device plans. Needs
// two devices (tests/support/gpu_main.cpp, built with GRAPHDSL_TEST_GPUS=2, skips otherwise). Random data are multiples of 1/8 (exact sums).
#include <cstdlib>

#include "gpu_support.hpp"
#include "multi_gpu_kernels.hpp"
#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)
#if GRAPHDSL_TEST_NCCL
#include <graphdsl/nccl.hpp>
#endif

namespace {

using gpu_test::DeviceBuffer;
using gpu_test::PinnedBuffer;
using multi_gpu_test::add_into;
using multi_gpu_test::affine;

/// Makes `device` current while it lives.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    GPU_REQUIRE(cudaGetDevice(&previous_));
    GPU_REQUIRE(cudaSetDevice(device));
  }
  ~OnDevice() { (void)cudaSetDevice(previous_); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
};

/// A device buffer of n floats on `device`.
std::unique_ptr<DeviceBuffer<float>> on(int device, std::size_t n) {
  OnDevice scope(device);
  return std::make_unique<DeviceBuffer<float>>(n);
}

int current_device() {
  int d = -1;
  GPU_REQUIRE(cudaGetDevice(&d));
  return d;
}

constexpr int n = 1 << 16;

/// Buffers of the split plan: half of the input on each device.
struct Split {
  PinnedBuffer<float> in{2 * n};
  PinnedBuffer<float> out{n};
  std::unique_ptr<DeviceBuffer<float>> x0 = on(0, n), y0 = on(0, n), z0 = on(0, n), sum0 = on(0, n);
  std::unique_ptr<DeviceBuffer<float>> x1 = on(1, n), y1 = on(1, n);
};

/// in[0..n) -> device 0, in[n..2n) -> device 1; y_d = a*x_d + b on each device; y1 pulled to device
/// 0 by a peer copy; out = y0 + y1.
gd::Graph split_plan(Split& s, float a, float b) {
  gd::Graph g("split");
  auto in0 = g.add_memcpy(s.x0->get(), s.in.data(), n).name("in0").on_device(0);
  auto in1 = g.add_memcpy(s.x1->get(), s.in.data() + n, n).name("in1").on_device(1);
  auto k0 = g.add_kernel(affine, gd::cover(n), s.x0->get(), s.y0->get(), a, b, n).name("k0").on_device(0).after(in0);
  auto k1 = g.add_kernel(affine, gd::cover(n), s.x1->get(), s.y1->get(), a, b, n).name("k1").on_device(1).after(in1);
  auto pull = g.add_memcpy_peer(s.z0->get(), 0, s.y1->get(), 1, n).name("pull").after(k1);
  auto sum = g.add_kernel(add_into, gd::cover(n), s.sum0->get(), s.y0->get(), s.z0->get(), n).name("sum").on_device(0)
                 .after(k0, pull);
  g.add_memcpy(s.out.data(), s.sum0->get(), n).name("out").on_device(0).after(sum);
  return g;
}

std::vector<float> split_reference(const float* in, float a, float b) {
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = (a * in[i] + b) + (a * in[n + i] + b);
  return want;
}

void fill(Split& s, std::mt19937& gen) {
  const std::vector<float> v = gpu_test::random_floats(2 * n, gen);
  std::copy(v.begin(), v.end(), s.in.data());
}

std::vector<float> result(const Split& s) { return std::vector<float>(s.out.data(), s.out.data() + n); }

}  // namespace

TEST_CASE("a plan over two devices: copies, kernels on each device, a peer copy, launched 20 times", "[multi_gpu]") {
  auto gen = gpu_test::rng(801);
  Split s;
  const int before = current_device();
  gd::Executable exec = split_plan(s, 0.5f, 2.0f).instantiate();
  CHECK(current_device() == before);  // compiling switched devices and switched back
  gpu_test::Stream stream;
  for (int launch = 0; launch < 20; ++launch) {
    fill(s, gen);
    exec.launch(stream);
    exec.synchronize(stream);
    gpu_test::require_equal(result(s), split_reference(s.in.data(), 0.5f, 2.0f), "two-device result");
  }
  CHECK(current_device() == before);
}

TEST_CASE("the plan launches on a stream of the other device too", "[multi_gpu]") {
  auto gen = gpu_test::rng(802);
  Split s;
  gd::Executable exec = split_plan(s, 2.0f, -1.0f).instantiate();
  OnDevice one(1);
  gpu_test::Stream stream;  // a device-1 stream
  fill(s, gen);
  exec.launch(stream);
  exec.synchronize(stream);
  gpu_test::require_equal(result(s), split_reference(s.in.data(), 2.0f, -1.0f), "launched from device 1");
}

TEST_CASE("update: new kernel arguments on both devices are patched node by node, from any current device",
          "[multi_gpu][update]") {
  auto gen = gpu_test::rng(803);
  Split s;
  gd::Executable exec = split_plan(s, 1.0f, 0.0f).instantiate();
  gpu_test::Stream stream;
  // CUDA refuses a per-node kernel update made while another device is current
  // (cudaErrorInvalidValue, seen on H200s): graphdsl makes each node's device current for it.
  const gd::UpdateResult r = exec.update(split_plan(s, 3.0f, 0.25f));
  REQUIRE(r.status == gd::UpdateStatus::success);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.patched == 2);  // k0 on device 0 and k1 on device 1
  fill(s, gen);
  exec.launch(stream);
  exec.synchronize(stream);
  gpu_test::require_equal(result(s), split_reference(s.in.data(), 3.0f, 0.25f), "after the update");

  // A whole-graph update re-creates the template's nodes on their devices.
  const gd::UpdateResult r2 = exec.update(split_plan(s, -1.0f, 4.0f), gd::UpdatePolicy::whole_graph);
  REQUIRE(r2.status == gd::UpdateStatus::success);
  CHECK(r2.strategy == gd::UpdateStrategy::whole_graph);
  fill(s, gen);
  exec.launch(stream);
  exec.synchronize(stream);
  gpu_test::require_equal(result(s), split_reference(s.in.data(), -1.0f, 4.0f), "after a whole-graph update");
}

TEST_CASE("a graph allocation on device 1 read by a kernel on device 0 through peer access", "[multi_gpu][memory]") {
  auto gen = gpu_test::rng(804);
  const std::vector<float> host = gpu_test::random_floats(n, gen);
  auto x1 = on(1, n);
  x1->upload(host);  // cudaMemcpy infers the direction from the pointer (unified addressing)
  auto out0 = on(0, n);
  gd::Graph g("alloc");
  auto [alloc, tmp] = g.add_mem_alloc<float>(n, gd::MemAllocOptions{1, {0}});
  alloc.name("tmp");
  auto k1 = g.add_kernel(affine, gd::cover(n), x1->get(), tmp, 2.0f, 1.0f, n).name("k1").on_device(1).after(alloc);
  auto k0 = g.add_kernel(affine, gd::cover(n), tmp, out0->get(), 1.0f, 0.5f, n).name("k0").on_device(0).after(k1);
  g.add_mem_free(tmp).name("free").after(k0);
  CHECK(g.dump().find("#0 mem_alloc 'tmp': 262144 bytes on device 1, peer 0, on device 1\n") != std::string::npos);
  gd::Executable exec = g.instantiate();
  gpu_test::Stream stream;
  for (int launch = 0; launch < 3; ++launch) {
    exec.launch(stream);
    exec.synchronize(stream);
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = (2.0f * host[i] + 1.0f) + 0.5f;
    gpu_test::require_equal(out0->download(), want, "device 0 read device 1's graph allocation");
  }
}

TEST_CASE("multi-device errors name the node and the devices", "[multi_gpu][errors]") {
  int count = 0;
  GPU_REQUIRE(cudaGetDeviceCount(&count));
  Split s;
  SECTION("a device that does not exist") {
    gd::Graph g("g");
    g.add_kernel(affine, gd::cover(n), s.x0->get(), s.y0->get(), 1.0f, 0.0f, n).name("far").on_device(count);
    const auto calls = gd::debug::cuda_calls();
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is(fmt::format("graphdsl: kernel node 'far' (#0): is placed on device {}, but this "
                                                  "process sees {} CUDA devices (0 to {})",
                                                  count, count, count - 1)));
    CHECK(gd::debug::cuda_calls() - calls == 2);  // cudaGetDevice and cudaGetDeviceCount: nothing was created
  }
  SECTION("a peer copy whose source is on the other device") {
    gd::Graph g("g");
    g.add_memcpy_peer(s.z0->get(), 0, s.x0->get(), 1, n).name("wrong");
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is("graphdsl: memcpy node 'wrong' (#0): the source of a peer copy is memory of "
                                      "device 0, not of device 1 as named"));
  }
  SECTION("a peer copy from host memory") {
    gd::Graph g("g");
    g.add_memcpy_peer(s.z0->get(), 0, s.in.data(), 1, n).name("host");
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is("graphdsl: memcpy node 'host' (#0): the source of a peer copy named device 1 is "
                                      "not device memory"));
  }
  SECTION("a peer named by an allocation that does not exist") {
    gd::Graph g("g");
    auto [alloc, buf] = g.add_mem_alloc<float>(16, gd::MemAllocOptions{0, {count + 1}});
    alloc.name("tmp");
    g.add_mem_free(buf).after(alloc);
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is(fmt::format("graphdsl: mem_alloc node 'tmp' (#0): gives peer access to device {}, "
                                                  "but this process sees {} CUDA devices (0 to {})",
                                                  count + 1, count, count - 1)));
  }
  SECTION("an update that moves a node to the other device is refused and leaves the executable as it was") {
    auto gen = gpu_test::rng(805);
    gd::Executable exec = split_plan(s, 1.0f, 1.0f).instantiate();
    gd::Graph moved = split_plan(s, 1.0f, 1.0f);
    moved.impl().nodes[moved.find("k0")->index()].device = 1;
    const gd::UpdateResult r = exec.update(moved);
    CHECK(r.status == gd::UpdateStatus::not_supported);
    CHECK(r.reason == "kernel node 'k0' (#2) is placed on device 0 in the executable but on device 1 in the template; "
                      "CUDA cannot move a node to another device");
    gpu_test::Stream stream;
    fill(s, gen);
    exec.launch(stream);
    exec.synchronize(stream);
    gpu_test::require_equal(result(s), split_reference(s.in.data(), 1.0f, 1.0f), "after the refusal");
  }
}

#if GRAPHDSL_TEST_NCCL

namespace {
/// Per-device data of the NCCL tests: x_d (input), y_d (kernel output, all-reduced in place).
struct Ranks {
  PinnedBuffer<float> in{2 * n};
  PinnedBuffer<float> out{2 * n};
  std::unique_ptr<DeviceBuffer<float>> x[2] = {on(0, n), on(1, n)};
  std::unique_ptr<DeviceBuffer<float>> y[2] = {on(0, n), on(1, n)};
};

/// Scatter -> y_d = a*x_d + b on each device -> all_reduce(sum) over y -> gather both copies.
gd::Graph reduce_plan(Ranks& r, const gd::nccl::Communicators& comms, float a, float b) {
  gd::Graph g("reduce");
  gd::KernelNode<const float*, float*, float, float, int> k[2];
  for (int d = 0; d < 2; ++d) {
    auto in = g.add_memcpy(r.x[d]->get(), r.in.data() + d * n, n).name(fmt::format("scatter{}", d)).on_device(d);
    k[d] = g.add_kernel(affine, gd::cover(n), r.x[d]->get(), r.y[d]->get(), a, b, n)
               .name(fmt::format("k{}", d)).on_device(d).after(in);
  }
  auto sum = gd::nccl::add_all_reduce<float>(g, comms, {{r.y[0]->get(), r.y[0]->get()}, {r.y[1]->get(), r.y[1]->get()}}, n)
                 .name("allreduce")
                 .after(k[0], k[1]);
  for (int d = 0; d < 2; ++d) {
    g.add_memcpy(r.out.data() + d * n, r.y[d]->get(), n).name(fmt::format("gather{}", d)).on_device(d).after(sum);
  }
  return g;
}

void check_reduced(const Ranks& r, float a, float b) {
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = (a * r.in.data()[i] + b) + (a * r.in.data()[n + i] + b);
  for (int d = 0; d < 2; ++d) {
    gpu_test::require_equal(std::vector<float>(r.out.data() + d * n, r.out.data() + (d + 1) * n), want,
                            d == 0 ? "all-reduced on device 0" : "all-reduced on device 1");
  }
}

void fill(Ranks& r, std::mt19937& gen) {
  const std::vector<float> v = gpu_test::random_floats(2 * n, gen);
  std::copy(v.begin(), v.end(), r.in.data());
}

bool nccl_here() {
  if (gd::nccl::available()) return true;
  WARN("NCCL is not available at run time: " << gd::nccl::unavailable_reason());
  return false;
}
}  // namespace

TEST_CASE("NCCL all-reduce inside the plan: scatter, kernels on two devices, all-reduce, gather; 50 launches",
          "[multi_gpu][nccl]") {
  if (!nccl_here()) return;
  INFO("NCCL " << gd::nccl::version());
  auto gen = gpu_test::rng(811);
  Ranks r;
  gd::nccl::Communicators comms({0, 1});
  REQUIRE(comms.size() == 2);
  gd::Graph plan = reduce_plan(r, comms, 0.5f, 1.0f);
  CHECK(plan.dump().find("captured 'allreduce': nccl all_reduce sum float32 x65536 over devices 0,1, stream capture, "
                         "mode thread-local; after 'k0', 'k1'") != std::string::npos);
  gd::Executable exec = plan.instantiate();
  gpu_test::Stream stream;
  for (int launch = 0; launch < 50; ++launch) {
    fill(r, gen);
    exec.launch(stream);
    exec.synchronize(stream);
    check_reduced(r, 0.5f, 1.0f);
  }
  SECTION("an update changes the kernels' arguments on both devices") {
    const gd::UpdateResult u = exec.update(reduce_plan(r, comms, -2.0f, 0.5f));
    INFO(u.to_string());
    REQUIRE(u.status == gd::UpdateStatus::success);
    // The rebuilt collective is the same work (same communicators, buffers, count, op), so only
    // the two kernels are patched, node by node, with no re-capture of NCCL.
    CHECK(u.strategy == gd::UpdateStrategy::per_node);
    CHECK(u.patched == 2);
    for (int launch = 0; launch < 10; ++launch) {
      fill(r, gen);
      exec.launch(stream);
      exec.synchronize(stream);
      check_reduced(r, -2.0f, 0.5f);
    }
  }
}

TEST_CASE("NCCL broadcast and all-gather inside a plan", "[multi_gpu][nccl]") {
  if (!nccl_here()) return;
  auto gen = gpu_test::rng(812);
  gd::nccl::Communicators comms({0, 1});
  const std::vector<float> a = gpu_test::random_floats(n, gen), b = gpu_test::random_floats(n, gen);
  auto s0 = on(0, n), s1 = on(1, n), g0 = on(0, 2 * n), g1 = on(1, 2 * n), c0 = on(0, n), c1 = on(1, n);
  s0->upload(a);
  s1->upload(b);
  gd::Graph g("collectives");
  auto gather = gd::nccl::add_all_gather<float>(g, comms, {{s0->get(), g0->get()}, {s1->get(), g1->get()}}, n)
                    .name("gather");
  // Only the root's send buffer is read; every rank still names buffers of its own device.
  gd::nccl::add_broadcast<float>(g, comms, {{s0->get(), c0->get()}, {s1->get(), c1->get()}}, n, 1)
      .name("bcast")
      .after(gather);
  gd::Executable exec = g.instantiate();
  gpu_test::Stream stream;
  exec.launch(stream);
  exec.synchronize(stream);
  std::vector<float> both(a);
  both.insert(both.end(), b.begin(), b.end());
  gpu_test::require_equal(g0->download(), both, "all-gather on device 0");
  gpu_test::require_equal(g1->download(), both, "all-gather on device 1");
  gpu_test::require_equal(c0->download(), b, "broadcast from rank 1 to device 0");
  gpu_test::require_equal(c1->download(), b, "broadcast from rank 1 to device 1");
}

TEST_CASE("NCCL errors: buffers on the wrong device, wrong buffer count, bad devices", "[multi_gpu][nccl][errors]") {
  if (!nccl_here()) return;
  gd::nccl::Communicators comms({0, 1});
  auto a0 = on(0, n), a1 = on(1, n);
  SECTION("rank 1's buffers on device 0: refused at compile, naming the node") {
    gd::Graph g("g");
    gd::nccl::add_all_reduce<float>(g, comms, {{a0->get(), a0->get()}, {a0->get(), a1->get()}}, n).name("sum");
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is("graphdsl: captured node 'sum' (#0): rank 1's send buffer is memory of device 0, "
                                      "but rank 1's communicator is on device 1; each rank's buffers must be memory of "
                                      "its own device"));
  }
  SECTION("one buffer pair for two ranks: refused when added, before any CUDA call") {
    gd::Graph g("g");
    const auto calls = gd::debug::cuda_calls();
    REQUIRE_THROWS_MATCHES(gd::nccl::add_all_reduce<float>(g, comms, {{a0->get(), a0->get()}}, n), gd::UsageError,
                           message_is("graphdsl: nccl all_reduce added to graph 'g': 1 buffer pair for 2 communicators "
                                      "(devices 0,1); give one per rank of this process"));
    CHECK(gd::debug::cuda_calls() == calls);
    CHECK(g.node_count() == 0);
  }
  SECTION("a broadcast root that is not a rank") {
    gd::Graph g("g");
    REQUIRE_THROWS_MATCHES(
        gd::nccl::add_broadcast<float>(g, comms, {{a0->get(), a0->get()}, {a1->get(), a1->get()}}, n, 2), gd::UsageError,
        message_is("graphdsl: nccl broadcast added to graph 'g': root rank 2 is not one of the 2 ranks"));
  }
  SECTION("communicators over a repeated or missing device") {
    REQUIRE_THROWS_MATCHES(gd::nccl::Communicators({0, 0}), gd::UsageError,
                           message_is("graphdsl: nccl::Communicators: device 0 appears more than once in {0,0}; one "
                                      "communicator per device"));
    int count = 0;
    GPU_REQUIRE(cudaGetDeviceCount(&count));
    gd::nccl::Communicators missing({0, count});  // nothing is created until first use
    REQUIRE_THROWS_MATCHES(missing.native_handle(0), gd::UsageError,
                           message_is(fmt::format("graphdsl: nccl::Communicators: device {} does not exist; this "
                                                  "process sees {} CUDA devices",
                                                  count, count)));
    gd::Graph g("g");
    gd::nccl::add_all_reduce<float>(g, missing, {{a0->get(), a0->get()}, {a1->get(), a1->get()}}, n).name("sum");
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is(fmt::format("graphdsl: nccl::Communicators: device {} does not exist; this "
                                                  "process sees {} CUDA devices",
                                                  count, count)));
  }
}

TEST_CASE("NCCL missing at run time: a clear NcclError (run with GRAPHDSL_NCCL_LIBRARY naming no library)",
          "[.nccl-missing]") {
  // Hidden by default: scripts/gpu-suite.sh runs it with GRAPHDSL_NCCL_LIBRARY=libnccl-missing.so.
  const char* env = std::getenv("GRAPHDSL_NCCL_LIBRARY");
  REQUIRE(env != nullptr);
  CHECK_FALSE(gd::nccl::available());
  gd::nccl::Communicators comms({0, 1});  // names the devices only: no NCCL call yet
  try {
    (void)comms.native_handle(0);
    FAIL("communicators were created without NCCL");
  } catch (const gd::nccl::NcclError& e) {
    CHECK(e.code() == 0);
    CHECK_THAT(std::string(e.what()),
               has_substr(fmt::format("graphdsl: NCCL is not available: loading '{}' failed (", env)));
    CHECK_THAT(std::string(e.what()), has_substr("install NCCL (e.g. the libnccl2 package) or name the library in "
                                                 "GRAPHDSL_NCCL_LIBRARY"));
  }
}

#endif  // GRAPHDSL_TEST_NCCL
