// add_kernel with an argument that does not convert to its parameter: std::string for int (row 10). The compiler names the
// argument's position and both types in the instantiation of KernelArgument<N, Argument, Parameter>.
// expect: KernelArgument<2, std::(__cxx11::)?basic_string<char>&?&?, int>.*graphdsl add_kernel: argument N cannot be converted to the kernel's parameter type
#include <string>

#include <graphdsl/graph.hpp>

void kernel(int*, int) {}

void misuse(graphdsl::Graph& g, int* p) { g.add_kernel(kernel, graphdsl::Launch{}, p, std::string("3")); }
