// graphdsl/node.hpp — handles to the nodes of a plan.
//
// A handle is a small value (plan id, plan-table slot, index), trivially copyable: copying and
// dropping one touches no count and no shared memory. `Node` names any node; the typed handles
// (KernelNode<P...>, MemsetNode, MemcpyNode, HostNode, ChildNode, EmptyNode, EventRecordNode,
// EventWaitNode) are what the add_* functions return and convert to Node. Per-node operations that
// only make sense for one kind take the typed handle, so using the wrong kind fails to compile.
//
// A handle stays usable while its Graph (or whatever Graph it was moved into) is alive, like an
// iterator. Using a handle with another Graph is a UsageError that names both graphs. A handle
// whose plan was destroyed (the Graph destroyed, assigned over, or moved into an instantiate()
// that threw) knows it: valid() is false and every use is a UsageError, never a read of freed
// memory.
//
// A plain Node (from Graph::find, nodes(), node(i)) becomes a typed handle through node_cast:
//   auto loop = gd::node_cast<gd::ConditionalNode>(*g.find("loop"));  // UsageError if it is not one
//   gd::KernelNodeOf<decltype(saxpy)> k = gd::node_cast<gd::KernelNodeOf<decltype(saxpy)>>(g.node(3));
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>  // also std::begin and std::end (RangeElement), without <iterator>

#include "graphdsl/access.hpp"
#include "graphdsl/node_kind.hpp"

namespace graphdsl {

class Graph;
class Node;

/// What an edge waits for (cudaGraphEdgeData). Only kernel -> kernel edges can be other than full.
enum class EdgeKind : std::uint8_t {
  full = 0,              ///< the successor starts after the predecessor finished, its memory visible
  programmatic = 1,      ///< programmatic dependent launch: the successor may start once every block of
                         ///< the predecessor called cudaTriggerProgrammaticLaunchCompletion() (or exited),
                         ///< and must call cudaGridDependencySynchronize() before it reads the
                         ///< predecessor's results (cudaGraphKernelNodePortProgrammatic)
  launch_completion = 2  ///< the successor may start once every block of the predecessor has started
                         ///< (cudaGraphKernelNodePortLaunchCompletion); also with
                         ///< cudaGridDependencySynchronize() before reading its results
};
/// `b.after(a, gd::programmatic)`: a programmatic dependent launch edge a -> b (kernels only).
inline constexpr EdgeKind programmatic = EdgeKind::programmatic;
/// `b.after(a, gd::launch_completion)`: b may start once all of a's blocks have started (kernels only).
inline constexpr EdgeKind launch_completion = EdgeKind::launch_completion;
/// "full", "programmatic", "launch_completion".
const char* to_string(EdgeKind kind) noexcept;

namespace detail {
struct GraphImpl;
struct ArgLayout;
template <class... P>
struct ArgLayoutOf;

/// Internal: what a handle is made of. `plan` is the id of the handle's plan (Graph::id(); ids are
/// never reused; 0: an empty handle) and `slot` the plan's entry in the process-wide plan table
/// (src/plan/handles.hpp), which says whether that plan is still alive: no handle owns anything.
struct NodeRef {
  std::uint64_t plan = 0;
  std::uint32_t slot = 0;
  std::uint32_t index = 0;
};

/// Node::valid(): whether plan `plan` (an id, not 0) still holds entry `slot` of the plan table.
bool plan_alive(std::uint32_t slot, std::uint64_t plan) noexcept;

void name_node(const Node& node, std::string_view name);
void place_node(const Node& node, int device);
void add_edge(const Node& from, const Node& to);
/// Adds from -> to as an edge of `kind` (a full edge added again with another kind takes it).
void add_edge_of_kind(const Node& from, const Node& to, EdgeKind kind);
/// Adds from[k] -> to for every k; checks all first (a failing call adds nothing); duplicates are
/// removed in O(count + nodes) for long lists.
void add_edges(const Node* from, std::size_t count, const Node& to);
/// Adds from -> to[k] for every k; checks all first.
void add_edges_from(const Node& from, const Node* to, std::size_t count);

/// The element type of a range R (anything std::begin/std::end accept), or void.
template <class R, class = void>
struct RangeElement {
  using type = void;
};
template <class R>
struct RangeElement<
    R, std::void_t<decltype(std::begin(std::declval<const R&>())), decltype(std::end(std::declval<const R&>()))>> {
  using type = std::decay_t<decltype(*std::begin(std::declval<const R&>()))>;
};

/// True for a node handle or a range of node handles: what after() and before() take.
template <class N>
inline constexpr bool is_node_or_range_v = std::is_base_of_v<Node, N> ||
                                           std::is_base_of_v<Node, typename RangeElement<N>::type>;

template <class N>
inline constexpr bool always_false_v = false;

/// Calls f on `x` if it is a node handle, or on each element if it is a range of node handles.
template <class N, class F>
void for_each_node(const N& x, F&& f) {
  if constexpr (std::is_base_of_v<Node, N>) {
    f(static_cast<const Node&>(x));
  } else if constexpr (is_node_or_range_v<N>) {
    for (const auto& n : x) f(static_cast<const Node&>(n));
  } else {
    static_assert(always_false_v<N>,
                  "graphdsl after()/before(): each argument must be a node handle (what add_* returns, or a Node) "
                  "or a range of them (e.g. std::vector<graphdsl::Node>); a node index is not a handle: use "
                  "Graph::node(i)");
  }
}

/// Checks that `node` may be viewed as a handle of `kind` named `handle` (e.g. "MemsetNode"); for a
/// kernel handle, `signature` is the handle's parameter list, compared with the one add_kernel
/// recorded. @throws UsageError for an empty handle, another kind or another parameter list.
void check_node_cast(const Node& node, NodeKind kind, const char* handle, const ArgLayout* signature);
}  // namespace detail

/// Any node of a plan.
class Node {
 public:
  /// An empty handle; every use of it is a UsageError.
  Node() noexcept = default;
  /// Internal: the handle of node `ref.index` of plan `ref.plan` (handles are made by Graph).
  explicit Node(detail::NodeRef ref) noexcept : ref_(ref) {}

