// src/plan/recorded_update.hpp — what an update leaves in the executable's recorded plan, and the
// recorded plan a prepared update (Executable::prepare_update) copies in bulk. No CUDA call.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// After an update: the recorded plan `a` takes the node, nested and parameter names and the
/// parameter values of `t`, a plan of its shape (`renamed`: the nodes whose names differ).
void take_template_names(GraphImpl& a, const GraphImpl& t, const std::vector<std::uint32_t>& renamed);

/// The lengths of t's graph-buffer uses (slices: what validate(), the race checker and dumps read;
/// the offsets are in the node records, taken as parameters) into `a`, a plan of t's shape. Does not
/// allocate.
void take_buffer_bytes(GraphImpl& a, const GraphImpl& t) noexcept;

/// The lengths of node i's graph-buffer uses (a kernel's GraphBuffer arguments, a memset's or
/// memcpy's buffer ends), in order: what a setter's one-node plan gives the node it patches.
std::vector<std::uint64_t> buffer_bytes_of(const GraphImpl& g, std::uint32_t i);
/// Sets the lengths of node i's graph-buffer uses (as many as node i has, in buffer_bytes_of's order).
void set_buffer_bytes(GraphImpl& g, std::uint32_t i, const std::vector<std::uint64_t>& bytes) noexcept;

/// The recorded plan an update of `a` from `t` (a plan of its shape, `changed` and `renamed` from
/// plan_diff) leaves, in storage that lines up with a's (payloads, argument offsets, placeholder
/// ranges) and holding t's parameters, names, condition defaults and parameter values: a copy of
/// `t` (nested plans deep-copied) when t's storage already lines up with a's (plans built by the
/// same code), else a copy of `a` given t's parameters node by node.
std::unique_ptr<GraphImpl> updated_copy(const GraphImpl& a, const GraphImpl& t,
                                        const std::vector<std::uint32_t>& changed,
                                        const std::vector<std::uint32_t>& renamed);

/// Whether `img` (an updated_copy of `a`, or of a plan `a` was updated from) still lines up with `a`:
/// every store has the same size (but names, whose on_update policy in plan/records/stores.def is
/// take_names). O(stores).
bool same_storage(const GraphImpl& a, const GraphImpl& img) noexcept;

/// The recorded plan `a` takes, in bulk (vector copies, no per-node work beyond copying shared
/// pointers), every parameter, name, condition default and parameter value of `img` (same_storage):
/// what a node-by-node update from img's template would have left. Nested plans that hold parameter
/// entries are copied again, so that Executable::set never writes into plans `img` shares.
void take_updated(GraphImpl& a, const GraphImpl& img);

}  // namespace graphdsl::detail
