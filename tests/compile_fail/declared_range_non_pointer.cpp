// gd::reads on a parameter that is not a pointer: a declared range only makes sense for a T* or
// const T* parameter (the static race checker, docs/races.md).
// expect: graphdsl add_kernel: gd::reads / gd::writes is given for a parameter that is not a pointer
#include <graphdsl/graph.hpp>

void kernel(float*, int) {}

void misuse(graphdsl::Graph& g, float* p, int* count) {
  g.add_kernel(kernel, graphdsl::Launch{}, p, graphdsl::reads(count, 1));
}
