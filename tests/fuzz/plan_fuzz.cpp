// tests/fuzz/plan_fuzz.cpp — fuzzing the plan builder.
//
// The input bytes are read as a program of plan operations over three plan slots: adding nodes of
// every kind (with parameters picked from menus that include zeros, nulls, powers of two and values
// near the top of their type), edges through after() / before() / Graph::add_edge (self edges,
// nodes of other plans, empty handles, duplicates, long lists), renames, conditions and conditional
// nodes whose bodies are built by nested operations (including a builder that throws), graph
// buffers, child plans, copies, moves, plans copied out of child and conditional nodes, validate(),
// diff(), dump() and to_dot(). The plan API has no operation that removes a node or an edge.
//
// Next to the real plans the harness keeps its own model of each one (nodes, names, edges, the
// parameters that diff() compares, the rules each node breaks) and checks after the operations:
//   * introspection (node_count, edge_count, nodes, node(i), find, edges, predecessors,
//     successors, child_plan, body_plan) agrees with the model;
//   * validate() throws gd::UsageError exactly when the model's own check finds a broken rule, and
//     its message is one of the rules found (a per-node rule names a node that breaks it; a cycle
//     printed for a top-level plan is a cycle of the model); instantiate() of an invalid plan throws
//     the same message;
//   * refused edge operations throw the error the model expects and leave the plan unchanged;
//   * diff() refuses exactly the pairs whose shapes differ, and otherwise lists exactly the nodes
//     whose parameters differ (or says the template is invalid when the model says so);
//   * copies have equal fingerprints, dumps and DOT output; dump() and to_dot() describe every
//     node and edge; a moved-from Graph throws on use;
//   * no CUDA call is made, and every plan and host closure is gone after each input;
//   * handles of a plan that was destroyed (assigned over, moved over, replaced by a copied-out
//     plan, or gone at the end of the input) are invalid and every use is a UsageError; a copy
//     does not change when the original is renamed; a body's handles cannot edit it once its
//     builder returned; a plan embedding copies of itself is refused at the embedding limit.
// A failed check prints what differed and aborts, so that libFuzzer keeps the input.
//
// Input format: one operation after another until the bytes run out. The first byte of an
// operation picks it (opcode % 32: 0..20 act on a plan, 21..31 on slots), the next ones its slot
// and arguments; reading past the end yields zeros.
#include "plan_fuzz.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

namespace plan_fuzz {
namespace {

namespace gd = graphdsl;

Stats g_stats;

[[noreturn]] void failed(const std::string& what) {
  std::fprintf(stderr, "plan_fuzz: CHECK FAILED: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(cond, ...)                                                                           \
  do {                                                                                                  \
    if (!(cond)) ::plan_fuzz::failed(fmt::format("{} ({}:{}): {}", #cond, __FILE__, __LINE__, fmt::format(__VA_ARGS__))); \
  } while (false)

__extension__ typedef unsigned __int128 u128;

/// a * b and a + b, or the largest u128 when they overflow (sizes here are compared, never stored).
u128 mul_sat(u128 a, u128 b) {
  u128 r = 0;
  return __builtin_mul_overflow(a, b, &r) ? ~u128{0} : r;
}
u128 add_sat(u128 a, u128 b) {
  u128 r = 0;
  return __builtin_add_overflow(a, b, &r) ? ~u128{0} : r;
}

// ---- the input ---------------------------------------------------------------------------------

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  std::uint8_t byte() {
    if (pos_ >= size_) return 0;
    const std::uint8_t b = data_[pos_];
    return pos_++ == flip_at_ ? static_cast<std::uint8_t>(b ^ flip_mask_) : b;
  }
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }
  /// Reads the byte at `at` with `mask` XORed in (until cleared), to make a twin differ.
  void flip(std::size_t at, std::uint8_t mask) {
    flip_at_ = at;
    flip_mask_ = mask;
  }
  void clear_flip() { flip_at_ = std::numeric_limits<std::size_t>::max(); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(byte() | (byte() << 8)); }
  std::uint32_t u32() { return u16() | (static_cast<std::uint32_t>(u16()) << 16); }
  bool flag() { return (byte() & 1) != 0; }
  /// 0 .. n-1 (n >= 1).
  std::uint32_t below(std::uint32_t n) { return n <= 256 ? byte() % n : u16() % n; }
  /// A size or count: mostly small, sometimes 0, a power of two or close to SIZE_MAX.
  std::size_t size() {
    switch (byte() % 8) {
      case 0: return 0;
      case 5: return u16();
      case 6: return std::size_t{1} << (byte() % 64);
      case 7: return std::numeric_limits<std::size_t>::max() - byte();
      default: return byte();
    }
  }
  /// A launch dimension: mostly small, sometimes 0, a power of two or any 32-bit value.
  std::uint32_t dim() {
    switch (byte() % 8) {
      case 0: return 0;
      case 5: return 1u << (byte() % 32);
      case 6: return u32();
      default: return 1u + byte() % 64;
    }
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  std::size_t flip_at_ = std::numeric_limits<std::size_t>::max();
  std::uint8_t flip_mask_ = 0;
};

// ---- stand-ins: kernels (never called) and host memory (never touched) --------------------------

volatile int g_sink = 0;
void k_scale(float* p, float a, int n) { g_sink = 1 + static_cast<int>(p != nullptr) + static_cast<int>(a) + n; }
void k_none() { g_sink = 2; }
void k_copy(float* d, const float* s, int n) { g_sink = 3 + static_cast<int>(d != s) + n; }
void k_cond(cudaGraphConditionalHandle h, int v) { g_sink = 4 + static_cast<int>(h) + v; }

enum Func : int { f_null = -1, f_scale = 0, f_none, f_copy, f_cond, f_set_condition };

float g_mem[4][64];
/// Pointer menu: 0 is nullptr, 1..4 four host arrays.
float* pointer(std::uint32_t i) { return i == 0 ? nullptr : g_mem[i - 1]; }

const char* const k_names[] = {"",     "a",     "b",       "c",         "load",     "scale",     "sum",
                               "{}",   "{0}",   "%s%n",    "q'uote",    "dq\"x",    "back\\",    "new\nline",
                               "tab\t", "\xc3\xbc" "ber", "a b", "dup",   "dup",      "<i>",       "#3",
                               "a_name_long_enough_to_leave_the_small_string_buffer_of_std_string"};
const char* const k_plan_names[] = {"plan", "", "{}", "p'q", "g\"h", "graph"};

// ---- the model ---------------------------------------------------------------------------------

/// The rules validate() checks, each with a fragment of its message.
enum class Rule : std::uint8_t {
  kernel_null, zero_dim, threads, memset_elem, memset_empty, memset_pitch, null_pointer, memcpy_empty,
  memcpy_kind, memcpy_pitch, buffer_foreign, buffer_small, host_empty, event_empty, capture_mode, alloc_zero,
  free_foreign, condition_undeclared, conditional_shape, condition_enclosing, condition_index, condition_shared,
  condition_unused, body_kind, child_memory, child_conditional, double_free, free_order, use_before_alloc,
  use_after_free, cycle, dim_limit, too_large, conditional_type, while_empty,
};

struct RuleText {
  Rule rule;
  const char* fragment;
};
constexpr RuleText k_rule_texts[] = {
    {Rule::kernel_null, "the kernel function is null"},
    {Rule::zero_dim, "has a zero dimension"},
    {Rule::threads, "threads per block"},
    {Rule::dim_limit, " in grid."},
    {Rule::dim_limit, " in block."},
    {Rule::too_large, "the largest size graphdsl accepts (a negative count"},
    {Rule::conditional_type, "is not a conditional type"},
    {Rule::while_empty, "nothing in it can change the condition"},
    {Rule::memset_elem, "CUDA memset nodes take 1, 2 or 4-byte elements"},
    {Rule::memset_empty, "a memset node must set at least one element"},
    {Rule::memset_pitch, "is smaller than one row"},
    {Rule::null_pointer, "pointer is null"},
    {Rule::memcpy_empty, "a memcpy node must copy at least one byte"},
    {Rule::memcpy_kind, "is not a valid copy direction"},
    {Rule::memcpy_pitch, "is smaller than the row width"},
    {Rule::buffer_foreign, "is a GraphBuffer not allocated by graph"},
    {Rule::buffer_foreign, "a GraphBuffer argument is not allocated by graph"},
    {Rule::buffer_small, "which holds"},
    {Rule::host_empty, "the callable is empty"},
    {Rule::event_empty, "the Event is empty"},
    {Rule::capture_mode, "is not a capture mode"},
    {Rule::alloc_zero, "allocates 0 bytes"},
    {Rule::free_foreign, "the GraphBuffer it frees is not allocated"},
    {Rule::condition_undeclared, "or a plan enclosing it (an empty Condition, or one declared by another plan)"},
    {Rule::conditional_shape, " bodies; "},
    {Rule::condition_enclosing, "which is being compiled without it"},
    {Rule::condition_index, "refers to condition number"},
    {Rule::condition_shared, "use the same Condition"},
    {Rule::condition_unused, "that no conditional node uses"},
    {Rule::body_kind, "nodes are not allowed in a conditional body"},
    {Rule::child_memory, "cannot embed graph allocations"},
    {Rule::child_conditional, "cannot embed conditional nodes"},
    {Rule::double_free, "a graph allocation is freed once"},
    {Rule::free_order, "the allocation it frees"},
    {Rule::use_before_alloc, "but is not ordered after it"},
    {Rule::use_after_free, "is not ordered before its free"},
    {Rule::cycle, "cycle: "},
};

const char* rule_name(Rule r) {
  for (const RuleText& t : k_rule_texts) {
    if (t.rule == r) return t.fragment;
  }
  return "?";
}

/// The rule a validate() message reports, by its fragment.
bool classify(const std::string& message, Rule& out) {
  for (const RuleText& t : k_rule_texts) {
    if (message.find(t.fragment) != std::string::npos) {
      out = t.rule;
      return true;
    }
  }
  return false;
}

constexpr std::uint32_t k_unresolved = 0xffffffffu;

struct SPlaceholder {
  std::uint32_t offset;
  bool condition;
  std::uint32_t levels;  ///< k_unresolved, or how many plans out the condition / buffer is
  std::uint32_t index;
  std::uint64_t uid = 0;  ///< a buffer's id (resolved later when the plan is added as a child)
};

enum class Field : std::uint8_t { memset_dst, memcpy_dst, memcpy_src };

struct SBufferUse {
  std::uint32_t node;
  Field field;
  std::uint32_t alloc;       ///< the mem_alloc node (of the plan `levels` out), or k_unresolved
  std::uint32_t levels = 0;  ///< 0: this plan allocates the buffer; k: the plan k levels out
  std::uint64_t uid = 0;     ///< the buffer's id
  bool too_small = false;    ///< the node touches more bytes than the buffer holds
};

struct SCondition {
  std::uint64_t uid;
  unsigned int default_value;
  bool assign;
};

struct SPlan;

struct SNode {
  gd::NodeKind kind = gd::NodeKind::empty;
  std::string name;
  std::vector<std::uint32_t> preds;  ///< in insertion order
  std::vector<Rule> own;             ///< the per-node rules it breaks (Graph::validate's node checks)
  std::string params;                ///< what diff() compares as its parameters (leaf kinds)
  int priority = 0;                  ///< kernel: its launch priority
  bool multi_dim = false;            ///< memcpy: a 2-D or 3-D copy
  int func = f_null;
  std::vector<SPlaceholder> placeholders;
  std::uint64_t buffer = 0;          ///< mem_alloc: the buffer's id
  std::size_t alloc_bytes = 0;
  std::uint32_t frees = k_unresolved;  ///< mem_free: the mem_alloc node
  std::shared_ptr<const SPlan> child;
  gd::ConditionalType ctype = gd::ConditionalType::if_then;
  std::uint32_t clevels = k_unresolved, cindex = 0;
  std::vector<std::shared_ptr<const SPlan>> bodies;
};

struct SPlan {
  std::string name;
  std::vector<SNode> nodes;
  std::vector<SCondition> conditions;
  std::vector<SBufferUse> uses;
  std::size_t expanded = 0;  ///< nodes, counting those of child plans and bodies (bounds the work)

  std::size_t edges() const {
    std::size_t e = 0;
    for (const SNode& n : nodes) e += n.preds.size();
    return e;
  }
  bool has_edge(std::uint32_t from, std::uint32_t to) const {
    const auto& p = nodes[to].preds;
    return std::find(p.begin(), p.end(), from) != p.end();
  }
  std::uint32_t alloc_node(std::uint64_t uid) const {
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].kind == gd::NodeKind::mem_alloc && nodes[i].buffer == uid && uid != 0) return i;
    }
    return k_unresolved;
  }
};

