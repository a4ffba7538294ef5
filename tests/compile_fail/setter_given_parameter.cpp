// Per-node setters take values: a Parameter given to set_kernel_args is refused at compile time
// (Executable::set(param, value) is how a parameter changes).
// expect: graphdsl setters take values, not Parameters
#include <graphdsl/executable.hpp>

void kernel2(int*, float) {}

void misuse(graphdsl::Graph& g, graphdsl::Executable& exec, int* ip) {
  const auto lr = g.parameter<float>(0.5f);
  auto k = g.add_kernel(kernel2, graphdsl::Launch{}, ip, lr);
  exec.set_kernel_args(k, ip, lr);
}
