// src/plan/race_order.cpp — ordering the nodes of one plan level for the race checker: searches
// backwards over predecessor lists, and the bitset Reach they fall back to. No CUDA call.
#include "plan/race_order.hpp"

#include <algorithm>
#include <cstring>

namespace graphdsl::detail::race {

Reach::Reach(const GraphImpl& g, const std::vector<std::uint32_t>& order, Level& level, bool record, bool finished)
    : words_((g.nodes.size() + 63) / 64), bits_(g.nodes.size() * words_) {
  std::vector<std::uint64_t> implied(words_);
  for (const std::uint32_t v : order) {
    const SmallVec& preds = g.nodes[v].preds;
    std::uint64_t* out = row(v);
    if (preds.size() == 1) {
      std::memcpy(out, row(preds[0]), words_ * sizeof(std::uint64_t));
    } else if (preds.size() > 1) {
      std::fill(implied.begin(), implied.end(), 0);
      for (std::uint32_t p : preds) {
        const std::uint64_t* in = row(p);
        for (std::size_t w = 0; w < words_; ++w) implied[w] |= in[w];
      }
      for (std::uint32_t p : preds) {
        if (record && test(implied.data(), p)) level.redundant.push_back(RedundantEdge{level.info(p), level.info(v)});
      }
      std::memcpy(out, implied.data(), words_ * sizeof(std::uint64_t));
    }
    for (std::uint32_t p : preds) {
      if (!finished || edge_kind(g, p, v) == EdgeKind::full) out[p / 64] |= std::uint64_t{1} << (p % 64);
    }
  }
}

Order::Order(const GraphImpl& g, const std::vector<std::uint32_t>& order, Level& level)
    : g_(g),
      order_(order),
      level_(level),
      pos_(g.nodes.size()),
      mark_(g.nodes.size(), 0),
      budget_(4 * (g.nodes.size() + g.edge_count) + 4096) {
  for (std::uint32_t k = 0; k < order.size(); ++k) pos_[order[k]] = k;
}

bool Order::mark_ancestors(const std::uint32_t* from, std::size_t count, std::uint32_t lo, std::uint32_t target) {
  ++stamp_;
  stack_.assign(from, from + count);
  while (!stack_.empty()) {
    const std::uint32_t w = stack_.back();
    stack_.pop_back();
    const SmallVec& preds = g_.nodes[w].preds;
    if (preds.size() > budget_) return false;
    budget_ -= preds.size();
    for (std::uint32_t p : preds) {
      if (pos_[p] < lo || marked(p)) continue;  // placed before lo: neither the target nor above it
      mark_[p] = stamp_;
      if (p == target) return true;
      stack_.push_back(p);
    }
  }
  return true;
}

void Order::find_redundant() {
  if (!g_.edge_kinds.empty()) {  // edges that let their successor start early: judged by completion
    (void)Reach(g_, order_, level_, true, true);
    return;
  }
  for (std::uint32_t v = 0; v < g_.nodes.size(); ++v) {
    const SmallVec& preds = g_.nodes[v].preds;
    if (preds.size() < 2 || reach_) continue;
    std::uint32_t lo = pos_[preds[0]];
    for (std::uint32_t p : preds) lo = std::min(lo, pos_[p]);
    // p -> v is redundant when p is a strict ancestor of another predecessor: one search from all of them.
    if (!mark_ancestors(preds.begin(), preds.size(), lo, ConditionRef::unresolved)) {
      level_.redundant.clear();  // Reach finds them all
      reach_.emplace(g_, order_, level_, true);
      return;
    }
    for (std::uint32_t p : preds) {
      if (marked(p)) level_.redundant.push_back(RedundantEdge{level_.info(p), level_.info(v)});
    }
  }
}

bool Order::ordered(std::uint32_t u, std::uint32_t v) {
  if (reach_) return reach_->ordered(pos_, u, v);
  if (pos_[u] > pos_[v]) std::swap(u, v);
  if (mark_ancestors(&v, 1, pos_[u], u)) return marked(u);
  return reach().ordered(pos_, u, v);  // the budget ran out
}

const Reach& Order::reach() {
  if (!reach_) reach_.emplace(g_, order_, level_, false);
  return *reach_;
}

}  // namespace graphdsl::detail::race
