// src/native/native.hpp — owners of the native CUDA objects graphdsl creates, and the executable's state.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "graphdsl/detail/unique_handle.hpp"
#include "graphdsl/graph.hpp"
#include "native/cuda_call.hpp"
#include "native/event_state.hpp"
#include "plan/graph_impl.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl::detail {

/// The cudaEvent_t of `e` in `out`, created now if it does not exist yet (null for an empty Event).
/// Returns the error of cudaEventCreateWithFlags, for callers that name the node.
inline cudaError_t native_event(const Event& e, cudaEvent_t& out) noexcept {
  out = nullptr;
  return e ? e.state()->try_get(out) : cudaSuccess;
}

struct GraphTraits {
  static void destroy(cudaGraph_t g) noexcept;
};
struct ExecTraits {
  static void destroy(cudaGraphExec_t e) noexcept;
};
struct StreamTraits {
  static void destroy(cudaStream_t s) noexcept;
};
/// Owns a cudaStream_t.
using NativeStream = UniqueHandle<cudaStream_t, StreamTraits>;
/// Owns a cudaGraph_t (counted in live_counts().native_graphs).
using NativeGraph = UniqueHandle<cudaGraph_t, GraphTraits>;
/// Owns a cudaGraphExec_t (counted in live_counts().executables).
using NativeExec = UniqueHandle<cudaGraphExec_t, ExecTraits>;

/// While alive, this thread's CUDA calls do not interact with stream captures of other streams
/// (cudaThreadExchangeStreamCaptureMode to relaxed). Destroying or instantiating a graph is an
/// "unsafe" call that would otherwise invalidate a global-mode capture running anywhere in the
/// process (CUDA's rule for global-mode captures, cudaStreamCaptureModeGlobal); graphdsl's own such calls are made
/// under this guard. Guards nest: only the outermost on a thread exchanges the mode.
class RelaxedCaptureCalls {
 public:
  RelaxedCaptureCalls() noexcept;
  ~RelaxedCaptureCalls();
  RelaxedCaptureCalls(const RelaxedCaptureCalls&) = delete;
  RelaxedCaptureCalls& operator=(const RelaxedCaptureCalls&) = delete;

 private:
  cudaStreamCaptureMode previous_ = cudaStreamCaptureModeRelaxed;
  bool exchanged_ = false;
};

/// cudaGraphCreate through the checked path.
NativeGraph create_native_graph();

/// Records that CUDA itself destroyed graph `g`, whose NativeGraph owner is about to be unwound on
/// this thread: a cudaStreamBeginCaptureToGraph capture that fails at its end (invalidated by an
/// unsafe call, or left unjoined) takes the graph it captured into with it, and destroying that
/// handle again corrupts the heap (the raw-CUDA probe in tests/gpu/capture_test.cpp pins this).
/// The owner then drops its count and makes no CUDA call (GraphTraits::destroy).
void graph_destroyed_by_cuda(cudaGraph_t g) noexcept;

/// Where host callbacks of one executable leave the first exception they throw.
struct HostErrorSink {
  void store(std::exception_ptr e) noexcept;
  std::exception_ptr take() noexcept;
  std::atomic<bool> pending{false};

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
};

/// What a host node's userData points at: a swappable callable and the executable's error sink.
/// Owned by CUDA user objects, so it lives as long as a graph or executable can run the node.
struct HostSlot {
  std::shared_ptr<HostClosure> fn;  ///< read and swapped with std::atomic_load / std::atomic_store
  std::shared_ptr<HostErrorSink> sink;
};
/// The slot of each top-level host node, indexed like GraphImpl::hosts.
using HostSlots = std::vector<HostSlot*>;

