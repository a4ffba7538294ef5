// GPU tests of Executable::update(), the typed per-node setters and ExecutableCache: results follow
// an applied update, and a refused one leaves the executable launching its old parameters.
#include <chrono>
#include <functional>
#include <thread>

#include "gpu_support.hpp"
#include "update_buffers.hpp"

#include <graphdsl/cache.hpp>  // ExecutableCache is not in the umbrella header

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N and Buffers would collide with other files'.
namespace update_test {

namespace {

constexpr int N = 4096;

using Buffers = UpdateBuffers<N>;

/// Child plans 'inner' computing y = a * x + 1 (kernel 'inner_axpb'), and the check of a launch.
struct ChildAxpb {
  DeviceBuffer<float> x, y;
  std::vector<float> hx;
  explicit ChildAxpb(std::mt19937&& gen) : x(random_floats(N, gen)), y(N), hx(x.download()) {}

  gd::Graph inner(float a) {
    gd::Graph c("inner");
    c.add_kernel(axpb, gd::cover(N), y.get(), x.get(), a, 1.0f, N).name("inner_axpb");
    return c;
  }
  /// The plan "outer" of one child node "sub" holding inner(2), and its executable.
  struct Outer {
    gd::Graph g;
    gd::ChildNode sub;
    gd::Executable exec;
  };
  Outer outer() {
    Outer o{gd::Graph("outer"), {}, {}};
    o.sub = o.g.add_child(inner(2.0f)).name("sub");
    o.exec = o.g.instantiate();
    return o;
  }
  /// Launches `exec` with y poisoned and checks y = a * x + 1.
  void check(gd::Executable& exec, cudaStream_t s, float a, const char* what) {
    INFO(what);
    GPU_REQUIRE(cudaMemset(y.get(), 0xff, y.bytes()));
    GPU_REQUIRE(cudaDeviceSynchronize());
    exec.launch(s);
    exec.synchronize(s);
    const auto got = y.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != a * hx[i] + 1.0f;
    CHECK(bad == 0);
  }
};

struct Knobs {
  float a = 2.0f, b = 0.5f, c = -1.5f, d = 4.0f;
  int fill = 7;
  bool extra = false;
  bool other_function = false;
  float* download_to = nullptr;  // defaults to Buffers::out
};

// 'k1' y1 = a*x+b ; 'k2' y2 = c*x+d ; 'fill' z = fill ; 'download' out <- y1 (after k1)
gd::Graph plan(Buffers& b, const Knobs& k) {
  gd::Graph g("update");
  auto k1 = g.add_kernel(k.other_function ? axmb : axpb, gd::cover(N), b.y1.get(), b.x.get(), k.a, k.b, N).name("k1");
  g.add_kernel(axpb, gd::cover(N), b.y2.get(), b.x.get(), k.c, k.d, N).name("k2");
  g.add_memset(b.z.get(), k.fill, N).name("fill");
  auto dl = g.add_memcpy(k.download_to ? k.download_to : b.out.data(), b.y1.get(), N).name("download").after(k1);
  if (k.extra) g.add_empty().name("extra").after(dl);
  return g;
}

void check(Buffers& b, const Knobs& k, const char* what) {
  INFO(what);
  const auto y1 = b.y1.download(), y2 = b.y2.download();
  const auto z = b.z.download();
  for (int i = 0; i < N; ++i) {
    const float want1 = k.other_function ? k.a * b.hx[i] - k.b : k.a * b.hx[i] + k.b;
    if (y1[i] != want1 || y2[i] != k.c * b.hx[i] + k.d || z[i] != k.fill || b.out[i] != want1) {
      FAIL("element " << i << ": y1=" << y1[i] << " (want " << want1 << ") y2=" << y2[i] << " (want "
                      << k.c * b.hx[i] + k.d << ") z=" << z[i] << " (want " << k.fill << ") out=" << b.out[i]);
    }
  }
  SUCCEED(what);
}

void run(gd::Executable& exec, Buffers& b, cudaStream_t s) {
  b.poison();
  exec.launch(s);
  exec.synchronize(s);
}

}  // namespace

TEST_CASE("update patches only the changed nodes and the results follow", "[gpu][update]") {
  auto gen = rng(101);
  Buffers b(gen);
  Stream s;
  Knobs k;
  gd::Executable exec = plan(b, k).instantiate();
  run(exec, b, s);
  check(b, k, "before any update");

  k.a = 3.0f;  // only 'k1' changes
  gd::UpdateResult r = exec.update(plan(b, k));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.patched == 1);
  CHECK(r.changed == std::vector<std::uint32_t>{0});
  run(exec, b, s);
  check(b, k, "after a one-node update");

  k.fill = -3;
  k.c = 0.25f;  // two nodes of four: still per node
  r = exec.update(plan(b, k));
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.changed == std::vector<std::uint32_t>{1, 2});
  run(exec, b, s);
  check(b, k, "after a two-node update");

  // Back to the first parameters: the recorded plan follows every update, so the diff is right.
  const Knobs first;
  r = exec.update(plan(b, first));
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{0, 1, 2});
  run(exec, b, s);
  check(b, first, "after updating back");
}

