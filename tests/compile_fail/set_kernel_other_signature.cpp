// set_kernel cannot switch a node to a kernel of another signature (row 17: the driver accepts it).
// expect: no matching (member )?function for call to .*set_kernel
#include <graphdsl/executable.hpp>

void other(int*, int) {}

void misuse(graphdsl::Executable& exec, const graphdsl::KernelNode<int*>& node, int* p) {
  exec.set_kernel(node, other, graphdsl::Launch{}, p, 1);
}
