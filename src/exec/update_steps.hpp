// src/exec/update_steps.hpp — the steps of Executable::update (exec/update.cpp) that the prepared
// update (exec/prepared.cpp) shares: the strategy checks and the one cudaGraphExecUpdate with what
// the executable takes from the template graph.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "exec/kind_patch.hpp"
#include "graphdsl/update.hpp"
#include "native/native.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// Notes in `needs` what the changed nodes need beyond per-node setters (the kinds' PatchOps::
/// update_needs); returns the refusal of a change no update can make.
std::optional<UpdateResult> update_needs(const GraphImpl& a, const GraphImpl& t,
                                         const std::vector<std::uint32_t>& changed, UpdateNeeds& needs);

/// The refusals of the chosen strategy (`whole`: cudaGraphExecUpdate, else per-node setters).
std::optional<UpdateResult> check_strategy(const GraphImpl& a, bool whole, const UpdateNeeds& needs);

/// The refusal of a template whose materialization failed (`e`: materialize's CudaError).
UpdateResult materialize_refusal(const CudaError& e);

/// One cudaGraphExecUpdate of x with `owned`, the materialized plan `t`: CUDA's refusal (the
/// executable unchanged), or nullopt with the executable holding its host slots and keep-alives and,
/// when `conditions` (it or a plan nested in `t` has conditions), its condition handles (`owned`
/// kept alive with them). The recorded plan's parameters are the caller's to change.
std::optional<UpdateResult> exec_update_native(ExecImpl& x, const GraphImpl& t,
                                               const std::shared_ptr<const Materialized>& owned, bool conditions);

/// update(plan, UpdatePolicy::per_node) without the diff, for a caller that holds it: `changed` must
/// be the nodes in which `t` differs from x's recorded plan, and setters alone must bring the one to
/// the other (no condition default or node name differs): ShapeFamily's switches between variants
/// whose diff it computed once. Checks and refusals as update() (none is skipped but the diff).
UpdateResult update_known_nodes(ExecImpl& x, const GraphImpl& t, const std::vector<std::uint32_t>& changed);
/// Whether x's own cudaGraph_t (native.graph) can be brought in step with the executable node by
/// node (PatchOps::patch_graph), the recorded plan being `a`: every kind of node it holds has
/// patch_graph (kernel, memset, memcpy and empty nodes), it declares no condition and no kernel takes
/// a Condition or GraphBuffer, no node is device-updatable, and the executable tracks its graph.
bool graph_patchable(const ExecImpl& x, const GraphImpl& a);

/// A node of native.graph that CUDA refused to patch (write_graph_behind).
struct GraphRefusal {
  std::uint32_t node;
  Applied applied;
};

/// Writes the parameters of plan `from` (the recorded plan, or a template that agrees with it except
/// on nodes marked behind) into every node marked behind in native.graph (ExecImpl::graph_behind)
/// with PatchOps::patch_graph; the first refusal, or nullopt. The marks stay: the caller clears them.
std::optional<GraphRefusal> write_graph_behind(ExecImpl& x, const GraphImpl& from);

/// Brings native.graph in step with the executable where graph_patchable allows (Executable::
/// native_graph, native_dot): the nodes marked behind take the recorded plan's parameters and the
/// marks are cleared. Nothing happens for other plans. @throws CudaError naming the node CUDA refused.
void sync_native_graph(ExecImpl& x);

}  // namespace graphdsl::detail
