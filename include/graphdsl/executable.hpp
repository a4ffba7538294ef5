// graphdsl/executable.hpp — a compiled plan: owns the cudaGraph_t, the cudaGraphExec_t and every
// resource the executable can still use (host closures, events).
//
//   gd::Executable exec = plan.instantiate();   // or plan.instantiate(InstantiateOptions{}.upload_on(s))
//   exec.launch(stream);                         // asynchronous, any stream
//   exec.synchronize(stream);                    // waits, then re-throws a host-callback exception
//
// Host-callback exceptions: a host node's callable runs on a CUDA driver thread, where an escaping
// exception would call std::terminate. graphdsl catches it there and keeps the first one; it is
// re-thrown (the original exception object, type preserved) by the next call to launch(),
// upload(), synchronize() or rethrow_host_error() on this executable, and then cleared.
//
// Thread-safety: an Executable is not synchronized; use one from one thread at a time (CUDA
// serializes launches of one executable on the device anyway). Destruction never throws and never
// waits for launches in flight (CUDA keeps what they need alive until they finish).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "graphdsl/buffer.hpp"
#include "graphdsl/detail/exact_value.hpp"
#include "graphdsl/device_graph.hpp"
#include "graphdsl/device_node.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/instantiate_options.hpp"
#include "graphdsl/launch.hpp"
#include "graphdsl/node.hpp"
#include "graphdsl/parameter.hpp"
#include "graphdsl/prepared_update.hpp"
#include "graphdsl/update.hpp"

namespace graphdsl {

class Event;

namespace detail {
struct ExecImpl;
struct ExecAccess;  // src/exec/exec_access.hpp: the executable's state for layers above exec (profile/)
/// Deletes an executable's state (src/exec/exec_impl.cpp); see GraphImplDelete.
struct ExecImplDelete {
  static void destroy(ExecImpl* x) noexcept;
};
enum class ScalarType : std::uint8_t;

template <class T>
struct IsDeviceKernelNode : std::false_type {};
template <class... P>
struct IsDeviceKernelNode<DeviceKernelNode<P...>> : std::true_type {};
/// device_calls: a parameter of type DeviceGraph (the kernel may launch a graph from the device).
inline constexpr unsigned device_graph_call = 1;
/// device_calls: a parameter of type DeviceKernelNode<...> (the kernel may update nodes from the device).
inline constexpr unsigned device_node_call = 2;
/// Which device-side calls a kernel of parameters P... makes, as far as its signature shows:
/// device_graph_call and device_node_call (Executable::set_kernel to another signature).
template <class... P>
constexpr unsigned device_calls() {
  return (0u | ... | (std::is_same_v<P, DeviceGraph> ? device_graph_call : 0u)) |
         (0u | ... | (IsDeviceKernelNode<P>::value ? device_node_call : 0u));
}
}  // namespace detail

/// Graph memory of a compiled plan and of its device (Executable::memory_report()).
struct GraphMemoryReport {
  std::size_t plan_bytes = 0;  ///< bytes the plan's mem_alloc nodes allocate per launch
  int device = 0;              ///< the device the attributes below are read from
  /// cudaGraphMemAttrUsedMemCurrent of the device: bytes of graph memory in use now (all graphs of
  /// the process on it, as are the three below).
  std::uint64_t used_current = 0, used_high = 0, reserved_current = 0, reserved_high = 0;
  /// \var used_high
  /// cudaGraphMemAttrUsedMemHigh: the most bytes in use since the last reset.
  /// \var reserved_current
  /// cudaGraphMemAttrReservedMemCurrent: bytes reserved for graph allocations now.
  /// \var reserved_high
  /// cudaGraphMemAttrReservedMemHigh: the most bytes reserved since the last reset.
};

/// Returns the device's unused graph memory to the OS (cudaDeviceGraphMemTrim); -1: the current device.
void trim_graph_memory(int device = -1);
/// Resets the device's graph-memory high-water marks (GraphMemoryReport::used_high and
/// reserved_high) to the current amounts: cudaDeviceSetGraphMemAttribute with 0, the only value
/// CUDA takes, for cudaGraphMemAttrUsedMemHigh and cudaGraphMemAttrReservedMemHigh (as for every
/// graph of the process on that device). -1: the current device. @throws CudaError.
void reset_graph_memory_high_marks(int device = -1);

/// A compiled plan. Move-only; an empty (default-constructed or moved-from) Executable throws
/// UsageError on use.
///
/// Thread-safety: not synchronized; use one Executable from one thread at a time.
///
/// Exception-safety: moves and destruction never throw. After an exception the executable stays
/// usable: a launch or upload that throws is not issued, a typed setter that throws changes
/// nothing, and update() reports refusals as values (see update()). Exceptions thrown by host
/// callbacks are kept and re-thrown later (see executable.hpp).
class Executable {
 public:
  /// An empty executable (operator bool is false); the other members throw UsageError on it.
  Executable() noexcept;
  /// Internal: made by Graph::instantiate().
  explicit Executable(detail::ExecImpl* impl) noexcept;
  /// Takes over the other executable's graphs and state; the other one is left empty.
  Executable(Executable&&) noexcept;
  /// Releases this executable (as the destructor does) and takes over the other one's graphs and
  /// state; the other one is left empty.
  Executable& operator=(Executable&&) noexcept;
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  /// Releases the cudaGraphExec_t, the cudaGraph_t and what they use. Never throws and never waits
  /// for launches in flight (CUDA keeps what they need alive until they finish).
  ~Executable();

