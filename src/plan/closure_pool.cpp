// src/plan/closure_pool.cpp — recycled storage for host closures (plan/closure_pool.hpp).
#include "plan/closure_pool.hpp"

#include <array>
#include <mutex>
#include <new>
#include <vector>

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
constexpr std::size_t kept_per_class = 1024;

/// The free blocks of each size class. Made once and never destroyed: closures may be released
/// during static destruction (an executable of static storage duration, the release thread).
struct Pool {
  std::mutex lock;
  std::array<std::vector<void*>, classes> free;
  Pool() {
    for (auto& f : free) f.reserve(kept_per_class);
  }
};

Pool& pool() {
  static Pool* const p = new Pool;  // NOLINT(cppcoreguidelines-owning-memory): see Pool
  return *p;
}

/// The size class of `bytes`, or `classes` when it has none (a larger block).
std::size_t class_of(std::size_t bytes) noexcept { return bytes == 0 ? 0 : (bytes - 1) / class_bytes; }

}  // namespace

void* pool_take(std::size_t bytes) {
  const std::size_t c = class_of(bytes);
  if (!pooled || c >= classes) return ::operator new(bytes);
  {
    Pool& p = pool();
    const std::lock_guard<std::mutex> hold(p.lock);
    if (!p.free[c].empty()) {
      void* block = p.free[c].back();
      p.free[c].pop_back();
      return block;
    }
  }
  return ::operator new((c + 1) * class_bytes);
}

void pool_give(void* block, std::size_t bytes) noexcept {
  if (block == nullptr) return;
  const std::size_t c = class_of(bytes);
  if (pooled && c < classes) {
    Pool& p = pool();
    const std::lock_guard<std::mutex> hold(p.lock);
    if (p.free[c].size() < kept_per_class) {
      p.free[c].push_back(block);  // reserved: no allocation
      return;
    }
  }
  ::operator delete(block);
}

void* HostClosure::operator new(std::size_t bytes) { return pool_take(bytes); }
void HostClosure::operator delete(void* p, std::size_t bytes) noexcept { pool_give(p, bytes); }

}  // namespace graphdsl::detail