/// A name as messages, dumps and DOT print it (docs/errors.md, "Names in messages"), for the
/// harness's names: printable ASCII, control characters and well-formed UTF-8 without C1 controls.
std::string quoted(const std::string& name) {
  std::string out = "'";
  for (const char ch : name) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == '\'') {
      out += '\\';
      out += ch;
    } else if (ch == '\n' || ch == '\t' || ch == '\r') {
      out += ch == '\n' ? "\\n" : ch == '\t' ? "\\t" : "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += ch;
    }
  }
  return out + "'";
}

std::string describe(const SPlan& p, std::uint32_t i) {
  const SNode& n = p.nodes[i];
  return n.name.empty() ? fmt::format("{} node #{}", gd::to_string(n.kind), i)
                        : fmt::format("{} node {} (#{})", gd::to_string(n.kind), quoted(n.name), i);
}

/// The largest size graphdsl accepts (PTRDIFF_MAX), and the largest element count of a typed
/// add_* for 4-byte elements: above it count * 4 is refused when the node is added.
constexpr std::size_t k_max_bytes = static_cast<std::size_t>(PTRDIFF_MAX);
constexpr std::size_t k_max_count4 = k_max_bytes / 4;

// ---- the model's rules (written from the documentation, independently of src/plan/rules.cpp and src/kinds/) ----

struct Violation {
  Rule rule;
  std::string node;  ///< the node's description when the message must name it, else empty
};

/// Rules of a pointer that may stand for a graph buffer.
void pointer_rules(const SPlan& p, std::uint32_t i, Field field, bool null, u128 bytes, std::vector<Rule>& out) {
  const SBufferUse* use = nullptr;
  for (const SBufferUse& u : p.uses) {
    if (u.node == i && u.field == field) use = &u;
  }
  if (use == nullptr) {
    if (null) out.push_back(Rule::null_pointer);
  } else if (use->alloc == k_unresolved) {
    out.push_back(Rule::buffer_foreign);
  } else if (use->levels != 0 ? use->too_small : bytes > p.nodes[use->alloc].alloc_bytes) {
    out.push_back(Rule::buffer_small);  // a buffer of an enclosing plan: against its own size
  }
}

bool is_cyclic(const SPlan& p) {
  // Depth-first search over predecessor lists with three colours.
  const std::size_t n = p.nodes.size();
  std::vector<int> colour(n, 0);
  for (std::uint32_t root = 0; root < n; ++root) {
    if (colour[root] != 0) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{root, 0}};
    colour[root] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < p.nodes[v].preds.size()) {
        const std::uint32_t u = p.nodes[v].preds[next++];
        if (colour[u] == 1) return true;
        if (colour[u] == 0) {
          colour[u] = 1;
          stack.push_back({u, 0});
        }
      } else {
        colour[v] = 2;
        stack.pop_back();
      }
    }
  }
  return false;
}

/// reach[v]: v can be reached from `from` along edges (from itself included).
std::vector<bool> reach_from(const SPlan& p, std::uint32_t from) {
  std::vector<bool> seen(p.nodes.size());
  seen[from] = true;
  bool grew = true;
  while (grew) {  // small plans: a fixed point is simple and obviously right
    grew = false;
    for (std::uint32_t v = 0; v < p.nodes.size(); ++v) {
      if (seen[v]) continue;
      for (std::uint32_t u : p.nodes[v].preds) {
        if (seen[u]) {
          seen[v] = grew = true;
          break;
        }
      }
    }
  }
  return seen;
}

bool holds(const SPlan& p, gd::NodeKind kind) {
  for (const SNode& n : p.nodes) {
    if (n.kind == kind || (n.kind == gd::NodeKind::child && holds(*n.child, kind))) return true;
  }
  return false;
}

void body_kind_rules(const SPlan& body, std::vector<Violation>& out) {
  for (std::uint32_t i = 0; i < body.nodes.size(); ++i) {
    const gd::NodeKind k = body.nodes[i].kind;
    if (k == gd::NodeKind::host || k == gd::NodeKind::event_record || k == gd::NodeKind::event_wait ||
        k == gd::NodeKind::mem_alloc || k == gd::NodeKind::mem_free) {
      out.push_back({Rule::body_kind, describe(body, i)});
    }
    if (k == gd::NodeKind::child) body_kind_rules(*body.nodes[i].child, out);
  }
}

struct Scope {
  const SPlan* plan;
  const Scope* outer;
};

/// The plan `levels` scopes out, or nullptr.
const SPlan* scope_out(const Scope* s, std::uint32_t levels) {
  for (std::uint32_t k = 0; s != nullptr && k < levels; ++k) s = s->outer;
  return s == nullptr ? nullptr : s->plan;
}

using Usage = std::set<std::pair<const SPlan*, std::uint32_t>>;

/// Adds (alloc, user) for each reference in `p`, `depth` levels below the plan that allocates, to
/// that plan's mem_alloc node `alloc`.
void nested_users(const SPlan& p, std::uint32_t depth, std::uint32_t user,
                  std::vector<std::pair<std::uint32_t, std::uint32_t>>& uses) {
  for (const SNode& n : p.nodes) {
    for (const SPlaceholder& ph : n.placeholders) {
      if (!ph.condition && ph.levels == depth) uses.emplace_back(ph.index, user);
    }
    if (n.child) nested_users(*n.child, depth + 1, user, uses);
    for (const auto& b : n.bodies) nested_users(*b, depth + 1, user, uses);
  }
  for (const SBufferUse& u : p.uses) {
    if (u.alloc != k_unresolved && u.levels == depth) uses.emplace_back(u.alloc, user);
  }
}

void memory_rules(const SPlan& p, std::vector<Violation>& out) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> frees;  // alloc node -> its free nodes
  std::vector<std::pair<std::uint32_t, std::uint32_t>> uses;  // (alloc node, user)
  for (std::uint32_t i = 0; i < p.nodes.size(); ++i) {
    const SNode& n = p.nodes[i];
    if (n.kind == gd::NodeKind::mem_free && n.frees != k_unresolved) frees[n.frees].push_back(i);
    for (const SPlaceholder& ph : n.placeholders) {
      if (!ph.condition && ph.levels == 0) uses.emplace_back(ph.index, i);
    }
    // A child or conditional node uses the buffers its plans use (at any depth).
    if (n.child) nested_users(*n.child, 1, i, uses);
    for (const auto& b : n.bodies) nested_users(*b, 1, i, uses);
  }
  for (const SBufferUse& u : p.uses) {
    if (u.alloc != k_unresolved && u.levels == 0) uses.emplace_back(u.alloc, u.node);
  }
  for (const auto& [a, fs] : frees) {
    if (fs.size() > 1) out.push_back({Rule::double_free, {}});
  }
  for (std::uint32_t a = 0; a < p.nodes.size(); ++a) {
    if (p.nodes[a].kind != gd::NodeKind::mem_alloc) continue;
    const std::vector<bool> after = reach_from(p, a);
    const auto f = frees.find(a);
    for (std::uint32_t fn : f == frees.end() ? std::vector<std::uint32_t>{} : f->second) {
      if (!after[fn]) out.push_back({Rule::free_order, {}});
    }
    for (const auto& [alloc, user] : uses) {
      if (alloc != a) continue;
      if (!after[user]) out.push_back({Rule::use_before_alloc, {}});
      if (f != frees.end() && !reach_from(p, user)[f->second.front()]) out.push_back({Rule::use_after_free, {}});
    }
  }
}

/// Every broken rule of `p` (and of the plans it holds), seen from `outer`.
void plan_rules(const SPlan& p, const Scope* outer, Usage& usage, std::vector<Violation>& out) {
  const Scope here{&p, outer};
  // A buffer of an enclosing plan: that plan, where this one is compiled, allocates it there.
  auto outer_buffer = [&](std::uint32_t levels, std::uint32_t index, std::uint64_t uid, std::uint32_t i) {
    const SPlan* owner = scope_out(&here, levels);
    if (owner == nullptr || index >= owner->nodes.size() || owner->nodes[index].kind != gd::NodeKind::mem_alloc ||
        owner->nodes[index].buffer != uid) {
      out.push_back({Rule::buffer_foreign, describe(p, i)});
    }
  };
  for (const SBufferUse& u : p.uses) {
    if (u.alloc != k_unresolved && u.levels != 0) outer_buffer(u.levels, u.alloc, u.uid, u.node);
  }
  for (std::uint32_t i = 0; i < p.nodes.size(); ++i) {
    const SNode& n = p.nodes[i];
    for (Rule r : n.own) out.push_back({r, describe(p, i)});
    for (const SPlaceholder& ph : n.placeholders) {
      if (!ph.condition && ph.levels != k_unresolved && ph.levels != 0) outer_buffer(ph.levels, ph.index, ph.uid, i);
    }
    for (const SPlaceholder& ph : n.placeholders) {
      if (!ph.condition || ph.levels == k_unresolved) continue;
      const SPlan* owner = scope_out(&here, ph.levels);
      if (owner == nullptr) {
        out.push_back({Rule::condition_enclosing, describe(p, i)});
      } else if (ph.index >= owner->conditions.size()) {
        out.push_back({Rule::condition_index, describe(p, i)});
      }
    }
    if (n.kind == gd::NodeKind::child) {
      if (holds(*n.child, gd::NodeKind::mem_alloc) || holds(*n.child, gd::NodeKind::mem_free)) {
        out.push_back({Rule::child_memory, describe(p, i)});
      }
      if (holds(*n.child, gd::NodeKind::conditional)) out.push_back({Rule::child_conditional, describe(p, i)});
      plan_rules(*n.child, &here, usage, out);
    } else if (n.kind == gd::NodeKind::conditional) {
      if (n.clevels != k_unresolved) {
        const SPlan* owner = scope_out(&here, n.clevels);
        if (owner == nullptr) {
          out.push_back({Rule::condition_enclosing, describe(p, i)});
        } else if (n.cindex >= owner->conditions.size()) {
          out.push_back({Rule::condition_index, describe(p, i)});
        } else if (!usage.insert({owner, n.cindex}).second) {
          out.push_back({Rule::condition_shared, {}});
        }
      }
      for (const auto& body : n.bodies) {
        body_kind_rules(*body, out);
        plan_rules(*body, &here, usage, out);
      }
    }
  }
  if (is_cyclic(p)) out.push_back({Rule::cycle, {}});
  memory_rules(p, out);
  for (std::uint32_t k = 0; k < p.conditions.size(); ++k) {
    if (usage.count({&p, k}) == 0) out.push_back({Rule::condition_unused, {}});
  }
}

std::vector<Violation> violations(const SPlan& p) {
  Usage usage;
  std::vector<Violation> out;
  plan_rules(p, nullptr, usage, out);
  return out;
}

// ---- the model of diff() -----------------------------------------------------------------------

