// Device-side graph launch (docs/hopper.md): executables compiled with device_launch(), uploaded,
// and launched from kernels through gd::DeviceGraph as fire-and-forget, tail and sibling launches;
// a graph that tail-relaunches itself through DeviceGraph::current(); a scheduler kernel that picks
// the next graph from device data; and Executable::device_graph()'s refusals (exact messages, no
// CUDA call). The kernels: rdc/device_launch_kernels.cu (relocatable device code).
#include "device_launch_kernels.hpp"
#include "gpu_support.hpp"

namespace {

using gpu_test::DeviceBuffer;
using gpu_test::DlMode;
using gpu_test::Stream;

const gd::InstantiateOptions device_launch = gd::InstantiateOptions{}.device_launch();
const gd::Launch one{1, 32};
constexpr unsigned long long spin_50ms = 50'000'000ull;

/// A device-launchable executable of one kernel node, uploaded on `s`.
template <class... P, class... A>
gd::Executable uploaded(const char* name, cudaStream_t s, void (*kernel)(P...), A... args) {
  gd::Graph g(name);
  g.add_kernel(kernel, one, args...).name(name);
  gd::Executable x = g.instantiate(device_launch);
  x.upload(s);
  return x;
}

/// `n` device ints set to zero (synchronously).
struct Ints {
  explicit Ints(std::size_t n) : d(std::vector<int>(n, 0)) {}
  int* at(std::size_t i) const { return d.get() + i; }
  std::vector<int> read() const { return d.download(); }
  DeviceBuffer<int> d;
};

}  // namespace

TEST_CASE("device launch: a kernel fire-and-forgets a graph whose write the host reads back", "[gpu][device_launch]") {
  Stream s;
  Ints v(2);  // [0] written by the launched graph, [1] the launch's cudaError_t
  gd::Executable work = uploaded("work", s, gpu_test::dl_write, v.at(0), 4242);
  gd::Executable launcher = uploaded("launcher", s, gpu_test::dl_launch, work.device_graph(), DlMode::fire_and_forget,
                                     v.at(1));
  launcher.launch(s);
  launcher.synchronize(s);  // the launching graph completes only once its fire-and-forget launches have
  CHECK(v.read() == std::vector<int>{4242, cudaSuccess});
}

TEST_CASE("device launch: a tail launch runs after the launching graph has finished", "[gpu][device_launch]") {
  Stream s;
  // [0] written by the launcher's second node, 50 ms after the tail launch was made; [1] the tail
  // graph's copy of [0] plus 100; [2] the launch's cudaError_t.
  Ints v(3);
  gd::Executable tail = uploaded("tail", s, gpu_test::dl_copy_add, v.at(1), static_cast<const int*>(v.at(0)), 100);
  gd::Graph g("launcher");
  auto launch = g.add_kernel(gpu_test::dl_launch, one, tail.device_graph(), DlMode::tail, v.at(2)).name("launch");
  g.add_kernel(gpu_test::dl_spin_write, one, v.at(0), 7, spin_50ms).name("late_write").after(launch);
  gd::Executable launcher = g.instantiate(device_launch);
  launcher.launch(s);
  launcher.synchronize(s);
  // The tail graph saw the write the launcher made 50 ms after launching it: 7 + 100.
  CHECK(v.read() == std::vector<int>{7, 107, cudaSuccess});
}

