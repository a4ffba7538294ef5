// tests/support/plan_generator.hpp — seeded random plans and random edits, for the generated
// (model-based) tests: tests/unit/generated_plans_test.cpp (no GPU) and
// tests/gpu/generated_update_test.cpp (the same plans compiled, updated and launched).
//
// A plan is generated as a Spec, a plain description (nodes with their parameters, edges), and
// built into a gd::Graph by build(). Edits change a Spec; the model (same_shape, changed_nodes)
// says from two Specs alone what diff() of their plans must find, written from docs/updating.md
// independently of src/plan/diff.cpp. Everything is reproducible from the seed of the generator.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <graphdsl/graphdsl.hpp>

namespace plan_gen {

namespace gd = graphdsl;

/// What a node of a Spec is (conditional nodes: one kind per conditional type).
enum class Kind : std::uint8_t {
  kernel,
  memset,
  memcpy,
  host,
  empty,
  event_record,
  event_wait,
  captured,          ///< stream capture (a closure: compares by identity, as host nodes)
  mem_ops,           ///< one 32-bit write (value: tag)
  semaphore_signal,  ///< one semaphore (a stand-in handle), signalled to value tag
  /// an operation on slices of the top-level plan's graph buffer, at any depth (build() allocates it
  /// first, as node #0, and orders after it every top-level node that is such a node or holds one in
  /// its child plan or bodies): by `fn`, 0 a kernel, 1 a memset, 2 a copy
  /// within the buffer, 3 a 2-D memset; the destination slice starts at element 8 * buf, a copy's
  /// source at 8 * src; `count` elements (a 2-D memset: 2 rows of count / 4, 16 floats apart)
  slice,
  child,
  if_then,
  if_else,
  switch_case,
  while_loop
};

inline bool conditional(Kind k) { return k >= Kind::if_then; }

struct Spec;

/// One node: its kind, name and parameters (only those of its kind are read).
struct NodeSpec {
  Kind kind = Kind::empty;
  std::string name;
  int fn = 0;                  ///< kernel: Resources::kernels[fn] (two kernels of one signature); 2:
                               ///< Resources::wide(buffers[buf], buffers[src], scalar, 0.5, count), never generated
  unsigned grid = 2;           ///< kernel: blocks (even, so that a cluster of 2 divides it)
  unsigned block = 32;         ///< kernel: threads per block
  unsigned cluster = 0;        ///< kernel: cluster width (0: no cluster)
  int buf = 0;                 ///< kernel, memset: the buffer written; memcpy: the destination; host: the cell
  int src = 1;                 ///< memcpy: the source buffer (never buf)
  float scalar = 1.0f;         ///< kernel: the scalar argument; memset: the value
  int count = 16;              ///< kernel, memset, memcpy: elements
  int tag = 1;                 ///< host: what the callable writes into its cell
  int event = 0;               ///< event nodes: Resources::events[event]
  unsigned default_value = 0;  ///< conditionals: the default of the condition the node declares
  std::vector<Spec> bodies;    ///< child: its plan; conditionals: the bodies
};

/// An edge from an earlier node to a later one (so every Spec is acyclic).
struct EdgeSpec {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  gd::EdgeKind kind = gd::EdgeKind::full;
};

struct Spec {
  std::vector<NodeSpec> nodes;
  std::vector<EdgeSpec> edges;
};

/// Which kinds and edits a generator uses.
struct Options {
  bool hosts = true;
  bool events = true;
  bool conditionals = true;  ///< if, if-else, switch (and while, below)
  bool while_loops = true;   ///< a while body never clears its condition: not for plans that are launched
  bool clusters = true;      ///< kernel cluster shapes (sm_90)
  bool driver_kinds = true;  ///< captured, memory-operation and semaphore nodes (stand-ins: never compiled)
  bool programmatic = true;  ///< programmatic edges between kernel nodes (sm_90)
  bool chain = false;        ///< each node after the one before it (nested plans too): launches are deterministic
  bool slices = false;       ///< operations on slices of a graph buffer (Kind::slice; plans that are not launched)
  unsigned max_nodes = 7;    ///< top-level nodes of a generated plan (at least 1)
};

/// What built plans point at. On the CPU these are stand-ins that are never called or touched.
struct Resources {
  void (*kernels[2])(float*, float, int) = {nullptr, nullptr};
  /// A kernel of another signature, out = m * in + c (NodeSpec::fn 2: what Executable::set_kernel
  /// switched a generated kernel to, in tests/gpu/generated_update_test.cpp)
  void (*wide)(float*, const float*, float, float, int) = nullptr;
  float* buffers[4] = {nullptr, nullptr, nullptr, nullptr};
  int capacity = 64;                            ///< floats per buffer
  int* cells = nullptr;                         ///< 4 ints: host node i writes its tag into cells[buf]
  std::uint32_t* words = nullptr;               ///< 4 words: memory-operation nodes write words[buf]
  cudaExternalSemaphore_t semaphore = nullptr;  ///< what semaphore-signal nodes signal
  std::vector<gd::Event> events;                ///< 2 events (when Options::events)
};

// ---- building ---------------------------------------------------------------------------------

void build_into(gd::Graph& g, const Spec& s, const Resources& r, bool top = false,
                const gd::GraphBuffer<float>& buffer = {});

bool has_slices(const Spec& s);

/// Whether node `n` is a Kind::slice node or holds one in its child plan or bodies.
inline bool uses_slices(const NodeSpec& n) {
  return n.kind == Kind::slice || std::any_of(n.bodies.begin(), n.bodies.end(), has_slices);
}

/// Whether `s` holds Kind::slice nodes, at any depth (the top-level plan then allocates the buffer).
inline bool has_slices(const Spec& s) { return std::any_of(s.nodes.begin(), s.nodes.end(), uses_slices); }

/// A Kind::slice node on `buffer` (64 floats).
inline gd::Node add_slice_node(gd::Graph& g, const NodeSpec& n, const Resources& r, const gd::GraphBuffer<float>& b) {
  const auto count = static_cast<std::size_t>(n.count);
  const gd::GraphBuffer<float> dst = b.slice(8 * static_cast<std::size_t>(n.buf), count);
  switch (n.fn) {
    case 0: return g.add_kernel(r.kernels[0], gd::Launch{n.grid, n.block}, dst, n.scalar, n.count).name(n.name);
    case 1: return g.add_memset(dst, n.scalar, count).name(n.name);
    case 2: return g.add_memcpy(dst, b.slice(8 * static_cast<std::size_t>(n.src), count), count).name(n.name);
    default: return g.add_memset_2d(b + 8 * static_cast<std::size_t>(n.buf), 64, n.scalar, count / 4, 2).name(n.name);
  }
}

/// Adds node `n` to `g` (not its edges); returns its handle. `buffer`: the plan's graph buffer
/// (Kind::slice nodes).
inline gd::Node add_node(gd::Graph& g, const NodeSpec& n, const Resources& r,
                         const gd::GraphBuffer<float>& buffer = {}) {
  switch (n.kind) {
    case Kind::slice: return add_slice_node(g, n, r, buffer);
    case Kind::kernel: {
      gd::Launch l{n.grid, n.block};
      if (n.cluster != 0) l = l.with_cluster(n.cluster);
      if (n.fn == 2) {
        const float* in = r.buffers[n.src];
        return g.add_kernel(r.wide, l, r.buffers[n.buf], in, n.scalar, 0.5f, n.count).name(n.name);
      }
      return g.add_kernel(r.kernels[n.fn], l, r.buffers[n.buf], n.scalar, n.count).name(n.name);
    }
    case Kind::memset: return g.add_memset(r.buffers[n.buf], n.scalar, static_cast<std::size_t>(n.count)).name(n.name);
    case Kind::memcpy:
      return g
          .add_memcpy(r.buffers[n.buf], static_cast<const float*>(r.buffers[n.src]), static_cast<std::size_t>(n.count))
          .name(n.name);
    case Kind::host: {
      int* cell = r.cells + n.buf;
      const int tag = n.tag;
      return g.add_host([cell, tag] { *cell = tag; }).name(n.name);
    }
    case Kind::empty: return g.add_empty().name(n.name);
    case Kind::event_record: return g.add_event_record(r.events[static_cast<std::size_t>(n.event)]).name(n.name);
    case Kind::event_wait: return g.add_event_wait(r.events[static_cast<std::size_t>(n.event)]).name(n.name);
    case Kind::captured: return g.add_captured([](cudaStream_t) {}).name(n.name);
    case Kind::mem_ops:
      return g.add_mem_ops({gd::MemOp::write(r.words + n.buf, static_cast<std::uint32_t>(n.tag))}).name(n.name);
    case Kind::semaphore_signal:
      return g.add_semaphore_signal({gd::SemaphoreSignal{r.semaphore, static_cast<unsigned long long>(n.tag), 0}})
          .name(n.name);
    case Kind::child: {
      gd::Graph c("child");
      build_into(c, n.bodies[0], r, false, buffer);  // built on its own: its slices resolve when added
      return g.add_child(std::move(c)).name(n.name);  // no copy (add_child(const Graph&) is tested apart)
    }
    default: break;
  }
  static constexpr gd::ConditionalType types[] = {gd::ConditionalType::if_then, gd::ConditionalType::if_else,
                                                  gd::ConditionalType::switch_case, gd::ConditionalType::while_loop};
  const gd::Condition cond = g.add_condition(n.default_value);
  const auto type = types[static_cast<int>(n.kind) - static_cast<int>(Kind::if_then)];
  return g
      .add_conditional(type, cond, static_cast<unsigned>(n.bodies.size()),
                       [&](unsigned i, gd::Graph& b) { build_into(b, n.bodies[i], r, false, buffer); })
      .name(n.name);
}

/// `top`: a top-level plan, which allocates the graph buffer of its Kind::slice nodes first; else
/// `outer` is the top-level plan's buffer.
inline void build_into(gd::Graph& g, const Spec& s, const Resources& r, bool top, const gd::GraphBuffer<float>& outer) {
  gd::Graph::Allocation<float> buffer;
  buffer.buffer = outer;
  if (top && has_slices(s)) {
    buffer = g.add_mem_alloc<float>(64);
    buffer.node.name("buffer");
  }
  std::vector<gd::Node> nodes;
  nodes.reserve(s.nodes.size());
  for (const NodeSpec& n : s.nodes) {
    nodes.push_back(add_node(g, n, r, buffer.buffer));
    if (top && uses_slices(n)) gd::detail::add_edge_of_kind(buffer.node, nodes.back(), gd::EdgeKind::full);
  }
  for (const EdgeSpec& e : s.edges) gd::detail::add_edge_of_kind(nodes[e.from], nodes[e.to], e.kind);
}

/// The plan `s` describes (with Kind::slice nodes: its graph buffer's mem_alloc node first, so that
/// node i of `s` is node i + 1 of the plan).
inline gd::Graph build(const Spec& s, const Resources& r, const std::string& name = "generated") {
  gd::Graph g(name);
  build_into(g, s, r, true);
  return g;
}

// ---- generating -------------------------------------------------------------------------------

class Generator {
 public:
  Generator(std::uint32_t seed, Options options) : rng_(seed), o_(options) {}

