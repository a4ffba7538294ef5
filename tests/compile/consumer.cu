// A user's CUDA translation unit that includes the umbrella header only (tests/compile: compiled
// by nvcc in C++17 and C++20). The umbrella must stay free of fmt: fmt is the costliest include a
// user would otherwise pay for in every TU (docs/performance.md, "Include cost").
#include <cstdio>
#include <graphdsl/graphdsl.hpp>

#ifdef FMT_VERSION
#error "graphdsl/graphdsl.hpp must not include fmt (include <graphdsl/format.hpp> for the formatters)"
#endif
// Nor <functional>, <unordered_map>, <algorithm> or <iterator> (each thousands of preprocessed
// lines; the macros are libstdc++'s include guards, so other standard libraries skip this check).
// <memory> and <tuple> are kept out of graphdsl's own includes too, but libstdc++ 13's <string>
// brings <tuple> itself: scripts/check-structure.sh checks graphdsl's include lines instead.
#if defined(_GLIBCXX_FUNCTIONAL) || defined(_GLIBCXX_UNORDERED_MAP) || defined(_GLIBCXX_ALGORITHM) || \
    defined(_GLIBCXX_ITERATOR)
#error "graphdsl/graphdsl.hpp must not include <functional>, <unordered_map>, <algorithm> or <iterator>"
#endif

namespace gd = graphdsl;

// The plan's storage stays out of the public headers (src/plan/graph_impl.hpp): graph.hpp only
// declares detail::GraphImpl, so a user's TU does not instantiate its two dozen containers.
template <class T, class = void>
struct is_complete : std::false_type {};
template <class T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
static_assert(!is_complete<gd::detail::GraphImpl>::value,
              "graphdsl/graphdsl.hpp must not define detail::GraphImpl (it belongs to src/plan/graph_impl.hpp)");

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

int main() {
  const int n = 1024;
  float* dev = reinterpret_cast<float*>(0x1000);  // never dereferenced: the plan is only validated
  float host[4] = {};
  gd::Graph g("consumer");
  auto up = g.add_memcpy(dev, host, 4).name("upload");
  auto k = g.add_kernel(scale, gd::cover(n), dev, 2.0, n).name("scale").after(up);
  g.add_host([] {}).name("done").after(k);
  std::printf("%s", g.dump().c_str());
  return 0;
}
