// graphdsl/buffer.hpp — typed placeholders for memory allocated by the graph itself.
//
//   auto [alloc, tmp] = g.add_mem_alloc<float>(n);                  // a MemAllocNode and a GraphBuffer<float>
//   auto fill = g.add_memset(tmp, 0.0f, n).after(alloc);
//   auto k = g.add_kernel(scale, gd::cover(n), tmp, 2.0f, n).after(fill);   // tmp passed for a float*
//   g.add_mem_free(tmp).after(k);
//
// The address exists only once the plan is compiled (cudaGraphAddMemAllocNode returns it);
// graphdsl patches it into every kernel argument, memset and memcpy that received the buffer.
// validate() checks that every use is ordered after the allocation and before its free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace graphdsl {

/// Memory of `count` elements of T allocated by a mem_alloc node of a plan. Pass it to add_kernel
/// for a T* (or const T*) parameter, to add_memset and to add_memcpy. Usable in the plan that
/// allocated it.
template <class T>
class GraphBuffer {
 public:
  /// An empty buffer (valid() is false).
  GraphBuffer() noexcept = default;
  /// Internal: made by Graph::add_mem_alloc().
  GraphBuffer(std::uint64_t uid, std::size_t count) noexcept : uid_(uid), count_(count) {}

  /// True for a buffer made by Graph::add_mem_alloc().
  bool valid() const noexcept { return uid_ != 0; }
  /// A process-unique number identifying the allocation (0 for an empty buffer).
  std::uint64_t id() const noexcept { return uid_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Size in bytes: size() * sizeof(T).
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  std::uint64_t uid_ = 0;
  std::size_t count_ = 0;
};

/// Where a graph allocation lives and who may access it.
struct MemAllocOptions {
  int device = -1;               ///< the device that holds the memory; -1: the current device at compile time
  std::vector<int> peer_access;  ///< other devices given read/write access
};

}  // namespace graphdsl
