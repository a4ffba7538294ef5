// src/plan/rules.cpp — the rules a plan must satisfy before it reaches CUDA.
//
// The rules of one node kind are in the rules section of src/kinds/<kind>.cpp (RuleOps,
// plan/kind_rules.hpp); here: what applies to every node (edge kinds, placement), the plan-wide
// rules (cycles, scopes of Conditions, graph memory, conditional bodies) and the walk over the plans.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/graph_build.hpp"
#include "plan/kind_rules.hpp"
#include "plan/nested_buffers.hpp"
#include "plan/placement.hpp"
#include "plan/plan_access.hpp"
#include "plan/rule_kit.hpp"
#include "plan/rules.hpp"
#include "plan/thread_scratch.hpp"

namespace graphdsl::detail {

BufferUses buffer_uses_of(const GraphImpl& g, std::uint32_t i) {
  const BufferUse* const end = g.buffer_uses.data() + g.buffer_uses.size();
  const BufferUse* const first = std::lower_bound(g.buffer_uses.data(), end, i,
                                                  [](const BufferUse& u, std::uint32_t n) { return u.node < n; });
  const BufferUse* last = first;
  while (last != end && last->node == i) ++last;
  return BufferUses{first, last};
}

bool whole_buffer(const GraphImpl& g, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes) {
  return offset == 0 && bytes == g.allocs[g.nodes[alloc_node].payload].bytes;
}

namespace {

std::string range_text(std::uint64_t offset, std::uint64_t bytes) {
  std::uint64_t end = 0;
  if (__builtin_add_overflow(offset, bytes, &end)) return fmt::format(" bytes [{}, past 2^64)", offset);
  return fmt::format(" bytes [{}, {})", offset, end);
}

}  // namespace

std::string slice_text(const GraphImpl& g, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes) {
  if (whole_buffer(g, alloc_node, offset, bytes)) return {};
  return range_text(offset, bytes);
}

std::string buffer_text(const GraphImpl& g, ConditionRef r, std::uint64_t offset, std::uint64_t bytes) {
  if (r.levels == 0) return g.info(r.index).ref() + slice_text(g, r.index, offset, bytes);
  return fmt::format("#{} of the plan {} level{} out,{}", r.index, r.levels, r.levels == 1 ? "" : "s",
                     range_text(offset, bytes));
}

std::string buffer_use_text(const GraphImpl& g, const BufferUse& u) {
  const std::uint64_t at = buffer_use_offset(g, u);
  if (u.alloc_node == ConditionRef::unresolved || (u.levels == 0 && whole_buffer(g, u.alloc_node, at, u.bytes)))
    return {};
  return buffer_text(g, ConditionRef{u.levels, u.alloc_node}, at, u.bytes);
}

namespace rule {

void check_slice(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const std::string& what,
                 const GraphImpl& owner, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes) {
  const std::size_t have = owner.allocs[owner.nodes[alloc_node].payload].bytes;
  if (!Count{offset}.plus(Count{bytes}).above(have)) return;
  fail(g, i, ctx,
       fmt::format("{} is{} of the buffer of {}{}, which holds {} bytes: the slice passes the end of its allocation",
                   what, slice_text(owner, alloc_node, offset, bytes), owner.info(alloc_node).describe(),
                   &owner == &g ? "" : fmt::format(" of graph {}", quoted(owner.name)), have));
}

namespace {

/// The buffer use of node i for `field`, or nullptr.
const BufferUse* buffer_use(const GraphImpl& g, std::uint32_t i, BufferField field) {
  for (const BufferUse& u : buffer_uses_of(g, i)) {
    if (u.field == field) return &u;
  }
  return nullptr;
}

}  // namespace

/// Checks a memset/memcpy pointer that may be a graph buffer: null only when a buffer stands for
/// it; the buffer allocated by this plan and large enough for `bytes`.
void check_pointer(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const void* ptr, BufferField field,
                   const char* what, const Count& bytes) {
  const BufferUse* u = buffer_use(g, i, field);
  if (u == nullptr) {
    if (ptr == nullptr) fail(g, i, ctx, fmt::format("the {} pointer is null", what));
    return;
  }
  if (u->alloc_node == no_buffer) {
    fail(g, i, ctx,
         fmt::format("its {} is a GraphBuffer not allocated by graph {} or a plan enclosing it {}", what,
                     quoted(g.name), rule::buffer_scope_hint));
  }
  if (u->levels != 0) {  // a buffer of a plan enclosing this one: its range is checked there (check_outer_buffers)
    if (bytes.above(u->bytes)) {
      fail(g, i, ctx,
           fmt::format("touches {} bytes of its {}, a GraphBuffer of a plan enclosing graph {}, which holds {} bytes",
                       bytes.text(), what, quoted(g.name), u->bytes));
    }
    return;
  }
  const std::size_t have = g.allocs[g.nodes[u->alloc_node].payload].bytes;
  const std::uint64_t offset = reinterpret_cast<std::uintptr_t>(ptr);  // the slice's byte offset (use_buffer)
  if (whole_buffer(g, u->alloc_node, offset, u->bytes)) {
    if (bytes.above(have)) {
      fail(g, i, ctx,
           fmt::format("touches {} bytes of its {}, the buffer of {}, which holds {} bytes", bytes.text(), what,
                       g.info(u->alloc_node).describe(), have));
    }
    return;
  }
  check_slice(g, i, ctx, fmt::format("its {}", what), g, u->alloc_node, offset, u->bytes);
  if (bytes.above(u->bytes)) {
    fail(g, i, ctx,
         fmt::format("touches {} bytes of its {},{} of the buffer of {}, a slice of {} bytes", bytes.text(), what,
                     slice_text(g, u->alloc_node, offset, u->bytes), g.info(u->alloc_node).describe(), u->bytes));
  }
}

/// Refuses a byte count above max_bytes (`what` says which, e.g. "sets", "copies").
void check_size(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const char* what, const Count& bytes) {
  if (bytes.too_large()) {
    fail(g, i, ctx,
         fmt::format("{} {} bytes, more than {} bytes, the largest size graphdsl accepts (a negative count "
                     "converted to std::size_t, or a size that wraps around?)",
                     what, bytes.text(), max_bytes));
  }
}

}  // namespace rule

namespace {

using rule::fail;
using rule::no_buffer;

/// Edges into node i that are not full ones join two kernels (CUDA's rule for programmatic and
/// launch-completion edges).
void check_edge_kinds(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  // edge_kinds is sorted by (to, from): node i's edges are one run, found by binary search (a scan
  // of every record for every node made validate() quadratic on a chain of programmatic edges).
  const auto first = std::lower_bound(g.edge_kinds.begin(), g.edge_kinds.end(), i,
                                      [](const EdgeKindData& e, std::uint32_t to) { return e.to < to; });
  for (auto it = first; it != g.edge_kinds.end() && it->to == i; ++it) {
    const EdgeKindData& e = *it;
    if (!rule_ops(g.nodes[e.from].kind).kinded_edges || !rule_ops(g.nodes[i].kind).kinded_edges) {
      fail(g, i, ctx,
           fmt::format("its {} edge from {}: CUDA allows {} edges between kernel nodes only", to_string(e.kind),
                       g.info(e.from).describe(), to_string(e.kind)));
    }
    if (static_cast<unsigned>(e.kind) > 2) {
      fail(g, i, ctx,
           fmt::format("its edge from {} has kind {}, which is not an EdgeKind", g.info(e.from).describe(),
                       static_cast<unsigned>(e.kind)));
    }
  }
}

}  // namespace

namespace {

/// check_node, `ops` being the RuleOps of node i's kind (check_plan's walk looks them up once per node).
void check_node_by(const RuleOps& ops, const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  if (ops.check != nullptr) ops.check(g, i, ctx);
  if (!g.edge_kinds.empty()) check_edge_kinds(g, i, ctx);
  check_placement(g, i, ops, ctx);
}

}  // namespace

void check_node(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  check_node_by(rule_ops(g.nodes[i].kind), g, i, ctx);
}

namespace {

/// Finds one cycle among the nodes Kahn's algorithm could not order, and names it.
[[noreturn]] void report_cycle(const GraphImpl& g, const std::vector<std::uint32_t>& indegree, const std::string& ctx) {
  // Among unordered nodes every one has an unordered predecessor: walk predecessors until a node
  // repeats; the repeated stretch is a cycle (listed here in run order).
  std::uint32_t start = 0;
  while (indegree[start] == 0) ++start;
  std::vector<std::uint32_t> walk;
  std::vector<int> seen_at(g.nodes.size(), -1);
  std::uint32_t cur = start;
  while (seen_at[cur] < 0) {
    seen_at[cur] = static_cast<int>(walk.size());
    walk.push_back(cur);
    const auto& preds = g.nodes[cur].preds;
    cur = *std::find_if(preds.begin(), preds.end(), [&](std::uint32_t p) { return indegree[p] != 0; });
  }
  std::vector<std::uint32_t> cycle(walk.begin() + seen_at[cur], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // predecessors were followed: reverse into run order
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());  // start at the lowest index
  std::string text;
  for (std::uint32_t v : cycle) text += g.info(v).ref() + " -> ";
  text += g.info(cycle.front()).ref();
  throw UsageError(fmt::format("{}cycle: {}", ctx, text));
}

}  // namespace

std::vector<std::uint32_t> creation_order(const GraphImpl& g, const std::string& context) {
  std::vector<std::uint32_t> order;
  creation_order_into(g, context, order);
  return order;
}

void creation_order_into(const GraphImpl& g, const std::string& context, std::vector<std::uint32_t>& order) {
  const auto n = static_cast<std::uint32_t>(g.nodes.size());
  // Kahn's algorithm over a successor table; ready nodes are taken in FIFO order, seeded in index
  // order, so the order is a deterministic function of the plan. One buffer holds the in-degrees
  // (n), the successor ranges (n + 2: node p's successors are succ[first[p]] .. succ[first[p + 1]])
  // and the successors (one per edge).
  // The buffer is the thread's, kept between calls (instantiating a plan of a few nodes is a hot
  // path); a large plan's is given back afterwards.
  struct WorkTag;
  ThreadScratch<std::uint32_t, WorkTag> kept_work;
  std::vector<std::uint32_t>& work = kept_work.get();
  work.assign(2 * std::size_t{n} + 2 + g.edge_count, 0);
  std::uint32_t* const indegree = work.data();
  std::uint32_t* const first = indegree + n;
  std::uint32_t* const succ = first + n + 2;
  for (std::uint32_t v = 0; v < n; ++v) {
    indegree[v] = static_cast<std::uint32_t>(g.nodes[v].preds.size());
    for (std::uint32_t p : g.nodes[v].preds) ++first[p + 2];
  }
  for (std::uint32_t v = 2; v < n + 2; ++v) first[v] += first[v - 1];
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint32_t p : g.nodes[v].preds) succ[first[p + 1]++] = v;  // first[p + 1] ends as p + 1's start
  }
  order.clear();
  order.reserve(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    if (indegree[v] == 0 && g.nodes[v].removed == 0) order.push_back(v);  // a removed node is not created
  }
  for (std::size_t head = 0; head < order.size(); ++head) {
    const std::uint32_t u = order[head];
    for (std::uint32_t e = first[u]; e < first[u + 1]; ++e) {
      if (--indegree[succ[e]] == 0) order.push_back(succ[e]);
    }
  }
  if (order.size() != n - g.removed_nodes) report_cycle(g, std::vector<std::uint32_t>(indegree, indegree + n), context);
}