bool same_set(std::vector<std::uint32_t> a, std::vector<std::uint32_t> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

/// The structure diff() compares: counts, kinds, edges (as sets), kernel functions and
/// placeholders, allocations, frees, buffer uses, conditional shapes and nested plans.
bool same_shape(const SPlan& a, const SPlan& b) {
  if (a.nodes.size() != b.nodes.size() || a.conditions.size() != b.conditions.size()) return false;
  if (a.uses.size() != b.uses.size()) return false;
  for (std::size_t k = 0; k < a.uses.size(); ++k) {
    const SBufferUse &x = a.uses[k], &y = b.uses[k];
    if (x.node != y.node || x.field != y.field || x.alloc != y.alloc || x.levels != y.levels) return false;
  }
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const SNode &x = a.nodes[i], &y = b.nodes[i];
    if (x.kind != y.kind || !same_set(x.preds, y.preds)) return false;
    switch (x.kind) {
      case gd::NodeKind::kernel: {
        if (x.func != y.func || x.placeholders.size() != y.placeholders.size()) return false;
        for (std::size_t k = 0; k < x.placeholders.size(); ++k) {
          const SPlaceholder &p = x.placeholders[k], &q = y.placeholders[k];
          if (p.offset != q.offset || p.condition != q.condition || p.levels != q.levels || p.index != q.index) return false;
        }
        break;
      }
      case gd::NodeKind::mem_alloc:
        if (x.alloc_bytes != y.alloc_bytes) return false;
        break;
      case gd::NodeKind::mem_free:
        if (x.frees != y.frees) return false;
        break;
      case gd::NodeKind::child:
        if (!same_shape(*x.child, *y.child)) return false;
        break;
      case gd::NodeKind::conditional:
        if (x.ctype != y.ctype || x.bodies.size() != y.bodies.size() || x.clevels != y.clevels || x.cindex != y.cindex) {
          return false;
        }
        for (std::size_t k = 0; k < x.bodies.size(); ++k) {
          if (!same_shape(*x.bodies[k], *y.bodies[k])) return false;
        }
        break;
      default: break;
    }
  }
  return true;
}

/// Whether node i has the same parameters in a and b (same shapes).
bool same_params(const SPlan& a, const SPlan& b, std::uint32_t i) {
  const SNode &x = a.nodes[i], &y = b.nodes[i];
  switch (x.kind) {
    case gd::NodeKind::child:
      for (std::uint32_t k = 0; k < x.child->nodes.size(); ++k) {
        if (!same_params(*x.child, *y.child, k)) return false;
      }
      return true;
    case gd::NodeKind::conditional:
      for (std::size_t k = 0; k < x.bodies.size(); ++k) {
        const SPlan &bx = *x.bodies[k], &by = *y.bodies[k];
        for (std::size_t c = 0; c < bx.conditions.size(); ++c) {
          if (bx.conditions[c].default_value != by.conditions[c].default_value ||
              bx.conditions[c].assign != by.conditions[c].assign) {
            return false;
          }
        }
        for (std::uint32_t n = 0; n < bx.nodes.size(); ++n) {
          if (!same_params(bx, by, n)) return false;
        }
      }
      return true;
    default: return x.params == y.params;
  }
}

// ---- the world: three plan slots and their models ------------------------------------------------

struct Slot {
  gd::Graph g;
  SPlan s;
  std::vector<gd::Node> handles;  ///< handles[i] is node i (as returned when it was added)
  bool moved_from = false;
};

/// Objects the operations pick from by position (conditions, buffers). While the second pass of a
/// twin operation runs, a position among those the first pass created means the counterpart the
/// second pass created, so that both passes build the same shape.
template <class T>
struct Pool {
  std::vector<T> items;
  std::size_t twin_from = 0;   ///< first item the first pass created
  std::size_t twin_shift = 0;  ///< items the first pass created (0: no second pass running)

  void add(const T& x) {
    if (items.size() < 64) items.push_back(x);
  }
  /// An item, or an empty T.
  T pick(Input& in) const {
    const std::size_t visible = items.size() - twin_shift;
    std::size_t k = in.below(static_cast<std::uint32_t>(visible) + 1);
    if (k == visible) return T();
    if (twin_shift != 0 && k >= twin_from) k += twin_shift;
    return k < items.size() ? items[k] : T();
  }
};

struct World {
  std::array<Slot, 3> slots;
  Pool<gd::Condition> conditions;        ///< every Condition declared so far (any plan)
  Pool<gd::GraphBuffer<float>> buffers;  ///< every graph buffer allocated so far
  std::uint64_t next_closure = 1;
};

constexpr std::size_t k_max_nodes = 160;       // per plan (above 64 so that long edge lists are reached)
constexpr std::size_t k_max_expanded = 800;    // counting nested plans (embedding a plan in itself doubles it)

/// A handle usable with name(), after() and before() for a node of any kind.
class AnyHandle : public gd::NodeHandle<AnyHandle> {
 public:
  using gd::NodeHandle<AnyHandle>::NodeHandle;
};

/// A plan being built: a slot's plan, or a conditional body inside its builder.
struct Ctx {
  World& world;
  gd::Graph& g;
  SPlan& s;
  std::vector<gd::Node>& handles;
  const Ctx* parent;  ///< the plan whose body this is (conditions resolve through it), or nullptr
  int depth;
};

/// The thrown message when `f` throws gd::UsageError; aborts on any other exception. `threw` says
/// whether it threw.
template <class F>
std::string usage_error(F&& f, bool& threw) {
  threw = false;
  try {
    f();
  } catch (const gd::UsageError& e) {
    threw = true;
    return e.what();
  }
  return {};
}

constexpr const char* k_moved_from = "graphdsl: use of a moved-from Graph";
constexpr const char* k_empty_handle = "graphdsl: empty node handle (a default-constructed Node was used)";

struct SPlan;
void check_sealed_bodies(const std::vector<std::pair<gd::Node, std::shared_ptr<SPlan>>>& kept);

void check_moved_from(Slot& slot) {
  bool threw = false;
  const std::string msg = usage_error([&] { (void)slot.g.node_count(); }, threw);
  FUZZ_CHECK(threw && msg == k_moved_from, "node_count() of a moved-from Graph: '{}'", msg);
  ++g_stats.moved_from_uses;
}

/// Cheap agreement check after every operation.
void check_counts(const Ctx& c) {
  FUZZ_CHECK(c.g.node_count() == c.s.nodes.size(), "node_count {} vs model {}", c.g.node_count(), c.s.nodes.size());
  FUZZ_CHECK(c.g.edge_count() == c.s.edges(), "edge_count {} vs model {}", c.g.edge_count(), c.s.edges());
  FUZZ_CHECK(c.handles.size() == c.s.nodes.size(), "harness: {} handles for {} nodes", c.handles.size(), c.s.nodes.size());
}

/// Structure of a plan copied out of a child or conditional node against its model.
void check_structure(const gd::Graph& g, const SPlan& s) {
  FUZZ_CHECK(g.name() == s.name, "plan name '{}' vs model '{}'", g.name(), s.name);
  FUZZ_CHECK(g.node_count() == s.nodes.size(), "nested node_count {} vs {}", g.node_count(), s.nodes.size());
  FUZZ_CHECK(g.edge_count() == s.edges(), "nested edge_count {} vs {}", g.edge_count(), s.edges());
  for (std::uint32_t i = 0; i < s.nodes.size(); ++i) {
    const gd::Node n = g.node(i);
    FUZZ_CHECK(n.kind() == s.nodes[i].kind && n.name() == s.nodes[i].name, "nested node #{} differs", i);
    const auto preds = g.predecessors(n);
    FUZZ_CHECK(preds.size() == s.nodes[i].preds.size(), "nested preds of #{}", i);
    for (std::size_t k = 0; k < preds.size(); ++k) FUZZ_CHECK(preds[k].index() == s.nodes[i].preds[k], "nested pred");
  }
}

/// Complete comparison of a plan with its model through every introspection function.
void full_check(const Ctx& c) {
  check_counts(c);
  ++g_stats.full_checks;
  const gd::Graph& g = c.g;
  const SPlan& s = c.s;
  const auto n = static_cast<std::uint32_t>(s.nodes.size());
  FUZZ_CHECK(g.name() == s.name, "name '{}' vs model '{}'", g.name(), s.name);
  const std::vector<gd::Node> all = g.nodes();
  FUZZ_CHECK(all.size() == n, "nodes() size {}", all.size());
  std::vector<std::vector<std::uint32_t>> succ(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t p : s.nodes[i].preds) succ[p].push_back(i);
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const SNode& m = s.nodes[i];
    const gd::Node h = g.node(i);
    FUZZ_CHECK(h == all[i] && h == c.handles[i] && h.index() == i, "handle of node #{}", i);
    FUZZ_CHECK(h.kind() == m.kind, "kind of #{}: {} vs {}", i, gd::to_string(h.kind()), gd::to_string(m.kind));
    FUZZ_CHECK(h.name() == m.name, "name of #{}: '{}' vs '{}'", i, h.name(), m.name);
    const gd::NodeInfo info = h.info();
    FUZZ_CHECK(info.index == i && info.kind == m.kind && info.name == m.name && info.graph == s.name &&
                   info.context.empty() && info.describe() == describe(s, i),
               "info() of #{}: '{}'", i, info.describe());
    const auto preds = g.predecessors(h);
    FUZZ_CHECK(preds.size() == m.preds.size(), "predecessors of #{}: {} vs {}", i, preds.size(), m.preds.size());
    for (std::size_t k = 0; k < preds.size(); ++k) {
      FUZZ_CHECK(preds[k].index() == m.preds[k], "predecessor {} of #{}: #{} vs #{}", k, i, preds[k].index(), m.preds[k]);
    }
    const auto succs = g.successors(h);
    FUZZ_CHECK(succs.size() == succ[i].size(), "successors of #{}: {} vs {}", i, succs.size(), succ[i].size());
    for (std::size_t k = 0; k < succs.size(); ++k) FUZZ_CHECK(succs[k].index() == succ[i][k], "successor {} of #{}", k, i);
    if (m.kind == gd::NodeKind::child) {
      check_structure(g.child_plan(gd::ChildNode(h.ref())), *m.child);  // typed handle for a node of a copied plan
    } else if (m.kind == gd::NodeKind::conditional) {
      const gd::ConditionalNode cn(h.ref());
      FUZZ_CHECK(g.conditional_type(cn) == m.ctype, "conditional_type of #{}", i);
      for (unsigned b = 0; b < m.bodies.size(); ++b) check_structure(g.body_plan(cn, b), *m.bodies[b]);
    }
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t to = 0; to < n; ++to) {
    for (std::uint32_t from : s.nodes[to].preds) pairs.emplace_back(from, to);
  }
  std::sort(pairs.begin(), pairs.end());
  const auto edges = g.edges();
  FUZZ_CHECK(edges.size() == pairs.size(), "edges() size {} vs {}", edges.size(), pairs.size());
  for (std::size_t k = 0; k < edges.size(); ++k) {
    FUZZ_CHECK(edges[k].from.index() == pairs[k].first && edges[k].to.index() == pairs[k].second, "edge {} differs", k);
  }
  for (const char* name : k_names) {
    const auto found = g.find(name);
    std::uint32_t first = k_unresolved;
    for (std::uint32_t i = 0; i < n && first == k_unresolved; ++i) {
      if (s.nodes[i].name == name) first = i;
    }
    FUZZ_CHECK(found.has_value() == (first != k_unresolved) && (!found || found->index() == first), "find('{}')", name);
  }
  bool threw = false;
  const std::string msg = usage_error([&] { (void)g.node(n); }, threw);
  FUZZ_CHECK(threw && msg == fmt::format("graphdsl: graph {} has {} node{}; there is no node #{}", quoted(s.name), n,
                                         n == 1 ? "" : "s", n),
             "node({}) out of range: '{}'", n, msg);
  FUZZ_CHECK(g.storage_bytes() > 0, "storage_bytes");
}

// ---- validation against the model -----------------------------------------------------------------