TEST_CASE("every node changed: automatic stays per node (measured cheaper); either policy can be forced",
          "[gpu][update]") {
  auto gen = rng(102);
  Buffers b(gen);
  Stream s;
  Knobs k;
  gd::Executable exec = plan(b, k).instantiate();
  PinnedBuffer<float> other(N);

  k = Knobs{5.0f, 1.0f, 2.0f, -2.0f, 11};
  k.download_to = other.data();
  gd::UpdateResult r = exec.update(plan(b, k));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.patched == 4);
  b.poison();
  exec.launch(s);
  exec.synchronize(s);
  for (int i = 0; i < N; ++i) REQUIRE(other[i] == k.a * b.hx[i] + k.b);
  k.download_to = nullptr;

  k.a = -1.0f;
  r = exec.update(plan(b, k), gd::UpdatePolicy::whole_graph);
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  run(exec, b, s);
  check(b, k, "forced whole-graph update");

  k = Knobs{0.5f, 0.25f, 8.0f, 1.0f, 99};
  r = exec.update(plan(b, k), gd::UpdatePolicy::per_node);
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.patched == 3);  // 'download' already copies to `out` again
  run(exec, b, s);
  check(b, k, "forced per-node update of every node");
}

TEST_CASE("a refused update makes no CUDA call and the old parameters keep running", "[gpu][update][refusal]") {
  auto gen = rng(103);
  Buffers b(gen);
  Stream s;
  const Knobs old;
  gd::Executable exec = plan(b, old).instantiate();

  Knobs extra = old;
  extra.extra = true;
  extra.a = 9.0f;
  Knobs fn = old;
  fn.other_function = true;
  for (const Knobs* k : {&extra, &fn}) {
    const gd::Graph templ = plan(b, *k);
    const auto calls = gd::debug::cuda_calls();
    const gd::UpdateResult r = exec.update(templ);
    CHECK(gd::debug::cuda_calls() == calls);
    CHECK_FALSE(r);
    CHECK(r.strategy == gd::UpdateStrategy::none);
    REQUIRE(r.node);
    if (k == &extra) {
      CHECK(r.status == gd::UpdateStatus::topology_changed);
      CHECK(r.node->name == "extra");
    } else {
      CHECK(r.status == gd::UpdateStatus::function_changed);
      CHECK(r.node->name == "k1");
    }
    run(exec, b, s);
    check(b, old, "after a refused update");
  }
}

TEST_CASE("a change CUDA refuses is rolled back; automatic asks cudaGraphExecUpdate, which refuses too",
          "[gpu][update][refusal]") {
  // cudaGraphExecMemcpyNodeSetParams takes 1-D operands only (cuda_runtime_api.h: "Returns
  // cudaErrorInvalidValue if ... either the original or new memory operands are multidimensional").
  auto gen = rng(104);
  RowsCopy<N> c(gen);
  Stream s;
  auto build = [&](float a, const PitchedBuffer& dst) { return c.plan("rollback", a, dst); };
  auto expect = [&](float a, const PitchedBuffer& dst, const char* what) {
    INFO(what);
    c.expect(dst, a);
  };
  gd::Executable exec = build(2.0f, c.dst_a).instantiate();

  // Forced per node: 'k' is patched first, then CUDA refuses 'rows'; 'k' is rolled back.
  gd::UpdateResult r = exec.update(build(5.0f, c.dst_b), gd::UpdatePolicy::per_node);
  CAPTURE(r.to_string());
  CHECK_FALSE(r);
  CHECK(r.status == gd::UpdateStatus::parameters_changed);
  CHECK(r.cuda_error == cudaErrorInvalidValue);
  REQUIRE(r.node);
  CHECK(r.node->name == "rows");
  CHECK(r.reason.find("cudaGraphExecMemcpyNodeSetParams refused the new parameters of memcpy node 'rows' (#1)") == 0);
  CHECK(cudaGetLastError() == cudaSuccess);
  c.clear(c.dst_a);
  exec.launch(s);
  exec.synchronize(s);
  expect(2.0f, c.dst_a, "old parameters after the rolled-back update");

  // Automatic: a multi-dimensional copy changed, so the whole template goes to cudaGraphExecUpdate,
  // which (CUDA 13, measured on an H200) refuses a 2-D copy's new destination as well.
  r = exec.update(build(5.0f, c.dst_b));
  UNSCOPED_INFO("automatic update: " << r.to_string());
  CHECK_FALSE(r);
  CHECK(r.status == gd::UpdateStatus::parameters_changed);
  CHECK(r.cuda_error == cudaErrorGraphExecUpdateFailure);
  REQUIRE(r.node);
  CHECK(r.node->name == "rows");
  CHECK(r.reason ==
        "cudaGraphExecUpdate refused the template: cudaErrorGraphExecUpdateFailure (parameters changed) at "
        "memcpy node 'rows' (#1)");
  c.clear(c.dst_a);
  exec.launch(s);
  exec.synchronize(s);
  expect(2.0f, c.dst_a, "old parameters after the refused whole-graph update");

  // A 1-D change of the same kernel still goes through per node.
  r = exec.update(build(5.0f, c.dst_a));
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  exec.launch(s);
  exec.synchronize(s);
  expect(5.0f, c.dst_a, "new parameters after the per-node update");
}

