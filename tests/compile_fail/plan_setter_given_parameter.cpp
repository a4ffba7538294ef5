// A plan's setters take values too: a Parameter given to Graph::set_kernel_args is refused at compile
// time, as by Executable's (a parameter's value changes through Executable::set(param, value)).
// expect: graphdsl setters take values, not Parameters
#include <graphdsl/graph.hpp>

void kernel2(int*, float) {}

void misuse(graphdsl::Graph& g, int* ip) {
  const auto lr = g.parameter<float>(0.5f);
  auto k = g.add_kernel(kernel2, graphdsl::Launch{}, ip, 1.0f);
  g.set_kernel_args(k, ip, lr);
}
