// src/plan/rules.cpp — the rules a plan must satisfy before it reaches CUDA.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "native/device_rules.hpp"
#include "graphdsl/detail/condition_kernels.hpp"
#include "graphdsl/error.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail {

BufferUses buffer_uses_of(const GraphImpl& g, std::uint32_t i) {
  const BufferUse* const end = g.buffer_uses.data() + g.buffer_uses.size();
  const BufferUse* const first = std::lower_bound(g.buffer_uses.data(), end, i,
                                                  [](const BufferUse& u, std::uint32_t n) { return u.node < n; });
  const BufferUse* last = first;
  while (last != end && last->node == i) ++last;
  return BufferUses{first, last};
}

namespace {

[[noreturn]] void fail(const GraphImpl& g, std::uint32_t i, const std::string& context, const std::string& rule) {
  throw UsageError(fmt::format("{}{}: {}", context, g.info(i).describe(), rule));
}

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

constexpr std::uint32_t no_buffer = ConditionRef::unresolved;

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

/// The buffer use of node i for `field`, or nullptr.
const BufferUse* buffer_use(const GraphImpl& g, std::uint32_t i, BufferField field) {
  for (const BufferUse& u : buffer_uses_of(g, i)) {
    if (u.field == field) return &u;
  }
  return nullptr;
}

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
    fail(g, i, ctx, fmt::format("its {} is a GraphBuffer that graph {} does not allocate (a buffer is used in the "
                                "plan that allocates it)",
                                what, quoted(g.name)));
  }
  const std::size_t have = g.allocs[g.nodes[u->alloc_node].payload].bytes;
  if (bytes.above(have)) {
    fail(g, i, ctx, fmt::format("touches {} bytes of its {}, the buffer of {}, which holds {} bytes", bytes.text(), what,
                                g.info(u->alloc_node).describe(), have));
  }
}

/// CUDA's per-dimension limits of grid and block (the same on every device graphdsl supports);
/// threads per block and dynamic shared memory are checked elsewhere.
void check_launch_limits(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const LaunchShape& l) {
  struct Limit {
    const char* what;
    char axis;
    unsigned value;
    unsigned most;
  };
  const Limit limits[] = {{"grid", 'x', l.grid.x, 2147483647u}, {"grid", 'y', l.grid.y, 65535u},
                          {"grid", 'z', l.grid.z, 65535u},      {"block", 'x', l.block.x, 1024u},
                          {"block", 'y', l.block.y, 1024u},     {"block", 'z', l.block.z, 64u}};
  for (const Limit& m : limits) {
    if (m.value > m.most) {
      fail(g, i, ctx, fmt::format("{} {} has {} = {}; CUDA allows at most {} in {}.{}", m.what,
                                  dims(m.what[0] == 'g' ? l.grid : l.block), m.axis, m.value, m.most, m.what, m.axis));
    }
  }
}

