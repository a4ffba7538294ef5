// plan/graph_impl.hpp — the storage of a plan (the plan layer's; not a public header).
//
// One vector of nodes (kind, payload index, predecessor list), the node names apart, plus the
// stores of the node kinds' records (plan/records/stores.def lists every store; each record type is
// in plan/records/<kind>.hpp), so a kernel node costs only what a kernel needs.
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
#include "plan/records/captured.hpp"
#include "plan/records/conditional.hpp"
#include "plan/records/kernel.hpp"
#include "plan/records/mem_alloc.hpp"
#include "plan/records/memcpy.hpp"
#include "plan/records/plan.hpp"

namespace graphdsl::detail {

struct GraphImpl;

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

/// The data of a plan: one vector per line of plan/records/stores.def, and what follows from
/// them. Copying it copies the plan's nodes, edges, parameters and names; GraphImpl adds what makes a
/// plan itself (its id, liveness token, seal), which a copy does not take.
struct PlanStores {
#define GRAPHDSL_STORE(owner, member, element, on_update, on_remove) std::vector<element> member;
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE

  std::size_t edge_count = 0;
  /// Successors by node index: the reverse of NodeData::preds (each list in the order its edges were
  /// added), so that Graph::successors() costs what it returns. Kept by push() and add_preds().
  std::vector<SmallVec> succs;
  /// (uid, index in `params`) of every entry of `params`, sorted by uid: param_index's binary search.
  /// Kept by push_param() and truncate_params().
  std::vector<std::pair<std::uint64_t, std::uint32_t>> param_order;
  /// Only in a plan copied out of another with body_plan() or child_plan(): the enclosing conditions
  /// its nodes referred to there (rules.cpp checks them where the copy is embedded). Not compared by
  /// diff() or fingerprint(): it says where the plan came from, not what it does.
  std::vector<OuterBinding> outer_bindings;
  int default_device = -1;         ///< the device new nodes are placed on (Graph::set_default_device)
  std::uint32_t depth = 0;         ///< nesting levels below this plan (0: it embeds no plan)
  std::uint64_t nested_nodes = 0;  ///< nodes of embedded plans, at every level, each embedding counted
  std::uint32_t held_kinds = 0;    ///< bit k: a node of kind k here or in a child plan (not in bodies)
  /// Bytes of `args` that no kernel's block uses: left behind when an executable's kernel took a
  /// kernel of another signature (swap_kernel, plan/records/kernel_access.hpp), until
  /// tidy_arguments packs the blocks again.
  std::uint64_t unused_args = 0;
  /// Tombstones among `nodes` (Graph::remove_node, NodeData::removed). remove_node counts depth,
  /// nested_nodes and held_kinds again when it removes a child, conditional or graph-memory node;
  /// after other removals held_kinds may name a kind the plan no longer holds.
  std::uint32_t removed_nodes = 0;
};

/// The stores of plan/records/stores.def, by position.
enum class StoreId : std::uint8_t {
#define GRAPHDSL_STORE(owner, member, element, on_update, on_remove) member,
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE
};
/// The number of stores.
inline constexpr std::size_t store_count = 0
#define GRAPHDSL_STORE(owner, member, element, on_update, on_remove) +1
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE
    ;

/// Calls f(store, id) for every store of `s` (a PlanStores, const or not), in stores.def's order.
template <class Stores, class F>
void for_each_store(Stores& s, F&& f) {
#define GRAPHDSL_STORE(owner, member, element, on_update, on_remove) f(s.member, StoreId::member);
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE
}

/// The sizes of a plan's stores and its running totals when an add_* began (kept by Graph::Change):
/// going back to them undoes an add_* that failed part way (plan/savepoint.cpp).
struct PlanMark {
  /// By StoreId. Not zeroed: mark_of writes every entry (zeroing them first cost every add_* a
  /// `rep stos` of 224 bytes, about a tenth of adding a kernel node).
  std::size_t sizes[store_count];
  std::uint32_t depth = 0;
  std::uint64_t nested_nodes = 0;
  std::uint32_t held_kinds = 0;
};

/// Why a plan no longer changes through node handles.
enum class Sealed : std::uint8_t {
  no,
  body,      ///< a conditional body whose builder has returned (shared by copies of the plan)
  recorded,  ///< an executable's recorded plan (Executable::plan())
  child,     ///< a plan moved into a child node (Graph::add_child(Graph&&); shared by copies of the plan)
};

struct GraphImpl : PlanStores {
  explicit GraphImpl(std::string graph_name);
  /// A copy is a new plan with the same data (PlanStores), a new id and token, unsealed, and with
  /// no link to a plan enclosing `other`.
  GraphImpl(const GraphImpl& other);
  GraphImpl& operator=(const GraphImpl&) = delete;
  ~GraphImpl();