  /// Launches the executable on `stream` (cudaGraphLaunch). Asynchronous. A host node of the launch
  /// may destroy this executable: it is destroyed once that node has returned and this call has
  /// left cudaGraphLaunch (docs/node-kinds.md, host callback).
  /// @throws the pending host-callback exception, if any (the launch is then not issued);
  ///         CudaError if cudaGraphLaunch fails.
  void launch(cudaStream_t stream = nullptr);
  /// Uploads the executable to the device on `stream` (cudaGraphUpload), so that the first launch
  /// does not pay for it. @throws like launch().
  void upload(cudaStream_t stream = nullptr);
  /// cudaStreamSynchronize(stream), then rethrow_host_error().
  void synchronize(cudaStream_t stream = nullptr);
  /// Re-throws (and clears) the first exception a host callback of this executable threw.
  void rethrow_host_error();
  /// True when a host callback threw and the exception has not been re-thrown yet.
  bool has_host_error() const;

  /// The handle device code launches this executable with (device_graph.hpp): pass it to a kernel
  /// (Graph::add_kernel) or store it in device memory. No CUDA call. The executable must have been
  /// compiled with InstantiateOptions::device_launch() and uploaded since it was compiled and since
  /// its last host-side change (update(), a setter): by upload(stream), by compiling with
  /// InstantiateOptions::upload_on(stream), or by a host launch(), which uploads it. The handle
  /// owns nothing: it is valid while this executable lives. Take it again after each change
  /// and upload (the value stays the same; the check is what changes).
  /// @throws UsageError naming the graph and the rule, when the executable is empty, was not
  ///         compiled for device launch, or was not uploaded since it was compiled or changed.
  DeviceGraph device_graph() const;

  /// The plan this executable was compiled from (a copy owned by the executable).
  const Graph& plan() const;
  /// The cudaGraphInstantiateFlags it was compiled with.
  unsigned long long flags() const;

