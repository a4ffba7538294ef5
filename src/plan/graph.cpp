// src/plan/graph.cpp — building and inspecting plans (the add_* of each node kind are in src/kinds/<kind>.cpp).
// No function in this file calls CUDA.
#include <algorithm>
#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/counters.hpp"
#include "plan/graph_build.hpp"
#include "plan/handles.hpp"
#include "plan/node_params.hpp"
#include "plan/rules.hpp"
#include "plan/walk.hpp"

namespace graphdsl {
namespace detail {

namespace {
std::uint64_t next_plan_id() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::string graph_ref(const GraphImpl& g) { return fmt::format("{} (plan id {})", quoted(g.name), g.id); }

/// `other` named after a message has named `first` with graph_ref: "graph 'g' (plan id 5)", or
/// "a copy of it (plan id 5)" / "graph 'g' (plan id 3), the plan it is a copy of" when one plan was
/// copied from the other (same name, so the ids alone would not tell the user what happened).
std::string related_graph_ref(const GraphImpl& first, const GraphImpl& other) {
  if (other.copied_from == first.id) return fmt::format("a copy of it (plan id {})", other.id);
  if (first.copied_from == other.id) return "graph " + graph_ref(other) + ", the plan it is a copy of";
  return "graph " + graph_ref(other);
}

/// The hint for a handle used with a copy of its plan (or the reverse); empty otherwise.
std::string copy_hint(const GraphImpl& a, const GraphImpl& b) {
  if (a.copied_from != b.id && b.copied_from != a.id) return {};
  return "; a handle refers only to the plan that made it, not to its copies: look the node up in the plan you "
         "use (Graph::find or Graph::node)";
}

GraphImpl& owner(const Node& n) { return handle_plan(n); }

}  // namespace

/// The plan of `n`, which `what` (e.g. "naming it") is about to change: refused for a sealed plan.
GraphImpl& changeable(const Node& n, const char* what) {
  GraphImpl& g = handle_plan(n);
  if (g.sealed == Sealed::body) {
    throw UsageError(
        fmt::format("{} is in conditional body '{}', which is fixed once its builder returns (copies of "
                    "the plan share it); {} is allowed only inside the builder",
                    g.info(n.index()).describe(), g.name, what));
  }
  if (g.sealed == Sealed::child) {
    throw UsageError(
        fmt::format("{} is in graph '{}', which was moved into a child node (add_child(Graph&&)) and "
                    "is fixed since (copies of the plan share it); {} is allowed on a copy of the plan "
                    "(Graph::child_plan)",
                    g.info(n.index()).describe(), g.name, what));
  }
  if (g.sealed == Sealed::recorded) {
    throw UsageError(
        fmt::format("{} belongs to the recorded plan of an executable (Executable::plan()), which changes "
                    "only through update() and the setters; {} is allowed on a copy of the plan",
                    g.info(n.index()).describe(), what));
  }
  return g;
}

void throw_inexact_value(const char* api, const std::string& value, const char* role, const std::string& type) {
  throw UsageError(fmt::format("{}: {} does not convert exactly to {} ({})", api, value, role, type));
}

GraphImpl::GraphImpl(std::string graph_name)
    : id(next_plan_id()),
      name(std::move(graph_name)),
      token(SharedRef<PlanToken>::adopt(new PlanToken{this, id, name})) {
  slot = take_plan_slot(this, id);
  counters().plans.fetch_add(1);
}

GraphImpl::GraphImpl(const GraphImpl& o)
    : PlanStores(o),
      id(next_plan_id()),
      copied_from(o.id),
      name(o.name),
      token(SharedRef<PlanToken>::adopt(new PlanToken{this, id, name})) {
  own_parameter_plans(*this);
  slot = take_plan_slot(this, id);  // last: a constructor that throws has no slot to give back
  counters().plans.fetch_add(1);
}

GraphImpl::~GraphImpl() {
  give_back_plan_slot(slot, id, std::move(name));  // the handles of this plan are dead from here
  token->plan = nullptr;
  counters().plans.fetch_sub(1);
}

void GraphImpl::embed(const std::vector<const GraphImpl*>& inner, bool child, const std::string& what) {
  std::uint64_t total = nodes.size() + nested_nodes;
  for (const GraphImpl* p : inner) {
    if (p->depth + 1 > max_nesting_depth) {
      throw UsageError(
          fmt::format("{}: embedding graph '{}' would nest plans {} levels deep below graph '{}'; plans "
                      "nest at most {} levels (child plans and conditional bodies)",
                      what, p->name, p->depth + 1, name, max_nesting_depth));
    }
    total += p->nodes.size() + p->nested_nodes;  // each term <= max_embedded_nodes: no overflow
    if (total > max_embedded_nodes) {
      throw UsageError(
          fmt::format("{}: graph '{}' would hold more than {} nodes counting those of the plans it "
                      "embeds (each embedding counted again; a plan embedding copies of itself doubles "
                      "each time)",
                      what, name, max_embedded_nodes));
    }
  }
  for (const GraphImpl* p : inner) {
    depth = std::max(depth, p->depth + 1);
    nested_nodes += p->nodes.size() + p->nested_nodes;
    if (child) held_kinds |= p->held_kinds;
  }
}

NodeRef GraphImpl::push(NodeKind kind, std::size_t payload) {
  if (nodes.size() >= ConditionRef::unresolved) {  // node numbers are 32-bit; the last value means "none"
    throw UsageError(fmt::format("graph {} holds {} nodes, the most a plan can hold", quoted(name), nodes.size()));
  }
  succs.emplace_back();
  try {
    nodes.emplace_back();
  } catch (...) {
    succs.pop_back();
    throw;
  }
  NodeData& n = nodes.back();
  n.kind = kind;
  n.payload = static_cast<std::uint32_t>(payload);
  n.device = static_cast<std::int16_t>(default_device);
  held_kinds |= 1u << static_cast<unsigned>(kind);
  return handle(static_cast<std::uint32_t>(nodes.size() - 1));
}

NodeInfo GraphImpl::info(std::uint32_t index) const {
  const NodeData& n = nodes.at(index);
  return NodeInfo{index, n.kind, node_name(index), name, {}};
}

std::string node_ref(const GraphImpl& g, std::uint32_t i) {  // NodeInfo::ref() without copying the plan's name
  const std::string& name = g.node_name(i);
  return name.empty() ? fmt::format("#{}", i) : quoted(name);
}

std::uint32_t GraphImpl::alloc_node(std::uint64_t uid) const {
  // allocs are in creation order and uids increase: a binary search.
  const auto it = std::lower_bound(allocs.begin(), allocs.end(), uid,
                                   [](const AllocData& a, std::uint64_t u) { return a.uid < u; });
  if (uid == 0 || it == allocs.end() || it->uid != uid) return ConditionRef::unresolved;
  return it->node;
}

ConditionRef GraphImpl::resolve(const Condition& c) const {
  if (!c.valid()) return {};
  std::uint32_t levels = 0;
  for (const GraphImpl* p = this; p != nullptr; ++levels) {
    // conditions are in creation order and uids increase: a binary search.
    const auto it = std::lower_bound(p->conditions.begin(), p->conditions.end(), c.id(),
                                     [](const ConditionData& d, std::uint64_t u) { return d.uid < u; });
    if (it != p->conditions.end() && it->uid == c.id()) {
      return ConditionRef{levels, static_cast<std::uint32_t>(it - p->conditions.begin())};
    }
    p = p->parent && p->parent->outer ? p->parent->outer->plan : nullptr;
  }
  return {};
}

const PeerCopy* GraphImpl::peer_copy(std::uint32_t index) const { return node_record(peer_copies, index); }

std::size_t checked_bytes(std::size_t count, std::size_t element_size, const char* what) {
  if (count > max_bytes) {
    throw UsageError(
        fmt::format("{}: the count {} is not a size ({} as a signed number: a negative count converted to "
                    "std::size_t?); counts must be at most {}",
                    what, count, static_cast<std::int64_t>(count), max_bytes));
  }
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, element_size, &bytes) || bytes > max_bytes) {
    throw UsageError(fmt::format("{}: {} elements of {} bytes is more than {} bytes, the largest size graphdsl accepts",
                                 what, count, element_size, max_bytes));
  }
  return bytes;
}

