// tests/gpu/getters_test.cpp — what the plan's getters report runs as reported, and the small API
// additions beside them run on the device: set_memset with an integer value, chain(), and
// add_child(Graph&&).
#include <cstdint>
#include <utility>
#include <vector>

#include "gpu_support.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite's files in batches (unity builds).
namespace getters_test {

TEST_CASE("set_memset with an integer value sets 8-bit elements, as add_memset does", "[gpu][memset][setters]") {
  const std::size_t n = 777;
  DeviceBuffer<std::uint8_t> d(std::vector<std::uint8_t>(n, 0x5a));  // not zeros: a memset that did nothing shows
  gd::Graph g("memset_int");
  auto fill = g.add_memset(d.get(), 0x11, n).name("fill");
  CHECK(g.memset_of(fill).value == 0x11u);
  CHECK(g.memset_of(fill).element_size == 1);
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  require_equal(d.download(), std::vector<std::uint8_t>(n, 0x11), "0x11 everywhere");
  exec.set_memset(fill, d.get(), 0x22, n);
  exec.launch();
  exec.synchronize();
  require_equal(d.download(), std::vector<std::uint8_t>(n, 0x22), "0x22 everywhere after set_memset");
}

TEST_CASE("chain orders the nodes it is given", "[gpu][chain]") {
  auto gen = rng(71);
  const int n = 1500;
  const std::vector<float> x = random_floats(n, gen);
  DeviceBuffer<float> d(x);
  gd::Graph g("chain");
  auto add = g.add_kernel(add_scalar, gd::cover(n), d.get(), 1.0f, n).name("add");
  auto twice = g.add_kernel(scale_by, gd::cover(n), d.get(), 2.0f, n).name("twice");
  auto again = g.add_kernel(add_scalar, gd::cover(n), d.get(), 0.5f, n).name("again");
  g.chain({twice, add, again});  // (2x + 1) + 0.5, whatever the creation order
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = 2.0f * x[i] + 1.0f + 0.5f;
  require_equal(d.download(), want, "2x + 1.5");
}

TEST_CASE("add_child(Graph&&) runs the moved plan as add_child(const Graph&) runs a copy", "[gpu][child]") {
  auto gen = rng(72);
  const int n = 999;
  const std::vector<float> x = random_floats(n, gen);
  DeviceBuffer<float> d_moved(x), d_copied(x);
  const auto make_child = [n](float* p) {
    gd::Graph c("child");
    auto k = c.add_kernel(scale_by, gd::cover(n), p, 3.0f, n).name("triple");
    c.add_kernel(add_scalar, gd::cover(n), p, -1.0f, n).name("minus_one").after(k);
    return c;
  };
  gd::Graph moved("moved");
  moved.add_child(make_child(d_moved.get())).name("sub");  // a temporary: moved in, not copied
  gd::Graph copied("copied");
  const gd::Graph child = make_child(d_copied.get());
  copied.add_child(child).name("sub");
  for (gd::Graph* g : {&moved, &copied}) {
    gd::Executable exec = g->instantiate();
    exec.launch();
    exec.synchronize();
  }
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = 3.0f * x[i] - 1.0f;
  require_equal(d_moved.download(), want, "3x - 1 through the moved child");
  require_equal(d_copied.download(), want, "3x - 1 through the copied child");
}

}  // namespace getters_test