  /// The cudaGraphExec_t, owned by this executable (do not destroy it). @throws UsageError when empty.
  cudaGraphExec_t native_handle() const;
  /// The materialized cudaGraph_t (kept alive: per-node setters need its node handles). Setters and
  /// updates patch the executable; for a plan of kernel, memset, memcpy and empty nodes with no
  /// Condition or GraphBuffer, this call first writes the parameters the executable now has into the
  /// nodes they changed, so the graph shows what the executable launches (and cloning or
  /// instantiating it gives the same work). For other plans the nodes a setter or update changed may
  /// still hold their older parameters there. Like the setters, not to be called concurrently with
  /// other calls on this executable. @throws CudaError naming the node CUDA refused to patch.
  cudaGraph_t native_graph() const;
  /// The driver's own DOT of native_graph() (cudaGraphDebugDotPrint with `flags`, a combination of
  /// cudaGraphDebugDotFlags; node handles are always included, as they are how the plan's names are
  /// matched): each top-level node's label starts with its plan name, e.g. `'scale' (#0)`. Next to
  /// Graph::to_dot(), it shows what CUDA made of the plan (kernel names, attributes, parameters: the
  /// executable's current ones where native_graph() brings them in step).
  /// @throws Error when no temporary file can be made (in $TMPDIR, else /tmp); CudaError.
  std::string native_dot(unsigned int flags = cudaGraphDebugDotFlagsVerbose) const;
  /// The cudaGraphNode_t that top-level plan node `node` became.
  /// @throws UsageError if `node` is not a node of this executable's plan (checked by index and kind).
  cudaGraphNode_t native_node(const Node& node) const;

  /// True unless the executable is empty (default-constructed or moved-from).
  explicit operator bool() const noexcept { return static_cast<bool>(impl_); }

  /// The bytes the plan's allocations take and the device's graph-memory attributes.
  GraphMemoryReport memory_report() const;
  /// Frees, in stream order on `stream` (cudaFreeAsync), the graph memory the last launch left
  /// allocated: buffers the plan never frees (add_mem_alloc without add_mem_free) and allocations
  /// of captured functions never freed. The executable can then be launched again without
  /// auto_free_on_launch; the addresses (address()) are invalid once the free has run. Use this
  /// instead of cudaFreeAsync(address(buffer)): graphdsl cannot see a free made outside it, and
  /// keeps refusing the relaunch. Does nothing before the first launch or when called twice.
  /// @throws CudaError if a free fails (e.g. the memory was freed outside graphdsl already).
  void free_graph_memory(cudaStream_t stream = nullptr);
  /// The address a graph buffer of the plan got (valid while the allocation is live: between its
  /// mem_alloc and mem_free nodes in a launch, or after the launch for a buffer the plan never frees);
  /// for a slice, the address of its first element.
  template <class T>
  T* address(const GraphBuffer<T>& buffer) const {
    T* base = static_cast<T*>(buffer_address(buffer.id()));
    return base == nullptr ? nullptr : base + buffer.offset();
  }

  // ---- in-place update ----------------------------------------------------------------------

  /// Brings the executable in line with `templ`, a plan of the same shape (see update.hpp).
  /// Shape differences are refused before any CUDA call and leave the executable unchanged; so does
  /// a change CUDA refuses (nodes already patched are rolled back). On success the executable's
  /// recorded plan takes the template's parameters and names, so later updates diff against it.
  /// @throws UsageError on a moved-from executable or a `policy` outside UpdatePolicy; CudaError only if
  /// rolling back fails.
  [[nodiscard]] UpdateResult update(const Graph& templ, UpdatePolicy policy = UpdatePolicy::automatic);

  /// Prepares `templ`, a plan of this executable's shape, for update(prepared) (prepared_update.hpp):
  /// the diff against the recorded plan, the whole-graph strategy's checks (device-updatable nodes
  /// and graph allocations are refused), the template's validation and its materialization, once.
  /// A refusal is not thrown: the prepared update carries it (PreparedUpdate::result()) and
  /// update(prepared) returns it. Changes nothing in the executable.
  /// @throws UsageError on an empty executable.
  [[nodiscard]] PreparedUpdate prepare_update(const Graph& templ) const;
  /// Applies a prepared template: O(1) checks, one cudaGraphExecUpdate and a bulk copy of its
  /// parameters into the recorded plan (no diff), which then equals what update(templ) would have
  /// left. The result is the prepared refusal (no CUDA call), function_changed when set_kernel gave a
  /// kernel node another function since it was prepared (no CUDA call: prepare it again), CUDA's
  /// refusal (the executable is left as it was), or success with strategy whole_graph, `patched` the plan's node count
  /// and `changed` empty (no diff is made).
  /// @throws UsageError naming the rule when `prepared` is empty, was prepared by another
  ///         executable or by one destroyed since, or when this executable is empty.
  [[nodiscard]] UpdateResult update(const PreparedUpdate& prepared);

