// GPU tests of captured nodes (stream capture into the graph at the node's place), the capture
// fault cases of the misuse catalogue, and DeviceValue.
#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N and Buffers would collide with other files'.
namespace capture_test {

namespace {

constexpr int N = 8192;

/// Checks that the calling thread and the device are healthy after a failed capture.
void require_healthy_after_capture_failure(const gd::debug::LiveCounts& baseline) {
  CHECK(cudaGetLastError() == cudaSuccess);
  void* p = nullptr;
  GPU_REQUIRE(cudaMalloc(&p, 1024));  // fails with 900 if a capture was left open on this thread
  GPU_REQUIRE(cudaFree(p));
  require_counts_back_to(baseline);
}

}  // namespace

TEST_CASE("captured work runs between the node's predecessors and successors", "[gpu][capture]") {
  auto gen = rng(201);
  const auto hx = random_floats(N, gen);
  DeviceBuffer<float> x(N), y(N);
  PinnedBuffer<float> in(N), out(N);
  in.assign(hx);
  Stream s;

  gd::Graph g("captured");
  auto up = g.add_memcpy(x.get(), in.data(), N).name("upload");
  auto cap = g.add_captured([&](cudaStream_t cs) {
                launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), 3.0f, N);  // reads what 'upload' wrote
                cudaMemsetAsync(y.get(), 0, N * sizeof(float), cs);
                launch_kernel(add_into, (N + 255) / 256, 256, 0, cs, y.get(), x.get(), N);
              })
                 .name("scale and copy")
                 .after(up);
  auto twice =
      g.add_kernel(add_into, gd::cover(N), y.get(), static_cast<const float*>(x.get()), N).name("add").after(cap);
  g.add_memcpy(out.data(), y.get(), N).name("download").after(twice);
  CHECK(g.dump().find("#1 captured 'scale and copy': stream capture, mode thread-local; after 'upload'") !=
        std::string::npos);
  gd::Executable exec = g.instantiate();
  for (int launch = 0; launch < 3; ++launch) {
    for (int i = 0; i < N; ++i) in[i] = hx[i] + launch;
    exec.launch(s);
    exec.synchronize(s);
    for (int i = 0; i < N; ++i) REQUIRE(out[i] == 6.0f * (hx[i] + launch));
  }
  CHECK(cudaStreamQuery(s) == cudaSuccess);
}

TEST_CASE("an exception thrown while capturing ends the capture and leaves the thread usable",
          "[gpu][capture][fault]") {
  const auto baseline = settled_baseline();
  DeviceBuffer<float> x(N);
  {
    gd::Graph g("throws");
    auto first = g.add_memset(x.get(), 1.0f, N).name("fill");
    g.add_captured([&](cudaStream_t cs) {
       launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), 2.0f, N);
       throw std::runtime_error("the library call failed");
     })
        .name("bad")
        .after(first);
    REQUIRE_THROWS_MATCHES(g.instantiate(), std::runtime_error, message_is("the library call failed"));
  }
  require_healthy_after_capture_failure(baseline);
}

TEST_CASE("an allocation inside a thread-local capture is reported with the node and a remedy",
          "[gpu][capture][fault]") {
  const auto baseline = settled_baseline();
  DeviceBuffer<float> x(N);
  {
    gd::Graph g("allocates");
    cudaError_t inner = cudaSuccess;
    g.add_captured([&](cudaStream_t cs) {
       void* p = nullptr;
       inner = cudaMalloc(&p, 4096);  // not allowed while this thread captures
       launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), 2.0f, N);
     }).name("alloc");
    try {
      (void)g.instantiate();
      FAIL("instantiate() should have thrown");
    } catch (const gd::CudaError& e) {
      INFO(e.what());
      CHECK(inner != cudaSuccess);
      CHECK(e.code() == cudaErrorStreamCaptureInvalidated);
      CHECK(e.api() == "cudaStreamEndCapture");
      REQUIRE(e.node());
      CHECK(e.node()->name == "alloc");
      CHECK(std::string(e.what()).find("captured node 'alloc' (#0); the capture was invalidated inside the captured "
                                       "function") != std::string::npos);
    }
    (void)cudaGetLastError();  // the user's own failed cudaMalloc
  }
  require_healthy_after_capture_failure(baseline);
}