  /// True for a handle made by a Graph whose plan is still alive (false once the plan was
  /// destroyed, assigned over, or lost in an instantiate() that threw).
  bool valid() const noexcept { return ref_.plan != 0 && detail::plan_alive(ref_.slot, ref_.plan); }
  /// Position of the node in its plan: nodes are numbered 0, 1, ... in creation order.
  std::uint32_t index() const noexcept { return ref_.index; }
  /// @throws UsageError for an empty handle.
  NodeKind kind() const;
  /// The user's name, or an empty string (a copy). @throws UsageError for an empty handle.
  std::string name() const;
  /// Index, kind, name and plan name copied out. @throws UsageError for an empty handle.
  NodeInfo info() const;

  /// Internal: the plan id, plan-table slot and index this handle is made of (`plan` is 0 for an
  /// empty handle; for a destroyed plan it stays that plan's id).
  detail::NodeRef ref() const noexcept { return ref_; }

  /// True when both handles refer to the same node of the same plan (or both are empty).
  friend bool operator==(const Node& a, const Node& b) noexcept {
    return a.ref_.plan == b.ref_.plan && a.ref_.index == b.ref_.index;
  }
  /// `!(a == b)`.
  friend bool operator!=(const Node& a, const Node& b) noexcept { return !(a == b); }

 private:
  detail::NodeRef ref_;
};

/// The operations every typed handle has; `Self` is the typed handle, returned by value so that
/// calls chain: `g.add_kernel(...).name("scale").after(up)`.
template <class Self>
class NodeHandle : public Node {
 public:
  /// An empty handle; every use of it is a UsageError.
  NodeHandle() noexcept = default;
  /// Internal: the handle of node `ref.index` of plan `ref.plan` (handles are made by Graph).
  explicit NodeHandle(detail::NodeRef ref) noexcept : Node(ref) {}

  using Node::name;
  /// Names the node; names appear in every message, dump and DOT export. Names should be unique
  /// within a plan (Graph::find returns the first match).
  Self name(std::string_view new_name) const {
    detail::name_node(*this, new_name);
    return self();
  }

  /// Places the node on CUDA device `device` (0, 1, ...; -1: the device current when the plan is
  /// compiled, the default unless Graph::set_default_device says otherwise). Kernel, memset,
  /// memcpy, mem_alloc, mem_free, captured and empty nodes can be placed; validate() refuses
  /// placing the others and placing nodes inside conditional bodies; instantiate() checks that the
  /// device exists. The device is shown in dumps and DOT output and cannot change in an update.
  /// @throws UsageError for a number below -1.
  Self on_device(int device) const {
    detail::place_node(*this, device);
    return self();
  }

