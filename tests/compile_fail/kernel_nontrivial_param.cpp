// A kernel parameter that is not trivially copyable cannot be copied into the plan as bytes.
// expect: graphdsl add_kernel: kernel parameters must be trivially copyable
#include <graphdsl/graph.hpp>

struct Counted {
  Counted() = default;
  Counted(const Counted&) {}  // user-provided copy: not trivially copyable
  int value = 0;
};

void kernel(Counted) {}

void misuse(graphdsl::Graph& g) { g.add_kernel(kernel, graphdsl::Launch{}, Counted{}); }
