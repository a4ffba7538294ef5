// Unit tests of gd::ShapeFamily's GPU-free part (graphdsl/shape_family.hpp): keying, grouping by
// topology (fingerprints), the pair diffs, and the errors that name the variant and the node. No
// CUDA call: compile() and launch() are the GPU suite's (tests/gpu/shape_family_test.cpp).
#include <string>

#include <graphdsl/shape_family.hpp>

#include "unit_support.hpp"

namespace shape_family_test {

namespace {
namespace gd = graphdsl;
void layer(float*, const float*, int, int) {}
void norm(float*, int) {}

float* const X = reinterpret_cast<float*>(0x10000);
float* const Y = reinterpret_cast<float*>(0x20000);

// A decode-like step for batch size b: `layers` layers of (layer, norm), the grid following b.
gd::Graph step(int b, int layers = 4, bool extra = false) {
  gd::Graph g("step b=" + std::to_string(b));
  gd::Node prev;
  for (int l = 0; l < layers; ++l) {
    auto k = g.add_kernel(layer, gd::Launch{static_cast<unsigned>(b), 64}, Y, X, b, l).name("layer " + std::to_string(l));
    auto n = g.add_kernel(norm, gd::Launch{static_cast<unsigned>(b), 64}, Y, b).name("norm " + std::to_string(l)).after(k);
    if (l > 0) k.after(prev);
    prev = n;
  }
  if (extra) g.add_memset(Y, 0.0f, 16).name("extra").after(prev);
  return g;
}

gd::Graph with_alloc(int b) {
  gd::Graph g("alloc b=" + std::to_string(b));
  auto a = g.add_mem_alloc<float>(static_cast<std::size_t>(64 * b));
  a.node.name("scratch");
  auto k = g.add_kernel(layer, gd::Launch{1, 64}, a.buffer, X, b, 0).name("use").after(a.node);
  g.add_mem_free(a.buffer).name("free").after(k);
  return g;
}
}  // namespace

TEST_CASE("a shape family groups variants by topology, with no CUDA call", "[shape_family]") {
  const std::uint64_t calls = gd::debug::cuda_calls();
  gd::ShapeFamily<int> family;
  for (int b : {1, 2, 4, 8, 16, 32, 64, 128}) family.add(b, step(b));
  CHECK(family.size() == 8);
  CHECK(family.topologies() == 1);
  family.add(1000, step(4, 4, true));  // another topology: an executable of its own
  family.add(1001, step(8, 4, true));
  CHECK(family.topologies() == 2);
  CHECK(family.topology(1) == 0);
  CHECK(family.topology(128) == 0);
  CHECK(family.topology(1000) == 1);
  CHECK(family.topology(1001) == 1);
  // Every kernel's grid and argument follow b: all 8 nodes differ; a variant does not differ from itself.
  CHECK(family.changed_nodes(1, 2) == 8);
  CHECK(family.changed_nodes(2, 1) == 8);
  CHECK(family.changed_nodes(4, 4) == 0);
  CHECK(family.plan(16).name() == "step b=16");
  CHECK(family.executable(1) == nullptr);  // nothing compiled yet
  const gd::FamilyMemory m = family.memory();
  CHECK(m.variants == 10);
  CHECK(m.topologies == 2);
  CHECK(m.device_bytes == 0);
  CHECK(m.prepared == 0);
  CHECK(m.host_bytes > 0);  // the plans' storage
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("shape family keys: duplicates and unknown keys are refused, labels follow the key", "[shape_family]") {
  gd::ShapeFamily<int> family;
  family.add(4, step(4));
  CHECK_USAGE_ERROR(family.add(4, step(4)),
                    "graphdsl: shape family: variant '4' was added before (one plan per key)");
  CHECK_USAGE_ERROR(family.launch(5), "graphdsl: shape family: no variant was added for this key");
  CHECK_USAGE_ERROR(family.topology(5), "graphdsl: shape family: no variant was added for this key");
  CHECK(family.size() == 1);

  gd::ShapeFamily<std::string> named;
  named.add("prefill", step(8));
  CHECK_USAGE_ERROR(named.add("prefill", step(8)),
                    "graphdsl: shape family: variant 'prefill' was added before (one plan per key)");
  struct Opaque {
    int v;
    bool operator==(const Opaque& o) const { return v == o.v; }
  };
  gd::ShapeFamily<Opaque> opaque;
  opaque.add(Opaque{1}, step(1));
  CHECK_USAGE_ERROR(opaque.add(Opaque{1}, step(1)),
                    "graphdsl: shape family: variant 'variant #1' was added before (one plan per key)");
}

TEST_CASE("shape family: a refused variant names itself and the node, and leaves the family as it was",
          "[shape_family]") {
  gd::ShapeFamily<int> family;
  family.add(1, step(1));
  gd::Graph bad("bad");
  bad.add_memset(static_cast<float*>(nullptr), 0.0f, 16).name("fill");
  CHECK_USAGE_ERROR(family.add(2, bad),
                    "graphdsl: shape family: variant '2': memset node 'fill' (#0): the destination pointer is null");
  CHECK_USAGE_ERROR(family.add(3, gd::Graph("empty")), "graphdsl: shape family: variant '3': plan 'empty' has no node");
  CHECK(family.size() == 1);
  CHECK(family.topologies() == 1);
  family.add(2, step(2));  // the key is free again
  CHECK(family.size() == 2);
}

TEST_CASE("shape family: variants that differ only in a graph allocation's size are refused by name",
          "[shape_family]") {
  gd::ShapeFamily<int> family;
  family.add(1, with_alloc(1));
  const std::string e = unit::usage_error_of([&] { family.add(8, with_alloc(8)); });
  CHECK_THAT(e, has_substr("graphdsl: shape family: variant '8' has the topology of variant '1' but for a graph "
                           "allocation: "));
  CHECK_THAT(e, has_substr("mem_alloc node 'scratch' (#0)"));
  CHECK_THAT(e, has_substr("allocate the largest variant's size in every variant"));
  CHECK(family.size() == 1);
  // Sized for the largest variant, both share the topology.
  gd::Graph big = with_alloc(1);
  family.add(2, std::move(big));
  CHECK(family.topologies() == 1);
}

TEST_CASE("SwitchReport, FamilyMemory and SwitchStrategy print", "[shape_family]") {
  gd::SwitchReport r;
  r.from = "4";
  r.to = "8";
  r.node_count = 100;
  r.changed_nodes = 3;
  r.per_node_us = 5.25;
  r.prepared_us = 40;
  r.prepared_available = true;
  r.chosen = gd::SwitchStrategy::per_node;
  r.took_us = 4.5;
  CHECK(r.to_string() ==
        "switch '4' -> '8' (topology 0, 3 of 100 nodes differ): per_node (est. per_node 5.2 us, prepared 40.0 us), "
        "took 4.5 us");
  r.chosen = gd::SwitchStrategy::prepared;
  r.prepare_us = 812.25;
  CHECK(r.to_string() ==
        "switch '4' -> '8' (topology 0, 3 of 100 nodes differ): prepared (est. per_node 5.2 us, prepared 40.0 us), "
        "took 4.5 us (after preparing it: 812.2 us)");
  r.prepare_us = 0;
  r.prepared_available = false;
  r.chosen = gd::SwitchStrategy::none;
  r.took_us = 0;
  CHECK(r.to_string() == "switch '4' -> '8' (topology 0, 3 of 100 nodes differ): none");
  CHECK(std::string(gd::to_string(gd::SwitchStrategy::prepared)) == "prepared");
  CHECK(std::string(gd::to_string(gd::SwitchStrategy::dedicated)) == "dedicated");
  gd::FamilyMemory m;
  m.variants = 8;
  m.topologies = 1;
  m.device_bytes = 1 << 20;
  m.separate_device_bytes = 8 << 20;
  m.host_bytes = 2 << 20;
  m.separate_host_bytes = 8 << 20;
  CHECK(m.to_string() ==
        "8 variants, 1 topology, 0 dedicated: device 1.0 MiB (separate 8.0 MiB, 0.125), host 2.0 MiB (separate 8.0 "
        "MiB, 0.250)");
}

}  // namespace shape_family_test
