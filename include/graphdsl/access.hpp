// graphdsl/access.hpp — declared memory accesses, for the static race checker (graphdsl/races.hpp).
//
//   g.add_kernel(stencil, grid, gd::reads(d_in, n + 2), gd::writes(d_out, n), n);  // exact ranges
//   g.add_host([&] { log(h_out); }).accesses(gd::reads(h_out, n));                  // a host node's
//
// gd::reads(p, count) / gd::writes(p, count) stand for the pointer `p` (or a GraphBuffer) and say
// which elements the node touches: [p, p + count), or [p + first, p + first + count) with the
// three-argument form. add_kernel passes the plain pointer to the kernel; the range is only used by
// Graph::check_races(). NodeHandle::accesses() declares ranges for any node (host, captured and
// event nodes have no other way to say what memory they touch).
//
// Building a declaration makes no CUDA call and never dereferences the pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "graphdsl/buffer.hpp"

namespace graphdsl {

class Node;

/// How a node touches memory. A write may also read (a `T*` kernel parameter is a read-write);
/// for races only "does it write" matters.
enum class AccessMode : std::uint8_t {
  read,   ///< reads only
  write,  ///< writes (and perhaps reads)
};

/// A declared range: `target` (a pointer or a GraphBuffer) and the elements [first, first + count)
/// the node touches through it, read or written. Made by graphdsl::reads / graphdsl::writes.
template <class Target, AccessMode Mode>
struct Declared {
  Target target;      ///< the pointer or GraphBuffer the range is in
  std::size_t first;  ///< the first element touched
  std::size_t count;  ///< how many elements are touched
};

/// The node reads elements [p, p + count).
template <class T>
Declared<T*, AccessMode::read> reads(T* p, std::size_t count) {
  return {p, 0, count};
}
/// The node reads elements [p + first, p + first + count) (it is given `p` itself).
template <class T>
Declared<T*, AccessMode::read> reads(T* p, std::size_t first, std::size_t count) {
  return {p, first, count};
}
/// The node reads the first `count` elements of a graph buffer.
template <class T>
Declared<GraphBuffer<T>, AccessMode::read> reads(const GraphBuffer<T>& b, std::size_t count) {
  return {b, 0, count};
}
/// The node reads elements [first, first + count) of a graph buffer.
template <class T>
Declared<GraphBuffer<T>, AccessMode::read> reads(const GraphBuffer<T>& b, std::size_t first, std::size_t count) {
  return {b, first, count};
}

/// The node writes (and perhaps reads) elements [p, p + count).
template <class T>
Declared<T*, AccessMode::write> writes(T* p, std::size_t count) {
  static_assert(!std::is_const_v<T>, "graphdsl gd::writes: the pointer points to const (use gd::reads)");
  return {p, 0, count};
}
/// The node writes elements [p + first, p + first + count) (it is given `p` itself).
template <class T>
Declared<T*, AccessMode::write> writes(T* p, std::size_t first, std::size_t count) {
  static_assert(!std::is_const_v<T>, "graphdsl gd::writes: the pointer points to const (use gd::reads)");
  return {p, first, count};
}
/// The node writes the first `count` elements of a graph buffer.
template <class T>
Declared<GraphBuffer<T>, AccessMode::write> writes(const GraphBuffer<T>& b, std::size_t count) {
  return {b, 0, count};
}
/// The node writes elements [first, first + count) of a graph buffer.
template <class T>
Declared<GraphBuffer<T>, AccessMode::write> writes(const GraphBuffer<T>& b, std::size_t first, std::size_t count) {
  return {b, first, count};
}

namespace detail {

/// A declared range with its type erased: what a plan stores (GraphImpl::declared).
struct DeclaredAccess {
  static constexpr std::int32_t no_param = -1;
  std::uint32_t node = 0;         ///< the node it belongs to
  std::int32_t param = no_param;  ///< the kernel parameter it was given for; no_param: NodeHandle::accesses()
  AccessMode mode = AccessMode::read;
  bool buffer = false;                            ///< `key` is a GraphBuffer id, `begin` an offset into it
  std::uint64_t key = 0;                          ///< GraphBuffer::id(), or 0 for an address
  std::uint64_t begin = 0;                        ///< first byte: an address, or an offset into the buffer
  std::uint64_t bytes = 0;                        ///< length in bytes
  bool overflow = false;                          ///< (first + count) * sizeof(T) does not fit in 64 bits
  std::uint64_t buffer_bytes = 0;                 ///< the end of the buffer or slice (for the bounds check)
  std::size_t first = 0, count = 0, element = 0;  ///< as declared (for messages)
};

template <class A>
struct IsDeclared : std::false_type {};
template <class T, AccessMode M>
struct IsDeclared<Declared<T, M>> : std::true_type {
  using target = T;
  static constexpr bool writes = M == AccessMode::write;
};
template <class A>
using Decay = std::remove_cv_t<std::remove_reference_t<A>>;
/// True for the result of gd::reads / gd::writes.
template <class A>
inline constexpr bool is_declared_v = IsDeclared<Decay<A>>::value;

/// The argument add_kernel packs in place of `A`: the pointer or buffer of a gd::reads/gd::writes.
template <class A, bool = is_declared_v<A>>
struct UnwrapDeclared {
  using type = A;
};
template <class A>
struct UnwrapDeclared<A, true> {
  using type = typename IsDeclared<Decay<A>>::target;
};
template <class A>
using unwrap_declared_t = typename UnwrapDeclared<A>::type;

/// `arg` itself, or the pointer / buffer a gd::reads/gd::writes stands for.
template <class A>
decltype(auto) unwrap_declared(A&& arg) {
  if constexpr (is_declared_v<A>) {
    return unwrap_declared_t<A>(arg.target);
  } else {
    return std::forward<A>(arg);
  }
}

/// The type-erased record of one declaration (its bounds are checked when it is stored).
template <class T, AccessMode M>
DeclaredAccess erase(const Declared<T*, M>& d, std::int32_t param) {
  DeclaredAccess a;
  a.param = param;
  a.mode = M;
  a.first = d.first;
  a.count = d.count;
  a.element = sizeof(std::conditional_t<std::is_void_v<T>, char, T>);
  std::uint64_t offset = 0;
  a.overflow = __builtin_mul_overflow(static_cast<std::uint64_t>(d.first), a.element, &offset) ||
               __builtin_mul_overflow(static_cast<std::uint64_t>(d.count), a.element, &a.bytes) ||
               __builtin_add_overflow(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(d.target)), offset,
                                      &a.begin);
  return a;
}
template <class T, AccessMode M>
DeclaredAccess erase(const Declared<GraphBuffer<T>, M>& d, std::int32_t param) {
  DeclaredAccess a;
  a.param = param;
  a.mode = M;
  a.buffer = true;
  a.key = d.target.id();
  a.first = d.first;
  a.count = d.count;
  a.element = sizeof(T);
  // Elements count from the start of the buffer, or of the slice: the range must lie in the slice.
  std::uint64_t offset = 0;
  a.overflow = __builtin_mul_overflow(static_cast<std::uint64_t>(d.first), a.element, &offset) ||
               __builtin_mul_overflow(static_cast<std::uint64_t>(d.count), a.element, &a.bytes) ||
               __builtin_add_overflow(static_cast<std::uint64_t>(d.target.offset_bytes()), offset, &a.begin) ||
               __builtin_add_overflow(static_cast<std::uint64_t>(d.target.offset_bytes()),
                                      static_cast<std::uint64_t>(d.target.bytes()), &a.buffer_bytes);
  return a;
}

/// gd::reads / gd::writes given for kernel parameter P: P must be a pointer to data, and a
/// gd::writes must not be given for a pointer to const.
template <class P, class A>
constexpr bool declared_fits() {
  if constexpr (!is_declared_v<A>) {
    return true;
  } else {
    return std::is_pointer_v<P> && !std::is_function_v<std::remove_pointer_t<P>>;
  }
}
template <class P, class A>
constexpr bool declared_write_to_const() {
  if constexpr (!is_declared_v<A> || !std::is_pointer_v<P>) {
    return false;
  } else {
    return std::is_const_v<std::remove_pointer_t<P>> && IsDeclared<Decay<A>>::writes;
  }
}

template <class... T>
struct DeclList {};
/// The compile-time rules for gd::reads / gd::writes arguments of add_kernel (the argument count is
/// checked by check_kernel_args).
template <class... P, class... A>
constexpr bool check_declared_args(DeclList<P...>, DeclList<A...>) {
  if constexpr (sizeof...(P) == sizeof...(A)) {
    static_assert((declared_fits<P, A>() && ...),
                  "graphdsl add_kernel: gd::reads / gd::writes is given for a parameter that is not a pointer (it "
                  "declares the range a T* or const T* parameter touches)");
    static_assert(!(declared_write_to_const<P, A>() || ...),
                  "graphdsl add_kernel: gd::writes is given for a const T* parameter (the kernel cannot write "
                  "through it; use gd::reads)");
  }
  return true;
}

/// Declares `count` ranges for `node` (NodeHandle::accesses). @throws UsageError (see races.cpp).
void declare_accesses(const Node& node, const DeclaredAccess* list, std::size_t count);

}  // namespace detail
}  // namespace graphdsl
