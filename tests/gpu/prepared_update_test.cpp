// GPU tests of Executable::prepare_update and update(PreparedUpdate): results follow each prepared
// template (kernels, memsets, copies, host nodes, conditional nodes), prepared templates alternate
// with each other, setters and update(plan); misuse is a UsageError naming the rule, a refusal is a
// value, and a template CUDA refuses leaves the executable as it was.
#include <atomic>

#include "gpu_support.hpp"
#include "update_buffers.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite's files in unity batches (tests/CMakeLists.txt).
namespace prepared_update_test {

namespace {

constexpr int N = 4096;

using Buffers = UpdateBuffers<N>;

struct Knobs {
  float a = 2.0f, b = 0.5f, c = -1.5f, d = 4.0f;
  int fill = 7;
  int host = 1;  // what the host node adds to `hits`
};

// 'k1' y1 = a*x+b ; 'k2' y2 = c*x+d ; 'fill' z = fill ; 'download' out <- y1 ; 'count' hits += host
gd::Graph plan(Buffers& b, const Knobs& k, std::atomic<int>& hits, const char* name = "prepared") {
  gd::Graph g(name);
  auto k1 = g.add_kernel(axpb, gd::cover(N), b.y1.get(), b.x.get(), k.a, k.b, N).name("k1");
  g.add_kernel(axpb, gd::cover(N), b.y2.get(), b.x.get(), k.c, k.d, N).name("k2");
  g.add_memset(b.z.get(), k.fill, N).name("fill");
  auto dl = g.add_memcpy(b.out.data(), b.y1.get(), N).name("download").after(k1);
  const int add = k.host;
  g.add_host([&hits, add] { hits += add; }).name("count").after(dl);
  return g;
}

/// Launches, then checks every output against `k` and that the host node added k.host.
void run_and_check(gd::Executable& exec, Buffers& b, cudaStream_t s, const Knobs& k, std::atomic<int>& hits,
                   const char* what) {
  INFO(what);
  b.poison();
  const int before = hits;
  exec.launch(s);
  exec.synchronize(s);
  CHECK(hits - before == k.host);
  const auto y1 = b.y1.download(), y2 = b.y2.download();
  const auto z = b.z.download();
  for (int i = 0; i < N; ++i) {
    const float want1 = k.a * b.hx[i] + k.b;
    if (y1[i] != want1 || y2[i] != k.c * b.hx[i] + k.d || z[i] != k.fill || b.out[i] != want1) {
      FAIL("element " << i << ": y1=" << y1[i] << " (want " << want1 << ") y2=" << y2[i] << " (want "
                      << k.c * b.hx[i] + k.d << ") z=" << z[i] << " (want " << k.fill << ") out=" << b.out[i]);
    }
  }
}

}  // namespace

TEST_CASE("update(prepared) applies kernels, memsets, copies and host nodes; two prepared templates alternate",
          "[gpu][update][prepared]") {
  auto gen = rng(301);
  Buffers b(gen);
  Stream s;
  std::atomic<int> hits{0};
  const Knobs base;
  gd::Executable exec = plan(b, base, hits).instantiate();
  run_and_check(exec, b, s, base, hits, "before any update");

  const Knobs ka{3.0f, 1.0f, 0.25f, -2.0f, 11, 10};
  const Knobs kb{-1.0f, 0.125f, 5.0f, 3.0f, -4, 100};
  gd::PreparedUpdate pa = exec.prepare_update(plan(b, ka, hits));
  gd::PreparedUpdate pb = exec.prepare_update(plan(b, kb, hits));
  REQUIRE(pa);
  REQUIRE(pa.ok());
  CHECK(pa.result().changed == std::vector<std::uint32_t>{0, 1, 2, 4});  // 'download' is the same
  CHECK(pa.result().strategy == gd::UpdateStrategy::none);
  run_and_check(exec, b, s, base, hits, "preparing changes nothing");

  for (int round = 0; round < 3; ++round) {
    for (const auto* p : {&pa, &pb}) {
      const auto calls = gd::debug::cuda_calls();
      const gd::UpdateResult r = exec.update(*p);
      CHECK(gd::debug::cuda_calls() - calls == 1);  // one cudaGraphExecUpdate, nothing else
      INFO(r.to_string());
      REQUIRE(r);
      CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
      CHECK(r.patched == 5);
      CHECK(r.changed.empty());
      run_and_check(exec, b, s, p == &pa ? ka : kb, hits, p == &pa ? "after update(pa)" : "after update(pb)");
    }
  }
  // The recorded plan is the template's: a diff against a plan built the same way finds only the
  // host node (host callables compare by identity: a new lambda).
  const gd::UpdateResult same = gd::diff(exec.plan(), plan(b, kb, hits));
  REQUIRE(same);
  CHECK(same.changed == std::vector<std::uint32_t>{4});

  // The prepared updates may go first: the executable keeps the template graph's host slots alive.
  pa = gd::PreparedUpdate();
  pb = gd::PreparedUpdate();
  run_and_check(exec, b, s, kb, hits, "after the prepared updates are destroyed");
}

TEST_CASE("setters and update(plan) between prepared updates", "[gpu][update][prepared][setters]") {
  auto gen = rng(302);
  Buffers b(gen);
  Stream s;
  std::atomic<int> hits{0};
  const Knobs base;
  gd::Graph first = plan(b, base, hits);
  gd::Executable exec = first.instantiate();
  const Knobs ka{3.0f, 1.0f, 0.25f, -2.0f, 11, 10};
  const gd::Graph ta = plan(b, ka, hits);
  gd::PreparedUpdate pa = exec.prepare_update(ta);
  REQUIRE(exec.update(pa));
  run_and_check(exec, b, s, ka, hits, "after update(pa)");

  // Setters through the template's handles (the last update's plan) and the first plan's.
  Knobs set = ka;
  set.a = 6.0f;
  set.fill = 42;
  set.host = 1000;
  exec.set_kernel_args(gd::KernelNode<float*, const float*, float, float, int>(ta.node(0).ref()), b.y1.get(),
                       static_cast<const float*>(b.x.get()), set.a, set.b, N);
  exec.set_memset(gd::MemsetNode(first.node(2).ref()), b.z.get(), set.fill, N);
  exec.set_host(gd::HostNode(first.node(4).ref()), [&hits] { hits += 1000; });
  run_and_check(exec, b, s, set, hits, "after the setters");

  // update(pa) again: every node back to the template, the host node's callable included.
  gd::UpdateResult r = exec.update(pa);
  REQUIRE(r);
  run_and_check(exec, b, s, ka, hits, "update(pa) after the setters");

  // update(plan) diffs against the template's parameters: only 'fill' changed.
  Knobs c = ka;
  c.fill = -9;
  r = exec.update(plan(b, c, hits));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{2, 4});  // 'fill', and the host node (a new lambda)
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  run_and_check(exec, b, s, c, hits, "update(plan) after update(pa)");

