// src/plan/races.cpp — the static race checker (Graph::check_races), host only: no CUDA call.
//
// Per plan level (the top plan, each child plan, each conditional body):
//   1. a topological order (creation_order; a cycle is a UsageError naming it);
//   2. every node's accesses: regions of an address space (raw addresses, a graph buffer, a CUDA
//      array, a Condition) as rows of `width` bytes `pitch` apart; a child or conditional node
//      carries the union of the accesses of the plans it holds (analysed first, recursively);
//      what a node of each kind touches is the races section of src/kinds/<kind>.cpp (RaceOps,
//      plan/kind_races.hpp; the model they share is plan/races_model.hpp);
//   3. ordering questions (plan/race_order.hpp): searches backwards from the later node, pruned by
//      the topological order, and, once they have read a few times the level's edges, the strict
//      ancestors of every node as one bitset row per node (n^2 / 8 bytes); an edge p -> v is
//      redundant when p is an ancestor of another predecessor of v;
//   4. accesses sorted by (space, key, first byte) and cut into groups of transitively overlapping
//      bounding ranges; inside a group, pairs with a writer whose rows really overlap and whose
//      nodes are not ordered are races (small groups pairwise; large ones first checked for a
//      chain of ordered nodes, the common case, else with bitsets in topological order).
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_set>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/races.hpp"
#include "plan/kind_races.hpp"
#include "plan/race_order.hpp"
#include "plan/races_model.hpp"
#include "plan/rules.hpp"

