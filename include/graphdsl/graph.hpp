// graphdsl/graph.hpp — the plan: a host-side description of a CUDA graph.
//
//   gd::Graph g("pipeline");
//   auto up  = g.add_memcpy(d_x, h_x.data(), n).name("upload");
//   auto a   = g.add_kernel(scale, gd::cover(n), d_x, 2.0f, n).name("scale").after(up);
//   auto out = g.add_memcpy(h_x.data(), d_x, n).name("download").after(a);
//   gd::Executable exec = g.instantiate();
//
// Building a plan makes no CUDA call: it can be built, validated, compared and printed on a
// machine without a GPU. Graph::instantiate() is the one place that creates CUDA objects.
//
// Ownership: kernel arguments are converted to the kernel's parameter types and copied into the
// plan. Host callables are moved into the plan and shared with every executable compiled from it.
// Events are shared owners. Memset and memcpy nodes keep *raw pointers*: those buffers must stay
// valid for as long as any executable compiled from the plan can launch.
//
// A Graph is a value: copying it makes an independent plan (with a new identity; handles of the
// original do not refer to the copy). A moved-from Graph throws UsageError on use; handles keep
// referring to the plan, now owned by the Graph it was moved into.
//
// Thread-safety: like a std::vector (const member functions may run concurrently).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/access.hpp"
#include "graphdsl/buffer.hpp"
#include "graphdsl/condition.hpp"
#include "graphdsl/detail/condition_kernels.hpp"
#include "graphdsl/detail/config.hpp"
#include "graphdsl/detail/exact_value.hpp"
#include "graphdsl/detail/function_ref.hpp"
#include "graphdsl/detail/kernel_args.hpp"
#include "graphdsl/detail/node_checks.hpp"
#include "graphdsl/detail/plan_types.hpp"
#include "graphdsl/detail/unique_handle.hpp"
#include "graphdsl/event.hpp"
#include "graphdsl/instantiate_options.hpp"
#include "graphdsl/launch.hpp"
#include "graphdsl/mem_ops.hpp"
#include "graphdsl/node.hpp"
#include "graphdsl/node_params.hpp"
#include "graphdsl/parameter.hpp"
#include "graphdsl/races.hpp"

namespace graphdsl {

namespace detail {
struct GraphImpl;  // the plan's storage: src/plan/graph_impl.hpp (not a public header)
/// Deletes a plan's storage (in src/plan/graph.cpp, where GraphImpl is complete). Graph owns its
/// storage through UniqueHandle rather than std::unique_ptr, whose std::tuple inside costs every
/// translation unit that includes graphdsl (docs/performance.md, "Include cost").
struct GraphImplDelete {
  static void destroy(GraphImpl* g) noexcept;
};
struct Adopter;  // graphdsl::adopt's builder (src/native/adopt.cpp)
}  // namespace detail

class Executable;  // graphdsl/executable.hpp: what instantiate() returns; it also defines the typed setters

/// How deep plans may nest: child plans and conditional bodies, in any mix. add_child and the
/// add_if/add_while/... family throw UsageError beyond it (every walk over nested plans then stays
/// within a bounded stack).
inline constexpr std::uint32_t max_nesting_depth = detail::max_nesting_depth;
/// How many nodes a plan may hold counting those of the plans it embeds, each embedding counted
/// again (a plan that embeds copies of itself doubles each time): add_child and add_conditional
/// throw UsageError beyond it.
inline constexpr std::uint64_t max_embedded_nodes = detail::max_embedded_nodes;

/// The plan: nodes, their parameters and the dependency edges between them, held on the host.
/// Building, validating, comparing and printing a plan makes no CUDA call; instantiate() compiles
/// it into an Executable. A value type: a copy is an independent plan with a new id(); a
/// moved-from Graph throws UsageError on use (assigning to it makes it usable again).
///
/// Thread-safety: like a std::vector. Const member functions may run concurrently; adding nodes or
/// edges, and naming a node through its handle, need exclusive access to the plan.
///
/// Exception-safety: basic guarantee (after an exception the Graph is still a valid plan).
/// add_edge(), NodeHandle::after() and NodeHandle::before() check every edge before adding any,
/// so their UsageErrors leave the plan unchanged; copy assignment, the setters and remove_node()
/// give the strong guarantee; moves and destruction never throw.
class Graph {
 public:
  /// An empty plan named "graph".
  Graph();
  /// An empty plan; the name appears in messages, dumps and DOT output.
  explicit Graph(std::string name);
  /// A deep copy of `other`'s plan with a new id(); handles of `other` do not refer to the copy.
  /// @throws UsageError if `other` is moved-from.
  Graph(const Graph& other);
  /// Replaces this plan with a deep copy of `other` (new id()). Handles of the plan this Graph
  /// held before become dangling. Strong guarantee. @throws UsageError if `other` is moved-from.
  Graph& operator=(const Graph& other);
  /// Takes over `other`'s plan (same id(); handles follow it); `other` is left moved-from.
  Graph(Graph&& other) noexcept;
  /// Destroys this Graph's plan and takes over `other`'s; `other` is left moved-from. Handles of
  /// the destroyed plan become dangling.
  Graph& operator=(Graph&& other) noexcept;
  /// Destroys the plan (executables compiled from it keep their own copy). Never throws.
  ~Graph();

