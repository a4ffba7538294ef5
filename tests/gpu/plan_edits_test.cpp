// GPU tests of plans edited in place: Graph's setters (set_kernel_args, set_memset, set_memcpy,
// set_host, ...) and Graph::remove_node. An edited plan compiles into what it says (values read back
// from the device), executables compiled before the edit keep their own values, and update() between
// edited and unedited plans decides as diff() does: a parameter edit is patched, a removal is a
// topology change.
#include <atomic>
#include <vector>

#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its helpers would collide with other files'.
namespace plan_edits_test {

namespace {

constexpr int N = 4099;

/// Every element of `v` equals `value` (floats of the test are exact).
bool all_equal(const std::vector<float>& v, float value) {
  for (float x : v) {
    if (x != value) return false;
  }
  return true;
}

/// The number of top-level nodes of the native graph of `exec`.
std::size_t native_nodes(const gd::Executable& exec) {
  std::size_t n = 0;
  GPU_REQUIRE(cudaGraphGetNodes(exec.native_graph(), nullptr, &n));
  return n;
}

/// Launches `exec` on `s` and waits.
void run(gd::Executable& exec, cudaStream_t s) {
  exec.launch(s);
  exec.synchronize(s);
}

}  // namespace

TEST_CASE("a kernel's arguments and a memset's value edited in the plan reach the device", "[gpu][edit]") {
  auto gen = rng(500);
  const std::vector<float> hx = random_floats(N, gen);
  DeviceBuffer<float> x(hx), y(N), z(N), other(N);
  Stream s;
  gd::Graph g("edits");
  auto fill = g.add_memset(z.get(), 1.0f, N).name("fill");
  auto k = g.add_kernel(axpb, gd::cover(N), y.get(), static_cast<const float*>(x.get()), 2.0f, 0.5f, N).name("axpb");
  g.add_kernel(add_into, gd::cover(N), z.get(), static_cast<const float*>(y.get()), N).name("sum").after(fill, k);
  gd::Executable before = g.instantiate();

  g.set_memset(fill, z.get(), 5.0f, N);
  g.set_kernel_args(k, y.get(), static_cast<const float*>(x.get()), 3.0f, -1.0f, N);
  gd::Executable after = g.instantiate();
  run(after, s);
  std::vector<float> gy = y.download(), gz = z.download();
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += gy[i] != 3.0f * hx[i] - 1.0f || gz[i] != 5.0f + gy[i];
  CHECK(bad == 0);

  // The executable compiled before keeps the old values; update() patches the two nodes.
  run(before, s);
  gy = y.download();
  gz = z.download();
  bad = 0;
  for (int i = 0; i < N; ++i) bad += gy[i] != 2.0f * hx[i] + 0.5f || gz[i] != 1.0f + gy[i];
  CHECK(bad == 0);
  const gd::UpdateResult d = gd::diff(before.plan(), g);
  const gd::UpdateResult r = before.update(g);
  INFO(r.to_string());
  REQUIRE(r.status == gd::UpdateStatus::success);
  CHECK(r.changed == d.changed);
  CHECK(r.changed == std::vector<std::uint32_t>{fill.index(), k.index()});
  run(before, s);
  gz = z.download();
  bad = 0;
  for (int i = 0; i < N; ++i) bad += gz[i] != 5.0f + 3.0f * hx[i] - 1.0f;
  CHECK(bad == 0);

  // A launch shape and another kernel of the same signature: set_kernel and set_launch.
  g.set_kernel(k, axmb, gd::Launch{1, 32}, other.get(), static_cast<const float*>(x.get()), 1.0f, 2.0f, N);
  g.set_launch(k, gd::cover(N));
  gd::Executable third = g.instantiate();
  run(third, s);
  const std::vector<float> go = other.download();
  bad = 0;
  for (int i = 0; i < N; ++i) bad += go[i] != hx[i] - 2.0f;
  CHECK(bad == 0);
}

TEST_CASE("a memcpy and a graph buffer's memset edited in the plan copy and set what they say now", "[gpu][edit]") {
  auto gen = rng(501);
  const std::vector<float> ha = random_floats(N, gen), hb = random_floats(N, gen);
  DeviceBuffer<float> a(ha), b(hb), out(N), from_buffer(N);
  Stream s;
  gd::Graph g("copies");
  auto copy = g.add_memcpy(out.get(), static_cast<const float*>(a.get()), N).name("copy");
  auto buf = g.add_mem_alloc<float>(N);
  auto set = g.add_memset(buf.buffer, 1.0f, N).name("set").after(buf.node);
  auto down = g.add_memcpy(from_buffer.get(), buf.buffer, N).name("down").after(set);
  g.add_mem_free(buf.buffer).after(down);
  g.set_memcpy(copy, out.get(), static_cast<const float*>(b.get()), N);
  g.set_memset(set, buf.buffer.slice(0, N / 2), 7.0f, N / 2);
  g.set_memcpy(down, from_buffer.get(), buf.buffer.slice(0, N / 2), N / 2);
  GPU_REQUIRE(cudaMemset(from_buffer.get(), 0, from_buffer.bytes()));
  GPU_REQUIRE(cudaDeviceSynchronize());
  gd::Executable exec = g.instantiate();
  run(exec, s);
  CHECK(out.download() == hb);
  const std::vector<float> got = from_buffer.download();
  CHECK(all_equal(std::vector<float>(got.begin(), got.begin() + N / 2), 7.0f));
  CHECK(all_equal(std::vector<float>(got.begin() + N / 2, got.end()), 0.0f));
}

TEST_CASE("removing a node in the middle of a chain: the rest runs, the removed node does not", "[gpu][edit]") {
  DeviceBuffer<float> x(N);
  Stream s;
  gd::Graph g("chain");
  auto set = g.add_memset(x.get(), 1.0f, N).name("set");
  auto twice = g.add_kernel(scale_by, gd::cover(N), x.get(), 2.0f, N).name("twice").after(set);
  auto plus = g.add_kernel(add_scalar, gd::cover(N), x.get(), 3.0f, N).name("plus").after(twice);
  gd::Executable whole = g.instantiate();
  run(whole, s);
  CHECK(all_equal(x.download(), 5.0f));  // (1 * 2) + 3

  g.remove_node(twice);
  plus.after(set);  // the removal does not join its neighbours
  gd::Executable edited = g.instantiate();
  CHECK(native_nodes(edited) == 2);
  CHECK(edited.plan().node_count() == 2);
  run(edited, s);
  CHECK(all_equal(x.download(), 4.0f));  // 1 + 3: 'twice' did not run
  CHECK(message_of([&] { (void)edited.native_node(twice); }) ==
        "graphdsl: node 'twice' (#1) was removed from graph 'chain' (Graph::remove_node); its handle names no node");

  // The executable compiled before: a topology change, refused, and it runs as it did.
  const gd::UpdateResult r = whole.update(g);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "kernel node 'twice' (#1) was removed from the template");
  CHECK(r.status == gd::diff(whole.plan(), g).status);
  run(whole, s);
  CHECK(all_equal(x.download(), 5.0f));

