// plan/graph_impl.hpp — the storage of a plan (the plan layer's; not a public header).
//
// One vector of nodes (kind, payload index, predecessor list), the node names apart, plus one vector
// per node kind for the parameters, so a kernel node costs only what a kernel needs.
//
// Not installed: graph.hpp only forward-declares GraphImpl, and its templates reach the storage
// through out-of-line members of Graph (docs/performance.md, "Include cost"). The small types those
// templates share with it are in graphdsl/detail/plan_types.hpp.
//
// Its fields are read and written by the plan layer (src/plan/) and the node kinds (src/kinds/)
// only: src/native/ and src/exec/ go through the plan layer's functions (plan/plan_access.hpp, the
// members below, the functions at the end of this file), which scripts/check-structure.sh checks.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/access.hpp"
#include "graphdsl/condition.hpp"
#include "graphdsl/detail/kernel_args.hpp"
#include "graphdsl/detail/plan_types.hpp"
#include "graphdsl/detail/small_vec.hpp"
#include "graphdsl/event.hpp"
#include "graphdsl/launch.hpp"
#include "graphdsl/node.hpp"
#include "graphdsl/node_kind.hpp"
#include "graphdsl/parameter.hpp"

namespace graphdsl::detail {

/// A reference from a node to a Condition, by position: the plan `levels` steps out from the
/// node's plan (0: the same plan, 1: the plan enclosing it, ...) and the index in that plan's
/// `conditions`. Positions, not ids, so that two plans built the same way compare equal.
struct ConditionRef {
  static constexpr std::uint32_t unresolved = 0xffffffffu;
  std::uint32_t levels = unresolved;  ///< `unresolved`: not declared in this plan or one enclosing it
  std::uint32_t index = 0;
};

/// A placeholder argument of a kernel: where its value goes in the argument block. For a
/// Condition, `ref` locates the condition; for a GraphBuffer, `ref.index` is the plan index of the
/// mem_alloc node (levels 0), or `ref.levels` is unresolved.
struct KernelPlaceholder {
  std::uint32_t offset;  ///< byte offset within the kernel's argument block
  PlaceholderKind kind;
  ConditionRef ref;
  std::uint64_t uid = 0;  ///< Condition::id() or GraphBuffer::id() (to resolve it in another plan)
};

/// A graph allocation (add_mem_alloc). A plan's allocs are in node order, so their uids increase.
struct AllocData {
  std::uint64_t uid;  ///< GraphBuffer::id()
  std::size_t bytes;
  int device;  ///< -1: the current device when compiled
  std::vector<int> peers;
  std::uint32_t node = 0;  ///< the mem_alloc node
};

/// A memset or memcpy node using a graph buffer (GraphImpl::buffer_uses is in node order).
struct BufferUse {
  std::uint32_t node;  ///< the memset or memcpy node
  BufferField field;
  std::uint32_t alloc_node;  ///< the mem_alloc node, or ConditionRef::unresolved
  std::uint64_t uid = 0;     ///< GraphBuffer::id() (to resolve it in another plan)
};

struct CaptureData {
  std::shared_ptr<StreamClosure> fn;
  cudaStreamCaptureMode mode;
};

/// What a kernel record keeps of its Launch: grid, block, dynamic shared memory and priority (32
/// bytes, so that KernelData stays 48). The launch attributes (cluster, cooperative, sync domain, L2
/// window), which few kernels have, live in GraphImpl::kernel_attributes: launch_of() and
/// store_launch() put the two together.
struct LaunchShape {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned int shared_bytes = 0;
  int priority = 0;
};

/// An edge that is not a full one (programmatic, launch completion): GraphImpl::edge_kinds.
struct EdgeKindData {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  EdgeKind kind = EdgeKind::full;
};

/// The launch attributes of one kernel (its index in GraphImpl::kernels).
struct KernelAttributes {
  std::uint32_t kernel = 0;
  dim3 cluster{0, 0, 0};
  bool cooperative = false;
  MemSyncDomain sync_domain = MemSyncDomain::default_domain;
  L2Window l2{};
  bool device_updatable = false;
};

/// Where a parameter is used: a kernel argument (its byte offset in the kernel's block, position
/// counting from 1) or a memset value (position 0).
/// Where a parameter's value is written: a kernel argument, a memset's value, a memcpy's endpoint.
enum class ParamPlace : std::uint8_t { kernel_argument, memset_value, memcpy_dst, memcpy_src };

struct ParamUse {
  std::uint32_t node;
  std::uint32_t offset = 0;    ///< kernel_argument: the byte offset in the node's argument block
  std::uint32_t position = 0;  ///< kernel_argument: the argument, counting from 1; else 0
  ParamPlace place = ParamPlace::kernel_argument;
};

/// A plan nested in node `node` of a plan (a child plan: slot 0; a conditional node: its body
/// `slot`) that uses a parameter, and the index of the parameter's entry in that plan's params (by
/// position: a plan updated from a template keeps the positions, not the template's ids).
struct NestedUse {
  std::uint32_t node;
  std::uint32_t slot = 0;
  std::uint32_t entry = 0;
};

/// A parameter of a plan: declared by Graph::parameter() on it, or used in it and declared by an
/// enclosing plan (a conditional body using its plan's parameter) or by a child plan it embeds.
/// Its type, name, current value, uses in this plan (in node order) and the nested plans that use it
/// (each has an entry for it: NestedUse::entry). One entry per parameter and plan, in the order the plan
/// met them, so plans built the same way have the same entries.
struct ParamData {
  std::uint64_t uid;
  const ParamType* type;
  std::string name;
  std::array<unsigned char, max_parameter_bytes> value{};
  std::vector<ParamUse> uses;
  std::vector<NestedUse> nested;  ///< in the order embedded
  bool declared = true;           ///< false: declared by an enclosing plan or by a child plan
};

/// A kernel node's record (48 bytes): what the diff of Executable::update compares for every kernel
/// of both plans, with one memcmp per block of nodes (plan/diff_blocks.cpp): the function, the launch
/// shape and where its arguments are. The rest of a kernel is in its KernelLinks.
struct KernelData {
  const void* func = nullptr;
  LaunchShape launch;
  std::uint64_t args = 0;  ///< offset of the packed argument block in GraphImpl::args (64-bit: the
                           ///< arena may pass 4 GiB)
};

/// What a kernel has besides its KernelData (16 bytes; GraphImpl::kernel_links, same index as
/// GraphImpl::kernels, so a kernel costs 64 bytes in all): its argument layout, which its function
/// determines (the ArgLayoutOf of the kernel's own signature, or a setter's that packs the same way:
/// kernels of one function pack their arguments alike, so the diff need not compare layouts), and
/// its placeholder arguments, which the diff reads only when a plan has placeholders.
struct KernelLinks {
  const ArgLayout* layout = nullptr;
  std::uint32_t ph_first = 0;  ///< first entry in GraphImpl::placeholders
  std::uint32_t ph_count = 0;  ///< placeholder arguments (conditions, graph buffers) of this kernel
};

/// A condition declared by add_condition().
struct ConditionData {
  std::uint64_t uid;
  unsigned int default_value;
  bool assign_default;
};

struct GraphImpl;

/// A conditional node: its shape, its condition and its body plans.
struct ConditionalData {
  ConditionalType type;
  ConditionRef condition;
  std::vector<std::shared_ptr<const GraphImpl>> bodies;
};

/// A memcpy node made by add_memcpy_peer: a direct copy between two devices.
struct PeerCopy {
  std::uint32_t node;
  int src_device;
  int dst_device;
};

/// A memcpy node made by add_memcpy_to_symbol / add_memcpy_from_symbol: which of its pointers is a
/// `__device__` symbol. The memcpy record holds the symbol's own address (the host-side variable the
/// runtime API takes) plus `offset`; compiling replaces it with the symbol's device address plus
/// `offset` (cudaGetSymbolAddress).
struct SymbolUse {
  std::uint32_t node;
  BufferField field;         ///< memcpy_dst (a copy to the symbol) or memcpy_src (from it)
  const void* symbol;        ///< the symbol
  std::size_t offset;        ///< bytes into the symbol where the copy starts
  std::size_t symbol_bytes;  ///< the symbol's size
};

/// One node of a plan (24 bytes: the diff of Executable::update reads every node of both plans, so
/// the record holds only what every node has; names live in GraphImpl::names).
struct NodeData {
  SmallVec preds;             ///< set semantics, in insertion order
  std::uint32_t payload = 0;  ///< index into the per-kind vector
  NodeKind kind = NodeKind::empty;
  std::uint8_t reserved = 0;  ///< no padding byte: the diff compares blocks of records with memcmp
  std::int16_t device = -1;   ///< the device the node is placed on; -1: the current device at compile time
};

/// The liveness token of a plan, shared by the plan, its Parameters and its conditional bodies'
/// builders through SharedRef (graphdsl/detail/shared_ref.hpp; retain / release in plan/token.cpp);
/// node handles use the plan table instead (plan/handles.hpp). The plan clears `plan` when it is
/// destroyed; `id` and `name` stay for messages.
struct PlanToken {
  GraphImpl* plan = nullptr;
  std::uint64_t id = 0;
  std::string name;
  std::atomic<long> refs{1};  ///< SharedRef owners
};

/// The link from a body being built to the plan it belongs to (for resolving Conditions). Shared
/// by the body; add_conditional cuts it when the builder returns, so a body moved out of its
/// builder no longer reaches the plan, and `outer` is the plan's liveness token, so a plan
/// destroyed by the builder is never read.
struct ParentLink {
  SharedRef<PlanToken> outer;
};

/// The sizes of a plan's stores and its running totals when an add_* began (kept by Graph::Change):
/// going back to them undoes an add_* that failed part way (plan/savepoint.cpp). Every store a node
/// adds to appears here; stores_of (plan/savepoint.cpp) lists them.
struct PlanMark {
  std::size_t nodes = 0, names = 0, kernels = 0, kernel_links = 0, kernel_attributes = 0, edge_kinds = 0, args = 0,
              memsets = 0, memset_types = 0, memcpys = 0, hosts = 0, children = 0, events = 0, conditions = 0,
              placeholders = 0, conditionals = 0, captures = 0, allocs = 0, frees = 0, buffer_uses = 0, peer_copies = 0,
              symbol_uses = 0, declared = 0, params = 0, records = 0;
  std::uint32_t depth = 0;
  std::uint64_t nested_nodes = 0;
  std::uint32_t held_kinds = 0;
};

/// Why a plan no longer changes through node handles.
enum class Sealed : std::uint8_t {
  no,
  body,      ///< a conditional body whose builder has returned (shared by copies of the plan)
  recorded,  ///< an executable's recorded plan (Executable::plan())
};

struct GraphImpl {
  explicit GraphImpl(std::string graph_name);
  GraphImpl(const GraphImpl& other);  ///< a copy is a new plan with a new id (and unsealed)
  GraphImpl& operator=(const GraphImpl&) = delete;
  ~GraphImpl();

