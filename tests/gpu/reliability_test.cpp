// tests/gpu/reliability_test.cpp — setters that apply or refuse every argument kind, executables
// that keep host closures and events alive, destroys deferred off CUDA callback threads, captured
// allocations across relaunches, and the strong guarantee of setters and update(): every case here
// failed (wrong result, crash, leak or an unchanged refusal) before its fix. Its kernels (rel_*)
// are in tests/gpu/kernels.cu.
#include "gpu_support.hpp"

using namespace gpu_test;


// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N and Buffers would collide with other files'.
namespace reliability_test {

namespace {
constexpr int N = 1024;

/// alloc buf -> fill(buf, v) -> copy buf to d_out -> free buf.
struct BufferPlan {
  gd::Graph g{"buffer_plan"};
  gd::KernelNode<float*, float, int> fill;
  gd::MemsetNode set;
  gd::GraphBuffer<float> buf;
  BufferPlan(float* d_out, float v) {
    auto a = g.add_mem_alloc<float>(N);
    buf = a.buffer;
    set = g.add_memset(buf, 0.0f, N).name("zero").after(a.node);
    fill = g.add_kernel(rel_fill, gd::cover(N), buf, v, N).name("fill").after(set);
    auto out = g.add_memcpy(d_out, buf, N).name("out").after(fill);
    g.add_mem_free(buf).after(out);
  }
};

std::vector<float> launch_and_read(gd::Executable& exec, DeviceBuffer<float>& d) {
  exec.launch();
  exec.synchronize();
  return d.download();
}

void require_plan_unchanged(const gd::Executable& exec, const std::string& dump, std::uint64_t fp) {
  CHECK(exec.plan().dump() == dump);
  CHECK(exec.plan().fingerprint() == fp);
}
}  // namespace

TEST_CASE("setters keep a kernel's GraphBuffer argument a buffer: a raw pointer is refused, the buffer applies",
          "[gpu][reliability][setter]") {
  DeviceBuffer<float> d_out(N), d_user(N);
  BufferPlan p(d_out.get(), 2.0f);
  gd::Executable exec = p.g.instantiate();
  const std::string dump = exec.plan().dump();
  const std::uint64_t fp = exec.plan().fingerprint();
  // Before the fix: accepted, and the kernel kept writing the graph buffer (the pointer was ignored).
  REQUIRE_THROWS_WITH(exec.set_kernel_args(p.fill, d_user.get(), 5.0f, N),
                      has_substr("kernel node 'fill' (#2)") && has_substr("argument 0") &&
                          has_substr("GraphBuffer"));
  require_plan_unchanged(exec, dump, fp);
  require_equal(launch_and_read(exec, d_out), std::vector<float>(N, 2.0f), "old value after the refusal");
  exec.set_kernel_args(p.fill, p.buf, 7.0f, N);  // the same buffer: applied, with the executable's address
  require_equal(launch_and_read(exec, d_out), std::vector<float>(N, 7.0f), "new value through the buffer");
}

TEST_CASE("setters refuse a GraphBuffer for a kernel's raw pointer (it reached the kernel as null)",
          "[gpu][reliability][setter]") {
  DeviceBuffer<float> d_x(N), d_out(N);
  gd::Graph g("raw_plan");
  auto k = g.add_kernel(rel_fill, gd::cover(N), d_x.get(), 1.0f, N).name("fill");
  gd::Executable exec = g.instantiate();
  BufferPlan other(d_out.get(), 0.0f);  // a buffer of another plan
  REQUIRE_THROWS_WITH(exec.set_kernel_args(k, other.buf, 3.0f, N),
                      has_substr("argument 0") && has_substr("does not allocate"));
  exec.launch();
  exec.synchronize();  // before the fix: illegal address, context lost
  require_equal(d_x.download(), std::vector<float>(N, 1.0f));
  require_device_healthy();
}

TEST_CASE("set_memset and set_memcpy on nodes using a GraphBuffer: raw pointers refused, the buffer applies",
          "[gpu][reliability][setter]") {
  DeviceBuffer<float> d_out(N), d_user(N);
  BufferPlan p(d_out.get(), 2.0f);
  gd::Executable exec = p.g.instantiate();
  REQUIRE_THROWS_WITH(exec.set_memset(p.set, d_user.get(), 1.0f, N),
                      has_substr("memset node 'zero'") && has_substr("the destination"));
  exec.set_memset(p.set, p.buf, 4.0f, N);  // applied
  require_equal(launch_and_read(exec, d_out), std::vector<float>(N, 2.0f), "fill runs after the memset");
}

TEST_CASE("a setter's Condition must be one of the executable's plan", "[gpu][reliability][setter][conditional]") {
  DeviceBuffer<int> d_flag(1);
  gd::Graph g("cond_plan");
  auto c = g.add_condition(0);
  auto k = g.add_kernel(rel_set_flag, gd::Launch{1, 1}, c, d_flag.get()).name("flag");
  g.add_conditional(gd::ConditionalType::if_then, c, 1, [](unsigned, gd::Graph& body) { body.add_empty(); }).after(k);
  gd::Executable exec = g.instantiate();
  gd::Graph stranger("stranger");
  const gd::Condition foreign = stranger.add_condition(0);
  REQUIRE_THROWS_WITH(exec.set_kernel_args(k, foreign, d_flag.get()), has_substr("does not declare"));
  exec.set_kernel_args(k, c, d_flag.get());  // the plan's own condition: applied
  exec.launch();
  exec.synchronize();
}

TEST_CASE("an Event given to set_event outlives the executable while a launch using it is in flight",
          "[gpu][reliability][event][lifetime]") {
  const gd::debug::LiveCounts base = settled_baseline();
  Stream s;
  {
    gd::Event first = gd::Event::create();
    gd::Graph g("event_plan");
    auto spin = g.add_kernel(rel_spin, gd::Launch{1, 1}, 100).name("spin");
    auto rec = g.add_event_record(first).name("rec").after(spin);
    gd::Executable exec = g.instantiate();
    {
      gd::Event second = gd::Event::create();
      exec.set_event(rec, second);
    }  // the recorded plan holds `second` now
    exec.launch(s);
  }  // before the fix: `second` was destroyed here, with the launch recording it still in flight
  CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
  (void)cudaGetLastError();
  CHECK(gd::debug::live_counts().events == base.events + 2);
  GPU_REQUIRE(cudaStreamSynchronize(s));
  require_counts_back_to(base);
}

TEST_CASE("executables destroyed inside their own host callback release their graph memory",
          "[gpu][reliability][lifetime][host]") {
  const gd::debug::LiveCounts base = settled_baseline();
  Stream s;
  GPU_REQUIRE(cudaDeviceSynchronize());
  // Graph memory this process holds on the device (cudaMemGetInfo would also count other processes'
  // contexts: on a two-GPU machine under ctest -j it moved by 0.8-2.3 GB while this case ran).
  int device = 0;
  GPU_REQUIRE(cudaGetDevice(&device));
  gd::trim_graph_memory();
  std::uint64_t reserved_before = 0;
  GPU_REQUIRE(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemCurrent, &reserved_before));
  for (int i = 0; i < 100; ++i) {
    auto* exec = new gd::Executable;
    gd::Graph g("self_destroying");
    auto a = g.add_mem_alloc<float>(256 * 1024);  // 1 MiB of graph memory
    auto set = g.add_memset(a.buffer, 1.0f, 256 * 1024).after(a.node);
    auto f = g.add_mem_free(a.buffer).after(set);
    g.add_host([exec] { delete exec; }).after(f);
    *exec = g.instantiate();
    exec->launch(s);
    GPU_REQUIRE(cudaStreamSynchronize(s));
  }
  // Before the fix: cudaGraphExecDestroy was refused on the callback thread. The live counters now
  // drop only when CUDA destroyed the object, so they show a refused destroy that was never retried.
  require_counts_back_to(base);
  // An executable destroyed while its launch was still completing gives its memory back when CUDA
  // has finished that launch: synchronize, then trim.
  GPU_REQUIRE(cudaDeviceSynchronize());
  gd::trim_graph_memory();
  std::uint64_t reserved_after = 0;
  GPU_REQUIRE(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemCurrent, &reserved_after));
  CHECK(reserved_after <= reserved_before + 3u * 1024u * 1024u);  // 100 executables of 1 MiB each, gone
}

