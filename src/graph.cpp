// src/graph.cpp — building and inspecting plans. No function in this file calls CUDA.
#include <algorithm>
#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "counters.hpp"
#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan_rules.hpp"

namespace graphdsl {
namespace detail {

namespace {
std::uint64_t next_plan_id() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::string graph_ref(const GraphImpl& g) { return fmt::format("{} (plan id {})", quoted(g.name), g.id); }

GraphImpl& owner(const Node& n) {
  if (!n.valid()) throw UsageError("empty node handle (a default-constructed Node was used)");
  return *n.ref().graph;
}
}  // namespace

HostClosure::HostClosure() noexcept { counters().host_closures.fetch_add(1); }
HostClosure::~HostClosure() { counters().host_closures.fetch_sub(1); }
StreamClosure::StreamClosure() noexcept { counters().host_closures.fetch_add(1); }
StreamClosure::~StreamClosure() { counters().host_closures.fetch_sub(1); }
void StreamClosure::check(const NodeInfo&) const {}
std::string StreamClosure::describe() const { return {}; }

GraphImpl::GraphImpl(std::string graph_name) : id(next_plan_id()), name(std::move(graph_name)) {
  counters().plans.fetch_add(1);
}

GraphImpl::GraphImpl(const GraphImpl& o)
    : id(next_plan_id()),
      name(o.name),
      nodes(o.nodes),
      edge_count(o.edge_count),
      kernels(o.kernels),
      args(o.args),
      memsets(o.memsets),
      memcpys(o.memcpys),
      hosts(o.hosts),
      children(o.children),
      events(o.events),
      conditions(o.conditions),
      placeholders(o.placeholders),
      conditionals(o.conditionals),
      captures(o.captures),
      allocs(o.allocs),
      frees(o.frees),
      buffer_uses(o.buffer_uses),
      peer_copies(o.peer_copies),
      default_device(o.default_device) {
  counters().plans.fetch_add(1);
}

GraphImpl::~GraphImpl() { counters().plans.fetch_sub(1); }

NodeRef GraphImpl::push(NodeKind kind, std::size_t payload) {
  if (nodes.size() >= ConditionRef::unresolved) {  // node numbers are 32-bit; the last value means "none"
    throw UsageError(fmt::format("graph {} holds {} nodes, the most a plan can hold", quoted(name), nodes.size()));
  }
  NodeData n;
  n.kind = kind;
  n.payload = static_cast<std::uint32_t>(payload);
  n.device = static_cast<std::int16_t>(default_device);
  nodes.push_back(std::move(n));
  return NodeRef{this, static_cast<std::uint32_t>(nodes.size() - 1)};
}

NodeInfo GraphImpl::info(std::uint32_t index) const {
  const NodeData& n = nodes.at(index);
  return NodeInfo{index, n.kind, n.name, name, {}};
}

std::string node_ref(const GraphImpl& g, std::uint32_t i) { return g.info(i).ref(); }

std::uint32_t GraphImpl::alloc_node(std::uint64_t uid) const {
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].kind == NodeKind::mem_alloc && allocs[nodes[i].payload].uid == uid && uid != 0) return i;
  }
  return ConditionRef::unresolved;
}

ConditionRef GraphImpl::resolve(const Condition& c) const {
  if (!c.valid()) return {};
  std::uint32_t levels = 0;
  for (const GraphImpl* p = this; p != nullptr; p = p->parent, ++levels) {
    for (std::uint32_t k = 0; k < p->conditions.size(); ++k) {
      if (p->conditions[k].uid == c.id()) return ConditionRef{levels, k};
    }
  }
  return {};
}

const PeerCopy* GraphImpl::peer_copy(std::uint32_t index) const {
  for (const PeerCopy& p : peer_copies) {
    if (p.node == index) return &p;
  }
  return nullptr;
}

