// tests/complexity/family_complexity_test.cpp — the GPU-free parts of ShapeFamily and dispatch cost
// at most ~linear time (complexity_support.hpp): adding variants of n nodes (validation, fingerprint,
// grouping), the pair diff behind a switch's changed-node count, and building a dispatch whose bodies
// hold n nodes in all. No CUDA call.
#include <string>
#include <vector>

#include <graphdsl/dispatch.hpp>
#include <graphdsl/shape_family.hpp>

#include "catch.hpp"
#include "complexity_support.hpp"

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace family_complexity_test {

namespace gd = graphdsl;
using complexity::check_growth;

void layer(float*, int, int) {}
float* const X = reinterpret_cast<float*>(0x10000);
int* const SIZE = reinterpret_cast<int*>(0x20000);

/// A chain of n kernel nodes for batch size b (grid and argument follow b).
gd::Graph step(std::size_t n, int b) {
  gd::Graph g("step");
  g.reserve(n);
  gd::Node prev;
  for (std::size_t i = 0; i < n; ++i) {
    auto k = g.add_kernel(layer, gd::Launch{static_cast<unsigned>(b), 32}, X, b, static_cast<int>(i));
    if (i > 0) k.after(prev);
    prev = k;
  }
  return g;
}

/// Eight variants of n nodes each (b = 1, 2, 4, ..., 128), built outside the timing.
std::vector<gd::Graph> variants(std::size_t n) {
  std::vector<gd::Graph> v;
  for (int b = 1; b <= 128; b *= 2) v.push_back(step(n, b));
  return v;
}

TEST_CASE("complexity: ShapeFamily add and the pair diff", "[complexity][shape_family]") {
  check_growth("ShapeFamily::add of 8 variants", 500, variants, [](std::vector<gd::Graph>& v) {
    gd::ShapeFamily<int> family;
    int b = 1;
    for (gd::Graph& g : v) {
      family.add(b, std::move(g));
      b *= 2;
    }
    return family.size();
  });
  check_growth("ShapeFamily::changed_nodes of 7 pairs", 500, variants, [](std::vector<gd::Graph>& v) {
    gd::ShapeFamily<int> family;
    int b = 1;
    for (gd::Graph& g : v) {
      family.add(b, std::move(g));
      b *= 2;
    }
    std::size_t k = 0;
    for (int x = 1; x < 128; x *= 2) k += family.changed_nodes(x, 2 * x);
    return k;
  });
}

TEST_CASE("complexity: dispatch with bodies of n nodes in all", "[complexity][dispatch]") {
  const gd::Buckets buckets(1, 128, {1, 2, 4, 8, 16, 32, 64, 128});
  check_growth("dispatch of 8 buckets", 1000, [](std::size_t n) { return n; }, [&](std::size_t n) {
    gd::Graph g("serve");
    gd::dispatch(g, "decode", SIZE, buckets, [&](const gd::Bucket& b, gd::Graph& body) {
      gd::Node prev;
      for (std::size_t i = 0; i < n / 8; ++i) {
        auto k = body.add_kernel(layer, gd::Launch{static_cast<unsigned>(b.upper), 32}, X, b.upper, static_cast<int>(i));
        if (i > 0) k.after(prev);
        prev = k;
      }
    });
    return g;
  });
}

}  // namespace family_complexity_test
