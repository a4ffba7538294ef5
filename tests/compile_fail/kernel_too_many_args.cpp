// add_kernel with more arguments than the kernel has parameters (catalogue row 10).
// expect: graphdsl add_kernel: the number of arguments differs
#include <graphdsl/graph.hpp>

void kernel(int*, float) {}

void misuse(graphdsl::Graph& g, int* p) { g.add_kernel(kernel, graphdsl::Launch{}, p, 1.0f, 7); }