std::size_t checked_bytes(std::size_t count, std::size_t element_size, const char* what) {
  if (count > max_bytes) {
    throw UsageError(fmt::format("{}: the count {} is not a size ({} as a signed number: a negative count converted to "
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

[[noreturn]] void cover_error(unsigned long long n, unsigned int block_size) {
  if (block_size == 0 || block_size > 1024) {
    throw UsageError(fmt::format("cover({}, {}): the block size must be 1 to 1024 threads", n, block_size));
  }
  throw UsageError(fmt::format("cover({}, {}): {} blocks are needed, more than CUDA's limit of 2147483647 in x (use "
                               "larger blocks, a 2-D grid or a grid-stride loop)",
                               n, block_size, n / block_size + (n % block_size != 0 ? 1 : 0)));
}

void check_compare(Compare op) {
  if (static_cast<unsigned>(op) > static_cast<unsigned>(Compare::greater_equal)) {
    throw UsageError(fmt::format("add_set_condition: Compare({}) is not a comparison (equal, not_equal, less, "
                                 "less_equal, greater or greater_equal)",
                                 static_cast<unsigned>(op)));
  }
}

bool uses_devices(const GraphImpl& g) {
  if (!g.peer_copies.empty()) return true;
  for (const NodeData& n : g.nodes) {
    if (n.device >= 0) return true;
  }
  for (const auto& c : g.children) {
    if (uses_devices(*c)) return true;
  }
  for (const auto& c : g.conditionals) {
    for (const auto& b : c.bodies) {
      if (uses_devices(*b)) return true;
    }
  }
  for (const AllocData& a : g.allocs) {
    if (a.device >= 0 || !a.peers.empty()) return true;
  }
  return false;
}

namespace {
/// The device number of on_device / set_default_device / add_memcpy_peer, checked for its form
/// only (whether the device exists is checked when the plan is compiled).
std::int16_t device_number(int device, const char* what) {
  if (device < -1 || device > INT16_MAX) {
    throw UsageError(fmt::format("{}: {} is not a device number (use 0, 1, ... or -1 for the current device "
                                 "at compile time)",
                                 what, device));
  }
  return static_cast<std::int16_t>(device);
}
}  // namespace

void place_node(const Node& node, int device) {
  GraphImpl& g = owner(node);
  const std::int16_t d = device_number(device, fmt::format("on_device of {}", g.info(node.index()).describe()).c_str());
  g.nodes.at(node.index()).device = d;
}

void name_node(const Node& node, std::string_view name) {
  GraphImpl& g = owner(node);
  g.nodes.at(node.index()).name.assign(name.data(), name.size());
}

namespace {
/// Checks that from -> to may be added (same plan, not a self edge).
void check_edge(const Node& from, const Node& to) {
  GraphImpl& gf = owner(from);
  GraphImpl& gt = owner(to);
  if (&gf != &gt) {
    throw UsageError(fmt::format("edge {} -> {}: {} belongs to graph {} but {} belongs to graph {}; an edge "
                                 "must join two nodes of the same graph",
                                 gf.info(from.index()).ref(), gt.info(to.index()).ref(),
                                 gf.info(from.index()).describe(), graph_ref(gf), gt.info(to.index()).describe(),
                                 graph_ref(gt)));
  }
  if (from.index() == to.index()) {
    throw UsageError(fmt::format("self edge: {} cannot run after itself", gt.info(to.index()).describe()));
  }
}
}  // namespace

void add_edge(const Node& from, const Node& to) { add_edges(&from, 1, to); }

void add_edges_from(const Node& from, const Node* to, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) check_edge(from, to[k]);
  for (std::size_t k = 0; k < count; ++k) add_edges(&from, 1, to[k]);
}

void add_edges(const Node* from, std::size_t count, const Node& to) {
  for (std::size_t k = 0; k < count; ++k) check_edge(from[k], to);
  GraphImpl& g = owner(to);
  auto& preds = g.nodes.at(to.index()).preds;
  const std::size_t before = preds.size();
  if (before + count <= 64) {
    for (std::size_t k = 0; k < count; ++k) {
      if (std::find(preds.begin(), preds.end(), from[k].index()) == preds.end()) preds.push_back(from[k].index());
    }
  } else {  // long lists: mark what is there once instead of searching per edge
    std::vector<bool> present(g.nodes.size());
    for (std::uint32_t p : preds) present[p] = true;
    for (std::size_t k = 0; k < count; ++k) {
      if (!present[from[k].index()]) {
        present[from[k].index()] = true;
        preds.push_back(from[k].index());
      }
    }
  }
  g.edge_count += preds.size() - before;
}

}  // namespace detail

// ---- Node --------------------------------------------------------------------------------------

NodeKind Node::kind() const { return detail::owner(*this).nodes.at(index_).kind; }
std::string Node::name() const { return detail::owner(*this).nodes.at(index_).name; }
NodeInfo Node::info() const { return detail::owner(*this).info(index_); }

// ---- Graph: lifetime ---------------------------------------------------------------------------

Graph::Graph() : Graph(std::string("graph")) {}
Graph::Graph(std::string name) : impl_(std::make_unique<detail::GraphImpl>(std::move(name))) {}
Graph::Graph(std::unique_ptr<detail::GraphImpl> impl) noexcept : impl_(std::move(impl)) {}
Graph::Graph(const Graph& other) : impl_(std::make_unique<detail::GraphImpl>(other.impl())) {}
Graph& Graph::operator=(const Graph& other) {
  if (this != &other) impl_ = std::make_unique<detail::GraphImpl>(other.impl());
  return *this;
}
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;
Graph::~Graph() = default;

detail::GraphImpl& Graph::impl() const {
  if (!impl_) throw UsageError("use of a moved-from Graph");
  return *impl_;
}

const std::string& Graph::name() const { return impl().name; }
std::uint64_t Graph::id() const { return impl().id; }

namespace {
std::uint32_t own_index(const detail::GraphImpl& g, const Node& n) {
  if (!n.valid()) throw UsageError("empty node handle (a default-constructed Node was used)");
  if (n.ref().graph != &g) {
    const auto& other = *n.ref().graph;
    throw UsageError(fmt::format("{} belongs to graph {} (plan id {}), not to graph {} (plan id {})",
                                 other.info(n.index()).describe(), detail::quoted(other.name), other.id,
                                 detail::quoted(g.name), g.id));
  }
  return n.index();
}
}  // namespace

// ---- Graph: nodes ------------------------------------------------------------------------------

detail::NodeRef Graph::add_kernel_node(const void* func, const Launch& launch, const detail::ArgLayout* layout,
                                       std::size_t args_offset, const detail::PlaceholderArg* placeholders,
                                       std::size_t count) {
  auto& g = impl();
  const auto first = static_cast<std::uint32_t>(g.placeholders.size());
  for (std::size_t k = 0; k < count; ++k) {
    const detail::PlaceholderArg& p = placeholders[k];
    detail::ConditionRef ref;
    if (p.kind == detail::PlaceholderKind::condition) {
      ref = g.resolve(Condition(p.uid));
    } else if (const std::uint32_t alloc = g.alloc_node(p.uid); alloc != detail::ConditionRef::unresolved) {
      ref = detail::ConditionRef{0, alloc};
    }
    g.placeholders.push_back(detail::KernelPlaceholder{p.offset, p.kind, ref});
  }
  g.kernels.push_back(detail::KernelData{func, launch, layout, std::uint64_t{args_offset}, first,
                                         static_cast<std::uint32_t>(count)});
  return g.push(NodeKind::kernel, g.kernels.size() - 1);
}

std::pair<MemAllocNode, std::uint64_t> Graph::add_mem_alloc_node(std::size_t bytes, const MemAllocOptions& options) {
  static std::atomic<std::uint64_t> next{1};
  auto& g = impl();
  const std::uint64_t uid = next.fetch_add(1, std::memory_order_relaxed);
  g.allocs.push_back(detail::AllocData{uid, bytes, options.device, options.peer_access});
  const detail::NodeRef ref = g.push(NodeKind::mem_alloc, g.allocs.size() - 1);
  if (options.device >= 0) g.nodes[ref.index].device = detail::device_number(options.device, "MemAllocOptions::device");
  return {MemAllocNode(ref), uid};
}

MemFreeNode Graph::add_mem_free_node(std::uint64_t uid) {
  auto& g = impl();
  g.frees.push_back(g.alloc_node(uid));
  return MemFreeNode(g.push(NodeKind::mem_free, g.frees.size() - 1));
}

void Graph::use_buffer(const Node& node, detail::BufferField field, std::uint64_t uid) {
  auto& g = impl();
  g.buffer_uses.push_back(detail::BufferUse{node.index(), field, g.alloc_node(uid)});
}

Condition Graph::add_condition(unsigned int default_value, bool assign_default) {
  static std::atomic<std::uint64_t> next{1};
  auto& g = impl();
  const Condition c(next.fetch_add(1, std::memory_order_relaxed));
  g.conditions.push_back(detail::ConditionData{c.id(), default_value, assign_default});
  return c;
}

namespace {
std::string body_name(ConditionalType type, unsigned i) {
  switch (type) {
    case ConditionalType::if_then: return "if body";
    case ConditionalType::if_else: return i == 0 ? "then body" : "else body";
    case ConditionalType::while_loop: return "while body";
    case ConditionalType::switch_case: return fmt::format("switch case {}", i);
  }
  return "body";
}
}  // namespace

ConditionalNode Graph::add_conditional(ConditionalType type, const Condition& cond, unsigned int size,
                                       const std::function<void(unsigned int, Graph&)>& body) {
  auto& g = impl();
  detail::ConditionalData c{type, g.resolve(cond), {}};
  c.bodies.reserve(std::min(size, 16u));  // `size` is the user's: a huge one fails in validate(), not here
  for (unsigned int i = 0; i < size; ++i) {
    Graph b(body_name(type, i));
    b.impl_->parent = &g;
    body(i, b);
    if (!b.impl_) throw UsageError(fmt::format("the {} of a {} node was moved from inside its builder", body_name(type, i),
                                               to_string(type)));
    b.impl_->parent = nullptr;
    c.bodies.push_back(std::shared_ptr<const detail::GraphImpl>(std::move(b.impl_)));
  }
  g.conditionals.push_back(std::move(c));
  return ConditionalNode(g.push(NodeKind::conditional, g.conditionals.size() - 1));
}

MemsetNode Graph::add_memset_raw(void* dst, unsigned int value, unsigned int element_size, std::size_t width,
                                 std::size_t height, std::size_t pitch_bytes) {
  auto& g = impl();
  cudaMemsetParams p{};
  p.dst = dst;
  p.value = value;
  p.elementSize = element_size;
  p.width = width;
  p.height = height;
  p.pitch = pitch_bytes;
  g.memsets.push_back(p);
  return MemsetNode(g.push(NodeKind::memset, g.memsets.size() - 1));
}

MemcpyNode Graph::add_memcpy_bytes(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  return add_memcpy_2d(dst, bytes, src, bytes, bytes, 1, kind);
}

MemcpyNode Graph::add_memcpy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                                std::size_t width_bytes, std::size_t height, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p{};
  p.dstPtr = cudaPitchedPtr{dst, dst_pitch, width_bytes, height};
  p.srcPtr = cudaPitchedPtr{const_cast<void*>(src), src_pitch, width_bytes, height};
  p.extent = cudaExtent{width_bytes, height, 1};
  p.kind = kind;
  return add_memcpy_3d(p);
}

MemcpyNode Graph::add_memcpy_3d(const cudaMemcpy3DParms& params) {
  auto& g = impl();
  g.memcpys.push_back(params);
  return MemcpyNode(g.push(NodeKind::memcpy, g.memcpys.size() - 1));
}

MemcpyNode Graph::add_memcpy_peer_bytes(void* dst, int dst_device, const void* src, int src_device,
                                        std::size_t bytes) {
  const std::int16_t d = detail::device_number(dst_device, "add_memcpy_peer (destination device)");
  const std::int16_t s = detail::device_number(src_device, "add_memcpy_peer (source device)");
  MemcpyNode n = add_memcpy_bytes(dst, src, bytes, cudaMemcpyDeviceToDevice);
  auto& g = impl();
  g.peer_copies.push_back(detail::PeerCopy{n.index(), s, d});
  g.nodes[n.index()].device = d;  // the copy runs in the destination's context
  return n;
}

void Graph::set_default_device(int device) { impl().default_device = detail::device_number(device, "set_default_device"); }

int Graph::default_device() const { return impl().default_device; }


HostNode Graph::add_host_node(std::shared_ptr<detail::HostClosure> closure) {
  auto& g = impl();
  g.hosts.push_back(std::move(closure));
  return HostNode(g.push(NodeKind::host, g.hosts.size() - 1));
}

CapturedNode Graph::add_captured_node(std::shared_ptr<detail::StreamClosure> fn, cudaStreamCaptureMode mode) {
  auto& g = impl();
  g.captures.push_back(detail::CaptureData{std::move(fn), mode});
  return CapturedNode(g.push(NodeKind::captured, g.captures.size() - 1));
}

ChildNode Graph::add_child(const Graph& child) {
  auto copy = std::make_shared<const detail::GraphImpl>(child.impl());
  auto& g = impl();
  g.children.push_back(std::move(copy));
  return ChildNode(g.push(NodeKind::child, g.children.size() - 1));
}

EmptyNode Graph::add_empty() { return EmptyNode(impl().push(NodeKind::empty, 0)); }

EventRecordNode Graph::add_event_record(const Event& event) {
  auto& g = impl();
  g.events.push_back(event);
  return EventRecordNode(g.push(NodeKind::event_record, g.events.size() - 1));
}

EventWaitNode Graph::add_event_wait(const Event& event) {
  auto& g = impl();
  g.events.push_back(event);
  return EventWaitNode(g.push(NodeKind::event_wait, g.events.size() - 1));
}

void Graph::add_edge(const Node& from, const Node& to) {
  auto& g = impl();
  (void)own_index(g, from);
  (void)own_index(g, to);
  detail::add_edge(from, to);
}

// ---- Graph: introspection ----------------------------------------------------------------------

std::size_t Graph::node_count() const { return impl().nodes.size(); }
std::size_t Graph::edge_count() const { return impl().edge_count; }

Node Graph::node(std::uint32_t index) const {
  auto& g = impl();
  if (index >= g.nodes.size()) {
    throw UsageError(fmt::format("graph {} has {} node{}; there is no node #{}", detail::quoted(g.name), g.nodes.size(),
                                 g.nodes.size() == 1 ? "" : "s", index));
  }
  return Node(detail::NodeRef{&g, index});
}

std::vector<Node> Graph::nodes() const {
  auto& g = impl();
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) out.emplace_back(detail::NodeRef{&g, i});
  return out;
}

