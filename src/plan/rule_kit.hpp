// src/plan/rule_kit.hpp — what the plan rules of the node kinds share (the rules sections of
// src/kinds/<kind>.cpp and plan/rules.cpp): the failure, overflow-checked counts, buffer pointers.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

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

/// The plans enclosing the one being checked, innermost first.
struct Scope {
  const GraphImpl* plan;
  const Scope* outer;
  /// Only for the plan a child plan is checked in by check_child_plan(..., true): its buffers are
  /// matched by position (the child comes from a template of the same shape), not by id.
  bool by_position = false;
};

/// Which conditional node uses each condition (declaring plan, index).
using Usage = std::map<std::pair<const GraphImpl*, std::uint32_t>, NodeInfo>;

/// Node i of g as check_plan's walk reaches it (RuleOps::check_scoped): `here` is g's scope, `usage`
/// the conditions used so far.
struct ScopedNode {
  const GraphImpl& g;
  std::uint32_t i;
  const std::string& ctx;
  const Scope& here;
  Usage& usage;
};

/// Checks plan `inner`, held by node.i (a child plan, a conditional body), with its scope inside
/// node.g's; `ctx` prefixes its messages. @throws UsageError naming the node and the rule.
void check_nested_plan(const GraphImpl& inner, const std::string& ctx, const ScopedNode& node);

/// Checks that the plan `r` points to (from node i of g, in scope `here`) declares condition
/// r.index, and returns it. `what` starts the message ("a Condition argument", "its Condition").
const GraphImpl& condition_owner(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const Scope* here,
                                 ConditionRef r, const char* what);

/// Conditional bodies may hold kernel, empty, child, memset, memcpy and conditional nodes (RuleOps::in_body;
/// the plans of nodes whose nested plans are part of the body too: RuleOps::nested_in_plan).
void check_body_kinds(const GraphImpl& body, const std::string& ctx);

/// The mem_free node of each mem_alloc node of g (by node index; no_buffer: none), refusing a buffer
/// freed twice (the mem_free kind's rule, src/kinds/mem_free.cpp).
std::vector<std::uint32_t> free_nodes(const GraphImpl& g, const std::string& ctx);

/// Whether node k of g is a mem_free node that frees the buffer of mem_alloc node `alloc` of g (the
/// mem_free kind's, src/kinds/mem_free.cpp).
bool frees_allocation(const GraphImpl& g, std::uint32_t k, std::uint32_t alloc) noexcept;

/// Adds to users[a] each kernel node of g that takes the buffer of g's mem_alloc node a as an
/// argument, in node order (src/kinds/kernel_plan.cpp).
void add_kernel_buffer_users(const GraphImpl& g, std::vector<std::vector<std::uint32_t>>& users);

/// check_slice for each GraphBuffer argument of kernel node i allocated by g.
void check_kernel_slices(const GraphImpl& g, std::uint32_t i, const std::string& ctx);

/// Refuses a byte count above max_bytes (`what` says which, e.g. "sets", "copies").
void check_size(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const char* what, const Count& bytes);

}  // namespace graphdsl::detail::rule
