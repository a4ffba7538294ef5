// A Condition may only be passed for a cudaGraphConditionalHandle parameter, not for an int.
// expect: graphdsl add_kernel: an argument does not convert
#include <graphdsl/graph.hpp>

void kernel(int) {}

void misuse(graphdsl::Graph& g) {
  const graphdsl::Condition cond = g.add_condition(1);
  g.add_kernel(kernel, graphdsl::Launch{}, cond);
}