TEST_CASE("a copy whose destination moves between device and host memory: the result matches the behaviour",
          "[gpu][update][memory-type]") {
  // The misuse catalogue (row 80) saw cudaGraphExecUpdate refuse this; CUDA 13's per-node setter
  // accepts it. Whatever CUDA decides, UpdateResult must agree with what the executable then does.
  auto gen = rng(109);
  Buffers b(gen);
  Stream s;
  DeviceBuffer<float> device_dst(N);
  for (gd::UpdatePolicy policy : {gd::UpdatePolicy::per_node, gd::UpdatePolicy::whole_graph}) {
    Knobs k;
    k.download_to = device_dst.get();
    gd::Executable exec = plan(b, k).instantiate();
    Knobs moved = k;
    moved.a = 6.0f;
    moved.download_to = nullptr;  // pinned host memory (Buffers::out)
    const gd::UpdateResult r = exec.update(plan(b, moved), policy);
    INFO(r.to_string());
    WARN("memory-type change, policy " << (policy == gd::UpdatePolicy::per_node ? "per_node" : "whole_graph") << ": "
                                       << r.to_string());
    GPU_REQUIRE(cudaMemset(device_dst.get(), 0, device_dst.bytes()));
    GPU_REQUIRE(cudaStreamSynchronize(
        cudaStreamLegacy));  // cudaMemset is asynchronous; non-blocking streams do not wait for it
    std::fill(b.out.data(), b.out.data() + N, 0.0f);
    run(exec, b, s);
    const auto copied = device_dst.download();
    const Knobs& now = r ? moved : k;
    for (int i = 0; i < N; ++i) {
      const float want = now.a * b.hx[i] + now.b;
      REQUIRE((r ? b.out[i] : copied[i]) == want);
      REQUIRE((r ? copied[i] : b.out[i]) == 0.0f);
    }
    if (!r) {
      CHECK(r.status == gd::UpdateStatus::parameters_changed);
      REQUIRE(r.node);
      CHECK(r.node->name == "download");
    }
  }
}

TEST_CASE("typed setters patch one node each", "[gpu][update][setters]") {
  auto gen = rng(105);
  Buffers b(gen);
  Stream s;
  Knobs k;
  gd::Graph g = plan(b, k);
  auto k1 = gd::KernelNode<float*, const float*, float, float, int>(g.node(0).ref());
  auto fill = gd::MemsetNode(g.node(2).ref());
  gd::Executable exec = g.instantiate();

  k.a = 1.25;
  exec.set_kernel_args(k1, b.y1.get(), b.x.get(), 1.25, 0.5f, N);  // 1.25 (double) converted to float
  run(exec, b, s);
  check(b, k, "set_kernel_args");

  k.fill = 1234;
  exec.set_memset(fill, b.z.get(), 1234, N);
  run(exec, b, s);
  check(b, k, "set_memset");

  k.other_function = true;
  exec.set_kernel(k1, axmb, gd::cover(N), b.y1.get(), b.x.get(), k.a, k.b, N);
  run(exec, b, s);
  check(b, k, "set_kernel with another kernel of the same signature");

  exec.set_launch(k1, gd::Launch{dim3((N + 127) / 128), dim3(128)});
  run(exec, b, s);
  check(b, k, "set_launch");

  // A disabled kernel does not run: y1 keeps the poison, the others run.
  exec.set_enabled(k1, false);
  CHECK_FALSE(exec.enabled(k1));
  run(exec, b, s);
  const auto y1 = b.y1.download();
  std::uint32_t bits;
  std::memcpy(&bits, &y1[0], 4);
  CHECK(bits == 0xffffffffu);
  exec.set_enabled(k1, true);
  CHECK(exec.enabled(k1));
  run(exec, b, s);
  check(b, k, "re-enabled");

  // Bad setter input is a UsageError that names the node; nothing changes.
  REQUIRE_THROWS_WITH(exec.set_memset(fill, static_cast<int*>(nullptr), 1, N),
                      "graphdsl: memset node 'fill' (#2): the destination pointer is null");
  gd::Graph other("other");
  auto foreign = other.add_memset(b.z.get(), 5, N).name("foreign");
  REQUIRE_THROWS_WITH(exec.set_memset(foreign, b.z.get(), 5, N),
                      has_substr("memset node 'foreign' (#0) belongs to graph 'other'") &&
                          has_substr("this executable was compiled from graph 'update'"));
  run(exec, b, s);
  check(b, k, "after refused setters");
}

TEST_CASE("host callbacks and events are replaced in place", "[gpu][update][setters][host]") {
  Stream s;
  std::atomic<int> first{0}, second{0};
  auto witness = std::make_shared<int>(0);
  std::weak_ptr<int> weak = witness;
  auto e1 = gd::Event::create(), e2 = gd::Event::create();
  gd::Executable exec;
  gd::HostNode host;
  {
    gd::Graph g("host");
    host = g.add_host([&first, witness] { ++first; }).name("cb");
    auto rec = g.add_event_record(e1).name("rec").after(host);
    exec = g.instantiate();
    witness.reset();
    exec.launch(s);
    exec.synchronize(s);
    CHECK(first == 1);

    exec.set_event(rec, e2);
    exec.set_host(host, [&second] { ++second; });
    exec.launch(s);
    exec.synchronize(s);
    CHECK(first == 1);
    CHECK(second == 1);
    CHECK(cudaEventQuery(e2.native_handle()) == cudaSuccess);
  }
  // The first closure is still owned by the user objects of the original materialization until
  // the executable goes; after that it is released.
  exec = gd::Executable();
  CHECK(eventually([&] { return weak.expired(); }));

  // update() replaces host closures too (no CUDA call for them).
  std::atomic<int> third{0};
  gd::Graph a("h");
  a.add_host([&first] { ++first; }).name("cb");
  gd::Executable ex2 = a.instantiate();
  gd::Graph b("h");
  b.add_host([&third] { ++third; }).name("cb");
  const auto calls = gd::debug::cuda_calls();
  const gd::UpdateResult r = ex2.update(b);
  REQUIRE(r);
  CHECK(gd::debug::cuda_calls() == calls);
  ex2.launch(s);
  ex2.synchronize(s);
  CHECK(third == 1);
}

