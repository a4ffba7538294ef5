// add_mem_free takes the GraphBuffer an add_mem_alloc returned, never a raw pointer (row 44).
// expect: no matching (member )?function for call to .*add_mem_free
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, float* p) { g.add_mem_free(p); }