void throw_records_full() {
  throw UsageError(
      "a plan holds at most 4 GiB of node records (memory-operation lists and the like); split the plan "
      "into child plans");
}

[[noreturn]] void cover_error(unsigned long long n, unsigned int block_size) {
  if (block_size == 0 || block_size > 1024) {
    throw UsageError(fmt::format("cover({}, {}): the block size must be 1 to 1024 threads", n, block_size));
  }
  throw UsageError(
      fmt::format("cover({}, {}): {} blocks are needed, more than CUDA's limit of 2147483647 in x (use "
                  "larger blocks, a 2-D grid or a grid-stride loop)",
                  n, block_size, n / block_size + (n % block_size != 0 ? 1 : 0)));
}

void throw_enum_value(const char* api, const char* type, long long value, const char* what) {
  throw UsageError(fmt::format("{}: {}({}) is not {}", api, type, value, what));
}

void check_compare(Compare op) {
  (void)checked_enum(op, Compare::greater_equal, "add_set_condition", "Compare",
                     "a comparison (equal, not_equal, less, less_equal, greater or greater_equal)");
}

bool uses_devices(const GraphImpl& root) {
  return any_nested_plan(root, [](const GraphImpl& g) {
    if (!g.peer_copies.empty()) return true;
    for (const NodeData& n : g.nodes) {
      if (n.device >= 0) return true;
    }
    for (const AllocData& a : g.allocs) {
      if (a.device >= 0 || !a.peers.empty()) return true;
    }
    return false;
  });
}

