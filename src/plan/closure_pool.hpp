// src/plan/closure_pool.hpp — recycled storage for host closures and the shared_ptr control blocks
// that own them, so that replacing a host node's callable (Executable::set_host) allocates nothing
// once a closure of its size has been released.
#pragma once

#include <cstddef>
#include <memory>

#include "graphdsl/detail/plan_types.hpp"

namespace graphdsl::detail {

/// A block of at least `bytes` bytes (aligned for std::max_align_t): one the calling thread gave
/// back, of the same size class, when there is one, else from the heap. @throws std::bad_alloc
void* pool_take(std::size_t bytes);
/// Gives back a block that pool_take(bytes) returned (on any thread): kept by the calling thread for
/// reuse, up to 64 per size class, or returned to the heap.
void pool_give(void* p, std::size_t bytes) noexcept;

/// Whether blocks are recycled (false under AddressSanitizer, where every block is the heap's).
bool pool_recycles() noexcept;

/// A standard allocator over pool_take/pool_give (the control block of a closure's shared_ptr).
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() noexcept = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(std::size_t n) { return static_cast<T*>(pool_take(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { pool_give(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const PoolAllocator<U>&) const noexcept {
    return false;
  }
};

/// Takes ownership of `closure` (made with new: HostClosure's pooled operator new) at once, also when
/// it throws: its owner, with the control block from the pool too.
inline std::shared_ptr<HostClosure> own_closure(HostClosure* closure) {
  return std::shared_ptr<HostClosure>(closure, std::default_delete<HostClosure>(), PoolAllocator<HostClosure>());
}

}  // namespace graphdsl::detail