TEST_CASE("device launch: a tail launch waits for fire-and-forget launches, not for a sibling launch",
          "[gpu][device_launch]") {
  Stream s;
  // [0] written 50 ms late by the launched graph; [1] what the tail graph saw there, plus 100;
  // [2], [3] the two launches' cudaError_t.
  Ints v(4);
  gd::Executable slow = uploaded("slow", s, gpu_test::dl_spin_write, v.at(0), 7, spin_50ms);
  gd::Executable tail = uploaded("tail", s, gpu_test::dl_copy_add, v.at(1), static_cast<const int*>(v.at(0)), 100);
  const DlMode mode = GENERATE(DlMode::fire_and_forget, DlMode::sibling);
  gd::Graph g("launcher");
  auto first = g.add_kernel(gpu_test::dl_launch, one, slow.device_graph(), mode, v.at(2)).name("launch_slow");
  g.add_kernel(gpu_test::dl_launch, one, tail.device_graph(), DlMode::tail, v.at(3)).name("launch_tail").after(first);
  gd::Executable launcher = g.instantiate(device_launch);
  launcher.launch(s);
  launcher.synchronize(s);  // the stream waits for the sibling too: it was launched into the stream's environment
  const std::vector<int> got = v.read();
  INFO((mode == DlMode::sibling ? "sibling" : "fire-and-forget"));
  CHECK(got[0] == 7);
  CHECK(got[2] == cudaSuccess);
  CHECK(got[3] == cudaSuccess);
  // A fire-and-forget launch is part of the launching graph, which completes (and tail-launches)
  // only after it; a sibling is not, and the tail graph runs while it still spins.
  CHECK(got[1] == (mode == DlMode::sibling ? 100 : 107));
}

TEST_CASE("device launch: a graph tail-relaunches itself through DeviceGraph::current()", "[gpu][device_launch]") {
  Stream s;
  constexpr int times = 25;
  Ints v(2);  // [0] the counter, [1] the last relaunch's cudaError_t
  DeviceBuffer<unsigned long long> self(std::vector<unsigned long long>{0});
  gd::Graph g("loop");
  g.add_kernel(gpu_test::dl_relaunch_self, one, v.at(0), times, self.get(), v.at(1)).name("step");
  gd::Executable loop = g.instantiate(device_launch);
  loop.launch(s);  // from the host: its own first run; the device runs the other 24
  loop.synchronize(s);
  CHECK(v.read() == std::vector<int>{times, cudaSuccess});
  CHECK(self.download()[0] == reinterpret_cast<unsigned long long>(loop.native_handle()));

  SECTION("and again, from a fresh counter") {
    v.d.upload({0, -1});
    loop.launch(s);
    loop.synchronize(s);
    CHECK(v.read() == std::vector<int>{times, cudaSuccess});
  }
}

TEST_CASE("device launch: a scheduler kernel picks the next graph from device data", "[gpu][device_launch]") {
  Stream s;
  Ints v(3);  // [0] written by the chosen graph, [1] the choice, [2] the launch's cudaError_t
  gd::Graph a_plan("a");
  auto a_node = a_plan.add_kernel(gpu_test::dl_write, one, v.at(0), 111).name("write_a");
  gd::Executable a = a_plan.instantiate(device_launch);
  a.upload(s);
  gd::Executable b = uploaded("b", s, gpu_test::dl_write, v.at(0), 222);
  gd::Executable sched = uploaded("scheduler", s, gpu_test::dl_schedule, a.device_graph(), b.device_graph(),
                                  static_cast<const int*>(v.at(1)), v.at(2));
  for (const int choice : {1, 0, 1}) {
    v.d.upload({0, choice, -1});
    sched.launch(s);
    sched.synchronize(s);
    INFO("choice " << choice);
    CHECK(v.read() == std::vector<int>{choice == 0 ? 111 : 222, choice, cudaSuccess});
  }

  SECTION("a graph changed on the host and uploaded again runs with its new arguments") {
    a.set_kernel_args(a_node, v.at(0), 333);
    REQUIRE_THROWS_AS(a.device_graph(), gd::UsageError);
    a.upload(s);
    CHECK(a.device_graph().native_handle() == a.native_handle());
    v.d.upload({0, 0, -1});
    sched.launch(s);
    sched.synchronize(s);
    CHECK(v.read() == std::vector<int>{333, 0, cudaSuccess});
  }
}