namespace {

using rule::Scope;
using rule::Usage;

/// The scope `r.levels` out of `s`, or nullptr.
const Scope* scope_out(const Scope* s, ConditionRef r) {
  for (std::uint32_t k = 0; s != nullptr && k < r.levels; ++k) s = s->outer;
  return s;
}

const GraphImpl* declaring_plan(const Scope* s, ConditionRef r) {
  s = scope_out(s, r);
  return s == nullptr ? nullptr : s->plan;
}

}  // namespace

/// References are positions, and a plan copied out of a conditional body (body_plan) keeps them:
/// embedded elsewhere as a child, "one plan out" is then another plan, which may declare fewer
/// conditions (compiling it would read past that plan's condition handles).
const GraphImpl& rule::condition_owner(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const Scope* here,
                                       ConditionRef r, const char* what) {
  const GraphImpl* owner = declaring_plan(here, r);
  if (owner == nullptr) {
    fail(g, i, ctx, fmt::format("{} belongs to a plan enclosing this one, which is being compiled without it", what));
  }
  if (r.index >= owner->conditions.size()) {
    fail(g, i, ctx,
         fmt::format("{} refers to condition number {} of graph {}, {} level{} out, which declares {} "
                     "(a plan copied out of a conditional body keeps its references to the conditions of "
                     "the plan around that body)",
                     what, r.index, quoted(owner->name), r.levels, r.levels == 1 ? "" : "s", owner->conditions.size()));
  }
  return *owner;
}

