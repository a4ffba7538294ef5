// Plan-only host code (no kernels, no nvcc): builds a plan, validates it and prints it, the way a
// tool that only describes graphs would. tests/compile compiles it with g++ and clang++ in C++17,
// C++20 and C++23, warnings as errors.
#include <cstdio>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#ifdef FMT_VERSION
#error "graphdsl/graphdsl.hpp must not include fmt (include <graphdsl/format.hpp> for the formatters)"
#endif

#include <graphdsl/format.hpp>

namespace gd = graphdsl;

int main() {
  std::vector<float> host(256, 1.0f);
  float* dev = reinterpret_cast<float*>(0x1000);  // never dereferenced: the plan is only validated
  int calls = 0;
  gd::Graph g("plan_only");
  auto up = g.add_memcpy(dev, host.data(), host.size()).name("upload");
  auto clear = g.add_memset(dev, 0.0f, host.size()).name("clear").after(up);
  auto count = g.add_host([&calls] { ++calls; }).name("count").after(clear);
  gd::Condition again = g.add_condition(0);
  g.add_while(again, [&](gd::Graph& body) { body.add_memset(dev, 1.0f, 1).name("step"); }).after(count);
  g.validate();
  std::printf("%s", g.dump().c_str());
  const std::string line = fmt::format("{} / {} / {}", g, up, gd::NodeKind::memset);
  return line.empty() ? 1 : 0;
}