  // The executable compiled after it updates from a plan with the same edits, new values included.
  gd::Graph next("chain");
  auto set2 = next.add_memset(x.get(), 1.0f, N).name("set");
  next.remove_node(next.add_kernel(scale_by, gd::cover(N), x.get(), 2.0f, N).name("twice").after(set2));
  next.add_kernel(add_scalar, gd::cover(N), x.get(), 10.0f, N).name("plus").after(set2);
  const gd::UpdateResult u = edited.update(next);
  INFO(u.to_string());
  REQUIRE(u.status == gd::UpdateStatus::success);
  CHECK(u.changed == std::vector<std::uint32_t>{2});
  run(edited, s);
  CHECK(all_equal(x.download(), 11.0f));
  CHECK(edited.update(whole.plan()).status == gd::UpdateStatus::topology_changed);
}

TEST_CASE("a removed host node does not run; prepared updates of a plan with one run the others' new callables",
          "[gpu][edit]") {
  std::atomic<int> first{0}, second{0};
  Stream s;
  auto plan = [&](int add) {
    gd::Graph g("hosts");
    auto h1 = g.add_host([&first] { ++first; }).name("first");
    g.add_host([&second, add] { second += add; }).name("second").after(h1);
    g.remove_node(h1);
    return g;
  };
  gd::Executable exec = plan(1).instantiate();
  CHECK(native_nodes(exec) == 1);
  run(exec, s);
  CHECK(first == 0);
  CHECK(second == 1);
  const gd::PreparedUpdate prepared = exec.prepare_update(plan(10));
  const gd::UpdateResult r = exec.update(prepared);
  INFO(r.to_string());
  REQUIRE(r.status == gd::UpdateStatus::success);
  run(exec, s);
  CHECK(first == 0);
  CHECK(second == 11);
}

TEST_CASE("an executable's recorded plan cannot be edited through the plan's setters", "[gpu][edit]") {
  DeviceBuffer<float> x(N);
  gd::Graph g("recorded");
  auto m = g.add_memset(x.get(), 1.0f, N).name("m");
  gd::Executable exec = g.instantiate();
  gd::Graph& recorded = const_cast<gd::Graph&>(exec.plan());  // not const: reachable, and refused
  const gd::MemsetNode same = gd::node_cast<gd::MemsetNode>(recorded.node(m.index()));
  CHECK(message_of([&] { recorded.set_memset(same, x.get(), 2.0f, N); }) ==
        "graphdsl: memset node 'm' (#0) belongs to the recorded plan of an executable (Executable::plan()), which "
        "changes only through update() and the setters; changing its parameters is allowed on a copy of the plan");
  CHECK(message_of([&] { recorded.remove_node(same); }) ==
        "graphdsl: memset node 'm' (#0) belongs to the recorded plan of an executable (Executable::plan()), which "
        "changes only through update() and the setters; removing it is allowed on a copy of the plan");
  Stream s;
  run(exec, s);
  CHECK(all_equal(x.download(), 1.0f));
}

}  // namespace plan_edits_test
