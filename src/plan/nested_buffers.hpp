// plan/nested_buffers.hpp — graph buffers used in child plans and conditional bodies.
//
// Only a top-level plan allocates (CUDA refuses allocation nodes in a child graph embedded by copy
// and in conditional bodies), but the plans nested in it may use its buffers. A nested plan refers
// to such a buffer as {levels, index}: the mem_alloc node `index` of the plan `levels` levels out
// (a kernel's buffer argument keeps it as its reference; BufferUse as levels and alloc_node), keeping
// the buffer's id beside it:
//   - a conditional body resolves it when the node is added, through the link to the plan it is
//     being built in (GraphImpl::resolve_buffer);
//   - a plan built on its own and embedded with add_child resolves it then, in the embedded copy
//     (resolve_embedded_buffers);
//   - validate() checks, where the plan is embedded, that the plan `levels` out allocates that very
//     buffer at `index` (a plan copied out with body_plan / child_plan keeps its references);
//   - compiling reads the address of the top-level plan's allocation `index`, like its own nodes do.
// References are positions, not ids, so that two builds of one template diff as equal.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphdsl/update.hpp"

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// Whether `g`, or a plan nested in it, refers to a graph buffer that no enclosing plan allocates
/// (yet): what resolve_embedded_buffers may resolve.
bool has_open_buffers(const GraphImpl& g);

/// Resolves the open buffer references of `inner` (a fresh copy, about to be embedded in `parent`
/// as a child plan) and of the plans nested in it against `parent` and the plans enclosing it.
/// Nested plans are shared between copies: one that changes is copied first. On an exception
/// (std::bad_alloc) `inner` may be half resolved: the caller discards it.
void resolve_embedded_buffers(GraphImpl& inner, const GraphImpl& parent);

/// A deep copy of `child` as a child node of `parent` holds it: its open buffer references resolved
/// against `parent` (Executable::set_child and prepare_child, which take a plan built on its own).
std::shared_ptr<const GraphImpl> embedded_child(const GraphImpl& parent, const GraphImpl& child);

/// The refusal of a new child plan `t_child` for child node i of `a` (an executable's plan) when it
/// holds a memset or memcpy node on graph memory of an enclosing plan: CUDA creates such nodes only
/// while the plan that allocates the memory is being compiled (cudaGraphAddMemsetNode and
/// cudaGraphAddMemcpyNode return cudaErrorInvalidValue for that memory once it is instantiated), so
/// set_child, prepare_child and update() cannot rebuild that child. Kernels on it are fine. diff()
/// and update() share it.
std::optional<UpdateResult> child_rebuild_refusal(const GraphImpl& a, std::uint32_t i, const GraphImpl& t_child);
/// child_rebuild_refusal for each child node among the nodes `changed` between `a` and `t`.
std::optional<UpdateResult> child_rebuild_refusal(const GraphImpl& a, const GraphImpl& t,
                                                  const std::vector<std::uint32_t>& changed);

/// Adds node i of `g` to users[a] for each reference, in the plans nested in node i (a child or
/// conditional node) at any depth, to the buffer of g's mem_alloc node `a` (the lifetime check:
/// such a node must run between the allocation and its free).
void add_nested_buffer_users(const GraphImpl& g, std::vector<std::vector<std::uint32_t>>& users);

/// The byte offset in its allocation of buffer use `u` of g: what the memset's or memcpy's pointer
/// field holds (a slice's offset; 0 for a whole buffer).
std::uint64_t buffer_use_offset(const GraphImpl& g, const BufferUse& u) noexcept;

}  // namespace graphdsl::detail
