// graphdsl/update.hpp — the result of patching an executable in place.
//
//   gd::UpdateResult r = exec.update(next_plan);
//   if (!r) fmt::print("{}\n", r);   // update refused (topology changed): edge 'scale' -> 'sum' exists in ...
//
// Executable::update() first diffs the template against the plan the executable was compiled from,
// on the host. A different shape (node count, kinds, edges, kernel functions, child-plan shapes) is
// refused with no CUDA call and the executable is left exactly as it was. Otherwise only the nodes
// whose parameters changed are patched — one per-node CUDA setter each (host callables are swapped
// without a CUDA call), or one cudaGraphExecUpdate of the whole template for changes per-node
// setters cannot make. A refusal is a value, not an exception. Host nodes compare by callable
// identity: a template built with a new lambda counts its host node as changed (a cheap swap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/node_kind.hpp"

namespace graphdsl {

/// Why an update succeeded or was refused. The first nine mirror cudaGraphExecUpdateResult.
enum class UpdateStatus : std::uint8_t {
  success,                      ///< cudaGraphExecUpdateSuccess
  error,                        ///< cudaGraphExecUpdateError: CUDA refused for another reason (see cuda_error)
  topology_changed,             ///< node count, edges or a child plan's shape differ
  node_type_changed,            ///< a node's kind differs
  function_changed,             ///< a kernel node launches a different kernel
  parameters_changed,           ///< CUDA cannot apply a parameter change (e.g. a copy's memory type)
  not_supported,                ///< CUDA cannot update something about the node
  unsupported_function_change,  ///< cudaGraphExecUpdateErrorUnsupportedFunctionChange
  attributes_changed,           ///< cudaGraphExecUpdateErrorAttributesChanged
  invalid_template,             ///< graphdsl: the template itself fails Graph::validate()
};

/// How an update was applied.
enum class UpdateStrategy : std::uint8_t {
  none,        ///< nothing was sent to CUDA (refused by the diff, or nothing changed)
  per_node,    ///< one per-node exec setter per changed node
  whole_graph  ///< the template was materialized and applied with cudaGraphExecUpdate
};

/// Which strategy update() may use.
enum class UpdatePolicy : std::uint8_t {
  automatic,   ///< per-node setters, whole-graph for changes they cannot make (priorities and launch
               ///< attributes (sync domain, L2 window), 2-D/3-D copies, condition defaults, conditional
               ///< bodies) and, where whole_graph goes in place, for half of the nodes or more (at least
               ///< 32): measured cheaper there than per-node setters
  per_node,    ///< always per-node setters
  whole_graph  ///< always cudaGraphExecUpdate: from the executable's own graph (native_graph()), patched
               ///< at the changed nodes, for plans of kernel, memset, memcpy and empty nodes without
               ///< Condition or GraphBuffer arguments and without a priority or attribute change;
               ///< else from the template, materialized
};

/// The status as messages write it: "success", "topology changed", "invalid template", ...
const char* to_string(UpdateStatus s) noexcept;
/// "none", "per_node" or "whole_graph".
const char* to_string(UpdateStrategy s) noexcept;

/// The outcome of Executable::update(). Truthy on success. The functions returning it
/// (Executable::update, diff) are [[nodiscard]]; the class itself is not, so that assigning a
/// result to a variable draws no warning from nvcc.
class UpdateResult {
 public:
  /// success, or why the update was refused.
  UpdateStatus status = UpdateStatus::success;
  /// The node the refusal is about (for an edge: the edge's "to" node), as a node of the plans.
  std::optional<NodeInfo> node;
  /// For an edge mismatch: the edge's "from" node.
  std::optional<NodeInfo> from_node;
  /// One line, in the user's node names, e.g. "edge 'scale' -> 'sum' exists in the executable but not in the template".
  /// After a successful diff(): empty, or what changes besides the nodes (a condition's default).
  std::string reason;
  /// How the update was applied; none when it was refused, when nothing changed, and after diff().
  UpdateStrategy strategy = UpdateStrategy::none;
  /// Nodes whose parameters were patched (top-level nodes; a changed child counts once).
  std::size_t patched = 0;
  /// Indices of the top-level nodes whose parameters differ (patched ones after update(); the
  /// ones that would be patched after diff()).
  std::vector<std::uint32_t> changed;
  /// The CUDA error when CUDA refused (cudaErrorGraphExecUpdateFailure or a setter's error), else cudaSuccess.
  cudaError_t cuda_error = cudaSuccess;

  /// True when status is UpdateStatus::success.
  explicit operator bool() const noexcept { return status == UpdateStatus::success; }
  /// "update applied (per_node): 3 nodes patched" or "update refused (topology changed): <reason>".
  std::string to_string() const;
};

class Graph;

/// What Executable::update() would decide, computed on the host only: a refusal if `templ` has
/// another shape than `current` (or is invalid), else success with `changed` listing the nodes
/// whose parameters differ (changed condition defaults are not nodes and are not listed; update()
/// applies them through cudaGraphExecUpdate, and `reason` names the first one, so that the result
/// never reads "nothing to update"). Makes no CUDA call.
[[nodiscard]] UpdateResult diff(const Graph& current, const Graph& templ);

/// One difference between two plans, as explain() reports it.
struct NodeChange {
  /// The node it is about (absent for a difference that is not a node's, such as a condition's default).
  std::optional<NodeInfo> node;
  /// What differs, in the user's terms: "grid (32,1,1) -> (64,1,1)", "argument 2 (8 bytes):
  /// 0x7f0a00000000 -> 0x7f0a00000400", "function 'axpy' -> 'axpy_v2'", or the refusal's reason.
  std::string what;
};

/// Why two plans differ, node by node: for a plan `templ` of `current`'s shape, one NodeChange per
/// node whose parameters differ (the nodes of diff(current, templ).changed, in order), naming the
/// first field that differs (for a kernel: its function, grid, block, dynamic shared memory, then
/// each argument; for other kinds, their dump lines); for another shape, the one NodeChange of the
/// refusal. Makes no CUDA call. Made for two captures of "the same" work (graphdsl/adopt.hpp).
[[nodiscard]] std::vector<NodeChange> explain(const Graph& current, const Graph& templ);

/// Whether the diff behind diff() and Executable::update() may share the compare of a plan of
/// 4,096 nodes or more with one helper thread (started by graphdsl on first use, asleep between
/// diffs). On by default where std::thread::hardware_concurrency() is 4 or more: the compare reads
/// every node record of both plans, and two cores read them in about half the time of one. Off,
/// every diff runs on the calling thread alone. The result of a diff is the same either way.
void set_diff_helper(bool enabled) noexcept;
/// Whether the diff may use its helper thread (set_diff_helper).
[[nodiscard]] bool diff_helper_enabled() noexcept;

}  // namespace graphdsl