  std::uint64_t id;
  std::uint32_t slot = 0;  ///< this plan's entry in the plan table (plan/handles.hpp), taken last by the constructors
  std::uint64_t copied_from = 0;  ///< the id of the plan this one is a copy of (0: none), for messages
  std::string name;
  /// The edges into nodes whose predecessor lists grew long (over long_preds entries), as
  /// to << 32 | from, and to << 32 | 0xffffffff once node `to`'s list is in: adding one edge to such a
  /// node finds a duplicate without reading its list (add_preds). A cache of `nodes`, rebuilt per
  /// node when missing: copies start without it.
  std::unordered_set<std::uint64_t> long_edges;
  /// While a body is being built: the link to the plan it belongs to. Not copied.
  std::shared_ptr<ParentLink> parent;
  /// Shared with the Parameters of this plan; cleared by the destructor. A copy gets its own.
  SharedRef<PlanToken> token;
  Sealed sealed = Sealed::no;  ///< not copied: a copy is a new, changeable plan
  /// An executable's recorded plan (Sealed::recorded): the id of the plan it was compiled from, whose
  /// node handles its getters accept as its own (own_index; the setters do too); 0 otherwise. Not copied.
  std::uint64_t recorded_from = 0;
  /// What this plan holds, as a number no other content of any plan had (content_stamp,
  /// plan/token.cpp), or 0: not yet stamped, or possibly changed since. Every way to change a plan
  /// clears it: Graph::impl() (the non-const one: every mutating member of Graph), live_plan (node
  /// handles, the rollback of a failed add) and parameter_of (Parameter handles); a const Graph
  /// yields only a const GraphImpl. Not copied: a copy starts at 0. Atomic because set_child stamps
  /// a plan it only reads, which other threads may read at the same time. Executable::set_child(node,
  /// plan) finds the graph it kept for a plan by this stamp without comparing the plans
  /// (exec/child_cache.cpp).
  mutable std::atomic<std::uint64_t> stamp{0};
  /// The content stamp, stamping the plan first when it has none (thread-safe for readers).
  std::uint64_t content_stamp() const noexcept;
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
  /// Where graph buffer `uid` is allocated, seen from this plan: {0, node} for its own mem_alloc
  /// node, {k, node} for one of the plan k levels out (walking `parent` links, as resolve does), or
  /// unresolved (plan/nested_buffers.cpp).
  ConditionRef resolve_buffer(std::uint64_t uid) const;
  /// The index of parameter `uid` in `params`, or ConditionRef::unresolved.
  std::uint32_t param_index(std::uint64_t uid) const;
  /// "'lr'" (quoted) or "#0" for an unnamed parameter: how messages and dumps name parameter k.
  std::string param_ref(std::uint32_t k) const;
  /// The peer-copy record of memcpy node `index`, or nullptr.
  const PeerCopy* peer_copy(std::uint32_t index) const;
  /// The symbol record of memcpy node `index`, or nullptr.
  const SymbolUse* symbol_use(std::uint32_t index) const;
};

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
/// Removes the edge from -> to, which g holds, from both ends' lists, the index, the edge kinds and
/// g.edge_count (the other edges keep their order).
void remove_pred(GraphImpl& g, std::uint32_t to, std::uint32_t from) noexcept;
/// Removes every edge into `to` from a node f with !keep[f] (keep: one flag per node of g), in one
/// pass over to's list (the kept edges keep their order).
void remove_preds_except(GraphImpl& g, std::uint32_t to, const std::vector<bool>& keep) noexcept;

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

}  // namespace graphdsl::detail

#include "plan/records/kernel_access.hpp"  // the kernel records as every layer reads them
