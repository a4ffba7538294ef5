// Edge kinds (programmatic dependent launch, launch completion) on the plan: how they are added,
// shown, compared and checked, without a GPU. On the device: tests/gpu/launch_attributes_test.cpp.
#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {
gd::Graph chain(unit::Buffers& b, gd::EdgeKind second) {
  gd::Graph g("chain");
  auto k0 = g.add_kernel(unit::scale, gd::cover(64), b.x, 2.0f, 64).name("k0");
  auto k1 = g.add_kernel(unit::scale, gd::cover(64), b.x, 3.0f, 64).name("k1").after(k0, gd::programmatic);
  g.add_kernel(unit::scale, gd::cover(64), b.x, 4.0f, 64).name("k2").after(k1, second);
  return g;
}
}  // namespace

TEST_CASE("edge kinds: programmatic and launch-completion edges are kept, shown and compared", "[edges][pdl]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  const gd::Graph g = chain(b, gd::launch_completion);
  CHECK_NOTHROW(g.validate());
  CHECK(g.edge_count() == 2);
  CHECK(g.dump() == "graph 'chain': 3 nodes, 2 edges\n"
                    "  #0 kernel 'k0': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B)\n"
                    "  #1 kernel 'k1': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B); after 'k0' (programmatic)\n"
                    "  #2 kernel 'k2': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B); after 'k1' "
                    "(launch_completion)\n");
  const std::string dot = g.to_dot();
  CHECK_THAT(dot, has_substr("n0 -> n1 [style=dashed, label=\"programmatic\"];"));
  CHECK_THAT(dot, has_substr("n1 -> n2 [style=dashed, label=\"launch_completion\"];"));
  const std::vector<gd::Edge> edges = g.edges();
  REQUIRE(edges.size() == 2);
  CHECK(edges[0].kind == gd::EdgeKind::programmatic);
  CHECK(edges[1].kind == gd::EdgeKind::launch_completion);
  // The kind is part of the shape: another kind is another fingerprint and an update CUDA refuses.
  CHECK(chain(b, gd::launch_completion).fingerprint() == g.fingerprint());
  CHECK(chain(b, gd::programmatic).fingerprint() != g.fingerprint());
  CHECK(chain(b, gd::EdgeKind::full).fingerprint() != g.fingerprint());
  const gd::UpdateResult r = gd::diff(g, chain(b, gd::EdgeKind::full));
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason == "edge 'k1' -> 'k2' is launch_completion in the executable but full in the template; CUDA cannot "
                    "change the kind of an edge in place");
  CHECK(gd::diff(g, chain(b, gd::launch_completion)).status == gd::UpdateStatus::success);
  // Adding the edge again with another kind takes that kind; a full edge drops the record.
  gd::Graph h = chain(b, gd::launch_completion);
  auto k1 = gd::node_cast<gd::KernelNodeOf<decltype(unit::scale)>>(*h.find("k1"));
  auto k2 = gd::node_cast<gd::KernelNodeOf<decltype(unit::scale)>>(*h.find("k2"));
  k2.after(k1, gd::programmatic);
  CHECK(h.edges()[1].kind == gd::EdgeKind::programmatic);
  k2.after(k1, gd::EdgeKind::full);
  CHECK(h.edges()[1].kind == gd::EdgeKind::full);
  CHECK(h.edge_count() == 2);
  CHECK(std::string(gd::to_string(gd::EdgeKind::programmatic)) == "programmatic");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("edge kinds: a programmatic edge joins two kernels; validate() names the node otherwise", "[edges][pdl]") {
  unit::Buffers b;
  gd::Graph g("g");
  auto copy = g.add_memcpy(b.x, b.host_in, 64).name("upload");
  g.add_kernel(unit::scale, gd::cover(64), b.x, 2.0f, 64).name("k").after(copy, gd::programmatic);
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: kernel node 'k' (#1): its programmatic edge from memcpy node 'upload' "
                                  "(#0): CUDA allows programmatic edges between kernel nodes only");
  gd::Graph h("h");
  auto k = h.add_kernel(unit::scale, gd::cover(64), b.x, 2.0f, 64).name("k");
  h.add_empty().name("join").after(k, gd::launch_completion);
  CHECK_USAGE_ERROR(h.validate(), "graphdsl: empty node 'join' (#1): its launch_completion edge from kernel node 'k' "
                                  "(#0): CUDA allows launch_completion edges between kernel nodes only");
}
