// src/native/materialize.cpp — plan -> cudaGraph_t: the one place that creates graph nodes (the
// Builder: order, edges, condition handles; what each kind creates is its BuildOps::add, in the
// build section of src/kinds/<kind>.cpp).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda.h>
#include <fmt/format.h>

#include "graphdsl/detail/config.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/kind_build.hpp"
#include "native/native.hpp"
#include "native/reaper.hpp"
#include "plan/counters.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"
#include "plan/thread_scratch.hpp"

namespace graphdsl::detail {

// ---- native owners -----------------------------------------------------------------------------

namespace {
/// How many RelaxedCaptureCalls guards are alive on this thread: only the outermost exchanges the
/// mode (the executable's destruction holds one over its graph's and executable's destruction).
thread_local int relaxed_guards = 0;

/// cudaThreadExchangeStreamCaptureMode through the driver's entry point first: every compile and
/// every destruction of a graph or executable exchanges the mode twice, and the runtime's call
/// costs several times the driver's (the thread's mode is the driver's state either way).
cudaError_t exchange_capture_mode(cudaStreamCaptureMode* mode) noexcept {
  using Exchange = CUresult(cudaStreamCaptureMode*);  // CUstreamCaptureMode has the runtime's values
  static Exchange* const driver = reinterpret_cast<Exchange*>(driver_entry("cuThreadExchangeStreamCaptureMode", 10010));
  return driver_first(driver, cudaThreadExchangeStreamCaptureMode, mode);
}
}  // namespace

RelaxedCaptureCalls::RelaxedCaptureCalls() noexcept {
  if (relaxed_guards++ > 0) return;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  exchanged_ = exchange_capture_mode(&mode) == cudaSuccess;
  previous_ = mode;
}

RelaxedCaptureCalls::~RelaxedCaptureCalls() {
  --relaxed_guards;
  if (exchanged_) (void)exchange_capture_mode(&previous_);
}

namespace {
/// Destroys a graph or an executable; the live counter drops unless CUDA refused the call because
/// it was made on one of its callback threads (the caller then hands the handle to the release thread).
template <class H>
cudaError_t destroy_counted(cudaError_t (*fn)(H), H handle, std::atomic<std::int64_t>& live) noexcept {
  const RelaxedCaptureCalls relaxed;
  const cudaError_t rc = cuda_try(fn, handle);
  if (rc != cudaErrorNotPermitted) live.fetch_sub(1);
  return rc;
}
void destroy_graph_now(cudaGraph_t g) noexcept {
  (void)destroy_counted(&cudaGraphDestroy, g, counters().native_graphs);
}
void destroy_exec_now(cudaGraphExec_t e) noexcept {
  (void)destroy_counted(&cudaGraphExecDestroy, e, counters().executables);
}
}  // namespace

namespace {
/// The graphs CUDA destroyed on this thread whose owners have not let go yet (graph_destroyed_by_cuda):
/// one per failed capture, let go while that failure unwinds; a few slots are plenty.
thread_local std::array<cudaGraph_t, 4> destroyed_by_cuda{};
/// Whether `g` is one of them; forgets it.
bool take_destroyed_by_cuda(cudaGraph_t g) noexcept {
  for (cudaGraph_t& d : destroyed_by_cuda) {
    if (d == g) {
      d = nullptr;
      return true;
    }
  }
  return false;
}
}  // namespace

void graph_destroyed_by_cuda(cudaGraph_t g) noexcept {
  for (cudaGraph_t& d : destroyed_by_cuda) {
    if (d == nullptr) {
      d = g;
      return;
    }
  }
  destroyed_by_cuda[0] = g;
}

// On a CUDA callback thread (a host node whose callable destroys the Executable) the destroy call
// would be refused and leak the object with its graph memory: it is made on the release thread.
void GraphTraits::destroy(cudaGraph_t g) noexcept {
  if (take_destroyed_by_cuda(g)) {
    counters().native_graphs.fetch_sub(1);
    return;
  }
  if (on_callback_thread() ||
      destroy_counted(&cudaGraphDestroy, g, counters().native_graphs) == cudaErrorNotPermitted) {
    destroy_later(g, &destroy_graph_now);
  }
}

void ExecTraits::destroy(cudaGraphExec_t e) noexcept {
  if (on_callback_thread() ||
      destroy_counted(&cudaGraphExecDestroy, e, counters().executables) == cudaErrorNotPermitted) {
    destroy_later(e, &destroy_exec_now);
  }
}

void StreamTraits::destroy(cudaStream_t s) noexcept { (void)cuda_try(cudaStreamDestroy, s); }

NativeGraph create_native_graph() {
  cudaGraph_t g = nullptr;
  GRAPHDSL_CHECK(cudaGraphCreate, &g, 0u);
  (void)take_destroyed_by_cuda(g);  // a new graph where one that CUDA destroyed was
  counters().native_graphs.fetch_add(1);
  return NativeGraph(g);
}

void HostErrorSink::store(std::exception_ptr e) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!error_) error_ = std::move(e);
  pending.store(true, std::memory_order_release);
}

