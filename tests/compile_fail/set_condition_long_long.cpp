// add_set_condition supports int, unsigned int, float and double values only.
// expect: graphdsl add_set_condition: the value type must be int, unsigned int, float or double
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, const long long* value) {
  const graphdsl::Condition cond = g.add_condition(1);
  g.add_set_condition(cond, value, graphdsl::Compare::greater, 5LL);
}
