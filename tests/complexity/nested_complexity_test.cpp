// tests/complexity/nested_complexity_test.cpp — parameters, nested plans (conditional bodies, child
// plans), the race checker and the plan side of Executable::update cost at most ~linear time, and the
// plan side of Executable::set_kernel to another signature costs the same whatever the plan's size:
// each operation timed at n and 8n (complexity_support.hpp). No CUDA call.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "complexity_support.hpp"
#include "plan/diff.hpp"
#include "plan/graph_impl.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"
#include "plan/rules.hpp"

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace nested_complexity_test {

namespace gd = graphdsl;
using complexity::check_flat;
using complexity::check_growth;

void step(float*, float, int) {}
void write(float*, int) {}
float* const X = reinterpret_cast<float*>(0x10000);

auto size_only = [](std::size_t n) { return n; };

// ---- parameters ---------------------------------------------------------------------------------

/// A plan declaring n parameters, each used by one kernel node.
struct Params {
  gd::Graph g;
  std::vector<gd::Parameter<float>> params;
};

Params with_params(std::size_t n) {
  Params p;
  p.params.reserve(n);
  for (std::size_t i = 0; i < n; ++i) p.params.push_back(p.g.parameter<float>(static_cast<float>(i)));
  for (const auto& lr : p.params) p.g.add_kernel(step, gd::Launch{1, 32}, X, lr, 32);
  return p;
}

TEST_CASE("complexity: parameters", "[complexity]") {
  check_growth("parameter() n times, each used by one kernel", 2000, size_only,
               [](std::size_t n) { return with_params(n); });
  check_growth("name() of every parameter (a lookup by id each)", 2000, with_params, [](Params& p) {
    for (const auto& lr : p.params) lr.name("lr");
  });
  check_growth("value() of every parameter, last declared first", 2000, with_params, [](Params& p) {
    for (auto it = p.params.rbegin(); it != p.params.rend(); ++it) (void)it->value();
  });
  check_growth("one parameter used by n kernels", 4000, size_only, [](std::size_t n) {
    gd::Graph g;
    auto lr = g.parameter<float>(0.5f);
    for (std::size_t i = 0; i < n; ++i) g.add_kernel(step, gd::Launch{1, 32}, X, lr, 32);
    return g;
  });
  check_growth("copy and dump() of a plan with n parameters", 1000, with_params, [](Params& p) {
    gd::Graph copy(p.g);
    (void)copy.dump();
    return copy;
  });
}

// ---- nested plans -------------------------------------------------------------------------------

TEST_CASE("complexity: conditional bodies and child plans", "[complexity]") {
  check_growth("add_if n times, a new condition each", 1000, size_only, [](std::size_t n) {
    gd::Graph g;
    for (std::size_t i = 0; i < n; ++i) g.add_if(g.add_condition(1), [](gd::Graph& b) { b.add_empty(); });
    return g;
  });
  check_growth("add_while n times, one condition", 1000, size_only, [](std::size_t n) {
    gd::Graph g;
    const gd::Condition c = g.add_condition(1);
    gd::Node prev = g.add_empty();
    for (std::size_t i = 0; i < n; ++i) {
      prev = g.add_while(c, [](gd::Graph& b) { b.add_kernel(step, gd::Launch{1, 32}, X, 1.0f, 32); }).after(prev);
    }
    return g;
  });
  check_growth("add_if n times, each body using one parameter", 1000, size_only, [](std::size_t n) {
    gd::Graph g;
    auto lr = g.parameter<float>(0.5f).name("lr");
    const gd::Condition c = g.add_condition(1);
    for (std::size_t i = 0; i < n; ++i)
      g.add_if(c, [&](gd::Graph& b) { b.add_kernel(step, gd::Launch{1, 32}, X, lr, 32); });
    return g;
  });
  check_growth("add_if n times, each body using its own parameter", 1000, size_only, [](std::size_t n) {
    gd::Graph g;
    const gd::Condition c = g.add_condition(1);
    for (std::size_t i = 0; i < n; ++i) {
      auto lr = g.parameter<float>(0.5f);
      g.add_if(c, [&](gd::Graph& b) { b.add_kernel(step, gd::Launch{1, 32}, X, lr, 32); });
    }
    return g;
  });
  check_growth("add_child n times (a 4-node child)", 1000, size_only, [](std::size_t n) {
    gd::Graph child("child");
    for (int i = 0; i < 4; ++i) child.add_kernel(step, gd::Launch{1, 32}, X, 1.0f, 32);
    gd::Graph g;
    for (std::size_t i = 0; i < n; ++i) g.add_child(child);
    return g;
  });
  check_growth(
      "add_child of an n-node plan", 4000,
      [](std::size_t n) {
        gd::Graph child("child");
        for (std::size_t i = 0; i < n; ++i) child.add_kernel(step, gd::Launch{1, 32}, X, 1.0f, 32);
        return child;
      },
      [](gd::Graph& child) {
        gd::Graph g;
        g.add_child(child);
        return g;
      });
  check_growth(
      "add_child(Graph&&) of an n-node plan", 4000,
      [](std::size_t n) {
        gd::Graph child("child");
        for (std::size_t i = 0; i < n; ++i) child.add_kernel(step, gd::Launch{1, 32}, X, 1.0f, 32);
        return child;
      },
      [](gd::Graph& child) {
        gd::Graph g;
        g.add_child(std::move(child));
        return g;
      });
  check_growth("add_while n times, each body using a slice of the plan's graph buffer; validate()", 1000, size_only,
               [](std::size_t n) {
                 gd::Graph g;
                 auto [alloc, buf] = g.add_mem_alloc<float>(64 * n);
                 gd::Node prev = alloc;
                 for (std::size_t i = 0; i < n; ++i) {
                   const gd::Condition c = g.add_condition(1);
                   prev = g.add_while(c, [&, buf = buf](gd::Graph& b) {
                             b.add_kernel(step, gd::Launch{1, 32}, buf.slice(64 * i, 64), 1.0f, 32);
                             b.add_memset(buf.slice(64 * i, 32), 0.0f, 32);
                           }).after(prev);
                 }
                 g.validate();
                 return g;
               });
  check_growth(
      "add_child of an n-node plan using the parent's graph buffer (resolved in the copy)", 4000,
      [](std::size_t n) {
        auto g = std::make_unique<gd::Graph>("parent");
        auto [alloc, buf] = g->add_mem_alloc<float>(64);
        gd::Graph child("child");
        for (std::size_t i = 0; i < n; ++i) child.add_kernel(step, gd::Launch{1, 32}, buf, 1.0f, 32);
        return std::make_pair(std::move(g), std::move(child));
      },
      [](std::pair<std::unique_ptr<gd::Graph>, gd::Graph>& p) { p.first->add_child(p.second); });
  // A plan that embeds itself n times is a chain of n shared plans holding 2^n embeddings: adding it
  // looks at each shared plan once (the resolution copies each one once), whether the buffer it
  // uses is the parent's (resolved) or another plan's (left open).
  for (const bool parents : {true, false}) {
    check_growth(
        parents ? "add_child of a plan embedding itself n times, using the parent's graph buffer"
                : "add_child of a plan embedding itself n times, using another plan's graph buffer",
        2,
        [parents](std::size_t n) {
          auto g = std::make_unique<gd::Graph>("parent");
          gd::Graph other("other");
          const gd::GraphBuffer<float> buf =
              parents ? g->add_mem_alloc<float>(64).buffer : other.add_mem_alloc<float>(64).buffer;
          gd::Graph self("self");
          self.add_kernel(step, gd::Launch{1, 32}, buf, 1.0f, 32);
          for (std::size_t k = 0; k < n; ++k) self.add_child(self);
          return std::make_pair(std::move(g), std::move(self));
        },
        [](std::pair<std::unique_ptr<gd::Graph>, gd::Graph>& p) { p.first->add_child(p.second); });
  }
  auto bodies = [](std::size_t n) {
    gd::Graph g;
    auto lr = g.parameter<float>(0.5f).name("lr");
    for (std::size_t i = 0; i < n; ++i) {
      g.add_if(g.add_condition(1), [&](gd::Graph& b) { b.add_kernel(step, gd::Launch{1, 32}, X, lr, 32); });
    }
    return std::make_pair(std::move(g), lr);
  };
  check_growth("rename a parameter used by n bodies", 1000, bodies, [](auto& p) { p.second.name("rate"); });
  check_growth("validate, fingerprint, dump, to_dot of n bodies", 500, bodies, [](auto& p) {
    p.first.validate();
    (void)p.first.fingerprint();
    (void)p.first.dump();
    (void)p.first.to_dot();
  });
  check_growth(
      "diff() of two plans of n bodies", 1000, [&](std::size_t n) { return std::make_pair(bodies(n), bodies(n)); },
      [](auto& p) { CHECK(gd::diff(p.first.first, p.second.first)); });
}

// ---- race checker -------------------------------------------------------------------------------

/// n kernels, each writing range `range(i)` of X, each after the one before when `chain`.
template <class Range>
gd::Graph writers(std::size_t n, bool chain, Range range) {
  gd::Graph g;
  gd::Node prev = g.add_empty();
  for (std::size_t i = 0; i < n; ++i) {
    auto k = g.add_kernel(write, gd::Launch{1, 32}, gd::writes(X, range(i), 64), 64);
    if (chain) k.after(prev);
    prev = k;
  }
  return g;
}

TEST_CASE("complexity: check_races", "[complexity]") {
  auto check = [](gd::Graph& g) { CHECK(g.check_races().ok()); };
  check_growth(
      "check_races() of unordered writers of disjoint ranges", 2000,
      [](std::size_t n) { return writers(n, false, [](std::size_t i) { return 64 * i; }); }, check);
  check_growth(
      "check_races() of a chain of writers of disjoint ranges", 2000,
      [](std::size_t n) { return writers(n, true, [](std::size_t i) { return 64 * i; }); }, check);
  // Ordered writers of one range: one large group of accesses, ordered along the chain.
  check_growth(
      "check_races() of a chain writing one range", 2000,
      [](std::size_t n) { return writers(n, true, [](std::size_t) { return std::size_t{0}; }); }, check);
  // A fork-join of writers of disjoint ranges: the join has n predecessors (redundant-edge search).
  check_growth(
      "check_races() of a fork-join of disjoint writers", 2000,
      [](std::size_t n) {
        gd::Graph g;
        auto fork = g.add_empty();
        auto join = g.add_empty();
        for (std::size_t i = 0; i < n; ++i) {
          join.after(g.add_kernel(write, gd::Launch{1, 32}, gd::writes(X, 64 * i, 64), 64).after(fork));
        }
        return g;
      },
      check);
  // n graph buffers, each allocated, set and freed in order (the memsets' buffers are looked up per node).
  check_growth(
      "check_races() of n graph buffers: alloc, memset, free", 1000,
      [](std::size_t n) {
        gd::Graph g;
        for (std::size_t i = 0; i < n; ++i) {
          auto a = g.add_mem_alloc<float>(64);
          auto m = g.add_memset(a.buffer, 0.0f, 64).after(a.node);
          g.add_mem_free(a.buffer).after(m);
        }
        return g;
      },
      check);
  // n / 64 (at most 64) unordered 2-D memsets of one column each over the same n rows (interleaved:
  // no race); checking two of them must not cost once per row.
  check_growth(
      "check_races() of n/64 column writers over n rows", 512,
      [](std::size_t n) {
        gd::Graph g;
        for (std::size_t c = 0; c < std::min<std::size_t>(n / 64, 64); ++c)
          g.add_memset_2d(X + c, 64 * sizeof(float), 0.0f, 1, n);
        return g;
      },
      check);
}

// Every pair of n unordered writers of one range races: the report counts n^2 / 2 races (and keeps
// the first RaceReport::max_races), so the time grows as the answer does. Left out of the default
// run (tag [.]); run it by its tag to see the cost.
TEST_CASE("complexity: check_races where every pair races", "[.][complexity][races_all_pairs]") {
  check_growth(
      "check_races() of unordered writers of one range", 250,
      [](std::size_t n) { return writers(n, false, [](std::size_t) { return std::size_t{0}; }); },
      [](gd::Graph& g) { CHECK(!g.check_races().ok()); });
}

// ---- the plan side of Executable::update ----------------------------------------------------------

/// A plan of n kernels (every 8th using parameter lr) and a template of its shape with every value changed.
struct Update {
  gd::Graph recorded, templ;
};

gd::Graph update_plan(std::size_t n, float value) {
  gd::Graph g("update");
  auto lr = g.parameter<float>(value).name("lr");
  gd::Node prev = g.add_empty();
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 8 == 0) {
      prev = g.add_kernel(step, gd::Launch{1, 32}, X, lr, 32).after(prev);
    } else {
      prev = g.add_kernel(step, gd::Launch{1, 32}, X, value, 32).after(prev);
    }
  }
  return g;
}