namespace {

/// Reachability from up to 64 source nodes at once, one pass over the plan in run order: bit k of
/// mask[v] is set when v is sources[k] or runs after it (forward), or runs before it (backward).
/// 64 allocations cost one pass, so checking a plan's allocations is O((nodes + edges) * allocs / 64)
/// rather than one search per allocation.
std::vector<std::uint64_t> reach_masks(const GraphImpl& g, const std::vector<std::uint32_t>& order,
                                       const std::uint32_t* sources, std::size_t count, bool forward) {
  std::vector<std::uint64_t> mask(g.nodes.size(), 0);
  for (std::size_t k = 0; k < count; ++k) mask[sources[k]] |= std::uint64_t{1} << k;
  if (forward) {
    for (std::uint32_t v : order) {
      for (std::uint32_t p : g.nodes[v].preds) mask[v] |= mask[p];
    }
  } else {
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      for (std::uint32_t p : g.nodes[*it].preds) mask[p] |= mask[*it];
    }
  }
  return mask;
}

/// Checks the free and the uses of each allocation in `allocs` (at most 64; `free_of` and `users`
/// indexed by node).
void check_allocs(const GraphImpl& g, const std::string& ctx, const std::vector<std::uint32_t>& order,
                  const std::uint32_t* allocs, std::size_t count, const std::vector<std::uint32_t>& free_of,
                  const std::vector<std::vector<std::uint32_t>>& users) {
  std::vector<std::uint32_t> frees;
  for (std::size_t k = 0; k < count; ++k)
    frees.push_back(free_of[allocs[k]] == no_buffer ? allocs[k] : free_of[allocs[k]]);
  const std::vector<std::uint64_t> after = reach_masks(g, order, allocs, count, true);
  const std::vector<std::uint64_t> before = reach_masks(g, order, frees.data(), count, false);
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t a = allocs[k];
    const std::uint64_t bit = std::uint64_t{1} << k;
    const std::uint32_t f = free_of[a];
    if (f != no_buffer && !(after[f] & bit)) {
      throw UsageError(
          fmt::format("{}{} is not ordered after {}, the allocation it frees; add edges so that {} runs "
                      "before {}",
                      ctx, g.info(f).describe(), g.info(a).describe(), g.info(a).ref(), g.info(f).ref()));
    }
    for (const std::uint32_t user : users[a]) {
      if (!(after[user] & bit)) {
        throw UsageError(
            fmt::format("{}{} uses the buffer of {} but is not ordered after it; add edges so that {} runs "
                        "before {}",
                        ctx, g.info(user).describe(), g.info(a).describe(), g.info(a).ref(), g.info(user).ref()));
      }
      if (f != no_buffer && !(before[user] & bit)) {
        throw UsageError(
            fmt::format("{}{} uses the buffer of {} but is not ordered before its free, {}; add edges so "
                        "that {} runs before {}",
                        ctx, g.info(user).describe(), g.info(a).describe(), g.info(f).describe(), g.info(user).ref(),
                        g.info(f).ref()));
      }
    }
  }
}

