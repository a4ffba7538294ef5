// graphdsl/detail/plan_types.hpp — what the templates of graph.hpp and executable.hpp share with
// the plan layer (internal): host and stream closures, the few enums their calls pass, the nesting
// limits and the checked byte count. The plan's storage itself (GraphImpl and its records) is not
// in a public header: it lives in src/plan/graph_impl.hpp, so a user's translation unit does not
// instantiate its containers (docs/performance.md, "Include cost").
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

#include "graphdsl/condition.hpp"
#include "graphdsl/node.hpp"

namespace graphdsl::detail {

/// A host-node callable owned by a plan and, once compiled, by executables (through CUDA user
/// objects). Counted in debug::live_counts().host_closures.
struct HostClosure {
  HostClosure() noexcept;
  HostClosure(const HostClosure&) = delete;
  HostClosure& operator=(const HostClosure&) = delete;
  virtual ~HostClosure();
  virtual void call() = 0;
  /// Whether `other` calls the same function on the same data: diff() takes such closures as one
  /// (adopted host nodes, each adoption making its own closure of the native node's function and
  /// data). By default only the closure itself.
  virtual bool same_as(const HostClosure& other) const noexcept { return this == &other; }
  bool empty = false;  ///< the callable was a null function pointer or an empty std::function
  /// Closures come from blocks recycled per thread (src/plan/closure_pool.cpp): replacing a host
  /// node's callable with one of a size released before on that thread allocates nothing.
  /// Over-aligned callables come from the heap.
  static void* operator new(std::size_t bytes);
  static void operator delete(void* p, std::size_t bytes) noexcept;
  static void* operator new(std::size_t bytes, std::align_val_t a) { return ::operator new(bytes, a); }
  static void operator delete(void* p, std::size_t, std::align_val_t a) noexcept { ::operator delete(p, a); }
};

template <class F>
struct HostClosureOf final : HostClosure {
  explicit HostClosureOf(F fn) : f(std::move(fn)) {}
  void call() override { f(); }
  F f;
};

/// `fn` (a callable invocable with no arguments, moved or copied in: the caller's static_assert names
/// its own function) as a new host closure, made with `new` for the caller to own; `empty` is set for
/// a null function pointer or an empty std::function (validate() reports those). Graph::add_host and
/// Executable::set_host make theirs here.
template <class F>
HostClosure* new_host_closure(F&& fn) {
  using Fn = std::decay_t<F>;
  bool empty = false;
  if constexpr (std::is_constructible_v<bool, const Fn&>) empty = !static_cast<bool>(fn);
  auto* closure = new HostClosureOf<Fn>(Fn(std::forward<F>(fn)));
  closure->empty = empty;
  return closure;
}

/// Which pointer of a memset or memcpy node a graph buffer stands for.
enum class BufferField : std::uint8_t { memset_dst, memcpy_dst, memcpy_src };

/// The element type of a typed memset (add_memset, add_memset_2d), kept for dumps: the node itself
/// holds only the value's bits. `raw`: add_memset_raw, or an element type that is not an integer or
/// float (a 2-byte half, a 4-byte struct).
enum class ScalarType : std::uint8_t { raw, int8, uint8, int16, uint16, int32, uint32, float32 };

/// The ScalarType of T.
template <class T>
constexpr ScalarType scalar_type_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) {
    return ScalarType::float32;
  } else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool>) {
    constexpr bool s = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1) return s ? ScalarType::int8 : ScalarType::uint8;
    if constexpr (sizeof(U) == 2) return s ? ScalarType::int16 : ScalarType::uint16;
    if constexpr (sizeof(U) == 4) return s ? ScalarType::int32 : ScalarType::uint32;
    return ScalarType::raw;
  } else {
    return ScalarType::raw;
  }
}