/// Checks a " -> "-separated cycle printed for plan `s` itself (not a nested one) against its edges.
void check_cycle_text(const SPlan& s, const std::string& message) {
  const std::string head = "graphdsl: cycle: ";
  if (message.compare(0, head.size(), head) != 0) return;  // a nested plan's cycle (prefixed with where it is)
  for (const SNode& n : s.nodes) {
    if (n.name.find(" -> ") != std::string::npos) return;
  }
  std::vector<std::vector<std::uint32_t>> steps;  // candidate nodes of each printed step
  std::size_t pos = head.size();
  for (;;) {
    const std::size_t end = message.find(" -> ", pos);
    const std::string ref = message.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    std::vector<std::uint32_t> cand;
    for (std::uint32_t i = 0; i < s.nodes.size(); ++i) {
      const std::string mine = s.nodes[i].name.empty() ? fmt::format("#{}", i) : quoted(s.nodes[i].name);
      if (mine == ref) cand.push_back(i);
    }
    FUZZ_CHECK(!cand.empty(), "cycle names '{}', not a node of the plan: {}", ref, message);
    steps.push_back(std::move(cand));
    if (end == std::string::npos) break;
    pos = end + 4;
  }
  FUZZ_CHECK(steps.size() >= 3 && steps.front() == steps.back(), "cycle does not close: {}", message);
  for (std::size_t k = 0; k + 1 < steps.size(); ++k) {
    bool edge = false;
    for (std::uint32_t a : steps[k]) {
      for (std::uint32_t b : steps[k + 1]) edge = edge || s.has_edge(a, b);
    }
    FUZZ_CHECK(edge, "cycle step {} is not an edge of the plan: {}", k, message);
  }
  ++g_stats.cycles;
}

/// validate() (and instantiate() of an invalid plan) against the model's rules.
void check_validate(const Ctx& c) {
  const std::vector<Violation> expected = violations(c.s);
  bool threw = false;
  const std::string msg = usage_error([&] { c.g.validate(); }, threw);
  if (expected.empty()) {
    FUZZ_CHECK(!threw, "validate() threw but the model finds no broken rule: {}", msg);
    ++g_stats.valid_plans;
    return;
  }
  std::string list;
  for (const Violation& v : expected) list += fmt::format("\n  [{}] {}", rule_name(v.rule), v.node);
  FUZZ_CHECK(threw, "validate() passed but the model finds:{}", list);
  Rule rule{};
  FUZZ_CHECK(classify(msg, rule), "validate() threw an unknown message: {}", msg);
  const bool listed = std::any_of(expected.begin(), expected.end(), [&](const Violation& v) {
    return v.rule == rule && (v.node.empty() || msg.find(v.node) != std::string::npos);
  });
  FUZZ_CHECK(listed, "validate() threw '{}' ([{}]), which the model does not find; the model finds:{}", msg,
             rule_name(rule), list);
  if (rule == Rule::cycle) check_cycle_text(c.s, msg);
  ++g_stats.invalid_plans;
  // instantiate() validates first: the same error, and still no CUDA call.
  const std::string inst = usage_error([&] { (void)c.g.instantiate(); }, threw);
  FUZZ_CHECK(threw && inst == msg, "instantiate() of an invalid plan: '{}' vs validate(): '{}'", inst, msg);
}

// ---- adding nodes ------------------------------------------------------------------------------

/// Records a node added to the plan; `own` are the per-node rules it breaks.
SNode& record(Ctx& c, const gd::Node& h, gd::NodeKind kind, std::size_t nested = 0) {
  FUZZ_CHECK(h.valid() && h.index() == c.s.nodes.size() && h.kind() == kind, "new {} node has index {} kind {}",
             gd::to_string(kind), h.index(), gd::to_string(h.kind()));
  c.handles.push_back(h);
  c.s.nodes.emplace_back();
  c.s.nodes.back().kind = kind;
  c.s.expanded += 1 + nested;
  ++g_stats.nodes_added;
  return c.s.nodes.back();
}

/// A typed add_* of `count` 4-byte elements (`add` adds it): above k_max_count4 the call throws a
/// UsageError naming `call` and adds nothing. True when it was refused so.
template <class F>
bool refused_count(Ctx& c, std::size_t count, const char* call, F&& add) {
  if (count <= k_max_count4) return false;
  const std::size_t before = c.g.node_count();
  bool threw = false;
  const std::string msg = usage_error(add, threw);
  FUZZ_CHECK(threw && msg.rfind(fmt::format("graphdsl: {}: ", call), 0) == 0, "{} of {} elements: '{}'", call, count, msg);
  FUZZ_CHECK(c.g.node_count() == before, "a refused {} added a node", call);
  return true;
}

gd::Launch pick_launch(Input& in) {
  gd::Launch l;
  l.grid = dim3(in.dim(), in.dim(), in.dim());
  l.block = dim3(in.dim(), in.dim(), in.dim());
  l.shared_bytes = in.flag() ? 0u : in.u16();
  l.priority = static_cast<int>(in.below(4)) - 1;
  return l;
}

std::string launch_text(const gd::Launch& l) {
  return fmt::format("g{},{},{} b{},{},{} s{} p{}", l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                     l.shared_bytes, l.priority);
}

void kernel_rules(SNode& n, const gd::Launch& l) {
  n.priority = l.priority;  // every kernel node passes here (exec_update_refused reads it)
  if (n.func == f_null) n.own.push_back(Rule::kernel_null);
  for (const dim3& d : {l.grid, l.block}) {
    if (d.x == 0 || d.y == 0 || d.z == 0) {
      n.own.push_back(Rule::zero_dim);
      break;
    }
  }
  for (const SPlaceholder& ph : n.placeholders) {
    if (ph.levels == k_unresolved) n.own.push_back(ph.condition ? Rule::condition_undeclared : Rule::buffer_foreign);
  }
  if (mul_sat(mul_sat(l.block.x, l.block.y), l.block.z) > 1024) n.own.push_back(Rule::threads);
  if (l.grid.x > 2147483647u || l.grid.y > 65535u || l.grid.z > 65535u || l.block.x > 1024u || l.block.y > 1024u ||
      l.block.z > 64u) {
    n.own.push_back(Rule::dim_limit);
  }
}

float pick_float(Input& in) {
  constexpr float values[] = {0.0f, 1.0f, -0.0f, 2.5f, std::numeric_limits<float>::quiet_NaN()};
  return values[in.below(5)];
}

std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

void op_kernel(Ctx& c, Input& in) {
  const gd::Launch l = pick_launch(in);
  const std::uint32_t p = in.below(5), q = in.below(5);
  const float a = pick_float(in);
  const int count = static_cast<int>(in.below(300)) - 10;
  gd::Node h;
  int func = f_scale;
  std::string args;
  switch (in.below(4)) {
    case 0:
      h = c.g.add_kernel(k_scale, l, pointer(p), a, count);
      args = fmt::format("p{} {:x} {}", p, float_bits(a), count);
      break;
    case 1:
      h = c.g.add_kernel(k_none, l);
      func = f_none;
      break;
    case 2:
      h = c.g.add_kernel(static_cast<void (*)(float*, float, int)>(nullptr), l, pointer(p), a, count);
      func = f_null;
      args = fmt::format("p{} {:x} {}", p, float_bits(a), count);
      break;
    default:
      h = c.g.add_kernel(k_copy, l, pointer(p), static_cast<const float*>(pointer(q)), count);
      func = f_copy;
      args = fmt::format("p{} p{} {}", p, q, count);
      break;
  }
  SNode& n = record(c, h, gd::NodeKind::kernel);
  n.func = func;
  n.params = fmt::format("f{} {} {}", func, launch_text(l), args);
  kernel_rules(n, l);
}

/// Memset rules from what the node stores (exact arithmetic: nothing may wrap around).
void memset_rules(const SPlan& s, std::uint32_t i, SNode& n, bool null, unsigned elem, std::size_t width,
                  std::size_t height, std::size_t pitch) {
  const u128 row = mul_sat(width, elem);
  const u128 bytes = height <= 1 ? row : add_sat(mul_sat(pitch, height - 1), row);
  pointer_rules(s, i, Field::memset_dst, null, bytes, n.own);
  if (bytes > k_max_bytes) n.own.push_back(Rule::too_large);
  if (elem != 1 && elem != 2 && elem != 4) n.own.push_back(Rule::memset_elem);
  if (width == 0 || height == 0) n.own.push_back(Rule::memset_empty);
  if (height > 1 && pitch < row) n.own.push_back(Rule::memset_pitch);
}

void op_memset(Ctx& c, Input& in) {
  const std::uint32_t p = in.below(5);
  const unsigned value = in.u32();
  constexpr unsigned sizes[] = {1, 2, 4, 0, 3, 8};
  const unsigned elem = sizes[in.below(6)];
  const std::size_t width = in.size(), height = in.flag() ? 1 : in.size(), pitch = in.size();
  gd::MemsetNode h;
  if (in.below(4) == 0) {  // the typed 1-D form: width = count, pitch = count * 4 bytes
    float v;
    std::memcpy(&v, &value, sizeof v);
    if (refused_count(c, width, "add_memset", [&] { (void)c.g.add_memset(pointer(p), v, width); })) return;
    h = c.g.add_memset(pointer(p), v, width);
    SNode& n = record(c, h, gd::NodeKind::memset);
    n.params = fmt::format("ms p{} v{:x} e4 w{} h1 p{}", p, value, width, width * 4);
    memset_rules(c.s, h.index(), n, p == 0, 4, width, 1, width * 4);
    return;
  }
  h = c.g.add_memset_raw(pointer(p), value, elem, width, height, pitch);
  SNode& n = record(c, h, gd::NodeKind::memset);
  n.params = fmt::format("ms p{} v{:x} e{} w{} h{} p{}", p, value, elem, width, height, pitch);
  memset_rules(c.s, h.index(), n, p == 0, elem, width, height, pitch);
}

/// Memcpy rules from what the node stores.
void memcpy_rules(const SPlan& s, std::uint32_t i, SNode& n, const cudaMemcpy3DParms& p) {
  const cudaExtent& e = p.extent;
  if (e.width == 0 || e.height == 0 || e.depth == 0) n.own.push_back(Rule::memcpy_empty);
  const u128 bytes = mul_sat(mul_sat(e.width, e.height), e.depth);
  pointer_rules(s, i, Field::memcpy_src, p.srcPtr.ptr == nullptr, bytes, n.own);
  pointer_rules(s, i, Field::memcpy_dst, p.dstPtr.ptr == nullptr, bytes, n.own);
  const u128 rows = mul_sat(e.height, e.depth);
  bool too_large = bytes > k_max_bytes;
  for (const cudaPitchedPtr& ptr : {p.srcPtr, p.dstPtr}) {  // a pitched pointer's rows span pitch * (rows - 1) + width
    if (rows > 1) too_large = too_large || add_sat(mul_sat(ptr.pitch, rows - 1), e.width) > k_max_bytes;
  }
  if (too_large) n.own.push_back(Rule::too_large);
  if (static_cast<int>(p.kind) < 0 || static_cast<int>(p.kind) > 4) n.own.push_back(Rule::memcpy_kind);
  if ((e.height > 1 || e.depth > 1) && (p.srcPtr.pitch < e.width || p.dstPtr.pitch < e.width)) {
    n.own.push_back(Rule::memcpy_pitch);
  }
}

std::string memcpy_text(const cudaMemcpy3DParms& p) {
  auto ptr = [](const cudaPitchedPtr& x) {
    std::uint32_t which = 0;
    for (std::uint32_t k = 1; k <= 4; ++k) {
      if (x.ptr == pointer(k)) which = k;
    }
    return fmt::format("p{} {} {} {}", which, x.pitch, x.xsize, x.ysize);
  };
  return fmt::format("mc {} / {} / {} {} {} k{}", ptr(p.srcPtr), ptr(p.dstPtr), p.extent.width, p.extent.height,
                     p.extent.depth, static_cast<int>(p.kind));
}

cudaMemcpyKind pick_copy_kind(Input& in) {
  constexpr int kinds[] = {4, 4, 0, 1, 2, 3, 5, 7};  // 5 and 7: not a direction (still in the enum's range)
  return static_cast<cudaMemcpyKind>(kinds[in.below(8)]);
}

/// A 2-D copy as the 3-D parameters it stands for (pitched pointers of `rows` rows of `width`
/// bytes); a 1-D copy is one row whose pitches are its width.
cudaMemcpy3DParms as_3d(const void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                        std::size_t width, std::size_t rows, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p{};
  p.dstPtr = cudaPitchedPtr{const_cast<void*>(dst), dst_pitch, width, rows};
  p.srcPtr = cudaPitchedPtr{const_cast<void*>(src), src_pitch, width, rows};
  p.extent = cudaExtent{width, rows, 1};
  p.kind = kind;
  return p;
}