/// The launch attributes' rules that need no CUDA call (the device's own limits are checked when
/// the plan is compiled: materialize.cpp, check_attributes_on_device).
void check_launch_attributes(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const Launch& l) {
  const dim3& c = l.cluster;
  if (c.x != 0 || c.y != 0 || c.z != 0) {
    if (c.x == 0 || c.y == 0 || c.z == 0) {
      fail(g, i, ctx, fmt::format("cluster {} has a zero dimension; every dimension must be at least 1 (or all 0 for "
                                  "no cluster)",
                                  dims(c)));
    }
    const std::pair<char, std::pair<unsigned, unsigned>> axes[] = {
        {'x', {l.grid.x, c.x}}, {'y', {l.grid.y, c.y}}, {'z', {l.grid.z, c.z}}};
    for (const auto& [axis, gc] : axes) {
      if (gc.first % gc.second != 0) {
        fail(g, i, ctx, fmt::format("grid {} is not a whole number of clusters {}: {} blocks in {} do not divide into "
                                    "clusters of {}",
                                    dims(l.grid), dims(c), gc.first, axis, gc.second));
      }
    }
    const Count blocks = Count{c.x}.times(c.y).times(c.z);
    if (blocks.above(16)) {
      fail(g, i, ctx, fmt::format("cluster {} has {} blocks; CUDA allows at most 8 blocks per cluster (16 with "
                                  "cudaFuncAttributeNonPortableClusterSizeAllowed)",
                                  dims(c), blocks.text()));
    }
  }
  if (l.l2.bytes != 0) {
    if (l.l2.base == nullptr) fail(g, i, ctx, fmt::format("its L2 window of {} bytes starts at a null pointer", l.l2.bytes));
    if (!(l.l2.hit_ratio >= 0.0f && l.l2.hit_ratio <= 1.0f)) {
      fail(g, i, ctx, fmt::format("its L2 window's hit ratio is {}; it must be in [0, 1]", l.l2.hit_ratio));
    }
  }
  const auto domain = static_cast<unsigned>(l.sync_domain);
  if (domain > 1) fail(g, i, ctx, fmt::format("memory sync domain {} is not a MemSyncDomain (default or remote)", domain));
  for (auto [which, a] : {std::pair<const char*, L2Access>{"hit", l.l2.hit}, {"miss", l.l2.miss}}) {
    if (static_cast<unsigned>(a) > 2) {
      fail(g, i, ctx, fmt::format("its L2 window's {} property {} is not an L2Access (normal, streaming or "
                                  "persisting)",
                                  which, static_cast<unsigned>(a)));
    }
  }
}

/// A kernel made by add_set_condition (or given its kernel through a setter): the comparison
/// argument must be one of the six the kernel knows (any other sets the condition to 0).
void check_set_condition(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const KernelData& k) {
  const void* kinds[] = {reinterpret_cast<const void*>(set_condition_kernel<int>()),
                         reinterpret_cast<const void*>(set_condition_kernel<unsigned int>()),
                         reinterpret_cast<const void*>(set_condition_kernel<float>()),
                         reinterpret_cast<const void*>(set_condition_kernel<double>())};
  if (std::find(std::begin(kinds), std::end(kinds), k.func) == std::end(kinds)) return;
  int op = 0;
  std::memcpy(&op, g.args.data() + k.args + k.layout->offsets[2], sizeof op);
  if (op < 0 || op > static_cast<int>(Compare::greater_equal)) {
    fail(g, i, ctx, fmt::format("sets its condition with comparison {}, which is not a Compare value (equal, "
                                "not_equal, less, less_equal, greater or greater_equal)",
                                op));
  }
}

void check_kernel(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const KernelData& k = g.kernels[g.nodes[i].payload];
  if (k.func == nullptr) fail(g, i, ctx, "the kernel function is null");
  const LaunchShape& l = k.launch;
  for (auto [what, d] : {std::pair<const char*, dim3>{"grid", l.grid}, {"block", l.block}}) {
    if (d.x == 0 || d.y == 0 || d.z == 0) {
      fail(g, i, ctx, fmt::format("{} {} has a zero dimension; every dimension must be at least 1", what, dims(d)));
    }
  }
  for (std::uint32_t c = 0; c < k.ph_count; ++c) {
    const KernelPlaceholder& ph = g.placeholders[k.ph_first + c];
    if (ph.ref.levels != ConditionRef::unresolved) continue;
    if (ph.kind == PlaceholderKind::condition) {
      fail(g, i, ctx, fmt::format("a Condition argument is not declared in graph {} or a plan enclosing it (an "
                                  "empty Condition, or one declared by another plan)",
                                  quoted(g.name)));
    }
    fail(g, i, ctx, fmt::format("a GraphBuffer argument is not allocated by graph {} (a buffer is used in the plan "
                                "that allocates it)",
                                quoted(g.name)));
  }
  // The total first: "2048 threads" says more than "x = 2048" when both rules are broken.
  const Count threads = Count{l.block.x}.times(l.block.y).times(l.block.z);
  if (threads.above(1024)) {
    fail(g, i, ctx, fmt::format("block {} has {} threads; CUDA allows at most 1024 threads per block",
                                dims(l.block), threads.text()));
  }
  check_launch_limits(g, i, ctx, l);
  if (attributes_of(g, g.nodes[i].payload) != nullptr) {
    check_launch_attributes(g, i, ctx, launch_of(g, g.nodes[i].payload));
  }
  check_set_condition(g, i, ctx, k);
}