  /// The name given at construction ("graph" by default). @throws UsageError on a moved-from Graph.
  const std::string& name() const;
  /// A process-unique number identifying this plan (copies get a new one).
  std::uint64_t id() const;

  // ---- nodes --------------------------------------------------------------------------------

  /// Adds a kernel node launching `kernel<<<launch.grid, launch.block, launch.shared_bytes>>>(args...)`.
  /// The argument count and each argument's conversion to the kernel's own parameter type are
  /// checked at compile time; the converted values are copied into the plan.
  /// Launch-shape rules (dimensions >= 1, <= 1024 threads per block) and a null `kernel` are
  /// reported by validate().
  template <class... P, class... A>
  KernelNode<P...> add_kernel(void (*kernel)(P...), const Launch& launch, A&&... args);

  /// Adds a 1-D memset node setting `count` elements of type T (1, 2 or 4 bytes) at `dst` to `value`.
  /// `value` is a T, or an integer that converts to T exactly (`add_memset(float_ptr, 0, n)` sets
  /// 0.0f; 300 for an 8-bit element is a UsageError); a double for a float element does not
  /// compile (write 0.5f). Dumps show the value as a T.
  template <class T, class V = T>
  MemsetNode add_memset(T* dst, V value, std::size_t count);
  /// Adds a 1-D memset node whose value is parameter `value` (Graph::parameter): U must be T (a
  /// UsageError naming the node otherwise); Executable::set(value, v) patches the node.
  template <class T, class U>
  MemsetNode add_memset(T* dst, const Parameter<U>& value, std::size_t count);
  /// Adds a 2-D memset node: `height` rows of `width` elements, rows `pitch_bytes` apart.
  template <class T, class V = T>
  MemsetNode add_memset_2d(T* dst, std::size_t pitch_bytes, V value, std::size_t width, std::size_t height);
  /// Adds a memset node from raw parameters (cudaMemsetParams). `element_size` must be 1, 2 or 4
  /// and `pitch_bytes` (for height > 1) at least width * element_size; validate() checks both.
  MemsetNode add_memset_raw(void* dst, unsigned int value, unsigned int element_size, std::size_t width,
                            std::size_t height = 1, std::size_t pitch_bytes = 0);