TEST_CASE("relaxed capture mode lets the captured function allocate", "[gpu][capture]") {
  DeviceBuffer<float> x(std::vector<float>(N, 1.5f));
  Stream s;
  void* scratch = nullptr;
  gd::Graph g("relaxed");
  g.add_captured(
       [&](cudaStream_t cs) {
         if (scratch == nullptr) (void)cudaMalloc(&scratch, 4096);  // not part of the graph
         launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), 2.0f, N);
       },
       cudaStreamCaptureModeRelaxed)
      .name("relaxed");
  gd::Executable exec = g.instantiate();
  CHECK(scratch != nullptr);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(x.download()[N - 1] == 3.0f);
  GPU_REQUIRE(cudaFree(scratch));
}

TEST_CASE("a fork not joined back, and a synchronization, fail the capture with the node named",
          "[gpu][capture][fault]") {
  const auto baseline = settled_baseline();
  DeviceBuffer<float> x(N);
  Stream side;
  cudaEvent_t fork = nullptr;
  GPU_REQUIRE(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  {
    gd::Graph g("unjoined");
    g.add_captured([&](cudaStream_t cs) {
       cudaEventRecord(fork, cs);
       cudaStreamWaitEvent(side, fork, 0);
       launch_kernel(scale_by, (N + 255) / 256, 256, 0, side, x.get(), 2.0f, N);  // never joined back
     }).name("fork");
    try {
      (void)g.instantiate();
      FAIL("instantiate() should have thrown");
    } catch (const gd::CudaError& e) {
      INFO(e.what());
      CHECK(e.code() == cudaErrorStreamCaptureUnjoined);
      CHECK(std::string(e.what()).find("captured node 'fork' (#0); the captured function forked work to another "
                                       "stream and did not join it back") != std::string::npos);
    }
  }
  {
    gd::Graph g("syncs");
    g.add_captured([&](cudaStream_t cs) {
       launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), 2.0f, N);
       (void)cudaStreamSynchronize(cs);  // invalidates the capture
     }).name("sync");
    REQUIRE_THROWS_AS(g.instantiate(), gd::CudaError);
    (void)cudaGetLastError();
  }
  GPU_REQUIRE(cudaEventDestroy(fork));
  CHECK(cudaStreamQuery(side) == cudaSuccess);  // the side stream is usable again
  require_healthy_after_capture_failure(baseline);
}

// What graphdsl's cleanup relies on, in raw CUDA: a cudaStreamBeginCaptureToGraph capture that fails
// at its end (invalidated by an unsafe call, or a fork left unjoined) destroys the graph it captured
// into, nodes added before the capture included. Destroying that handle again is refused and
// corrupted the heap (double free under compute-sanitizer), so graphdsl's owner of the graph only
// lets go of it (native/native.hpp, graph_destroyed_by_cuda).
TEST_CASE("CUDA destroys the graph of a capture into an existing graph that fails at its end",
          "[gpu][capture][fault]") {
  DeviceBuffer<float> x(N);
  Stream s;
  Stream side;
  cudaEvent_t fork = nullptr;
  GPU_REQUIRE(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  for (const bool unjoined : {false, true}) {
    INFO((unjoined ? "a fork left unjoined" : "cudaMalloc while capturing in global mode"));
    cudaGraph_t graph = nullptr;
    GPU_REQUIRE(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t before = nullptr;
    GPU_REQUIRE(cudaGraphAddEmptyNode(&before, graph, nullptr, 0));
    GPU_REQUIRE(cudaStreamBeginCaptureToGraph(s, graph, &before, nullptr, 1, cudaStreamCaptureModeGlobal));
    launch_kernel(scale_by, (N + 255) / 256, 256, 0, s, x.get(), 2.0f, N);
    void* stray = nullptr;
    if (unjoined) {
      GPU_REQUIRE(cudaEventRecord(fork, s));
      GPU_REQUIRE(cudaStreamWaitEvent(side, fork, 0));
      launch_kernel(scale_by, (N + 255) / 256, 256, 0, side, x.get(), 2.0f, N);
    } else {
      CHECK(cudaMalloc(&stray, 256) == cudaErrorStreamCaptureUnsupported);
    }
    cudaGraph_t ended = graph;
    CHECK(cudaStreamEndCapture(s, &ended) ==
          (unjoined ? cudaErrorStreamCaptureUnjoined : cudaErrorStreamCaptureInvalidated));
    CHECK(ended == nullptr);
    std::size_t count = 12345;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count) == cudaErrorInvalidValue);  // no longer a graph
    CHECK(count == 12345);
    (void)cudaGetLastError();
    CHECK(stray == nullptr);
  }
  GPU_REQUIRE(cudaEventDestroy(fork));
  GPU_REQUIRE(cudaStreamSynchronize(side));
}

