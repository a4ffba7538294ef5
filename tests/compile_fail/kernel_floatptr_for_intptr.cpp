// add_kernel with a float* for an int* parameter: the driver would read the bytes anyway (row 10).
// expect: graphdsl add_kernel: an argument does not convert
#include <graphdsl/graph.hpp>

void kernel(int*, int) {}

void misuse(graphdsl::Graph& g, float* p) { g.add_kernel(kernel, graphdsl::Launch{}, p, 3); }
