// src/plan/rule_kit.hpp — what the plan rules of the node kinds share (the rules sections of
// src/kinds/<kind>.cpp and plan/rules.cpp): the failure, overflow-checked counts, buffer pointers.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail::rule {

[[noreturn]] inline void fail(const GraphImpl& g, std::uint32_t i, const std::string& context,
                              const std::string& rule) {
  throw UsageError(fmt::format("{}{}: {}", context, g.info(i).describe(), rule));
}

inline constexpr std::uint32_t no_buffer = ConditionRef::unresolved;

/// A count computed from user-given sizes (bytes, threads), checked for overflow: a product that
/// does not fit in 64 bits must fail the limits it is compared with, not wrap around to a small
/// number that passes them.
struct Count {
  std::uint64_t value = 0;
  bool fits = true;

  Count times(std::uint64_t k) const {
    Count r;
    r.fits = fits && !__builtin_mul_overflow(value, k, &r.value);
    return r;
  }
  Count plus(const Count& o) const {
    Count r;
    r.fits = fits && o.fits && !__builtin_add_overflow(value, o.value, &r.value);
    return r;
  }
  bool above(std::uint64_t limit) const { return !fits || value > limit; }
  /// Above the largest size graphdsl accepts (max_bytes): a wrapped product or a negative count.
  bool too_large() const { return above(max_bytes); }
  std::string text() const {
    return fits ? fmt::format("{}", value) : fmt::format("more than {}", std::numeric_limits<std::uint64_t>::max());
  }
};

/// Checks a memset/memcpy pointer that may be a graph buffer: null only when a buffer stands for
/// it; the buffer allocated by this plan and large enough for `bytes`.
void check_pointer(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const void* ptr, BufferField field,
                   const char* what, const Count& bytes);

/// Refuses, for node i of g, a slice (`bytes` bytes from byte `offset` of the allocation of
/// mem_alloc node `alloc_node` of `owner`: g, or a plan enclosing it) that passes the end of its
/// allocation; `what` names it ("its destination").
void check_slice(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const std::string& what,
                 const GraphImpl& owner, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes);

/// Where a GraphBuffer may be used, for messages refusing another plan's buffer.
inline constexpr const char* buffer_scope_hint =
    "(a buffer is used in the plan that allocates it, in that plan's conditional bodies and in child plans added to "
    "it)";

/// check_slice for each GraphBuffer argument of kernel node i allocated by g.
void check_kernel_slices(const GraphImpl& g, std::uint32_t i, const std::string& ctx);

/// Refuses a byte count above max_bytes (`what` says which, e.g. "sets", "copies").
void check_size(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const char* what, const Count& bytes);

}  // namespace graphdsl::detail::rule