  std::uint64_t id;
  std::uint32_t slot = 0;  ///< this plan's entry in the plan table (plan/handles.hpp), taken last by the constructors
  std::uint64_t copied_from = 0;  ///< the id of the plan this one is a copy of (0: none), for messages
  std::string name;
  std::vector<NodeData> nodes;
  /// Node names by node index: shorter than `nodes` where the last nodes have no name, and empty
  /// while no node has one (most plans), so that a diff of unnamed plans reads no name.
  std::vector<std::string> names;
  std::size_t edge_count = 0;
  /// Successors by node index: the reverse of NodeData::preds (each list in the order its edges were
  /// added), so that Graph::successors() costs what it returns. Kept by push() and add_preds().
  std::vector<SmallVec> succs;
  /// The edges into nodes whose predecessor lists grew long (over long_preds entries), as
  /// to << 32 | from, and to << 32 | 0xffffffff once node `to`'s list is in: adding one edge to such a
  /// node finds a duplicate without reading its list (add_preds). A cache of `nodes`, rebuilt per
  /// node when missing: copies start without it.
  std::unordered_set<std::uint64_t> long_edges;

  std::vector<KernelData> kernels;
  std::vector<KernelLinks> kernel_links;            ///< per kernel, same index as `kernels`: layout and placeholders
  std::vector<KernelAttributes> kernel_attributes;  ///< sorted by kernel; only kernels that have attributes
  std::vector<EdgeKindData>
      edge_kinds;  ///< sorted by (to, from); only edges that are not full (the edge is in preds too)
  std::vector<unsigned char> args;
  std::vector<cudaMemsetParams> memsets;
  std::vector<ScalarType> memset_types;  ///< per memset: the element type of its value (for dumps)
  std::vector<cudaMemcpy3DParms> memcpys;
  std::vector<std::shared_ptr<HostClosure>> hosts;
  std::vector<std::shared_ptr<const GraphImpl>> children;
  std::vector<Event> events;                    ///< for event record and event wait nodes
  std::vector<ConditionData> conditions;        ///< declared here (add_condition)
  std::vector<KernelPlaceholder> placeholders;  ///< Condition arguments of the kernels
  std::vector<ConditionalData> conditionals;
  std::vector<CaptureData> captures;
  std::vector<AllocData> allocs;
  std::vector<std::uint32_t> frees;  ///< per mem_free node: its mem_alloc node, or ConditionRef::unresolved
  std::vector<BufferUse> buffer_uses;
  std::vector<PeerCopy> peer_copies;     ///< memcpy nodes made by add_memcpy_peer, in node order
  std::vector<SymbolUse> symbol_uses;    ///< memcpy nodes made by add_memcpy_to/from_symbol, in node order
  std::vector<DeclaredAccess> declared;  ///< gd::reads / gd::writes ranges (check_races), in node order
  std::vector<ParamData> params;         ///< declared here (Graph::parameter), in declaration order
  /// (uid, index in `params`) of every entry of `params`, sorted by uid: param_index's binary search.
  /// Kept by push_param() and truncate_params().
  std::vector<std::pair<std::uint64_t, std::uint32_t>> param_order;
  /// The records of node kinds that keep trivially copyable data (put_records / get_record): a
  /// kind added through the kind table keeps its nodes' parameters here, NodeData::payload being the
  /// byte offset of the node's record, so that it adds no field to this struct.
  std::vector<unsigned char> records;
  int default_device = -1;  ///< the device new nodes are placed on (Graph::set_default_device)
  /// While a body is being built: the link to the plan it belongs to. Not copied.
  std::shared_ptr<ParentLink> parent;
  /// Shared with the Parameters of this plan; cleared by the destructor. A copy gets its own.
  SharedRef<PlanToken> token;
  Sealed sealed = Sealed::no;      ///< not copied: a copy is a new, changeable plan
  std::uint32_t depth = 0;         ///< nesting levels below this plan (0: it embeds no plan)
  std::uint64_t nested_nodes = 0;  ///< nodes of embedded plans, at every level, each embedding counted
  std::uint32_t held_kinds = 0;    ///< bit k: a node of kind k here or in a child plan (not in bodies)
  /// Whether this plan (or a child plan it embeds, at any depth; not bodies) holds a node of `kind`.
  bool holds(NodeKind kind) const noexcept { return (held_kinds >> static_cast<unsigned>(kind)) & 1u; }