  std::uint32_t below(std::uint32_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng_);
  }
  bool chance(std::uint32_t one_in) { return below(one_in) == 0; }

  /// A random top-level plan of 1 to Options::max_nodes nodes.
  Spec plan() { return plan_of(1 + below(o_.max_nodes), 0); }

  /// Applies one random edit to `s` and says what it was ("" when the edit it drew did not apply).
  std::string edit(Spec& s) { return edit_at(s, 0); }

  /// `count` variants of one plan: a random plan, then edits of variants drawn from those made so
  /// far (a family of plan variants); `trail` gets one line per edited variant saying what changed.
  std::vector<Spec> variants(std::size_t count, std::string& trail) {
    std::vector<Spec> specs{plan()};
    while (specs.size() < count) {
      Spec next = specs[below(static_cast<std::uint32_t>(specs.size()))];
      const std::string what = edit(next);
      if (what.empty()) continue;
      trail += "\n  variant " + std::to_string(specs.size()) + ": " + what;
      specs.push_back(std::move(next));
    }
    return specs;
  }

  const Options& options() const { return o_; }

 private:
  /// depth 0: a top-level plan; 1: a child plan (no conditional, event); 2: a conditional body
  /// (kernel, memset, memcpy and empty nodes only).
  Spec plan_of(std::uint32_t count, int depth) {
    Spec s;
    for (std::uint32_t i = 0; i < count; ++i) s.nodes.push_back(node(depth, s.nodes.size()));
    for (std::uint32_t to = 1; to < count; ++to) {
      if (o_.chain) s.edges.push_back({to - 1, to, gd::EdgeKind::full});
      for (std::uint32_t from = 0; from < to; ++from) {
        if (o_.chain && from + 1 == to) continue;
        if (chance(3)) s.edges.push_back({from, to, edge_kind(s, from, to)});
      }
    }
    return s;
  }

