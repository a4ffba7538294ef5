// after() with a node index instead of a handle: one static_assert naming the rule (docs/errors.md),
// not three errors from inside node.hpp.
// expect: graphdsl after\(\)/before\(\): each argument must be a node handle
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g) {
  g.add_empty();
  g.add_empty().after(0);
}
