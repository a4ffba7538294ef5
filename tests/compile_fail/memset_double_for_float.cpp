// add_memset with a double value for float elements: rounding 0.1 to a float silently would change
// the value written; the message says what to write (an int value that fits, like 0, converts).
// expect: graphdsl add_memset: the value is neither of the element type nor an integer: write it as the element type \(e.g. 0.5f
#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g, float* p) { g.add_memset(p, 0.1, 16); }
