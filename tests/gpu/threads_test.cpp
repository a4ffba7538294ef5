// GPU tests of concurrent use: 8 threads each build, compile, launch and destroy their own graphs
// (half of the threads through a captured node, which captures in thread-local mode while the other
// threads compile and launch), each launch verifying its own result on the device; and threads
// setting shared const child plans, and plans of their own edited between sets, on their own
// executables.
#include "gpu_support.hpp"

using namespace gpu_test;

namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 300;
constexpr int kN = 256;  // elements per thread

}  // namespace

TEST_CASE("8 threads build, compile, launch and destroy their own graphs concurrently", "[gpu][threads]") {
  const gd::debug::LiveCounts baseline = settled_baseline();
  auto gen = rng(600);
  std::uniform_int_distribution<int> offsets(1, 1 << 20);
  std::vector<int> thread_base(kThreads);
  for (auto& b : thread_base) b = offsets(gen) * 16;

  DeviceBuffer<int> data(static_cast<std::size_t>(kThreads) * kN);
  DeviceBuffer<unsigned long long> counters(std::vector<unsigned long long>(2 * kThreads, 0ull));  // checked, wrong
  std::vector<std::unique_ptr<Stream>> streams;
  for (int t = 0; t < kThreads; ++t) streams.push_back(std::make_unique<Stream>());

  std::atomic<long long> host_calls{0};
  std::atomic<int> iterations_done{0};
  std::atomic<int> captured_iterations{0};
  std::atomic<int> errors{0};
  std::mutex first_error_mutex;
  std::string first_error;

  auto worker = [&](int t) {
    int* d = data.get() + static_cast<std::size_t>(t) * kN;
    unsigned long long* checked = counters.get() + 2 * t;
    unsigned long long* wrong = checked + 1;
    const cudaStream_t s = streams[t]->get();
    const bool capturing = t % 2 == 1;
    for (int k = 0; k < kIterations; ++k) {
      try {
        const int base = thread_base[t] + 7 * k;
        gd::Graph g("thread " + std::to_string(t) + " iteration " + std::to_string(k));
        auto clear = g.add_memset(d, -1, kN).name("clear");
        auto fill = g.add_kernel(fill_pattern, gd::cover(kN), d, base, kN).name("fill").after(clear);
        gd::Node add;
        if (capturing) {
          add = g.add_captured([d](cudaStream_t cs) { launch_kernel(add_value, 1, kN, 0, cs, d, 3, kN); })  // thread-local mode
                    .name("add 3 (captured)")
                    .after(fill);
        } else {
          add = g.add_kernel(add_value, gd::cover(kN), d, 3, kN).name("add 3").after(fill);
        }
        auto check = g.add_kernel(verify_pattern, gd::cover(kN), static_cast<const int*>(d), base + 3, kN, checked, wrong)
                         .name("verify")
                         .after(add);
        g.add_host([&host_calls] { host_calls.fetch_add(1); }).name("count").after(check);
        gd::Executable exec = std::move(g).instantiate();
        exec.launch(s);
        exec.synchronize(s);
        iterations_done.fetch_add(1);
        if (capturing) captured_iterations.fetch_add(1);
      } catch (const std::exception& e) {
        if (errors.fetch_add(1) == 0) {
          std::lock_guard<std::mutex> lock(first_error_mutex);
          first_error = "thread " + std::to_string(t) + " iteration " + std::to_string(k) + ": " + e.what();
        }
      }
    }
  };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  WARN(kThreads << " threads x " << kIterations << " iterations (build, instantiate, launch, destroy) in " << seconds
                << " s");

  INFO("first error: " << first_error);
  REQUIRE(errors.load() == 0);
  CHECK(iterations_done.load() == kThreads * kIterations);
  CHECK(captured_iterations.load() == kThreads / 2 * kIterations);
  CHECK(host_calls.load() == kThreads * kIterations);
  const std::vector<unsigned long long> got = counters.download();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(got[2 * t] == static_cast<unsigned long long>(kIterations) * kN);  // every element checked
    CHECK(got[2 * t + 1] == 0ull);                                            // none wrong
  }
  streams.clear();
  require_counts_back_to(baseline);
}