/// Edges into node i that are not full ones join two kernels (CUDA's rule for programmatic and
/// launch-completion edges).
void check_edge_kinds(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  // edge_kinds is sorted by (to, from): node i's edges are one run, found by binary search (a scan
  // of every record for every node made validate() quadratic on a chain of programmatic edges).
  const auto first = std::lower_bound(g.edge_kinds.begin(), g.edge_kinds.end(), i,
                                      [](const EdgeKindData& e, std::uint32_t to) { return e.to < to; });
  for (auto it = first; it != g.edge_kinds.end() && it->to == i; ++it) {
    const EdgeKindData& e = *it;
    const NodeKind from = g.nodes[e.from].kind;
    if (from != NodeKind::kernel || g.nodes[i].kind != NodeKind::kernel) {
      fail(g, i, ctx, fmt::format("its {} edge from {}: CUDA allows {} edges between kernel nodes only", to_string(e.kind),
                                  g.info(e.from).describe(), to_string(e.kind)));
    }
    if (static_cast<unsigned>(e.kind) > 2) {
      fail(g, i, ctx, fmt::format("its edge from {} has kind {}, which is not an EdgeKind", g.info(e.from).describe(),
                                  static_cast<unsigned>(e.kind)));
    }
  }
}

/// Refuses a byte count above max_bytes (`what` says which, e.g. "sets", "copies").
void check_size(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const char* what, const Count& bytes) {
  if (bytes.too_large()) {
    fail(g, i, ctx, fmt::format("{} {} bytes, more than {} bytes, the largest size graphdsl accepts (a negative count "
                                "converted to std::size_t, or a size that wraps around?)",
                                what, bytes.text(), max_bytes));
  }
}

void check_memset(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const cudaMemsetParams& p = g.memsets[g.nodes[i].payload];
  const Count row = Count{p.width}.times(p.elementSize);
  const Count span = p.height <= 1 ? row : Count{p.pitch}.times(p.height - 1).plus(row);
  check_size(g, i, ctx, "sets", span);
  check_pointer(g, i, ctx, p.dst, BufferField::memset_dst, "destination", span);
  if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) {
    fail(g, i, ctx, fmt::format("element size is {} bytes; CUDA memset nodes take 1, 2 or 4-byte elements", p.elementSize));
  }
  if (p.width == 0 || p.height == 0) {
    fail(g, i, ctx, fmt::format("sets {} x {} elements; a memset node must set at least one element", p.width, p.height));
  }
  if (p.height > 1 && row.above(p.pitch)) {
    fail(g, i, ctx, fmt::format("pitch {} bytes is smaller than one row ({} elements x {} bytes = {} bytes)", p.pitch,
                                p.width, p.elementSize, row.text()));
  }
}

