// Introspection: node_count, node(i), nodes(), find(), kinds, names, NodeInfo, launch_of, child_plan.
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "unit_support.hpp"

namespace gd = graphdsl;

TEST_CASE("a new Graph is empty and named", "[graph][introspection]") {
  gd::Graph unnamed;
  CHECK(unnamed.name() == "graph");
  CHECK(unnamed.node_count() == 0);
  CHECK(unnamed.edge_count() == 0);
  CHECK(unnamed.nodes().empty());
  CHECK(unnamed.edges().empty());
  gd::Graph named("pipeline");
  CHECK(named.name() == "pipeline");
  CHECK(named.id() != unnamed.id());
}

TEST_CASE("nodes are numbered in creation order and report their kind", "[graph][introspection]") {
  gd::Graph g("kinds");
  unit::Buffers b;
  auto k = g.add_kernel(unit::no_args, gd::Launch{});
  auto ms = g.add_memset(b.flags, 0, 4);
  auto mc = g.add_memcpy(b.x, b.y, 4);
  auto h = g.add_host([] {});
  auto c = g.add_child(gd::Graph("sub"));
  auto e = g.add_empty();
  auto r = g.add_event_record(gd::Event{});
  auto w = g.add_event_wait(gd::Event{});

  const std::vector<gd::Node> handles{k, ms, mc, h, c, e, r, w};
  const std::vector<gd::NodeKind> kinds{gd::NodeKind::kernel, gd::NodeKind::memset,       gd::NodeKind::memcpy,
                                        gd::NodeKind::host,   gd::NodeKind::child,        gd::NodeKind::empty,
                                        gd::NodeKind::event_record, gd::NodeKind::event_wait};
  REQUIRE(g.node_count() == 8);
  const auto all = g.nodes();
  REQUIRE(all.size() == 8);
  for (std::uint32_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(handles[i].index() == i);
    CHECK(handles[i].valid());
    CHECK(handles[i].kind() == kinds[i]);
    CHECK(all[i] == handles[i]);
    CHECK(g.node(i) == handles[i]);
    CHECK(g.node(i).kind() == kinds[i]);
  }
}

TEST_CASE("NodeKind names are the ones used in messages", "[graph][introspection]") {
  CHECK(std::string(gd::to_string(gd::NodeKind::kernel)) == "kernel");
  CHECK(std::string(gd::to_string(gd::NodeKind::memset)) == "memset");
  CHECK(std::string(gd::to_string(gd::NodeKind::memcpy)) == "memcpy");
  CHECK(std::string(gd::to_string(gd::NodeKind::host)) == "host");
  CHECK(std::string(gd::to_string(gd::NodeKind::child)) == "child");
  CHECK(std::string(gd::to_string(gd::NodeKind::empty)) == "empty");
  CHECK(std::string(gd::to_string(gd::NodeKind::event_record)) == "event_record");
  CHECK(std::string(gd::to_string(gd::NodeKind::event_wait)) == "event_wait");
  CHECK(std::string(gd::to_string(gd::NodeKind::conditional)) == "conditional");
  CHECK(std::string(gd::to_string(gd::NodeKind::captured)) == "captured");
  CHECK(std::string(gd::to_string(gd::NodeKind::mem_alloc)) == "mem_alloc");
  CHECK(std::string(gd::to_string(gd::NodeKind::mem_free)) == "mem_free");
  CHECK(std::string(gd::to_string(gd::NodeKind::mem_op)) == "mem_op");
  CHECK(std::string(gd::to_string(gd::NodeKind::semaphore_signal)) == "semaphore_signal");
  CHECK(std::string(gd::to_string(gd::NodeKind::semaphore_wait)) == "semaphore_wait");
  CHECK(gd::node_kind_count == 15);
}

TEST_CASE("node(i) past the end is a UsageError naming the graph and its size", "[graph][introspection][errors]") {
  gd::Graph g("small");
  g.add_empty();
  g.add_empty();
  CHECK_USAGE_ERROR(g.node(2), "graphdsl: graph 'small' has 2 nodes; there is no node #2");
  CHECK_USAGE_ERROR(g.node(4000000000u), "graphdsl: graph 'small' has 2 nodes; there is no node #4000000000");
  CHECK_USAGE_ERROR(gd::Graph("none").node(0), "graphdsl: graph 'none' has 0 nodes; there is no node #0");
}

TEST_CASE("names are empty until set, can be renamed, and find() returns the first match",
          "[graph][introspection][names]") {
  gd::Graph g;
  auto a = g.add_empty();
  auto b = g.add_empty().name("b");
  auto c = g.add_empty().name("dup");
  auto d = g.add_empty().name("dup");
  CHECK(a.name().empty());
  CHECK(b.name() == "b");
  CHECK(g.find("b") == std::optional<gd::Node>(b));
  CHECK(g.find("dup") == std::optional<gd::Node>(c));
  CHECK(g.find("missing") == std::nullopt);
  CHECK(g.find("") == std::optional<gd::Node>(a));  // the first unnamed node
  b.name("renamed");
  CHECK(g.find("b") == std::nullopt);
  CHECK(g.find("renamed") == std::optional<gd::Node>(b));
  c.name("");
  CHECK(g.find("dup") == std::optional<gd::Node>(d));
  // A name given through a plain Node handle of the plan
  gd::EmptyNode(g.node(0).ref()).name("first");
  CHECK(g.node(0).name() == "first");
}