  /// Adds a 1-D memcpy node copying `count` elements from `src` to `dst`. Both element types must
  /// be the same (checked at compile time). `kind` defaults to cudaMemcpyDefault (direction
  /// inferred from the pointers, the safe choice with unified addressing).
  template <class D, class S>
  MemcpyNode add_memcpy(D* dst, const S* src, std::size_t count, cudaMemcpyKind kind = cudaMemcpyDefault);
  /// add_memcpy whose destination is a pointer parameter (Graph::parameter<D*>): the node copies to
  /// the parameter's value, and Executable::set(param, p) re-points it (with every other node that
  /// uses the parameter) through one cudaGraphExecMemcpyNodeSetParams, no diff. The parameter must be
  /// of this plan and of type D* exactly (docs/parameters.md).
  template <class D, class S>
  MemcpyNode add_memcpy(const Parameter<D*>& dst, const S* src, std::size_t count,
                        cudaMemcpyKind kind = cudaMemcpyDefault);
  /// add_memcpy whose source is a pointer parameter (Graph::parameter<S*> or parameter<const S*>).
  template <class D, class S>
  MemcpyNode add_memcpy(D* dst, const Parameter<S*>& src, std::size_t count, cudaMemcpyKind kind = cudaMemcpyDefault);
  /// add_memcpy whose destination and source are pointer parameters.
  template <class D, class S>
  MemcpyNode add_memcpy(const Parameter<D*>& dst, const Parameter<S*>& src, std::size_t count,
                        cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Adds a 1-D memcpy node copying `bytes` bytes.
  MemcpyNode add_memcpy_bytes(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Adds a 2-D memcpy node: `height` rows of `width_bytes`, rows `dst_pitch` / `src_pitch` bytes apart.
  MemcpyNode add_memcpy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                           std::size_t width_bytes, std::size_t height, cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Adds a memcpy node from full 3-D parameters (pitched pointers or CUDA arrays, offsets, extent).
  MemcpyNode add_memcpy_3d(const cudaMemcpy3DParms& params);

  /// Adds a direct copy of `count` elements from device `src_device`'s memory at `src` to device
  /// `dst_device`'s memory at `dst` (a peer-to-peer copy over NVLink or PCIe). The node is placed
  /// on `dst_device`. When the plan is compiled graphdsl checks that both devices exist, that each
  /// pointer is memory of the device named for it, and that peer access between the two is
  /// available (cudaDeviceCanAccessPeer), and enables it; where it is not available this is a
  /// UsageError naming both devices — use add_memcpy, which the driver stages through the host.
  template <class T>
  MemcpyNode add_memcpy_peer(T* dst, int dst_device, const T* src, int src_device, std::size_t count);
  /// add_memcpy_peer for `bytes` raw bytes.
  MemcpyNode add_memcpy_peer_bytes(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes);

  /// Adds a memcpy node that copies `count` elements from `src` into the `__device__` or
  /// `__constant__` array `symbol`, from its element `offset` on (cudaMemcpyToSymbol as a node).
  /// `symbol` is the variable itself, as the runtime API takes it; its device address is looked up
  /// when the plan is compiled. `kind`: cudaMemcpyDefault, HostToDevice or DeviceToDevice.
  /// validate() checks that the copy stays inside the symbol.
  template <class T, std::size_t N>
  MemcpyNode add_memcpy_to_symbol(T (&symbol)[N], const T* src, std::size_t count, std::size_t offset = 0,
                                  cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Copies one T from `src` into the `__device__` or `__constant__` variable `symbol`.
  template <class T, class = std::enable_if_t<!std::is_array_v<T>>>
  MemcpyNode add_memcpy_to_symbol(T& symbol, const T* src, cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Adds a memcpy node that copies `count` elements of the `__device__` or `__constant__` array
  /// `symbol`, from its element `offset` on, to `dst` (cudaMemcpyFromSymbol as a node). `kind`:
  /// cudaMemcpyDefault, DeviceToHost or DeviceToDevice.
  template <class T, std::size_t N>
  MemcpyNode add_memcpy_from_symbol(T* dst, const T (&symbol)[N], std::size_t count, std::size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Copies the `__device__` or `__constant__` variable `symbol` (one T) to `dst`.
  template <class T, class = std::enable_if_t<!std::is_array_v<T>>>
  MemcpyNode add_memcpy_from_symbol(T* dst, const T& symbol, cudaMemcpyKind kind = cudaMemcpyDefault);
  /// The symbol copies' common part: `bytes` bytes between `other` and the symbol (of
  /// `symbol_bytes` bytes) at byte `offset`, into the symbol when `to_symbol`.
  MemcpyNode add_memcpy_symbol_bytes(const void* symbol, std::size_t symbol_bytes, bool to_symbol, void* other,
                                     std::size_t bytes, std::size_t offset, cudaMemcpyKind kind);

  /// Adds a host node that calls `fn()` (any callable; moved into the plan). An exception thrown by
  /// `fn` is caught and re-thrown by the Executable (see executable.hpp). A null function pointer or
  /// empty std::function is reported by validate(). `fn` must not call CUDA.
  template <class F>
  HostNode add_host(F&& fn);

  /// Adds a child-graph node embedding a copy of `child` (taken now; later changes to `child` do
  /// not affect this plan). `child` may be this plan itself.
  /// @throws UsageError beyond max_nesting_depth or max_embedded_nodes (the plan is unchanged).
  ChildNode add_child(const Graph& child);
  /// add_child without a copy: `child`'s plan is embedded (its handles read it, cannot change it), `child` left
  /// moved-from (both unchanged on a throw). This plan itself or a body being built is copied instead.
  ChildNode add_child(Graph&& child);
  /// Adds a node that runs `ops` in order: writes, waits and barriers on device-visible memory
  /// (MemOp; CUDA's batch memory operations, a driver feature reached through its entry points). 1
  /// to 255 operations; not inside conditional bodies (CUDA refuses them there). Updatable: a new
  /// plan may change addresses, values and comparisons, not the number or the types of operations.
  /// @throws UsageError for an empty or longer list (validate() checks the rest: null or misaligned
  /// addresses, unknown comparisons).
  MemOpNode add_mem_ops(const std::vector<MemOp>& ops);
  /// Adds a node that signals the external semaphores `signals` (cudaGraphAddExternalSemaphoresSignalNode),
  /// once the node's predecessors are done. 1 to 64 semaphores; not inside conditional bodies and not
  /// in device-launchable executables (CUDA allows neither). Updatable: a new plan may change the
  /// semaphores and values, not their number. validate() refuses null semaphores.
  /// @throws UsageError for an empty or longer list.
  SemaphoreSignalNode add_semaphore_signal(const std::vector<SemaphoreSignal>& signals);
  /// Adds a node that waits on the external semaphores `waits` (cudaGraphAddExternalSemaphoresWaitNode):
  /// the node's successors start once each is signalled (or its fence reaches its value). Rules as
  /// add_semaphore_signal.
  SemaphoreWaitNode add_semaphore_wait(const std::vector<SemaphoreWait>& waits);
  /// Adds a node that does nothing (a join or fork point).
  EmptyNode add_empty();
  /// Adds a node that records `event`. The plan and its executables share ownership of the event.
  EventRecordNode add_event_record(const Event& event);
  /// Adds a node that waits for `event`.
  EventWaitNode add_event_wait(const Event& event);

  // ---- parameters ---------------------------------------------------------------------------

  /// Declares a parameter of type T with value `initial` (graphdsl/parameter.hpp): pass it to
  /// add_kernel for an argument of type T (or const U* when T is U*) and to add_memset as the value,
  /// then patch every node that uses it with Executable::set(param, value). Name it with .name().
  /// Makes no CUDA call. @throws UsageError in a conditional body's builder (parameters live in
  /// top-level plans) or on a recorded plan.
  template <class T>
  Parameter<T> parameter(T initial);

  // ---- graph memory -------------------------------------------------------------------------

  /// The node that allocates a graph buffer, and the buffer.
  template <class T>
  struct Allocation {
    MemAllocNode node;      ///< the mem_alloc node; order every use of `buffer` after it
    GraphBuffer<T> buffer;  ///< the memory it allocates, for add_kernel, add_memset and add_memcpy
  };

  /// Adds a mem_alloc node for `count` elements of T (cudaGraphAddMemAllocNode) and returns it with
  /// the typed buffer, usable at once in add_kernel (for a T* parameter), add_memset and add_memcpy.
  /// Every use must be ordered after this node, and before the buffer's mem_free node if it has
  /// one (validate() checks). A buffer never freed in the plan stays allocated after a launch: the
  /// executable must then be compiled with auto_free_on_launch() to be launched again.
  template <class T>
  Allocation<T> add_mem_alloc(std::size_t count, const MemAllocOptions& options = {});
  /// Adds the mem_free node of `buffer` (cudaGraphAddMemFreeNode), at most once (a slice: from its allocation's start).
  template <class T>
  MemFreeNode add_mem_free(const GraphBuffer<T>& buffer);
  /// A 1-D memset of `count` elements of a graph buffer or slice (`value` as for add_memset(T*, ...)).
  template <class T, class V = T>
  MemsetNode add_memset(const GraphBuffer<T>& dst, V value, std::size_t count);
  /// A 2-D memset of a graph buffer or slice: `height` rows of `width` elements, `pitch_bytes` apart.
  template <class T, class V = T>
  MemsetNode add_memset_2d(const GraphBuffer<T>& dst, std::size_t pitch_bytes, V value, std::size_t width,
                           std::size_t height);
  /// Copies `count` elements into a graph buffer (or slice).
  template <class T>
  MemcpyNode add_memcpy(const GraphBuffer<T>& dst, const T* src, std::size_t count,
                        cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Copies `count` elements out of a graph buffer (or slice).
  template <class T>
  MemcpyNode add_memcpy(T* dst, const GraphBuffer<T>& src, std::size_t count, cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Copies `count` elements from one graph buffer (or slice) to another (or within one).
  template <class T>
  MemcpyNode add_memcpy(const GraphBuffer<T>& dst, const GraphBuffer<T>& src, std::size_t count);

  // ---- stream capture -----------------------------------------------------------------------

  /// Adds a node whose content is whatever `fn(cudaStream_t)` issues on the stream it is given:
  /// library calls (cuBLAS, ...) or kernels you cannot write as nodes. `fn` is called each time the
  /// plan is compiled (and for whole-graph updates), capturing into the graph at this node's place
  /// (cudaStreamBeginCaptureToGraph): the captured work runs after this node's predecessors and
  /// before its successors. `fn` must issue work only on that stream (or streams forked from it
  /// and joined back), must not synchronize, and — in the default thread-local mode — must not
  /// allocate with cudaMalloc (use cudaStreamCaptureModeRelaxed for that; allocations are then not
  /// part of the graph). If `fn` throws, the capture is ended, the half-built graph destroyed, the
  /// sticky error cleared, and the exception propagates out of instantiate().
  template <class F>
  CapturedNode add_captured(F&& fn, cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);

  // ---- conditional nodes (CUDA 12.3+; IF-ELSE and SWITCH need a 12.8 driver) ----------------

  /// Declares a condition of this plan: a placeholder for a cudaGraphConditionalHandle, created
  /// when the plan is compiled. With `assign_default` the condition is reset to `default_value` at
  /// the start of every launch (cudaGraphCondAssignDefault); without it, a node upstream of the
  /// conditional node must set it. Every declared condition must be used by exactly one
  /// conditional node (validate() checks).
  Condition add_condition(unsigned int default_value = 0, bool assign_default = true);

  /// Adds an IF node: `body(Graph&)` builds the plan that runs when the condition is non-zero.
  template <class Body>
  ConditionalNode add_if(const Condition& cond, Body&& body);
  /// Adds an IF-ELSE node (CUDA 12.8): `then_body` runs when the condition is non-zero, `else_body` otherwise.
  template <class Then, class Else>
  ConditionalNode add_if_else(const Condition& cond, Then&& then_body, Else&& else_body);
  /// Adds a WHILE node: `body` runs as long as the condition is non-zero when checked (before the
  /// first iteration and after each one). A node in the body must update the condition.
  template <class Body>
  ConditionalNode add_while(const Condition& cond, Body&& body);
  /// Adds a SWITCH node (CUDA 12.8) with one body per argument: body i runs when the condition is
  /// i; none runs when it is >= the number of bodies.
  template <class... Bodies>
  ConditionalNode add_switch(const Condition& cond, Bodies&&... bodies);
  /// The general form: a conditional node of `type` with `size` bodies; `body(i, g)` builds body i.
  /// `size` must be 1 (if_then, while_loop), 2 (if_else) or at least 1 (switch_case).
  /// A body is fixed once its builder returns (copies of the plan share it): node handles taken
  /// inside the builder can still be read, but naming, placing or adding edges through them is a
  /// UsageError. A builder builds only its body: destroying, replacing or moving this plan, or
  /// moving the body out, is a UsageError (and a body moved out no longer reaches this plan's
  /// Conditions). @throws UsageError also beyond max_nesting_depth or max_embedded_nodes, and for a
  /// `size` above max_embedded_nodes (before any builder is called).
  /// `body` is any callable invocable as body(unsigned int, Graph&) (a lambda, a function, a
  /// std::function: an empty one throws std::bad_function_call when called); it is called before
  /// add_conditional returns and not kept.
  template <class Body>
  ConditionalNode add_conditional(ConditionalType type, const Condition& cond, unsigned int size, Body&& body);

  /// Adds a kernel node that sets `cond` to (*value OP operand) ? 1 : 0 — a loop or branch driven by
  /// a value the user's kernels already compute (e.g. a residual), with no change to them.
  /// T is int, unsigned int, float or double; `value` must point to device memory. `operand` is a T
  /// or an integer that converts to T exactly (`Compare::greater, 0` for a const float* value); a
  /// double operand for a float value does not compile (write 1e-6f).
  template <class T, class V = T>
  KernelNode<cudaGraphConditionalHandle, const T*, int, T> add_set_condition(const Condition& cond, const T* value,
                                                                             Compare op, V operand);

  // ---- devices ------------------------------------------------------------------------------

  /// Nodes added from now on are placed on `device` (see NodeHandle::on_device); -1 (the default)
  /// leaves them on the device current when the plan is compiled. Nodes added before keep theirs.
  /// @throws UsageError for a number below -1.
  void set_default_device(int device);
  /// The device new nodes are placed on (-1: the current device at compile time).
  int default_device() const;
  /// The device `node` is placed on (-1: the current device at compile time).
  /// @throws UsageError for a handle of another plan.
  int device_of(const Node& node) const;

  // ---- edges --------------------------------------------------------------------------------

  /// Adds the edge from -> to (`to` runs after `from`). Set semantics: an existing edge is kept once.
  /// @throws UsageError for a self edge, an empty handle or a node of another plan.
  void add_edge(const Node& from, const Node& to);
  /// Adds the edges nodes[0] -> nodes[1] -> ... -> nodes[n-1] (set semantics): `g.chain({a, b, c})`.
  /// @throws UsageError, adding no edge, for an empty handle, a node of another plan or a self edge.
  void chain(std::initializer_list<Node> nodes);
  /// chain() over a list made at run time.
  void chain(const std::vector<Node>& nodes);
  /// Removes the edge from -> to, of any kind, in O(1) for the edges added last and O(to's
  /// predecessors) at most. @throws UsageError naming both nodes when there is no such edge, for a
  /// handle of another plan, or in a fixed plan (a moved child).
  void remove_edge(const Node& from, const Node& to);
  /// Makes `preds` the predecessors of `node`: edges from the others go, new ones are full edges,
  /// kept ones keep their kind. Checked first (as add_edge), then all or none.
  void set_predecessors(const Node& node, const std::vector<Node>& preds);

  // ---- editing nodes (docs/concepts.md, "Editing a plan") -----------------------------------
  // Executable's setters (executable.hpp) for the plan: no CUDA call, the node's records take the
  // new values, which the next instantiate(), update() and diff() see. Checked like Executable's
  // and like the add_* that made the node (a Parameter argument does not compile; a Condition or
  // GraphBuffer must stand where and for what it stands in the node); refused in a fixed plan (a
  // conditional body, a moved child, a recorded plan). @throws UsageError, changing nothing.

  /// New kernel arguments (converted to the kernel's parameter types, checked at compile time).
  template <class... P, class... A>
  void set_kernel_args(const KernelNode<P...>& node, A&&... args);
  /// A new kernel of the same signature, launch and arguments.
  template <class... P, class... A>
  void set_kernel(const KernelNode<P...>& node, void (*kernel)(P...), const Launch& launch, A&&... args);
  /// A new launch, the whole of it: unlike Executable::set_launch, priority and attributes too.
  template <class... P>
  void set_launch(const KernelNode<P...>& node, const Launch& launch);
  /// A new 1-D memset (the rules of add_memset).
  template <class T, class V = T>
  void set_memset(const MemsetNode& node, T* dst, V value, std::size_t count);
  /// A new 1-D memset of the graph buffer the node sets (a slice of it, or the whole buffer).
  template <class T, class V = T>
  void set_memset(const MemsetNode& node, const GraphBuffer<T>& dst, V value, std::size_t count);
  /// A new 1-D copy between raw pointers (the rules of add_memcpy).
  template <class D, class S>
  void set_memcpy(const MemcpyNode& node, D* dst, const S* src, std::size_t count,
                  cudaMemcpyKind kind = cudaMemcpyDefault);
  /// A new 1-D copy into the graph buffer the node copies into.
  template <class T>
  void set_memcpy(const MemcpyNode& node, const GraphBuffer<T>& dst, const T* src, std::size_t count,
                  cudaMemcpyKind kind = cudaMemcpyDefault);
  /// A new 1-D copy out of the graph buffer the node copies from.
  template <class T>
  void set_memcpy(const MemcpyNode& node, T* dst, const GraphBuffer<T>& src, std::size_t count,
                  cudaMemcpyKind kind = cudaMemcpyDefault);
  /// A new host callable, moved into the plan.
  template <class F>
  void set_host(const HostNode& node, F&& fn);
  /// A copy of `child`, a plan of the shape of the node's child plan.
  void set_child(const ChildNode& node, const Graph& child);
  /// A new event to record (the plan shares ownership of it).
  void set_event(const EventRecordNode& node, const Event& event);
  /// A new event to wait for.
  void set_event(const EventWaitNode& node, const Event& event);
  /// Removes `node` and its edges (its predecessors and successors are not joined). The other
  /// nodes keep their handles and indices: the node stays as a tombstone that nothing shows or
  /// runs (not in instantiate()'s CUDA graph, dump(), to_dot(), nodes(), edges(), node_count(),
  /// validate(), the race checker), and what it owned goes (host callable, event, child plan, its
  /// Parameter uses). Its handle is then refused by every call of the plan. An executable compiled
  /// before keeps the node (update() from this plan: topology_changed). A mem_alloc node goes only
  /// once no node uses its buffer; a conditional node's Condition stays declared, for another
  /// conditional node. O(the node's edges); O(plan) for mem_alloc, mem_free, child and conditional
  /// nodes. @throws UsageError naming the node (and a user of its buffer), changing nothing.
  void remove_node(const Node& node);

  // ---- introspection ------------------------------------------------------------------------

  /// The number of nodes of this plan (a child or conditional node counts as one, whatever it holds),
  /// removed ones (remove_node) not counted: indices, which are positions, then run past it.
  std::size_t node_count() const;
  /// The number of distinct edges of this plan (not counting edges inside child plans or bodies).
  std::size_t edge_count() const;
  /// The node at `index`. @throws UsageError if out of range or removed.
  Node node(std::uint32_t index) const;
  /// All nodes, in creation order (removed ones left out).
  std::vector<Node> nodes() const;
  /// The first node named `name`.
  std::optional<Node> find(std::string_view name) const;
  /// All edges, sorted by (from, to) index.
  std::vector<Edge> edges() const;
  /// Nodes `node` runs after, in the order the edges were added.
  std::vector<Node> predecessors(const Node& node) const;
  /// Nodes that run after `node`, in index order.
  std::vector<Node> successors(const Node& node) const;
  /// The launch of a kernel node: shape and attributes.
  template <class... P>
  Launch launch_of(const KernelNode<P...>& node) const;
  /// The plan embedded by a child node.
  Graph child_plan(const ChildNode& node) const;
  /// Body `i` of a conditional node (a copy).
  Graph body_plan(const ConditionalNode& node, unsigned int i) const;
  /// The type of a conditional node.
  ConditionalType conditional_type(const ConditionalNode& node) const;
  /// True when `node` is a live node of this plan (false for an empty handle, another or a destroyed
  /// plan, a removed node).
  bool owns(const Node& node) const noexcept;
  /// The parameters of a memset node (graphdsl/node_params.hpp). Like each getter below:
  /// @throws UsageError naming the node for a node of another plan or of another kind.
  MemsetParams memset_of(const MemsetNode& node) const;
  /// The parameters of a memcpy node: endpoints, bytes, kind and the whole cudaMemcpy3DParms.
  MemcpyParams memcpy_of(const MemcpyNode& node) const;
  /// The Event an event-record node records (shared with the plan).
  Event event_of(const EventRecordNode& node) const;
  /// The Event an event-wait node waits for (shared with the plan).
  Event event_of(const EventWaitNode& node) const;
  /// False when a host node's callable is a null function pointer or an empty std::function.
  bool has_callable(const HostNode& node) const;
  /// The bytes, options and buffer of a mem_alloc node.
  AllocationParams allocation_of(const MemAllocNode& node) const;
  /// The mem_alloc node whose buffer a mem_free node frees: an empty handle for a buffer of another plan.
  MemAllocNode freed_allocation(const MemFreeNode& node) const;

  /// Checks every rule that can be checked without CUDA: per-node parameters (null pointers, zero
  /// sizes, launch shapes, memset widths, empty callables and events), cycles (the whole cycle is
  /// named), recursively into child plans. instantiate() calls it first.
  /// @throws UsageError naming the node and the rule.
  void validate() const;
  /// validate(), then the checks `options` asks for: with `races`, check_races(), throwing a
  /// UsageError that names the first racing pair. @throws UsageError.
  void validate(const ValidateOptions& options) const;
  /// The static race checker (graphdsl/races.hpp): pairs of nodes that touch the same memory, at
  /// least one writing, with no path of edges between them; edges implied by other paths; and
  /// nodes whose accesses it could not bound. Makes no CUDA call.
  /// @throws UsageError for a cycle or a declared range outside its graph buffer.
  RaceReport check_races() const;

  /// A deterministic multi-line description: one line per node with its kind, name, parameters
  /// and predecessors. Pointer values are left out (they differ between runs).
  std::string dump() const;
  /// A Graphviz DOT description (`dot -Tsvg`), nodes labelled with name and kind; child plans
  /// appear as clusters.
  std::string to_dot() const;
  /// A hash of the plan's structure: node count, kinds, edges, kernel functions, cluster shapes and
  /// cooperative launches, and child-plan structure — not parameter values or names. Plans with equal fingerprints are
  /// update-compatible. Stable within a process (kernel addresses differ between processes).
  std::uint64_t fingerprint() const;
  /// Host bytes this plan's storage holds (node table, parameters, argument blocks, names).
  std::size_t storage_bytes() const;
  /// Reserves room for `nodes` nodes (and as many kernel nodes).
  void reserve(std::size_t nodes);

  // ---- compile ------------------------------------------------------------------------------

  /// Validates the plan, materializes it as a cudaGraph_t and instantiates it
  /// (cudaGraphInstantiateWithParams).
  /// @throws UsageError for an invalid plan or options (before any CUDA call);
  ///         CudaError naming the plan node when CUDA refuses a node or the instantiation.
  Executable instantiate(const InstantiateOptions& options = {}) const&;
  /// Like instantiate(), but moves this plan into the executable instead of copying it (saves one
  /// plan copy for plans that are built to be compiled once). Handles of this plan then refer to
  /// the executable's recorded plan (Executable::plan()); this Graph is left moved-from, also when
  /// instantiation throws.
  Executable instantiate(const InstantiateOptions& options = {}) &&;

  /// Internal: the plan storage, to change: clears its content stamp (src/plan/graph_impl.hpp,
  /// which Executable::set_child compares instead of whole plans). @throws UsageError if moved-from.
  detail::GraphImpl& impl();
  /// Internal: the plan storage, to read. @throws UsageError on a moved-from Graph.
  const detail::GraphImpl& impl() const;
  /// Internal: takes over a plan storage made with `new`.
  explicit Graph(detail::GraphImpl* impl) noexcept;
  /// Internal: adds a captured node around a prepared closure (add_captured and the NCCL
  /// collectives of graphdsl/nccl.hpp use it).
  /// Takes ownership of `fn` (made with `new`) at once, also when it throws.
  CapturedNode add_captured_node(detail::StreamClosure* fn, cudaStreamCaptureMode mode);

 private:
  /// An add_* under way (graphdsl/detail/graph_templates.hpp): destroyed before commit(), it takes
  /// the plan back to what it held when made.
  class Change;
  friend class Executable;
  friend struct detail::Adopter;
  static Executable compile(Graph plan, const InstantiateOptions& options, std::uint64_t origin);
  detail::NodeRef add_kernel_node(const void* func, const Launch& launch, const detail::ArgLayout* layout,
                                  std::size_t args_offset, const detail::PlaceholderArg* placeholders = nullptr,
                                  std::size_t count = 0);
  /// Takes ownership of `closure` (made with `new`) at once, also when it throws.
  HostNode add_host_node(detail::HostClosure* closure);
  /// add_child of a copy of `child`; `open_buffers`: whether it refers to buffers of enclosing plans.
  ChildNode add_child_copy(const Graph& child, bool open_buffers);
  /// add_conditional without the template: `body(i, g)` builds body i.
  ConditionalNode add_conditional_node(ConditionalType type, const Condition& cond, unsigned int size,
                                       detail::FunctionRef<void(unsigned int, Graph&)> body);
  std::uint64_t add_parameter(const detail::ParamType& type, const void* initial);
  /// Checks the Parameter arguments of the kernel node add_kernel is adding (its block packed at
  /// `args_offset`), writes their values into the block and records the uses; on a UsageError the
  /// block is removed again.
  void bind_kernel_parameters(std::size_t args_offset, const detail::ParamArg* list, std::size_t count);
  MemsetNode add_memset_parameter(void* dst, const detail::ParamArg& p, unsigned int element_size, std::size_t count,
                                  detail::ScalarType type);
  /// A 1-D memcpy node whose endpoints are parameters where `dst_param` / `src_param` are given (else
  /// `dst` / `src`); checks the parameters before adding anything.
  MemcpyNode add_memcpy_parameters(const detail::ParamArg* dst_param, void* dst, const detail::ParamArg* src_param,
                                   const void* src, std::size_t bytes, cudaMemcpyKind kind);
  std::pair<MemAllocNode, std::uint64_t> add_mem_alloc_node(std::size_t bytes, const MemAllocOptions& options);
  MemFreeNode add_mem_free_node(std::uint64_t uid, std::size_t first);
  void use_buffer(const Node& node, detail::BufferField field, std::uint64_t uid, std::size_t at, std::size_t n);
  /// Appends `bytes` (zeroed) to the plan's argument arena for the kernel node add_kernel is adding;
  /// sets `offset` to where they start and returns them (valid until the next node is added).
  unsigned char* add_argument_block(std::size_t bytes, std::size_t& offset);
  /// add_memset_raw, recording the element type for dumps.
  MemsetNode add_memset_node(void* dst, unsigned int value, unsigned int element_size, std::size_t width,
                             std::size_t height, std::size_t pitch_bytes, detail::ScalarType type);
  /// The liveness token of this plan (what Parameters hold; node handles use the plan table).
  const detail::SharedRef<detail::PlanToken>& plan_token() const;
  /// Internal: the whole Launch of a kernel node.
  Launch kernel_launch(const Node& node) const;
  /// The setters: `node` takes the parameters of node #0 of `one`, built by the add_* of its kind
  /// (plan/replace.hpp); `what` names the setter. kernel_function: what set_kernel_args keeps.
  void replace_params(const Node& node, const Graph& one, const char* what);
  const void* kernel_function(const Node& node) const;
  void set_kernel_launch(const Node& node, const Launch& launch);
  /// Stores the ranges of the gd::reads / gd::writes arguments of kernel node `node`.
  template <std::size_t... I, class... A>
  void declare_kernel_ranges(const Node& node, std::index_sequence<I...>, const A&... args);

  detail::UniqueHandle<detail::GraphImpl*, detail::GraphImplDelete> impl_;
};

/// A plan holding one captured node: `fn(stream)` is captured each time the plan is compiled, so
/// the result can be compiled on its own or embedded with add_child. See Graph::add_captured.
template <class F>
Graph capture(F&& fn, cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);

}  // namespace graphdsl

#include "graphdsl/detail/graph_edits.hpp"      // the bodies of the setters' templates
#include "graphdsl/detail/graph_templates.hpp"  // the bodies of the member templates that add nodes
