// Allocation failures inside the other mutating operations of a plan: edges (after, before, their
// range forms, edge kinds, Graph::add_edge), naming, placing, declared accesses, parameter names,
// copies and assignments of plans, and the edits of its nodes (the typed setters of Graph, each node
// kind, raw pointers and graph buffers; Graph::remove_node of each kind of node, with its edges, its
// parameter uses, its graph-buffer uses, its nested plans). Each leaves every plan exactly as before
// it, and usable.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "sweep.hpp"

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds), where the two files' helpers would collide.
namespace edge_faults {
namespace {

namespace gd = graphdsl;
using faults::Fixture;
using faults::one_block;

/// The fan nodes: enough for the long-list path of after() (more than 64 predecessors).
constexpr unsigned wide = 70;

struct Operation {
  std::string what;
  std::function<void(Fixture&)> op;
  unsigned fan = 0;
  std::function<void(Fixture&)> prepare;  ///< run on the fixture before the sweep's snapshot, if set
};

/// Sweeps each operation; returns how many of them allocated at all.
std::size_t sweep_all(const std::vector<Operation>& ops) {
  std::size_t allocating = 0;
  for (const Operation& o : ops) {
    const auto make = [&o] {
      auto f = faults::make_fixture(o.fan);
      if (o.prepare) o.prepare(*f);
      return f;
    };
    const std::uint64_t points = faults::sweep(o.what, make, [&o](std::unique_ptr<Fixture>& f) { o.op(*f); });
    allocating += points > 0 ? 1 : 0;
  }
  return allocating;
}

/// Compiles `g` (const&). Without a device (CI) compiling stops at the version check, a UsageError
/// naming the driver's version, or at the first CUDA call; with one it completes.
void instantiate_or_no_device(const gd::Graph& g) {
  try {
    (void)g.instantiate();
  } catch (const gd::Error&) {
  }
}

/// A node of the fan that is not yet after `join`.
gd::Node fan_node(const Fixture& f, std::size_t i) { return f.fan.at(i); }

/// The fixture's nodes by name (fixture.cpp).
gd::Node named(const Fixture& f, const char* name) { return *f.g.find(name); }
gd::MemsetNode fill(const Fixture& f) { return gd::node_cast<gd::MemsetNode>(named(f, "fill")); }

/// Extra nodes the fixture lacks: a host node, an event node, a child node, each after `upload`.
void add_host(Fixture& f) { f.g.add_host([] {}).name("host").after(f.upload); }
void add_event(Fixture& f) { f.g.add_event_record(gd::Event::create()).name("record").after(f.upload); }
void add_child(Fixture& f) { f.g.add_child(f.other).name("child").after(f.upload); }

}  // namespace

TEST_CASE("an allocation failure inside after() or before() leaves the plan's edges as they were", "[faults][edges]") {
  const std::size_t allocating = sweep_all({
      {"after(node)", [](Fixture& f) { f.join.after(f.upload); }},
      {"after(a, b)", [](Fixture& f) { f.join.after(f.upload, f.alloc.node); }, 2},
      {"after(range)", [](Fixture& f) { f.join.after(f.fan); }, 8},
      {"after(long range)", [](Fixture& f) { f.join.after(f.fan); }, wide},
      {"after(range, node)", [](Fixture& f) { f.join.after(f.fan, f.upload); }, wide},
      {"after(long range) onto a long list",
       [](Fixture& f) {
         std::vector<gd::Node> half(f.fan.begin() + wide / 2, f.fan.end());
         f.join.after(half);
       },
       wide},
      {"after(node, programmatic)", [](Fixture& f) { f.scale_x.after(fan_node(f, 0), gd::programmatic); }, 1},
      {"after(node, launch_completion) on an edge",
       [](Fixture& f) { f.scale_x.after(f.upload, gd::launch_completion); }},
      {"after(node, full) over a programmatic edge", [](Fixture& f) { f.scale_x.after(f.upload, gd::EdgeKind::full); },
       0, [](Fixture& f) { f.scale_x.after(f.upload, gd::programmatic); }},
      {"chain({a, b, c})", [](Fixture& f) { f.g.chain({f.upload, f.join, fan_node(f, 0)}); }, 1},
      {"chain(long range)", [](Fixture& f) { f.g.chain(f.fan); }, wide},
      {"remove_edge", [](Fixture& f) { f.g.remove_edge(f.upload, f.join); }, 0,
       [](Fixture& f) { f.join.after(f.upload); }},
      {"set_predecessors(range)", [](Fixture& f) { f.g.set_predecessors(f.join, f.fan); }, 8,
       [](Fixture& f) { f.join.after(f.upload); }},
      {"set_predecessors(long range) onto a long list",
       [](Fixture& f) { f.g.set_predecessors(f.join, std::vector<gd::Node>(f.fan.begin(), f.fan.begin() + wide / 2)); },
       wide, [](Fixture& f) { f.join.after(std::vector<gd::Node>(f.fan.begin() + 10, f.fan.end())); }},
      {"before(node)", [](Fixture& f) { f.upload.before(f.join); }},
      {"before(a, b)", [](Fixture& f) { f.upload.before(f.join, fan_node(f, 0)); }, 1},
      {"before(range)", [](Fixture& f) { f.upload.before(f.fan); }, 8},
      {"before(long range)", [](Fixture& f) { f.upload.before(f.fan); }, wide},
      // 'join' has two predecessors, as many as a list keeps without allocating: the second edge
      // allocates once the first is in.
      {"before(a, b) onto a full list", [](Fixture& f) { f.upload.before(fan_node(f, 0), f.join); }, 1},
      {"before(range) onto a long list",
       [](Fixture& f) {
         f.upload.before(std::vector<gd::Node>{fan_node(f, 0), f.join});
       },
       wide, [](Fixture& f) { f.join.after(std::vector<gd::Node>(f.fan.begin() + 1, f.fan.end())); }},
      {"Graph::add_edge", [](Fixture& f) { f.g.add_edge(f.upload, f.join); }},
  });
  CHECK(allocating > 0);
}

TEST_CASE("an allocation failure while naming, placing or declaring accesses leaves the plan as it was",
          "[faults][setters]") {
  faults::Memory& m = faults::memory();
  const std::size_t allocating = sweep_all({
      {"name(long)", [](Fixture& f) { f.join.name("a name long enough to need its own allocation"); }},
      {"name(unnamed node)",
       [](Fixture& f) { gd::node_cast<gd::EmptyNode>(fan_node(f, 7)).name("the last of the fan, named"); }, 8},
      {"on_device", [](Fixture& f) { f.scale_x.on_device(1); }},
      {"accesses", [&m](Fixture& f) { f.join.accesses(gd::reads(m.x, 16), gd::writes(m.y, 16)); }},
      {"Parameter::name", [](Fixture& f) { f.lr.name("a learning rate with a name too long to fit inline"); }},
      {"set_default_device", [](Fixture& f) { f.g.set_default_device(1); }},
      {"reserve", [](Fixture& f) { f.g.reserve(1000); }},
  });
  CHECK(allocating > 0);
}

TEST_CASE("an allocation failure while copying or assigning a plan leaves both plans as they were",
          "[faults][copies]") {
  const std::size_t allocating = sweep_all({
      {"Graph(const Graph&)", [](Fixture& f) { gd::Graph copy(f.g); }},
      {"Graph::operator=", [](Fixture& f) { f.other = f.g; }},
      {"body_plan", [](Fixture& f) { (void)f.g.body_plan(f.repeat, 0); }},
      // Compiling copies and validates the plan before anything else.
      {"instantiate() const&", [](Fixture& f) { instantiate_or_no_device(f.g); }},
  });
  CHECK(allocating == 4);
}

TEST_CASE("an allocation failure inside a plan's setter leaves the plan as it was", "[faults][edit]") {
  faults::Memory& m = faults::memory();
  const std::size_t allocating = sweep_all({
      {"Graph::set_kernel_args", [&m](Fixture& f) { f.g.set_kernel_args(f.scale_x, m.y, 2.0f, 128); }},
      {"Graph::set_kernel",
       [&m](Fixture& f) { f.g.set_kernel(f.scale_x, faults::scale, gd::Launch{dim3(2), dim3(128)}, m.x, 1.0f, 64); }},
      {"Graph::set_kernel_args(GraphBuffer)",
       [](Fixture& f) {
         f.g.set_kernel_args(gd::node_cast<gd::KernelNodeOf<decltype(faults::scale)>>(named(f, "on buffer")),
                             f.alloc.buffer.slice(0, 128), 3.0f, 128);
       },
       0,
       [](Fixture& f) {
         f.g.add_kernel(faults::scale, one_block, f.alloc.buffer, 1.0f, 256).name("on buffer").after(fill(f));
       }},
      {"Graph::set_kernel(cluster)",
       [&m](Fixture& f) {
         f.g.set_kernel(f.scale_x, faults::scale, gd::Launch{dim3(4), dim3(64)}.with_cluster(dim3(2)), m.x, 1.0f, 64);
       }},
      {"Graph::set_launch", [](Fixture& f) { f.g.set_launch(f.scale_x, gd::Launch{dim3(4), dim3(64)}); }},
      {"Graph::set_launch(cluster)",
       [](Fixture& f) { f.g.set_launch(f.scale_x, gd::Launch{dim3(4), dim3(64)}.with_cluster(dim3(2))); }},
      {"Graph::set_memset(GraphBuffer)", [](Fixture& f) { f.g.set_memset(fill(f), f.alloc.buffer + 64, 2.0f, 128); }},
      {"Graph::set_memset",
       [&m](Fixture& f) { f.g.set_memset(gd::node_cast<gd::MemsetNode>(named(f, "zero")), m.x, 2.0f, 32); }, 0,
       [&m](Fixture& f) { f.g.add_memset(m.y, 1.0f, 16).name("zero"); }},
      {"Graph::set_memcpy", [&m](Fixture& f) { f.g.set_memcpy(f.upload, m.y, m.host, 128); }},
      {"Graph::set_memcpy(GraphBuffer)",
       [&m](Fixture& f) {
         f.g.set_memcpy(gd::node_cast<gd::MemcpyNode>(named(f, "download")), m.host, f.alloc.buffer.slice(64, 64), 64);
       },
       0,
       [&m](Fixture& f) { f.g.add_memcpy(m.host, f.alloc.buffer, 256).name("download").after(fill(f)); }},
      {"Graph::set_host",
       [](Fixture& f) { f.g.set_host(gd::node_cast<gd::HostNode>(named(f, "host")), [] {}); }, 0, add_host},
      {"Graph::set_event",
       [](Fixture& f) { f.g.set_event(gd::node_cast<gd::EventRecordNode>(named(f, "record")), gd::Event::create()); },
       0, add_event},
      {"Graph::set_child",
       [](Fixture& f) { f.g.set_child(gd::node_cast<gd::ChildNode>(named(f, "child")), f.other); }, 0, add_child},
  });
  CHECK(allocating > 0);
}

TEST_CASE("an allocation failure inside remove_node leaves the plan as it was", "[faults][edit]") {
  const std::size_t allocating = sweep_all({
      {"remove_node(kernel with a Parameter)", [](Fixture& f) { f.g.remove_node(f.scale_x); }},
      {"remove_node(memset of a graph buffer)", [](Fixture& f) { f.g.remove_node(fill(f)); }},
      {"remove_node(memcpy)", [](Fixture& f) { f.g.remove_node(f.upload); }},
      {"remove_node(while)", [](Fixture& f) { f.g.remove_node(f.repeat); }},
      {"remove_node(join of a fan)", [](Fixture& f) { f.g.remove_node(f.join); }, 8,
       [](Fixture& f) { f.join.before(f.fan); }},
      {"remove_node(mem_free)", [](Fixture& f) { f.g.remove_node(named(f, "free")); }},
      {"remove_node(unused mem_alloc)", [](Fixture& f) { f.g.remove_node(f.spare.node); }},
      {"remove_node(host)", [](Fixture& f) { f.g.remove_node(named(f, "host")); }, 0, add_host},
      {"remove_node(event record)", [](Fixture& f) { f.g.remove_node(named(f, "record")); }, 0, add_event},
      {"remove_node(child)", [](Fixture& f) { f.g.remove_node(named(f, "child")); }, 0, add_child},
      {"remove_node(declared accesses)", [](Fixture& f) { f.g.remove_node(f.fan[3]); }, 8,
       [](Fixture& f) { gd::node_cast<gd::EmptyNode>(f.fan[3]).accesses(gd::writes(faults::memory().x, 16)); }},
  });
  CHECK(allocating > 0);
}

}  // namespace edge_faults
