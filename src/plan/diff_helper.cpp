// src/plan/diff_helper.cpp — the wholesale compare of large plans (src/kinds/kernel_diff.cpp) shared
// between the calling thread and one helper thread: the diff of 10,000 nodes reads ~2 MB of
// records from memory, at the bandwidth one core gets; two cores read it in about half the time.
// The calling thread never waits for a block the helper has not taken: a helper that is asleep,
// busy with another caller's diff, or gone (after fork()) leaves every block to the caller. No CUDA call.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "graphdsl/update.hpp"
#include "plan/diff.hpp"

namespace graphdsl {
namespace detail {
namespace {

/// Blocks of diff_block nodes per share of the work: 128 nodes, ~25 KB of both plans' records, a
/// few microseconds from memory (the caller's wait for the helper's last share), and one atomic
/// increment per share (the counter moves between the two cores).
constexpr std::uint32_t blocks_per_share = 2;

// On by default with 4 hardware threads or more: on a 2-core virtual machine, waking the helper
// cost the caller ~30 µs, more than it saved on a diff of 10,000 nodes (docs/performance.md).
std::atomic<bool> helper_allowed{std::thread::hardware_concurrency() >= 4};
std::atomic<bool> helper_gone{false};         // set at exit: diffs then run on the calling thread alone
std::atomic<std::uint64_t> helper_shares{0};  // shares the helper thread compared (diff_helper_shares)

/// One diff's blocks: same[j] is written for every block j by whichever thread takes its share.
struct BlockJob {
  const GraphImpl* a = nullptr;
  const GraphImpl* b = nullptr;
  std::uint32_t n = 0;
  std::uint8_t* same = nullptr;
  std::uint32_t shares = 0;

  void run_share(std::uint32_t s) const noexcept {
    const std::uint32_t lo_block = s * blocks_per_share;
    const std::uint32_t blocks = (n + diff_block - 1) / diff_block;
    const std::uint32_t hi_block = std::min(blocks, lo_block + blocks_per_share);
    for (std::uint32_t j = lo_block; j < hi_block; ++j) {
      const std::uint32_t lo = j * diff_block;
      same[j] = same_kernel_block(*a, *b, lo, std::min(n, lo + diff_block)) ? 1 : 0;
    }
  }
};

class DiffHelper {
 public:
  DiffHelper() : thread_([this] { run(); }) {}
  ~DiffHelper() {
    helper_gone.store(true);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }

  /// Compares every block of `job`, sharing them with the helper thread; false (nothing compared)
  /// when the helper is taken by another caller's diff.
  bool share(const BlockJob& job) noexcept {
    {
      std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
      if (!lock.owns_lock() || busy_ || working_) return false;
      busy_ = true;
      job_ = job;
      next_.store(0, std::memory_order_relaxed);
      done_.store(0, std::memory_order_relaxed);
      ++posted_;
    }
    ready_.notify_one();
    std::uint32_t mine = 0;
    for (std::uint32_t s; (s = next_.fetch_add(1, std::memory_order_relaxed)) < job.shares; ++mine) job.run_share(s);
    // The shares the helper took: it finishes each one it started (a few microseconds).
    while (done_.load(std::memory_order_acquire) + mine < job.shares) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(mutex_);
    busy_ = false;
    return true;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ready_.wait(lock, [this] { return stop_ || posted_ != taken_; });
      if (stop_) return;
      taken_ = posted_;
      if (!busy_) continue;  // that diff already ended
      working_ = true;
      const BlockJob job = job_;
      lock.unlock();
      for (std::uint32_t s; (s = next_.fetch_add(1, std::memory_order_relaxed)) < job.shares;) {
        job.run_share(s);
        helper_shares.fetch_add(1, std::memory_order_relaxed);
        done_.fetch_add(1, std::memory_order_release);
      }
      lock.lock();
      working_ = false;
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  BlockJob job_;                          // guarded by mutex_
  std::uint64_t posted_ = 0, taken_ = 0;  // guarded by mutex_
  bool busy_ = false;                     // a caller's diff is under way (guarded by mutex_)
  bool working_ = false;                  // the helper is taking shares of it (guarded by mutex_)
  bool stop_ = false;
  std::atomic<std::uint32_t> next_{0};  // the next share to take (reset only while neither thread takes any)
  std::atomic<std::uint32_t> done_{0};  // shares the helper finished
  std::thread thread_;                  // last: started once the members above exist
};

/// The helper, started on first use; null at process exit or when no thread could be started.
DiffHelper* diff_helper() noexcept {
  if (helper_gone.load()) return nullptr;
  try {
    static DiffHelper instance;
    return &instance;
  } catch (const std::system_error&) {
    return nullptr;  // no thread: the calling thread compares alone
  }
}

}  // namespace

std::vector<std::uint8_t> shared_block_compare(const GraphImpl& a, const GraphImpl& b) {
  const auto n = static_cast<std::uint32_t>(a.nodes.size());
  if (n < shared_diff_nodes || !helper_allowed.load(std::memory_order_relaxed)) return {};
  DiffHelper* helper = diff_helper();
  if (helper == nullptr) return {};
  std::vector<std::uint8_t> same((n + diff_block - 1) / diff_block);
  BlockJob job;
  job.a = &a;
  job.b = &b;
  job.n = n;
  job.same = same.data();
  job.shares = static_cast<std::uint32_t>((same.size() + blocks_per_share - 1) / blocks_per_share);
  if (!helper->share(job)) return {};
  return same;
}

std::uint64_t diff_helper_shares() noexcept { return helper_shares.load(std::memory_order_relaxed); }

}  // namespace detail

void set_diff_helper(bool enabled) noexcept { detail::helper_allowed.store(enabled); }

bool diff_helper_enabled() noexcept { return detail::helper_allowed.load(); }

}  // namespace graphdsl