TEST_CASE("an executable deleted inside its own host callback is destroyed only after the callback returns",
          "[gpu][reliability][lifetime][host]") {
  // Raw CUDA crashed (SIGSEGV) when another thread ran cudaGraphExecDestroy while the executable's
  // own host callback still ran (docs/reliability.md, section 11); graphdsl's release thread did
  // exactly that, and the case above crashed in 9 of 19 runs of the suite on a loaded CPU.
  const gd::debug::LiveCounts base = settled_baseline();
  Stream s;
  std::atomic<int> destroyed_while_running{0};
  for (int i = 0; i < 20; ++i) {
    auto* exec = new gd::Executable;
    gd::Graph g("deleted_in_callback");
    g.add_host([exec, &destroyed_while_running, base] {
      delete exec;
      // The live counter drops when CUDA has destroyed the executable: watch it while this callback
      // still runs (20 ms: the release thread woke within microseconds before the fix).
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
      while (std::chrono::steady_clock::now() < until) {
        if (gd::debug::live_counts().executables <= base.executables) {
          ++destroyed_while_running;
          return;
        }
        std::this_thread::yield();
      }
    });
    *exec = g.instantiate();
    exec->launch(s);
    GPU_REQUIRE(cudaStreamSynchronize(s));
  }
  CHECK(destroyed_while_running.load() == 0);
  require_counts_back_to(base);  // ... and each was destroyed once its callback had returned
}