  // And back once more.
  REQUIRE(exec.update(pa));
  run_and_check(exec, b, s, ka, hits, "update(pa) after update(plan)");
}

TEST_CASE("prepared updates of a while loop and an if node with a changed condition default",
          "[gpu][update][prepared][conditional]") {
  DeviceBuffer<unsigned> counter(1);
  DeviceBuffer<int> marker(1);
  Stream s;
  auto build = [&](unsigned limit, unsigned if_default, int marker_value) {
    gd::Graph g("loop");
    const auto more = g.add_condition(1);
    const auto when = g.add_condition(if_default);
    auto reset = g.add_memset(counter.get(), 0u, 1).name("reset");
    auto clear = g.add_memset(marker.get(), 0, 1).name("clear");
    g.add_while(more,
                [&](gd::Graph& body) {
                  body.add_kernel(step_and_check, gd::Launch{1, 1}, counter.get(), limit, more).name("step");
                })
        .name("loop")
        .after(reset);
    g.add_if(when,
             [&](gd::Graph& then) {
               then.add_kernel(write_marker, gd::Launch{1, 1}, marker.get(), marker_value);
             })
        .name("if")
        .after(clear);
    return g;
  };
  gd::Executable exec = build(7, 1, 5).instantiate();
  auto launch = [&] {
    exec.launch(s);
    exec.synchronize(s);
    return std::make_pair(counter.download()[0], marker.download()[0]);
  };
  CHECK(launch() == std::make_pair(7u, 5));

  gd::PreparedUpdate p1 = exec.prepare_update(build(1000, 1, 9));
  gd::PreparedUpdate p2 = exec.prepare_update(build(3, 0, 9));  // the if condition's default is 0: skipped
  REQUIRE(p1.ok());
  REQUIRE(p2.ok());
  for (int round = 0; round < 3; ++round) {
    gd::UpdateResult r = exec.update(p1);
    INFO(r.to_string());
    REQUIRE(r);
    CHECK(launch() == std::make_pair(1000u, 9));
    r = exec.update(p2);
    REQUIRE(r);
    CHECK(launch() == std::make_pair(3u, 0));
  }
  // update(plan) afterwards goes on from the template's recorded plan.
  const gd::UpdateResult r = exec.update(build(3, 1, 9));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);  // a condition default changed
  CHECK(r.changed.empty());
  CHECK(launch() == std::make_pair(3u, 9));
  p1 = gd::PreparedUpdate();
  p2 = gd::PreparedUpdate();
  CHECK(launch() == std::make_pair(3u, 9));
}

