// src/plan/graph_build.hpp — what graph.cpp shares with the `make` sections of src/kinds/<kind>.cpp
// (the Graph::add_* of each node kind).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graphdsl/node.hpp"

namespace graphdsl::detail {

struct GraphImpl;

/// The index of node `n` in g. @throws UsageError for an empty or dead handle, or a node of another
/// plan (naming both plans).
std::uint32_t own_index(const GraphImpl& g, const Node& n);
/// own_index, for a node that must be of `kind`: the getters of one kind (`what`, e.g. "memset_of").
/// @throws UsageError also for a node of another kind, naming the node and `what`.
std::uint32_t own_node(const GraphImpl& g, const Node& n, NodeKind kind, const char* what);

/// The record of node `index` in `records`, a side table of a plan kept in node order (peer
/// copies, symbol copies: anything with a `node` field), or nullptr when the node has none.
template <class R>
const R* node_record(const std::vector<R>& records, std::uint32_t index) {
  const auto it = std::lower_bound(records.begin(), records.end(), index,
                                   [](const R& r, std::uint32_t i) { return r.node < i; });
  return it != records.end() && it->node == index ? &*it : nullptr;
}

/// The device number of on_device / set_default_device / add_memcpy_peer, checked for its form
/// only (whether the device exists is checked when the plan is compiled).
/// @throws UsageError naming `what` for a number below -1 or above INT16_MAX.
std::int16_t device_number(int device, const char* what);

}  // namespace graphdsl::detail