TEST_CASE("launch() of an executable that its own host node deletes does not crash on a loaded CPU",
          "[gpu][reliability][lifetime][host]") {
  // Before the fix, with every core busy, the host node's deletion reached cudaGraphExecDestroy while
  // the launching thread was still inside cudaGraphLaunch of the same executable: SIGSEGV in
  // cuGraphLaunch, in 9 of 19 runs of the suite on an H200 with 15 busy threads beside it
  // (docs/reliability.md, section 11). Each launch here is left running while the next is made.
  const gd::debug::LiveCounts base = settled_baseline();
  struct Hogs {
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    explicit Hogs(unsigned n) {
      for (unsigned t = 0; t < n; ++t) {
        threads.emplace_back([this] {
          while (!stop.load(std::memory_order_relaxed)) {
          }
        });
      }
    }
    ~Hogs() {
      stop = true;
      for (auto& t : threads) t.join();
    }
  };
  Stream s;
  {
    const Hogs hogs(std::max(2u, std::thread::hardware_concurrency()) - 1);
    for (int i = 0; i < 300; ++i) {
      auto* exec = new gd::Executable;
      gd::Graph g("deleted_while_launching");
      g.add_host([exec] { delete exec; });
      *exec = g.instantiate();
      exec->launch(s);  // exec may be gone once this returns
    }
    GPU_REQUIRE(cudaStreamSynchronize(s));
  }
  require_counts_back_to(base);
}

TEST_CASE("free_graph_memory frees a never-freed graph buffer, and launch() then allows the relaunch",
          "[gpu][reliability][memory]") {
  DeviceBuffer<float> d_out(N);
  gd::Graph g("keeps");
  auto a = g.add_mem_alloc<float>(N);
  auto k = g.add_kernel(rel_fill, gd::cover(N), a.buffer, 3.0f, N).name("fill").after(a.node);
  g.add_memcpy(d_out.get(), a.buffer, N).name("out").after(k);
  gd::Executable exec = g.instantiate();
  require_equal(launch_and_read(exec, d_out), std::vector<float>(N, 3.0f));
  REQUIRE_THROWS_AS(exec.launch(), gd::UsageError);  // still refused: the allocation is live
  exec.free_graph_memory();
  exec.free_graph_memory();  // a second call does nothing
  exec.set_kernel_args(k, a.buffer, 6.0f, N);
  require_equal(launch_and_read(exec, d_out), std::vector<float>(N, 6.0f), "the relaunch after the free");
  exec.free_graph_memory();
}

