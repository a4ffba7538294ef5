// Generated child-plan tests on the device: seeded random plans holding child nodes
// (tests/support/plan_generator.hpp), and variants of them that differ only in child plans. An
// executable of the first plan is given the variants' child plans in turn with
// Executable::set_child(node, plan), each variant several times (the executable keeps the graphs of
// the plans it was given, and a plan given again is set from the kept graph). The plans given are
// held and given again, unchanged (found by their content stamp) or first edited in place into
// another variant's child plan through the plan's setters (the graph kept for them before must not be
// set then). After every call:
//   * set_child accepts the child plan exactly when diff() accepts the plan with that child against
//     the plan the executable runs;
//   * after an accepted call the executable computes what a freshly compiled plan with that child
//     does (every buffer and host cell read back from the same random start), and its recorded plan
//     prints as that plan; after a refused one it computes and prints what it did before.
// A failure prints the seed and the variants: rerun with that seed to reproduce it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generated_world.hpp"
#include "gpu_support.hpp"
#include "plan_edits.hpp"
#include "plan_generator.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace generated_child_test {

namespace {

constexpr std::uint32_t seeds = 60;
constexpr std::size_t variants_per_seed = 4;
constexpr int sets_per_seed = 10;

struct World : GeneratedWorld {
  World() : GeneratedWorld(91) {}
};


/// The top-level child nodes of `s`.
std::vector<std::uint32_t> child_nodes(const plan_gen::Spec& s) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < s.nodes.size(); ++i) {
    if (s.nodes[i].kind == plan_gen::Kind::child) out.push_back(i);
  }
  return out;
}

}  // namespace

TEST_CASE("generated child plans: set_child(node, plan) accepts as diff() does and then runs as the plan built with "
          "that child, a plan given before included; a refusal leaves the executable as it was",
          "[gpu][update][generated][child]") {
  World w;
  const plan_gen::Options options = launched_plan_options();
  int accepted = 0, refused = 0, seen_before = 0, edited_in_place = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, options);
    const plan_gen::Spec a = gen.plan();
    const std::vector<std::uint32_t> children = child_nodes(a);
    if (children.empty()) continue;
    INFO("seed " << seed);
    // Variants of `a` whose edits all landed in child plans (some change a child's shape: refused).
    std::vector<plan_gen::Spec> variants{a};
    std::string trail;
    for (int tries = 0; variants.size() < variants_per_seed && tries < 200; ++tries) {
      plan_gen::Spec b = variants[static_cast<std::size_t>(tries) % variants.size()];
      const std::string what = gen.edit(b);
      if (what.rfind("child plan of ", 0) != 0) continue;
      trail += "\n  variant " + std::to_string(variants.size()) + ": " + what;
      variants.push_back(std::move(b));
    }
    INFO("variants:" << trail);
    const gd::Graph A = plan_gen::build(a, w.r);
    gd::Executable exec = A.instantiate();
    plan_gen::Spec now = a;  // what exec runs
    std::vector<bool> given(variants.size(), false);
    // The plan given for (variant, child node): built when first given, then held, and what it holds.
    std::vector<std::optional<gd::Graph>> held(variants.size() * children.size());
    std::vector<plan_gen::Spec> held_spec(held.size());
    for (int step = 0; step < sets_per_seed; ++step) {
      const std::size_t v = static_cast<std::size_t>(step) % variants.size();
      const std::size_t ci = static_cast<std::size_t>(step) % children.size();
      const std::uint32_t c = children[ci];
      const std::size_t h = v * children.size() + ci;
      std::string how = "built";
      if (!held[h]) {
        held_spec[h] = variants[v].nodes[c].bodies[0];
        held[h] = plan_gen::build(held_spec[h], w.r, "child");
      } else if (gen.chance(3)) {
        const std::size_t u = gen.below(static_cast<std::uint32_t>(variants.size()));
        const plan_gen::Spec& to = variants[u].nodes[c].bodies[0];
        how = "edited in place into variant " + std::to_string(u) + "'s";
        if (plan_gen::set_all_params(*held[h], held_spec[h], to, w.r)) {
          ++edited_in_place;
        } else {  // not an edit the setters make: built again
          held[h] = plan_gen::build(to, w.r, "child");
          how = "built as variant " + std::to_string(u) + "'s";
        }
        held_spec[h] = to;
      } else {
        how = "held, unchanged";
      }
      plan_gen::Spec next = now;
      next.nodes[c].bodies.assign(1, held_spec[h]);
      INFO("step " << step << ": child node " << a.nodes[c].name << " from variant " << v << ", the plan " << how);
      const gd::Graph Now = plan_gen::build(now, w.r);
      const gd::Graph Next = plan_gen::build(next, w.r);
      const bool accepts = static_cast<bool>(gd::diff(Now, Next));
      const std::vector<float> before = w.run(exec);
      bool threw = false;
      try {
        exec.set_child(gd::ChildNode(A.node(c).ref()), *held[h]);
      } catch (const gd::UsageError& e) {
        threw = true;
        INFO("refused: " << e.what());
        CHECK(!accepts);
      }
      if (threw) {
        ++refused;
        CHECK(w.run(exec) == before);
        CHECK(exec.plan().dump() == Now.dump());
        continue;
      }
      CHECK(accepts);
      ++accepted;
      if (given[v]) ++seen_before;
      given[v] = true;
      gd::Executable fresh = Next.instantiate();
      CHECK(w.run(exec) == w.run(fresh));
      CHECK(exec.plan().dump() == Next.dump());
      now = next;
    }
  }
  INFO(accepted << " accepted, " << refused << " refused, " << seen_before << " of a plan given before, "
                << edited_in_place << " plans edited in place");
  CHECK(accepted > 20);
  CHECK(seen_before > 0);
  CHECK(edited_in_place > 0);
}

}  // namespace generated_child_test
