// Placement on one GPU: nodes placed explicitly on device 0 behave like unplaced ones, and the
// placement errors that need the device list (tests/multi_gpu has the two-device cases).
#include "gpu_support.hpp"

TEST_CASE("nodes placed on device 0 run there, and compiling leaves the current device as it was", "[placement]") {
  constexpr int n = 4096;
  auto gen = gpu_test::rng(901);
  const std::vector<float> host = gpu_test::random_floats(n, gen);
  gpu_test::DeviceBuffer<float> x(n);
  gpu_test::PinnedBuffer<float> in(n), out(n);
  in.assign(host);
  gd::Graph g("placed");
  g.set_default_device(0);
  auto up = g.add_memcpy(x.get(), in.data(), n).name("up");
  auto k = g.add_kernel(gpu_test::triple_plus, gd::cover(n), x.get(), 0.5f, n).name("k").after(up);
  g.add_memcpy(out.data(), x.get(), n).name("down").after(k);
  CHECK(g.device_of(k) == 0);
  gd::Executable exec = g.instantiate();
  int current = -1;
  GPU_REQUIRE(cudaGetDevice(&current));
  CHECK(current == 0);
  gpu_test::Stream stream;
  exec.launch(stream);
  exec.synchronize(stream);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = 3.0f * host[i] + 0.5f;
  gpu_test::require_equal(std::vector<float>(out.data(), out.data() + n), want, "placed plan");
}

TEST_CASE("placement errors that need the device list name the node", "[placement][errors]") {
  int count = 0;
  GPU_REQUIRE(cudaGetDeviceCount(&count));
  gpu_test::DeviceBuffer<float> x(16);
  const std::string seen = count == 1 ? "this process sees 1 CUDA device (0)"
                                      : fmt::format("this process sees {} CUDA devices (0 to {})", count, count - 1);
  SECTION("a kernel on a device that does not exist: refused before any node is created") {
    gd::Graph g("g");
    g.add_kernel(gpu_test::triple_plus, gd::cover(16), x.get(), 1.0f, 16).name("far").on_device(count);
    const auto calls = gd::debug::cuda_calls();
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is(fmt::format("graphdsl: kernel node 'far' (#0): is placed on device {}, but {}",
                                                  count, seen)));
    CHECK(gd::debug::cuda_calls() - calls == 2);  // cudaGetDevice, cudaGetDeviceCount
  }
  SECTION("a peer copy naming a device that does not exist") {
    gd::Graph g("g");
    g.add_memcpy_peer(x.get(), 0, x.get(), count + 2, 16).name("peer");
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is(fmt::format("graphdsl: memcpy node 'peer' (#0): copies between device {} and "
                                                  "device 0, but {}",
                                                  count + 2, seen)));
  }
  SECTION("an event node cannot be placed") {
    gd::Event ev = gd::Event::create();
    gd::Graph g("g");
    g.add_event_record(ev).name("rec").on_device(0);
    REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                           message_is("graphdsl: event_record node 'rec' (#0): cannot be placed on device 0: an event "
                                      "node runs where its event was created"));
  }
}
