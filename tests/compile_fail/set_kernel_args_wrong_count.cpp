// The per-node setter checks its arguments like add_kernel does (row 17).
// expect: graphdsl add_kernel: the number of arguments differs
#include <graphdsl/executable.hpp>

void kernel(int*, float) {}

void misuse(graphdsl::Executable& exec, const graphdsl::KernelNode<int*, float>& node, int* p) {
  exec.set_kernel_args(node, p);
}
