// GPU tests of the whole-graph update in place (exec/update.cpp, update_in_place): a plan of kernel,
// memset and memcpy nodes is updated whole-graph by patching the executable's own cudaGraph_t and
// one cudaGraphExecUpdate from it, with no template materialized. What setters, per-node updates and
// prepared updates changed since must survive it, and a refused one leaves the executable as it was.
#include <atomic>
#include <string>
#include <vector>

#include "gpu_support.hpp"
#include "update_buffers.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite's files in unity batches (tests/CMakeLists.txt).
namespace update_in_place_test {

namespace {

constexpr int M = 64;   // kernel nodes
constexpr int S = 256;  // elements per kernel node

/// Kernel j: y[j*S ..] = a[j] * x[j*S ..] + b; 'fill' z = fill; 'download' out <- y after every kernel.
struct Values {
  std::vector<float> a = std::vector<float>(M, 2.0f);
  float b = 0.5f;
  int fill = 7;
};

struct Bank {
  DeviceBuffer<float> x, y;
  DeviceBuffer<int> z;
  PinnedBuffer<float> out;
  std::vector<float> hx;
  explicit Bank(std::mt19937& gen) : x(random_floats(M * S, gen)), y(M * S), z(S), out(M * S), hx(x.download()) {}

  /// With `hits`, a host node after the copy adds `add` to it (a kind the update in place does not cover).
  gd::Graph plan(const Values& v, std::atomic<int>* hits = nullptr, int add = 0) {
    gd::Graph g("bank");
    std::vector<gd::Node> kernels;
    for (int j = 0; j < M; ++j) {
      kernels.push_back(g.add_kernel(axpb, gd::cover(S), y.get() + j * S, x.get() + j * S, v.a[j], v.b, S)
                            .name("k" + std::to_string(j)));
    }
    g.add_memset(z.get(), v.fill, S).name("fill");
    auto download = g.add_memcpy(out.data(), y.get(), M * S).name("download").after(kernels);
    if (hits != nullptr) g.add_host([hits, add] { *hits += add; }).name("count").after(download);
    return g;
  }

  /// Changes three nodes of `exec` (compiled from `base`) in the executable alone: typed setters on
  /// 'k3' and 'fill', and a per-node update of 'k5'; `v` follows.
  void change_by_setters(gd::Executable& exec, const gd::Graph& base, Values& v) {
    v.a[3] = 9.0f;
    exec.set_kernel_args(gd::KernelNode<float*, const float*, float, float, int>(base.node(3).ref()),
                         y.get() + 3 * S, x.get() + 3 * S, 9.0f, v.b, S);
    v.fill = 21;
    exec.set_memset(gd::MemsetNode(base.node(M).ref()), z.get(), 21, S);
    v.a[5] = 5.5f;
    REQUIRE(exec.update(plan(v), gd::UpdatePolicy::per_node).strategy == gd::UpdateStrategy::per_node);
  }

  /// Launches with the outputs poisoned and checks every output against `v`.
  void check(gd::Executable& exec, cudaStream_t s, const Values& v, const char* what) {
    INFO(what);
    GPU_REQUIRE(cudaMemset(z.get(), 0xff, z.bytes()));
    GPU_REQUIRE(cudaDeviceSynchronize());
    std::fill(out.data(), out.data() + M * S, -1.0f);
    exec.launch(s);
    exec.synchronize(s);
    const auto hz = z.download();
    for (int i = 0; i < M * S; ++i) {
      const float want = v.a[i / S] * hx[i] + v.b;
      if (out[i] != want) FAIL("element " << i << " (kernel k" << i / S << "): " << out[i] << ", want " << want);
    }
    for (int i = 0; i < S; ++i) {
      if (hz[i] != v.fill) FAIL("z[" << i << "] = " << hz[i] << ", want " << v.fill);
    }
    SUCCEED(what);
  }
};

}  // namespace

TEST_CASE("whole-graph updates patch the executable's own graph; automatic goes there for half of the nodes",
          "[gpu][update][in-place]") {
  auto gen = rng(131);
  Bank bank(gen);
  Stream s;
  Values v;
  gd::Executable exec = bank.plan(v).instantiate();
  bank.check(exec, s, v, "compiled");

  for (int j = 0; j < M; ++j) v.a[j] = 3.0f + static_cast<float>(j);
  gd::UpdateResult r = exec.update(bank.plan(v), gd::UpdatePolicy::whole_graph);
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  CHECK(r.patched == M);
  bank.check(exec, s, v, "every kernel changed, whole graph");

  // Automatic: 64 of 66 changed (half or more, 32 or more): whole graph, in place.
  for (int j = 0; j < M; ++j) v.a[j] = -static_cast<float>(j);
  r = exec.update(bank.plan(v));
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  CHECK(r.patched == M);
  bank.check(exec, s, v, "every kernel changed, automatic");

  // 32 of 66: still under half, per node.
  for (int j = 0; j < 32; ++j) v.a[2 * j] = 0.5f * static_cast<float>(j);
  r = exec.update(bank.plan(v));
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.patched == 32);
  bank.check(exec, s, v, "32 of 66 changed: per node");