/// Graph memory rules: each buffer freed at most once, its free ordered after its allocation, and
/// every use ordered after the allocation and before the free.
void check_memory(const GraphImpl& g, const std::string& ctx, const std::vector<std::uint32_t>& order) {
  if (g.allocs.empty() && g.frees.empty()) return;
  const std::vector<std::uint32_t> free_of = rule::free_nodes(g, ctx);  // alloc node -> its free node
  // Uses of each allocation (by alloc node): kernels' buffer arguments, then memset/memcpy pointers.
  std::vector<std::vector<std::uint32_t>> users(g.nodes.size());
  rule::add_kernel_buffer_users(g, users);
  for (const BufferUse& u : g.buffer_uses) {
    if (u.alloc_node != no_buffer && u.levels == 0) users[u.alloc_node].push_back(u.node);
  }
  add_nested_buffer_users(g, users);  // a child or conditional node whose plans use a buffer uses it
  std::vector<std::uint32_t> allocs;
  for (const AllocData& a : g.allocs) allocs.push_back(a.node);
  for (std::size_t first = 0; first < allocs.size(); first += 64) {
    check_allocs(g, ctx, order, allocs.data() + first, std::min<std::size_t>(64, allocs.size() - first), free_of,
                 users);
  }
}

/// A plan copied out with body_plan() or child_plan() and embedded in another: each enclosing
/// condition it referred to must be the same Condition here (a copy of the plan it came from keeps
/// the conditions' ids), not whatever this plan declares at that position.
void check_outer_bindings(const GraphImpl& g, const Scope& here, const std::string& ctx) {
  for (const OuterBinding& b : g.outer_bindings) {
    const GraphImpl* owner = declaring_plan(&here, ConditionRef{b.levels, b.index});
    if (owner == nullptr || b.index >= owner->conditions.size()) continue;  // check_in names these
    if (owner->conditions[b.index].uid == b.uid) continue;
    throw UsageError(
        fmt::format("{}graph {} was copied out of another plan (body_plan / child_plan) and refers to condition number "
                    "{} of the plan {} level{} out by position; graph {} declares another Condition there, which its "
                    "nodes would read and set instead of their own (embed such a copy only in the plan it came from, "
                    "or a copy of it)",
                    ctx, quoted(g.name), b.index, b.levels, b.levels == 1 ? "" : "s", quoted(owner->name)));
  }
}