TEST_CASE("capture() makes a plan that compiles alone or embeds as a child", "[gpu][capture]") {
  auto gen = rng(202);
  const auto hx = random_floats(N, gen);
  DeviceBuffer<float> x(hx);
  Stream s;
  const gd::Graph captured = gd::capture([&](cudaStream_t cs) {
    launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), 2.0f, N);
  });
  CHECK(captured.node_count() == 1);
  gd::Executable alone = captured.instantiate();
  alone.launch(s);
  alone.synchronize(s);
  gd::Graph outer("outer");
  auto a = outer.add_child(captured).name("twice");
  outer.add_child(captured).name("again").after(a);
  gd::Executable exec = outer.instantiate();
  exec.launch(s);
  exec.synchronize(s);
  const auto got = x.download();
  for (int i = 0; i < N; ++i) REQUIRE(got[i] == 8.0f * hx[i]);
}

TEST_CASE("a new captured function is applied by a whole-graph update", "[gpu][capture][update]") {
  auto gen = rng(203);
  const auto hx = random_floats(N, gen);
  DeviceBuffer<float> x(N), y(hx);
  Stream s;
  auto build = [&](float factor) {
    gd::Graph g("cap");
    auto reset = g.add_memcpy(x.get(), static_cast<const float*>(y.get()), N).name("reset");
    g.add_captured([&x, factor](cudaStream_t cs) {
       launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), factor, N);
     })
        .name("scale")
        .after(reset);
    return g;
  };
  gd::Executable exec = build(2.0f).instantiate();
  const gd::UpdateResult r = exec.update(build(-4.0f));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::whole_graph);
  CHECK(r.changed == std::vector<std::uint32_t>{1});
  exec.launch(s);
  exec.synchronize(s);
  const auto got = x.download();
  for (int i = 0; i < N; ++i) REQUIRE(got[i] == -4.0f * hx[i]);
  const gd::UpdateResult forced = exec.update(build(1.0f), gd::UpdatePolicy::per_node);
  CHECK(forced.status == gd::UpdateStatus::not_supported);
}

TEST_CASE("DeviceValue changes a scalar input between launches without an update", "[gpu][device_value]") {
  auto gen = rng(204);
  const auto hx = random_floats(N, gen);
  DeviceBuffer<float> x(N), src(hx);
  Stream s;
  gd::DeviceValue<float> factor(2.0f, s);
  PinnedBuffer<float> host_factor(1);
  gd::Graph g("value");
  auto reset = g.add_memcpy(x.get(), static_cast<const float*>(src.get()), N).name("reset");
  auto k = g.add_kernel(scale_by_value, gd::cover(N), x.get(), static_cast<const float*>(factor.get()), N)
               .name("scale")
               .after(reset);
  gd::Executable exec = g.instantiate();
  for (float f : {2.0f, -0.5f, 8.0f}) {
    factor.set(f, s);
    exec.launch(s);
    const auto got = [&] {
      exec.synchronize(s);
      return x.download();
    }();
    for (int i = 0; i < N; ++i) REQUIRE(got[i] == f * hx[i]);
    CHECK(factor.read(s) == f);
  }
  // Written by a memcpy node of the graph instead.
  gd::Graph h("value2");
  auto load = h.add_memcpy(factor.get(), host_factor.data(), 1).name("load");
  auto reset2 = h.add_memcpy(x.get(), static_cast<const float*>(src.get()), N).name("reset");
  h.add_kernel(scale_by_value, gd::cover(N), x.get(), static_cast<const float*>(factor.get()), N).after(load, reset2);
  gd::Executable e2 = h.instantiate();
  host_factor[0] = 0.25f;
  e2.launch(s);
  e2.synchronize(s);
  CHECK(x.download()[7] == 0.25f * hx[7]);
  CHECK(factor.read(s) == 0.25f);
  (void)k;
}