std::optional<Node> Graph::find(std::string_view name) const {
  auto& g = impl();
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name == name) return Node(detail::NodeRef{&g, i});
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
  for (auto [from, to] : pairs) out.push_back(Edge{Node(detail::NodeRef{&g, from}), Node(detail::NodeRef{&g, to})});
  return out;
}

std::vector<Node> Graph::predecessors(const Node& node) const {
  auto& g = impl();
  std::vector<Node> out;
  for (std::uint32_t p : g.nodes[own_index(g, node)].preds) out.emplace_back(detail::NodeRef{&g, p});
  return out;
}

int Graph::device_of(const Node& node) const {
  auto& g = impl();
  return g.nodes[own_index(g, node)].device;
}

std::vector<Node> Graph::successors(const Node& node) const {
  auto& g = impl();
  const std::uint32_t self = own_index(g, node);
  std::vector<Node> out;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const auto& preds = g.nodes[i].preds;
    if (std::find(preds.begin(), preds.end(), self) != preds.end()) out.emplace_back(detail::NodeRef{&g, i});
  }
  return out;
}

const detail::KernelData& Graph::kernel_data(const Node& node) const {
  auto& g = impl();
  return g.kernels[g.nodes[own_index(g, node)].payload];
}

Graph Graph::child_plan(const ChildNode& node) const {
  auto& g = impl();
  return Graph(std::make_unique<detail::GraphImpl>(*g.children[g.nodes[own_index(g, node)].payload]));
}

