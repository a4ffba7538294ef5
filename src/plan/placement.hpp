// src/plan/placement.hpp — where nodes run, as the plan says it: the placement rules that need no CUDA
// call and the device a node is created on. The checks that need CUDA are native/device_rules.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// The placement rules of node i that need no CUDA call (which kinds can be placed, peer copies,
/// an allocation's device). Part of check_node. @throws UsageError naming the node.
void check_placement(const GraphImpl& g, std::uint32_t i, const std::string& context);

/// Nodes of a conditional body run on the conditional node's device: none may be placed.
/// @throws UsageError naming the node.
void check_body_placement(const GraphImpl& body, const std::string& context);

/// The device a node is created on: its placement, else (a mem_free) its allocation's, else `home`.
int node_device(const GraphImpl& g, std::uint32_t i, int home);

}  // namespace graphdsl::detail
