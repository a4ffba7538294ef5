// tests/complexity/plan_complexity_test.cpp — building plans, their edges and the questions asked of
// them cost at most ~linear time: each operation timed at n and 8n nodes (complexity_support.hpp).
// No CUDA call: kernels are host functions a plan only stores the address of, and pointers are
// addresses a plan never dereferences.
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "complexity_support.hpp"

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace plan_complexity_test {

namespace gd = graphdsl;
using complexity::check_growth;

void step(float*, float, int) {}
float* const X = reinterpret_cast<float*>(0x10000);

/// n kernel nodes, unlinked, and one empty node to join or fork them.
struct Unlinked {
  gd::Graph g;
  std::vector<gd::KernelNode<float*, float, int>> nodes;
  gd::EmptyNode hub;
};

Unlinked unlinked(std::size_t n) {
  Unlinked u;
  u.g.reserve(n + 1);
  u.nodes.reserve(n);
  for (std::size_t i = 0; i < n; ++i) u.nodes.push_back(u.g.add_kernel(step, gd::Launch{1, 32}, X, 1.0f, 32));
  u.hub = u.g.add_empty();
  return u;
}

/// A chain of n kernel nodes named "k0", "k1", ..., each after the one before.
gd::Graph chain(std::size_t n) {
  gd::Graph g("chain");
  gd::Node prev;
  for (std::size_t i = 0; i < n; ++i) {
    auto k = g.add_kernel(step, gd::Launch{1, 32}, X, static_cast<float>(i), 32).name("k" + std::to_string(i));
    if (i > 0) k.after(prev);
    prev = k;
  }
  return g;
}

/// n kernel nodes, each after one empty node (a fork), and one empty node after all of them (a join).
gd::Graph fork_join(std::size_t n) {
  Unlinked u = unlinked(n);
  auto fork = u.g.add_empty();
  fork.before(u.nodes);
  u.hub.after(u.nodes);
  return std::move(u.g);
}

auto size_only = [](std::size_t n) { return n; };

/// n disjoint parts of one graph buffer, each written by a kernel, a 2-D memset (two rows of its
/// first 16 floats) and a copy within it (its second half from its first), all unordered.
gd::Graph slices(std::size_t n) {
  gd::Graph g("slices");
  auto [alloc, buffer] = g.add_mem_alloc<float>(64 * n);
  for (std::size_t i = 0; i < n; ++i) {
    g.add_kernel(step, gd::Launch{1, 32}, buffer.slice(64 * i + 48, 16), 1.0f, 16).after(alloc);
    g.add_memset_2d(buffer + 64 * i, 32, 0.0f, 4, 2).after(alloc);
    g.add_memcpy(buffer.slice(64 * i + 32, 8), buffer.slice(64 * i + 16, 8), 8).after(alloc);
  }
  return g;
}

// ---- building -----------------------------------------------------------------------------------

TEST_CASE("complexity: building nodes", "[complexity]") {
  check_growth("add_kernel + name", 4000, size_only, [](std::size_t n) {
    gd::Graph g;
    for (std::size_t i = 0; i < n; ++i) g.add_kernel(step, gd::Launch{1, 32}, X, 1.0f, 32).name("node");
    return g;
  });
  check_growth("add_empty, add_memset, add_host", 2000, size_only, [](std::size_t n) {
    gd::Graph g;
    for (std::size_t i = 0; i < n; ++i) {
      g.add_empty();
      g.add_memset(X, 0.0f, 32);
      g.add_host([] {});
    }
    return g;
  });
  check_growth("add_kernel, add_memset_2d, add_memcpy on slices of a graph buffer", 2000, size_only,
               [](std::size_t n) { return slices(n); });
  check_growth("chain built with after(previous)", 4000, size_only, [](std::size_t n) { return chain(n); });
  check_growth("copy of a chain", 4000, chain, [](gd::Graph& g) { return gd::Graph(g); });
}

// ---- edges --------------------------------------------------------------------------------------

TEST_CASE("complexity: edges one at a time and as ranges", "[complexity]") {
  check_growth("after() one at a time, all into one node", 4000, unlinked, [](Unlinked& u) {
    for (const auto& k : u.nodes) u.hub.after(k);
  });
  check_growth("after() one at a time, each edge twice", 4000, unlinked, [](Unlinked& u) {
    for (const auto& k : u.nodes) u.hub.after(k);
    for (const auto& k : u.nodes) u.hub.after(k);
  });
  check_growth("after() a range, all into one node", 4000, unlinked, [](Unlinked& u) { u.hub.after(u.nodes); });
  check_growth("after() two nodes at a time, all into one node", 4000, unlinked, [](Unlinked& u) {
    for (std::size_t i = 0; i + 1 < u.nodes.size(); i += 2) u.hub.after(u.nodes[i], u.nodes[i + 1]);
  });
  check_growth("Graph::add_edge one at a time, all into one node", 4000, unlinked, [](Unlinked& u) {
    for (const auto& k : u.nodes) u.g.add_edge(k, u.hub);
  });
  check_growth("before() one at a time, one node before all", 4000, unlinked, [](Unlinked& u) {
    for (const auto& k : u.nodes) u.hub.before(k);
  });
  check_growth("before() one at a time, all before one node", 4000, unlinked, [](Unlinked& u) {
    for (const auto& k : u.nodes) k.before(u.hub);
  });
  check_growth("before() a range, one node before all", 4000, unlinked, [](Unlinked& u) { u.hub.before(u.nodes); });
  check_growth("chain() of n nodes", 4000, unlinked,
               [](Unlinked& u) { u.g.chain(std::vector<gd::Node>(u.nodes.begin(), u.nodes.end())); });
  check_growth("after(k, programmatic) one at a time, all into one node", 4000, unlinked, [](Unlinked& u) {
    for (const auto& k : u.nodes) u.hub.after(k, gd::programmatic);
  });
}

// ---- questions ----------------------------------------------------------------------------------

TEST_CASE("complexity: edges removed and predecessors replaced", "[complexity]") {
  check_growth("remove_edge() of every edge of a chain", 4000, chain, [](gd::Graph& g) {
    for (std::uint32_t i = 1; i < g.node_count(); ++i) g.remove_edge(g.node(i - 1), g.node(i));
  });
  // n empty nodes and a join after all of them, the join last.
  auto fan_in = [](std::size_t n) {
    gd::Graph g("fan in");
    std::vector<gd::Node> fan;
    for (std::size_t i = 0; i < n; ++i) fan.push_back(g.add_empty());
    g.add_empty().name("join").after(fan);
    return g;
  };
  auto join = [](const gd::Graph& g) { return g.node(static_cast<std::uint32_t>(g.node_count() - 1)); };
  check_growth("set_predecessors(join, {}) of n predecessors", 4000, fan_in, [&](gd::Graph& g) {
    g.set_predecessors(join(g), {});
    CHECK(g.edge_count() == 0);
  });
  check_growth("set_predecessors(join, every other one) of n predecessors", 4000, fan_in, [&](gd::Graph& g) {
    std::vector<gd::Node> half;
    for (std::uint32_t i = 0; i + 1 < g.node_count(); i += 2) half.push_back(g.node(i));
    g.set_predecessors(join(g), half);
  });
  check_growth("remove_edge() of each of n predecessors, last first", 4000, fan_in, [&](gd::Graph& g) {
    for (std::uint32_t i = static_cast<std::uint32_t>(g.node_count() - 1); i-- > 0;) g.remove_edge(g.node(i), join(g));
  });
}

TEST_CASE("complexity: nodes edited and removed in place", "[complexity]") {
  check_growth("set_kernel_args() of every kernel of a chain", 4000, chain, [](gd::Graph& g) {
    for (const gd::Node& v : g.nodes()) g.set_kernel_args(gd::node_cast<gd::KernelNodeOf<decltype(step)>>(v), X, 2.0f, 64);
  });
  check_growth("set_launch() of every kernel of a chain", 4000, chain, [](gd::Graph& g) {
    for (const gd::Node& v : g.nodes()) g.set_launch(gd::node_cast<gd::KernelNodeOf<decltype(step)>>(v), gd::Launch{2, 64});
  });
  // n memset nodes, each after the one before.
  auto memsets = [](std::size_t n) {
    gd::Graph g("memsets");
    gd::Node prev;
    for (std::size_t i = 0; i < n; ++i) {
      auto m = g.add_memset(X, 1.0f, 32);
      if (i > 0) m.after(prev);
      prev = m;
    }
    return g;
  };
  check_growth("set_memset() of n memset nodes", 4000, memsets, [](gd::Graph& g) {
    for (const gd::Node& v : g.nodes()) g.set_memset(gd::node_cast<gd::MemsetNode>(v), X, 2.0f, 64);
  });
  check_growth("remove_node() of every other node of a chain", 4000, chain, [](gd::Graph& g) {
    const std::vector<gd::Node> all = g.nodes();
    for (std::size_t i = 1; i < all.size(); i += 2) g.remove_node(all[i]);
    CHECK(g.node_count() == (all.size() + 1) / 2);
  });
  // Each kernel's edges are the last of the fork's and the join's lists when removed last first (as
  // remove_edge, remove_node finds an edge from the end of the other node's list).
  check_growth("remove_node() of every node of a fork-join, last first", 4000, fork_join, [](gd::Graph& g) {
    const std::vector<gd::Node> all = g.nodes();
    for (auto it = all.rbegin(); it != all.rend(); ++it) g.remove_node(*it);
    CHECK(g.node_count() == 0);
    CHECK(g.edge_count() == 0);
  });
  // n kernels that all use one parameter, removed last first (each one's use is the last of the list).
  auto shared_parameter = [](std::size_t n) {
    gd::Graph g("parameter");
    const gd::Parameter<float> p = g.parameter(1.0f);
    for (std::size_t i = 0; i < n; ++i) g.add_kernel(step, gd::Launch{1, 32}, X, p, 32);
    return g;
  };
  check_growth("remove_node() of n kernels of one parameter, last first", 4000, shared_parameter, [](gd::Graph& g) {
    const std::vector<gd::Node> all = g.nodes();
    for (auto it = all.rbegin(); it != all.rend(); ++it) g.remove_node(*it);
  });
  // A plan with removed nodes: what is asked of it costs what it costs without them.
  auto half_removed = [](std::size_t n) {
    gd::Graph g = chain(2 * n);
    const std::vector<gd::Node> all = g.nodes();
    for (std::size_t i = 0; i < all.size(); i += 2) g.remove_node(all[i]);
    return g;
  };
  check_growth("nodes(), dump() and validate() of a chain half removed", 4000, half_removed, [](gd::Graph& g) {
    CHECK(g.nodes().size() == g.node_count());
    (void)g.dump();
    g.validate();
  });
}

TEST_CASE("complexity: questions asked of a plan", "[complexity]") {
  check_growth("successors() of every node of a chain", 4000, chain, [](gd::Graph& g) {
    for (const gd::Node& v : g.nodes()) (void)g.successors(v);
  });
  check_growth("predecessors() of every node of a chain", 4000, chain, [](gd::Graph& g) {
    for (const gd::Node& v : g.nodes()) (void)g.predecessors(v);
  });
  check_growth("successors() and predecessors(), fork-join", 4000, fork_join, [](gd::Graph& g) {
    for (const gd::Node& v : g.nodes()) {
      (void)g.successors(v);
      (void)g.predecessors(v);
    }
  });
  check_growth("edges() of a fork-join", 4000, fork_join, [](gd::Graph& g) { (void)g.edges(); });
  check_growth("nodes(), node(i), kind(), name() of a chain", 4000, chain, [](gd::Graph& g) {
    (void)g.nodes();
    for (std::uint32_t i = 0; i < g.node_count(); ++i) {
      (void)g.node(i).kind();
      (void)g.node(i).name();
    }
  });
  check_growth("find() of the last name of a chain", 4000, chain,
               [](gd::Graph& g) { (void)g.find("k" + std::to_string(g.node_count() - 1)); });
  check_growth("storage_bytes() of a chain", 4000, chain, [](gd::Graph& g) { (void)g.storage_bytes(); });
  check_growth(
      "memset_of(), memcpy_of() and owns() of every node", 2000,
      [](std::size_t n) {
        gd::Graph g;
        std::vector<gd::MemsetNode> sets;
        std::vector<gd::MemcpyNode> copies;
        for (std::size_t i = 0; i < n; ++i) {
          sets.push_back(g.add_memset(X, 0.0f, 32));
          copies.push_back(g.add_memcpy(X + 64, X, 32));
        }
        return std::make_tuple(std::move(g), std::move(sets), std::move(copies));
      },
      [](auto& p) {
        const gd::Graph& g = std::get<0>(p);
        for (const auto& s : std::get<1>(p)) (void)g.memset_of(s);
        for (const auto& c : std::get<2>(p)) (void)g.memcpy_of(c), (void)g.owns(c);
      });
}

// ---- rules, printing, comparing -----------------------------------------------------------------

TEST_CASE("complexity: validate print fingerprint diff", "[complexity]") {
  check_growth("validate() of a chain", 4000, chain, [](gd::Graph& g) { g.validate(); });
  check_growth("validate() of a fork-join", 4000, fork_join, [](gd::Graph& g) { g.validate(); });
  check_growth("dump() of a chain", 2000, chain, [](gd::Graph& g) { (void)g.dump(); });
  check_growth("dump() of a fork-join", 2000, fork_join, [](gd::Graph& g) { (void)g.dump(); });
  // The plan's name grows with the plan (n characters): printed once, it must not cost once per edge.
  check_growth(
      "dump() of a plan with a name of n characters", 4000,
      [](std::size_t n) {
        gd::Graph g(std::string(n, 'p'));
        gd::Node prev = g.add_empty().name("first");
        for (std::size_t i = 1; i < n; ++i) prev = g.add_empty().name("n" + std::to_string(i)).after(prev);
        return g;
      },
      [](gd::Graph& g) { (void)g.dump(); });
  check_growth("validate() of n slices of a graph buffer", 2000, slices, [](gd::Graph& g) { g.validate(); });
  check_growth("dump() and diff() of n slices of a graph buffer", 2000, slices, [](gd::Graph& g) {
    (void)g.dump();
    CHECK(gd::diff(g, g));
  });
  check_growth("check_races() of n slices of a graph buffer", 2000, slices,
               [](gd::Graph& g) { CHECK(g.check_races().ok()); });
  check_growth("to_dot() of a chain", 2000, chain, [](gd::Graph& g) { (void)g.to_dot(); });
  check_growth("to_dot() of a fork-join", 2000, fork_join, [](gd::Graph& g) { (void)g.to_dot(); });
  check_growth("fingerprint() of a chain", 4000, chain, [](gd::Graph& g) { (void)g.fingerprint(); });
  struct Pair {
    gd::Graph a, b;
  };
  // A chain and a chain of the same shape whose every node has other arguments and grid.
  auto every_node_changed = [](std::size_t n) {
    Pair p{chain(n), gd::Graph("chain")};
    gd::Node prev;
    for (std::size_t i = 0; i < n; ++i) {
      auto k = p.b.add_kernel(step, gd::Launch{2, 32}, X, -1.0f, 32).name("k" + std::to_string(i));
      if (i > 0) k.after(prev);
      prev = k;
    }
    return p;
  };
  check_growth(
      "diff() of two chains, equal", 4000,
      [](std::size_t n) {
        return Pair{chain(n), chain(n)};
      },
      [](Pair& p) { CHECK(gd::diff(p.a, p.b)); });
  check_growth(
      "diff() of two chains, every node changed", 4000,
      every_node_changed,
      [](Pair& p) { CHECK(gd::diff(p.a, p.b).changed.size() == p.a.node_count()); });
  check_growth(
      "explain() of two chains, every node changed", 2000,
      every_node_changed,
      [](Pair& p) { CHECK(gd::explain(p.a, p.b).size() == p.a.node_count()); });
}

}  // namespace plan_complexity_test
