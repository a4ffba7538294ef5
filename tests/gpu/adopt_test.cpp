// Adopting captured graphs (graphdsl/adopt.hpp): a stream capture becomes a plan whose nodes are
// typed and named after their functions, which computes what the capture computes, updates from a
// re-capture at the nodes that changed, and says which node and which field differ between two
// captures. Values are read back from the device.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_support.hpp"
#include "graphdsl/adopt.hpp"

namespace adopt_test {
namespace {

using gpu_test::DeviceBuffer;
using gpu_test::launch_kernel;
using gpu_test::Stream;

constexpr int N = 256;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<float> iota(float first) {
  std::vector<float> v(N);
  for (int i = 0; i < N; ++i) v[i] = first + static_cast<float>(i);
  return v;
}

/// What may vary between two captures of the step (the ten mismatches of the explain() case).
struct Variant {
  const float* source = nullptr;  ///< axpb's x (null: the step's own x)
  float b = 5.0f;                 ///< triple_plus's b
  dim3 grid{(N + 127) / 128}, block{128};
  unsigned shared = 0;
  int n = N;  ///< axpb's count
  bool other_function = false;
  float* copy_to = nullptr;  ///< null: the step's z
  int copied = N;
  int fill = 0;
};

/// What the captured step does: y = 2 x + 1; y = 3 y + b (b a parameter); z = y; flags[0..7] = 0.
struct Step {
  DeviceBuffer<float> x{iota(1.0f)}, y{N}, z{N};
  DeviceBuffer<int> flags{8};

  void issue(cudaStream_t s, const Variant& v) {
    launch_kernel(v.other_function ? gpu_test::axmb : gpu_test::axpb, v.grid, v.block, v.shared, s, y.get(),
                  v.source != nullptr ? v.source : static_cast<const float*>(x.get()), 2.0f, 1.0f, v.n);
    launch_kernel(gpu_test::triple_plus, dim3((N + 127) / 128), dim3(128), 0, s, y.get(), v.b, N);
    GPU_REQUIRE(cudaMemcpyAsync(v.copy_to != nullptr ? v.copy_to : z.get(), y.get(), v.copied * sizeof(float),
                                cudaMemcpyDeviceToDevice, s));
    GPU_REQUIRE(cudaMemsetAsync(flags.get(), v.fill, 8 * sizeof(int), s));
  }
  void issue(cudaStream_t s, const float* source, float b) {
    Variant v;
    v.source = source;
    v.b = b;
    issue(s, v);
  }
  static std::vector<float> expected(const std::vector<float>& source, float b) {
    std::vector<float> v(N);
    for (int i = 0; i < N; ++i) v[i] = 3.0f * (2.0f * source[i] + 1.0f) + b;
    return v;
  }
};

}  // namespace

TEST_CASE(
    "adopt: a captured stream becomes a plan of typed nodes named after their kernels, which computes "
    "what the capture computes",
    "[gpu][adopt]") {
  Stream s;
  Step w;
  gd::Graph g = gd::adopt_capture(
      s.get(), [&](cudaStream_t st) { w.issue(st, w.x.get(), 5.0f); }, cudaStreamCaptureModeThreadLocal, "step");
  REQUIRE(g.node_count() == 4);
  CHECK(g.node(0).kind() == gd::NodeKind::kernel);
  CHECK(g.node(0).name() == "gpu_test::axpb");
  CHECK(g.node(1).name() == "gpu_test::triple_plus");
  CHECK(g.node(2).kind() == gd::NodeKind::memcpy);
  CHECK(g.node(2).name() == "memcpy");
  CHECK(g.node(3).kind() == gd::NodeKind::memset);
  CHECK(g.edge_count() == 3);
  const std::string dump = g.dump();
  CHECK(has(dump,
            "#1 kernel 'gpu_test::triple_plus': grid (2,1,1) block (128,1,1) shared 0 B, 3 args (16 B); after "
            "'gpu_test::axpb'"));
  g.validate();

  gd::Executable exec = g.instantiate();
  w.flags.upload(std::vector<int>(8, 7));
  exec.launch(s);
  exec.synchronize(s);
  CHECK(w.z.download() == Step::expected(iota(1.0f), 5.0f));
  CHECK(w.flags.download() == std::vector<int>(8, 0));
}

TEST_CASE(
    "adopt: a re-capture updates the executable at the one kernel whose argument moved, and explain() names "
    "the node and the argument",
    "[gpu][adopt][update]") {
  Stream s;
  Step w;
  DeviceBuffer<float> other(iota(100.0f));
  gd::Executable exec = gd::adopt_capture(s.get(), [&](cudaStream_t st) {
                          w.issue(st, w.x.get(), 5.0f);
                        }).instantiate();
  gd::Graph again = gd::adopt_capture(s.get(), [&](cudaStream_t st) { w.issue(st, other.get(), 5.0f); });

  const std::vector<gd::NodeChange> why = gd::explain(exec.plan(), again);
  REQUIRE(why.size() == 1);
  REQUIRE(why[0].node);
  CHECK(why[0].node->describe() == "kernel node 'gpu_test::axpb' (#0)");
  CHECK(has(why[0].what, "argument 1 (8 bytes): "));

  const gd::UpdateResult r = exec.update(again);
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{0});
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(w.z.download() == Step::expected(iota(100.0f), 5.0f));
}