  // Forced whole-graph with one node changed: setters on the executable's graph (for the nodes it is
  // behind on) and one cudaGraphExecUpdate, no template of 66 nodes made.
  v.a[34] = 0.125f;
  const std::uint64_t calls = gd::debug::cuda_calls();
  r = exec.update(bank.plan(v), gd::UpdatePolicy::whole_graph);
  const std::uint64_t made = gd::debug::cuda_calls() - calls;
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  CHECK(made == 32 + 1);  // the 32 changed per node since ('k34' among them): written first, then the update
  bank.check(exec, s, v, "one node, whole graph");
  const std::uint64_t again = gd::debug::cuda_calls();
  v.a[18] = 0.25f;
  r = exec.update(bank.plan(v), gd::UpdatePolicy::whole_graph);
  REQUIRE(r);
  CHECK(gd::debug::cuda_calls() - again == 2);  // the graph is behind nowhere: 'k18' and the update
  bank.check(exec, s, v, "the next one");
}

TEST_CASE("a whole-graph update in place keeps what setters, per-node and prepared updates changed since",
          "[gpu][update][in-place]") {
  auto gen = rng(132);
  Bank bank(gen);
  Stream s;
  Values v;
  const gd::Graph base = bank.plan(v);
  gd::Executable exec = base.instantiate();
  bank.change_by_setters(exec, base, v);
  v.a[7] = 7.5f;  // a prepared update (cudaGraphExecUpdate from the prepared template's graph)
  const gd::PreparedUpdate prepared = exec.prepare_update(bank.plan(v));
  REQUIRE(exec.update(prepared));
  bank.check(exec, s, v, "before the update in place");

  // Only 'k0' differs from the recorded plan; 'k3', 'k5', 'k7' and 'fill' must keep their values.
  v.a[0] = -2.0f;
  gd::UpdateResult r = exec.update(bank.plan(v), gd::UpdatePolicy::whole_graph);
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{0});
  bank.check(exec, s, v, "after the update in place");

  // Then a setter again and a whole-graph update of every kernel.
  v.a[40] = 4.0f;
  auto k40 = gd::KernelNode<float*, const float*, float, float, int>(base.node(40).ref());
  exec.set_kernel_args(k40, bank.y.get() + 40 * S, bank.x.get() + 40 * S, 4.0f, v.b, S);
  v.b = 1.5f;
  r = exec.update(bank.plan(v), gd::UpdatePolicy::whole_graph);
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  bank.check(exec, s, v, "every kernel's b changed");
}

TEST_CASE("a plan with a host node is updated whole-graph from a materialized template", "[gpu][update][in-place]") {
  auto gen = rng(134);
  Bank bank(gen);
  Stream s;
  Values v;
  std::atomic<int> hits{0};
  gd::Executable exec = bank.plan(v, &hits, 1).instantiate();
  bank.check(exec, s, v, "compiled");
  CHECK(hits.load() == 1);

  v.a[9] = 6.0f;
  const std::uint64_t calls = gd::debug::cuda_calls();
  const gd::UpdateResult r = exec.update(bank.plan(v, &hits, 10), gd::UpdatePolicy::whole_graph);
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  CHECK(r.changed == std::vector<std::uint32_t>{9, M + 2});                // 'k9' and the host node's new callable
  CHECK(gd::debug::cuda_calls() - calls > static_cast<std::uint64_t>(M));  // a template of 67 nodes made
  bank.check(exec, s, v, "after the materialized update");
  CHECK(hits.load() == 11);
}