TEST_CASE("NodeInfo copies out index, kind, name and plan name", "[graph][introspection][names]") {
  gd::NodeInfo copy;
  {
    gd::Graph g("plan");
    g.add_empty();
    auto k = g.add_kernel(unit::no_args, gd::Launch{}).name("saxpy");
    copy = k.info();
    const gd::NodeInfo unnamed = g.node(0).info();
    CHECK(unnamed.ref() == "#0");
    CHECK(unnamed.describe() == "empty node #0");
  }
  // still valid after the plan is gone
  CHECK(copy.index == 1);
  CHECK(copy.kind == gd::NodeKind::kernel);
  CHECK(copy.name == "saxpy");
  CHECK(copy.graph == "plan");
  CHECK(copy.ref() == "'saxpy'");
  CHECK(copy.describe() == "kernel node 'saxpy' (#1)");
}

TEST_CASE("an empty Node handle reports itself invalid and throws on use", "[graph][introspection][errors]") {
  const gd::Node none;
  CHECK_FALSE(none.valid());
  CHECK(none == gd::Node{});
  const char* msg = "graphdsl: empty node handle (a default-constructed Node was used)";
  CHECK_USAGE_ERROR(none.kind(), msg);
  CHECK_USAGE_ERROR(none.name(), msg);
  CHECK_USAGE_ERROR(none.info(), msg);
  CHECK_USAGE_ERROR(gd::KernelNode<int*>{}.name("x"), msg);
}

TEST_CASE("handles compare equal when they name the same node of the same plan", "[graph][introspection]") {
  gd::Graph g1;
  gd::Graph g2;
  auto a1 = g1.add_empty();
  auto a2 = g2.add_empty();
  CHECK(a1 == g1.node(0));
  CHECK(a1 != a2);  // same index, other plan
  CHECK(a1 != g1.add_empty());
}

TEST_CASE("launch_of returns the kernel node's launch shape", "[graph][introspection][kernel]") {
  gd::Graph g;
  unit::Buffers b;
  auto k1 = g.add_kernel(unit::scale, gd::Launch{dim3(16, 2), dim3(256), 1024, -1}, b.x, 1.0f, 4);
  auto k2 = g.add_kernel(unit::no_args, gd::cover(1000, 128));
  auto k3 = g.add_kernel(unit::no_args, gd::cover(1024));
  const gd::Launch& l1 = g.launch_of(k1);
  CHECK(l1.grid.x == 16);
  CHECK(l1.grid.y == 2);
  CHECK(l1.grid.z == 1);
  CHECK(l1.block.x == 256);
  CHECK(l1.shared_bytes == 1024);
  CHECK(l1.priority == -1);
  CHECK(g.launch_of(k2).grid.x == 8);  // ceil(1000 / 128)
  CHECK(g.launch_of(k2).block.x == 128);
  CHECK(g.launch_of(k3).grid.x == 4);
  CHECK(g.launch_of(k3).block.x == 256);
  const gd::Launch defaults;
  CHECK(defaults.grid.x * defaults.grid.y * defaults.grid.z == 1);
  CHECK(defaults.block.x * defaults.block.y * defaults.block.z == 1);
  CHECK(defaults.shared_bytes == 0);
  CHECK(defaults.priority == 0);
}

TEST_CASE("child_plan returns a copy of the embedded plan", "[graph][introspection][child]") {
  gd::Graph body("body");
  auto x = body.add_empty().name("x");
  body.add_kernel(unit::no_args, gd::Launch{}).name("y").after(x);
  gd::Graph g("main");
  auto c = g.add_child(body).name("loop");
  CHECK(c.kind() == gd::NodeKind::child);

  gd::Graph inner = g.child_plan(c);
  CHECK(inner.name() == "body");
  CHECK(inner.node_count() == 2);
  CHECK(inner.edge_count() == 1);
  CHECK(inner.find("y").has_value());
  CHECK(inner.dump() == body.dump());
  CHECK(inner.id() != body.id());
  CHECK(g.child_plan(c).id() != inner.id());  // a fresh copy each time
  // Editing the returned copy changes neither the parent nor the original
  inner.add_empty();
  CHECK(g.child_plan(c).node_count() == 2);
  CHECK(body.node_count() == 2);
  // Handles of the original body are not the returned copy's
  CHECK(inner.node(0) != x);
}

TEST_CASE("child_plan and launch_of with a handle of another plan are UsageErrors", "[graph][introspection][errors]") {
  gd::Graph a("a");
  gd::Graph b("b");
  auto ca = a.add_child(gd::Graph("sub"));
  auto ka = a.add_kernel(unit::no_args, gd::Launch{});
  b.add_child(gd::Graph("sub"));
  b.add_kernel(unit::no_args, gd::Launch{});
  CHECK_USAGE_ERROR(b.child_plan(ca), fmt::format("graphdsl: child node #0 belongs to graph 'a' (plan id {}), not to "
                                                  "graph 'b' (plan id {})",
                                                  a.id(), b.id()));
  CHECK_USAGE_ERROR(b.launch_of(ka), fmt::format("graphdsl: kernel node #1 belongs to graph 'a' (plan id {}), not to "
                                                 "graph 'b' (plan id {})",
                                                 a.id(), b.id()));
  CHECK_USAGE_ERROR(b.child_plan(gd::ChildNode{}), "graphdsl: empty node handle (a default-constructed Node was used)");
}

TEST_CASE("node(i) past the end of a one-node plan says '1 node'", "[graph][introspection][errors]") {
  // graph.cpp Graph::node() always writes "{} nodes": "graph 'one' has 1 nodes; there is no node #1".
  gd::Graph g("one");
  g.add_empty();
  CHECK_USAGE_ERROR(g.node(1), "graphdsl: graph 'one' has 1 node; there is no node #1");
}