TEST_CASE("adopt: explain() names the node and the field in each of ten kinds of mismatch between two captures",
          "[gpu][adopt][update]") {
  Stream s;
  Step w;
  DeviceBuffer<float> other(iota(2.0f));
  const gd::Graph base = gd::adopt_capture(s.get(), [&](cudaStream_t st) { w.issue(st, w.x.get(), 5.0f); });
  struct Case {
    const char* what;
    Variant v;
    const char* node;
    const char* field;
  };
  auto with = [](auto change) {
    Variant v;
    change(v);
    return v;
  };
  const std::vector<Case> cases = {
      {"pointer argument", with([&](Variant& v) { v.source = other.get(); }), "'gpu_test::axpb' (#0)",
       "argument 1 (8 bytes)"},
      {"float argument", with([](Variant& v) { v.b = 6.0f; }), "'gpu_test::triple_plus' (#1)",
       "argument 1 (4 bytes): 0x40a00000 -> 0x40c00000"},
      {"grid", with([](Variant& v) { v.grid = dim3(4); }), "'gpu_test::axpb' (#0)", "grid (2,1,1) -> (4,1,1)"},
      {"block", with([](Variant& v) { v.block = dim3(256); }), "'gpu_test::axpb' (#0)",
       "block (128,1,1) -> (256,1,1)"},
      {"shared memory", with([](Variant& v) { v.shared = 64; }), "'gpu_test::axpb' (#0)",
       "dynamic shared memory 0 B -> 64 B"},
      {"int argument", with([](Variant& v) { v.n = N - 1; }), "'gpu_test::axpb' (#0)",
       "argument 4 (4 bytes): 0x100 -> 0xff"},
      {"function", with([](Variant& v) { v.other_function = true; }), "(#0)",
       "function 'gpu_test::axpb' -> 'gpu_test::axmb'"},
      {"copy size", with([](Variant& v) { v.copied = N / 2; }), "memcpy node 'memcpy' (#2)",
       "'1024 x 1 x 1 bytes, device-to-device' -> '512 x 1 x 1 bytes"},
      {"copy destination", with([&](Variant& v) { v.copy_to = other.get(); }), "memcpy node 'memcpy' (#2)", " -> "},
      {"memset value", with([](Variant& v) { v.fill = 0x11; }), "memset node 'memset' (#3)", " -> "},
  };
  int named = 0;
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const gd::Graph other_capture = gd::adopt_capture(s.get(), [&](cudaStream_t st) { w.issue(st, c.v); });
    const std::vector<gd::NodeChange> why = gd::explain(base, other_capture);
    REQUIRE(why.size() == 1);
    REQUIRE(why[0].node);
    CAPTURE(why[0].node->describe(), why[0].what);
    const bool ok = has(why[0].node->describe(), c.node) && has(why[0].what, c.field);
    CHECK(ok);
    named += ok ? 1 : 0;
  }
  CHECK(named == 10);
}

TEST_CASE(
    "adopt: set_kernel_arg patches one argument of an adopted kernel by position; a typed handle of the same "
    "sizes takes set_kernel_args; wrong sizes and positions are refused by name",
    "[gpu][adopt][setters]") {
  Stream s;
  Step w;
  DeviceBuffer<float> other(iota(50.0f));
  gd::Graph g = gd::adopt_capture(s.get(), [&](cudaStream_t st) { w.issue(st, w.x.get(), 5.0f); });
  gd::Executable exec = g.instantiate();
  const gd::Node axpb = *g.find("gpu_test::axpb");
  exec.set_kernel_arg(axpb, 1, static_cast<const float*>(other.get()));
  exec.launch(s);
  exec.synchronize(s);
  CHECK(w.z.download() == Step::expected(iota(50.0f), 5.0f));

  const auto typed = gd::node_cast<gd::KernelNodeOf<decltype(gpu_test::triple_plus)>>(*g.find("gpu_test::triple_plus"));
  exec.set_kernel_args(typed, w.y.get(), 7.0f, N);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(w.z.download() == Step::expected(iota(50.0f), 7.0f));

  CHECK_THROWS_WITH(
      exec.set_kernel_arg(axpb, 2, 2.0),
      "graphdsl: set_kernel_arg: parameter 2 of kernel node 'gpu_test::axpb' (#0) is 4 bytes; the value given is 8 "
      "bytes");
  CHECK_THROWS_WITH(
      exec.set_kernel_arg(axpb, 5, 1),
      "graphdsl: set_kernel_arg: kernel node 'gpu_test::axpb' (#0) has 5 parameters; there is no parameter 5");
  CHECK_THROWS_AS(gd::node_cast<gd::KernelNodeOf<decltype(gpu_test::mixed_args)>>(axpb), gd::UsageError);
  exec.launch(s);  // the refusals changed nothing
  exec.synchronize(s);
  CHECK(w.z.download() == Step::expected(iota(50.0f), 7.0f));
}