  gd::EdgeKind edge_kind(const Spec& s, std::uint32_t from, std::uint32_t to) {
    const bool kernels = s.nodes[from].kind == Kind::kernel && s.nodes[to].kind == Kind::kernel;
    return o_.programmatic && kernels && chance(3) ? gd::EdgeKind::programmatic : gd::EdgeKind::full;
  }

  Kind kind(int depth) {
    std::vector<Kind> menu{Kind::kernel, Kind::kernel, Kind::memset, Kind::memcpy, Kind::empty};
    if (depth < 2 && o_.hosts) menu.push_back(Kind::host);
    if (depth == 0) {
      menu.push_back(Kind::child);
      if (o_.events) menu.insert(menu.end(), {Kind::event_record, Kind::event_wait});
      if (o_.driver_kinds) menu.insert(menu.end(), {Kind::captured, Kind::mem_ops, Kind::semaphore_signal});
      if (o_.conditionals) menu.insert(menu.end(), {Kind::if_then, Kind::if_else, Kind::switch_case});
      if (o_.conditionals && o_.while_loops) menu.push_back(Kind::while_loop);
    }
    if (o_.slices) menu.insert(menu.end(), {Kind::slice, Kind::slice});  // in child plans and bodies too
    return menu[below(static_cast<std::uint32_t>(menu.size()))];
  }