std::exception_ptr HostErrorSink::take() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  pending.store(false, std::memory_order_release);
  return std::exchange(error_, nullptr);
}

cudaMemsetParams memset_params(const GraphImpl& g, std::uint32_t i, const std::vector<void*>& dptrs) {
  cudaMemsetParams p = memset_of(g, i);
  // A buffer's pointer field holds its byte offset in the allocation (a slice's; 0 for a whole buffer).
  for (const BufferUse& u : buffer_uses_of(g, i)) {
    p.dst = static_cast<char*>(dptrs[u.alloc_node]) + reinterpret_cast<std::uintptr_t>(p.dst);
  }
  return p;
}

cudaError_t memcpy_params(const GraphImpl& g, std::uint32_t i, const std::vector<void*>& dptrs, cudaMemcpy3DParms& p) {
  p = memcpy_of(g, i);
  for (const BufferUse& u : buffer_uses_of(g, i)) {
    void*& ptr = (u.field == BufferField::memcpy_src ? p.srcPtr : p.dstPtr).ptr;
    ptr = static_cast<char*>(dptrs[u.alloc_node]) + reinterpret_cast<std::uintptr_t>(ptr);
  }
  if (const SymbolUse* s = g.symbol_use(i)) {
    void* base = nullptr;
    if (const cudaError_t rc = cuda_try(cudaGetSymbolAddress, &base, s->symbol); rc != cudaSuccess) return rc;
    (s->field == BufferField::memcpy_src ? p.srcPtr : p.dstPtr).ptr = static_cast<char*>(base) + s->offset;
  }
  return cudaSuccess;
}

namespace {

// ---- keep-alives through CUDA user objects -----------------------------------------------------

}  // namespace

void KeepAlive::add_given(std::shared_ptr<const void> p) {
  if (p != nullptr && given.insert(p.get()).second) items.push_back(std::move(p));
}

namespace {

/// The user object's destructor: runs on a CUDA thread, so the last reference (whose destructor
/// may call CUDA, e.g. cudaEventDestroy) is handed to graphdsl's release thread.
void CUDART_CB release_keep_alive(void* p) {
  const OnCallbackThread callback;
  auto* heap = static_cast<std::shared_ptr<const void>*>(p);
  release_later(std::move(*heap));
  delete heap;
}

/// Makes `root` (and every executable instantiated from it) share ownership of `keep`.
void retain_on_graph(cudaGraph_t root, std::shared_ptr<const void> keep, const std::optional<NodeInfo>& where) {
  auto* heap = new std::shared_ptr<const void>(std::move(keep));
  cudaUserObject_t obj = nullptr;
  cudaError_t rc = cuda_try(cudaUserObjectCreate, &obj, static_cast<void*>(heap), &release_keep_alive, 1u,
                            static_cast<unsigned>(cudaUserObjectNoDestructorSync));
  if (rc != cudaSuccess) {
    delete heap;
    throw_cuda(rc, "cudaUserObjectCreate", where);
  }
  rc = cuda_try(cudaGraphRetainUserObject, root, obj, 1u, static_cast<unsigned>(cudaGraphUserObjectMove));
  if (rc != cudaSuccess) {
    (void)cuda_try(cudaUserObjectRelease, obj, 1u);  // runs release_keep_alive
    throw_cuda(rc, "cudaGraphRetainUserObject", where);
  }
}

}  // namespace

// ---- node creation -----------------------------------------------------------------------------