namespace graphdsl {
namespace detail {
namespace race {

Region make_region(Space space, std::uint64_t key, std::uint64_t lo, std::uint64_t width, std::uint64_t pitch,
                   std::uint64_t rows) {
  Region r{space, key, lo, width, rows > 1 ? pitch : 0, rows == 0 ? 1 : rows, 0};
  if (rows == 0) r.width = 0;
  r.hi = sat_add(sat_add(lo, sat_mul(r.pitch, r.rows - 1)), r.width);
  if (r.rows > 1 && r.pitch <= r.width) {  // contiguous or overlapping rows: one range
    r = Region{space, key, lo, r.hi - lo, 0, 1, r.hi};
  }
  return r;
}

Region whole(Space space, std::uint64_t key) { return Region{space, key, 0, all_bytes, 0, 1, all_bytes}; }

Region buffer_region(const GraphImpl& g, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes) {
  const std::uint64_t uid = g.allocs[g.nodes[alloc_node].payload].uid;
  if (whole_buffer(g, alloc_node, offset, bytes)) return whole(Space::buffer, uid);
  return make_region(Space::buffer, uid, offset, bytes, 0, 1);
}

/// The graph buffer id standing for `field` of memset/memcpy node i (allocated by g or a plan
/// enclosing it), or 0.
std::uint64_t buffer_of(const GraphImpl& g, std::uint32_t i, BufferField field) {
  for (const BufferUse& u : buffer_uses_of(g, i)) {  // node i's uses only (a binary search)
    if (u.node == i && u.field == field && u.alloc_node != ConditionRef::unresolved) return u.uid;
  }
  return 0;
}

/// The uid of the Condition `r` refers to from a node of the innermost plan of `scope`, or 0.
std::uint64_t condition_uid(const Scope* scope, ConditionRef r) {
  if (r.levels == ConditionRef::unresolved) return 0;
  for (std::uint32_t k = 0; scope != nullptr && k < r.levels; ++k) scope = scope->outer;
  if (scope == nullptr || r.index >= scope->plan->conditions.size()) return 0;
  return scope->plan->conditions[r.index].uid;
}

/// Adds the accesses of `inner` (a child plan or a body) as accesses of node i of `level`.
void add_nested(Level& level, std::uint32_t i, std::int32_t body, std::unique_ptr<Level> inner) {
  for (const Access& x : inner->accesses) {
    Access a = x;
    a.node = i;
    a.origin = Origin::nested;
    a.param = body;
    a.inner = &x;
    a.inner_level = inner.get();
    level.accesses.push_back(a);
  }
  level.nested.push_back(std::move(inner));
}

namespace {

__extension__ typedef __int128 Wide;

Wide floor_div(Wide num, Wide den) { return num >= 0 ? num / den : -((-num + den - 1) / den); }
Wide ceil_div(Wide num, Wide den) { return num >= 0 ? (num + den - 1) / den : -((-num) / den); }

/// rows_overlap for two regions of several rows the same pitch apart, in O(1): row i of `a` and row j
/// of `b` start (a.lo - b.lo) + (i - j) * pitch apart, and share a byte when that distance lies in
/// (-a.width, b.width); every k = i - j in [-(b.rows - 1), a.rows - 1] is reached by rows in range.
bool same_pitch_overlap(const Region& a, const Region& b) {
  const Wide p = a.pitch;
  const Wide d = static_cast<Wide>(a.lo) - static_cast<Wide>(b.lo);
  const Wide k_lo = std::max<Wide>(floor_div(-static_cast<Wide>(a.width) - d, p) + 1, -(static_cast<Wide>(b.rows) - 1));
  const Wide k_hi = std::min<Wide>(ceil_div(static_cast<Wide>(b.width) - d, p) - 1, static_cast<Wide>(a.rows) - 1);
  return k_lo <= k_hi;
}

/// True when rows of `a` and `b` (same space and key, bounding ranges overlapping) share a byte.
bool rows_overlap(const Region& a, const Region& b) {
  if (a.width == 0 || b.width == 0) return false;
  if (a.rows == 1 && b.rows == 1) return true;
  if (a.rows > 1 && b.rows > 1 && a.pitch == b.pitch) return same_pitch_overlap(a, b);
  const Region& few = a.rows <= b.rows ? a : b;
  const Region& many = a.rows <= b.rows ? b : a;
  if (few.rows > (1u << 22)) return true;  // too many rows to compare: conservatively overlapping
  using I = Wide;
  for (std::uint64_t i = 0; i < few.rows; ++i) {
    const I s = static_cast<I>(few.lo) + static_cast<I>(i) * few.pitch;
    const I e = s + few.width;
    if (many.rows == 1) {
      if (s < static_cast<I>(many.hi) && static_cast<I>(many.lo) < e) return true;
      continue;
    }
    // rows j of `many` with many.lo + j p < e and many.lo + j p + w > s
    const I p = many.pitch;
    const I num_lo = s - static_cast<I>(many.width) - static_cast<I>(many.lo);
    I j_lo = floor_div(num_lo, p) + 1;
    const I num_hi = e - static_cast<I>(many.lo);
    I j_hi = ceil_div(num_hi, p) - 1;
    j_lo = std::max<I>(j_lo, 0);
    j_hi = std::min<I>(j_hi, static_cast<I>(many.rows) - 1);
    if (j_lo <= j_hi) return true;
  }
  return false;
}

bool overlap(const Region& a, const Region& b) {
  return a.space == b.space && a.key == b.key && a.lo < b.hi && b.lo < a.hi && rows_overlap(a, b);
}

// ---- accesses of one node -------------------------------------------------------------------

/// The declared ranges of node i (params[k] says which of its parameters have one, for a kind whose
/// declared ranges may name parameters: `named`).
void declared_accesses(std::uint32_t i, const std::vector<const DeclaredAccess*>& list, bool named,
                       std::vector<bool>& params, Level& level) {
  for (const DeclaredAccess* d : list) {
    Access a;
    a.node = i;
    a.mode = d->mode;
    a.param = d->param;
    a.origin = d->param >= 0 ? Origin::kernel_declared : Origin::declared;
    a.r = make_region(d->buffer ? Space::buffer : Space::address, d->key, d->begin, d->bytes, 0, 1);
    level.accesses.push_back(a);
    if (d->param >= 0 && named) {
      if (params.size() <= static_cast<std::size_t>(d->param)) params.resize(d->param + 1, false);
      params[d->param] = true;
    }
  }
}

/// The accesses of node i (its declared ranges in `decl`).
void node_accesses(const GraphImpl& g, std::uint32_t i, const Scope& here,
                   const std::vector<const DeclaredAccess*>& decl, Level& level) {
  const RaceOps& ops = race_ops(g.nodes[i].kind);
  std::vector<bool> params(ops.declared_params != nullptr ? ops.declared_params(g, i) : 0, false);
  declared_accesses(i, decl, ops.declared_params != nullptr, params, level);
  if (ops.accesses != nullptr) ops.accesses(NodeContext{g, i, here, decl, params, level});
}

// ---- describing -------------------------------------------------------------------------------

std::string what(const Level& level, const Access& a) {
  if (a.origin == Origin::nested) return what(*a.inner_level, *a.inner);
  switch (a.origin) {
    case Origin::kernel_pointer: {
      const ArgLayout& layout = kernel_layout(*level.g, level.g->nodes[a.node].payload);
      return fmt::format("kernel parameter {} ({}, extent unknown: checked at the pointer)", a.param,
                         layout.access[a.param] == 1 ? "const T*" : "T*");
    }
    case Origin::kernel_declared: return fmt::format("kernel parameter {} (declared range)", a.param);
    case Origin::kernel_buffer:
      return a.r.hi == all_bytes && a.r.lo == 0
                 ? fmt::format("kernel parameter {} (GraphBuffer: the whole buffer)", a.param)
                 : fmt::format("kernel parameter {} (GraphBuffer: a slice, bytes [{}, {}))", a.param, a.r.lo, a.r.hi);
    case Origin::kernel_condition: return fmt::format("kernel parameter {} (sets the Condition)", a.param);
    case Origin::memset_dst: return "memset destination";
    case Origin::memcpy_dst: return "memcpy destination";
    case Origin::memcpy_src: return "memcpy source";
    case Origin::alloc: return "allocation";
    case Origin::free: return "free";
    case Origin::declared: return "accesses() range";
    case Origin::operation: return fmt::format("operation {}", a.param);
    case Origin::conditional: return "evaluating its Condition";
    case Origin::nested: break;
  }
  return {};
}

/// For an access of a child or conditional node: the node inside it, e.g. "body 0: kernel node 'step' (#1)".
std::string via(const Access& a) {
  if (a.origin != Origin::nested) return {};
  NodeInfo n = a.inner_level->g->info(a.inner->node);
  std::string s = (a.param >= 0 ? fmt::format("body {}: ", a.param) : std::string()) + n.describe();
  const std::string deeper = via(*a.inner);
  return deeper.empty() ? s : s + " > " + deeper;
}

std::string memory(const Level& level, const Region& a, const Region& b) {
  const std::uint64_t lo = std::max(a.lo, b.lo), hi = std::min(a.hi, b.hi);
  const std::string bytes = hi == all_bytes ? (lo == 0 ? std::string("all of it") : fmt::format("bytes [{}, end)", lo))
                                            : fmt::format("bytes [{}, {})", lo, hi);
  switch (a.space) {
    case Space::address:
      return fmt::format("address range [{:#x}, {:#x}) ({} byte{})", lo, hi, hi - lo, hi - lo == 1 ? "" : "s");
    case Space::buffer:
      for (const Level* l = &level; l != nullptr; l = l->parent) {
        if (const std::uint32_t k = l->g->alloc_node(a.key); k != ConditionRef::unresolved) {
          return fmt::format("the graph buffer of {}, {}", l->info(k).describe(), bytes);
        }
      }
      return fmt::format("a graph buffer (id {}), {}", a.key, bytes);
    case Space::array: return fmt::format("CUDA array {:#x}", a.key);
    case Space::condition:
      for (const Level* l = &level; l != nullptr; l = l->parent) {
        for (std::size_t k = 0; k < l->g->conditions.size(); ++k) {
          if (l->g->conditions[k].uid == a.key) return fmt::format("Condition {} of graph '{}'", k, l->g->name);
        }
      }
      return "a Condition";
  }
  return {};
}

RaceAccess side(const Level& level, const Access& a) {
  return RaceAccess{level.info(a.node), a.mode, what(level, a), via(a)};
}

// ---- races ------------------------------------------------------------------------------------

/// Whether two regions are in the same memory (space and key).
bool same_key(const Region& a, const Region& b) noexcept { return a.space == b.space && a.key == b.key; }

class RaceFinder {
 public:
  RaceFinder(Level& level, Order& order) : level_(level), order_(order) {}

