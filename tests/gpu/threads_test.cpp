// GPU test of concurrent use: 8 threads each build, compile, launch and destroy their own graphs
// (half of the threads through a captured node, which captures in thread-local mode while the other
// threads compile and launch), each launch verifying its own result on the device.
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