TEST_CASE("a child plan's parameters are updated in place", "[gpu][update][child]") {
  auto gen = rng(106);
  DeviceBuffer<float> x(random_floats(N, gen)), y(N);
  const auto hx = x.download();
  Stream s;
  auto outer = [&](float a) {
    gd::Graph c("inner");
    c.add_kernel(axpb, gd::cover(N), y.get(), x.get(), a, 1.0f, N).name("inner_axpb");
    gd::Graph g("outer");
    g.add_child(c).name("sub");
    return g;
  };
  gd::Executable exec = outer(2.0f).instantiate();
  const gd::UpdateResult r = exec.update(outer(-3.0f));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{0});
  exec.launch(s);
  exec.synchronize(s);
  const auto got = y.download();
  for (int i = 0; i < N; ++i) REQUIRE(got[i] == -3.0f * hx[i] + 1.0f);
}

TEST_CASE("set_child patches a child plan of the same shape; another shape is refused and changes nothing",
          "[gpu][update][child][setters]") {
  ChildAxpb c(rng(108));
  Stream s;
  auto [g, sub, exec] = c.outer();
  exec.set_child(sub, c.inner(-3.0f));
  c.check(exec, s, -3.0f, "after set_child");

  gd::Graph other = c.inner(5.0f);
  other.add_empty().name("extra");
  const auto calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_WITH(exec.set_child(sub, other),
                      has_substr("child node 'sub' (#0): the new child plan has another shape"));
  CHECK(gd::debug::cuda_calls() == calls);
  c.check(exec, s, -3.0f, "after the refused set_child");
}

TEST_CASE("set_child keeps the graphs of the plans it was given: an equal plan again is one CUDA call, the kept "
          "graphs are bounded, captured plans capture again",
          "[gpu][update][child][setters]") {
  ChildAxpb c(rng(110));
  Stream s;
  auto [g, sub, exec] = c.outer();
  const gd::Graph minus3 = c.inner(-3.0f);
  exec.set_child(sub, minus3);
  c.check(exec, s, -3.0f, "-3");
  exec.set_child(sub, c.inner(5.0f));
  c.check(exec, s, 5.0f, "5");
  auto calls = gd::debug::cuda_calls();
  exec.set_child(sub, minus3);  // seen before: its kept graph is set
  CHECK(gd::debug::cuda_calls() - calls == 1);
  c.check(exec, s, -3.0f, "-3 again, from the kept graph");
  calls = gd::debug::cuda_calls();
  exec.set_child(sub, c.inner(5.0f));  // an equal plan built again is the same plan
  CHECK(gd::debug::cuda_calls() - calls == 1);
  c.check(exec, s, 5.0f, "5 again, from the kept graph");

  // Another node name is another plan: the recorded plan shows the new name.
  gd::Graph renamed("inner");
  renamed.add_kernel(axpb, gd::cover(N), c.y.get(), c.x.get(), 5.0f, 1.0f, N).name("renamed_axpb");
  calls = gd::debug::cuda_calls();
  exec.set_child(sub, renamed);
  CHECK(gd::debug::cuda_calls() - calls > 1);
  CHECK_THAT(exec.plan().dump(), has_substr("renamed_axpb"));
  c.check(exec, s, 5.0f, "renamed");

  // Bounded: 40 more plans keep at most 16 graphs; the first of them, evicted, is built again.
  const auto before = gd::debug::live_counts().native_graphs;
  for (int k = 0; k < 40; ++k) exec.set_child(sub, c.inner(static_cast<float>(k)));
  CHECK(gd::debug::live_counts().native_graphs - before <= 16);
  c.check(exec, s, 39.0f, "the last of 40");
  calls = gd::debug::cuda_calls();
  exec.set_child(sub, c.inner(0.0f));
  CHECK(gd::debug::cuda_calls() - calls > 1);
  c.check(exec, s, 0.0f, "an evicted plan, built again");

  // A plan with a captured node runs its function again every time it is set.
  int captures = 0;
  auto captured = [&](float a) {
    gd::Graph k("inner");
    k.add_captured([&captures, &c, a](cudaStream_t st) {
      ++captures;
      launch_kernel(axpb, dim3((N + 255) / 256), dim3(256), 0, st, c.y.get(), static_cast<const float*>(c.x.get()),
                    a, 1.0f, N);
    });
    return k;
  };
  gd::Graph g2("outer");
  auto sub2 = g2.add_child(captured(2.0f)).name("sub");
  gd::Executable exec2 = g2.instantiate();
  const gd::Graph cp = captured(-3.0f);
  captures = 0;
  exec2.set_child(sub2, cp);
  exec2.set_child(sub2, cp);
  CHECK(captures == 2);
  c.check(exec2, s, -3.0f, "captured child set twice");
}

