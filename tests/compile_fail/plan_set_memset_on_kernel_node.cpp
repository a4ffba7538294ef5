// A plan's setter of the wrong node kind: Graph::set_memset given a kernel node.
// expect: no matching (member )?function for call to .*set_memset
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, const graphdsl::KernelNode<int*>& node, int* p) {
  g.set_memset(node, p, 1, 16);
}
