// Generated shape-family tests without a GPU: for each seed, a random plan and variants of it made
// by random edits (tests/support/plan_generator.hpp) are added to a gd::ShapeFamily. The family's
// topologies must be the model's shape classes (plan_gen::same_shape), in add order, and
// changed_nodes() between two variants of one topology the model's changed nodes; a key added twice
// is refused and leaves the family as it was. No CUDA call.
#include <cstdint>
#include <string>
#include <vector>

#include <graphdsl/shape_family.hpp>

#include "plan_generator.hpp"
#include "plan_stand_ins.hpp"
#include "unit_support.hpp"

namespace generated_family_test {

namespace {

constexpr std::uint32_t seeds = 150;
constexpr std::size_t variants_per_seed = 6;

/// Stand-ins for what plans point at (plan_stand_ins.hpp).
using World = plan_gen::StandIns;
}  // namespace

TEST_CASE("generated families: topologies are the model's shape classes, pair diffs its changed nodes",
          "[shape_family][generated]") {
  World w;
  const std::uint64_t calls = graphdsl::debug::cuda_calls();
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, plan_gen::Options{});
    std::string trail;
    const std::vector<plan_gen::Spec> specs = gen.variants(variants_per_seed, trail);
    INFO("seed " << seed << trail);
    graphdsl::ShapeFamily<std::size_t> family;
    std::vector<std::size_t> reps;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      family.add(i, plan_gen::build(specs[i], w.r));
      std::size_t t = 0;
      while (t < reps.size() && !plan_gen::same_shape(specs[reps[t]], specs[i])) ++t;
      if (t == reps.size()) reps.push_back(i);
      CHECK(family.topology(i) == t);
    }
    CHECK(family.topologies() == reps.size());
    for (std::size_t a = 0; a < specs.size(); ++a) {
      for (std::size_t b = 0; b < specs.size(); ++b) {
        if (a == b || family.topology(a) != family.topology(b)) continue;  // a variant vs itself: 0
        CHECK(family.changed_nodes(a, b) == plan_gen::changed_nodes(specs[a], specs[b]).size());
      }
    }
    const std::size_t before = family.size();
    CHECK_THROWS_AS(family.add(0, plan_gen::build(specs[0], w.r)), graphdsl::UsageError);
    CHECK(family.size() == before);
    CHECK(family.topologies() == reps.size());
  }
  CHECK(graphdsl::debug::cuda_calls() == calls);
}

}  // namespace generated_family_test