TEST_CASE("adopt: host, event and child nodes are adopted and run; graph allocations are refused naming the node",
          "[gpu][adopt]") {
  Stream s;
  Step w;
  cudaEvent_t ev = nullptr;
  GPU_REQUIRE(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  static int calls = 0;
  calls = 0;
  auto work = [&](cudaStream_t st) {
    w.issue(st, w.x.get(), 1.0f);
    GPU_REQUIRE(cudaLaunchHostFunc(
        st, [](void* p) { ++*static_cast<int*>(p); }, &calls));
    GPU_REQUIRE(cudaEventRecordWithFlags(ev, st, cudaEventRecordExternal));
  };
  gd::Graph g = gd::adopt_capture(s.get(), work);
  REQUIRE(g.node_count() == 6);
  CHECK(g.node(4).kind() == gd::NodeKind::host);
  CHECK(g.node(5).kind() == gd::NodeKind::event_record);
  CHECK(g.node(5).name() == "event_record");
  // A second capture of the same work adopts as the same plan: the host function and its data, and
  // the borrowed event, compare as the same.
  const gd::UpdateResult same = gd::diff(g, gd::adopt_capture(s.get(), work));
  CHECK(same.status == gd::UpdateStatus::success);
  CHECK(same.changed.empty());

  gd::Graph outer("outer");
  outer.add_child(g).name("step");
  cudaGraph_t native = nullptr;
  {
    gd::Executable once = outer.instantiate();
    GPU_REQUIRE(cudaGraphClone(&native, once.native_graph()));
  }
  gd::Graph nested = gd::adopt(native, "nested");
  GPU_REQUIRE(cudaGraphDestroy(native));
  REQUIRE(nested.node_count() == 1);
  CHECK(nested.node(0).kind() == gd::NodeKind::child);
  gd::Executable exec = nested.instantiate();
  exec.launch(s);
  exec.synchronize(s);
  CHECK(calls == 1);
  CHECK(w.z.download() == Step::expected(iota(1.0f), 1.0f));
  GPU_REQUIRE(cudaEventSynchronize(ev));

  float* p = nullptr;
  try {
    (void)gd::adopt_capture(s.get(), [&](cudaStream_t st) {
      GPU_REQUIRE(cudaMallocAsync(reinterpret_cast<void**>(&p), 64, st));
      GPU_REQUIRE(cudaFreeAsync(p, st));
    });
    FAIL("adopt took a graph allocation");
  } catch (const gd::UsageError& e) {
    CHECK(has(e.what(),
              "adopt: native node #0 of graph 'adopted' (a memory allocation node) cannot be adopted: the "
              "driver fixed a graph allocation's address"));
  }
  // A failing capture leaves the stream usable.
  CHECK_THROWS_AS(gd::adopt_capture(s.get(), [](cudaStream_t) { throw std::runtime_error("no"); }), std::runtime_error);
  cudaStreamCaptureStatus status{};
  GPU_REQUIRE(cudaStreamIsCapturing(s.get(), &status));
  CHECK(status == cudaStreamCaptureStatusNone);
  GPU_REQUIRE(cudaEventDestroy(ev));
}

TEST_CASE("adopt grows linearly: a capture of 8n kernels adopts in at most 12x the time of n (plus 2 ms)",
          "[gpu][adopt][complexity]") {
  Stream s;
  DeviceBuffer<float> y(N), x(iota(1.0f));
  auto best_adopt_ms = [&](int n) {
    cudaGraph_t g = nullptr;
    GPU_REQUIRE(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < n; ++i) {
      launch_kernel(gpu_test::axpb, dim3(1), dim3(32), 0, s.get(), y.get(), static_cast<const float*>(x.get()), 1.0f,
                    static_cast<float>(i), 32);
    }
    GPU_REQUIRE(cudaStreamEndCapture(s.get(), &g));
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      const gd::Graph plan = gd::adopt(g);
      const auto t1 = std::chrono::steady_clock::now();
      REQUIRE(plan.node_count() == static_cast<std::size_t>(n));
      best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    GPU_REQUIRE(cudaGraphDestroy(g));
    return best;
  };
  const double small = best_adopt_ms(500), large = best_adopt_ms(4000);
  INFO("adopt: 500 kernels " << small << " ms, 4000 kernels " << large << " ms");
  CHECK(large <= 12.0 * small + 2.0);
}

}  // namespace adopt_test
