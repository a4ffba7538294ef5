// An Executable owns its cudaGraphExec_t: it is move-only (copy construction).
// expect: use of deleted function|call to deleted constructor
#include <graphdsl/executable.hpp>

graphdsl::Executable misuse(const graphdsl::Executable& exec) {
  graphdsl::Executable copy = exec;
  return copy;
}
