// GPU tests of graph memory: buffers allocated and freed by the graph, the relaunch rule without
// auto-free, the memory report, and per-node updates of nodes that use a buffer.
#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N and Buffers would collide with other files'.
namespace graph_memory_test {

namespace {

constexpr int N = 16384;

}  // namespace

TEST_CASE("a buffer allocated and freed by the graph carries data between its nodes", "[gpu][memory]") {
  auto gen = rng(301);
  const auto hx = random_floats(N, gen);
  DeviceBuffer<float> x(hx);
  PinnedBuffer<float> out(N);
  Stream s;
  auto build = [&](float a) {
    gd::Graph g("mem");
    auto [alloc, tmp] = g.add_mem_alloc<float>(N);
    alloc.name("tmp");
    auto fill = g.add_memset(tmp, 0.5f, N).name("fill").after(alloc);
    auto add = g.add_kernel(add_into, gd::cover(N), tmp, static_cast<const float*>(x.get()), N).name("add").after(fill);
    auto k = g.add_kernel(axpb, gd::cover(N), tmp, tmp, a, 1.0f, N).name("axpb").after(add);  // tmp = a*tmp+1
    auto dl = g.add_memcpy(out.data(), tmp, N).name("download").after(k);
    g.add_mem_free(tmp).name("free").after(dl);
    return g;
  };
  gd::Executable exec = build(3.0f).instantiate();
  for (int launch = 0; launch < 4; ++launch) {  // freed in the graph: relaunching needs no auto-free
    std::fill(out.data(), out.data() + N, 0.0f);
    exec.launch(s);
    exec.synchronize(s);
    for (int i = 0; i < N; ++i) REQUIRE(out[i] == 3.0f * (hx[i] + 0.5f) + 1.0f);
  }
  const gd::GraphMemoryReport report = exec.memory_report();
  CHECK(report.plan_bytes == N * sizeof(float));
  CHECK(report.reserved_high >= report.plan_bytes);

  // A per-node update of a kernel that takes the buffer keeps the executable's address.
  const gd::UpdateResult r = exec.update(build(-2.0f));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  exec.launch(s);
  exec.synchronize(s);
  for (int i = 0; i < N; ++i) REQUIRE(out[i] == -2.0f * (hx[i] + 0.5f) + 1.0f);
  const gd::UpdateResult whole = exec.update(build(5.0f), gd::UpdatePolicy::whole_graph);
  CHECK(whole.status == gd::UpdateStatus::not_supported);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(out[0] == -2.0f * (hx[0] + 0.5f) + 1.0f);  // the refused update changed nothing
}

TEST_CASE("a buffer never freed: the second launch needs auto_free_on_launch", "[gpu][memory]") {
  const auto baseline = settled_baseline();
  Stream s;
  {
    gd::Graph g("keeps");
    auto [alloc, kept] = g.add_mem_alloc<int>(N);
    alloc.name("kept");
    g.add_memset(kept, 7, N).name("fill").after(alloc);

    gd::Executable plain = g.instantiate();
    plain.launch(s);
    plain.synchronize(s);
    int* address = plain.address(kept);
    std::vector<int> got(N);
    GPU_REQUIRE(cudaMemcpy(got.data(), address, N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(got[N - 1] == 7);
    REQUIRE_THROWS_MATCHES(
        plain.launch(s), gd::UsageError,
        message_is("graphdsl: graph 'keeps' allocates memory in mem_alloc node 'kept' (#0) and never frees it, and was "
                   "compiled without auto_free_on_launch: launching it again while the previous launch's allocation "
                   "is live fails (cudaErrorInvalidValue); free the buffer in the plan with add_mem_free, free the "
                   "last launch's allocations with Executable::free_graph_memory(stream) (or cudaFreeAsync), or "
                   "compile with InstantiateOptions::auto_free_on_launch()"));
    CHECK(cudaGetLastError() == cudaSuccess);
    // Freed outside the graph, as CUDA allows: the relaunch is not refused and runs.
    GPU_REQUIRE(cudaFreeAsync(address, s));
    plain.launch(s);
    plain.synchronize(s);
    GPU_REQUIRE(cudaMemcpy(got.data(), plain.address(kept), N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(got[0] == 7);
    GPU_REQUIRE(cudaFreeAsync(plain.address(kept), s));  // the user frees the unfreed allocation before dropping it
    GPU_REQUIRE(cudaStreamSynchronize(s));
  }
  {
    gd::Graph g("keeps");
    auto [alloc, kept] = g.add_mem_alloc<int>(N);
    g.add_memset(kept, 9, N).after(alloc);
    gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.auto_free_on_launch());
    for (int launch = 0; launch < 3; ++launch) {
      exec.launch(s);
      exec.synchronize(s);
    }
    std::vector<int> got(N);
    GPU_REQUIRE(cudaMemcpy(got.data(), exec.address(kept), N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(got[0] == 9);
    const gd::GraphMemoryReport report = exec.memory_report();
    CHECK(report.used_current >= N * sizeof(int));
    GPU_REQUIRE(cudaFreeAsync(exec.address(kept), s));
    GPU_REQUIRE(cudaStreamSynchronize(s));
  }
  GPU_REQUIRE(cudaDeviceSynchronize());
  gd::trim_graph_memory();
  std::uint64_t used = 1;
  GPU_REQUIRE(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CHECK(used == 0);
  require_counts_back_to(baseline);
}

TEST_CASE("reset_graph_memory_high_marks brings the high-water marks down to the current amounts", "[gpu][memory]") {
  Stream s;
  gd::Graph g("peak");
  auto [alloc, tmp] = g.add_mem_alloc<float>(4 * N);
  alloc.name("tmp");
  auto fill = g.add_memset(tmp, 1.5f, 4 * N).name("fill").after(alloc);
  g.add_mem_free(tmp).name("free").after(fill);
  gd::Executable exec = g.instantiate();
  exec.launch(s);
  exec.synchronize(s);
  GPU_REQUIRE(cudaDeviceSynchronize());
  const gd::GraphMemoryReport before = exec.memory_report();
  INFO("used " << before.used_current << " / high " << before.used_high << ", reserved " << before.reserved_current
               << " / high " << before.reserved_high);
  // The launch allocated and freed 4N floats: the mark remembers them (other executables of the
  // process may hold graph memory too: the current use need not be below the mark).
  REQUIRE(before.used_high >= 4 * N * sizeof(float));
  gd::reset_graph_memory_high_marks();
  const gd::GraphMemoryReport after = exec.memory_report();
  CHECK(after.used_high == after.used_current);
  CHECK(after.used_high <= before.used_high);
  CHECK(after.reserved_high == after.reserved_current);
  // The next launch raises the mark again.
  exec.launch(s);
  exec.synchronize(s);
  CHECK(exec.memory_report().used_high >= 4 * N * sizeof(float));
  gd::reset_graph_memory_high_marks(0);  // by device number
  const gd::GraphMemoryReport again = exec.memory_report();
  CHECK(again.used_high == again.used_current);
  CHECK(cudaGetLastError() == cudaSuccess);
}

}  // namespace graph_memory_test
