// tests/gpu/lifetime_test.cpp — what the executable keeps alive, and for how long: host closures
// (weak_ptr witness), events, in-flight launches; debug::live_counts() returns to its baseline.
//
// CUDA destroys user objects asynchronously, on a driver thread, once the work that used them is
// done; tests therefore poll (cudaDeviceSynchronize + short sleeps, up to ~2 s) for expiry.
#include <optional>
#include <vector>

#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace lifetime_test {

namespace {

constexpr unsigned long long kMs = 1000ull * 1000ull;

}  // namespace

TEST_CASE("a host closure lives while an executable can run it, and dies after the executable",
          "[gpu][lifetime][host]") {
  const gd::debug::LiveCounts base = settled_baseline();
  std::weak_ptr<std::atomic<int>> witness;
  {
    std::optional<gd::Executable> exec;
    {
      auto calls = std::make_shared<std::atomic<int>>(0);
      witness = calls;
      gd::Graph g("witness");
      g.add_host([calls] { calls->fetch_add(1); }).name("count");
      REQUIRE(gd::debug::live_counts().host_closures == base.host_closures + 1);
      exec.emplace(g.instantiate());
    }  // the user's Graph and the user's shared_ptr are gone
    REQUIRE_FALSE(witness.expired());
    const gd::debug::LiveCounts during = gd::debug::live_counts();
    CHECK(during.plans == base.plans + 1);  // the executable's own copy of the plan
    CHECK(during.native_graphs == base.native_graphs + 1);
    CHECK(during.executables == base.executables + 1);
    CHECK(during.host_closures == base.host_closures + 1);

    Stream s;
    for (int launch = 1; launch <= 3; ++launch) {
      exec->launch(s);
      exec->synchronize(s);
      const std::shared_ptr<std::atomic<int>> calls = witness.lock();
      REQUIRE(calls != nullptr);
      REQUIRE(calls->load() == launch);
    }
    exec.reset();
  }
  const bool expired = eventually([&] { return witness.expired(); });
  REQUIRE(expired);
  require_counts_back_to(base);
}

TEST_CASE("destroying an executable while its launch is in flight is safe; the launch completes",
          "[gpu][lifetime]") {
  auto gen = rng(300);
  const int n = 2048;
  const gd::debug::LiveCounts base = settled_baseline();
  const std::vector<float> x = random_floats(n, gen);
  DeviceBuffer<float> d_x(x), d_y(n);
  PinnedBuffer<float> h_out(n);
  h_out.assign(random_floats(n, gen));
  std::atomic<int> calls{0};
  std::weak_ptr<int> witness;
  Stream s;
  {
    auto token = std::make_shared<int>(7);
    witness = token;
    gd::Graph g("in_flight");
    auto k = g.add_kernel(spin_affine, gd::cover(n), d_y.get(), d_x.get(), 3, -1, 50 * kMs, n).name("slow");
    auto down = g.add_memcpy(h_out.data(), static_cast<const float*>(d_y.get()), n).name("download").after(k);
    g.add_host([token, &calls] { calls.fetch_add(*token == 7 ? 1 : 100); }).name("count").after(down);
    gd::Executable exec = g.instantiate();
    exec.launch(s);
  }  // executable (and plan) destroyed while the 50 ms kernel runs
  CHECK(cudaStreamQuery(s) == cudaErrorNotReady);  // destruction did not wait for the launch
  (void)cudaGetLastError();
  CHECK_FALSE(witness.expired());  // the in-flight launch still holds the closure
  GPU_REQUIRE(cudaStreamSynchronize(s));
  CHECK(calls.load() == 1);  // the callback ran, with its captures intact
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = 3.0f * x[i] - 1.0f;
  require_equal(h_out.to_vector(), want, "the in-flight launch completed");
  REQUIRE(eventually([&] { return witness.expired(); }));
  require_counts_back_to(base);
  require_device_healthy();
}

