// add_memcpy between different element types (use add_memcpy_bytes for raw bytes).
// expect: graphdsl add_memcpy: source and destination element types differ
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, float* dst, const int* src) { g.add_memcpy(dst, src, 16); }
