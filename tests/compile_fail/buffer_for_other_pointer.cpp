// A GraphBuffer<float> may be passed for a float* or const float* parameter, not for an int*.
// expect: graphdsl add_kernel: argument N cannot be converted to the kernel's parameter type
#include <graphdsl/graph.hpp>

void kernel(int*, int) {}

void misuse(graphdsl::Graph& g) {
  auto alloc = g.add_mem_alloc<float>(16);
  g.add_kernel(kernel, graphdsl::Launch{}, alloc.buffer, 16).after(alloc.node);
}