void op_memcpy(Ctx& c, Input& in) {
  float* dst = pointer(in.below(5));
  const float* src = pointer(in.below(5));
  const cudaMemcpyKind kind = pick_copy_kind(in);
  gd::MemcpyNode h;
  cudaMemcpy3DParms p{};
  switch (in.below(4)) {
    case 0: {
      const std::size_t count = in.size();
      if (refused_count(c, count, "add_memcpy", [&] { (void)c.g.add_memcpy(dst, src, count, kind); })) return;
      h = c.g.add_memcpy(dst, src, count, kind);
      p = as_3d(dst, count * 4, src, count * 4, count * 4, 1, kind);
      break;
    }
    case 1: {
      const std::size_t bytes = in.size();
      h = c.g.add_memcpy_bytes(dst, src, bytes, kind);
      p = as_3d(dst, bytes, src, bytes, bytes, 1, kind);
      break;
    }
    case 2: {
      const std::size_t dp = in.size(), sp = in.size(), w = in.size(), rows = in.size();
      h = c.g.add_memcpy_2d(dst, dp, src, sp, w, rows, kind);
      p = as_3d(dst, dp, src, sp, w, rows, kind);
      break;
    }
    default:
      p.dstPtr = cudaPitchedPtr{dst, in.size(), in.size(), in.size()};
      p.srcPtr = cudaPitchedPtr{const_cast<float*>(src), in.size(), in.size(), in.size()};
      p.extent = cudaExtent{in.size(), in.size(), in.size()};
      p.kind = kind;
      h = c.g.add_memcpy_3d(p);
      break;
  }
  SNode& n = record(c, h, gd::NodeKind::memcpy);
  n.params = memcpy_text(p);
  n.multi_dim = p.extent.height > 1 || p.extent.depth > 1;
  memcpy_rules(c.s, h.index(), n, p);
}

void op_host(Ctx& c, Input& in) {
  gd::HostNode h;
  std::string params;
  switch (in.below(4)) {
    case 0: h = c.g.add_host(static_cast<void (*)()>(nullptr)); break;
    case 1: h = c.g.add_host(std::function<void()>()); break;
    default: {
      const std::uint64_t id = c.world.next_closure++;
      h = c.g.add_host([id] { g_sink = static_cast<int>(id); });
      params = fmt::format("h{}", id);
      break;
    }
  }
  SNode& n = record(c, h, gd::NodeKind::host);
  if (params.empty()) {
    params = fmt::format("h0.{}", c.world.next_closure++);  // an empty callable is still its own closure
    n.own.push_back(Rule::host_empty);
  }
  n.params = params;
}

void op_event(Ctx& c, Input& in) {
  const bool record_node = in.flag();
  const gd::Node h = record_node ? gd::Node(c.g.add_event_record(gd::Event())) : gd::Node(c.g.add_event_wait(gd::Event()));
  SNode& n = record(c, h, record_node ? gd::NodeKind::event_record : gd::NodeKind::event_wait);
  n.own.push_back(Rule::event_empty);
  n.params = "e";
}

void op_captured(Ctx& c, Input& in) {
  constexpr int modes[] = {0, 1, 2, 1, 3, 3};  // 3: not a mode (still in the enum's range)
  const int mode = modes[in.below(6)];
  const std::uint64_t id = c.world.next_closure++;
  const gd::CapturedNode h =
      c.g.add_captured([id](cudaStream_t) { g_sink = static_cast<int>(id); }, static_cast<cudaStreamCaptureMode>(mode));
  SNode& n = record(c, h, gd::NodeKind::captured);
  n.params = fmt::format("c{} m{}", id, mode);
  if (mode < 0 || mode > 2) n.own.push_back(Rule::capture_mode);
}

void resolve_buffer(const Ctx& c, std::uint64_t uid, std::uint32_t& levels, std::uint32_t& index);

/// Removes one `r` from `own`.
void drop_one(std::vector<Rule>& own, Rule r) {
  const auto it = std::find(own.begin(), own.end(), r);
  if (it != own.end()) own.erase(it);
}

/// `s` as add_child on the plan of `c` embeds it (`depth` levels below the child plan itself): its
/// buffer references that no plan resolved resolve against that plan and the plans around it.
SPlan embedded(const SPlan& s, const Ctx& c, std::uint32_t depth) {
  SPlan out = s;
  // Resolves the open reference (levels, index) to buffer `uid` of node `n`; false when it stays open.
  auto resolve_open = [&](std::uint64_t uid, std::uint32_t& levels, std::uint32_t& index, SNode& n) {
    std::uint32_t found = 0, at = 0;
    resolve_buffer(c, uid, found, at);
    if (found == k_unresolved) return false;
    levels = found + 1 + depth;
    index = at;
    ++g_stats.outer_buffers;
    drop_one(n.own, Rule::buffer_foreign);
    return true;
  };
  for (SNode& n : out.nodes) {
    for (SPlaceholder& ph : n.placeholders) {
      if (!ph.condition && ph.levels == k_unresolved) (void)resolve_open(ph.uid, ph.levels, ph.index, n);
    }
    if (n.child) n.child = std::make_shared<const SPlan>(embedded(*n.child, c, depth + 1));
    for (auto& b : n.bodies) b = std::make_shared<const SPlan>(embedded(*b, c, depth + 1));
  }
  for (SBufferUse& u : out.uses) {
    if (u.alloc != k_unresolved) continue;
    SNode& n = out.nodes[u.node];
    if (resolve_open(u.uid, u.levels, u.alloc, n) && u.too_small) n.own.push_back(Rule::buffer_small);
  }
  return out;
}

void op_child(Ctx& c, Input& in) {
  Slot& src = c.world.slots[in.below(3)];
  if (src.moved_from) {
    bool threw = false;
    const std::string msg = usage_error([&] { (void)c.g.add_child(src.g); }, threw);
    FUZZ_CHECK(threw && msg == k_moved_from, "add_child(moved-from): '{}'", msg);
    ++g_stats.moved_from_uses;
    return;
  }
  if (c.s.expanded + src.s.expanded + 1 > k_max_expanded) return;
  auto snapshot = std::make_shared<const SPlan>(embedded(src.s, c, 0));
  const gd::ChildNode h = c.g.add_child(src.g);
  SNode& n = record(c, h, gd::NodeKind::child, snapshot->expanded);
  n.child = snapshot;
  check_structure(c.g.child_plan(h), *n.child);
}

void op_mem_alloc(Ctx& c, Input& in) {
  const std::size_t count = in.size();
  if (refused_count(c, count, "add_mem_alloc", [&] { (void)c.g.add_mem_alloc<float>(count); })) return;
  const auto a = c.g.add_mem_alloc<float>(count);
  SNode& n = record(c, a.node, gd::NodeKind::mem_alloc);
  n.buffer = a.buffer.id();
  n.alloc_bytes = count * sizeof(float);  // add_mem_alloc<T> refused the counts for which this wraps
  if (n.alloc_bytes == 0) n.own.push_back(Rule::alloc_zero);
  FUZZ_CHECK(a.buffer.valid() && a.buffer.size() == count, "GraphBuffer of {} elements", count);
  c.world.buffers.add(a.buffer);
}

gd::GraphBuffer<float> pick_buffer(Ctx& c, Input& in) { return c.world.buffers.pick(in); }

void op_mem_free(Ctx& c, Input& in) {
  const gd::GraphBuffer<float> b = pick_buffer(c, in);
  const gd::MemFreeNode h = c.g.add_mem_free(b);
  const std::uint32_t alloc = c.s.alloc_node(b.id());
  SNode& n = record(c, h, gd::NodeKind::mem_free);
  n.frees = alloc;
  if (alloc == k_unresolved) n.own.push_back(Rule::free_foreign);
}

/// Where buffer `uid` is allocated, seen from the plan being built (as documented: this plan, then
/// the plans whose bodies are being built around it): levels out and the mem_alloc node.
void resolve_buffer(const Ctx& c, std::uint64_t uid, std::uint32_t& levels, std::uint32_t& index) {
  levels = k_unresolved;
  index = k_unresolved;
  std::uint32_t l = 0;
  for (const Ctx* p = &c; p != nullptr; p = p->parent, ++l) {
    const std::uint32_t a = p->s.alloc_node(uid);
    if (a != k_unresolved) {
      levels = l;
      index = a;
      return;
    }
  }
}

/// Records buffer use `u` of `b` by the node just added, resolved from the plan being built.
void add_use(Ctx& c, SBufferUse u, const gd::GraphBuffer<float>& b, std::size_t count) {
  std::uint32_t levels = 0;
  resolve_buffer(c, b.id(), levels, u.alloc);
  u.levels = u.alloc == k_unresolved ? 0 : levels;
  g_stats.outer_buffers += u.levels != 0 ? 1 : 0;
  u.uid = b.id();
  u.too_small = static_cast<u128>(count) * 4 > b.bytes();
  c.s.uses.push_back(u);
}

/// A memset, memcpy or kernel using a graph buffer.
void op_buffer_use(Ctx& c, Input& in) {
  const gd::GraphBuffer<float> b = pick_buffer(c, in);
  const std::size_t count = in.size();
  const std::uint32_t p = in.below(5);
  const auto index = static_cast<std::uint32_t>(c.s.nodes.size());
  switch (in.below(5)) {
    case 0: {
      if (refused_count(c, count, "add_memset", [&] { (void)c.g.add_memset(b, 1.0f, count); })) return;
      const gd::MemsetNode h = c.g.add_memset(b, 1.0f, count);
      add_use(c, {index, Field::memset_dst, k_unresolved}, b, count);
      SNode& n = record(c, h, gd::NodeKind::memset);
      n.params = fmt::format("ms p0 v{:x} e4 w{} h1 p{}", float_bits(1.0f), count, count * 4);
      memset_rules(c.s, index, n, true, 4, count, 1, count * 4);
      return;
    }
    case 1:
    case 2: {
      const bool into = in.flag();
      const auto* src = static_cast<const float*>(pointer(p));
      if (refused_count(c, count, "add_memcpy", [&] {
            (void)(into ? c.g.add_memcpy(b, src, count) : c.g.add_memcpy(pointer(p), b, count));
          })) {
        return;
      }
      const gd::MemcpyNode h = into ? c.g.add_memcpy(b, static_cast<const float*>(pointer(p)), count)
                                    : c.g.add_memcpy(pointer(p), b, count);
      add_use(c, {index, into ? Field::memcpy_dst : Field::memcpy_src, k_unresolved}, b, count);
      const cudaMemcpy3DParms p3 = into ? as_3d(nullptr, count * 4, pointer(p), count * 4, count * 4, 1, cudaMemcpyDefault)
                                        : as_3d(pointer(p), count * 4, nullptr, count * 4, count * 4, 1, cudaMemcpyDefault);
      SNode& n = record(c, h, gd::NodeKind::memcpy);
      n.params = memcpy_text(p3);
      memcpy_rules(c.s, index, n, p3);
      return;
    }
    default: {
      const gd::Launch l = pick_launch(in);
      const bool both = in.below(3) == 0;
      const gd::GraphBuffer<float> b2 = both ? pick_buffer(c, in) : gd::GraphBuffer<float>();
      gd::Node h;
      std::vector<SPlaceholder> phs;
      auto ph = [&](std::uint32_t offset, const gd::GraphBuffer<float>& buf) {
        std::uint32_t levels = 0, a = 0;
        resolve_buffer(c, buf.id(), levels, a);
        g_stats.outer_buffers += levels != 0 && levels != k_unresolved ? 1 : 0;
        phs.push_back(levels == k_unresolved ? SPlaceholder{offset, false, k_unresolved, 0, buf.id()}
                                             : SPlaceholder{offset, false, levels, a, buf.id()});
      };
      std::string args;
      if (both) {
        h = c.g.add_kernel(k_copy, l, b, b2, 7);
        ph(0, b);
        ph(8, b2);
        args = "p0 p0 7";
      } else if (in.flag()) {
        h = c.g.add_kernel(k_copy, l, b, static_cast<const float*>(pointer(p)), 7);
        ph(0, b);
        args = fmt::format("p0 p{} 7", p);
      } else {
        h = c.g.add_kernel(k_copy, l, pointer(p), b, 7);
        ph(8, b);
        args = fmt::format("p{} p0 7", p);
      }
      SNode& n = record(c, h, gd::NodeKind::kernel);
      n.func = f_copy;
      n.placeholders = std::move(phs);
      n.params = fmt::format("f{} {} {}", f_copy, launch_text(l), args);
      kernel_rules(n, l);
      return;
    }
  }
}

