// graphdsl/buffer.hpp — typed placeholders for memory allocated by the graph itself.
//
//   auto [alloc, tmp] = g.add_mem_alloc<float>(n);                  // a MemAllocNode and a GraphBuffer<float>
//   auto fill = g.add_memset(tmp, 0.0f, n).after(alloc);
//   auto k = g.add_kernel(scale, gd::cover(n), tmp, 2.0f, n).after(fill);   // tmp passed for a float*
//   g.add_mem_free(tmp).after(k);
//   g.add_memset(tmp.slice(16, 32), 0.0f, 32);                        // elements [16, 48) of it
//   g.add_memcpy(tmp + 64, tmp.slice(0, 64), 64);                     // one part of it into another
//
// The address exists only once the plan is compiled (cudaGraphAddMemAllocNode returns it);
// graphdsl patches it into every kernel argument, memset and memcpy that received the buffer.
// validate() checks that every use is ordered after the allocation and before its free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace graphdsl {

/// Memory of `count` elements of T allocated by a mem_alloc node of a plan, or a part of it (a
/// slice: slice(), operator+). Pass it to add_kernel for a T* (or const T*) parameter, to
/// add_memset and to add_memcpy. Usable in the plan that allocated it.
///
/// A slice is a GraphBuffer too (the same type), so it goes wherever a whole buffer goes. Its
/// offset is a parameter of the node that uses it: two plans that differ only in a slice's offset
/// differ in a parameter, which Executable::update() patches. Slices are checked against the
/// allocation by Graph::validate(); making one never throws.
template <class T>
class GraphBuffer {
 public:
  /// An empty buffer (valid() is false).
  GraphBuffer() noexcept = default;
  /// Internal: made by Graph::add_mem_alloc().
  GraphBuffer(std::uint64_t uid, std::size_t count) noexcept : uid_(uid), count_(count) {}

  /// The `count` elements that start `first` elements into this buffer (or slice): elements
  /// [offset() + first, offset() + first + count) of the allocation. Graph::validate() refuses a
  /// node that uses a slice passing the end of its allocation.
  GraphBuffer slice(std::size_t first, std::size_t count) const noexcept {
    GraphBuffer s = *this;
    s.first_ = first_ + first < first_ ? static_cast<std::size_t>(-1) : first_ + first;  // saturates
    s.count_ = count;
    return s;
  }
  /// The part from element `k` to the end: slice(k, size() - k) (no elements when k > size(), at
  /// element offset() + k, which validate() checks like any slice).
  GraphBuffer operator+(std::size_t k) const noexcept { return slice(k, k < count_ ? count_ - k : 0); }
  /// The first element of this buffer within its allocation (0 for a whole buffer).
  std::size_t offset() const noexcept { return first_; }
  /// offset() in bytes (the largest std::size_t when that overflows: validate() refuses it).
  std::size_t offset_bytes() const noexcept {
    return first_ > static_cast<std::size_t>(-1) / sizeof(T) ? static_cast<std::size_t>(-1) : first_ * sizeof(T);
  }

  /// True for a buffer made by Graph::add_mem_alloc().
  bool valid() const noexcept { return uid_ != 0; }
  /// A process-unique number identifying the allocation (0 for an empty buffer).
  std::uint64_t id() const noexcept { return uid_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Size in bytes: size() * sizeof(T) (the largest std::size_t when that overflows).
  std::size_t bytes() const noexcept {
    return count_ > static_cast<std::size_t>(-1) / sizeof(T) ? static_cast<std::size_t>(-1) : count_ * sizeof(T);
  }

 private:
  std::uint64_t uid_ = 0;
  std::size_t count_ = 0;
  std::size_t first_ = 0;
};

/// The memory a graph allocation asks for (MemAllocOptions::kind). CUDA graph allocations are
/// device memory only, so `managed` and `host` exist to be refused by name: on driver 580 (CUDA
/// 13.0) cudaGraphAddMemAllocNode returns cudaErrorNotSupported for managed memory at no location or
/// on the host and for pinned host memory, and for managed memory on a device it returns cudaSuccess
/// with plain device memory (a host read of it faults). Allocate those outside the graph
/// (cudaMallocManaged, cudaMallocHost) and pass the pointer.
enum class AllocationKind : std::uint8_t {
  device = 0,   ///< pinned device memory on MemAllocOptions::device (cudaMemAllocationTypePinned)
  managed = 1,  ///< managed (unified) memory: refused (add_mem_alloc throws UsageError)
  host = 2      ///< pinned host memory: refused (add_mem_alloc throws UsageError)
};

/// Where a graph allocation lives and who may access it.
struct MemAllocOptions {
  int device = -1;               ///< the device that holds the memory; -1: the current device at compile time
  std::vector<int> peer_access;  ///< other devices given read/write access
  /// The memory asked for: device memory, the only kind CUDA graph allocations have (see AllocationKind).
  AllocationKind kind = AllocationKind::device;
};

}  // namespace graphdsl