std::int16_t device_number(int device, const char* what) {
  if (device < -1 || device > INT16_MAX) {
    throw UsageError(
        fmt::format("{}: {} is not a device number (use 0, 1, ... or -1 for the current device "
                    "at compile time)",
                    what, device));
  }
  return static_cast<std::int16_t>(device);
}

void place_node(const Node& node, int device) {
  GraphImpl& g = changeable(node, "placing it");
  const std::int16_t d = device_number(device, fmt::format("on_device of {}", g.info(node.index()).describe()).c_str());
  g.nodes.at(node.index()).device = d;
}

void name_node(const Node& node, std::string_view name) {
  GraphImpl& g = changeable(node, "naming it");
  (void)g.nodes.at(node.index());
  g.set_node_name(node.index(), name);
}

namespace {
/// Checks that from -> to may be added (same plan, not a self edge).
void check_edge(const Node& from, const Node& to) {
  GraphImpl& gf = owner(from);
  GraphImpl& gt = owner(to);
  if (&gf != &gt) {
    throw UsageError(
        fmt::format("edge {} -> {}: {} belongs to graph {} but {} belongs to {}; an edge "
                    "must join two nodes of the same graph{}",
                    gf.info(from.index()).ref(), gt.info(to.index()).ref(), gf.info(from.index()).describe(),
                    graph_ref(gf), gt.info(to.index()).describe(), related_graph_ref(gf, gt), copy_hint(gf, gt)));
  }
  if (from.index() == to.index()) {
    throw UsageError(fmt::format("self edge: {} cannot run after itself", gt.info(to.index()).describe()));
  }
}
}  // namespace

void add_edge(const Node& from, const Node& to) { add_edges(&from, 1, to); }

void add_edges_from(const Node& from, const Node* to, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) check_edge(from, to[k]);
  if (count == 0) return;  // nothing to add (and `from` is not read: it may be an empty handle)
  GraphImpl& g = owner(from);
  std::vector<std::uint32_t> added;  // the nodes an edge was added to, undone on a failure: all or none
  added.reserve(count);
  try {
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t edges = g.edge_count;
      add_edges(&from, 1, to[k]);
      if (g.edge_count != edges) added.push_back(to[k].index());
    }
  } catch (...) {
    for (auto it = added.rbegin(); it != added.rend(); ++it) pop_edge(g, *it);
    throw;
  }
}