TEST_CASE("destroying and compiling executables during a global-mode capture leaves the capture intact",
          "[gpu][capture][fault]") {
  // Raw CUDA: cudaGraphExecDestroy and cudaGraphInstantiate during a global-mode capture return
  // cudaErrorStreamCaptureUnsupported and invalidate the capture (misuse catalogue row 98), as when
  // a destructor runs in the middle of someone's capture. graphdsl makes these calls in relaxed mode.
  auto gen = rng(205);
  const auto hx = random_floats(N, gen);
  DeviceBuffer<float> x(hx), y(hx);
  Stream s, other;
  gd::Graph g("bystander");
  g.add_kernel(scale_by, gd::cover(N), y.get(), 2.0f, N).name("scale y");
  auto old = std::make_unique<gd::Executable>(g.instantiate());

  GPU_REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  launch_kernel(scale_by, (N + 255) / 256, 256, 0, s, x.get(), 3.0f, N);
  old.reset();                             // an executable destroyed mid-capture
  gd::Executable fresh = g.instantiate();  // and one compiled mid-capture
  launch_kernel(scale_by, (N + 255) / 256, 256, 0, s, x.get(), 5.0f, N);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  GPU_REQUIRE(cudaStreamIsCapturing(s, &status));
  CHECK(status == cudaStreamCaptureStatusActive);
  cudaGraph_t captured = nullptr;
  GPU_REQUIRE(cudaStreamEndCapture(s, &captured));
  REQUIRE(captured != nullptr);

  cudaGraphExec_t exec = nullptr;
  GPU_REQUIRE(cudaGraphInstantiate(&exec, captured, 0));
  GPU_REQUIRE(cudaGraphLaunch(exec, s));
  fresh.launch(other);
  GPU_REQUIRE(cudaStreamSynchronize(s));
  fresh.synchronize(other);
  const auto gx = x.download(), gy = y.download();
  for (int i = 0; i < N; ++i) {
    REQUIRE(gx[i] == 15.0f * hx[i]);
    REQUIRE(gy[i] == 2.0f * hx[i]);
  }
  GPU_REQUIRE(cudaGraphExecDestroy(exec));
  GPU_REQUIRE(cudaGraphDestroy(captured));
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a captured function may compile another graph while its own graph is being compiled",
          "[gpu][capture][compile]") {
  // The compile under way keeps its node order and condition scopes in lists its thread reuses
  // between compiles; the compile inside the captured function must get lists of its own, or the
  // outer compile would go on building from the inner plan's order.
  auto gen = rng(207);
  const auto hx = random_floats(N, gen);
  DeviceBuffer<float> x(hx), y(hx), z(hx);
  Stream s;
  std::optional<gd::Executable> inner;
  gd::Graph g("outer");
  auto cap = g.add_captured(
                  [&](cudaStream_t cs) {
                    gd::Graph h("inner");
                    gd::Node last = h.add_kernel(scale_by, gd::cover(N), z.get(), 2.0f, N);
                    for (int k = 1; k < 5; ++k) last = h.add_kernel(scale_by, gd::cover(N), z.get(), 2.0f, N).after(last);
                    inner.emplace(std::move(h).instantiate());
                    launch_kernel(scale_by, (N + 255) / 256, 256, 0, cs, x.get(), 3.0f, N);
                  },
                  cudaStreamCaptureModeRelaxed)
                 .name("compiles another graph");
  gd::Node prev = cap;
  for (int k = 0; k < 3; ++k) prev = g.add_kernel(scale_by, gd::cover(N), y.get(), 2.0f, N).after(prev);
  gd::Executable exec = g.instantiate();
  REQUIRE(inner.has_value());
  exec.launch(s);
  inner->launch(s);
  exec.synchronize(s);
  const auto gx = x.download(), gy = y.download(), gz = z.download();
  for (int i = 0; i < N; ++i) {
    REQUIRE(gx[i] == 3.0f * hx[i]);
    REQUIRE(gy[i] == 8.0f * hx[i]);
    REQUIRE(gz[i] == 32.0f * hx[i]);
  }
}

}  // namespace capture_test
