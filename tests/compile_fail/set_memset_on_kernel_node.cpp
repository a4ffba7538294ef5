// A setter of the wrong node kind: set_memset given a kernel node (row 69).
// expect: no matching (member )?function for call to .*set_memset
#include <graphdsl/executable.hpp>

void misuse(graphdsl::Executable& exec, const graphdsl::KernelNode<int*>& node, int* p) {
  exec.set_memset(node, p, 1, 16);
}
