// add_kernel with an argument that does not convert to its parameter: std::string for int (row 10).
// expect: graphdsl add_kernel: an argument does not convert
#include <string>

#include <graphdsl/graph.hpp>

void kernel(int*, int) {}

void misuse(graphdsl::Graph& g, int* p) { g.add_kernel(kernel, graphdsl::Launch{}, p, std::string("3")); }