  NodeSpec node(int depth, std::size_t index) {
    NodeSpec n;
    n.kind = kind(depth);
    n.name = "n" + std::to_string(index);
    randomize(n, depth);
    return n;
  }

  /// Gives `n` random parameters of its kind (and nested plans).
  void randomize(NodeSpec& n, int depth) {
    static constexpr float scalars[] = {0.5f, 1.5f, 2.0f, -1.0f, 3.0f};
    n.fn = static_cast<int>(below(2));
    n.grid = 2u << below(3);
    n.block = 32u << below(3);
    n.cluster = o_.clusters && depth == 0 && chance(4) ? 2 : 0;
    n.buf = static_cast<int>(below(4));
    n.src = (n.buf + 1 + static_cast<int>(below(3))) % 4;
    n.scalar = scalars[below(5)];
    n.count = 8 << below(3);
    n.tag = static_cast<int>(1 + below(1000));
    n.event = static_cast<int>(below(2));
    n.default_value = below(2);
    if (n.kind == Kind::slice) n.fn = static_cast<int>(below(4));
    n.bodies.clear();
    if (n.kind == Kind::child) n.bodies.push_back(plan_of(1 + below(3), 1));
    const std::size_t bodies = n.kind == Kind::if_else ? 2 : n.kind == Kind::switch_case ? 1 + below(3) : 1;
    if (conditional(n.kind)) {
      for (std::size_t b = 0; b < bodies; ++b) n.bodies.push_back(plan_of(1 + below(2), 2));
    }
    // validate(): a while body of empty nodes only can never change its condition
    if (n.kind == Kind::while_loop) n.bodies[0].nodes[0].kind = Kind::kernel;
  }

  /// The nodes of `s` whose kind is `k` (indices).
  static std::vector<std::uint32_t> of_kind(const Spec& s, bool (*pred)(Kind)) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < s.nodes.size(); ++i) {
      if (pred(s.nodes[i].kind)) out.push_back(i);
    }
    return out;
  }

  /// A random node of `s` that satisfies `pred`, or nullptr.
  NodeSpec* pick(Spec& s, bool (*pred)(Kind)) {
    const std::vector<std::uint32_t> all = of_kind(s, pred);
    return all.empty() ? nullptr : &s.nodes[all[below(static_cast<std::uint32_t>(all.size()))]];
  }

  std::string edit_at(Spec& s, int depth);
  std::string topology_edit(Spec& s, int depth, std::uint32_t which);

  std::mt19937 rng_;
  Options o_;
};