Graph Graph::body_plan(const ConditionalNode& node, unsigned int i) const {
  auto& g = impl();
  const auto& c = g.conditionals[g.nodes[own_index(g, node)].payload];
  if (i >= c.bodies.size()) {
    throw UsageError(fmt::format("{} has {} bodies; there is no body {}", g.info(node.index()).describe(),
                                 c.bodies.size(), i));
  }
  return Graph(std::make_unique<detail::GraphImpl>(*c.bodies[i]));
}

ConditionalType Graph::conditional_type(const ConditionalNode& node) const {
  auto& g = impl();
  return g.conditionals[g.nodes[own_index(g, node)].payload].type;
}

void Graph::validate() const { (void)detail::check_plan(impl()); }

namespace {
std::size_t plan_bytes(const detail::GraphImpl& g) {
  std::size_t bytes = sizeof(detail::GraphImpl) + g.name.capacity();
  bytes += g.nodes.capacity() * sizeof(detail::NodeData);
  for (const auto& n : g.nodes) {
    if (n.name.capacity() > 15) bytes += n.name.capacity() + 1;  // beyond the small-string buffer
    bytes += n.preds.heap_capacity() * sizeof(std::uint32_t);
  }
  bytes += g.kernels.capacity() * sizeof(detail::KernelData) + g.args.capacity();
  bytes += g.memsets.capacity() * sizeof(cudaMemsetParams) + g.memcpys.capacity() * sizeof(cudaMemcpy3DParms);
  bytes += g.hosts.capacity() * sizeof(g.hosts[0]) + g.events.capacity() * sizeof(Event);
  bytes += g.children.capacity() * sizeof(g.children[0]);
  for (const auto& c : g.children) bytes += plan_bytes(*c);
  bytes += g.captures.capacity() * sizeof(detail::CaptureData) + g.allocs.capacity() * sizeof(detail::AllocData) +
           g.frees.capacity() * sizeof(std::uint32_t) + g.buffer_uses.capacity() * sizeof(detail::BufferUse);
  bytes += g.conditions.capacity() * sizeof(detail::ConditionData) +
           g.placeholders.capacity() * sizeof(detail::KernelPlaceholder) +
           g.conditionals.capacity() * sizeof(detail::ConditionalData);
  for (const auto& c : g.conditionals) {
    bytes += c.bodies.capacity() * sizeof(c.bodies[0]);
    for (const auto& b : c.bodies) bytes += plan_bytes(*b);
  }
  return bytes;
}
}  // namespace

std::size_t Graph::storage_bytes() const { return plan_bytes(impl()); }

void Graph::reserve(std::size_t n) {
  auto& g = impl();
  if (n >= detail::ConditionRef::unresolved) {
    throw UsageError(fmt::format("reserve({}) on graph {}: a plan holds at most {} nodes", n, detail::quoted(g.name),
                                 detail::ConditionRef::unresolved - 1));
  }
  g.nodes.reserve(n);
  g.kernels.reserve(n);
}

}  // namespace graphdsl