/// Everything one materialized graph keeps alive for its executables: host slots, events, and the
/// events setters give later. (A child plan patched in later keeps its own on its own graph: an
/// executable retains the user objects of the graph cudaGraphExecChildGraphNodeSetParams or
/// cudaGraphExecUpdate takes parameters from, checked on an H200.) Owned by ONE CUDA user object retained by the
/// graph (so by every executable instantiated or updated from it, and by their launches in flight
/// after the executable is destroyed): one user object per executable, not one per closure or event.
/// Not synchronized: changed only through its executable, which is used from one thread at a time.
struct KeepAlive {
  /// Keeps `p` alive as long as the box.
  void add(std::shared_ptr<const void> p) { items.push_back(std::move(p)); }
  /// The same for an event's state (one reference of the box's own).
  void add(const SharedRef<EventState>& e) { add(keep_ref(e)); }
  /// A shared_ptr that owns one reference to `e`: what the box and add_given hold.
  static std::shared_ptr<const void> keep_ref(const SharedRef<EventState>& e) {
    return std::shared_ptr<const void>(e.get(), [ref = e](const void*) mutable { ref.reset(); });
  }
  /// The same for what setters and updates give an executable: a pointer given before is not
  /// added again (setting the same events over and over does not grow the box).
  void add_given(std::shared_ptr<const void> p);
  /// The same for an event's state: nothing is allocated for an event given before.
  void add_given(const SharedRef<EventState>& e) {
    if (e && given.count(e.get()) == 0) add_given(keep_ref(e));
  }
  std::vector<std::shared_ptr<const void>> items;
  std::unordered_set<const void*> given;
};

/// The native nodes of a plan nested in a materialized plan (a child plan or a conditional body)
/// that uses parameters (GraphImpl::params not empty): what Executable::set patches there.
struct NestedNative {
  std::uint32_t parent;  ///< the index of the enclosing nested plan's entry; ConditionRef::unresolved: top level
  std::uint32_t node;    ///< the node of the enclosing plan that embeds it
  std::uint32_t slot;    ///< the body of that conditional node (0 for a child plan)
  std::vector<cudaGraphNode_t> nodes;               ///< per node of the nested plan
  std::vector<cudaGraphConditionalHandle> handles;  ///< of its conditions (kernels with Condition arguments)
  std::string where;                                ///< "in body 0 ('while body') of ..." for messages
};

/// Where the nodes of one plan nested in a materialized plan were created (every child plan and
/// conditional body, at any depth): what profile() (src/profile/) maps CUPTI's graph node ids back
/// to plan nodes with. Recording it moves the node list build() made anyway.
struct NestedLayout {
  std::uint32_t
      parent;  ///< the enclosing nested plan's entry in Materialized::layouts; ConditionRef::unresolved: top level
  std::uint32_t node;  ///< the node of the enclosing plan that embeds it
  std::uint32_t slot;  ///< the body of that conditional node (0 for a child plan)
  /// The graph its nodes were added to: a conditional body (owned by its node), a child graph moved
  /// into its node, or a child graph that cudaGraphAddChildGraphNode cloned and that is destroyed
  /// since (then not the node's graph: cudaGraphChildGraphNodeGetGraph tells them apart).
  cudaGraph_t graph;
  std::vector<cudaGraphNode_t> nodes;  ///< per node of the nested plan, in `graph`
};

/// A plan materialized as a cudaGraph_t; nodes[i] is the native node of top-level plan node i.
struct Materialized {
  NativeGraph graph;
  /// What `graph` retains (null when the plan needs nothing kept alive and cannot be given anything
  /// to keep by a setter: no host, event, child or conditional node at the top level).
  std::shared_ptr<KeepAlive> keep;
  std::vector<cudaGraphNode_t> nodes;
  HostSlots host_slots;
  std::vector<cudaGraphConditionalHandle> handles;  ///< of the top-level plan's conditions
  std::vector<void*> dptrs;          ///< per top-level node: a mem_alloc node's address (empty: the plan has none)
  std::vector<NestedNative> nested;  ///< in the order built (an entry before those it encloses)
  /// The indices of `nested` sorted by (parent, node, slot): find_nested looks an entry up in
  /// O(log entries), so that setting a parameter used in b bodies costs O(b log b), not O(b^2).
  std::vector<std::uint32_t> nested_by_key;
  std::vector<NestedLayout> layouts;  ///< every nested plan, in the order built (an entry before those it encloses)
};

/// The entry of m.nested for the plan nested in body `slot` of node `node` of the plan whose entry
/// is `parent` (ConditionRef::unresolved: the top level), or ConditionRef::unresolved.
std::uint32_t find_nested(const Materialized& m, std::uint32_t parent, std::uint32_t node, std::uint32_t slot) noexcept;

