// An Executable owns its cudaGraphExec_t: it is move-only (copy assignment).
// expect: use of deleted function|overload resolution selected deleted operator
#include <graphdsl/executable.hpp>

void misuse(graphdsl::Executable& a, const graphdsl::Executable& b) { a = b; }