namespace {

/// What node i of `g` holds of conditional nodes, itself and its bodies at any depth (child plans
/// hold none: rules.cpp refuses them there): none, conditional nodes but no WHILE, or a WHILE.
enum class HeldConditionals : std::uint8_t { none, some, loop };

HeldConditionals held_conditionals(const GraphImpl& g, std::uint32_t i);

/// The same over every node of `g`.
HeldConditionals held_conditionals(const GraphImpl& g) {
  HeldConditionals most = HeldConditionals::none;
  if (!g.holds(NodeKind::conditional)) return most;
  for (std::uint32_t i = 0; i < node_count(g) && most != HeldConditionals::loop; ++i) {
    most = std::max(most, held_conditionals(g, i));
  }
  return most;
}

HeldConditionals held_conditionals(const GraphImpl& g, std::uint32_t i) {
  const std::optional<ConditionalType> type = conditional_type(g, i);
  if (!type) return HeldConditionals::none;
  HeldConditionals most = *type == ConditionalType::while_loop ? HeldConditionals::loop : HeldConditionals::some;
  for (const auto& body : nested_slots(g, i)) {
    if (most != HeldConditionals::loop) most = std::max(most, held_conditionals(*body));
  }
  return most;
}

/// The nodes of `g` (this level) that are built one after another: flag i set for each node that
/// holds conditional nodes (held_conditionals), when two or more do and one of them holds a WHILE;
/// empty otherwise. With driver 580.159.04 on H100 hosts, a WHILE node that could run at the same
/// time as another conditional node of its graph faulted within a few hundred launches
/// (cudaErrorLaunchFailure, Xid 13 "SKEDCHECK22_INVALIDATE_ACTIVE_QMD"), in raw CUDA too; with the
/// two ordered by an edge it did not (docs/reliability.md, section 12). So the native graph orders
/// each of these nodes after the one built before it, and a WHILE, at this level or nested in a body,
/// never runs beside a conditional node of another branch; the plan keeps its own edges.
std::vector<bool> serial_conditionals(const GraphImpl& g) {
  if (!g.holds(NodeKind::conditional)) return {};
  std::vector<bool> holds(node_count(g));
  std::uint32_t holders = 0;
  bool loop = false;
  for (std::uint32_t i = 0; i < node_count(g); ++i) {
    const HeldConditionals h = held_conditionals(g, i);
    if (h == HeldConditionals::none) continue;
    holds[i] = true;
    ++holders;
    loop |= h == HeldConditionals::loop;
  }
  if (!loop || holders < 2) return {};
  return holds;
}

}  // namespace

void Builder::build(const GraphImpl& g, cudaGraph_t graph, const std::vector<std::uint32_t>& order,
                    std::vector<cudaGraphNode_t>& out) {
  std::vector<cudaGraphConditionalHandle> handles(condition_count(g));
  for (std::size_t k = 0; k < handles.size(); ++k) {
    const ConditionData& c = declared_condition(g, k);
    const cudaError_t rc = cuda_try(cudaGraphConditionalHandleCreate, &handles[k], graph, c.default_value,
                                    c.assign_default ? static_cast<unsigned>(cudaGraphCondAssignDefault) : 0u);
    if (rc != cudaSuccess) {
      throw_cuda(rc, "cudaGraphConditionalHandleCreate", std::nullopt,
                 fmt::format("creating condition number {} of graph {}{}", k, quoted(plan_name(g)),
                             where_.empty() ? "" : " " + where_));
    }
  }
  if (std::exchange(record_handles_, false)) nested_[nested_at_].handles = handles;
  if (scopes_.empty()) {
    root_handles_ = handles;
    // Graph buffers live in the top-level plan, and only its allocation nodes have addresses.
    if (!enclosed_ && g.holds(NodeKind::mem_alloc)) dptrs_.assign(node_count(g), nullptr);
  }
  scopes_.push_back(std::move(handles));
  out.assign(node_count(g), nullptr);
  std::vector<cudaGraphNode_t> deps;
  std::vector<std::uint32_t> kinded;  // predecessors over edges that are not full ones
  const std::vector<bool> serial = serial_conditionals(g);
  std::uint32_t last_conditional = ConditionRef::unresolved;
  for (std::uint32_t i : order) {
    deps.clear();
    kinded.clear();
    for (std::uint32_t p : predecessors(g, i)) {
      if (has_kinded_edges(g) && edge_kind(g, p, i) != EdgeKind::full) {
        kinded.push_back(p);
      } else {
        deps.push_back(out[p]);
      }
    }
    const bool conditional = !serial.empty() && serial[i];
    if (conditional && last_conditional != ConditionRef::unresolved &&
        std::find(deps.begin(), deps.end(), out[last_conditional]) == deps.end()) {
      deps.push_back(out[last_conditional]);  // after the previous holder of conditionals (serial_conditionals)
    }
    out[i] = add(g, i, graph, deps);
    if (conditional) last_conditional = i;
    for (std::uint32_t p : kinded) add_kinded_edge(g, p, i, graph, out[p], out[i]);
  }
  scopes_.pop_back();
}