TEST_CASE("set_child sets a plan changed since it was given as it is now, not from the graph kept for it; an "
          "unchanged plan given again is one CUDA call",
          "[gpu][update][child][setters]") {
  ChildAxpb c(rng(112));
  Stream s;
  auto [g, sub, exec] = c.outer();
  gd::Graph mine = c.inner(-3.0f);
  exec.set_child(sub, mine);
  c.check(exec, s, -3.0f, "-3");
  auto calls = gd::debug::cuda_calls();
  exec.set_child(sub, mine);
  CHECK(gd::debug::cuda_calls() - calls == 1);
  c.check(exec, s, -3.0f, "-3 again, unchanged");

  // Changed through the plan's setter: set as it is now.
  using Axpb = gd::KernelNode<float*, const float*, float, float, int>;
  const Axpb k = gd::node_cast<Axpb>(*mine.find("inner_axpb"));
  mine.set_kernel_args(k, c.y.get(), c.x.get(), 4.0f, 1.0f, N);
  exec.set_child(sub, mine);
  c.check(exec, s, 4.0f, "4, the same plan changed by set_kernel_args");
  calls = gd::debug::cuda_calls();
  exec.set_child(sub, mine);
  CHECK(gd::debug::cuda_calls() - calls == 1);
  c.check(exec, s, 4.0f, "4 again, unchanged");

  // Changed through its node handle: the recorded plan shows the new name.
  k.name("renamed_axpb");
  exec.set_child(sub, mine);
  CHECK_THAT(exec.plan().dump(), has_substr("renamed_axpb"));
  c.check(exec, s, 4.0f, "renamed");

  // Assigned another plan: set as that plan.
  mine = c.inner(6.0f);
  exec.set_child(sub, mine);
  c.check(exec, s, 6.0f, "6, another plan assigned to the same Graph");
  CHECK_THAT(exec.plan().dump(), has_substr("inner_axpb"));
}

TEST_CASE("set_child keeps two graphs per child node: 24 child nodes set in turn to one of two plans each are set "
          "from kept graphs after the first round",
          "[gpu][update][child][setters]") {
  constexpr int nodes = 24;  // more than 16: the bound grows with the child nodes
  DeviceBuffer<unsigned> slots(nodes);
  auto child = [&slots](int j, int gen) {
    gd::Graph c("fill");
    c.add_memset(slots.get() + j, static_cast<unsigned>(1000 * gen + j), 1).name("fill");
    return c;
  };
  gd::Graph g("children");
  std::vector<gd::ChildNode> h;
  for (int j = 0; j < nodes; ++j) {
    h.push_back(g.add_child(child(j, 0)));
    if (j > 0) h.back().after(h[j - 1]);
  }
  gd::Executable exec = g.instantiate();
  Stream s;
  auto check = [&](int gen, const char* what) {
    INFO(what << ", plans of generation " << gen);
    exec.launch(s);
    exec.synchronize(s);
    const std::vector<unsigned> got = slots.download();
    int bad = 0;
    for (int j = 0; j < nodes; ++j) bad += got[j] != static_cast<unsigned>(1000 * gen + j);
    CHECK(bad == 0);
  };
  for (int round = 0; round < 4; ++round) {
    const int gen = 1 + round % 2;
    const auto calls = gd::debug::cuda_calls();
    for (int j = 0; j < nodes; ++j) exec.set_child(h[j], child(j, gen));
    const auto made = gd::debug::cuda_calls() - calls;
    INFO("round " << round << ": " << made << " CUDA calls");
    if (round >= 2) CHECK(made == static_cast<std::uint64_t>(nodes));  // one per node: every plan seen before
    if (round < 2) CHECK(made > static_cast<std::uint64_t>(nodes));    // each built the first time
    check(gen, "after a round of set_child");
  }
}