/// Condition handles visible while building a plan: one entry per enclosing plan, outermost first.
using HandleScopes = std::vector<std::vector<cudaGraphConditionalHandle>>;

/// The parameters of memset node i with graph buffers replaced by their addresses.
cudaMemsetParams memset_params(const GraphImpl& g, std::uint32_t i, const std::vector<void*>& dptrs);
/// The parameters of memcpy node i into `p`, graph buffers replaced by their addresses and a
/// __device__ symbol by its device address (cudaGetSymbolAddress, whose failure is returned).
cudaError_t memcpy_params(const GraphImpl& g, std::uint32_t i, const std::vector<void*>& dptrs, cudaMemcpy3DParms& p);

/// Creates the cudaGraph_t of plan `g` with its nodes in `order` (from check_plan). Host closures
/// and events are retained by the new graph through CUDA user objects, so every executable
/// instantiated from it keeps them alive. On failure the half-built graph is destroyed.
/// @throws CudaError naming the plan node whose creation failed.
/// `enclosing`: for a child plan built to patch a child node, the addresses of the top-level plan's
/// allocations (Materialized::dptrs of the executable), which the child's nodes may use.
/// `sink`: the executable's error sink, made here if null and the plan has a host node.
Materialized materialize(const GraphImpl& g, const std::vector<std::uint32_t>& order,
                         std::shared_ptr<HostErrorSink>& sink, const std::vector<void*>* enclosing = nullptr);

/// A child plan given to Executable::set_child(node, plan) and its materialized graph, kept so that
/// setting an equal plan on that node again is one driver call (exec/child_cache.cpp). A slot of
/// ChildCache: in two lists of slot indices, all entries from least to most recently set, and the
/// entries of its node.
struct CachedChild {
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  std::uint32_t node = 0;                 ///< the child node's index in the executable's plan
  std::uint32_t older = none;             ///< the entry set just before this one (none: the oldest)
  std::uint32_t newer = none;             ///< the entry set just after it; the next free slot in the free list
  std::uint32_t node_prev = none;         ///< the previous entry of the same node
  std::uint32_t node_next = none;         ///< the next entry of the same node
  std::shared_ptr<const GraphImpl> plan;  ///< its copy, shared with the recorded plan (null: a free slot)
  /// The content stamp (GraphImpl::stamp) of the plan last set from it: that plan, unchanged since,
  /// is found without comparing it (0: none).
  std::uint64_t stamp = 0;
  Materialized native;
};

/// set_child(node, plan)'s kept child graphs (exec/child_cache.cpp): finding, keeping, marking set
/// and evicting an entry cost the same whatever the number of entries and of child nodes.
struct ChildCache {
  std::vector<CachedChild> slots;            ///< entries and free slots; indices stay valid
  std::vector<std::uint32_t> node_first;     ///< per plan node: its first entry (sized at the first keep)
  std::uint32_t oldest = CachedChild::none;  ///< least recently set: evicted first
  std::uint32_t newest = CachedChild::none;
  std::uint32_t free = CachedChild::none;  ///< free slots, linked through `newer`
  std::size_t entries = 0;                 ///< slots in use
  std::size_t graph_nodes = 0;             ///< nodes of the kept graphs together
  std::uint32_t limit = 0;                 ///< the entry bound, set at the first keep (0: not yet)
};

/// The CUDA context a single-device plan's kernel nodes are created in, with its unique id, asked
/// of the driver once per materialize rather than twice per kernel node (kinds/kernel_build.cpp,
/// add_kernel_node). Empty (id 0) until the first kernel node.
struct ContextMemo {
  CUctx_st* context = nullptr;
  unsigned long long id = 0;
};

/// The words of ExecImpl::graph_behind, with the subset of std::vector's interface it uses: the
/// first word lives in the object, so that an executable of up to 64 nodes allocates none.
class NodeWords {
 public:
  void assign(std::size_t words, std::uint64_t value) {
    size_ = words;
    first_ = value;
    if (words > 1) {
      rest_.assign(words, value);
    } else {
      rest_.clear();
    }
  }
  std::size_t size() const noexcept { return size_; }
  std::uint64_t* begin() noexcept { return size_ > 1 ? rest_.data() : &first_; }
  std::uint64_t* end() noexcept { return begin() + size_; }
  std::uint64_t& operator[](std::size_t w) noexcept { return begin()[w]; }
  std::uint64_t& back() noexcept { return begin()[size_ - 1]; }

