// gd::writes on a pointer to const (issue 17).
// expect: graphdsl gd::writes: the pointer points to const
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, const float* p) { g.add_host([] {}).accesses(graphdsl::writes(p, 4)); }