TEST_CASE("a whole-graph update in place that CUDA refuses leaves the executable as it was",
          "[gpu][update][in-place]") {
  // cudaGraphExecUpdate refuses a 2-D copy's new destination (CUDA 13, H200: update_test.cpp). The
  // refused update patched the executable's graph; the next update must put it back.
  auto gen = rng(133);
  RowsCopy<4096> c(gen);
  Stream s;
  gd::Executable exec = c.plan("refused", 2.0f, c.dst_a).instantiate();
  auto run_expect = [&](float a, const char* what) {
    INFO(what);
    c.clear(c.dst_a);
    c.clear(c.dst_b);
    exec.launch(s);
    exec.synchronize(s);
    c.expect(c.dst_a, a);
    for (float v : c.read(c.dst_b)) REQUIRE(v == 0.0f);
  };

  gd::UpdateResult r = exec.update(c.plan("refused", 5.0f, c.dst_b), gd::UpdatePolicy::whole_graph);
  CAPTURE(r.to_string());
  CHECK_FALSE(r);
  CHECK(r.status == gd::UpdateStatus::parameters_changed);
  REQUIRE(r.node);
  CHECK(r.node->name == "rows");
  run_expect(2.0f, "old parameters after the refused update");

  r = exec.update(c.plan("refused", 3.0f, c.dst_a), gd::UpdatePolicy::whole_graph);
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  CHECK(r.changed == std::vector<std::uint32_t>{0});
  run_expect(3.0f, "the next update, whole graph, copies to the old destination");
}

TEST_CASE("native_graph() holds the parameters setters and per-node updates gave the executable",
          "[gpu][update][in-place][native]") {
  // Setters and per-node updates patch the executable alone; native_graph() writes what they changed
  // into the graph first, so the graph (its DOT, a clone, an instantiation of it) does the same work
  // as the executable. Fails without that step: k3's 'a' read 2 from the graph.
  auto gen = rng(133);
  Bank bank(gen);
  Stream s;
  Values v;
  const gd::Graph base = bank.plan(v);
  gd::Executable exec = base.instantiate();
  bank.change_by_setters(exec, base, v);

  const cudaGraph_t graph = exec.native_graph();
  auto graph_a = [&](int j) {
    cudaKernelNodeParams p{};
    GPU_REQUIRE(cudaGraphKernelNodeGetParams(exec.native_node(base.node(static_cast<std::uint32_t>(j))), &p));
    return *static_cast<const float*>(p.kernelParams[2]);
  };
  CHECK(graph_a(3) == 9.0f);
  CHECK(graph_a(5) == 5.5f);
  CHECK(graph_a(4) == 2.0f);
  cudaMemsetParams m{};
  GPU_REQUIRE(cudaGraphMemsetNodeGetParams(exec.native_node(base.node(M)), &m));
  CHECK(m.value == 21u);

  // An executable instantiated from the graph computes what this one does.
  cudaGraphExec_t raw = nullptr;
  GPU_REQUIRE(cudaGraphInstantiate(&raw, graph, 0));
  GPU_REQUIRE(cudaMemset(bank.z.get(), 0xff, bank.z.bytes()));
  GPU_REQUIRE(cudaDeviceSynchronize());
  std::fill(bank.out.data(), bank.out.data() + M * S, -1.0f);
  GPU_REQUIRE(cudaGraphLaunch(raw, s));
  GPU_REQUIRE(cudaStreamSynchronize(s));
  GPU_REQUIRE(cudaGraphExecDestroy(raw));
  const auto hz = bank.z.download();
  int wrong = 0;
  for (int i = 0; i < M * S; ++i) wrong += bank.out[i] != v.a[i / S] * bank.hx[i] + v.b;
  for (int i = 0; i < S; ++i) wrong += hz[i] != v.fill;
  CHECK(wrong == 0);
  bank.check(exec, s, v, "the executable itself, after native_graph()");
}

}  // namespace update_in_place_test