/// Adds to `out` the references of plan `p` (nested `depth` levels inside the copy) that point out
/// of the copy, resolved in the chain that starts at `from` (1 level out of the copy).
void collect_outer(const GraphImpl& p, std::uint32_t depth, const GraphImpl& from, std::vector<OuterBinding>& out) {
  auto note = [&](ConditionRef r) {
    if (r.levels == ConditionRef::unresolved || r.levels <= depth) return;
    const std::uint32_t levels = r.levels - depth;
    const GraphImpl* owner = &from;
    for (std::uint32_t k = 1; owner != nullptr && k < levels; ++k) {
      owner = owner->parent && owner->parent->outer ? owner->parent->outer->plan : nullptr;
    }
    if (owner == nullptr || r.index >= owner->conditions.size()) return;
    const OuterBinding b{levels, r.index, owner->conditions[r.index].uid};
    for (const OuterBinding& o : out) {
      if (o.levels == b.levels && o.index == b.index) return;
    }
    out.push_back(b);
  };
  each_condition_argument(p, note);
  for (const ConditionalData& c : p.conditionals) {
    note(c.condition);
    for (const auto& b : c.bodies) collect_outer(*b, depth + 1, from, out);
  }
  for (const auto& c : p.children) collect_outer(*c, depth + 1, from, out);
}

/// Checks that node i of g, which refers to the buffer of mem_alloc node r.index of the plan r.levels
/// out (r.levels > 0; `what` names the argument or pointer), is compiled inside that plan, that the
/// plan allocates that very buffer there (a plan copied out with body_plan or child_plan keeps its
/// references), and that the slice fits the allocation.
void check_outer_buffer(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const Scope& here, ConditionRef r,
                        std::uint64_t uid, const std::string& what, std::uint64_t offset, std::uint64_t bytes) {
  const Scope* s = scope_out(&here, r);
  if (s == nullptr) {
    fail(g, i, ctx,
         fmt::format("{} is a GraphBuffer not allocated by graph {} or a plan it is compiled in: it refers to the "
                     "plan {} level{} out, which this plan was copied out of (body_plan, child_plan) {}",
                     what, quoted(g.name), r.levels, r.levels == 1 ? "" : "s", rule::buffer_scope_hint));
  }
  const GraphImpl* owner = s->plan;
  const bool there = s->by_position ? node_record(owner->allocs, r.index) != nullptr
                                    : owner->alloc_node(uid) == r.index;
  if (!there) {
    fail(g, i, ctx,
         fmt::format("{} is a GraphBuffer not allocated by graph {}, {} level{} out, at the place it refers to (a "
                     "plan copied out with body_plan or child_plan keeps its references to the buffers of the plan "
                     "it came from: embed it there)",
                     what, quoted(owner->name), r.levels, r.levels == 1 ? "" : "s"));
  }
  rule::check_slice(g, i, ctx, what, *owner, r.index, offset, bytes);
}

