// graphdsl/node_kind.hpp — the kinds of node a plan can hold.
#pragma once

#include <cstdint>
#include <string>

namespace graphdsl {

/// What a plan node does. Each kind maps onto one CUDA graph node type.
enum class NodeKind : std::uint8_t {
  kernel,        ///< cudaGraphNodeTypeKernel, made by Graph::add_kernel
  memset,        ///< cudaGraphNodeTypeMemset, made by Graph::add_memset*
  memcpy,        ///< cudaGraphNodeTypeMemcpy, made by Graph::add_memcpy*
  host,          ///< cudaGraphNodeTypeHost, made by Graph::add_host
  child,         ///< cudaGraphNodeTypeGraph, made by Graph::add_child
  empty,         ///< cudaGraphNodeTypeEmpty, made by Graph::add_empty
  event_record,  ///< cudaGraphNodeTypeEventRecord, made by Graph::add_event_record
  event_wait,    ///< cudaGraphNodeTypeWaitEvent, made by Graph::add_event_wait
  conditional,   ///< cudaGraphNodeTypeConditional, made by Graph::add_if / add_if_else / add_while / add_switch
  captured,      ///< whatever a function issues on a stream, captured into the graph (Graph::add_captured)
  mem_alloc,     ///< cudaGraphNodeTypeMemAlloc, made by Graph::add_mem_alloc
  mem_free,      ///< cudaGraphNodeTypeMemFree, made by Graph::add_mem_free
};

/// The number of NodeKind values.
inline constexpr int node_kind_count = 12;

/// The kind's name as it appears in messages, dumps and DOT output ("kernel", "event_record", ...).
const char* to_string(NodeKind kind) noexcept;

/// Everything an error message needs to name a plan node, copied out of the plan so that it
/// stays valid after the plan is gone.
struct NodeInfo {
  std::uint32_t index = 0;   ///< position in its plan (creation order)
  NodeKind kind = NodeKind::empty;  ///< what the node does
  std::string name;          ///< the user's name; empty when the node was never named
  std::string graph;         ///< the name of the plan that holds the node
  /// Where the plan sits when it is nested, e.g. "in child node 'sub' (#2) of graph 'outer'";
  /// empty for a top-level node.
  std::string context;

  /// `'name'` when named, `#index` otherwise (the short form used in cycles and edges).
  std::string ref() const;
  /// `kernel node 'saxpy' (#3)` or `kernel node #3`, followed by the context when nested.
  std::string describe() const;
};

}  // namespace graphdsl
