// src/plan/graph_build.hpp — what graph.cpp shares with the `make` sections of src/kinds/<kind>.cpp
// (the Graph::add_* of each node kind).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace graphdsl::detail {

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