 private:
  std::uint64_t first_ = 0;
  std::size_t size_ = 0;
  std::vector<std::uint64_t> rest_;  ///< all words when there are more than one
};

/// What set_kernel_args and set_launch need to patch one kernel node of a single-device executable,
/// in one cache line: the driver's parameters but the arguments, the layout they are packed as, and
/// where the recorded plan keeps them. A copy of the plan's records (kept with them by the kernel
/// setters' direct path, and dropped by any other change: ExecImpl::setter_epoch), so that the
/// setter reads one line where the plan spreads the same over six; a driver call in between leaves
/// them cold.
struct alignas(64) KernelSetterRecord {
  cudaGraphNode_t node = nullptr;
  CUfunc_st* function = nullptr;  ///< the kernel's CUfunction in the executable's context
  const ArgLayout* layout = nullptr;
  std::uint64_t args = 0;  ///< offset of the node's argument block in the recorded plan's arena
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned int shared_bytes = 0;
  std::uint32_t epoch = 0;  ///< valid while ExecImpl::setter_epoch equals it
};

struct ExecImpl {
  /// Takes the plan it is compiled from, its materialized graph and its error sink (no default: an
  /// empty Graph would allocate a plan only to drop it, a cost every instantiate() of a small graph
  /// paid; and the graph is moved in, not assigned over an empty one).
  ExecImpl(Graph&& compiled_from, Materialized&& built, std::shared_ptr<HostErrorSink>&& errors)
      : plan(std::move(compiled_from)), native(std::move(built)), sink(std::move(errors)) {}