void op_condition(Ctx& c, Input& in) {
  const unsigned def = in.below(3);
  const bool assign = in.below(4) != 0;
  const gd::Condition cond = c.g.add_condition(def, assign);
  FUZZ_CHECK(cond.valid(), "add_condition returned an empty Condition");
  c.s.conditions.push_back({cond.id(), def, assign});
  c.world.conditions.add(cond);
}

gd::Condition pick_condition(Ctx& c, Input& in) { return c.world.conditions.pick(in); }

/// Where `cond` is declared, seen from the plan being built (as documented: this plan, then the
/// plans whose bodies are being built around it).
void resolve(const Ctx& c, const gd::Condition& cond, std::uint32_t& levels, std::uint32_t& index) {
  levels = k_unresolved;
  index = 0;
  if (!cond.valid()) return;
  std::uint32_t l = 0;
  for (const Ctx* p = &c; p != nullptr; p = p->parent, ++l) {
    for (std::uint32_t k = 0; k < p->s.conditions.size(); ++k) {
      if (p->s.conditions[k].uid == cond.id()) {
        levels = l;
        index = k;
        return;
      }
    }
  }
}

void op_condition_kernel(Ctx& c, Input& in) {
  const gd::Condition cond = pick_condition(c, in);
  std::uint32_t levels = 0, index = 0;
  resolve(c, cond, levels, index);
  gd::Node h;
  gd::Launch l;
  int func = f_cond;
  std::string args;
  if (in.flag()) {
    l = pick_launch(in);
    const int v = static_cast<int>(in.below(3));
    h = c.g.add_kernel(k_cond, l, cond, v);
    args = fmt::format("c {}", v);
  } else {
    static const int value = 0;
    const auto op = static_cast<gd::Compare>(in.below(6));
    h = c.g.add_set_condition(cond, &value, op, 3);
    l = gd::Launch{1, 1};
    func = f_set_condition;
    args = fmt::format("c v {} 3", static_cast<int>(op));
  }
  SNode& n = record(c, h, gd::NodeKind::kernel);
  n.func = func;
  n.placeholders.push_back(SPlaceholder{0, true, levels, index});
  n.params = fmt::format("f{} {} {}", func, launch_text(l), args);
  kernel_rules(n, l);
}

bool body_op(Ctx& c, Input& in);

/// Thrown by a conditional body's builder to check that a failed builder adds nothing.
struct BuilderAbort {};

void op_conditional(Ctx& c, Input& in) {
  if (c.depth >= 3) return;
  const gd::Condition cond = pick_condition(c, in);
  std::uint32_t levels = 0, index = 0;
  resolve(c, cond, levels, index);  // resolved before the bodies are built
  const unsigned form = in.below(5);
  gd::ConditionalType type = gd::ConditionalType::if_then;
  unsigned size = 1;
  switch (form) {
    case 1: type = gd::ConditionalType::while_loop; break;
    case 2: type = gd::ConditionalType::if_else; size = 2; break;
    case 3: type = gd::ConditionalType::switch_case; size = 3; break;
    case 4:
      type = static_cast<gd::ConditionalType>(in.below(5));  // 4: not a ConditionalType
      size = in.below(4);
      break;
    default: break;
  }
  const int abort_at = in.below(8) == 0 ? static_cast<int>(in.below(size + 1)) : -1;
  std::vector<std::shared_ptr<SPlan>> bodies;
  std::vector<std::pair<gd::Node, std::shared_ptr<SPlan>>> kept;  // a handle into each body, kept past its builder
  std::string moved_body;  // the body a builder moved away, if one did
  auto build = [&](unsigned i, gd::Graph& b) {
    if (static_cast<int>(i) == abort_at) throw BuilderAbort{};
    const std::string body_name = b.name();
    auto s = std::make_shared<SPlan>();
    s->name = body_name;
    std::vector<gd::Node> handles;
    Ctx bc{c.world, b, *s, handles, &c, c.depth + 1};
    for (unsigned k = in.below(5); k > 0; --k) {
      if (!body_op(bc, in)) {
        moved_body = body_name;
        return;
      }
    }
    check_counts(bc);
    if (!handles.empty()) kept.emplace_back(handles.back(), s);
    bodies.push_back(std::move(s));
  };
  const std::size_t before = c.g.node_count();
  gd::ConditionalNode h;
  try {
    switch (form) {
      case 0: h = c.g.add_if(cond, [&](gd::Graph& b) { build(0, b); }); break;
      case 1: h = c.g.add_while(cond, [&](gd::Graph& b) { build(0, b); }); break;
      case 2: h = c.g.add_if_else(cond, [&](gd::Graph& b) { build(0, b); }, [&](gd::Graph& b) { build(1, b); }); break;
      case 3:
        h = c.g.add_switch(cond, [&](gd::Graph& b) { build(0, b); }, [&](gd::Graph& b) { build(1, b); },
                           [&](gd::Graph& b) { build(2, b); });
        break;
      default: h = c.g.add_conditional(type, cond, size, build); break;
    }
  } catch (const BuilderAbort&) {
    FUZZ_CHECK(c.g.node_count() == before, "a throwing body builder left {} nodes (was {})", c.g.node_count(), before);
    ++g_stats.builder_aborts;
    return;
  } catch (const gd::UsageError& e) {
    const std::string expected =
        fmt::format("graphdsl: the {} of a {} node was moved from inside its builder", moved_body, gd::to_string(type));
    FUZZ_CHECK(!moved_body.empty() && e.what() == expected, "add_conditional threw '{}'", e.what());
    FUZZ_CHECK(c.g.node_count() == before, "a refused conditional left {} nodes (was {})", c.g.node_count(), before);
    ++g_stats.builder_aborts;
    return;
  }
  FUZZ_CHECK(moved_body.empty(), "a body moved away inside its builder was accepted");
  check_sealed_bodies(kept);
  std::size_t nested = 0;
  for (const auto& b : bodies) nested += b->expanded;
  SNode& n = record(c, h, gd::NodeKind::conditional, nested);
  n.ctype = type;
  n.clevels = levels;
  n.cindex = index;
  n.bodies.assign(bodies.begin(), bodies.end());
  const bool shape_ok = type == gd::ConditionalType::switch_case ? size >= 1
                                                                 : size == (type == gd::ConditionalType::if_else ? 2u : 1u);
  if (!shape_ok) n.own.push_back(Rule::conditional_shape);
  if (type > gd::ConditionalType::switch_case) n.own.push_back(Rule::conditional_type);
  if (type == gd::ConditionalType::while_loop && size == 1 && !bodies.empty() &&
      std::all_of(bodies[0]->nodes.begin(), bodies[0]->nodes.end(),
                  [](const SNode& b) { return b.kind == gd::NodeKind::empty; })) {
    n.own.push_back(Rule::while_empty);  // nothing in the body can change the condition: it would never end
  }
  if (levels == k_unresolved) n.own.push_back(Rule::condition_undeclared);
  FUZZ_CHECK(c.g.conditional_type(h) == type, "conditional_type");
  bool threw = false;
  const std::string msg = usage_error([&] { (void)c.g.body_plan(h, size); }, threw);
  FUZZ_CHECK(threw && msg == fmt::format("graphdsl: {} has {} bodies; there is no body {}", describe(c.s, h.index()),
                                         size, size),
             "body_plan({}) past the end: '{}'", size, msg);
}

// ---- edges -------------------------------------------------------------------------------------

/// One end of an edge as the harness picked it: a node of some model plan, or an empty handle.
struct End {
  gd::Node node;
  SPlan* plan = nullptr;  ///< nullptr: empty handle
  std::uint32_t index = 0;
};

/// Mostly a node of this plan other than `avoid`; sometimes `avoid` itself (a self edge), a node
/// of another plan (a slot, or the plan whose body this is) or an empty handle.
End pick_end(Ctx& c, Input& in, const End* avoid = nullptr) {
  const std::uint32_t mode = in.below(16);
  const auto n = static_cast<std::uint32_t>(c.handles.size());
  if (mode == 13 && avoid != nullptr) return *avoid;
  if (mode < 14 && n > 0) {
    std::uint32_t i = in.below(n);
    if (avoid != nullptr && avoid->plan == &c.s && i == avoid->index && n > 1) i = (i + 1) % n;
    return {c.handles[i], &c.s, i};
  }
  if (mode == 14) {
    std::vector<std::pair<const std::vector<gd::Node>*, SPlan*>> others;
    for (Slot& s : c.world.slots) {
      if (!s.moved_from && &s.g != &c.g && !s.handles.empty()) others.emplace_back(&s.handles, &s.s);
    }
    if (c.parent != nullptr && !c.parent->handles.empty()) others.emplace_back(&c.parent->handles, &c.parent->s);
    if (!others.empty()) {
      const auto& [hs, plan] = others[in.below(static_cast<std::uint32_t>(others.size()))];
      const std::uint32_t i = in.below(static_cast<std::uint32_t>(hs->size()));
      return {(*hs)[i], plan, i};
    }
  }
  return {};
}

/// The error the library must give for edge from -> to (add_edges' per-edge check), or empty.
std::string edge_error(const End& from, const End& to) {
  if (from.plan == nullptr || to.plan == nullptr) return k_empty_handle;
  if (from.plan != to.plan) return "belongs to graph";
  if (from.index == to.index) return fmt::format("graphdsl: self edge: {} cannot run after itself", describe(*to.plan, to.index));
  return {};
}

bool message_matches(const std::string& msg, const std::string& expected) {
  return expected == "belongs to graph" ? msg.find(expected) != std::string::npos : msg == expected;
}

/// Runs an edge operation over the pairs `edges` (checked in order, all before any is added).
template <class F>
void edge_op(const std::vector<std::pair<End, End>>& edges, std::string first_error, F&& op) {
  for (const auto& [from, to] : edges) {
    if (first_error.empty()) first_error = edge_error(from, to);
  }
  bool threw = false;
  const std::string msg = usage_error(op, threw);
  if (!first_error.empty()) {
    // Nothing is added: the models stay as they are, and the counts checked after every
    // operation catch an edge the library added anyway.
    FUZZ_CHECK(threw && message_matches(msg, first_error), "edge operation: '{}', expected '{}'", msg, first_error);
    ++g_stats.edge_errors;
    return;
  }
  FUZZ_CHECK(!threw, "edge operation threw '{}'", msg);
  for (const auto& [from, to] : edges) {
    auto& preds = to.plan->nodes[to.index].preds;
    if (std::find(preds.begin(), preds.end(), from.index) == preds.end()) {
      preds.push_back(from.index);
      ++g_stats.edges_added;
    }
  }
}