TEST_CASE("misused prepared updates are usage errors naming the rule", "[gpu][update][prepared][misuse]") {
  auto gen = rng(303);
  Buffers b(gen);
  std::atomic<int> hits{0};
  gd::Executable exec = plan(b, {}, hits, "mine").instantiate();
  gd::Executable other = plan(b, {}, hits, "theirs").instantiate();

  gd::PreparedUpdate empty;
  CHECK_FALSE(empty);
  CHECK_THROWS_WITH((void)exec.update(empty),
                    "graphdsl: update(PreparedUpdate): the prepared update is empty (default-constructed or "
                    "moved-from); make one with Executable::prepare_update(plan)");
  CHECK_THROWS_WITH((void)empty.result(),
                    "graphdsl: PreparedUpdate::result(): the prepared update is empty (default-constructed or "
                    "moved-from)");

  Knobs k;
  k.a = 9.0f;
  gd::PreparedUpdate p = exec.prepare_update(plan(b, k, hits, "next"));
  gd::PreparedUpdate moved = std::move(p);
  CHECK_FALSE(p);  // NOLINT(bugprone-use-after-move): what a moved-from one does is the test
  CHECK_THROWS_AS((void)exec.update(p), gd::UsageError);
  CHECK_THROWS_WITH((void)other.update(moved),
                    "graphdsl: update(PreparedUpdate): the prepared update of template 'next' was made by another "
                    "executable (of graph 'mine'), not by this one (of graph 'theirs'); a prepared update applies "
                    "only to the executable that made it");
  // A moved executable keeps its prepared updates.
  gd::Executable taken = std::move(exec);
  CHECK(taken.update(moved));
  CHECK_THROWS_WITH((void)exec.update(moved), "graphdsl: use of an empty or moved-from Executable");
  CHECK_THROWS_WITH((void)exec.prepare_update(plan(b, k, hits)), "graphdsl: use of an empty or moved-from Executable");

  taken = gd::Executable();
  CHECK_THROWS_WITH((void)other.update(moved),
                    "graphdsl: update(PreparedUpdate): the prepared update of template 'next' was made by an "
                    "executable of graph 'mine' that has been destroyed, not by this one (of graph 'theirs'); a "
                    "prepared update applies only to the executable that made it");
}