inline bool is_kernel(Kind k) { return k == Kind::kernel; }
inline bool is_memset(Kind k) { return k == Kind::memset; }
inline bool is_memcpy(Kind k) { return k == Kind::memcpy; }
inline bool is_host(Kind k) { return k == Kind::host; }
inline bool is_tagged(Kind k) { return k == Kind::host || k == Kind::mem_ops || k == Kind::semaphore_signal; }
inline bool is_event(Kind k) { return k == Kind::event_record || k == Kind::event_wait; }
inline bool is_slice(Kind k) { return k == Kind::slice; }
inline bool is_child(Kind k) { return k == Kind::child; }
inline bool is_conditional(Kind k) { return conditional(k); }
inline bool is_any(Kind) { return true; }

/// Parameter edits of every kind (kernel arguments, launch shape, cluster shape, kernel function,
/// memset value and size, memcpy endpoints, host callable, condition default, event, child plan
/// content, body content) and topology edits (add node, add edge, change an edge's kind), and
/// renames.
inline std::string Generator::edit_at(Spec& s, int depth) {
  static constexpr float scalars[] = {0.25f, 4.0f, -2.0f, 5.5f};
  const std::uint32_t which = below(o_.slices ? 17 : 16);
  NodeSpec* n = nullptr;
  if (which == 16) {  // a slice's offset (and sometimes its size)
    if ((n = pick(s, is_slice)) == nullptr) return "";
    n->buf = (n->buf + 1) % 4;
    if (n->src == n->buf) n->src = (n->src + 1) % 4;
    if (chance(3)) n->count = n->count == 8 ? 16 : 8;
    return "slice offset of " + n->name;
  }
  switch (which) {
    case 0:
      if ((n = pick(s, is_kernel)) == nullptr) return "";
      n->scalar = scalars[below(4)] + n->scalar;
      n->count = n->count == 8 ? 16 : 8;
      return "kernel arguments of " + n->name;
    case 1:
      if ((n = pick(s, is_kernel)) == nullptr) return "";
      n->grid = n->grid == 4 ? 8 : 4;
      n->block = n->block == 64 ? 128 : 64;
      return "launch shape of " + n->name;
    case 2:
      if (!o_.clusters || depth != 0 || (n = pick(s, is_kernel)) == nullptr) return "";
      n->cluster = n->cluster == 0 ? 2 : 0;
      return "cluster shape of " + n->name;
    case 3:
      if ((n = pick(s, is_kernel)) == nullptr) return "";
      n->fn = n->fn == 0 ? 1 : 0;  // from Resources::wide (fn 2) too
      return "kernel function of " + n->name;
    case 4:
      if ((n = pick(s, is_memset)) == nullptr) return "";
      if (chance(2)) {
        n->scalar = scalars[below(4)] + n->scalar;
      } else {
        n->count = n->count == 32 ? 16 : 32;
      }
      return "memset value or size of " + n->name;
    case 5:
      if ((n = pick(s, is_memcpy)) == nullptr) return "";
      n->src = (n->src + 1) % 4 == n->buf ? (n->src + 2) % 4 : (n->src + 1) % 4;
      if (chance(2)) std::swap(n->buf, n->src);
      return "memcpy endpoints of " + n->name;
    case 6:
      if ((n = pick(s, is_tagged)) == nullptr) return "";
      n->tag += 1000;
      return "host callable, memory-operation or semaphore value of " + n->name;
    case 7:
      if ((n = pick(s, is_conditional)) == nullptr) return "";
      n->default_value = 1 - n->default_value;
      return "condition default of " + n->name;
    case 8:
      if ((n = pick(s, is_event)) == nullptr) return "";
      n->event = 1 - n->event;
      return "event of " + n->name;
    case 9:
      if ((n = pick(s, is_child)) == nullptr) return "";
      return "child plan of " + n->name + ": " + edit_at(n->bodies[0], 1);
    case 10:
      if ((n = pick(s, is_conditional)) == nullptr) return "";
      return "a body of " + n->name + ": " + edit_at(n->bodies[below(static_cast<std::uint32_t>(n->bodies.size()))], 2);
    case 11:
      if ((n = pick(s, is_any)) == nullptr) return "";
      n->name += "r";
      return "rename of " + n->name;
    default: return topology_edit(s, depth, which);
  }
}

