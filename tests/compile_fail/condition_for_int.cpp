// A Condition may only be passed for a cudaGraphConditionalHandle parameter, not for an int.
// expect: graphdsl add_kernel: argument N cannot be converted to the kernel's parameter type
#include <graphdsl/graph.hpp>

void kernel(int) {}

void misuse(graphdsl::Graph& g) {
  const graphdsl::Condition cond = g.add_condition(1);
  g.add_kernel(kernel, graphdsl::Launch{}, cond);
}