TEST_CASE("device launch: device_graph() refuses what device code cannot launch, with no CUDA call",
          "[gpu][device_launch][error]") {
  Stream s;
  Ints v(1);
  gd::Graph g("work");
  auto w = g.add_kernel(gpu_test::dl_write, one, v.at(0), 5).name("w");
  const std::string never =
      "graphdsl: graph 'work': device_graph(): the executable has not been uploaded since it was compiled; device "
      "launch runs the executable as last uploaded, so it must be uploaded after it is compiled and after every "
      "change: call upload(stream), compile it with InstantiateOptions().device_launch().upload_on(stream), or "
      "launch it once from the host, before device code launches it";
  const std::string changed =
      "graphdsl: graph 'work': device_graph(): the executable was changed on the host (update() or a setter) since "
      "it was last uploaded; device launch runs the executable as last uploaded, so it must be uploaded after it is "
      "compiled and after every change: call upload(stream) or launch it once from the host, before device code "
      "launches it";

  SECTION("an executable not compiled for device launch") {
    gd::Executable host_only = g.instantiate();
    host_only.upload(s);
    const auto calls = gd::debug::cuda_calls();
    REQUIRE_THROWS_MATCHES(host_only.device_graph(), gd::UsageError,
                           message_is("graphdsl: graph 'work': device_graph() needs an executable compiled for device "
                                      "launch (cudaGraphInstantiateFlagDeviceLaunch); compile the plan with "
                                      "InstantiateOptions().device_launch()"));
    CHECK(gd::debug::cuda_calls() == calls);
  }
  SECTION("an empty or moved-from executable") {
    gd::Executable x = g.instantiate(device_launch);
    gd::Executable taken = std::move(x);
    REQUIRE_THROWS_MATCHES(x.device_graph(), gd::UsageError,
                           message_is("graphdsl: use of an empty or moved-from Executable"));
    REQUIRE_THROWS_MATCHES(gd::Executable{}.device_graph(), gd::UsageError,
                           message_is("graphdsl: use of an empty or moved-from Executable"));
  }
  SECTION("not uploaded since compiled; uploaded by upload(), upload_on or a host launch") {
    gd::Executable x = g.instantiate(device_launch);
    const auto calls = gd::debug::cuda_calls();
    REQUIRE_THROWS_MATCHES(x.device_graph(), gd::UsageError, message_is(never));
    CHECK(gd::debug::cuda_calls() == calls);
    x.upload(s);
    CHECK(x.device_graph().native_handle() == x.native_handle());
    CHECK(gd::debug::cuda_calls() == calls + 1);  // the upload; device_graph() made none

    gd::Executable at_compile = g.instantiate(gd::InstantiateOptions{}.device_launch().upload_on(s));
    CHECK(static_cast<bool>(at_compile.device_graph()));
    gd::Executable by_launch = g.instantiate(device_launch);
    by_launch.launch(s);
    CHECK(static_cast<bool>(by_launch.device_graph()));
    x.synchronize(s);
  }
  SECTION("changed on the host since the last upload: setters and update()") {
    gd::Executable x = g.instantiate(device_launch);
    x.upload(s);
    // A setter refused before any CUDA call changes nothing: still uploaded.
    REQUIRE_THROWS_AS(x.set_launch(w, gd::Launch{0, 32}), gd::UsageError);
    CHECK(static_cast<bool>(x.device_graph()));
    x.set_kernel_args(w, v.at(0), 6);
    REQUIRE_THROWS_MATCHES(x.device_graph(), gd::UsageError, message_is(changed));
    x.launch(s);  // a host launch uploads it again
    CHECK(static_cast<bool>(x.device_graph()));
    x.set_enabled(w, true);
    REQUIRE_THROWS_MATCHES(x.device_graph(), gd::UsageError, message_is(changed));
    x.upload(s);
    gd::Graph next("work");
    next.add_kernel(gpu_test::dl_write, one, v.at(0), 9).name("w");
    REQUIRE(x.update(next));
    REQUIRE_THROWS_MATCHES(x.device_graph(), gd::UsageError, message_is(changed));
    x.upload(s);
    CHECK(static_cast<bool>(x.device_graph()));
    x.launch(s);
    x.synchronize(s);
    CHECK(v.read() == std::vector<int>{9});
  }
}