void check_memcpy(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const cudaMemcpy3DParms& p = g.memcpys[g.nodes[i].payload];
  if (p.extent.width == 0 || p.extent.height == 0 || p.extent.depth == 0) {
    fail(g, i, ctx, fmt::format("copies {} x {} x {} bytes; a memcpy node must copy at least one byte", p.extent.width,
                                p.extent.height, p.extent.depth));
  }
  const Count bytes = Count{p.extent.width}.times(p.extent.height).times(p.extent.depth);
  check_size(g, i, ctx, "copies", bytes);
  const Count rows = Count{p.extent.height}.times(p.extent.depth);
  for (auto [ptr, array] : {std::pair<const cudaPitchedPtr*, cudaArray_t>{&p.srcPtr, p.srcArray}, {&p.dstPtr, p.dstArray}}) {
    // the rows of a pitched pointer span pitch * (rows - 1) + width
    if (array != nullptr || (rows.fits && rows.value == 1)) continue;
    check_size(g, i, ctx, "spans",
               rows.fits ? Count{ptr->pitch}.times(rows.value - 1).plus(Count{p.extent.width}) : rows);
  }
  if (p.srcArray == nullptr) check_pointer(g, i, ctx, p.srcPtr.ptr, BufferField::memcpy_src, "source", bytes);
  if (p.dstArray == nullptr) check_pointer(g, i, ctx, p.dstPtr.ptr, BufferField::memcpy_dst, "destination", bytes);
  if (p.kind < cudaMemcpyHostToHost || p.kind > cudaMemcpyDefault) {
    fail(g, i, ctx, fmt::format("cudaMemcpyKind {} is not a valid copy direction", static_cast<int>(p.kind)));
  }
  const bool multi_row = p.extent.height > 1 || p.extent.depth > 1;
  for (auto [what, ptr, array] : {std::tuple<const char*, cudaPitchedPtr, cudaArray_t>{"source", p.srcPtr, p.srcArray},
                                  {"destination", p.dstPtr, p.dstArray}}) {
    if (array == nullptr && multi_row && ptr.pitch < p.extent.width) {
      fail(g, i, ctx, fmt::format("{} pitch {} bytes is smaller than the row width {} bytes", what, ptr.pitch,
                                  p.extent.width));
    }
  }
}

}  // namespace

static void check_conditional_shape(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const ConditionalData& c = g.conditionals[g.nodes[i].payload];
  const std::size_t n = c.bodies.size();
  if (c.type > ConditionalType::switch_case) {
    fail(g, i, ctx, fmt::format("ConditionalType({}) is not a conditional type (if_then, if_else, while_loop or "
                                "switch_case)",
                                static_cast<unsigned>(c.type)));
  }
  const bool ok = c.type == ConditionalType::switch_case ? n >= 1 : n == (c.type == ConditionalType::if_else ? 2u : 1u);
  if (!ok) {
    fail(g, i, ctx, fmt::format("{} {} node with {} bodies; {}", c.type == ConditionalType::switch_case || c.type == ConditionalType::while_loop ? "a" : "an", to_string(c.type), n,
                                c.type == ConditionalType::switch_case ? "a switch needs at least one body"
                                : c.type == ConditionalType::if_else   ? "an if-else has exactly two bodies"
                                                                       : "it has exactly one body"));
  }
  if (c.condition.levels == ConditionRef::unresolved) {
    fail(g, i, ctx, fmt::format("its Condition is not declared in graph {} or a plan enclosing it (an empty "
                                "Condition, or one declared by another plan)",
                                quoted(g.name)));
  }
}

/// A WHILE whose body holds only empty nodes never ends once its condition is non-zero. Checked
/// after the body itself, so that a broken body (a cycle, say) is reported as such.
void check_while_progress(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const ConditionalData& c = g.conditionals[g.nodes[i].payload];
  if (c.type == ConditionalType::while_loop &&
      std::all_of(c.bodies[0]->nodes.begin(), c.bodies[0]->nodes.end(),
                  [](const NodeData& b) { return b.kind == NodeKind::empty; })) {
    fail(g, i, ctx, "a while node whose body has no node but empty ones: nothing in it can change the condition, so "
                    "the loop never ends once the condition is non-zero (add the nodes that update the condition)");
  }
}