TEST_CASE("complexity: the plan side of an update", "[complexity]") {
  check_growth(
      "update: diff, updated copy, recorded plan takes it", 2000,
      [](std::size_t n) {
        return Update{update_plan(n, 1.0f), update_plan(n, 2.0f)};
      },
      [](Update& u) {
        const gd::detail::GraphImpl& a = u.recorded.impl();
        const gd::detail::GraphImpl& t = u.templ.impl();
        std::vector<std::uint32_t> renamed;
        bool conditions_changed = false;
        const gd::UpdateResult r = gd::detail::plan_diff(a, t, &renamed, &conditions_changed);
        REQUIRE(r);
        const std::unique_ptr<gd::detail::GraphImpl> img = gd::detail::updated_copy(a, t, r.changed, renamed);
        REQUIRE(gd::detail::same_storage(a, *img));
        gd::detail::take_updated(u.recorded.impl(), *img);
      });
}

void wide(float*, const float*, float, float, int) {}

TEST_CASE("complexity: the plan side of set_kernel to another signature", "[complexity][set_kernel]") {
  // A recorded plan of n kernels (a chain, as Graph::compile keeps it), and the two one-node plans a
  // set_kernel builds: 2,000 switches of the first 64 nodes back and forth, each with what
  // Executable::set_kernel does on the plan (the rules graphdsl checks first, the record swapped, the
  // node's rules, the arena tidied). The same work on a plan 8 times larger costs the same.
  struct Switching {
    gd::Graph recorded;
    gd::Graph to_wide{"setter"}, to_step{"setter"};
  };
  check_flat(
      "2000 switches of a kernel's signature", 2000,
      [](std::size_t n) {
        Switching s{gd::Graph("chain")};
        gd::Node prev;
        for (std::size_t i = 0; i < n; ++i) {
          auto k = s.recorded.add_kernel(step, gd::Launch{1, 32}, X, 1.0f, 32);
          if (i > 0) k.after(prev);
          prev = k;
        }
        gd::detail::seal_as_recorded(s.recorded.impl(), s.recorded.id());
        s.to_wide.add_kernel(wide, gd::Launch{2, 64}, X, X, 0.5f, 1.0f, 32);
        s.to_step.add_kernel(step, gd::Launch{1, 32}, X, 2.0f, 32);
        return s;
      },
      [](Switching& s) {
        gd::detail::GraphImpl& a = s.recorded.impl();
        for (std::uint32_t k = 0; k < 2000; ++k) {
          const std::uint32_t i = (k / 2) % 64;
          const gd::detail::GraphImpl& one = (k % 2 == 0 ? s.to_wide : s.to_step).impl();
          const gd::detail::KernelData& kd = gd::detail::kernel_of(one, 0);
          REQUIRE(gd::detail::parameter_of_node(a, i) == gd::detail::ConditionRef::unresolved);
          (void)gd::detail::swap_kernel(a, i, kd.func, gd::detail::kernel_layout(one, 0),
                                        gd::detail::argument_block(one, kd), kd.launch);
          gd::detail::check_node(a, i);
          gd::detail::tidy_arguments(a);
        }
        return a.args.size();
      });
}

}  // namespace nested_complexity_test
