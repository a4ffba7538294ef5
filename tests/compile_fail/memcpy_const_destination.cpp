// add_memcpy into a const destination.
// expect: graphdsl add_memcpy: the destination is const
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, const float* dst, const float* src) { g.add_memcpy(dst, src, 16); }
