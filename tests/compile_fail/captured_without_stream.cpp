// A captured node's function must take the capturing stream.
// expect: graphdsl add_captured: the function must be invocable as fn.cudaStream_t.
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g) {
  g.add_captured([] {});
}