  /// Adds edges pred -> this for each argument (a node handle or a range of them). Edges have set
  /// semantics: adding an existing edge again changes nothing.
  /// @throws UsageError for a self edge, an empty handle or a node of another plan.
  template <class... N>
  Self after(const N&... preds) const {
    if constexpr (!(detail::is_node_or_range_v<N> && ...)) {
      (detail::for_each_node(preds, [](const Node&) {}), ...);  // the static_assert naming the rule
    } else if constexpr (sizeof...(N) == 1 && (std::is_base_of_v<Node, N> && ...)) {
      (detail::add_edge(preds, *this), ...);
    } else {
      std::vector<Node> all;
      (detail::for_each_node(preds, [&all](const Node& p) { all.push_back(p); }), ...);
      detail::add_edges(all.data(), all.size(), *this);
    }
    return self();
  }

  /// Adds the edge pred -> this of `kind` (gd::programmatic, gd::launch_completion, EdgeKind::full):
  /// with a programmatic edge this kernel may start before `pred` has finished (programmatic
  /// dependent launch, sm_90+). validate() checks that both ends are kernel nodes.
  /// @throws UsageError for a self edge, an empty handle or a node of another plan.
  template <class N, class = std::enable_if_t<std::is_base_of_v<Node, N>>>
  Self after(const N& pred, EdgeKind kind) const {
    detail::add_edge_of_kind(pred, *this, kind);
    return self();
  }

  /// Declares memory the node touches, for Graph::check_races(): gd::reads(p, n), gd::writes(p, n)
  /// (pointers or graph buffers). Adds to what graphdsl derives itself (kernel pointers, memset and
  /// memcpy ranges); the only way to bound host, captured and event nodes.
  /// @throws UsageError for a range outside its graph buffer or one that overflows.
  template <class... R>
  Self accesses(const R&... ranges) const {
    static_assert(sizeof...(R) > 0 && (detail::is_declared_v<R> && ...),
                  "graphdsl accesses(): pass gd::reads(...) / gd::writes(...) ranges");
    const detail::DeclaredAccess list[] = {detail::erase(ranges, detail::DeclaredAccess::no_param)...};
    detail::declare_accesses(*this, list, sizeof...(R));
    return self();
  }

  /// Adds edges this -> succ for each argument (a node handle or a range of them).
  template <class... N>
  Self before(const N&... succs) const {
    std::vector<Node> all;
    (detail::for_each_node(succs, [&all](const Node& s) { all.push_back(s); }), ...);
    if constexpr ((detail::is_node_or_range_v<N> && ...)) detail::add_edges_from(*this, all.data(), all.size());
    return self();
  }

  /// Internal (node_cast): the parameter list of a kernel handle; null for the other handles.
  static const detail::ArgLayout* signature() noexcept { return nullptr; }