/// after(one), after(list), before(list) or Graph::add_edge.
void op_edges(Ctx& c, Input& in, int form) {
  const End self = pick_end(c, in);
  const AnyHandle h(self.node.ref());
  std::vector<std::pair<End, End>> edges;
  switch (form) {
    case 0: {
      const End p = pick_end(c, in, &self);
      edges.push_back({p, self});
      // A single handle takes the one-edge path, through a typed handle when it is one.
      edge_op(edges, {}, [&] { (void)h.after(AnyHandle(p.node.ref())); });
      return;
    }
    case 1:
    case 2: {
      std::vector<gd::Node> list;
      std::size_t n = in.below(8);
      if (n == 7) n = 40 + in.below(60);  // long lists take the marking path above 64 predecessors
      for (std::size_t k = 0; k < n; ++k) {
        const bool again = k > 0 && in.below(4) == 0;  // duplicates too
        const End e = !again ? pick_end(c, in, &self) : form == 1 ? edges.back().first : edges.back().second;
        edges.push_back(form == 1 ? std::make_pair(e, self) : std::make_pair(self, e));
        list.push_back(e.node);
      }
      // after() with no node still looks at its own handle; before() with none checks nothing.
      const std::string first = form == 1 && n == 0 && self.plan == nullptr ? k_empty_handle : "";
      if (form == 1) {
        edge_op(edges, first, [&] { (void)h.after(list); });
      } else {
        edge_op(edges, first, [&] { (void)h.before(list); });
      }
      return;
    }
    default: {
      const End from = pick_end(c, in, &self);
      // Graph::add_edge checks that both ends belong to this graph before the edge itself.
      std::string first;
      for (const End* e : {&from, static_cast<const End*>(&self)}) {
        if (!first.empty()) break;
        if (e->plan == nullptr) first = k_empty_handle;
        else if (e->plan != &c.s) first = "belongs to graph";
      }
      edges.push_back({from, self});
      edge_op(edges, first, [&] { c.g.add_edge(from.node, self.node); });
      return;
    }
  }
}

void op_rename(Ctx& c, Input& in) {
  const End e = pick_end(c, in);
  const char* name = k_names[in.below(sizeof k_names / sizeof k_names[0])];
  bool threw = false;
  const std::string msg = usage_error([&] { (void)AnyHandle(e.node.ref()).name(name); }, threw);
  if (e.plan == nullptr) {
    FUZZ_CHECK(threw && msg == k_empty_handle, "name() on an empty handle: '{}'", msg);
    return;
  }
  FUZZ_CHECK(!threw, "name() threw '{}'", msg);
  e.plan->nodes[e.index].name = name;
  FUZZ_CHECK(e.node.name() == name, "name() did not stick");
}

// ---- operations on a plan ------------------------------------------------------------------------

constexpr int k_plan_ops = 21;

/// Body-only operations: 21 replaces the body with a copy of a slot's plan, 22 throws, 23 moves
/// the body away.
void plan_op(Ctx& c, Input& in, int op) {
  const bool room = c.s.nodes.size() < k_max_nodes && c.s.expanded < k_max_expanded;
  switch (op) {
    case 0: if (room) record(c, c.g.add_empty(), gd::NodeKind::empty); break;
    case 1: if (room) op_kernel(c, in); break;
    case 2: if (room) op_memset(c, in); break;
    case 3: if (room) op_memcpy(c, in); break;
    case 4: if (room) op_host(c, in); break;
    case 5: if (room) op_event(c, in); break;
    case 6: if (room) op_captured(c, in); break;
    case 7: if (room) op_child(c, in); break;
    case 8: if (room) op_mem_alloc(c, in); break;
    case 9: if (room) op_mem_free(c, in); break;
    case 10: if (room) op_buffer_use(c, in); break;
    case 11: op_condition(c, in); break;
    case 12: if (room) op_condition_kernel(c, in); break;
    case 13: if (room) op_conditional(c, in); break;
    case 14:
    case 15:
    case 16:
    case 17: op_edges(c, in, op - 14); break;
    case 18: op_rename(c, in); break;
    case 19: check_validate(c); break;
    case 20: c.g.reserve(in.below(300)); break;
    default: break;
  }
}

/// One operation on a body inside its builder; false when it moved the body away (the builder
/// must return then, and add_conditional refuses).
bool body_op(Ctx& c, Input& in) {
  const int op = in.below(k_plan_ops + 3);
  if (op == k_plan_ops + 2) {
    const gd::Graph stolen = std::move(c.g);
    return false;
  }
  if (op == k_plan_ops) {  // b = a copy of some slot's plan: the body loses its link to the enclosing plan
    Slot& src = c.world.slots[in.below(3)];
    if (src.moved_from || src.s.expanded + c.s.expanded > k_max_expanded) return true;
    c.g = src.g;
    c.s = src.s;
    c.handles = c.g.nodes();
    c.parent = nullptr;
  } else if (op == k_plan_ops + 1) {
    throw BuilderAbort{};
  } else {
    plan_op(c, in, op);
  }
  check_counts(c);
  return true;
}

// ---- operations on slots -------------------------------------------------------------------------

