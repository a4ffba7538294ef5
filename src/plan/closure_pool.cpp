// src/plan/closure_pool.cpp — recycled storage for host closures (plan/closure_pool.hpp).
#include "plan/closure_pool.hpp"

#include <array>
#include <new>

namespace graphdsl::detail {

namespace {

// Under AddressSanitizer every block comes from the heap and goes back to it, so that a closure
// used after its release is reported rather than hidden in a recycled block.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool pooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool pooled = false;
#else
constexpr bool pooled = true;
#endif
#else
constexpr bool pooled = true;
#endif

constexpr std::size_t class_bytes = 32;  ///< size classes of 32, 64, ... 256 bytes
constexpr std::size_t classes = 8;
constexpr std::size_t kept_per_class = 64;

/// The free blocks of the calling thread, by size class: taking and giving back on one thread (a
/// setter replacing a callable releases the one it replaces) needs no lock. A block released on
/// another thread (the last launch holding it ended there) joins that thread's blocks.
struct ThreadBlocks {
  std::array<std::array<void*, kept_per_class>, classes> block{};
  std::array<std::size_t, classes> count{};
  ~ThreadBlocks();
};

/// Set when the calling thread's ThreadBlocks is destroyed (thread exit): later blocks of that
/// thread go to the heap. Trivially destructible, so readable until the thread's end.
thread_local bool blocks_gone = false;
thread_local ThreadBlocks blocks;

ThreadBlocks::~ThreadBlocks() {
  blocks_gone = true;
  for (std::size_t c = 0; c < classes; ++c) {
    for (std::size_t k = 0; k < count[c]; ++k) ::operator delete(block[c][k]);
  }
}

/// The size class of `bytes`, or `classes` and above when it has none (a larger block).
std::size_t class_of(std::size_t bytes) noexcept { return bytes == 0 ? 0 : (bytes - 1) / class_bytes; }

}  // namespace

bool pool_recycles() noexcept { return pooled; }

void* pool_take(std::size_t bytes) {
  const std::size_t c = class_of(bytes);
  if (!pooled || c >= classes || blocks_gone) return ::operator new(bytes);
  ThreadBlocks& b = blocks;
  if (b.count[c] > 0) return b.block[c][--b.count[c]];
  return ::operator new((c + 1) * class_bytes);  // given back, it serves any size of its class
}

void pool_give(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  const std::size_t c = class_of(bytes);
  if (pooled && c < classes && !blocks_gone) {
    ThreadBlocks& b = blocks;
    if (b.count[c] < kept_per_class) {
      b.block[c][b.count[c]++] = p;
      return;
    }
  }
  ::operator delete(p);
}

void* HostClosure::operator new(std::size_t bytes) { return pool_take(bytes); }
void HostClosure::operator delete(void* p, std::size_t bytes) noexcept { pool_give(p, bytes); }

}  // namespace graphdsl::detail
