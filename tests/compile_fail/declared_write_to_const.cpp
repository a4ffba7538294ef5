// gd::writes on a pointer to const: the static race checker (docs/races.md) refuses a declared
// write the kernel cannot make.
// expect: graphdsl gd::writes: the pointer points to const
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, const float* p) { g.add_host([] {}).accesses(graphdsl::writes(p, 4)); }