  void run() {
    const std::vector<Access>& acc = level_.accesses;
    // A pair of nodes is checked once per pair of their accesses: only a node with several
    // accesses can make a pair come up twice, and only such pairs are remembered (seen_). Pairs of
    // nodes with one access each (thousands of unordered writers of one buffer) cost no memory.
    std::vector<std::uint8_t> count(level_.g->nodes.size(), 0);
    for (const Access& a : acc) count[a.node] = count[a.node] < 2 ? count[a.node] + 1 : 2;
    several_.assign(count.size(), false);
    for (std::size_t v = 0; v < count.size(); ++v) several_[v] = count[v] > 1;
    std::vector<std::uint32_t> idx(acc.size());
    for (std::uint32_t k = 0; k < idx.size(); ++k) idx[k] = k;
    std::sort(idx.begin(), idx.end(), [&](std::uint32_t x, std::uint32_t y) {
      const Region& a = acc[x].r;
      const Region& b = acc[y].r;
      if (a.space != b.space) return a.space < b.space;
      if (a.key != b.key) return a.key < b.key;
      if (a.lo != b.lo) return a.lo < b.lo;
      return x < y;
    });
    std::size_t begin = 0;
    std::size_t peeled = 0;  // accesses to the end of their buffer checked apart, in this key
    while (begin < idx.size()) {
      const Region& first = acc[idx[begin]].r;
      if (begin == 0 || !same_key(acc[idx[begin - 1]].r, first)) peeled = 0;
      if (first.hi == all_bytes && peeled < 64) {  // an allocation (the whole buffer) and the parts of it
        ++peeled;
        for (std::size_t k = begin + 1; k < idx.size() && same_key(acc[idx[k]].r, first); ++k) {
          check(acc[idx[begin]], acc[idx[k]]);
        }
        ++begin;
        continue;
      }
      std::uint64_t hi = first.hi;
      std::size_t end = begin + 1;
      for (; end < idx.size(); ++end) {
        const Region& r = acc[idx[end]].r;
        if (r.space != first.space || r.key != first.key || r.lo >= hi) break;
        hi = std::max(hi, r.hi);
      }
      group(idx.data() + begin, end - begin);
      begin = end;
    }
  }

