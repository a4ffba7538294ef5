// add_kernel with a float* for an int* parameter: the driver would read the bytes anyway (row 10). The compiler names the
// argument's position and both types in the instantiation of KernelArgument<N, Argument, Parameter>.
// expect: KernelArgument<1, float\*&, int\*>.*graphdsl add_kernel: argument N cannot be converted to the kernel's parameter type
#include <graphdsl/graph.hpp>

void kernel(int*, int) {}

void misuse(graphdsl::Graph& g, float* p) { g.add_kernel(kernel, graphdsl::Launch{}, p, 3); }