 private:
  Self self() const { return Self(ref()); }
};

/// A kernel node for a `__global__ void k(P...)`; the parameter types are part of the handle's type.
/// KernelNodeOf<decltype(k)> (or KernelNodeFor<&k>) names it from the kernel itself.
template <class... P>
class KernelNode : public NodeHandle<KernelNode<P...>> {
 public:
  using NodeHandle<KernelNode<P...>>::NodeHandle;
  /// The kind of node this handle refers to (node_cast checks it).
  static constexpr NodeKind node_kind = NodeKind::kernel;
  /// The handle's name in node_cast's messages.
  static constexpr const char* handle_name = "KernelNode<...>";
  /// Internal (node_cast): the parameter list P..., as add_kernel records it.
  static const detail::ArgLayout* signature() noexcept { return &detail::ArgLayoutOf<P...>::value; }
};

#define GRAPHDSL_DETAIL_HANDLE(Name, kind)                               \
  class Name : public NodeHandle<Name> {                                 \
   public:                                                               \
    using NodeHandle<Name>::NodeHandle;                                  \
    /** The kind of node this handle refers to (node_cast checks it). */ \
    static constexpr NodeKind node_kind = NodeKind::kind;                \
    /** The handle's name in node_cast's messages. */                    \
    static constexpr const char* handle_name = #Name;                    \
  }
/// A memset node (add_memset, add_memset_2d, add_memset_raw).
GRAPHDSL_DETAIL_HANDLE(MemsetNode, memset);
/// A memcpy node (add_memcpy, add_memcpy_bytes, add_memcpy_2d, add_memcpy_3d).
GRAPHDSL_DETAIL_HANDLE(MemcpyNode, memcpy);
/// A host-callback node (add_host).
GRAPHDSL_DETAIL_HANDLE(HostNode, host);
/// A child-graph node (add_child).
GRAPHDSL_DETAIL_HANDLE(ChildNode, child);
/// An empty node (add_empty).
GRAPHDSL_DETAIL_HANDLE(EmptyNode, empty);
/// An event-record node (add_event_record).
GRAPHDSL_DETAIL_HANDLE(EventRecordNode, event_record);
/// An event-wait node (add_event_wait).
GRAPHDSL_DETAIL_HANDLE(EventWaitNode, event_wait);
/// A conditional node (add_if, add_if_else, add_while, add_switch, add_conditional).
GRAPHDSL_DETAIL_HANDLE(ConditionalNode, conditional);
/// Work captured from a stream (add_captured).
GRAPHDSL_DETAIL_HANDLE(CapturedNode, captured);
/// A graph allocation (add_mem_alloc).
GRAPHDSL_DETAIL_HANDLE(MemAllocNode, mem_alloc);
/// The free of a graph allocation (add_mem_free).
GRAPHDSL_DETAIL_HANDLE(MemFreeNode, mem_free);
// GRAPHDSL_DETAIL_HANDLE stays defined: a node kind declared next to its add_* function in
// graph.hpp declares its handle with it (CONTRIBUTING.md, "Adding a node kind").

namespace detail {
template <class F>
struct KernelNodeOfImpl {
  static_assert(always_false_v<F>,
                "graphdsl KernelNodeOf<F>: F must be a kernel's type, void(P...) (decltype(kernel)) or void (*)(P...)");
  using type = void;
};
template <class... P>
struct KernelNodeOfImpl<void(P...)> {
  using type = KernelNode<P...>;
};
template <class... P>
struct KernelNodeOfImpl<void(P...) noexcept> {
  using type = KernelNode<P...>;
};
template <class F>
struct KernelNodeOfImpl<F*> : KernelNodeOfImpl<F> {};
}  // namespace detail

/// The handle type add_kernel returns for a kernel of type F (`decltype(saxpy)`, a function type,
/// or a pointer to it): `gd::KernelNodeOf<decltype(saxpy)> k = g.add_kernel(saxpy, ...);` instead of
/// spelling out `gd::KernelNode<const float*, float*, float, int>`.
template <class F>
using KernelNodeOf = typename detail::KernelNodeOfImpl<std::remove_cv_t<F>>::type;

/// KernelNodeOf for a kernel named by address: `gd::KernelNodeFor<&saxpy>`.
template <auto Kernel>
using KernelNodeFor = KernelNodeOf<decltype(Kernel)>;

/// A dependency edge: `to` runs after `from` (Graph::edges).
struct Edge {
  Node from;                       ///< the node that runs first
  Node to;                         ///< the node that runs after `from`
  EdgeKind kind = EdgeKind::full;  ///< what `to` waits for
};

/// The typed handle of `node` (from Graph::find, nodes(), node(i), predecessors(), ...): a checked
/// cast. `Handle` is MemsetNode, ConditionalNode, KernelNode<P...>, ... For a kernel handle the
/// parameter list P... must be the kernel's own (recorded by add_kernel), since per-node setters
/// pack arguments by it.
/// @throws UsageError naming the node when it is of another kind, when a kernel node's parameter
///         list differs from P..., or for an empty handle. Makes no CUDA call.
template <class Handle>
Handle node_cast(const Node& node) {
  static_assert(std::is_base_of_v<NodeHandle<Handle>, Handle>,
                "graphdsl node_cast<Handle>: Handle must be a typed node handle (MemsetNode, ConditionalNode, "
                "KernelNode<P...>, ...)");
  detail::check_node_cast(node, Handle::node_kind, Handle::handle_name, Handle::signature());
  return Handle(node.ref());
}

}  // namespace graphdsl
