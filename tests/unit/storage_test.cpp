// Graph::storage_bytes() and Graph::reserve(): what a plan costs per node.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)
#include "unit_support.hpp"

namespace gd = graphdsl;

TEST_CASE("a plan of 10000 four-argument kernel nodes costs at most 256 bytes per node", "[storage]") {
  constexpr int n = 10000;
  unit::Buffers b;
  gd::Graph g("wide");
  g.reserve(n);
  const std::size_t empty_bytes = g.storage_bytes();
  for (int i = 0; i < n; ++i) g.add_kernel(unit::saxpy, gd::cover(256), b.x, b.y, 2.0f, i);
  REQUIRE(g.node_count() == n);

  const std::size_t total = g.storage_bytes();
  const double per_node = static_cast<double>(total) / n;
  const std::uint32_t arg_bytes = gd::detail::ArgLayoutOf<float*, const float*, float, int>::value.total;
  WARN("storage_bytes() for " << n << " saxpy(float*, const float*, float, int) kernel nodes after reserve(): " << total
                              << " bytes, " << per_node << " bytes per node (" << sizeof(gd::detail::NodeData)
                              << " node record + " << sizeof(gd::detail::KernelData) << " kernel record + "
                              << sizeof(gd::detail::KernelLinks) << " kernel links + " << arg_bytes
                              << " argument bytes, argument vector capacity " << g.impl().args.capacity() << ")");
  CHECK(per_node <= 256.0);
  CHECK(total > empty_bytes);
  // The unavoidable part: the node and kernel records and the packed arguments themselves.
  CHECK(total >=
        n * (sizeof(gd::detail::NodeData) + sizeof(gd::detail::KernelData) + sizeof(gd::detail::KernelLinks) + 24));
}

TEST_CASE("storage_bytes() grows with nodes, edges, names and child plans", "[storage]") {
  unit::Buffers b;
  gd::Graph g("grow");
  std::size_t last = g.storage_bytes();
  CHECK(last >= sizeof(gd::detail::GraphImpl));

  // Capacities grow in steps, so compare over enough additions to force growth.
  for (int i = 0; i < 64; ++i) g.add_kernel(unit::scale, gd::Launch{}, b.x, 1.0f, i);
  CHECK(g.storage_bytes() > last);
  last = g.storage_bytes();

  // Up to two predecessors live inside the node record; a join of 63 needs heap storage.
  for (std::uint32_t i = 1; i < 64; ++i) g.add_edge(g.node(i - 1), g.node(i));
  CHECK(g.storage_bytes() == last);
  for (std::uint32_t i = 0; i < 62; ++i) g.add_edge(g.node(i), g.node(63));
  CHECK(g.storage_bytes() > last);
  last = g.storage_bytes();

  gd::EmptyNode(g.node(0).ref()).name(std::string(200, 'n'));  // a name beyond the small-string buffer
  CHECK(g.storage_bytes() >= last + 200);
  last = g.storage_bytes();

  gd::Graph sub("sub");
  for (int i = 0; i < 32; ++i) sub.add_empty();
  g.add_child(sub);
  CHECK(g.storage_bytes() >= last + sub.storage_bytes());
}

TEST_CASE("reserve() keeps the node count and only changes capacity", "[storage]") {
  gd::Graph g;
  g.add_empty();
  const std::size_t before = g.storage_bytes();
  g.reserve(1000);
  CHECK(g.node_count() == 1);
  CHECK(g.impl().nodes.capacity() >= 1000);
  CHECK(g.impl().kernels.capacity() >= 1000);
  CHECK(g.impl().kernel_links.capacity() >= 1000);
  CHECK(g.storage_bytes() > before);
  CHECK_NO_CUDA_CALL(g.reserve(10));  // never shrinks, never calls CUDA
  CHECK(g.impl().nodes.capacity() >= 1000);
}

TEST_CASE("plans built the same way hold the same bytes in their node records", "[storage][diff]") {
  // The diff compares blocks of node records with memcmp first (src/kinds/kernel_diff.cpp): that finds
  // them equal only if records built the same way hold the same bytes, padding and unused inline
  // predecessor slots included.
  unit::Buffers b;
  const auto build = [&] {
    gd::Graph g("same");
    std::vector<gd::Node> nodes;
    for (int i = 0; i < 8; ++i) nodes.push_back(g.add_kernel(unit::scale, gd::Launch{}, b.x, 1.0f, i));
    g.add_edge(nodes[0], nodes[1]);
    for (std::size_t i = 0; i < 2; ++i) g.add_edge(nodes[i], nodes[2]);  // as many as fit inline
    for (std::size_t i = 0; i < 7; ++i) g.add_edge(nodes[i], nodes[7]);  // more than fit inline
    return g;
  };
  const gd::Graph x = build();
  const gd::Graph y = build();
  const auto& nx = x.impl().nodes;
  const auto& ny = y.impl().nodes;
  REQUIRE(nx.size() == 8);
  REQUIRE(ny[7].preds.heap_capacity() > 0);
  CHECK(std::memcmp(nx.data(), ny.data(), 7 * sizeof(gd::detail::NodeData)) == 0);      // inline lists
  CHECK(std::memcmp(nx.data() + 7, ny.data() + 7, sizeof(gd::detail::NodeData)) != 0);  // pointers differ

  // A list moved off the heap leaves an empty list whose slots are zero, as a new one's.
  gd::detail::SmallVec moved = ny[7].preds;
  const gd::detail::SmallVec taken = std::move(moved);
  const gd::detail::SmallVec fresh;
  CHECK(taken.size() == 7);
  CHECK(moved.size() == 0);
  CHECK(std::memcmp(&moved, &fresh, sizeof(gd::detail::SmallVec)) == 0);
}