namespace {
/// Adds nodes[k] -> nodes[k + 1] for every k (Graph::chain on plan g); checks all first; all or none.
void add_chain(const GraphImpl& plan, const Node* nodes, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) (void)own_index(plan, nodes[k]);
  for (std::size_t k = 1; k < count; ++k) check_edge(nodes[k - 1], nodes[k]);
  if (count < 2) return;
  GraphImpl& g = owner(nodes[0]);
  std::vector<std::uint32_t> added;  // as add_edges_from: undone on a failure, the last first
  added.reserve(count - 1);
  try {
    for (std::size_t k = 1; k < count; ++k) {
      const std::size_t edges = g.edge_count;
      add_edges(&nodes[k - 1], 1, nodes[k]);
      if (g.edge_count != edges) added.push_back(nodes[k].index());
    }
  } catch (...) {
    for (auto it = added.rbegin(); it != added.rend(); ++it) pop_edge(g, *it);
    throw;
  }
}
}  // namespace

void add_edges(const Node* from, std::size_t count, const Node& to) {
  GraphImpl& g = changeable(to, "adding an edge to it");
  for (std::size_t k = 0; k < count; ++k) check_edge(from[k], to);
  (void)g.nodes.at(to.index());
  add_preds(g, to.index(), from, count);
}

namespace {
/// "3 parameters (8, 4, 4 bytes)".
std::string parameter_list(const ArgLayout& l) {
  std::string sizes;
  for (std::uint32_t k = 0; k < l.count; ++k) sizes += fmt::format("{}{}", k ? ", " : "", l.sizes[k]);
  return fmt::format("{} parameter{}{}", l.count, l.count == 1 ? "" : "s",
                     l.count == 0 ? std::string() : fmt::format(" ({} bytes)", sizes));
}
}  // namespace

void check_node_cast(const Node& node, NodeKind kind, const char* handle, const ArgLayout* signature) {
  const GraphImpl& g = owner(node);
  const NodeData& n = g.nodes.at(node.index());
  if (n.kind != kind) {
    throw UsageError(fmt::format("node_cast<{}>: {} is not a {} node", handle, g.info(node.index()).describe(),
                                 to_string(kind)));
  }
  if (signature == nullptr) return;
  const ArgLayout& recorded = kernel_layout(g, n.payload);
  if (&recorded == signature) return;
  if (recorded.adopted && recorded.count == signature->count &&
      std::equal(recorded.sizes, recorded.sizes + recorded.count, signature->sizes)) {
    return;  // an adopted kernel's parameters have sizes only: a handle of the same sizes names them
  }
  const bool same_sizes = recorded.count == signature->count &&
                          std::equal(recorded.sizes, recorded.sizes + recorded.count, signature->sizes);
  throw UsageError(fmt::format(
      "node_cast<{}>: {} launches a kernel of {}, not of the handle's {}{}; name the handle from the kernel: "
      "KernelNodeOf<decltype(kernel)>",
      handle, g.info(node.index()).describe(), parameter_list(recorded), parameter_list(*signature),
      same_sizes ? " (same sizes, other types)" : ""));
}

}  // namespace detail

// ---- Node --------------------------------------------------------------------------------------

NodeKind Node::kind() const { return detail::owner(*this).nodes.at(index()).kind; }
std::string Node::name() const {
  const detail::GraphImpl& g = detail::owner(*this);
  (void)g.nodes.at(index());
  return g.node_name(index());
}
NodeInfo Node::info() const { return detail::owner(*this).info(index()); }

// ---- Graph: lifetime ---------------------------------------------------------------------------

Graph::Graph() : Graph(std::string("graph")) {}
Graph::Graph(std::string name) : impl_(new detail::GraphImpl(std::move(name))) {}
Graph::Graph(detail::GraphImpl* impl) noexcept : impl_(impl) {}
Graph::Graph(const Graph& other) : impl_(new detail::GraphImpl(other.impl())) {}
Graph& Graph::operator=(const Graph& other) {
  if (this != &other) impl_ = decltype(impl_)(new detail::GraphImpl(other.impl()));
  return *this;
}
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;
Graph::~Graph() = default;

detail::GraphImpl& Graph::impl() {
  if (!impl_) throw UsageError("use of a moved-from Graph");
  impl_.get()->stamp.store(0, std::memory_order_relaxed);
  return *impl_.get();
}

const detail::GraphImpl& Graph::impl() const {
  if (!impl_) throw UsageError("use of a moved-from Graph");
  return *impl_.get();
}