void Builder::build_nested(std::uint32_t i, std::uint32_t slot, const GraphImpl& inner, cudaGraph_t graph,
                           std::string where) {
  HostSlots* const outer_slots = std::exchange(slots_, nullptr);  // only top-level slots are recorded
  std::string outer_where = std::exchange(where_, std::move(where));
  const std::uint32_t outer_nested = nested_at_;
  const bool record = has_param_entries(inner);
  if (record) {
    nested_.push_back(NestedNative{outer_nested, i, slot, {}, {}, where_});
    nested_at_ = static_cast<std::uint32_t>(nested_.size() - 1);
    record_handles_ = true;
  }
  const std::uint32_t outer_layout = layout_at_;
  layouts_.push_back(NestedLayout{outer_layout, i, slot, graph, {}});
  layout_at_ = static_cast<std::uint32_t>(layouts_.size() - 1);
  std::vector<cudaGraphNode_t> nodes;
  build(inner, graph, creation_order(inner), nodes);
  if (record) nested_[nested_at_].nodes = nodes;
  layouts_[layout_at_] = NestedLayout{outer_layout, i, slot, graph, std::move(nodes)};
  layout_at_ = outer_layout;
  nested_at_ = outer_nested;
  where_ = std::move(outer_where);
  slots_ = outer_slots;
}

namespace {
std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> nested_key(const NestedNative& nested) noexcept {
  return {nested.parent, nested.node, nested.slot};
}
bool nested_key_before(const NestedNative& a, const NestedNative& b) noexcept { return nested_key(a) < nested_key(b); }
}  // namespace

void Builder::take_results(Materialized& m) {
  m.handles = std::move(root_handles_);
  m.dptrs = std::move(dptrs_);
  m.nested = std::move(nested_);
  m.layouts = std::move(layouts_);
  m.nested_by_key.resize(m.nested.size());
  for (std::uint32_t e = 0; e < m.nested.size(); ++e) m.nested_by_key[e] = e;
  std::sort(m.nested_by_key.begin(), m.nested_by_key.end(),
            [&](std::uint32_t a, std::uint32_t b) { return nested_key_before(m.nested[a], m.nested[b]); });
}

std::uint32_t find_nested(const Materialized& m, std::uint32_t parent, std::uint32_t node,
                          std::uint32_t slot) noexcept {
  const NestedNative key{parent, node, slot, {}, {}, {}};
  const auto it = std::lower_bound(m.nested_by_key.begin(), m.nested_by_key.end(), key,
                                   [&](std::uint32_t e, const NestedNative& k) {
                                     return nested_key_before(m.nested[e], k);
                                   });
  if (it == m.nested_by_key.end() || nested_key_before(key, m.nested[*it])) return ConditionRef::unresolved;
  return *it;
}

cudaGraphNode_t Builder::add(const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
                             const std::vector<cudaGraphNode_t>& deps) {
  if (devices_ != nullptr) devices_->use(node_device(g, i, -1));  // -1: the device current at compile time
  const BuildOps& ops = build_ops(node_kind(g, i));
  AddedNode added = ops.add(*this, g, i, graph, deps);
  if (node_kind(g, i) == NodeKind::captured) context_memo_ = ContextMemo{};
  if (added.rc != cudaSuccess) throw_cuda(added.rc, added.api, info(g, i), std::move(added.hint));
  return added.node;
}