/// The function behind a captured node: called with the capturing stream each time the plan is
/// materialized. Counted in debug::live_counts().host_closures.
struct StreamClosure {
  StreamClosure() noexcept;
  StreamClosure(const StreamClosure&) = delete;
  StreamClosure& operator=(const StreamClosure&) = delete;
  virtual ~StreamClosure();
  virtual void call(cudaStream_t stream) = 0;
  /// Called before each capture with the node it belongs to: a last check that needs CUDA (e.g.
  /// where a collective's buffers live). Throws UsageError naming `node`. The default does nothing.
  virtual void check(const NodeInfo& node) const;
  /// Extra words for dumps and DOT labels (e.g. "nccl all_reduce sum float32 x1024 on devices 0,1").
  virtual std::string describe() const;
  /// True when capturing `other` issues the same work as capturing this (so an update need not
  /// re-capture). The default: only the same closure object.
  virtual bool same_work(const StreamClosure& other) const { return this == &other; }
  /// True when the work must be captured into a graph of its own and embedded as a child node,
  /// rather than captured straight into the plan's graph (NCCL collectives: a second capture over
  /// the same communicators into one graph fails with cudaErrorStreamCaptureIsolation).
  virtual bool own_graph() const { return false; }
};

template <class F>
struct StreamClosureOf final : StreamClosure {
  explicit StreamClosureOf(F fn) : f(std::move(fn)) {}
  void call(cudaStream_t stream) override { f(stream); }
  F f;
};

/// How deep plans may nest (child plans and conditional bodies, at any mix) and how many nodes a
/// plan that embeds others may hold, counting embedded nodes (each embedding counted again):
/// embedding beyond either is a UsageError from add_child / add_conditional. They keep every walk
/// over nested plans (validate, dump, DOT, diff, fingerprint, compile, destruction) within bounded
/// stack and time, also for plans that embed copies of themselves repeatedly.
inline constexpr std::uint32_t max_nesting_depth = 64;
inline constexpr std::uint64_t max_embedded_nodes = std::uint64_t{1} << 24;

/// The largest byte count graphdsl accepts anywhere (PTRDIFF_MAX: no object is larger, and a
/// negative signed count converted to std::size_t is larger).
inline constexpr std::size_t max_bytes = static_cast<std::size_t>(PTRDIFF_MAX);

/// `count` elements of `element_size` bytes, in bytes. `what` names the call for the message.
/// @throws UsageError when `count` or the product is above max_bytes (a negative count converted
/// to std::size_t, or a product that would wrap around).
std::size_t checked_bytes(std::size_t count, std::size_t element_size, const char* what);

/// Throws the UsageError of checked_enum: "{api}: {type}({value}) is not {what}".
[[noreturn]] void throw_enum_value(const char* api, const char* type, long long value, const char* what);

/// The one checked conversion of an enumeration value that crosses the public API into an index
/// (0 ... `last`): a value outside the enumeration (a cast integer) is a UsageError naming the call,
/// the enumeration and what it must be (`what`, e.g. "a reduction (sum, prod, max, min or avg)"),
/// never a silent default.
template <class E>
std::size_t checked_enum(E value, E last, const char* api, const char* type, const char* what) {
  using U = std::underlying_type_t<E>;
  const U v = static_cast<U>(value);
  bool below = false;
  if constexpr (std::is_signed_v<U>) below = v < 0;
  if (below || v > static_cast<U>(last)) throw_enum_value(api, type, static_cast<long long>(v), what);
  return static_cast<std::size_t>(v);
}

/// Refuses a Compare value that is not one of the six comparisons (add_set_condition).
void check_compare(Compare op);

/// `text` with control characters, backslashes, single quotes and bytes that are not UTF-8
/// escaped (docs/errors.md, "Names in messages"): what every message, dump and DOT label prints.
std::string escaped(std::string_view text);
/// escaped(text) in single quotes: how messages and dumps print a node or graph name.
std::string quoted(std::string_view text);

}  // namespace graphdsl::detail
