// A memset element is 1, 2 or 4 bytes: double (8 bytes) is refused at compile time (row 19).
// expect: graphdsl add_memset: the element type must be 1, 2 or 4 bytes wide
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, double* p) { g.add_memset(p, 1.0, 16); }