inline std::string Generator::topology_edit(Spec& s, int depth, std::uint32_t which) {
  const auto count = static_cast<std::uint32_t>(s.nodes.size());
  auto has_edge = [&](std::uint32_t f, std::uint32_t t) {
    for (const EdgeSpec& e : s.edges) {
      if (e.from == f && e.to == t) return true;
    }
    return false;
  };
  if (which == 12 || which == 13) {  // a node at the end, after a random node
    s.nodes.push_back(node(depth, s.nodes.size()));
    if (count > 0) s.edges.push_back({o_.chain ? count - 1 : below(count), count, gd::EdgeKind::full});
    return "add node " + s.nodes.back().name;
  }
  if (which == 14) {
    if (count < 2) return "";
    const std::uint32_t to = 1 + below(count - 1);
    const std::uint32_t from = below(to);
    if (has_edge(from, to)) return "";
    s.edges.push_back({from, to, edge_kind(s, from, to)});
    return "add edge " + s.nodes[from].name + " -> " + s.nodes[to].name;
  }
  // Change an edge's kind: full <-> programmatic, between kernel nodes.
  for (EdgeSpec& e : s.edges) {
    if (!o_.programmatic || s.nodes[e.from].kind != Kind::kernel || s.nodes[e.to].kind != Kind::kernel) continue;
    e.kind = e.kind == gd::EdgeKind::full ? gd::EdgeKind::programmatic : gd::EdgeKind::full;
    return "edge kind " + s.nodes[e.from].name + " -> " + s.nodes[e.to].name;
  }
  return "";
}

// ---- the model of diff() ------------------------------------------------------------------------

/// Whether plans built from `a` and `b` have the same shape (docs/updating.md, "What update()
/// does"): node count, kinds, kernel functions, cluster shapes, edges and their kinds, the shape of
/// child plans and conditional bodies. Names and parameters are not shape.
inline bool same_shape(const Spec& a, const Spec& b) {
  if (a.nodes.size() != b.nodes.size()) return false;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeSpec& x = a.nodes[i];
    const NodeSpec& y = b.nodes[i];
    if (x.kind != y.kind || x.bodies.size() != y.bodies.size()) return false;
    if (x.kind == Kind::kernel && (x.fn != y.fn || x.cluster != y.cluster)) return false;
    if (x.kind == Kind::slice && x.fn != y.fn) return false;  // a kernel, memset or memcpy
    for (std::size_t k = 0; k < x.bodies.size(); ++k) {
      if (!same_shape(x.bodies[k], y.bodies[k])) return false;
    }
  }
  auto key = [](const EdgeSpec& e) { return std::make_pair(std::make_pair(e.to, e.from), static_cast<int>(e.kind)); };
  std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, int>> ea, eb;
  for (const EdgeSpec& e : a.edges) ea.push_back(key(e));
  for (const EdgeSpec& e : b.edges) eb.push_back(key(e));
  std::sort(ea.begin(), ea.end());
  std::sort(eb.begin(), eb.end());
  return ea == eb;
}

/// Whether node `x` of one plan and node `y` (same shape) of another, each built by its own build(),
/// have the same parameters. Host callables compare by identity: two builds never share one.
inline bool same_params(const NodeSpec& x, const NodeSpec& y) {
  switch (x.kind) {
    case Kind::kernel:
      return x.grid == y.grid && x.block == y.block && x.buf == y.buf && x.scalar == y.scalar && x.count == y.count;
    case Kind::memset: return x.buf == y.buf && x.scalar == y.scalar && x.count == y.count;
    case Kind::memcpy: return x.buf == y.buf && x.src == y.src && x.count == y.count;
    case Kind::host:
    case Kind::captured: return false;
    case Kind::mem_ops:
    case Kind::semaphore_signal: return x.buf == y.buf && x.tag == y.tag;
    case Kind::event_record:
    case Kind::event_wait: return x.event == y.event;
    case Kind::empty: return true;
    case Kind::slice:  // the offsets (a copy's source too), the size, the value (not a copy's)
      return x.buf == y.buf && x.count == y.count && (x.fn != 2 || x.src == y.src) &&
             (x.fn == 2 || x.scalar == y.scalar) && (x.fn != 0 || (x.grid == y.grid && x.block == y.block));
    default: break;
  }
  for (std::size_t k = 0; k < x.bodies.size(); ++k) {  // child plans and bodies
    for (std::size_t i = 0; i < x.bodies[k].nodes.size(); ++i) {
      if (!same_params(x.bodies[k].nodes[i], y.bodies[k].nodes[i])) return false;
    }
  }
  return true;
}

