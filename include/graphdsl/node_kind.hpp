// graphdsl/node_kind.hpp — the kinds of node a plan can hold.
#pragma once

#include <cstdint>
#include <string>

namespace graphdsl {

/// What a plan node does. Each kind maps onto one CUDA graph node type. The values, in order, are
/// the lines of the table graphdsl/detail/node_kinds.def, which also says what makes each node and
/// the CUDA node type it becomes (docs/node-kinds.md describes them): kernel, memset, memcpy, host,
/// child, empty, event_record, event_wait, conditional, captured, mem_alloc, mem_free, ...
enum class NodeKind : std::uint8_t {
#define GRAPHDSL_NODE_KIND(name, what) name,
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND
};

/// The number of NodeKind values.
inline constexpr int node_kind_count = 0
#define GRAPHDSL_NODE_KIND(name, what) +1
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND
    ;

/// The kind's name as it appears in messages, dumps and DOT output ("kernel", "event_record", ...).
const char* to_string(NodeKind kind) noexcept;

/// Everything an error message needs to name a plan node, copied out of the plan so that it
/// stays valid after the plan is gone.
struct NodeInfo {
  std::uint32_t index = 0;          ///< position in its plan (creation order)
  NodeKind kind = NodeKind::empty;  ///< what the node does
  std::string name;                 ///< the user's name; empty when the node was never named
  std::string graph;                ///< the name of the plan that holds the node
  /// Where the plan sits when it is nested, e.g. "in child node 'sub' (#2) of graph 'outer'";
  /// empty for a top-level node.
  std::string context;

  /// `'name'` when named, `#index` otherwise (the short form used in cycles and edges).
  std::string ref() const;
  /// `kernel node 'saxpy' (#3)` or `kernel node #3`, followed by the context when nested.
  std::string describe() const;
};

}  // namespace graphdsl
