// Generated shape-family tests on the device: for each seed, a random plan (tests/support/
// plan_generator.hpp, each node after the one before it) and variants of it made by random edits
// (parameters and topology), added to a gd::ShapeFamily. Then:
//   * the family's topologies are the model's shape classes (plan_gen::same_shape), in add order;
//   * launched in a seeded random order, every launch computes what a freshly compiled executable of
//     that variant computes (every buffer and host cell read back from the same random start),
//     under each SwitchPolicy, whichever switch the family chose.
// A failure prints the seed and the edits: rerun with that seed to reproduce it.
#include <cstdint>
#include <string>
#include <vector>

#include <graphdsl/shape_family.hpp>

#include "generated_world.hpp"
#include "gpu_support.hpp"
#include "plan_generator.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace generated_family_test {

namespace {

constexpr std::uint32_t seeds = 20;
constexpr int variants_per_seed = 5;

/// The buffers and cells the generated plans use (generated_world.hpp).
struct World : GeneratedWorld {
  World() : GeneratedWorld(78) {}
};

plan_gen::Options device_options() {
  plan_gen::Options o;
  o.events = false;
  o.driver_kinds = false;
  o.while_loops = false;
  o.clusters = false;
  o.programmatic = false;
  o.chain = true;
  o.max_nodes = 6;
  return o;
}

}  // namespace

TEST_CASE("generated families: topologies follow the model, every launch computes its variant",
          "[gpu][shape_family][generated]") {
  World w;
  const plan_gen::Options options = device_options();
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, options);
    std::string trail;
    const std::vector<plan_gen::Spec> specs = gen.variants(variants_per_seed, trail);
    INFO("seed " << seed << trail);
    // The model's topologies: the first variant of each shape class, in add order.
    std::vector<std::size_t> model(specs.size());
    std::vector<std::size_t> reps;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      std::size_t t = 0;
      while (t < reps.size() && !plan_gen::same_shape(specs[reps[t]], specs[i])) ++t;
      if (t == reps.size()) reps.push_back(i);
      model[i] = t;
    }
    std::vector<std::vector<float>> want;
    for (const plan_gen::Spec& s : specs) {
      gd::Executable fresh = plan_gen::build(s, w.r).instantiate();
      want.push_back(w.run([&](cudaStream_t st) { fresh.launch(st); }));
    }
    for (gd::SwitchPolicy policy :
         {gd::SwitchPolicy::automatic, gd::SwitchPolicy::per_node, gd::SwitchPolicy::prepared}) {
      INFO("policy " << static_cast<int>(policy));
      gd::FamilyOptions o;
      o.policy = policy;
      gd::ShapeFamily<std::size_t> family(o);
      for (std::size_t i = 0; i < specs.size(); ++i) family.add(i, plan_gen::build(specs[i], w.r));
      CHECK(family.topologies() == reps.size());
      for (std::size_t i = 0; i < specs.size(); ++i) CHECK(family.topology(i) == model[i]);
      family.compile(w.stream);
      std::mt19937 order = rng(seed);
      for (int launch = 0; launch < 3 * variants_per_seed; ++launch) {
        const std::size_t v = order() % specs.size();
        INFO("launch " << launch << ": variant " << v);
        const std::vector<float> got = w.run([&](cudaStream_t st) { family.launch(v, st); });
        INFO(family.last_switch().to_string());
        CHECK(got == want[v]);
      }
    }
  }
}

}  // namespace generated_family_test