  Graph plan;  ///< the plan the executable was compiled from (a copy)
  Materialized native;
  NativeExec exec;
  /// Where host nodes report what their callables throw: made by materialize with the first host
  /// node built for the executable, so null for a plan that has none. Mutable: a template
  /// materialized by the const prepare_update may be the first to have one.
  mutable std::shared_ptr<HostErrorSink> sink;
  unsigned long long flags = 0;
  /// Plans whose node handles the per-node setters accept: the one compiled from, the recorded
  /// copy, and the template of the last successful update.
  std::uint64_t origin_id = 0;
  std::uint64_t last_template_id = 0;
  /// How often a setter gave a kernel node another function (set_kernel), and the last such node: a
  /// PreparedUpdate prepared before such a change is refused, as update(template) then is
  /// (function_changed).
  std::uint64_t function_changes = 0;
  std::uint32_t function_changed_node = 0;
  /// After a whole-graph update of a plan with conditions: the materialized template whose condition
  /// handles the executable now uses (kept alive with them; shared with a PreparedUpdate's).
  std::shared_ptr<const Materialized> handle_owner;
  /// Alive as long as the executable: a PreparedUpdate or PreparedChild holds a weak reference, to
  /// tell an executable destroyed since from another one. Made by the first of them (alive_token):
  /// an executable that prepares nothing allocates none.
  mutable std::shared_ptr<const int> alive;
  /// The first allocation never freed in the plan: a relaunch that CUDA refuses because the previous
  /// launch's allocation is still live names it (unless compiled with auto_free_on_launch).
  std::optional<NodeInfo> unfreed;
  /// The first captured node whose function allocates (cudaMallocAsync) without freeing: a relaunch
  /// is refused before cudaGraphLaunch, which would fail and, with several captures, leak the
  /// allocations it made before failing (found with compute-sanitizer memcheck).
  std::optional<NodeInfo> unfreed_captured;
  bool launched = false;
  /// Whether the device has the executable as it is: `never` until it is uploaded (upload(),
  /// InstantiateOptions::upload_on, or a host launch, which uploads it), then `done`; a host-side
  /// change (update(), a setter, set_enabled) makes it `stale` until the next upload or host launch.
  /// Device launch (Executable::device_graph) needs `done`; so does launching an executable with
  /// device-updatable nodes, whose launch() uploads it first when it is not.
  enum class Upload : std::uint8_t { never, done, stale } upload = Upload::never;
  /// The plan has device-updatable kernel nodes (exec/device_update.hpp): no cudaGraphExecUpdate,
  /// and CUDA wants it uploaded before a launch after instantiation and after host-side changes.
  bool device_updatable = false;
  /// The epoch of the kernel setters' records (setter_records): advanced by every change of the
  /// executable (mark_changed) but the kernel setters' own, which keep their node's record in step.
  /// Next to `upload`, which mark_changed writes too (and in its padding).
  std::uint32_t setter_epoch = 1;
  /// The kernel setters' driver path: the last kernel it looked up and its CUfunction
  /// (cached_function), so that repeated setters on one kernel look nothing up, and the context it
  /// was looked up in (a CUfunction belongs to one context: exec/kernel_driver.cpp, setter_function).
  KernelLookup setter_kernel;
  CUctx_st* setter_context = nullptr;
  /// Set while launch() is inside cudaGraphLaunch of this executable. A host node of the launch
  /// may destroy the executable before that call returns (a callback deleting its own
  /// executable); the release thread then deletes it only once this is clear (ExecImplDelete).
  std::atomic<bool> launching{false};
  /// Bit i: top-level node i of `native.graph` may hold other parameters than the executable (a
  /// per-node setter or per-node update patched the executable alone, or a whole-graph update came
  /// from another cudaGraph_t). A whole-graph update from native.graph patches these nodes there
  /// first (exec/update.cpp). One bit per node, sized when the executable is compiled.
  NodeWords graph_behind;
  /// A whole-graph update from another cudaGraph_t may have changed kernel nodes' priorities and
  /// launch attributes, which native.graph does not have: bringing a node in step writes them too.
  bool attributes_behind = false;
  /// The CUDA context every node of the executable was created in, when the plan places no node on
  /// a device (compile: the context current then); null otherwise. The driver's memset and memcpy
  /// setters take the node's context: this one spares them a cuCtxGetCurrent per call (exec/setters.cpp).
  CUctx_st* context = nullptr;
  /// Checked copies (InstantiateOptions::check_copies): per top-level memcpy node, which ends were
  /// device memory when compiled (bit 0: the source, bit 1: the destination); empty when unchecked.
  /// exec/copy_check.cpp reads it before every per-node copy change.
  std::vector<std::pair<cudaGraphNode_t, std::uint8_t>> device_copy_ends;
  bool check_copies = false;
  /// set_child(node, plan)'s last child plans with their graphs, least recently set evicted first
  /// (bounded: exec/child_cache.hpp).
  ChildCache child_cache;
  /// The kernel setters' records (KernelSetterRecord), one per top-level node, made by the first
  /// set_kernel_args or set_launch that patches a node through the driver; empty until then. A
  /// record is valid while its epoch is `setter_epoch`. Last: the fields before it keep their
  /// places, which the other setters' hot paths read.
  std::vector<KernelSetterRecord> setter_records;
};

/// Marks an executable's `launching` flag for the lifetime of a launch() call's cudaGraphLaunch,
/// clearing it on return or when a failure throws. Sequentially consistent: the flag is visible
/// before the launched work can run a host node that deletes the executable.
class Launching {
 public:
  explicit Launching(std::atomic<bool>& flag) noexcept : flag_(flag) { flag_.store(true, std::memory_order_seq_cst); }
  ~Launching() { flag_.store(false, std::memory_order_release); }
  Launching(const Launching&) = delete;
  Launching& operator=(const Launching&) = delete;

 private:
  std::atomic<bool>& flag_;
};

/// x's liveness token (ExecImpl::alive), made on first use.
inline const std::shared_ptr<const int>& alive_token(const ExecImpl& x) {
  if (!x.alive) x.alive = std::make_shared<const int>(0);
  return x.alive;
}

/// Records a host-side change of the executable: a device launch needs it uploaded again, and the
/// kernel setters' records may no longer say what the plan does (a new epoch). Called once per
/// operation that changes it, before its driver call (exec/patch.hpp says which).
inline void mark_changed(ExecImpl& x) noexcept {
  if (x.upload == ExecImpl::Upload::done) x.upload = ExecImpl::Upload::stale;
  if (++x.setter_epoch == 0) {  // after 2^32 changes: no record made an epoch ago may match again
    x.setter_epoch = 1;
    x.setter_records.clear();  // keeps the storage: the next record made allocates nothing
  }
}

