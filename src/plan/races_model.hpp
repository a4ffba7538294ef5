// src/plan/races_model.hpp — the model of the static race checker (plan/races.cpp), shared with the
// races sections of src/kinds/<kind>.cpp that say what memory a node of each kind touches: regions
// of address spaces, accesses, the analysed plan (Level) and the scope of Conditions and buffers.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "graphdsl/races.hpp"
#include "plan/graph_impl.hpp"
#include "plan/kind_races.hpp"

namespace graphdsl::detail::race {

inline constexpr std::uint64_t all_bytes = std::numeric_limits<std::uint64_t>::max();

enum class Space : std::uint8_t { address, buffer, array, condition };

/// Where an access comes from (for the report).
enum class Origin : std::uint8_t {
  kernel_pointer,    ///< a kernel pointer parameter, extent unknown
  kernel_declared,   ///< a kernel parameter given as gd::reads / gd::writes
  kernel_buffer,     ///< a GraphBuffer kernel argument
  kernel_condition,  ///< a Condition kernel argument (sets the condition)
  memset_dst,
  memcpy_dst,
  memcpy_src,
  alloc,
  free,
  declared,     ///< NodeHandle::accesses()
  conditional,  ///< the conditional node evaluates its condition
  nested,       ///< an access of a node inside a child plan or a body
  operation,    ///< operation `param` of a node that runs a list of them (memory operations)
};

/// Rows of `width` bytes, `pitch` apart, starting at `lo`; `hi` is one past the last byte.
struct Region {
  Space space = Space::address;
  std::uint64_t key = 0;
  std::uint64_t lo = 0;
  std::uint64_t width = 1;
  std::uint64_t pitch = 0;
  std::uint64_t rows = 1;
  std::uint64_t hi = 0;
};

struct Level;

struct Access {
  Region r;
  std::uint32_t node = 0;
  AccessMode mode = AccessMode::read;
  Origin origin = Origin::kernel_pointer;
  std::int32_t param = -1;        ///< kernel parameter, or body number for a conditional's accesses
  const Access* inner = nullptr;  ///< Origin::nested: the access inside the child plan or body
  const Level* inner_level = nullptr;
};

/// The plans enclosing the one being analysed, innermost first (for Conditions and buffers).
struct Scope {
  const GraphImpl* plan;
  const Scope* outer;
};

/// One analysed plan.
struct Level {
  const GraphImpl* g = nullptr;
  const Level* parent = nullptr;
  std::string context;  ///< NodeInfo::context of its nodes
  std::vector<Access> accesses;
  std::vector<std::unique_ptr<Level>> nested;  ///< child plans and bodies, in node order
  std::vector<Race> races;
  std::vector<RedundantEdge> redundant;
  std::vector<UnboundedAccess> unbounded;
  std::size_t races_found = 0;
  std::size_t unknown_extents = 0;

  NodeInfo info(std::uint32_t i) const {
    NodeInfo n = g->info(i);
    n.context = context;
    return n;
  }
};

inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? all_bytes : r;
}
inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? all_bytes : r;
}

/// Rows of `width` bytes `pitch` apart from `lo` (contiguous or overlapping rows become one range).
Region make_region(Space space, std::uint64_t key, std::uint64_t lo, std::uint64_t width, std::uint64_t pitch,
                   std::uint64_t rows);

/// All of `key` in `space`.
Region whole(Space space, std::uint64_t key);

/// The bytes [offset, offset + bytes) of the allocation of mem_alloc node `alloc_node` of g (all of
/// it, like whole(), for a whole buffer).
Region buffer_region(const GraphImpl& g, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes);

/// The graph buffer id standing for `field` of memset/memcpy node i, or 0.
std::uint64_t buffer_of(const GraphImpl& g, std::uint32_t i, BufferField field);

/// The uid of the Condition `r` refers to from a node of the innermost plan of `scope`, or 0.
std::uint64_t condition_uid(const Scope* scope, ConditionRef r);

/// Analyses plan g (a child plan or a body when `parent` is set; `context` names it for its nodes).
std::unique_ptr<Level> analyze(const GraphImpl& g, std::string context, const Scope* outer, const Level* parent);

/// Adds the accesses of `inner` (a child plan or a body) as accesses of node i of `level`.
void add_nested(Level& level, std::uint32_t i, std::int32_t body, std::unique_ptr<Level> inner);

/// Node i of plan g, whose accesses RaceOps::accesses adds to `level`.
struct NodeContext {
  const GraphImpl& g;
  std::uint32_t i;
  const Scope& here;                               ///< the scope of g's nodes
  const std::vector<const DeclaredAccess*>& decl;  ///< its declared ranges (already added)
  const std::vector<bool>& params;                 ///< kernel parameters given a declared range
  Level& level;

  /// An access by node i, a write until said otherwise (origin and region to fill).
  Access access() const {
    Access a;
    a.node = i;
    a.mode = AccessMode::write;
    return a;
  }
};

}  // namespace graphdsl::detail::race