TEST_CASE("prepared child plans: one CUDA call per set_child, refusals before any CUDA call, parameters not shared",
          "[gpu][update][child][setters][prepared]") {
  ChildAxpb c(rng(109));
  Stream s;
  gd::Graph g("outer");
  auto sub = g.add_child(c.inner(2.0f)).name("sub");
  auto other_sub = g.add_child(c.inner(2.0f)).name("other sub").after(sub);  // runs last: its y is checked
  gd::Executable exec = g.instantiate();
  const gd::PreparedChild minus3 = exec.prepare_child(other_sub, c.inner(-3.0f));
  const gd::PreparedChild five = exec.prepare_child(other_sub, c.inner(5.0f));
  exec.set_child(other_sub, minus3);  // the first call looks the driver's entry point up
  c.check(exec, s, -3.0f, "prepared -3");
  auto calls = gd::debug::cuda_calls();
  exec.set_child(other_sub, five);
  CHECK(gd::debug::cuda_calls() - calls == 1);
  c.check(exec, s, 5.0f, "prepared 5");
  exec.set_child(other_sub, minus3);
  c.check(exec, s, -3.0f, "prepared -3 again");

  // Refused before any CUDA call, naming the node; the executable keeps what it had.
  gd::Graph wrong = c.inner(7.0f);
  wrong.add_empty();
  gd::Executable second = g.instantiate();
  calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_WITH(exec.prepare_child(other_sub, wrong),
                      has_substr("child node 'other sub' (#1): the new child plan has another shape"));
  REQUIRE_THROWS_WITH(exec.set_child(sub, minus3),
                      has_substr("child node 'sub' (#0): this PreparedChild was prepared for another node"));
  REQUIRE_THROWS_WITH(second.set_child(other_sub, five), has_substr("prepared for another node or another executable"));
  REQUIRE_THROWS_WITH(exec.set_child(other_sub, gd::PreparedChild()),
                      has_substr("child node 'other sub' (#1): set_child with an empty PreparedChild"));
  CHECK(gd::debug::cuda_calls() == calls);
  c.check(exec, s, -3.0f, "after the refusals");
  {
    // An executable that never prepared a child has no liveness token of its own: a PreparedChild
    // whose executable is gone must still be refused, not taken for one of its own.
    gd::Executable gone = g.instantiate();
    const gd::PreparedChild orphan = gone.prepare_child(other_sub, c.inner(9.0f));
    gone = gd::Executable();
    REQUIRE_THROWS_WITH(second.set_child(other_sub, orphan),
                        has_substr("child node 'other sub' (#1): this PreparedChild was prepared for another node or "
                                   "another executable"));
    c.check(second, s, 2.0f, "a fresh executable refusing another's prepared child");
  }

  // A child plan with a parameter: Executable::set writes into the recorded plan's copy, not into
  // the prepared plan, which sets its own value again next time.
  gd::Graph with_param("inner");
  const gd::Parameter<float> scale = with_param.parameter<float>(4.0f).name("scale");
  with_param.add_kernel(axpb, gd::cover(N), c.y.get(), c.x.get(), scale, 1.0f, N).name("inner_axpb");
  gd::Graph g2("outer");
  auto only = g2.add_child(with_param).name("only");
  gd::Executable exec2 = g2.instantiate();
  const gd::PreparedChild prepared = exec2.prepare_child(only, with_param);
  exec2.set_child(only, prepared);
  CHECK(exec2.set(scale, 6.0f).patched == 1);
  c.check(exec2, s, 6.0f, "set(scale) after set_child(prepared)");
  exec2.set_child(only, prepared);
  c.check(exec2, s, 4.0f, "the prepared plan again");
}

TEST_CASE("a child plan's host node set by set_child or an update keeps running while the executable lives",
          "[gpu][update][child][host]") {
  // The child plan is materialized for the setter and its cudaGraph_t destroyed right after
  // cudaGraphExecChildGraphNodeSetParams: the host node's slot, kept by that graph's user object,
  // must outlive it. CUDA's executable retains the user objects of the graph a child setter or
  // cudaGraphExecUpdate takes its parameters from, until the executable is destroyed (a raw-CUDA
  // check on an H200, driver 580.159.04); this holds graphdsl to it.
  Stream s;
  std::atomic<int> hits{0};
  auto child = [&hits](int add) {
    gd::Graph c("c");
    c.add_host([&hits, add] { hits += add; }).name("cb");
    return c;
  };
  gd::Graph g("outer");
  auto sub = g.add_child(child(1)).name("sub");
  gd::Executable exec = g.instantiate();
  exec.set_child(sub, child(10));
  gd::Graph templ("outer");
  templ.add_child(child(100)).name("sub");
  gd::Executable other = g.instantiate();
  REQUIRE(other.update(templ, gd::UpdatePolicy::per_node));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // graphdsl's release thread frees late
  std::vector<std::vector<unsigned char>> churn;  // reuse what was freed
  for (int k = 0; k < 4000; ++k) churn.emplace_back(48 + k % 256, static_cast<unsigned char>(0xab));
  for (int l = 0; l < 5; ++l) {
    exec.launch(s);
    other.launch(s);
  }
  exec.synchronize(s);
  other.synchronize(s);
  CHECK(hits == 5 * 10 + 5 * 100);
}

TEST_CASE("ExecutableCache updates in place per key and recompiles on a new shape", "[gpu][update][cache]") {
  auto gen = rng(107);
  Buffers b(gen);
  Stream s;
  gd::ExecutableCache<int> cache;
  Knobs k;
  gd::Executable* first = &cache.get(1, plan(b, k));
  k.a = 7.0f;
  gd::Executable& again = cache.get(1, plan(b, k));
  CHECK(&again == first);
  CHECK(cache.stats().compiled == 1);
  CHECK(cache.stats().updated == 1);
  run(again, b, s);
  check(b, k, "cached executable after an in-place update");

  Knobs bigger = k;
  bigger.extra = true;
  gd::Executable& fresh = cache.get(1, plan(b, bigger));
  CHECK(cache.stats().compiled == 2);
  run(fresh, b, s);
  check(b, bigger, "recompiled for a new shape");
  cache.get(2, plan(b, k));
  CHECK(cache.size() == 2);
}

TEST_CASE("update and setters on a moved-from executable are usage errors", "[gpu][update]") {
  auto gen = rng(108);
  Buffers b(gen);
  gd::Graph g = plan(b, {});
  gd::Executable exec = g.instantiate();
  gd::Executable moved = std::move(exec);
  REQUIRE_THROWS_AS((void)exec.update(g), gd::UsageError);
  REQUIRE_THROWS_WITH(exec.set_memset(gd::MemsetNode(g.node(2).ref()), b.z.get(), 1, N),
                      "graphdsl: use of an empty or moved-from Executable");
  CHECK(moved.update(g));
}