/// The executable's recorded plan, to read: unlike x.plan.impl() on a non-const ExecImpl, it
/// leaves the plan's content stamp (plan/graph_impl.hpp) alone, which the setters' hot paths need
/// not clear when they only read.
inline const GraphImpl& recorded_plan(const ExecImpl& x) { return x.plan.impl(); }

/// Words of ExecImpl::graph_behind for an executable of n top-level nodes.
inline std::size_t graph_behind_words(std::size_t n) noexcept { return (n + 63) / 64; }

/// Whether x's graph_behind has one bit per top-level node (sized when it was compiled).
inline bool has_graph_behind(const ExecImpl& x) noexcept {
  return x.graph_behind.size() == graph_behind_words(x.native.nodes.size());
}

/// Marks top-level node i of native.graph behind the executable.
inline void mark_node_behind(ExecImpl& x, std::uint32_t i) noexcept {
  if (i / 64 < x.graph_behind.size()) x.graph_behind[i / 64] |= std::uint64_t{1} << (i % 64);
}

/// mark_changed, for a change of top-level node i that leaves native.graph behind the executable.
inline void mark_node_changed(ExecImpl& x, std::uint32_t i) noexcept {
  mark_changed(x);
  mark_node_behind(x, i);
}

/// mark_node_changed for a change of top-level node i alone that leaves every kernel setter record
/// valid (ExecImpl::setter_records): a kernel setter's direct path, which brings node i's record in
/// step itself, or the direct setter of a node of another kind, which no record describes.
inline void mark_node_patched(ExecImpl& x, std::uint32_t i) noexcept {
  if (x.upload == ExecImpl::Upload::done) x.upload = ExecImpl::Upload::stale;
  mark_node_behind(x, i);
}

/// native.graph is in step with the executable again (after it was written or updated from).
inline void clear_graph_behind(ExecImpl& x) noexcept {
  std::fill(x.graph_behind.begin(), x.graph_behind.end(), 0);
  x.attributes_behind = false;
}

/// Marks every top-level node of x behind in native.graph (after an update from another graph).
inline void mark_graph_behind(ExecImpl& x) noexcept {
  if (!has_graph_behind(x)) return;
  x.attributes_behind = true;
  const std::size_t n = x.native.nodes.size();
  std::fill(x.graph_behind.begin(), x.graph_behind.end(), ~std::uint64_t{0});
  if (n % 64 != 0) x.graph_behind.back() = (std::uint64_t{1} << (n % 64)) - 1;
}

/// Whether a node handle of plan `id` is one x's setters accept: of the plan x was compiled from,
/// of its recorded copy `recorded`, or of the template of its last update (0: an empty handle).
/// Only ids are compared: nothing of the handle's plan is read.
inline bool handle_plan_accepted(const ExecImpl& x, const GraphImpl& recorded, std::uint64_t id) noexcept {
  return id != 0 && (id == x.origin_id || id == plan_id(recorded) || id == x.last_template_id);
}

/// exec_index's checks, each with its message: what exec_index calls when its inline test fails.
/// @throws UsageError naming the node and both plans.
std::uint32_t exec_index_checked(const ExecImpl& x, const Node& node, NodeKind kind);

/// Index of `node` in the executable's plan, checking that it is a handle of the plan the
/// executable was compiled from (or of its last update template) and that its kind is `kind`.
/// Inline (every setter call asks it): the handle's plan id (which it holds itself: nothing of its
/// plan is read), index and kind are tested here, and exec_index_checked says what is wrong when a
/// test fails.
/// @throws UsageError naming the node and both plans.
inline std::uint32_t exec_index(const ExecImpl& x, const Node& node, NodeKind kind) {
  const GraphImpl& plan = x.plan.impl();
  const NodeRef ref = node.ref();
  const std::uint32_t i = ref.index;
  if (handle_plan_accepted(x, plan, ref.plan) && i < node_count(plan) && node_kind(plan, i) == kind) {
    return i;
  }
  return exec_index_checked(x, node, kind);
}

}  // namespace graphdsl::detail