  // ---- typed per-node setters ---------------------------------------------------------------
  // `node` is a handle from the plan this executable was compiled from (or from the last template
  // it was updated from). Each setter checks the new parameters like validate() does, patches the
  // node with one CUDA exec setter and records the change; on failure nothing changes.
  // set_kernel_args (plain values) and set_launch on a kernel whose arguments hold no Condition or
  // GraphBuffer, and set_memset / set_memcpy with raw pointers on a node that has them, take a
  // direct path: no plan is built and nothing is allocated on the heap (kernel arguments are
  // converted into a block on the stack, and the kernel node is patched through the CUDA driver's
  // entry point, the runtime's call on any failure so that errors read the same). The first such
  // kernel setter of a single-device executable allocates its setter records once (64 bytes per
  // top-level node); later kernel setters patch the node from its record. The other setters build
  // a one-node plan and patch from it.
  // Setters affect launches made after them; launches already queued keep their parameters, except
  // host callables, which are swapped in place: a queued launch that has not reached the host node
  // yet runs the new callable.

  /// Condition and GraphBuffer arguments must stand where and for what they stand in the recorded
  /// plan (the same condition or buffer of this executable's plan); a setter that would change that
  /// (a raw pointer for a graph buffer, a buffer of another plan, ...) throws UsageError before any
  /// CUDA call. A DeviceValue is passed as its raw pointer (get()).

