// gd::writes for a const T* parameter: the kernel cannot write through it (docs/races.md).
// expect: graphdsl add_kernel: gd::writes is given for a const T\* parameter
#include <graphdsl/graph.hpp>

void kernel(const float*, int) {}

void misuse(graphdsl::Graph& g, float* p) { g.add_kernel(kernel, graphdsl::Launch{}, graphdsl::writes(p, 4), 4); }