const std::string& Graph::name() const { return impl().name; }
std::uint64_t Graph::id() const { return impl().id; }

namespace detail {
std::uint32_t own_index(const GraphImpl& g, const Node& n) {
  if (g.recorded_from != 0 && n.ref().plan == g.recorded_from) return origin_index(g, n);  // plan/handles.hpp
  const detail::GraphImpl& other = detail::handle_plan(n);  // refuses empty or dead handles
  if (&other != &g) {
    throw UsageError(fmt::format("{} belongs to graph {}, not to {}{}", other.info(n.index()).describe(),
                                 detail::graph_ref(other), detail::related_graph_ref(other, g),
                                 detail::copy_hint(other, g)));
  }
  return n.index();
}

std::uint32_t own_node(const GraphImpl& g, const Node& n, NodeKind kind, const char* what) {
  const std::uint32_t i = own_index(g, n);
  if (g.nodes.at(i).kind != kind) {
    const char* name = to_string(kind);
    throw UsageError(fmt::format("{}: {} is not {} {} node", what, g.info(i).describe(),
                                 std::strchr("aeiou", name[0]) != nullptr ? "an" : "a", name));
  }
  return i;
}
}  // namespace detail
using detail::own_index;

// ---- Graph: nodes ------------------------------------------------------------------------------
// Each node kind's Graph::add_* is in the `make` section of its file, src/kinds/<kind>.cpp.

void Graph::set_default_device(int device) {
  impl().default_device = detail::device_number(device, "set_default_device");
}

int Graph::default_device() const { return impl().default_device; }

void Graph::add_edge(const Node& from, const Node& to) {
  auto& g = impl();
  (void)own_index(g, from);
  (void)own_index(g, to);
  detail::add_edge(from, to);
}

void Graph::chain(std::initializer_list<Node> nodes) { detail::add_chain(impl(), nodes.begin(), nodes.size()); }
void Graph::chain(const std::vector<Node>& nodes) { detail::add_chain(impl(), nodes.data(), nodes.size()); }

// ---- Graph: introspection ----------------------------------------------------------------------

std::size_t Graph::node_count() const { return impl().nodes.size() - impl().removed_nodes; }
std::size_t Graph::edge_count() const { return impl().edge_count; }

Node Graph::node(std::uint32_t index) const {
  auto& g = impl();
  if (index >= g.nodes.size()) {
    throw UsageError(fmt::format("graph {} has {} node{}{}; there is no node #{}", detail::quoted(g.name), node_count(),
                                 node_count() == 1 ? "" : "s",
                                 g.removed_nodes != 0 ? fmt::format(" and {} removed", g.removed_nodes) : "", index));
  }
  if (g.nodes[index].removed != 0) detail::throw_removed_node(g, index);
  return Node(g.handle(index));
}

std::vector<Node> Graph::nodes() const {
  auto& g = impl();
  std::vector<Node> out;
  out.reserve(g.nodes.size() - g.removed_nodes);
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].removed == 0) out.emplace_back(g.handle(i));
  }
  return out;
}

std::optional<Node> Graph::find(std::string_view name) const {
  auto& g = impl();
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.node_name(i) == name && g.nodes[i].removed == 0) return Node(g.handle(i));
  }
  return std::nullopt;
}