TEST_CASE("set_launch keeps a kernel's GraphBuffer argument; a refused set_launch leaves the node as it was",
          "[gpu][update][setters]") {
  constexpr int n = 4096;
  PinnedBuffer<float> out(n);
  Stream s;
  gd::Graph g("buffer launch");
  auto [alloc, tmp] = g.add_mem_alloc<float>(n);
  alloc.name("tmp");
  auto zero = g.add_memset(tmp, 0.0f, n).name("zero").after(alloc);
  // Half the grid gd::cover(n) would give: elements [0, n/2) get 1, the rest stay 0.
  auto add = g.add_kernel(add_scalar, gd::Launch{dim3(n / 2 / 128), dim3(128)}, tmp, 1.0f, n).name("add").after(zero);
  auto dl = g.add_memcpy(out.data(), tmp, n).name("download").after(add);
  g.add_mem_free(tmp).name("free").after(dl);
  gd::Executable exec = g.instantiate();
  auto run_and_count_ones = [&] {
    std::fill(out.data(), out.data() + n, -1.0f);
    exec.launch(s);
    exec.synchronize(s);
    int ones = 0;
    for (int i = 0; i < n; ++i) {
      REQUIRE((out[i] == 1.0f || out[i] == 0.0f));
      ones += out[i] == 1.0f ? 1 : 0;
    }
    return ones;
  };
  REQUIRE(run_and_count_ones() == n / 2);

  // The whole grid: the kernel still gets the executable's buffer (it used to be refused as "a
  // plain value in the setter" for the GraphBuffer argument).
  exec.set_launch(add, gd::cover(n, 256));
  CHECK(run_and_count_ones() == n);

  // A refused shape: a UsageError naming the node and the rule, no CUDA call, and the node keeps
  // the launch it had (the whole grid).
  const std::uint64_t calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_MATCHES(exec.set_launch(add, gd::Launch{dim3(1), dim3(64, 32)}), gd::UsageError,
                         message_is("graphdsl: kernel node 'add' (#2): block (64,32,1) has 2048 threads; CUDA allows "
                                    "at most 1024 threads per block"));
  CHECK(gd::debug::cuda_calls() == calls);
  CHECK(run_and_count_ones() == n);
}

TEST_CASE("set_enabled and enabled take the node's kind from the handle's type, not from the handle's plan",
          "[gpu][update][setters]") {
  auto gen = rng(108);
  Buffers b(gen);
  Stream s;
  Knobs k;
  gd::Executable exec;
  gd::KernelNode<float*, const float*, float, float, int> k1;
  gd::MemsetNode fill, not_a_memset;
  {
    gd::Graph g = plan(b, k);
    k1 = gd::KernelNode<float*, const float*, float, float, int>(g.node(0).ref());
    fill = gd::MemsetNode(g.node(2).ref());
    not_a_memset = gd::MemsetNode(g.node(0).ref());  // a memset handle on kernel 'k1' (no node_cast)
    exec = g.instantiate();
  }
  // The handles' plan is gone (as for the other setters, the executable's copy is what counts).
  REQUIRE_FALSE(k1.valid());
  exec.set_enabled(k1, false);
  exec.set_enabled(fill, false);
  CHECK_FALSE(exec.enabled(k1));
  CHECK_FALSE(exec.enabled(fill));
  run(exec, b, s);
  const auto y1 = b.y1.download();
  const auto z = b.z.download();
  std::uint32_t bits;
  std::memcpy(&bits, &y1[0], 4);
  CHECK(bits == 0xffffffffu);
  CHECK(z[0] == -1);
  exec.set_enabled(k1, true);
  exec.set_enabled(fill, true);
  CHECK(exec.enabled(k1));
  run(exec, b, s);
  check(b, k, "re-enabled");

  // A handle whose type says memset, on a kernel node, is refused before any CUDA call.
  const std::uint64_t calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_AS(exec.set_enabled(not_a_memset, false), gd::UsageError);
  REQUIRE_THROWS_WITH(exec.set_enabled(not_a_memset, false),
                      has_substr("is not a memset node of this executable's plan"));
  REQUIRE_THROWS_WITH(exec.enabled(not_a_memset), has_substr("is not a memset node of this executable's plan"));
  CHECK(gd::debug::cuda_calls() == calls);
  CHECK(exec.enabled(k1));
}

TEST_CASE("set_kernel_args and set_launch on a plain kernel patch it directly; a refused call changes nothing",
          "[gpu][update][setters]") {
  auto gen = rng(106);
  Buffers b(gen);
  Stream s;
  Knobs k;
  gd::Graph g = plan(b, k);
  auto k1 = gd::KernelNode<float*, const float*, float, float, int>(g.node(0).ref());
  gd::Executable exec = g.instantiate();

  // Many calls alternating two values: the last one is what runs (the recorded plan follows, so a
  // later update diff compares against it).
  for (int c = 0; c < 100; ++c) exec.set_kernel_args(k1, b.y1.get(), b.x.get(), c % 2 == 0 ? 3.0f : -0.5f, 0.25f, N);
  k.a = -0.5f;
  k.b = 0.25f;
  run(exec, b, s);
  check(b, k, "set_kernel_args x100");
  const gd::UpdateResult same = exec.update(plan(b, k));
  INFO(same.to_string());
  CHECK(same.changed.empty());

  // CUDA refuses 100 KiB of dynamic shared memory: CudaError naming the node; arguments and launch
  // stay as they were.
  REQUIRE_THROWS_AS(exec.set_launch(k1, gd::Launch{dim3((N + 127) / 128), dim3(128), 100u * 1024u}), gd::CudaError);
  run(exec, b, s);
  check(b, k, "after a refused set_launch");
}

