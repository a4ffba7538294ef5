// add_set_condition with a double tolerance for a float value: the message says to write 1e-6f.
// expect: graphdsl add_set_condition: the operand is neither of the value's type nor an integer: write it as the value's type \(e.g. 1e-6f
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, const float* residual) {
  const graphdsl::Condition cond = g.add_condition(1);
  g.add_set_condition(cond, residual, graphdsl::Compare::greater, 1e-6);
}