  /// New kernel arguments (converted to the kernel's parameter types, checked at compile time).
  template <class... P, class... A>
  void set_kernel_args(const KernelNode<P...>& node, A&&... args);
  /// A new kernel, launch shape and arguments (converted to the new kernel's parameter types, checked
  /// at compile time). Returns the node's handle typed for the new kernel: use it for later setters
  /// (the old handle's type names the old signature). The kernel may have another signature
  /// (cudaGraphExecKernelNodeSetParams takes any kernel of the node's device): the recorded plan
  /// (plan()) then takes the new function, argument layout and arguments, so dump(), diff() and
  /// update() see the kernel the node now launches; an update from a template whose node still
  /// launches the old kernel is refused as function_changed (so is a PreparedUpdate prepared before
  /// the change). A switch to another signature is refused with UsageError naming the node, before
  /// any CUDA call, for a device-updatable node (device code holds its DeviceKernelNode, typed for
  /// the old signature), for a new kernel that takes a DeviceKernelNode or (unless the executable
  /// was compiled with InstantiateOptions::device_launch()) a DeviceGraph where the old one did not
  /// (CUDA refuses a switch to a function making device-side node updates or graph launches), for
  /// Condition or GraphBuffer arguments (old or new) and for a node that uses a Parameter.
  /// @throws UsageError as above or as the setters (a launch with other attributes, a launch rule);
  ///         CudaError when CUDA refuses (the node then launches what it launched before).
  template <class... P, class... Q, class... A>
  KernelNode<Q...> set_kernel(const KernelNode<P...>& node, void (*kernel)(Q...), const Launch& launch, A&&... args);
  /// A new value for parameter `index` (from 0) of kernel node `node`, the others kept: `value`'s
  /// bytes, which must be as many as the parameter's (an adopted kernel's parameters have sizes but
  /// no types: graphdsl/adopt.hpp). Patched like set_kernel_args.
  /// @throws UsageError naming the node for an index past its parameters or a value of another size,
  ///         or a parameter that holds a Condition or GraphBuffer (before any CUDA call).
  template <class T>
  void set_kernel_arg(const Node& node, unsigned int index, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "graphdsl set_kernel_arg: the value must be trivially copyable");
    set_kernel_arg_bytes(node, index, &value, sizeof(T));
  }
  /// A new grid, block and dynamic shared memory size (not priority: CUDA cannot patch it per node).
  template <class... P>
  void set_launch(const KernelNode<P...>& node, const Launch& launch);
  /// A new 1-D memset (same rules as Graph::add_memset: `value` is a T or an integer that converts
  /// to T exactly, so `set_memset(node, u8_ptr, 0x22, n)` compiles where add_memset does).
  template <class T, class V = T>
  void set_memset(const MemsetNode& node, T* dst, V value, std::size_t count);
  /// A new 1-D memset of the graph buffer the node already sets (a raw pointer given for a node that
  /// sets a graph buffer, or a buffer for one that sets a raw pointer, is refused: UsageError).
  template <class T, class V = T>
  void set_memset(const MemsetNode& node, const GraphBuffer<T>& dst, V value, std::size_t count);
  /// A new 1-D copy (same rules as Graph::add_memcpy). The memory types must stay the same.
  /// Raw pointers only for a node that copies between raw pointers (UsageError otherwise).
  template <class D, class S>
  void set_memcpy(const MemcpyNode& node, D* dst, const S* src, std::size_t count,
                  cudaMemcpyKind kind = cudaMemcpyDefault);
  /// A new 1-D copy into the graph buffer the node already copies into.
  template <class T>
  void set_memcpy(const MemcpyNode& node, const GraphBuffer<T>& dst, const T* src, std::size_t count,
                  cudaMemcpyKind kind = cudaMemcpyDefault);
  /// A new 1-D copy out of the graph buffer the node already copies from.
  template <class T>
  void set_memcpy(const MemcpyNode& node, T* dst, const GraphBuffer<T>& src, std::size_t count,
                  cudaMemcpyKind kind = cudaMemcpyDefault);
  /// Sets parameter `param` (Graph::parameter) to `value` in every node of this executable that
  /// uses it — kernel arguments, memset values and memcpy endpoints, at the top level and in
  /// conditional bodies and child plans — with one per-node CUDA setter each: O(uses), no diff, and
  /// no heap allocation for top-level kernels and memsets (a kernel that also takes a Condition or
  /// GraphBuffer is patched through its recorded plan, which allocates; so are nested kernels with
  /// such arguments). The recorded plan (plan()) takes the value, so
  /// dumps and later update() calls see it. `value` must be a T (for a pointer parameter, anything
  /// that converts to T). On a CUDA failure the nodes already patched are put back and nothing
  /// changes. @throws UsageError for a value of another type, a parameter of another plan, or an
  /// empty executable (before any CUDA call); CudaError naming the node CUDA refused.
  template <class T, class V>
  ParameterSet set(const Parameter<T>& param, const V& value);
  /// A new host callable. No CUDA call and no plan built: the executable's slot for the node takes
  /// the callable, whose storage comes from blocks recycled on the calling thread (no allocation
  /// once a callable of its size has been released there).
  template <class F>
  void set_host(const HostNode& node, F&& fn);
  /// A new child plan of the same shape (checked, copied into the recorded plan, materialized and
  /// set with one cudaGraphExecChildGraphNodeSetParams). The executable keeps the graphs of the last
  /// plans set this way on each node: 16, or two per child node of its plan where that is more
  /// (65,536 nodes at most together). A plan equal to one that was set on the same node (shape,
  /// parameters and names) is set from its kept graph, one CUDA call and no allocation. Plans with
  /// parameters, with graph buffers of an enclosing plan or with captured nodes are built every
  /// time. @throws UsageError for another shape.
  void set_child(const ChildNode& node, const Graph& child);
  /// Prepares `child`, a plan of the shape of `node`'s child plan, for set_child(node, prepared): the
  /// shape check, the plan's validation and its materialization, once (prepared_update.hpp). Changes
  /// nothing in the executable. @throws UsageError for another shape or an invalid plan (before any
  /// CUDA call), CudaError naming the node of the child plan that CUDA refused.
  [[nodiscard]] PreparedChild prepare_child(const ChildNode& node, const Graph& child) const;
  /// Sets `node` to a child plan prepared for it by this executable: one CUDA call
  /// (cudaGraphExecChildGraphNodeSetParams), and the recorded plan takes the prepared plan (shared
  /// with it, or copied when the plan holds parameters). @throws UsageError for an empty prepared
  /// child or one prepared for another node or executable (before any CUDA call); CudaError.
  void set_child(const ChildNode& node, const PreparedChild& child);
  /// A new event to record (one CUDA setter; no plan built, and nothing allocated for an Event
  /// this executable was given before).
  void set_event(const EventRecordNode& node, const Event& event);
  /// A new event to wait for (as above).
  void set_event(const EventWaitNode& node, const Event& event);
  /// Enables or disables a kernel, memset or memcpy node (cudaGraphNodeSetEnabled); only these
  /// kinds have the overload, as only they can be disabled.
  template <class... P>
  void set_enabled(const KernelNode<P...>& node, bool on) {
    set_enabled_node(node, NodeKind::kernel, on);
  }
  /// Enables or disables a memset node (cudaGraphNodeSetEnabled).
  void set_enabled(const MemsetNode& node, bool on) { set_enabled_node(node, NodeKind::memset, on); }
  /// Enables or disables a memcpy node (cudaGraphNodeSetEnabled).
  void set_enabled(const MemcpyNode& node, bool on) { set_enabled_node(node, NodeKind::memcpy, on); }
  /// Whether a kernel, memset or memcpy node is enabled (cudaGraphNodeGetEnabled).
  template <class... P>
  bool enabled(const KernelNode<P...>& node) const {
    return enabled_node(node, NodeKind::kernel);
  }
  /// Whether a memset node is enabled (cudaGraphNodeGetEnabled).
  bool enabled(const MemsetNode& node) const { return enabled_node(node, NodeKind::memset); }
  /// Whether a memcpy node is enabled (cudaGraphNodeGetEnabled).
  bool enabled(const MemcpyNode& node) const { return enabled_node(node, NodeKind::memcpy); }