  /// Records that the plans `inner` are embedded (as child plans when `child`, else as bodies).
  /// @throws UsageError, changing nothing, beyond max_nesting_depth or max_embedded_nodes; `what`
  /// names the call.
  void embed(const std::vector<const GraphImpl*>& inner, bool child, const std::string& what);

  /// What the handle of node `index` is made of.
  NodeRef handle(std::uint32_t index) const noexcept { return NodeRef{id, slot, index}; }
  /// Appends a node of `kind` whose parameters are at `payload` in the per-kind vector.
  NodeRef push(NodeKind kind, std::size_t payload);
  /// The name of node `index` ("" when it has none).
  const std::string& node_name(std::uint32_t index) const noexcept {
    return index < names.size() ? names[index] : no_name();
  }
  /// Names node `index` (an empty name: no name).
  void set_node_name(std::uint32_t index, std::string_view text) {
    if (index >= names.size()) {
      if (text.empty()) return;
      names.resize(index + 1);
    }
    names[index].assign(text.data(), text.size());
  }
  /// The empty name.
  static const std::string& no_name() noexcept {
    static const std::string empty;
    return empty;
  }
  /// The NodeInfo of node `index` (for messages).
  NodeInfo info(std::uint32_t index) const;
  /// Where `c` is declared, seen from this plan (walking `parent` links; levels <= max_nesting_depth).
  ConditionRef resolve(const Condition& c) const;
  /// The mem_alloc node of graph buffer `uid` in this plan, or ConditionRef::unresolved.
  std::uint32_t alloc_node(std::uint64_t uid) const;
  /// The index of parameter `uid` in `params`, or ConditionRef::unresolved.
  std::uint32_t param_index(std::uint64_t uid) const;
  /// "'lr'" (quoted) or "#0" for an unnamed parameter: how messages and dumps name parameter k.
  std::string param_ref(std::uint32_t k) const;
  /// The peer-copy record of memcpy node `index`, or nullptr.
  const PeerCopy* peer_copy(std::uint32_t index) const;
  /// The symbol record of memcpy node `index`, or nullptr.
  const SymbolUse* symbol_use(std::uint32_t index) const;
};

/// Placeholder argument c (< l.ph_count) of the kernel whose links are `l` (of g): a Condition or a
/// GraphBuffer.
inline const KernelPlaceholder& kernel_placeholder(const GraphImpl& g, const KernelLinks& l, std::uint32_t c) noexcept {
  return g.placeholders[l.ph_first + c];
}

/// Predecessor lists up to this long are searched for a duplicate edge; longer ones are indexed
/// (GraphImpl::long_edges).
inline constexpr std::uint32_t long_preds = 64;

/// Adds the edges from[k] -> to (node indices of g, checked by the caller) that g does not hold yet,
/// to both ends' lists and g.edge_count. O(count) time, and O(count + the list's length) the first
/// time a long list is indexed. All or none: on std::bad_alloc the edges it added are removed.
void add_preds(GraphImpl& g, std::uint32_t to, const Node* from, std::size_t count);
/// Removes the last edge into node `to` (its last predecessor), undoing the last edge add_preds
/// added there: the caller undoes edges in the reverse order of their adding.
void pop_edge(GraphImpl& g, std::uint32_t to) noexcept;

/// Appends entry `d` to g.params (its uid not there yet) and returns its index. Strong guarantee.
std::uint32_t push_param(GraphImpl& g, ParamData d);
/// Drops the entries of g.params from `size` on.
void truncate_params(GraphImpl& g, std::size_t size) noexcept;

/// Throws the UsageError of a plan whose node records would pass 4 GiB.
[[noreturn]] void throw_records_full();

/// Appends `count` objects of trivially copyable T to g.records and returns the offset of the first
/// (a node's payload). @throws UsageError when the records would pass 4 GiB (a payload is 32 bits).
template <class T>
std::uint32_t put_records(GraphImpl& g, const T* items, std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T>, "node records are copied byte-wise");
  const std::size_t at = g.records.size();
  if (count > (std::size_t{0xffffffffu} - at) / sizeof(T)) throw_records_full();
  g.records.resize(at + count * sizeof(T));
  if (count != 0) std::memcpy(g.records.data() + at, items, count * sizeof(T));
  return static_cast<std::uint32_t>(at);
}