/// check_outer_buffer for every reference of g's nodes to a buffer of an enclosing plan.
void check_outer_buffers(const GraphImpl& g, const std::string& ctx, const Scope& here) {
  each_kernel_buffer_argument(g, [&](std::uint32_t i, ConditionRef ref, std::uint64_t uid, std::uint32_t arg,
                                     std::uint64_t offset, std::uint64_t bytes) {
    if (ref.levels == 0 || ref.levels == ConditionRef::unresolved) return;
    check_outer_buffer(g, i, ctx, here, ref, uid, fmt::format("argument {}", arg + 1), offset, bytes);
  });
  for (const BufferUse& u : g.buffer_uses) {
    if (u.levels == 0 || u.alloc_node == no_buffer) continue;
    check_outer_buffer(g, u.node, ctx, here, ConditionRef{u.levels, u.alloc_node}, u.uid,
                       u.field == BufferField::memcpy_src ? "its source" : "its destination", buffer_use_offset(g, u),
                       u.bytes);
  }
}

void check_in(const GraphImpl& g, const std::string& ctx, const Scope* outer, Usage& usage,
              std::vector<std::uint32_t>& order) {
  const Scope here{&g, outer};
  if (outer != nullptr) check_outer_bindings(g, here, ctx);
  check_outer_buffers(g, ctx, here);  // in a top-level plan, each such reference is refused
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const RuleOps& ops = rule_ops(g.nodes[i].kind);
    check_node_by(ops, g, i, ctx);
    if (ops.check_scoped != nullptr) ops.check_scoped(rule::ScopedNode{g, i, ctx, here, usage});
  }
  creation_order_into(g, ctx, order);
  check_memory(g, ctx, order);
  for (std::uint32_t k = 0; k < g.conditions.size(); ++k) {
    if (usage.count({&g, k}) == 0) {
      throw UsageError(
          fmt::format("{}graph {} declares a Condition (number {}, default {}) that no conditional node "
                      "uses; CUDA refuses to instantiate a graph with an unused condition",
                      ctx, quoted(g.name), k, g.conditions[k].default_value));
    }
  }
}

std::vector<std::uint32_t> check_in(const GraphImpl& g, const std::string& ctx, const Scope* outer, Usage& usage) {
  std::vector<std::uint32_t> order;
  check_in(g, ctx, outer, usage, order);
  return order;
}

}  // namespace

void rule::check_nested_plan(const GraphImpl& inner, const std::string& ctx, const ScopedNode& node) {
  (void)check_in(inner, ctx, &node.here, node.usage);
}

void rule::check_body_kinds(const GraphImpl& body, const std::string& ctx) {
  for (std::uint32_t i = 0; i < body.nodes.size(); ++i) {
    const NodeData& n = body.nodes[i];
    const RuleOps& ops = rule_ops(n.kind);
    if (!ops.in_body) {
      fail(body, i, ctx,
           fmt::format("{} nodes are not allowed in a conditional body (bodies may hold kernel, "
                       "empty, child, memset, memcpy and conditional nodes)",
                       to_string(n.kind)));
    }
    if (!ops.nested_in_plan) continue;
    for (const auto& inner : nested_slots(body, i)) {
      check_body_kinds(*inner, fmt::format("{}in {} of graph {}: ", ctx, body.info(i).describe(), quoted(body.name)));
    }
  }
}

std::vector<std::uint32_t> check_child_plan(const GraphImpl& g, const GraphImpl& outer, bool by_position) {
  Usage usage;
  const Scope enclosing{&outer, nullptr, by_position};
  return check_in(g, {}, &enclosing, usage);
}

std::vector<std::uint32_t> check_plan(const GraphImpl& g, const std::string& context) {
  Usage usage;
  return check_in(g, context, nullptr, usage);
}

void check_plan_into(const GraphImpl& g, std::vector<std::uint32_t>& order) {
  Usage usage;
  check_in(g, {}, nullptr, usage, order);
}

std::vector<OuterBinding> outer_bindings_of(const GraphImpl& copy, const GraphImpl& from) {
  std::vector<OuterBinding> out;
  collect_outer(copy, 0, from, out);
  return out;
}

}  // namespace graphdsl::detail
