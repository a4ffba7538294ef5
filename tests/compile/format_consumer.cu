// A user's CUDA translation unit that formats graphdsl values with fmt through
// <graphdsl/format.hpp> (tests/compile: compiled by nvcc in C++17 and C++20; fmt 9's consteval
// format strings fail under nvcc's C++20 mode unless format.hpp's workaround is in place).
#include <graphdsl/format.hpp>
#include <graphdsl/graphdsl.hpp>

namespace gd = graphdsl;

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

int main() {
  float* dev = reinterpret_cast<float*>(0x1000);  // never dereferenced: the plan is only printed
  gd::Graph g("format_consumer");
  auto k = g.add_kernel(scale, gd::cover(256), dev, 2.0f, 256).name("scale");
  fmt::print("{}{} {} {}\n", g, k, gd::cover(256), gd::NodeKind::kernel);
  const std::string s = fmt::format("{:>12}|{}", "width", 42);
  return s.size() == 15 ? 0 : 1;
}
