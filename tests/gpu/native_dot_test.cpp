// Executable::native_dot: the driver's DOT (cudaGraphDebugDotPrint) with the plan's names on its nodes.
#include "gpu_support.hpp"

namespace {
using gpu_test::DeviceBuffer;
}  // namespace

TEST_CASE("native_dot: the driver's DOT of the compiled graph, with the plan's node names", "[gpu][dot]") {
  DeviceBuffer<float> x(std::vector<float>(256, 1.0f));
  gd::Graph g("dotted");
  auto clear = g.add_memset(x.get(), 0.0f, 256).name("clear");
  auto scale = g.add_kernel(gpu_test::scale_by, gd::cover(256), x.get(), 2.0f, 256).name("scale {x|2}").after(clear);
  g.add_kernel(gpu_test::scale_by, gd::cover(256), x.get(), 3.0f, 256).after(scale);
  gd::Executable exec = g.instantiate();

  const std::string verbose = exec.native_dot();
  INFO(verbose);
  CHECK_THAT(verbose, has_substr("digraph"));
  CHECK_THAT(verbose, has_substr("{'clear' (#0)|MEMSET"));
  // record characters in a name are escaped; an unnamed node is named by its index
  CHECK_THAT(verbose, has_substr("{'scale \\{x\\|2\\}' (#1)|KERNEL"));
  CHECK_THAT(verbose, has_substr("{#2|KERNEL"));
  const std::string plain = exec.native_dot(0);
  INFO(plain);
  CHECK_THAT(plain, has_substr("label=\"'clear' (#0)\n"));
  CHECK_THAT(plain, has_substr("label=\"#2\n"));
  // the file it went through is gone
  CHECK(verbose.find("graph_") != std::string::npos);
}
