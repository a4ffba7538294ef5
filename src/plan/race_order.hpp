// src/plan/race_order.hpp — for the race checker (plan/races.cpp): whether two nodes of one plan
// level are ordered (a path of edges joins them), and the level's redundant edges. No CUDA call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "plan/graph_impl.hpp"
#include "plan/races_model.hpp"

namespace graphdsl::detail::race {

/// The strict ancestors of every node, one bitset row per node (n^2 / 8 bytes), built in
/// topological order. With `record`, the redundant edges are added to `level` on the way (an edge
/// p -> v is redundant when p is an ancestor of another predecessor of v).
/// With `finished`, a row holds only the nodes that have finished when its node starts: a
/// programmatic or launch-completion edge lets its successor start before its predecessor has
/// finished, so a predecessor joins the row over a full edge only (the nodes finished before it
/// started join over any edge). An edge p -> v is then redundant when p has finished before another
/// predecessor of v starts; an edge implied only through a path whose first edge starts early is
/// needed (removing it would let p and v overlap).
class Reach {
 public:
  Reach(const GraphImpl& g, const std::vector<std::uint32_t>& order, Level& level, bool record, bool finished = false);
  static bool test(const std::uint64_t* row, std::uint32_t u) { return (row[u / 64] >> (u % 64)) & 1u; }
  const std::uint64_t* row(std::uint32_t v) const { return bits_.data() + v * words_; }
  std::uint64_t* row(std::uint32_t v) { return bits_.data() + v * words_; }
  std::size_t words() const { return words_; }
  /// True when a path of edges joins u and v (either way); pos: the positions in topological order.
  bool ordered(const std::vector<std::uint32_t>& pos, std::uint32_t u, std::uint32_t v) const {
    return pos[u] < pos[v] ? test(row(v), u) : test(row(u), v);
  }

 private:
  std::size_t words_;
  std::vector<std::uint64_t> bits_;
};

/// Ordering questions about the nodes of one level. Each is answered by a search backwards from the
/// later node that skips the nodes placed before the earlier one in topological order, so a plan
/// whose questions are local (edges between nodes close in the order, the usual case) costs linear
/// time and memory. Once the searches together have visited a few times the level's nodes and edges,
/// the level's Reach is built and answers from then on: never much worse than Reach alone.
class Order {
 public:
  Order(const GraphImpl& g, const std::vector<std::uint32_t>& order, Level& level);
  /// Adds the level's redundant edges to level.redundant (once, before any other question).
  void find_redundant();
  /// True when a path of edges joins u and v (either way).
  bool ordered(std::uint32_t u, std::uint32_t v);
  /// The position of node v in the topological order.
  std::uint32_t pos(std::uint32_t v) const { return pos_[v]; }
  /// The level's Reach, built on first use.
  const Reach& reach();

 private:
  /// Marks the strict ancestors of the nodes `from` that are placed at `lo` or later, stopping once
  /// `target` is marked (ConditionRef::unresolved: none). False when the budget ran out.
  bool mark_ancestors(const std::uint32_t* from, std::size_t count, std::uint32_t lo, std::uint32_t target);
  bool marked(std::uint32_t v) const { return mark_[v] == stamp_; }

  const GraphImpl& g_;
  const std::vector<std::uint32_t>& order_;
  Level& level_;
  std::vector<std::uint32_t> pos_;
  std::vector<std::uint32_t> mark_;  ///< == stamp_: marked by the current search
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> stack_;
  std::size_t budget_;  ///< predecessor entries the searches may still read
  std::optional<Reach> reach_;
};

}  // namespace graphdsl::detail::race