void check_renders(const Slot& s) {
  const std::string dump = s.g.dump();
  const std::string head = fmt::format("graph {}: {} nodes, {} edges\n", quoted(s.s.name), s.s.nodes.size(), s.s.edges());
  FUZZ_CHECK(dump.compare(0, head.size(), head) == 0, "dump() header: {}", dump.substr(0, 200));
  std::size_t pos = head.size() - 1;
  for (std::uint32_t i = 0; i < s.s.nodes.size(); ++i) {
    const SNode& m = s.s.nodes[i];
    const std::string line = fmt::format("\n  #{} {}{}", i, gd::to_string(m.kind), m.name.empty() ? "" : " " + quoted(m.name));
    pos = dump.find(line, pos);
    FUZZ_CHECK(pos != std::string::npos, "dump() has no line '{}'", line);
  }
  const std::string dot = s.g.to_dot();
  for (const std::string* text : {&dump, &dot}) {  // names are escaped: no control byte but the line ends
    FUZZ_CHECK(std::none_of(text->begin(), text->end(),
                            [](char ch) { return (static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7f; }),
               "a control byte in dump() or to_dot()");
  }
  int depth = 0;
  bool quoted = false;
  for (std::size_t k = 0; k < dot.size(); ++k) {
    const char ch = dot[k];
    if (quoted) {
      if (ch == '\\') ++k;
      else if (ch == '"') quoted = false;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == '{') {
      ++depth;
    } else if (ch == '}') {
      FUZZ_CHECK(--depth >= 0, "to_dot(): unbalanced braces");
    }
  }
  FUZZ_CHECK(!quoted && depth == 0 && dot.compare(0, 8, "digraph ") == 0, "to_dot() is not well formed:\n{}", dot);
  for (std::uint32_t i = 0; i < s.s.nodes.size(); ++i) {
    FUZZ_CHECK(dot.find(fmt::format("\n  n{} [label=", i)) != std::string::npos, "to_dot() lacks node n{}", i);
    for (std::uint32_t p : s.s.nodes[i].preds) {
      FUZZ_CHECK(dot.find(fmt::format("\n  n{} -> n{};\n", p, i)) != std::string::npos, "to_dot() lacks edge n{} -> n{}", p, i);
    }
  }
}

/// diff(a, b) against the model.
/// docs/updating.md, not_supported: a change only cudaGraphExecUpdate applies (a kernel's priority,
/// a 2-D or 3-D copy, a conditional or captured node, a condition default) in a plan with graph
/// allocations, which cudaGraphExecUpdate cannot take, is refused under every policy, by diff() too.
bool exec_update_refused(const SPlan& a, const SPlan& b, const std::vector<std::uint32_t>& changed) {
  const bool allocates =
      std::any_of(a.nodes.begin(), a.nodes.end(), [](const SNode& n) { return n.kind == gd::NodeKind::mem_alloc; });
  if (!allocates) return false;
  for (std::size_t k = 0; k < a.conditions.size(); ++k) {
    if (a.conditions[k].default_value != b.conditions[k].default_value ||
        a.conditions[k].assign != b.conditions[k].assign) {
      return true;
    }
  }
  for (std::uint32_t i : changed) {
    const SNode &x = a.nodes[i], &y = b.nodes[i];
    if (x.kind == gd::NodeKind::conditional || x.kind == gd::NodeKind::captured) return true;
    if (x.kind == gd::NodeKind::kernel && x.priority != y.priority) return true;
    if (x.kind == gd::NodeKind::memcpy && (x.multi_dim || y.multi_dim)) return true;
  }
  return false;
}

void check_diff(Slot& a, Slot& b) {
  if (a.moved_from || b.moved_from) {
    bool threw = false;
    const std::string msg = usage_error([&] { (void)gd::diff(a.g, b.g); }, threw);
    FUZZ_CHECK(threw && msg == k_moved_from, "diff() with a moved-from Graph: '{}'", msg);
    ++g_stats.moved_from_uses;
    return;
  }
  const gd::UpdateResult r = gd::diff(a.g, b.g);
  ++g_stats.diffs;
  const bool same = same_shape(a.s, b.s);
  if (!same) {
    FUZZ_CHECK(r.status != gd::UpdateStatus::success && r.status != gd::UpdateStatus::invalid_template,
               "diff() accepted plans of different shapes: {}", r.to_string());
    if (a.s.nodes.size() != b.s.nodes.size()) {
      FUZZ_CHECK(r.status == gd::UpdateStatus::topology_changed, "diff() of different node counts: {}", r.to_string());
    }
    // Graph::fingerprint(): "Plans with equal fingerprints are update-compatible."
    FUZZ_CHECK(a.g.fingerprint() != b.g.fingerprint(), "plans that diff() refuses have equal fingerprints: {}",
               r.to_string());
    ++g_stats.diffs_refused;
    return;
  }
  FUZZ_CHECK(a.g.fingerprint() == b.g.fingerprint(), "plans of the same shape have different fingerprints");
  std::vector<std::uint32_t> changed;
  bool nested = false;
  for (std::uint32_t i = 0; i < a.s.nodes.size(); ++i) {
    if (same_params(a.s, b.s, i)) continue;
    changed.push_back(i);
    nested = nested || b.s.nodes[i].kind == gd::NodeKind::child || b.s.nodes[i].kind == gd::NodeKind::conditional;
  }
  // diff() checks the template's changed nodes (the whole template when a nested plan changed).
  bool invalid = false;
  if (nested) {
    invalid = !violations(b.s).empty();
  } else {
    for (std::uint32_t i : changed) invalid = invalid || !b.s.nodes[i].own.empty();
  }
  if (invalid) {
    FUZZ_CHECK(r.status == gd::UpdateStatus::invalid_template, "diff() of an invalid template: {}", r.to_string());
    return;
  }
  if (exec_update_refused(a.s, b.s, changed)) {
    FUZZ_CHECK(r.status == gd::UpdateStatus::not_supported,
               "diff() accepted a change update() refuses in a plan with graph memory: {}", r.to_string());
    return;
  }
  FUZZ_CHECK(r.status == gd::UpdateStatus::success, "diff() refused plans of the same shape: {}", r.to_string());
  FUZZ_CHECK(r.changed == changed, "diff() lists {} changed nodes, the model {}", r.changed.size(), changed.size());
  FUZZ_CHECK(r.strategy == gd::UpdateStrategy::none && r.patched == 0, "diff() applied something: {}", r.to_string());
}

/// After dst became a copy of src: equal outputs, a new identity, diff finds nothing.
void check_copy(Slot& src, Slot& dst) {
  FUZZ_CHECK(src.g.id() != dst.g.id(), "a copy has the same id()");
  FUZZ_CHECK(src.g.fingerprint() == dst.g.fingerprint(), "a copy has another fingerprint");
  FUZZ_CHECK(src.g.dump() == dst.g.dump(), "a copy dumps differently");
  FUZZ_CHECK(src.g.to_dot() == dst.g.to_dot(), "a copy has another DOT text");
  const gd::UpdateResult r = gd::diff(src.g, dst.g);
  FUZZ_CHECK(r.status == gd::UpdateStatus::success && r.changed.empty(), "diff(plan, copy): {}", r.to_string());
}

Ctx slot_ctx(World& w, Slot& s) { return Ctx{w, s.g, s.s, s.handles, nullptr, 0}; }

// ---- handles outliving plans, copies, sealed bodies, embedding limits --------------------------

constexpr const char* k_dead_handle = "used after its plan was destroyed";

/// Handles of destroyed plans: invalid, and every use a UsageError saying so (ASan sees a read of
/// the freed plan if one happens).
void check_dead_handles(const std::vector<gd::Node>& handles, const gd::Graph* live) {
  for (const gd::Node& h : handles) {
    FUZZ_CHECK(!h.valid(), "a handle of a destroyed plan is valid()");
    bool threw = false;
    const std::string msg = usage_error([&] { (void)h.name(); }, threw);
    FUZZ_CHECK(threw && msg.find(k_dead_handle) != std::string::npos, "name() through a dead handle: '{}'", msg);
    if (live != nullptr) {
      const std::string pred = usage_error([&] { (void)live->predecessors(h); }, threw);
      FUZZ_CHECK(threw && pred.find(k_dead_handle) != std::string::npos, "predecessors(dead handle): '{}'", pred);
    }
    ++g_stats.dead_handles;
  }
}

/// The handles of slot `s` when its plan is about to be destroyed (none for a moved-from slot).
std::vector<gd::Node> doomed(const Slot& s) { return s.moved_from ? std::vector<gd::Node>() : s.handles; }

/// After `dst` became a copy of `src`: renaming the original leaves the copy as it was.
void check_copy_independent(Slot& src, Slot& dst) {
  if (src.s.nodes.empty()) return;
  AnyHandle(src.handles[0].ref()).name("copy probe");
  FUZZ_CHECK(dst.g.node(0).name() == dst.s.nodes[0].name, "renaming the original renamed its copy");
  AnyHandle(src.handles[0].ref()).name(src.s.nodes[0].name);
}

/// Handles taken inside body builders (one per body, with its model), after add_conditional
/// returned: readable, but refused any edit.
void check_sealed_bodies(const std::vector<std::pair<gd::Node, std::shared_ptr<SPlan>>>& kept) {
  for (const auto& entry : kept) {
    const gd::Node& h = entry.first;  // not a structured binding: C++17 lambdas cannot capture those
    const std::shared_ptr<SPlan>& body = entry.second;
    FUZZ_CHECK(h.valid() && h.name() == body->nodes[h.index()].name, "a body handle reads another name");
    bool threw = false;
    const std::string msg = usage_error([&] { AnyHandle(h.ref()).name("sealed probe"); }, threw);
    FUZZ_CHECK(threw && msg.find("fixed once its builder returns") != std::string::npos, "renaming a built body: '{}'",
               msg);
    FUZZ_CHECK(h.name() == body->nodes[h.index()].name, "a refused rename changed the body");
    ++g_stats.sealed_bodies;
  }
}

/// A copy of `s` embedding copies of itself until the library refuses: the refusal names the limit,
/// changes nothing, and the plan can still be fingerprinted and measured (shared plans walked once).
void check_embedding_limit(const Slot& s) {
  if (s.moved_from) return;
  gd::Graph g = s.g;
  const std::size_t before = g.node_count();
  std::string msg;
  bool threw = false;
  int accepted = 0;
  for (; accepted < 64; ++accepted) {
    msg = usage_error([&] { g.add_child(g); }, threw);
    if (threw) break;
  }
  FUZZ_CHECK(threw && (msg.find("would hold more than") != std::string::npos || msg.find("nest at most") != std::string::npos),
             "self-embedding was not refused: '{}'", msg);
  FUZZ_CHECK(g.node_count() == before + static_cast<std::size_t>(accepted), "a refused add_child changed the plan");
  FUZZ_CHECK(g.fingerprint() == gd::Graph(g).fingerprint() && g.storage_bytes() > 0, "self-embedded plan walks");
  ++g_stats.embedding_limits;
}

void slot_op(World& w, Input& in, int op) {
  Slot& a = w.slots[in.below(3)];
  Slot& b = w.slots[in.below(3)];
  switch (op) {
    case 0:
    case 1: {  // copy (assignment or construction)
      if (&a == &b) {
        const std::uint64_t id = a.moved_from ? 0 : a.g.id();
        a.g = a.g;  // self-assignment keeps the plan (or leaves a moved-from Graph moved-from)
        FUZZ_CHECK(a.moved_from || a.g.id() == id, "self copy-assignment changed the plan");
        return;
      }
      if (a.moved_from) {
        const std::uint64_t id = b.moved_from ? 0 : b.g.id();
        bool threw = false;
        const std::string msg = usage_error([&] { b.g = a.g; }, threw);
        FUZZ_CHECK(threw && msg == k_moved_from, "copy of a moved-from Graph: '{}'", msg);
        FUZZ_CHECK(b.moved_from || b.g.id() == id, "a failed copy assignment changed the target");
        ++g_stats.moved_from_uses;
        return;
      }
      const std::vector<gd::Node> old = doomed(b);
      if (op == 0) {
        b.g = a.g;
      } else {
        gd::Graph copy(a.g);
        b.g = std::move(copy);
      }
      b.s = a.s;
      b.handles = b.g.nodes();
      b.moved_from = false;
      check_dead_handles(old, &a.g);
      check_copy(a, b);
      check_copy_independent(a, b);
      return;
    }
    case 2: {  // move
      if (&a == &b || a.moved_from) return;
      const std::uint64_t id = a.g.id();
      const std::vector<gd::Node> old = doomed(b);
      if (in.flag()) {
        b.g = std::move(a.g);
      } else {
        gd::Graph moved(std::move(a.g));
        b.g = std::move(moved);
      }
      FUZZ_CHECK(b.g.id() == id, "a moved plan has a new id()");
      b.s = std::move(a.s);
      b.handles = std::move(a.handles);  // handles follow the plan
      b.moved_from = false;
      a.s = SPlan();
      a.handles.clear();
      a.moved_from = true;
      check_moved_from(a);
      check_dead_handles(old, &b.g);
      return;
    }
    case 3: {  // a fresh plan
      const char* name = k_plan_names[in.below(sizeof k_plan_names / sizeof k_plan_names[0])];
      const std::vector<gd::Node> old = doomed(b);
      b.g = gd::Graph(name);
      check_dead_handles(old, &b.g);
      b.s = SPlan();
      b.s.name = name;
      b.handles.clear();
      b.moved_from = false;
      return;
    }
    case 4: {  // copy a child plan or a body out of a node
      if (a.moved_from || a.s.nodes.empty()) return;
      const std::uint32_t i = in.below(static_cast<std::uint32_t>(a.s.nodes.size()));
      const SNode& n = a.s.nodes[i];
      SPlan model;
      if (n.kind == gd::NodeKind::child) {
        b.g = a.g.child_plan(gd::ChildNode(a.handles[i].ref()));
        model = *n.child;
      } else if (n.kind == gd::NodeKind::conditional && !n.bodies.empty()) {
        const std::uint32_t k = in.below(static_cast<std::uint32_t>(n.bodies.size()));
        b.g = a.g.body_plan(gd::ConditionalNode(a.handles[i].ref()), k);
        model = *n.bodies[k];
      } else {
        return;
      }
      const std::vector<gd::Node> old = doomed(b);  // b may be a: the copy-out came first
      b.s = std::move(model);
      b.handles = b.g.nodes();
      b.moved_from = false;
      check_dead_handles(old, &b.g);
      return;
    }
    case 5: check_diff(a, b); return;
    case 6:
      if (a.moved_from) return check_moved_from(a);
      full_check(slot_ctx(w, a));
      return;
    case 7:
      if (a.moved_from) return check_moved_from(a);
      check_renders(a);
      return;
    case 8: {  // every documented use of a moved-from Graph throws
      if (!a.moved_from) return;
      bool threw = false;
      for (const auto& use : std::vector<std::function<void()>>{
               [&] { a.g.add_empty(); }, [&] { a.g.validate(); }, [&] { (void)a.g.dump(); },
               [&] { (void)a.g.name(); }, [&] { (void)a.g.edges(); }, [&] { (void)a.g.fingerprint(); }}) {
        const std::string msg = usage_error(use, threw);
        FUZZ_CHECK(threw && msg == k_moved_from, "use of a moved-from Graph: '{}'", msg);
      }
      ++g_stats.moved_from_uses;
      return;
    }
    case 9:
      if (a.moved_from) return check_moved_from(a);
      check_validate(slot_ctx(w, a));
      return;
    default: {  // twins: the same operations on a and b (one byte flipped for b, sometimes), then diff
      if (&a == &b || a.moved_from || b.moved_from) return;
      const std::uint32_t count = 1 + in.below(4);
      const bool flip = in.below(4) == 0;
      const std::uint32_t flip_offset = in.below(32);
      const auto flip_mask = static_cast<std::uint8_t>(1u << in.below(8));
      for (std::uint32_t k = 0; k < count && !in.done(); ++k) {
        const std::size_t start = in.pos();
        const std::size_t conditions = w.conditions.items.size(), buffers = w.buffers.items.size();
        const int op = in.byte() % k_plan_ops;
        Ctx ca = slot_ctx(w, a);
        plan_op(ca, in, op);
        const std::size_t end = in.pos();
        in.seek(start + 1);
        if (flip) in.flip(start + 1 + flip_offset, flip_mask);
        w.conditions.twin_from = conditions;
        w.conditions.twin_shift = w.conditions.items.size() - conditions;
        w.buffers.twin_from = buffers;
        w.buffers.twin_shift = w.buffers.items.size() - buffers;
        Ctx cb = slot_ctx(w, b);
        plan_op(cb, in, op);
        w.conditions.twin_shift = 0;
        w.buffers.twin_shift = 0;
        in.clear_flip();
        in.seek(std::max(end, in.pos()));
      }
      check_diff(a, b);
      return;
    }
  }
}

}  // namespace

const Stats& stats() { return g_stats; }

void run_one(const std::uint8_t* data, std::size_t size) {
  static const bool trace = std::getenv("GRAPHDSL_FUZZ_TRACE") != nullptr;  // each operation on stderr
  const std::uint64_t calls = gd::debug::cuda_calls();
  const gd::debug::LiveCounts live = gd::debug::live_counts();
  ++g_stats.inputs;
  std::vector<gd::Node> survivors;  // handles that outlive every plan of the input
  {
    World w;
    for (std::size_t k = 0; k < w.slots.size(); ++k) {
      w.slots[k].g = gd::Graph(fmt::format("p{}", k));
      w.slots[k].s.name = fmt::format("p{}", k);
    }
    Input in(data, size);
    try {
      while (!in.done()) {
        const int op = in.byte() % 32;
        ++g_stats.ops;
        if (op < k_plan_ops) {
          const std::uint32_t slot = in.below(3);
          if (trace) std::fprintf(stderr, "plan_fuzz: plan operation %d on slot %u\n", op, slot);
          Slot& s = w.slots[slot];
          if (s.moved_from) {
            check_moved_from(s);
            continue;
          }
          Ctx c = slot_ctx(w, s);
          plan_op(c, in, op);
        } else {
          if (trace) std::fprintf(stderr, "plan_fuzz: slot operation %d\n", op - k_plan_ops);
          slot_op(w, in, op - k_plan_ops);
        }
        for (Slot& s : w.slots) {
          if (!s.moved_from) check_counts(slot_ctx(w, s));
        }
        FUZZ_CHECK(gd::debug::cuda_calls() == calls, "a CUDA call was made");
      }
      for (Slot& s : w.slots) {
        if (s.moved_from) continue;
        full_check(slot_ctx(w, s));
        check_validate(slot_ctx(w, s));
        survivors.insert(survivors.end(), s.handles.begin(), s.handles.end());
      }
      check_embedding_limit(w.slots[0]);
    } catch (const gd::Error& e) {
      failed(fmt::format("unexpected graphdsl error: {}", e.what()));
    } catch (const std::exception& e) {
      failed(fmt::format("unexpected exception: {}", e.what()));
    }
  }
  check_dead_handles(survivors, nullptr);
  FUZZ_CHECK(gd::debug::cuda_calls() == calls, "a CUDA call was made");
  const gd::debug::LiveCounts after = gd::debug::live_counts();
  FUZZ_CHECK(after.plans == live.plans && after.host_closures == live.host_closures,
             "plans {} -> {}, host closures {} -> {} after the input", live.plans, after.plans, live.host_closures,
             after.host_closures);
}

}  // namespace plan_fuzz

// The libFuzzer entry point (linked with -fsanitize=fuzzer; replay_main.cpp calls run_one directly).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plan_fuzz::run_one(data, size);
  return 0;
}
