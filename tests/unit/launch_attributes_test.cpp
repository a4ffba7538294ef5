// Kernel launch attributes (cluster, cooperative, memory sync domain, L2 window) on the plan: their
// rules, dumps, DOT labels and diffs, all without a GPU. On the device: tests/gpu/launch_attributes_test.cpp.
#include "unit_support.hpp"

namespace gd = graphdsl;

TEST_CASE("launch attributes: set through Launch, shown in dumps and DOT, compared by diff", "[launch][attributes]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  auto plan = [&](gd::Launch l) {
    gd::Graph g("attrs");
    g.add_kernel(unit::scale, l, b.x, 2.0f, 64).name("k");
    return g;
  };
  const gd::Launch plain = gd::cover(256, 64);
  CHECK_FALSE(plain.has_attributes());
  const gd::Launch all = gd::cover(256, 64)
                             .with_cluster(2)
                             .with_cooperative()
                             .with_sync_domain(gd::MemSyncDomain::remote)
                             .with_l2_window(b.y, sizeof b.y, 0.5f);
  CHECK(all.has_attributes());
  CHECK(all.cluster.x == 2);
  CHECK(all.cluster.y == 1);
  const gd::Graph g = plan(all);
  CHECK_NOTHROW(g.validate());
  CHECK(g.dump() == "graph 'attrs': 1 nodes, 0 edges\n"
                    "  #0 kernel 'k': grid (4,1,1) block (64,1,1) shared 0 B, 3 args (16 B), cluster (2,1,1), "
                    "cooperative, sync domain remote, L2 window 1024 B hit 0.5 persisting/streaming\n");
  CHECK_THAT(g.to_dot(), has_substr("n0 [label=\"k\\nkernel\\ncluster (2,1,1), cooperative, sync domain remote, L2 "
                                    "window 1024 B hit 0.5 persisting/streaming\", shape=box];"));
  CHECK_THAT(plan(plain).to_dot(), has_substr("n0 [label=\"k\\nkernel\", shape=box];"));
  // The sync domain and L2 window are parameters: the same shape (fingerprint), a changed node.
  // The cluster shape and cooperative launch are shape: update() refuses their change under every
  // policy (CUDA cannot patch them), so diff() refuses it too and the fingerprint differs.
  const gd::Launch patchable = gd::cover(256, 64).with_sync_domain(gd::MemSyncDomain::remote).with_l2_window(b.y, 512);
  CHECK(plan(patchable).fingerprint() == plan(plain).fingerprint());
  CHECK(plan(all).fingerprint() != plan(plain).fingerprint());
  CHECK(gd::diff(plan(all), plan(all)).changed.empty());
  for (const gd::Launch& other : {gd::cover(256, 64).with_sync_domain(gd::MemSyncDomain::remote),
                                  gd::cover(256, 64).with_l2_window(b.y, 512)}) {
    CHECK(gd::diff(plan(plain), plan(other)).changed == std::vector<std::uint32_t>{0});
  }
  for (const gd::Launch& other : {gd::cover(256, 64).with_cluster(4), gd::cover(256, 64).with_cooperative()}) {
    CHECK(gd::diff(plan(plain), plan(other)).status == gd::UpdateStatus::attributes_changed);
    CHECK(plan(other).fingerprint() != plan(plain).fingerprint());
  }
  CHECK(std::string(gd::to_string(gd::MemSyncDomain::default_domain)) == "default");
  CHECK(std::string(gd::to_string(gd::L2Access::normal)) == "normal");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("launch attributes: the plan's rules name the node, before any CUDA call", "[launch][attributes]") {
  unit::Buffers b;
  auto check = [&](gd::Launch l) {
    gd::Graph g("g");
    g.add_kernel(unit::scale, l, b.x, 2.0f, 64).name("k");
    g.validate();
  };
  const std::string k = "graphdsl: kernel node 'k' (#0): ";
  CHECK_USAGE_ERROR(check(gd::Launch{8, 32}.with_cluster(dim3(2, 0, 1))),
                    k + "cluster (2,0,1) has a zero dimension; every dimension must be at least 1 (or all 0 for no "
                        "cluster)");
  CHECK_USAGE_ERROR(check(gd::Launch{10, 32}.with_cluster(4)),
                    k + "grid (10,1,1) is not a whole number of clusters (4,1,1): 10 blocks in x do not divide into "
                        "clusters of 4");
  CHECK_USAGE_ERROR(check(gd::Launch{dim3(8, 6), 32}.with_cluster(dim3(2, 4))),
                    k + "grid (8,6,1) is not a whole number of clusters (2,4,1): 6 blocks in y do not divide into "
                        "clusters of 4");
  CHECK_USAGE_ERROR(check(gd::Launch{dim3(8, 8), 32}.with_cluster(dim3(4, 8))),
                    k + "cluster (4,8,1) has 32 blocks; CUDA allows at most 8 blocks per cluster (16 with "
                        "cudaFuncAttributeNonPortableClusterSizeAllowed)");
  CHECK_USAGE_ERROR(check(gd::Launch{8, 32}.with_l2_window(nullptr, 4096)),
                    k + "its L2 window of 4096 bytes starts at a null pointer");
  CHECK_USAGE_ERROR(check(gd::Launch{8, 32}.with_l2_window(b.x, 1024, 1.5f)),
                    k + "its L2 window's hit ratio is 1.5; it must be in [0, 1]");
  CHECK_USAGE_ERROR(check(gd::Launch{8, 32}.with_sync_domain(static_cast<gd::MemSyncDomain>(7))),
                    k + "memory sync domain 7 is not a MemSyncDomain (default or remote)");
  CHECK_USAGE_ERROR(check(gd::Launch{8, 32}.with_l2_window(b.x, 1024, 1.0f, static_cast<gd::L2Access>(9))),
                    k + "its L2 window's hit property 9 is not an L2Access (normal, streaming or persisting)");
  CHECK_NOTHROW(check(gd::Launch{dim3(8, 6, 2), 32}.with_cluster(dim3(4, 2, 2))));  // 16 blocks: non-portable, allowed by the plan
}