/// The k-th T of the records that start at `offset` (put_records' result).
template <class T>
T get_record(const GraphImpl& g, std::size_t offset, std::size_t k = 0) noexcept {
  T value;
  std::memcpy(&value, g.records.data() + offset + k * sizeof(T), sizeof(T));
  return value;
}

/// Overwrites the k-th T of the records that start at `offset`.
template <class T>
void set_record(GraphImpl& g, std::size_t offset, std::size_t k, const T& value) noexcept {
  std::memcpy(g.records.data() + offset + k * sizeof(T), &value, sizeof(T));
}

/// The plan nested in g that `u` names (a child plan or a conditional body), writable: a nested plan
/// that holds parameter entries belongs to one plan, whose owner may change it (Executable::set).
GraphImpl& nested_plan(const GraphImpl& g, const NestedUse& u);
/// Records that `inner`, embedded in node `node` of g (body `slot` of a conditional node, 0 for a
/// child plan), uses parameters: each gets the nested use in g's entry, which is added (declared =
/// false) when g has none. Called by add_child and add_conditional once `inner` is complete.
void adopt_parameters(GraphImpl& g, std::uint32_t node, std::uint32_t slot, const GraphImpl& inner);

/// Replaces g's nested plans that use parameters by copies of them (GraphImpl's copy constructor):
/// Executable::set writes parameter values into the recorded plan's nested plans (nested_plan),
/// which no other plan may share.
void own_parameter_plans(GraphImpl& g);

/// True when `g` or a plan it holds places a node on a device or makes a peer copy.
bool uses_devices(const GraphImpl& g);

/// The kind of edge from -> to (full when it is not in g.edge_kinds).
EdgeKind edge_kind(const GraphImpl& g, std::uint32_t from, std::uint32_t to) noexcept;

/// The launch attributes of kernel `kernel` (an index into g.kernels), or nullptr when it has none.
const KernelAttributes* attributes_of(const GraphImpl& g, std::uint32_t kernel) noexcept;
/// The whole Launch of kernel `kernel`: its shape and its attributes.
Launch launch_of(const GraphImpl& g, std::uint32_t kernel);
/// Stores `l` as kernel `kernel`'s launch: the shape in the record, the attributes aside.
void store_launch(GraphImpl& g, std::uint32_t kernel, const Launch& l);
/// Whether kernel `kernel` (an index into g.kernels) is device-updatable.
bool device_updatable(const GraphImpl& g, std::uint32_t kernel) noexcept;
/// The first node of `g` (top level only) that is a device-updatable kernel node, or
/// ConditionRef::unresolved when there is none (O(1) for a plan without launch attributes).
std::uint32_t first_device_updatable(const GraphImpl& g) noexcept;

}  // namespace graphdsl::detail
