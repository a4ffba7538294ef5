// A host node's callable is called with no arguments (row 27: any callable, never a raw pointer + void*).
// expect: graphdsl add_host: the callable must be invocable with no arguments
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g) {
  g.add_host([](int) {});
}
