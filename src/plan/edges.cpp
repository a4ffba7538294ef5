// src/plan/edges.cpp — adding edges to a plan's node lists with set semantics, at a cost that does
// not grow with the lists: a short predecessor list is searched, a long one is indexed
// (GraphImpl::long_edges), and a range that is a good part of the plan is marked in one pass; and
// the kinds of edges that are not full ones (GraphImpl::edge_kinds). No CUDA call.
#include <algorithm>
#include <utility>
#include <vector>

#include "plan/graph_impl.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail {

namespace {

std::uint64_t edge_key(std::uint32_t to, std::uint32_t from) noexcept { return std::uint64_t{to} << 32 | from; }

/// Adds from -> to, which g does not hold, to both lists. Strong guarantee.
void append_edge(GraphImpl& g, std::uint32_t to, std::uint32_t from) {
  SmallVec& preds = g.nodes[to].preds;
  preds.push_back(from);
  try {
    g.succs[from].push_back(to);
  } catch (...) {
    preds.pop_back();
    throw;
  }
  ++g.edge_count;
}

/// Puts node `to`'s predecessor list into g.long_edges, once (its marker says it is in).
void index_preds(GraphImpl& g, std::uint32_t to) {
  const std::uint64_t marker = edge_key(to, ConditionRef::unresolved);
  if (g.long_edges.count(marker) != 0) return;
  for (std::uint32_t p : g.nodes[to].preds) g.long_edges.insert(edge_key(to, p));  // a key per edge held: a
  g.long_edges.insert(marker);  // partial fill (std::bad_alloc) leaves only true keys
}

bool edge_before(const EdgeKindData& e, std::pair<std::uint32_t, std::uint32_t> to_from) {
  return std::make_pair(e.to, e.from) < to_from;
}

/// add_preds, with the basic guarantee (a failure may leave some of the edges added).
void add_preds_some(GraphImpl& g, std::uint32_t to, const Node* from, std::size_t count) {
  SmallVec& preds = g.nodes[to].preds;
  if (preds.size() + count <= long_preds) {
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint32_t f = from[k].index();
      if (std::find(preds.begin(), preds.end(), f) == preds.end()) append_edge(g, to, f);
    }
    return;
  }
  const bool indexed = g.long_edges.count(edge_key(to, ConditionRef::unresolved)) != 0;
  if (!indexed && count >= g.nodes.size() / 8) {  // a range of a good part of the plan: mark what is there once
    std::vector<bool> present(g.nodes.size());
    for (std::uint32_t p : preds) present[p] = true;
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint32_t f = from[k].index();
      if (present[f]) continue;
      append_edge(g, to, f);
      present[f] = true;
    }
    return;
  }
  index_preds(g, to);
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t key = edge_key(to, from[k].index());
    if (!g.long_edges.insert(key).second) continue;
    try {
      append_edge(g, to, from[k].index());
    } catch (...) {
      g.long_edges.erase(key);
      throw;
    }
  }
}

}  // namespace

void pop_edge(GraphImpl& g, std::uint32_t to) noexcept {
  SmallVec& preds = g.nodes[to].preds;
  const std::uint32_t from = preds.data()[preds.size() - 1];
  preds.pop_back();
  g.succs[from].pop_back();  // append_edge pushed `to` there last
  g.long_edges.erase(edge_key(to, from));
  --g.edge_count;
}

void add_preds(GraphImpl& g, std::uint32_t to, const Node* from, std::size_t count) {
  const std::uint32_t before = g.nodes[to].preds.size();
  try {
    add_preds_some(g, to, from, count);
  } catch (...) {  // all or none: the edges this call added go again, the last first
    while (g.nodes[to].preds.size() > before) pop_edge(g, to);
    throw;
  }
}

namespace {

/// Removes `value` from `list` (which holds it once), keeping the order of the others. Searched from
/// the end: the edges added last go first (undoing, editing what was just built) in O(1).
void drop(SmallVec& list, std::uint32_t value) noexcept {
  std::uint32_t* p = list.data();
  const std::uint32_t n = list.size();
  std::uint32_t k = n;
  while (k > 0 && p[k - 1] != value) --k;
  for (k = k == 0 ? 0 : k - 1; k + 1 < n; ++k) p[k] = p[k + 1];
  list.pop_back();
}

/// Removes from -> to from the index, the edge kinds and the count (not from the lists).
void forget_edge(GraphImpl& g, std::uint32_t to, std::uint32_t from) noexcept {
  g.long_edges.erase(edge_key(to, from));
  --g.edge_count;
  auto& kinds = g.edge_kinds;
  if (kinds.empty()) return;
  const auto it = std::lower_bound(kinds.begin(), kinds.end(), std::make_pair(to, from), edge_before);
  if (it != kinds.end() && it->to == to && it->from == from) kinds.erase(it);
}

}  // namespace

void remove_pred(GraphImpl& g, std::uint32_t to, std::uint32_t from) noexcept {
  drop(g.nodes[to].preds, from);
  drop(g.succs[from], to);
  forget_edge(g, to, from);
}

void remove_preds_except(GraphImpl& g, std::uint32_t to, const std::vector<bool>& keep) noexcept {
  SmallVec& preds = g.nodes[to].preds;
  std::uint32_t* p = preds.data();
  const std::uint32_t n = preds.size();
  std::uint32_t kept = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t from = p[k];
    if (keep[from]) {
      p[kept++] = from;
      continue;
    }
    drop(g.succs[from], to);
    forget_edge(g, to, from);
  }
  while (preds.size() > kept) preds.pop_back();
}

EdgeKind edge_kind(const GraphImpl& g, std::uint32_t from, std::uint32_t to) noexcept {
  if (g.edge_kinds.empty()) return EdgeKind::full;
  const auto it = std::lower_bound(g.edge_kinds.begin(), g.edge_kinds.end(), std::make_pair(to, from), edge_before);
  return it != g.edge_kinds.end() && it->to == to && it->from == from ? it->kind : EdgeKind::full;
}

void add_edge_of_kind(const Node& from, const Node& to, EdgeKind kind) {
  (void)checked_enum(kind, EdgeKind::launch_completion, "after", "EdgeKind",
                     "an edge kind (full, programmatic or launch_completion)");
  GraphImpl& g = handle_plan(to);  // room for the kind first: once the edge is in, the insert below cannot fail
  auto& all = g.edge_kinds;
  if (all.size() == all.capacity()) all.reserve(2 * all.size() + 1);
  add_edges(&from, 1, to);  // checks the edge; set semantics
  const auto key = std::make_pair(to.index(), from.index());
  const auto it = std::lower_bound(all.begin(), all.end(), key, edge_before);
  const bool present = it != all.end() && it->to == key.first && it->from == key.second;
  if (kind == EdgeKind::full) {
    if (present) all.erase(it);
  } else if (present) {
    it->kind = kind;
  } else {
    all.insert(it, EdgeKindData{from.index(), to.index(), kind});
  }
}

}  // namespace graphdsl::detail