cudaEvent_t Builder::node_event(const GraphImpl& g, std::uint32_t i, AddedNode& out) {
  const Event& e = event_of(g, i);
  cudaEvent_t native = nullptr;  // created now (on the current device) if this is its first use
  out.api = "cudaEventCreateWithFlags";
  out.rc = native_event(e, native);
  if (out.rc != cudaSuccess) return nullptr;
  keep_.add(e.state());
  return native;
}

const std::shared_ptr<HostErrorSink>& Builder::error_sink() {
  if (!sink_) sink_ = std::make_shared<HostErrorSink>();
  return sink_;
}

cudaStream_t Builder::capture_stream() {
  int device = 0;
  GRAPHDSL_CHECK(cudaGetDevice, &device);
  for (const auto& [d, s] : streams_) {
    if (d == device) return s.get();
  }
  cudaStream_t s = nullptr;
  GRAPHDSL_CHECK(cudaStreamCreateWithFlags, &s, static_cast<unsigned>(cudaStreamNonBlocking));
  streams_.emplace_back(device, NativeStream(s));
  return s;
}

void Builder::add_kinded_edge(const GraphImpl& g, std::uint32_t from, std::uint32_t to, cudaGraph_t graph,
                              cudaGraphNode_t native_from, cudaGraphNode_t native_to) const {
  cudaGraphEdgeData e{};
  e.from_port = edge_kind(g, from, to) == EdgeKind::programmatic ? cudaGraphKernelNodePortProgrammatic
                                                                 : cudaGraphKernelNodePortLaunchCompletion;
  e.type = cudaGraphDependencyTypeProgrammatic;
#if GRAPHDSL_CUDA_13
  const cudaError_t rc = cuda_try(cudaGraphAddDependencies, graph, &native_from, &native_to,
                                  static_cast<const cudaGraphEdgeData*>(&e), std::size_t{1});
  const char* api = "cudaGraphAddDependencies";
#else
  const cudaError_t rc = cuda_try(cudaGraphAddDependencies_v2, graph, &native_from, &native_to,
                                  static_cast<const cudaGraphEdgeData*>(&e), std::size_t{1});
  const char* api = "cudaGraphAddDependencies_v2";
#endif
  if (rc != cudaSuccess) {
    throw_cuda(rc, api, info(g, to),
               fmt::format("the {} edge from {}", to_string(edge_kind(g, from, to)), g.info(from).describe()));
  }
}

NodeInfo Builder::info(const GraphImpl& g, std::uint32_t i) const {
  NodeInfo n = g.info(i);
  n.context = where_;
  return n;
}

Materialized materialize(const GraphImpl& g, const std::vector<std::uint32_t>& order,
                         std::shared_ptr<HostErrorSink>& sink, const std::vector<void*>* enclosing) {
  const bool placed = uses_devices(g);
  if (placed) check_devices(g);
  DeviceScope devices(-1);  // restores the current device on the way out
  Materialized m;
  m.graph = create_native_graph();
  m.host_slots.assign(host_count(g), nullptr);
  KeepAlive keep;  // moved into shared ownership below only if the graph keeps something
  struct ScopesTag;
  ThreadScratch<std::vector<cudaGraphConditionalHandle>, ScopesTag> scopes;
  Builder b(keep, sink, &m.host_slots, placed ? &devices : nullptr, scopes.get());
  if (enclosing != nullptr) {  // a child plan: its graph buffers are the enclosing plan's
    b.dptrs_ = *enclosing;
    b.enclosed_ = true;
  }
  b.build(g, m.graph.get(), order, m.nodes);
  b.take_results(m);
  // One user object for the whole graph. Also for an empty box when a setter may give it something
  // to keep (an event, a child plan's closures): executables cannot retain user objects later.
  bool may_keep = false;
  for (std::uint32_t i = 0; i < node_count(g) && !may_keep; ++i) may_keep = build_ops(node_kind(g, i)).may_keep;
  if (may_keep || !keep.items.empty()) {
    auto shared = std::make_shared<KeepAlive>(std::move(keep));
    m.keep = shared;
    retain_on_graph(m.graph.get(), std::move(shared), std::nullopt);
  }
  return m;  // on an exception, m.graph (half-built) is destroyed on the way out
}

}  // namespace graphdsl::detail