std::vector<Edge> Graph::edges() const {
  auto& g = impl();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  pairs.reserve(g.edge_count);
  for (std::uint32_t to = 0; to < g.nodes.size(); ++to) {
    for (std::uint32_t from : g.nodes[to].preds) pairs.emplace_back(from, to);
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<Edge> out;
  out.reserve(pairs.size());
  for (auto [from, to] : pairs) {
    out.push_back(Edge{Node(g.handle(from)), Node(g.handle(to)), detail::edge_kind(g, from, to)});
  }
  return out;
}

std::vector<Node> Graph::predecessors(const Node& node) const {
  auto& g = impl();
  std::vector<Node> out;
  for (std::uint32_t p : g.nodes[own_index(g, node)].preds) out.emplace_back(g.handle(p));
  return out;
}

bool Graph::owns(const Node& node) const noexcept {
  const detail::GraphImpl* g = impl_.get();
  return g != nullptr && detail::live_plan(node.ref()) == g && node.index() < g->nodes.size() &&
         g->nodes[node.index()].removed == 0;
}

int Graph::device_of(const Node& node) const {
  auto& g = impl();
  return g.nodes[own_index(g, node)].device;
}

std::vector<Node> Graph::successors(const Node& node) const {
  auto& g = impl();
  const detail::SmallVec& succs = g.succs[own_index(g, node)];  // in the order the edges were added
  std::vector<std::uint32_t> order(succs.begin(), succs.end());
  if (!std::is_sorted(order.begin(), order.end())) std::sort(order.begin(), order.end());
  std::vector<Node> out;
  out.reserve(order.size());
  for (std::uint32_t s : order) out.emplace_back(g.handle(s));
  return out;
}

const detail::SharedRef<detail::PlanToken>& Graph::plan_token() const { return impl().token; }

Launch Graph::kernel_launch(const Node& node) const {
  auto& g = impl();
  return detail::launch_of(g, g.nodes[own_index(g, node)].payload);
}

Graph Graph::child_plan(const ChildNode& node) const {
  auto& g = impl();
  auto copy = std::make_unique<detail::GraphImpl>(*g.children[g.nodes[own_index(g, node)].payload]);
  copy->outer_bindings = detail::outer_bindings_of(*copy, g);
  return Graph(copy.release());
}

Graph Graph::body_plan(const ConditionalNode& node, unsigned int i) const {
  auto& g = impl();
  const auto& c = g.conditionals[g.nodes[own_index(g, node)].payload];
  if (i >= c.bodies.size()) {
    throw UsageError(fmt::format("{} has {} bodies; there is no body {}", g.info(node.index()).describe(),
                                 c.bodies.size(), i));
  }
  auto copy = std::make_unique<detail::GraphImpl>(*c.bodies[i]);
  copy->outer_bindings = detail::outer_bindings_of(*copy, g);
  return Graph(copy.release());
}

ConditionalType Graph::conditional_type(const ConditionalNode& node) const {
  auto& g = impl();
  return g.conditionals[g.nodes[own_index(g, node)].payload].type;
}

void Graph::validate() const { (void)detail::check_plan(impl()); }

namespace {
/// The bytes of one plan, not counting the plans it embeds.
std::size_t plan_bytes(const detail::GraphImpl& g) {
  std::size_t bytes = sizeof(detail::GraphImpl) + g.name.capacity();
  detail::for_each_store(g, [&](const auto& store, detail::StoreId) {
    bytes += store.capacity() * sizeof(typename std::decay_t<decltype(store)>::value_type);
  });
  for (const auto& s : g.names) {
    if (s.capacity() > 15) bytes += s.capacity() + 1;  // beyond the small-string buffer
  }
  for (const auto& n : g.nodes) bytes += n.preds.heap_capacity() * sizeof(std::uint32_t);
  bytes += g.succs.capacity() * sizeof(detail::SmallVec);
  for (const auto& s : g.succs) bytes += s.heap_capacity() * sizeof(std::uint32_t);
  for (const auto& c : g.conditionals) bytes += c.bodies.capacity() * sizeof(c.bodies[0]);
  for (const auto& p : g.params) {
    if (p.name.capacity() > 15) bytes += p.name.capacity() + 1;
    bytes += p.uses.capacity() * sizeof(detail::ParamUse);
  }
  return bytes;
}
}  // namespace

std::size_t Graph::storage_bytes() const {
  std::size_t bytes = 0;  // a plan shared by copies (a child of a child copied twice) is stored once
  (void)detail::any_nested_plan(impl(), [&](const detail::GraphImpl& g) {
    bytes += plan_bytes(g);
    return false;
  });
  return bytes;
}

void Graph::reserve(std::size_t n) {
  auto& g = impl();
  if (n >= detail::ConditionRef::unresolved) {
    throw UsageError(fmt::format("reserve({}) on graph {}: a plan holds at most {} nodes", n, detail::quoted(g.name),
                                 detail::ConditionRef::unresolved - 1));
  }
  g.nodes.reserve(n);
  g.succs.reserve(n);
  reserve_kernels(g, n);
}

}  // namespace graphdsl
