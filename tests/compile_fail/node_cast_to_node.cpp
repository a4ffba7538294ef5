// node_cast converts to a typed handle; a plain Node (or another type) is not one.
// expect: graphdsl node_cast<Handle>: Handle must be a typed node handle
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g) { (void)graphdsl::node_cast<graphdsl::Node>(g.add_empty()); }
