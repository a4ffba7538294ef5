// A memset element is 1, 2 or 4 bytes: a 3-byte struct is refused at compile time (row 19).
// expect: graphdsl add_memset: the element type must be 1, 2 or 4 bytes wide
#include <graphdsl/graph.hpp>

struct Rgb {
  unsigned char r, g, b;
};
static_assert(sizeof(Rgb) == 3, "the snippet needs a 3-byte type");

void misuse(graphdsl::Graph& g, Rgb* p) { g.add_memset(p, Rgb{1, 2, 3}, 16); }
