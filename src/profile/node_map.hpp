// src/profile/node_map.hpp — the plan nodes of an executable and the CUPTI graph node ids of the
// native nodes they became, at every depth (child plans, conditional bodies, captured work).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphdsl/profile.hpp"
#include "native/native.hpp"

namespace graphdsl::detail {

/// Every plan node of an executable (Profile::nodes, parents first) and, by CUPTI graph node id,
/// the entry each native node belongs to.
struct NodeMap {
  std::vector<ProfileNode> nodes;
  std::unordered_map<std::uint64_t, std::int32_t> by_id;
  std::vector<std::string> notes;  ///< native nodes that could not be mapped, and why
};

/// The NodeMap of the executable `x` (CUPTI loaded and initialized: cuptiGetGraphNodeId).
/// The top-level plan maps through Materialized::nodes, conditional bodies and child plans moved
/// into their nodes through Materialized::layouts; a child plan CUDA cloned into its node is mapped
/// by position (the clone lists its nodes in the order they were created); nodes a captured node
/// recorded into its graph are the captured node's.
/// @throws ProfilerError when cuptiGetGraphNodeId fails; CudaError when a graph query fails.
NodeMap map_nodes(const ExecImpl& x);

}  // namespace graphdsl::detail