TEST_CASE("an Event whose every user copy is gone stays valid while executables use it", "[gpu][lifetime][event]") {
  auto gen = rng(301);
  const int n = 1000;
  const gd::debug::LiveCounts base = settled_baseline();
  const std::vector<float> x = random_floats(n, gen);
  const std::vector<float> v0 = random_floats(n, gen);
  DeviceBuffer<float> d_x(x), d_v(v0);
  PinnedBuffer<float> h_out(n);
  cudaEvent_t raw = nullptr;
  std::optional<gd::Executable> producer_exec, consumer_exec;
  {
    gd::Event e = gd::Event::create();
    raw = e.native_handle();
    REQUIRE(raw != nullptr);
    REQUIRE(gd::debug::live_counts().events == base.events + 1);

    gd::Graph producer("producer");
    auto acc = producer.add_kernel(add_into, gd::cover(n), d_v.get(), d_x.get(), n).name("accumulate");
    producer.add_event_record(e).name("record").after(acc);
    gd::Graph consumer("consumer");
    auto wait = consumer.add_event_wait(e).name("wait");
    consumer.add_memcpy(h_out.data(), static_cast<const float*>(d_v.get()), n).name("read").after(wait);
    REQUIRE(e.use_count() > 1);  // the plans share the event

    producer_exec.emplace(producer.instantiate());
    consumer_exec.emplace(consumer.instantiate());
  }  // every user copy of the Event, and both user plans, are gone
  CHECK(gd::debug::live_counts().events == base.events + 1);

  Stream s1, s2;
  const int launches = 50;
  for (int launch = 1; launch <= launches; ++launch) {
    producer_exec->launch(s1);
    consumer_exec->launch(s2);
    if (launch % 10 == 0) {
      consumer_exec->synchronize(s2);
      producer_exec->synchronize(s1);
      std::vector<float> want = v0;
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < launch; ++k) want[i] += x[i];
      }
      INFO("after launch " << launch);
      require_equal(h_out.to_vector(), want, "consumer read v after the producer's record");
    }
  }
  // the native event is still a valid handle
  GPU_REQUIRE(cudaEventSynchronize(raw));
  GPU_REQUIRE(cudaEventQuery(raw));
  GPU_REQUIRE(cudaEventRecord(raw, s1));
  GPU_REQUIRE(cudaStreamWaitEvent(s2, raw, 0));
  GPU_REQUIRE(cudaDeviceSynchronize());
  CHECK(gd::debug::live_counts().events == base.events + 1);

  producer_exec.reset();
  consumer_exec.reset();
  require_counts_back_to(base);  // the event is destroyed after the last executable using it
}

TEST_CASE("instantiating and destroying a plan with every node kind leaks nothing", "[gpu][lifetime]") {
  auto gen = rng(302);
  const int n = 256;
  const gd::debug::LiveCounts base = settled_baseline();
  const std::vector<float> x = random_floats(n, gen);
  DeviceBuffer<float> d_x(x), d_y(n);
  PinnedBuffer<float> h_out(n);
  std::atomic<int> calls{0};
  Stream s;
  for (int cycle = 0; cycle < 20; ++cycle) {
    gd::Event e = gd::Event::create();
    gd::Graph child("child");
    child.add_kernel(add_into, gd::cover(n), d_y.get(), d_x.get(), n).name("acc");
    gd::Graph g("all_kinds");
    auto clear = g.add_memset(d_y.get(), 0.5f, n).name("clear");
    auto k = g.add_kernel(add_into, gd::cover(n), d_y.get(), d_x.get(), n).name("acc").after(clear);
    auto c = g.add_child(child).name("child").after(k);
    auto j = g.add_empty().name("join").after(c);
    auto r = g.add_event_record(e).name("record").after(j);
    auto w = g.add_event_wait(e).name("wait").after(r);
    auto down = g.add_memcpy(h_out.data(), static_cast<const float*>(d_y.get()), n).name("down").after(w);
    g.add_host([&calls] { calls.fetch_add(1); }).name("count").after(down);
    gd::Executable exec = g.instantiate();
    exec.launch(s);
    exec.synchronize(s);
    if (cycle == 0) {
      std::vector<float> want(n);
      for (int i = 0; i < n; ++i) want[i] = 0.5f + x[i] + x[i];
      require_equal(h_out.to_vector(), want, "memset, kernel and child kernel all ran");
    }
  }
  CHECK(calls.load() == 20);
  require_counts_back_to(base);
}

TEST_CASE("the setters take handles of the origin plan and of an update template after both are gone",
          "[gpu][lifetime][setters]") {
  // Handles hold no count: a handle is its plan's id, its slot in the plan table and the node index.
  // The executable knows its origin's and last template's ids, so their handles stay usable after
  // those plans were destroyed, also once other plans took their table slots.
  const int n = 64;
  DeviceBuffer<int> d(n);
  gd::MemsetNode origin_fill, template_fill, stranger;
  std::optional<gd::Executable> exec;
  {
    gd::Graph g("origin");
    origin_fill = g.add_memset(d.get(), 1, n).name("fill");
    exec.emplace(g.instantiate());
    gd::Graph t("template");
    template_fill = t.add_memset(d.get(), 2, n).name("fill");
    REQUIRE(exec->update(t));
    gd::Graph o("stranger");
    stranger = o.add_memset(d.get(), 5, n).name("fill");
  }
  for (int i = 0; i < 3000; ++i) {
    std::vector<gd::Graph> crowd(3);  // plans made and destroyed: their slots are reused first-in first-out
  }
  CHECK_FALSE(origin_fill.valid());
  CHECK_FALSE(template_fill.valid());
  Stream s;
  auto run_and_expect = [&](int value) {
    exec->launch(s);
    exec->synchronize(s);
    CHECK(d.download() == std::vector<int>(n, value));
  };
  exec->set_memset(origin_fill, d.get(), 3, n);
  run_and_expect(3);
  exec->set_memset(template_fill, d.get(), 4, n);
  run_and_expect(4);
  REQUIRE_THROWS_WITH(exec->set_memset(stranger, d.get(), 6, n), has_substr("node #0 of ") &&
                                                                     has_substr("was used after its plan was destroyed"));
  run_and_expect(4);
}

}  // namespace lifetime_test