void check_node(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  switch (n.kind) {
    case NodeKind::kernel: check_kernel(g, i, ctx); break;
    case NodeKind::memset: check_memset(g, i, ctx); break;
    case NodeKind::memcpy: check_memcpy(g, i, ctx); break;
    case NodeKind::host:
      if (g.hosts[n.payload]->empty) {
        fail(g, i, ctx, "the callable is empty (a null function pointer or an empty std::function)");
      }
      break;
    case NodeKind::event_record:
    case NodeKind::event_wait:
      if (!g.events[n.payload]) fail(g, i, ctx, "the Event is empty (default-constructed); make one with Event::create()");
      break;
    case NodeKind::conditional: check_conditional_shape(g, i, ctx); break;
    case NodeKind::captured: {
      const cudaStreamCaptureMode m = g.captures[n.payload].mode;
      if (m != cudaStreamCaptureModeGlobal && m != cudaStreamCaptureModeThreadLocal && m != cudaStreamCaptureModeRelaxed) {
        fail(g, i, ctx, fmt::format("cudaStreamCaptureMode {} is not a capture mode", static_cast<int>(m)));
      }
      break;
    }
    case NodeKind::mem_alloc:
      if (g.allocs[n.payload].bytes == 0) fail(g, i, ctx, "allocates 0 bytes; a graph allocation needs at least one");
      break;
    case NodeKind::mem_free:
      if (g.frees[n.payload] == no_buffer) {
        fail(g, i, ctx, fmt::format("the GraphBuffer it frees is not allocated by graph {} (a buffer is freed in the "
                                    "plan that allocates it)",
                                    quoted(g.name)));
      }
      break;
    case NodeKind::child:  // the child plan is checked by check_plan, with its scope
    case NodeKind::empty: break;
  }
  if (!g.edge_kinds.empty()) check_edge_kinds(g, i, ctx);
  check_placement(g, i, ctx);
}

namespace {

/// Finds one cycle among the nodes Kahn's algorithm could not order, and names it.
[[noreturn]] void report_cycle(const GraphImpl& g, const std::vector<std::uint32_t>& indegree,
                               const std::string& ctx) {
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
  const auto n = static_cast<std::uint32_t>(g.nodes.size());
  // Kahn's algorithm over a successor table; ready nodes are taken in FIFO order, seeded in index
  // order, so the order is a deterministic function of the plan.
  std::vector<std::uint32_t> indegree(n), first(n + 1, 0), succ(g.edge_count);
  for (std::uint32_t v = 0; v < n; ++v) {
    indegree[v] = static_cast<std::uint32_t>(g.nodes[v].preds.size());
    for (std::uint32_t p : g.nodes[v].preds) ++first[p + 1];
  }
  for (std::uint32_t v = 0; v < n; ++v) first[v + 1] += first[v];
  std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint32_t p : g.nodes[v].preds) succ[fill[p]++] = v;
  }
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) order.push_back(v);
  }
  for (std::size_t head = 0; head < order.size(); ++head) {
    const std::uint32_t u = order[head];
    for (std::uint32_t e = first[u]; e < first[u + 1]; ++e) {
      if (--indegree[succ[e]] == 0) order.push_back(succ[e]);
    }
  }
  if (order.size() != n) report_cycle(g, indegree, context);
  return order;
}

namespace {

/// The plans enclosing the one being checked, innermost first.
struct Scope {
  const GraphImpl* plan;
  const Scope* outer;
};

/// Which conditional node uses each condition (declaring plan, index).
using Usage = std::map<std::pair<const GraphImpl*, std::uint32_t>, NodeInfo>;

const GraphImpl* declaring_plan(const Scope* s, ConditionRef r) {
  for (std::uint32_t k = 0; s != nullptr && k < r.levels; ++k) s = s->outer;
  return s == nullptr ? nullptr : s->plan;
}

/// Checks that the plan `r` points to (from node i of g, in scope `here`) declares condition
/// r.index. References are positions, and a plan copied out of a conditional body (body_plan)
/// keeps them: embedded elsewhere as a child, "one plan out" is then another plan, which may
/// declare fewer conditions (compiling it would read past that plan's condition handles).
/// `what` starts the message ("a Condition argument", "its Condition").
const GraphImpl& condition_owner(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const Scope* here,
                                 ConditionRef r, const char* what) {
  const GraphImpl* owner = declaring_plan(here, r);
  if (owner == nullptr) {
    fail(g, i, ctx, fmt::format("{} belongs to a plan enclosing this one, which is being compiled without it", what));
  }
  if (r.index >= owner->conditions.size()) {
    fail(g, i, ctx, fmt::format("{} refers to condition number {} of graph {}, {} level{} out, which declares {} "
                                "(a plan copied out of a conditional body keeps its references to the conditions of "
                                "the plan around that body)",
                                what, r.index, quoted(owner->name), r.levels, r.levels == 1 ? "" : "s",
                                owner->conditions.size()));
  }
  return *owner;
}

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
  for (std::size_t k = 0; k < count; ++k) frees.push_back(free_of[allocs[k]] == no_buffer ? allocs[k] : free_of[allocs[k]]);
  const std::vector<std::uint64_t> after = reach_masks(g, order, allocs, count, true);
  const std::vector<std::uint64_t> before = reach_masks(g, order, frees.data(), count, false);
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t a = allocs[k];
    const std::uint64_t bit = std::uint64_t{1} << k;
    const std::uint32_t f = free_of[a];
    if (f != no_buffer && !(after[f] & bit)) {
      throw UsageError(fmt::format("{}{} is not ordered after {}, the allocation it frees; add edges so that {} runs "
                                   "before {}",
                                   ctx, g.info(f).describe(), g.info(a).describe(), g.info(a).ref(), g.info(f).ref()));
    }
    for (const std::uint32_t user : users[a]) {
      if (!(after[user] & bit)) {
        throw UsageError(fmt::format("{}{} uses the buffer of {} but is not ordered after it; add edges so that {} runs "
                                     "before {}",
                                     ctx, g.info(user).describe(), g.info(a).describe(), g.info(a).ref(),
                                     g.info(user).ref()));
      }
      if (f != no_buffer && !(before[user] & bit)) {
        throw UsageError(fmt::format("{}{} uses the buffer of {} but is not ordered before its free, {}; add edges so "
                                     "that {} runs before {}",
                                     ctx, g.info(user).describe(), g.info(a).describe(), g.info(f).describe(),
                                     g.info(user).ref(), g.info(f).ref()));
      }
    }
  }
}

