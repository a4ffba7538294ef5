// graphdsl/races.hpp — the static race checker's report (Graph::check_races()).
//
//   gd::RaceReport r = g.check_races();        // host only: no CUDA call
//   if (!r) std::puts(r.to_string().c_str());  // each racing pair, redundant edges, unbounded nodes
//   g.validate(gd::ValidateOptions{true});     // or: throw a UsageError naming the first pair
//
// Two nodes race when they touch overlapping memory, at least one of them writes, and no path of
// edges orders them. What each node touches (docs/races.md has the full table):
//   kernel      `const T*` parameters are reads, `T*` read-writes, of the pointed-to memory. Its
//               extent is unknown: the checker takes the bytes at the pointer itself, so it finds
//               two nodes using the same pointer, or one using a pointer into a range another
//               node declares or copies, but not two pointers into one allocation at different
//               offsets (declare the range with gd::reads / gd::writes to check it exactly).
//               GraphBuffer arguments: the whole graph buffer. gd::reads / gd::writes: exactly.
//   memset/cpy  exact byte ranges (1D, 2D, 3D; pitched rows exactly); CUDA arrays as a whole.
//   mem_alloc / mem_free   write the whole graph buffer.
//   child / conditional    the union of their nodes (a conditional node also reads its Condition).
//   host, captured         only what NodeHandle::accesses() declares; without it the node is listed
//                          in `unbounded` (not checked), never reported as racing.
//   empty, event nodes     nothing (plus what accesses() declares).
// Kernels taking a Condition write it; the conditional node using it reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "graphdsl/access.hpp"
#include "graphdsl/node_kind.hpp"

namespace graphdsl {

/// Options of Graph::validate(const ValidateOptions&).
struct ValidateOptions {
  /// Also run check_races() and throw a UsageError naming the first racing pair.
  bool races = false;
};

/// One side of a racing pair: the node (at the level of the plan where the pair races; for a
/// child or conditional node, `via` names the node inside it) and what it does to the memory.
struct RaceAccess {
  NodeInfo node;                       ///< the node, with its context when it is in a child plan or a body
  AccessMode mode = AccessMode::read;  ///< read, or write (and perhaps read)
  std::string what;                    ///< e.g. "kernel parameter 0 (const T*, extent unknown)", "memcpy destination"
  std::string via;  ///< for a child or conditional node: the node inside it, e.g. "body 0: kernel node 'step' (#1)"
};

/// Two nodes that touch overlapping memory, at least one writing, with no path between them.
struct Race {
  RaceAccess first;    ///< the node created first
  RaceAccess second;   ///< the node created second
  std::string memory;  ///< the overlap, e.g. "bytes [0x7f00..., +1024) of address space" or "graph buffer ..."
  /// True when both write; false for a read/write pair.
  bool write_write() const noexcept { return first.mode == AccessMode::write && second.mode == AccessMode::write; }
  /// "kernel node 'a' (#1) writes ... and kernel node 'b' (#2) reads ... with no path between them".
  std::string to_string() const;
};

/// An edge implied by other edges (`to` is reachable from `from` through another node).
struct RedundantEdge {
  NodeInfo from;  ///< the edge's first node
  NodeInfo to;    ///< the node that runs after `from`
};

/// A node whose memory accesses the checker cannot bound, so it is not checked.
struct UnboundedAccess {
  NodeInfo node;       ///< the node whose accesses are unknown
  std::string reason;  ///< e.g. "a host callback without accesses()"
};

/// What Graph::check_races() found. Races and redundant edges are in a deterministic order
/// (by plan, then node index); `unknown_extents` counts kernel pointer parameters checked as the
/// bytes at the pointer (no gd::reads / gd::writes range).
struct RaceReport {
  std::vector<Race> races;                        ///< the racing pairs (at most max_races)
  std::vector<RedundantEdge> redundant_edges;     ///< edges implied by other paths
  std::vector<UnboundedAccess> unbounded;         ///< nodes whose accesses could not be bounded
  std::size_t unknown_extents = 0;                ///< kernel pointer parameters checked as the bytes at the pointer
  std::size_t races_found = 0;                    ///< races before the list was capped (races.size() <= max_races)
  static constexpr std::size_t max_races = 1000;  ///< the cap on `races`

  /// True when no race was found.
  bool ok() const noexcept { return races_found == 0; }
  /// ok(): true when no race was found.
  explicit operator bool() const noexcept { return ok(); }
  /// A multi-line description: a summary line, then one line per race, redundant edge and
  /// unbounded node.
  std::string to_string() const;
};

}  // namespace graphdsl