TEST_CASE("threads set shared const child plans and edited plans of their own on their executables; each runs and "
          "records the plan it was given last",
          "[gpu][threads][child][setters]") {
  // set_child stamps the plan it is given (src/plan/graph_impl.hpp): shared const plans are stamped
  // by several threads at once, and each thread's own plan, edited in place between sets, must be
  // set as it is now, never from the graph kept for it before.
  constexpr int threads = 4;
  constexpr int shared_count = 4;
  constexpr int sets = 120;
  DeviceBuffer<unsigned> slots(std::vector<unsigned>(64, 0u));
  unsigned* const cells = slots.get();
  auto child = [cells](unsigned slot, unsigned value) {
    gd::Graph c("child");
    c.add_memset(cells + slot, value, 1).name("fill");
    return c;
  };
  std::vector<gd::Graph> shared_plans;
  for (unsigned v = 0; v < shared_count; ++v) shared_plans.push_back(child(v, 1000 + v));  // slot v: 1000 + v
  const std::vector<gd::Graph>& shared = shared_plans;  // read only from here on, by every thread
  std::vector<std::unique_ptr<Stream>> streams;
  for (int t = 0; t < threads; ++t) streams.push_back(std::make_unique<Stream>());
  std::atomic<int> errors{0};
  std::mutex first_error_mutex;
  std::string first_error;

  auto worker = [&](int t) {
    const unsigned own_slot = 8 + static_cast<unsigned>(t);
    gd::Graph outer("outer " + std::to_string(t));
    const gd::ChildNode sub = outer.add_child(child(own_slot, 0)).name("sub");
    gd::Executable exec = outer.instantiate();
    gd::Graph own = child(own_slot, 1);
    const gd::MemsetNode own_fill = gd::node_cast<gd::MemsetNode>(*own.find("fill"));
    auto fail = [&](const std::string& what) {
      if (errors.fetch_add(1) == 0) {
        std::lock_guard<std::mutex> lock(first_error_mutex);
        first_error = "thread " + std::to_string(t) + ": " + what;
      }
    };
    for (int k = 0; k < sets; ++k) {
      try {
        const int pick = (k + t) % (shared_count + 2);
        unsigned slot = own_slot, value = 0;
        if (pick < shared_count) {
          exec.set_child(sub, shared[static_cast<std::size_t>(pick)]);
          slot = static_cast<unsigned>(pick);
          value = 1000u + slot;
        } else {
          value = 2000u + static_cast<unsigned>(k);  // own plan, edited in place first
          own.set_memset(own_fill, cells + own_slot, value, 1);
          exec.set_child(sub, own);
        }
        gd::Graph expected("outer " + std::to_string(t));
        expected.add_child(child(slot, value)).name("sub");
        if (exec.plan().dump() != expected.dump()) fail("set " + std::to_string(k) + " records another plan");
        if (k % 6 == 5 || pick >= shared_count) {
          exec.launch(streams[static_cast<std::size_t>(t)]->get());
          exec.synchronize(streams[static_cast<std::size_t>(t)]->get());
          unsigned got = 0;
          // No Catch2 assertion on a worker thread (Catch2 is not thread-safe): failures are collected.
          if (cudaMemcpy(&got, cells + slot, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) {
            fail("set " + std::to_string(k) + ": reading the slot back failed");
          } else if (got != value) {
            fail("set " + std::to_string(k) + " wrote " + std::to_string(got) + ", not " + std::to_string(value));
          }
        }
      } catch (const std::exception& e) {
        fail("set " + std::to_string(k) + ": " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (auto& th : pool) th.join();
  INFO("first error: " << first_error);
  CHECK(errors.load() == 0);
}