/// Graph memory rules: each buffer freed at most once, its free ordered after its allocation, and
/// every use ordered after the allocation and before the free.
void check_memory(const GraphImpl& g, const std::string& ctx, const std::vector<std::uint32_t>& order) {
  if (g.allocs.empty() && g.frees.empty()) return;
  std::vector<std::uint32_t> free_of(g.nodes.size(), no_buffer);  // alloc node -> its free node
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != NodeKind::mem_free) continue;
    const std::uint32_t a = g.frees[g.nodes[i].payload];
    if (free_of[a] != no_buffer) {
      throw UsageError(fmt::format("{}{} and {} both free the buffer of {}; a graph allocation is freed once", ctx,
                                   g.info(free_of[a]).describe(), g.info(i).describe(), g.info(a).describe()));
    }
    free_of[a] = i;
  }
  // Uses of each allocation (by alloc node): kernels' buffer arguments, then memset/memcpy pointers.
  std::vector<std::vector<std::uint32_t>> users(g.nodes.size());
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != NodeKind::kernel) continue;
    const KernelData& k = g.kernels[g.nodes[i].payload];
    for (std::uint32_t c = 0; c < k.ph_count; ++c) {
      const KernelPlaceholder& ph = g.placeholders[k.ph_first + c];
      if (ph.kind == PlaceholderKind::buffer && ph.ref.levels == 0) users[ph.ref.index].push_back(i);
    }
  }
  for (const BufferUse& u : g.buffer_uses) {
    if (u.alloc_node != no_buffer) users[u.alloc_node].push_back(u.node);
  }
  std::vector<std::uint32_t> allocs;
  for (const AllocData& a : g.allocs) allocs.push_back(a.node);
  for (std::size_t first = 0; first < allocs.size(); first += 64) {
    check_allocs(g, ctx, order, allocs.data() + first, std::min<std::size_t>(64, allocs.size() - first), free_of, users);
  }
}