  // ---- device-updatable kernel nodes (graphdsl/device_node.hpp, docs/hopper.md) ---------------

  /// The device handle of kernel node `node`, marked with Launch::with_device_updatable(): pass it
  /// to a kernel (add_kernel, set_kernel_args), whose code changes the node's arguments, grid or
  /// enabled state through it. An executable with such nodes is uploaded before its first launch
  /// and again after a host-side change of one of them (launch() does it on its stream), and is
  /// never given to cudaGraphExecUpdate: update() applies per-node changes only.
  /// @throws UsageError naming the node when it is not device-updatable, belongs to another plan or
  ///         the executable is empty; CudaError when the driver query fails.
  template <class... P>
  DeviceKernelNode<P...> device_node(const KernelNode<P...>& node) const {
    return DeviceKernelNode<P...>(device_node_handle(node, &detail::ArgLayoutOf<P...>::value));
  }

 private:
  friend struct detail::ExecAccess;
  /// device_node(): checks and the driver's handle (`signature`: the handle's parameter list).
  detail::DeviceNodeHandle device_node_handle(const Node& node, const detail::ArgLayout* signature) const;
  detail::ExecImpl& impl() const;
  /// The recorded kernel of `node` (checks that the node belongs to this executable).
  /// The kernel function of kernel node `node` in the recorded plan.
  const void* recorded_function(const Node& node) const;
  /// Internal: the recorded Launch of a kernel node (shape and attributes).
  Launch recorded_launch(const Node& node) const;
  /// Replaces the parameters of `target` with those of node #0 of `source` and patches the node.
  void replace_node(const Node& target, const Graph& source);
  /// set_kernel with a kernel of another signature: kernel node #0 of `source` replaces the function,
  /// launch shape and arguments of `target`, whose handle names parameters laid out as `signature`;
  /// `calls_before` and `calls_after` are the device-side calls the old and new signatures show
  /// (detail::device_calls). In src/kinds/kernel_swap.cpp.
  void swap_kernel(const Node& target, const Graph& source, const detail::ArgLayout* signature, unsigned calls_before,
                   unsigned calls_after);
  /// set_kernel_args and set_launch: patches kernel node `node` with the packed argument block
  /// `args` laid out as `layout` (null: the recorded arguments) and `launch` (null: the recorded
  /// launch). A node whose arguments hold no Condition or GraphBuffer is patched directly (no plan
  /// built; from the node's setter record once the executable has one, else from the plan's records,
  /// after which the record is made); any other goes through replace_node with a one-node plan.
  void set_kernel_params(const Node& node, const unsigned char* args, const detail::ArgLayout* layout,
                         const Launch* launch);
  /// set_kernel_arg: the recorded block with parameter `index` replaced by `bytes` bytes at `value`.
  void set_kernel_arg_bytes(const Node& node, unsigned int index, const void* value, std::size_t bytes);
  /// set_memset and set_memcpy with raw pointers: a node that sets or copies raw pointers is
  /// patched directly (no plan built, no heap allocation); one that uses a GraphBuffer goes through
  /// replace_node, which refuses the raw pointer.
  void set_memset_raw(const Node& node, void* dst, unsigned int value, unsigned int element_size, std::size_t count,
                      detail::ScalarType type);
  void set_memcpy_bytes(const Node& node, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
  /// set_host: takes ownership of `closure` (made with `new`) at once, also when it throws; the
  /// executable's slot for the node takes it (no plan built, no CUDA call).
  void set_host_closure(const Node& node, detail::HostClosure* closure);
  /// set_event: the node's Event replaced in the recorded plan and patched with one CUDA call (no
  /// plan built; nothing allocated for an Event the executable was given before).
  void set_event_node(const Node& node, NodeKind kind, const Event& event);
  /// set_enabled and enabled: `kind` is the handle's (its type says it: the handle's own plan,
  /// possibly destroyed or cold in cache, is not read).
  void set_enabled_node(const Node& node, NodeKind kind, bool on);
  /// set(param, value): `value` (null: a value of another type than `type`) of type `type`.
  ParameterSet set_parameter(const detail::SharedRef<detail::PlanToken>& plan, std::uint64_t uid,
                             const detail::ParamType& type, const void* value);
  void* buffer_address(std::uint64_t uid) const;
  bool enabled_node(const Node& node, NodeKind kind) const;
  detail::UniqueHandle<detail::ExecImpl*, detail::ExecImplDelete> impl_;
};

// ---- Executable's typed setters (they build one-node plans) ------------------------------------

template <class... P, class... A>
void Executable::set_kernel_args(const KernelNode<P...>& node, A&&... args) {
  static_assert(!(detail::is_parameter_v<A> || ...),
                "graphdsl setters take values, not Parameters: patch a parameter with Executable::set(param, value)");
  // Plain values (no Condition, GraphBuffer or declared range) of a block of at most
  // max_setter_block bytes are converted and packed on the stack; set_kernel_params patches the
  // node from there. Anything else takes the general path through a one-node plan.
  constexpr bool plain = sizeof...(P) == sizeof...(A) &&
                         !((detail::is_declared_v<A> || detail::is_condition_v<detail::unwrap_declared_t<A>> ||
                            detail::is_buffer_v<detail::unwrap_declared_t<A>>) ||
                           ...);
  using Layout = detail::ArgLayoutOf<P...>;
  if constexpr (plain && Layout::value.total <= detail::max_setter_block) {
    detail::check_kernel_args(detail::TypeList<P...>{}, detail::TypeList<A&&...>{});
    unsigned char block[Layout::value.total + 1];
    detail::PlaceholderArgs<0> none;
    detail::ArgPacker<P...>::pack(block, none, std::forward<A>(args)...);
    set_kernel_params(node, block, &Layout::value, nullptr);
  } else {
    set_kernel(node, reinterpret_cast<void (*)(P...)>(const_cast<void*>(recorded_function(node))),
               recorded_launch(node), std::forward<A>(args)...);
  }
}

template <class... P, class... Q, class... A>
KernelNode<Q...> Executable::set_kernel(const KernelNode<P...>& node, void (*kernel)(Q...), const Launch& launch,
                                        A&&... args) {
  static_assert(!(detail::is_parameter_v<A> || ...),
                "graphdsl setters take values, not Parameters: patch a parameter with Executable::set(param, value)");
  Graph one("setter");
  one.add_kernel(kernel, launch, std::forward<A>(args)...);
  if constexpr (std::is_same_v<detail::TypeList<P...>, detail::TypeList<Q...>>) {
    replace_node(node, one);
  } else {
    swap_kernel(node, one, &detail::ArgLayoutOf<P...>::value, detail::device_calls<P...>(),
                detail::device_calls<Q...>());
  }
  return KernelNode<Q...>(node.ref());
}

template <class... P>
void Executable::set_launch(const KernelNode<P...>& node, const Launch& launch) {
  set_kernel_params(node, nullptr, nullptr, &launch);
}

template <class T, class V>
void Executable::set_memset(const MemsetNode& node, T* dst, V value, std::size_t count) {
  detail::check_memset_types<T, V>();
  const T v = detail::exact_value<T>(value, "set_memset", "the element type");
  set_memset_raw(node, dst, detail::bit_pattern(v), sizeof(T), count, detail::scalar_type_of<T>());
}

template <class T, class V>
void Executable::set_memset(const MemsetNode& node, const GraphBuffer<T>& dst, V value, std::size_t count) {
  Graph one("setter");
  one.add_memset(dst, value, count);
  replace_node(node, one);
}

template <class D, class S>
void Executable::set_memcpy(const MemcpyNode& node, D* dst, const S* src, std::size_t count, cudaMemcpyKind kind) {
  detail::check_memcpy_types<D, S>();
  set_memcpy_bytes(node, dst, src, detail::checked_bytes(count, sizeof(D), "add_memcpy"), kind);
}

template <class T>
void Executable::set_memcpy(const MemcpyNode& node, const GraphBuffer<T>& dst, const T* src, std::size_t count,
                            cudaMemcpyKind kind) {
  Graph one("setter");
  one.add_memcpy(dst, src, count, kind);
  replace_node(node, one);
}

template <class T>
void Executable::set_memcpy(const MemcpyNode& node, T* dst, const GraphBuffer<T>& src, std::size_t count,
                            cudaMemcpyKind kind) {
  Graph one("setter");
  one.add_memcpy(dst, src, count, kind);
  replace_node(node, one);
}

template <class T, class V>
ParameterSet Executable::set(const Parameter<T>& param, const V& value) {
  // Exactly T (a pointer parameter also takes what converts to its pointer type, nullptr included):
  // anything else reaches set_parameter as a value of another type, which it refuses by name.
  if constexpr (std::is_same_v<V, T> || (std::is_pointer_v<T> && std::is_convertible_v<const V&, T>)) {
    const T v = value;
    return set_parameter(param.plan_token(), param.id(), detail::param_type<T>(), &v);
  } else {
    return set_parameter(param.plan_token(), param.id(), detail::param_type<V>(), nullptr);
  }
}

template <class F>
void Executable::set_host(const HostNode& node, F&& fn) {
  static_assert(std::is_invocable_v<std::decay_t<F>&>,
                "graphdsl set_host: the callable must be invocable with no arguments");
  set_host_closure(node, detail::new_host_closure(std::forward<F>(fn)));
}

}  // namespace graphdsl