 private:
  void group(const std::uint32_t* members, std::size_t count) {
    if (count < 2) return;
    const std::vector<Access>& acc = level_.accesses;
    bool writes = false;
    for (std::size_t k = 0; k < count; ++k) writes = writes || acc[members[k]].mode == AccessMode::write;
    if (!writes) return;
    if (count <= 64) {
      for (std::size_t x = 0; x < count; ++x) {
        for (std::size_t y = x + 1; y < count; ++y) check(acc[members[x]], acc[members[y]]);
      }
    } else {
      large_group(members, count);
    }
  }

  /// Records a race when a and b (distinct nodes, one writing, overlapping) are not ordered.
  void check(const Access& a, const Access& b) {
    if (a.node == b.node || (a.mode != AccessMode::write && b.mode != AccessMode::write)) return;
    if (!overlap(a.r, b.r) || order_.ordered(a.node, b.node)) return;
    const Access& x = a.node < b.node ? a : b;
    const Access& y = a.node < b.node ? b : a;
    if ((several_[x.node] || several_[y.node]) && !seen_.insert((std::uint64_t{x.node} << 32) | y.node).second) return;
    ++level_.races_found;
    if (level_.races.size() < RaceReport::max_races) {
      level_.races.push_back(Race{side(level_, x), side(level_, y), memory(level_, x.r, y.r)});
    }
  }

  /// Many accesses overlapping one another: walk them in topological order, keeping bitsets of the
  /// nodes that accessed (and wrote) so far; an access races with earlier ones that are not its
  /// ancestors.
  void large_group(const std::uint32_t* members, std::size_t count) {
    const std::vector<Access>& acc = level_.accesses;
    std::vector<std::uint32_t> by_pos(members, members + count);
    std::stable_sort(by_pos.begin(), by_pos.end(), [&](std::uint32_t x, std::uint32_t y) {
      return order_.pos(acc[x].node) < order_.pos(acc[y].node);
    });
    if (chained(by_pos)) return;
    const Reach& reach = order_.reach();
    const std::size_t words = reach.words();
    std::vector<std::uint64_t> seen_any(words), seen_write(words);
    std::vector<std::vector<std::uint32_t>> of_node;  // accesses of each node seen so far, by slot
    std::vector<std::int32_t>& slot = slots(level_.g->nodes.size());
    for (std::uint32_t m : by_pos) {
      const Access& a = acc[m];
      const std::uint64_t* anc = reach.row(a.node);
      const std::vector<std::uint64_t>& earlier = a.mode == AccessMode::write ? seen_any : seen_write;
      for (std::size_t w = 0; w < words; ++w) {
        std::uint64_t bits = earlier[w] & ~anc[w];
        while (bits != 0) {
          const auto u = static_cast<std::uint32_t>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
          bits &= bits - 1;
          for (std::uint32_t other : of_node[static_cast<std::size_t>(slot[u])]) check(acc[other], a);
        }
      }
      if (slot[a.node] < 0) {
        slot[a.node] = static_cast<std::int32_t>(of_node.size());
        of_node.emplace_back();
      }
      of_node[static_cast<std::size_t>(slot[a.node])].push_back(m);
      seen_any[a.node / 64] |= std::uint64_t{1} << (a.node % 64);
      if (a.mode == AccessMode::write) seen_write[a.node / 64] |= std::uint64_t{1} << (a.node % 64);
    }
    for (std::uint32_t m : by_pos) slot[acc[m].node] = -1;
  }