/// Conditional bodies may hold kernel, empty, child, memset, memcpy and conditional nodes (child
/// plans in a body too; nested conditionals' bodies are checked as bodies themselves).
void check_body_kinds(const GraphImpl& body, const std::string& ctx) {
  for (std::uint32_t i = 0; i < body.nodes.size(); ++i) {
    const NodeData& n = body.nodes[i];
    if (n.kind == NodeKind::host || n.kind == NodeKind::event_record || n.kind == NodeKind::event_wait ||
        n.kind == NodeKind::mem_alloc || n.kind == NodeKind::mem_free) {
      fail(body, i, ctx, fmt::format("{} nodes are not allowed in a conditional body (bodies may hold kernel, "
                                     "empty, child, memset, memcpy and conditional nodes)",
                                     to_string(n.kind)));
    }
    if (n.kind == NodeKind::child) {
      check_body_kinds(*body.children[n.payload],
                       fmt::format("{}in {} of graph {}: ", ctx, body.info(i).describe(), quoted(body.name)));
    }
  }
}

std::vector<std::uint32_t> check_in(const GraphImpl& g, const std::string& ctx, const Scope* outer, Usage& usage) {
  const Scope here{&g, outer};
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    check_node(g, i, ctx);
    const NodeData& n = g.nodes[i];
    if (n.kind == NodeKind::kernel) {
      const KernelData& k = g.kernels[n.payload];
      for (std::uint32_t c = 0; c < k.ph_count; ++c) {
        const KernelPlaceholder& ph = g.placeholders[k.ph_first + c];
        if (ph.kind == PlaceholderKind::condition) {
          (void)condition_owner(g, i, ctx, &here, ph.ref, "a Condition argument");
        }
      }
    } else if (n.kind == NodeKind::child) {
      const GraphImpl& c = *g.children[n.payload];
      for (NodeKind forbidden : {NodeKind::mem_alloc, NodeKind::mem_free}) {
        if (c.holds(forbidden)) {
          fail(g, i, ctx, fmt::format("child plan {} contains a {} node; CUDA cannot embed graph allocations in a "
                                      "child graph by copy (allocate in the enclosing plan instead)",
                                      quoted(c.name), to_string(forbidden)));
        }
      }
      if (c.holds(NodeKind::conditional)) {
        fail(g, i, ctx, fmt::format("child plan {} contains a conditional node; CUDA cannot embed conditional nodes "
                                    "in a child graph (add the conditional to the enclosing plan instead)",
                                    quoted(c.name)));
      }
      (void)check_in(c, fmt::format("{}in {} of graph {}: ", ctx, g.info(i).describe(), quoted(g.name)), &here, usage);
    } else if (n.kind == NodeKind::conditional) {
      const ConditionalData& cd = g.conditionals[n.payload];
      const GraphImpl* owner = &condition_owner(g, i, ctx, &here, cd.condition, "its Condition");
      const auto [it, fresh] = usage.emplace(std::make_pair(owner, cd.condition.index), g.info(i));
      if (!fresh) {
        throw UsageError(fmt::format("{}{} and {} use the same Condition; each condition drives exactly one "
                                     "conditional node (declare one per node with add_condition)",
                                     ctx, it->second.describe(), g.info(i).describe()));
      }
      for (std::size_t b = 0; b < cd.bodies.size(); ++b) {
        const std::string body_ctx =
            fmt::format("{}in body {} ({}) of {} of graph {}: ", ctx, b, escaped(cd.bodies[b]->name), g.info(i).describe(),
                        quoted(g.name));
        check_body_kinds(*cd.bodies[b], body_ctx);
        check_body_placement(*cd.bodies[b], body_ctx);
        (void)check_in(*cd.bodies[b], body_ctx, &here, usage);
      }
      check_while_progress(g, i, ctx);
    }
  }
  std::vector<std::uint32_t> order = creation_order(g, ctx);
  check_memory(g, ctx, order);
  for (std::uint32_t k = 0; k < g.conditions.size(); ++k) {
    if (usage.count({&g, k}) == 0) {
      throw UsageError(fmt::format("{}graph {} declares a Condition (number {}, default {}) that no conditional node "
                                   "uses; CUDA refuses to instantiate a graph with an unused condition",
                                   ctx, quoted(g.name), k, g.conditions[k].default_value));
    }
  }
  return order;
}

}  // namespace

std::vector<std::uint32_t> check_plan(const GraphImpl& g, const std::string& context) {
  Usage usage;
  return check_in(g, context, nullptr, usage);
}

}  // namespace graphdsl::detail