TEST_CASE("update() takes the names inside child plans and conditional bodies", "[gpu][reliability][update]") {
  DeviceBuffer<float> d_x(N);
  auto build = [&](const char* inner, const char* in_body) {
    gd::Graph child("child");
    child.add_kernel(rel_fill, gd::cover(N), d_x.get(), 1.0f, N).name(inner);
    gd::Graph g("names");
    auto ch = g.add_child(child).name("sub");
    auto c = g.add_condition(0);
    g.add_conditional(gd::ConditionalType::if_then, c, 1, [&](unsigned, gd::Graph& body) {
       body.add_empty().name(in_body);
     }).name("cond").after(ch);
    return g;
  };
  gd::Executable exec = build("old_inner", "old_body_node").instantiate();
  const gd::UpdateResult r = exec.update(build("new_inner", "new_body_node"));
  REQUIRE(r);
  const std::string dump = exec.plan().dump();
  CHECK(dump.find("new_inner") != std::string::npos);
  CHECK(dump.find("new_body_node") != std::string::npos);
  CHECK(dump.find("old_inner") == std::string::npos);
  CHECK(dump.find("old_body_node") == std::string::npos);
}

TEST_CASE("a setter or update whose child plan's captured function throws changes nothing",
          "[gpu][reliability][setter][update]") {
  struct Boom {};
  DeviceBuffer<float> d_x(N);
  auto child_of = [&](float v, bool boom) {
    gd::Graph child("child");
    child.add_captured([&d_x, v, boom](cudaStream_t s) {
      if (boom) throw Boom{};
      launch_kernel(rel_fill, dim3((N + 255) / 256), dim3(256), 0, s, d_x.get(), v, N);
    });
    return child;
  };
  gd::Graph g("strong");
  auto ch = g.add_child(child_of(1.0f, false)).name("sub");
  gd::Executable exec = g.instantiate();
  const std::string dump = exec.plan().dump();
  const std::uint64_t fp = exec.plan().fingerprint();
  // Before the fix: the recorded plan took the new child, the executable kept the old one.
  REQUIRE_THROWS_AS(exec.set_child(ch, child_of(2.0f, true)), Boom);
  require_plan_unchanged(exec, dump, fp);
  gd::Graph templ("strong");
  templ.add_child(child_of(3.0f, true)).name("sub");
  REQUIRE_THROWS_AS((void)exec.update(templ, gd::UpdatePolicy::per_node), Boom);
  require_plan_unchanged(exec, dump, fp);
  exec.launch();
  exec.synchronize();
  require_equal(d_x.download(), std::vector<float>(N, 1.0f), "the old child still runs");
}

TEST_CASE("a relaunch while a captured cudaMallocAsync of the last launch is live is refused before cudaGraphLaunch",
          "[reliability][memory][captured-alloc]") {
  // Before: cudaGraphLaunch failed (cudaErrorInvalidValue) and, with a balanced capture before the
  // unbalanced one, left 1,024 bytes allocated that nothing could free (compute-sanitizer memcheck).
  float* balanced = nullptr;
  float* kept = nullptr;
  auto allocating = [](float** out, bool free) {
    return [out, free](cudaStream_t s) {
      if (cudaMallocAsync(reinterpret_cast<void**>(out), N * sizeof(float), s) != cudaSuccess) return;
      launch_kernel(rel_fill, dim3(N / 256), dim3(256), 0, s, *out, 2.0f, N);
      if (free) (void)cudaFreeAsync(*out, s);
    };
  };
  gd::Graph g("r101_two");
  auto first = g.add_captured(allocating(&balanced, true)).name("balanced");
  g.add_captured(allocating(&kept, false)).name("keeps").after(first);
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  const auto calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_MATCHES(
      exec.launch(), gd::UsageError,
      message_is("graphdsl: graph 'r101_two': the function of captured node 'keeps' (#1) allocates memory "
                 "(cudaMallocAsync) that it never frees, and the graph was compiled without auto_free_on_launch: "
                 "launching it again while the previous launch's allocation is live fails (cudaErrorInvalidValue); "
                 "free it in the captured function (cudaFreeAsync), free the last launch's allocations with "
                 "Executable::free_graph_memory(stream), or compile with InstantiateOptions::auto_free_on_launch()"));
  CHECK(gd::debug::cuda_calls() == calls);  // refused before any CUDA call
  exec.free_graph_memory();
  exec.launch();  // allowed again, and runs
  exec.synchronize();
  std::vector<float> back(N);
  GPU_REQUIRE(cudaMemcpy(back.data(), kept, N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(back[0] == 2.0f);
  CHECK(back[N - 1] == 2.0f);
  exec.free_graph_memory();
  exec.synchronize();
  GPU_REQUIRE(cudaDeviceGraphMemTrim(0));  // give the freed pool memory back, as the translation cases do
}

}  // namespace reliability_test