TEST_CASE("a refused template is carried by the prepared update and returned with no CUDA call",
          "[gpu][update][prepared][refusal]") {
  auto gen = rng(304);
  Buffers b(gen);
  Stream s;
  std::atomic<int> hits{0};
  const Knobs base;
  gd::Executable exec = plan(b, base, hits).instantiate();

  // Another shape: refused by the diff.
  gd::Graph bigger = plan(b, base, hits);
  bigger.add_empty().name("extra");
  const auto calls = gd::debug::cuda_calls();
  const gd::PreparedUpdate shape = exec.prepare_update(bigger);
  CHECK(gd::debug::cuda_calls() == calls);
  REQUIRE(shape);
  CHECK_FALSE(shape.ok());
  CHECK(shape.result().status == gd::UpdateStatus::topology_changed);
  REQUIRE(shape.result().node);
  CHECK(shape.result().node->name == "extra");
  const gd::UpdateResult r = exec.update(shape);
  CHECK(gd::debug::cuda_calls() == calls);
  CHECK_FALSE(r);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == shape.result().reason);
  run_and_check(exec, b, s, base, hits, "after a refused prepared update");

  // A plan with graph allocations: cudaGraphExecUpdate would leave arguments pointing at the
  // template's allocations, so the whole-graph strategy refuses it.
  PinnedBuffer<float> out(N);
  auto build = [&](float a) {
    gd::Graph g("mem");
    auto [alloc, tmp] = g.add_mem_alloc<float>(N);
    alloc.name("tmp");
    auto k = g.add_kernel(axpb, gd::cover(N), tmp, static_cast<const float*>(b.x.get()), a, 1.0f, N)
                 .name("axpb")
                 .after(alloc);
    auto dl = g.add_memcpy(out.data(), tmp, N).name("download").after(k);
    g.add_mem_free(tmp).name("free").after(dl);
    return g;
  };
  gd::Executable mem = build(2.0f).instantiate();
  const auto before = gd::debug::cuda_calls();
  const gd::PreparedUpdate p = mem.prepare_update(build(3.0f));
  const gd::UpdateResult refused = mem.update(p);
  CHECK(gd::debug::cuda_calls() == before);
  CHECK_FALSE(refused);
  CHECK(refused.status == gd::UpdateStatus::not_supported);
  CHECK(refused.reason ==
        "graph 'mem' allocates graph memory, and cudaGraphExecUpdate would leave arguments pointing at the "
        "template's allocations; plans with graph allocations are updated node by node (UpdatePolicy::per_node)");
  mem.launch(s);
  mem.synchronize(s);
  for (int i = 0; i < N; ++i) REQUIRE(out[i] == 2.0f * b.hx[i] + 1.0f);
}

TEST_CASE("a prepared template CUDA refuses leaves the executable as it was", "[gpu][update][prepared][refusal]") {
  auto gen = rng(305);
  RowsCopy<N> c(gen);
  Stream s;
  gd::Executable exec = c.plan("rollback", 2.0f, c.dst_a).instantiate();
  const std::string dump = exec.plan().dump();
  const gd::PreparedUpdate p = exec.prepare_update(c.plan("rollback", 5.0f, c.dst_b));
  REQUIRE(p.ok());  // the host-side checks pass: only CUDA can tell
  const gd::UpdateResult r = exec.update(p);
  INFO(r.to_string());
  CHECK_FALSE(r);
  CHECK(r.status == gd::UpdateStatus::parameters_changed);
  CHECK(r.cuda_error == cudaErrorGraphExecUpdateFailure);
  REQUIRE(r.node);
  CHECK(r.node->name == "rows");
  CHECK(r.reason ==
        "cudaGraphExecUpdate refused the template: cudaErrorGraphExecUpdateFailure (parameters changed) at "
        "memcpy node 'rows' (#1)");
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(exec.plan().dump() == dump);  // the recorded plan did not move
  c.clear(c.dst_a);
  exec.launch(s);
  exec.synchronize(s);
  c.expect(c.dst_a, 2.0f);

  // A template CUDA takes afterwards still applies (same destination, new factor).
  const gd::PreparedUpdate fine = exec.prepare_update(c.plan("rollback", 5.0f, c.dst_a));
  REQUIRE(exec.update(fine));
  c.clear(c.dst_a);
  exec.launch(s);
  exec.synchronize(s);
  c.expect(c.dst_a, 5.0f);
}

}  // namespace prepared_update_test