  /// True when the nodes of `by_pos` (accesses in topological order) are all ordered: each after the
  /// one before it (a buffer updated by a sequence of nodes), so that none of them race. Linear when
  /// consecutive nodes are close in the plan.
  bool chained(const std::vector<std::uint32_t>& by_pos) {
    std::uint32_t prev = ConditionRef::unresolved;
    for (std::uint32_t m : by_pos) {
      const std::uint32_t v = level_.accesses[m].node;
      if (prev != ConditionRef::unresolved && v != prev && !order_.ordered(prev, v)) return false;
      prev = v;
    }
    return true;
  }

  std::vector<std::int32_t>& slots(std::size_t n) {
    if (slot_.size() != n) slot_.assign(n, -1);
    return slot_;
  }

  Level& level_;
  Order& order_;
  std::unordered_set<std::uint64_t> seen_;  ///< pairs of nodes found racing, one of them with several accesses
  std::vector<bool> several_;               ///< per node: it has several accesses
  std::vector<std::int32_t> slot_;
};

}  // namespace

std::unique_ptr<Level> analyze(const GraphImpl& g, std::string context, const Scope* outer, const Level* parent) {
  auto level = std::make_unique<Level>();
  level->g = &g;
  level->parent = parent;
  level->context = std::move(context);
  const std::vector<std::uint32_t> order = creation_order(g, level->context.empty() ? std::string()
                                                                                    : level->context + ": ");
  // declared ranges by node (CSR)
  const auto n = static_cast<std::uint32_t>(g.nodes.size());
  std::vector<std::uint32_t> first(n + 1, 0);
  for (const DeclaredAccess& d : g.declared) ++first[d.node + 1];
  for (std::uint32_t v = 0; v < n; ++v) first[v + 1] += first[v];
  std::vector<const DeclaredAccess*> by_node(g.declared.size());
  std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
  for (const DeclaredAccess& d : g.declared) by_node[fill[d.node]++] = &d;
  const Scope here{&g, outer};
  std::vector<const DeclaredAccess*> decl;
  for (std::uint32_t i = 0; i < n; ++i) {
    decl.assign(by_node.begin() + first[i], by_node.begin() + first[i + 1]);
    node_accesses(g, i, here, decl, *level);
  }
  Order ordering(g, order, *level);
  ordering.find_redundant();
  RaceFinder(*level, ordering).run();
  std::sort(level->races.begin(), level->races.end(), [](const Race& a, const Race& b) {
    return std::pair(a.first.node.index, a.second.node.index) < std::pair(b.first.node.index, b.second.node.index);
  });
  std::sort(level->redundant.begin(), level->redundant.end(), [](const RedundantEdge& a, const RedundantEdge& b) {
    return std::pair(a.from.index, a.to.index) < std::pair(b.from.index, b.to.index);
  });
  return level;
}

namespace {

/// Appends the findings of `level`
/// Appends the findings of `level` and of the plans it holds (pre-order) to `r`.
void emit(const Level& level, RaceReport& r) {
  for (const Race& x : level.races) {
    if (r.races.size() < RaceReport::max_races) r.races.push_back(x);
  }
  r.races_found += level.races_found;
  r.redundant_edges.insert(r.redundant_edges.end(), level.redundant.begin(), level.redundant.end());
  r.unbounded.insert(r.unbounded.end(), level.unbounded.begin(), level.unbounded.end());
  r.unknown_extents += level.unknown_extents;
  for (const auto& inner : level.nested) emit(*inner, r);
}

}  // namespace

}  // namespace race

void declare_accesses(const Node& node, const DeclaredAccess* list, std::size_t count) {
  if (node.ref().plan == 0) throw UsageError("accesses(): empty node handle (a default-constructed Node was used)");
  GraphImpl& g = changeable(node, "declaring its accesses");
  for (std::size_t k = 0; k < count; ++k) {
    const DeclaredAccess& d = list[k];
    const std::string who = fmt::format("{}{}", g.info(node.index()).describe(),
                                        d.param >= 0 ? fmt::format(", parameter {}", d.param) : ", accesses()");
    const std::string range = fmt::format("gd::{} declares elements [{}, {})",
                                          d.mode == AccessMode::write ? "writes" : "reads", d.first,
                                          race::sat_add(d.first, d.count));
    if (d.overflow) {
      throw UsageError(fmt::format("{}: {} of {} bytes each; the byte range does not fit in 64 bits", who, range,
                                   d.element));
    }
    if (d.buffer && (d.key == 0 || race::sat_add(d.begin, d.bytes) > d.buffer_bytes)) {
      throw UsageError(
          fmt::format("{}: {} of a graph buffer of {} elements; a declared range must lie inside its "
                      "buffer",
                      who, range, d.buffer_bytes / std::max<std::size_t>(d.element, 1)));
    }
    if (!d.buffer && d.begin == 0 && d.bytes > 0) {
      throw UsageError(fmt::format("{}: {} at a null pointer", who, range));
    }
  }
  g.declared.reserve(g.declared.size() + count);  // all or none: the pushes below cannot throw
  for (std::size_t k = 0; k < count; ++k) {
    g.declared.push_back(list[k]);
    g.declared.back().node = node.index();
  }
}

}  // namespace detail

// ---- public -----------------------------------------------------------------------------------

std::string Race::to_string() const {
  auto one = [](const RaceAccess& a) {
    return fmt::format("{} {} ({}{})", a.node.describe(), a.mode == AccessMode::write ? "writes" : "reads", a.what,
                       a.via.empty() ? std::string() : ", via " + a.via);
  };
  return fmt::format("{}/{} race: {} and {} touch {} with no path of edges between them; add an edge to order them",
                     first.mode == AccessMode::write ? "write" : "read",
                     second.mode == AccessMode::write ? "write" : "read", one(first), one(second), memory);
}

std::string RaceReport::to_string() const {
  std::string s = fmt::format(
      "race check: {} race{}, {} redundant edge{}, {} node{} not bounded, {} kernel pointer "
      "parameter{} of unknown extent (checked at the pointer)\n",
      races_found, races_found == 1 ? "" : "s", redundant_edges.size(), redundant_edges.size() == 1 ? "" : "s",
      unbounded.size(), unbounded.size() == 1 ? "" : "s", unknown_extents, unknown_extents == 1 ? "" : "s");
  for (const Race& r : races) s += "  " + r.to_string() + "\n";
  if (races_found > races.size()) s += fmt::format("  ... and {} more races\n", races_found - races.size());
  for (const RedundantEdge& e : redundant_edges) {
    s += fmt::format("  redundant edge {} -> {}: implied by another path{}\n", e.from.ref(), e.to.ref(),
                     e.to.context.empty() ? std::string() : " " + e.to.context);
  }
  for (const UnboundedAccess& u : unbounded) s += fmt::format("  not bounded: {}: {}\n", u.node.describe(), u.reason);
  return s;
}

RaceReport Graph::check_races() const {
  const std::unique_ptr<detail::race::Level> top = detail::race::analyze(impl(), std::string(), nullptr, nullptr);
  RaceReport r;
  detail::race::emit(*top, r);
  return r;
}

void Graph::validate(const ValidateOptions& options) const {
  validate();
  if (!options.races) return;
  const RaceReport r = check_races();
  if (r.ok()) return;
  throw UsageError(r.races.front().to_string() +
                   (r.races_found > 1 ? fmt::format(" ({} more: see Graph::check_races())", r.races_found - 1)
                                      : std::string()));
}

}  // namespace graphdsl
