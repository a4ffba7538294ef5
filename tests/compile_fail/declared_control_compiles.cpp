// The control of the declared-range snippets (declared_*.cpp): their correct counterparts compile.
// expect: compiles
#include <graphdsl/graph.hpp>

namespace gd = graphdsl;

void kernel(float*, const float*, int) {}

void correct(gd::Graph& g, float* p, const float* cp) {
  auto [alloc, buf] = g.add_mem_alloc<float>(16);
  g.add_kernel(kernel, gd::Launch{}, gd::writes(p, 4), gd::reads(cp, 4), 4);  // ranges for pointers
  g.add_kernel(kernel, gd::Launch{}, gd::reads(p, 2, 2), gd::reads(p, 4), 4);  // gd::reads narrows a T*
  g.add_kernel(kernel, gd::Launch{}, gd::writes(buf, 8), gd::reads(buf, 8, 8), 4).after(alloc);
  g.add_host([] {}).accesses(gd::reads(cp, 4), gd::writes(p, 4), gd::writes(buf, 16));
  const gd::RaceReport r = g.check_races();
  (void)r.to_string();
}