/// The top-level nodes diff() lists as changed between plans built from `a` and `b` (same shape),
/// by plan index (node i of `a` is node i + 1 of a plan that allocates a buffer for slices).
inline std::vector<std::uint32_t> changed_nodes(const Spec& a, const Spec& b) {
  std::vector<std::uint32_t> out;
  const std::uint32_t first = has_slices(a) ? 1 : 0;
  for (std::uint32_t i = 0; i < a.nodes.size(); ++i) {
    if (!same_params(a.nodes[i], b.nodes[i])) out.push_back(first + i);
  }
  return out;
}

/// Whether a condition default differs (same shape): the conditions the top-level conditional
/// nodes declare.
inline bool defaults_differ(const Spec& a, const Spec& b) {
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    if (conditional(a.nodes[i].kind) && a.nodes[i].default_value != b.nodes[i].default_value) return true;
  }
  return false;
}

/// Whether plans built from `a` and `b` (same shape) differ in what only cudaGraphExecUpdate applies
/// (docs/updating.md): a condition default, a conditional node's bodies, a captured node (closures
/// compare by identity).
inline bool needs_whole_graph(const Spec& a, const Spec& b) {
  if (defaults_differ(a, b)) return true;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const Kind k = a.nodes[i].kind;
    if ((conditional(k) || k == Kind::captured) && !same_params(a.nodes[i], b.nodes[i])) return true;
  }
  return false;
}

/// Whether `s` (or a plan nested in it) holds a memset or memcpy on a slice (a Kind::slice node
/// other than a kernel).
inline bool has_slice_copies(const Spec& s) {
  for (const NodeSpec& n : s.nodes) {
    if (n.kind == Kind::slice && n.fn != 0) return true;
    for (const Spec& b : n.bodies) {
      if (has_slice_copies(b)) return true;
    }
  }
  return false;
}

/// Whether a child node whose plan differs between `a` and `b` (same shape) holds a memset or
/// memcpy on the top-level plan's graph memory in b: CUDA cannot rebuild such a child once the
/// plan is compiled, and diff() / update() refuse it.
inline bool rebuilds_child_copies(const Spec& a, const Spec& b) {
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    if (a.nodes[i].kind == Kind::child && !same_params(a.nodes[i], b.nodes[i]) && has_slice_copies(b.nodes[i].bodies[0])) {
      return true;
    }
  }
  return false;
}

/// Whether diff() accepts plans built from `a` and `b`: the same shape, no change that only
/// cudaGraphExecUpdate applies in a plan that allocates graph memory (Kind::slice), which CUDA
/// cannot update as a whole, and no child plan to rebuild with a memset or memcpy on that memory.
inline bool diff_accepts(const Spec& a, const Spec& b) {
  return same_shape(a, b) && !(has_slices(a) && needs_whole_graph(a, b)) && !rebuilds_child_copies(a, b);
}

/// Whether `s` (or a nested plan) holds a host node.
inline bool has_host(const Spec& s) {
  for (const NodeSpec& n : s.nodes) {
    if (n.kind == Kind::host) return true;
    for (const Spec& b : n.bodies) {
      if (has_host(b)) return true;
    }
  }
  return false;
}

/// The names of every node of `s` and its nested plans.
inline void names_of(const Spec& s, std::vector<std::string>& out) {
  for (const NodeSpec& n : s.nodes) {
    out.push_back(n.name);
    for (const Spec& b : n.bodies) names_of(b, out);
  }
}

}  // namespace plan_gen