TEST_CASE("set_memcpy patches a copy between raw pointers; a refused one changes nothing", "[gpu][update][setters]") {
  auto gen = rng(107);
  Buffers b(gen);
  Stream s;
  Knobs k;
  gd::Graph g = plan(b, k);
  auto download = gd::MemcpyNode(g.node(3).ref());
  gd::Executable exec = g.instantiate();
  PinnedBuffer<float> other(N);
  auto other_holds_x = [&](const char* what) {
    INFO(what);
    for (int i = 0; i < N; ++i) REQUIRE(other[i] == b.hx[i]);
  };

  // 'download' copies x (the plan's input) into `other` instead of y1 into out. (Not y2: k2 writes
  // it and 'download' waits for k1 only, a race memcheck's slower kernels exposed.)
  std::fill(other.data(), other.data() + N, -1.0f);
  exec.set_memcpy(download, other.data(), static_cast<const float*>(b.x.get()), N);
  run(exec, b, s);
  other_holds_x("after set_memcpy");

  // Refused before any CUDA call, naming the node and the rule; the node keeps its copy.
  const std::uint64_t calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_MATCHES(exec.set_memcpy(download, b.out.data(), static_cast<const float*>(nullptr), N), gd::UsageError,
                         message_is("graphdsl: memcpy node 'download' (#3): the source pointer is null"));
  CHECK(gd::debug::cuda_calls() == calls);
  std::fill(other.data(), other.data() + N, -1.0f);
  run(exec, b, s);
  other_holds_x("after a refused set_memcpy");

  // The recorded plan follows the setter: a template with the same copy differs in nothing.
  Knobs same = k;
  same.download_to = other.data();
  gd::Graph templ("update");
  auto k1 = templ.add_kernel(axpb, gd::cover(N), b.y1.get(), b.x.get(), same.a, same.b, N).name("k1");
  templ.add_kernel(axpb, gd::cover(N), b.y2.get(), b.x.get(), same.c, same.d, N).name("k2");
  templ.add_memset(b.z.get(), same.fill, N).name("fill");
  templ.add_memcpy(other.data(), static_cast<const float*>(b.x.get()), N).name("download").after(k1);
  const gd::UpdateResult r = gd::diff(exec.plan(), templ);
  INFO(r.to_string());
  CHECK(r);
  CHECK(r.changed.empty());
}

TEST_CASE("a kernel setter through a handle of another signature is refused before any CUDA call",
          "[gpu][update][setters][reliability]") {
  auto gen = rng(108);
  Buffers b(gen);
  Stream s;
  Knobs k;
  gd::Graph g = plan(b, k);
  gd::Executable exec = g.instantiate();
  // 'k1' launches axpb(float*, const float*, float, float, int): 5 parameters, 28 bytes. A handle
  // made from a NodeRef is not checked against it (node_cast is); the setter checks the layout.
  const auto wrong = gd::KernelNode<float*, int>(g.node(0).ref());
  const std::string message =
      "graphdsl: kernel node 'k1' (#0): the setter's kernel arguments (2 parameters, 12 bytes) do not match the kernel "
      "the node launches (5 parameters, 28 bytes): a KernelNode handle of another signature (node_cast checks it; "
      "KernelNodeOf<decltype(kernel)> names it), or one from before set_kernel switched the node to another "
      "signature (use the handle it returned)";
  const std::uint64_t calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_MATCHES(exec.set_kernel_args(wrong, b.y1.get(), 1), gd::UsageError, message_is(message));
  CHECK(gd::debug::cuda_calls() == calls);
  run(exec, b, s);
  check(b, k, "after the refused setters");
}

TEST_CASE("set_host and set_event patch directly: no CUDA call for a callable, one per event, refusals change nothing",
          "[gpu][update][setters][host]") {
  Stream s;
  std::atomic<int> hits{0};
  auto e1 = gd::Event::create(), e2 = gd::Event::create();
  gd::Graph g("host and event");
  auto host = g.add_host([&hits] { hits += 1; }).name("cb");
  auto rec = g.add_event_record(e1).name("rec").after(host);
  auto wait = g.add_event_wait(e1).name("wait").after(rec);
  gd::Executable exec = g.instantiate();
  (void)e2.native_handle();  // created before: the event setters below make one call each
  exec.set_event(rec, e1);    // the first event setters of the process look the driver's entry
  exec.set_event(wait, e1);   // points up (one counted call each)

  auto calls = gd::debug::cuda_calls();
  exec.set_host(host, [&hits] { hits += 10; });
  CHECK(gd::debug::cuda_calls() == calls);
  exec.set_event(rec, e2);
  exec.set_event(wait, e2);
  CHECK(gd::debug::cuda_calls() - calls == 2);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(hits == 10);

  // Refused before any CUDA call, naming the node; the executable keeps what it had.
  calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_WITH(exec.set_host(host, std::function<void()>()),
                      has_substr("host node 'cb' (#0): the callable is empty"));
  REQUIRE_THROWS_WITH(exec.set_event(rec, gd::Event()), has_substr("event_record node 'rec' (#1): the Event is empty"));
  REQUIRE_THROWS_WITH(exec.set_event(wait, gd::Event()), has_substr("event_wait node 'wait' (#2): the Event is empty"));
  CHECK(gd::debug::cuda_calls() == calls);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(hits == 20);
  CHECK(cudaEventQuery(e2.native_handle()) == cudaSuccess);
}

}  // namespace update_test
