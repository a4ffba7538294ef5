// Generated update tests on the device: seeded random plans of kernel, memset, memcpy, host, empty,
// child and conditional (if, if-else, switch) nodes (tests/support/plan_generator.hpp, each node
// after the one before it so that a launch is deterministic), compiled, then edited at random.
// For each edit and each UpdatePolicy, on an executable of the plan before the edit:
//   * update() refuses exactly when diff() does, with the same status; under per_node it refuses
//     (not_supported) exactly the changes docs/updating.md says only cudaGraphExecUpdate makes (a
//     condition default, a conditional body); otherwise it succeeds and patches diff()'s nodes;
//   * after a successful update the executable computes what a freshly compiled edited plan does,
//     and after a refused one what the plan before the edit does (every buffer and host cell read
//     back from the same random start), and its recorded plan prints as that plan.
// The same after Executable::set_kernel switched a kernel to one of another signature: update() from
// edits of the switched plan decides as diff() against a plan built with the new kernel does.
// Plans edited in place (Graph's setters, Graph::remove_node) compile into what the plans built with
// the edits compile into, and executables update between them as between those.
// A failure prints the seed and the edits: rerun with that seed to reproduce it.
#include <cstdint>
#include <string>
#include <vector>

#include "generated_world.hpp"
#include "gpu_support.hpp"
#include "plan_edits.hpp"
#include "plan_generator.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace generated_update_test {

namespace {

constexpr std::uint32_t seeds = 40;
constexpr int edits_per_seed = 4;

/// The buffers and cells the generated plans use (generated_world.hpp).
struct World : GeneratedWorld {
  World() : GeneratedWorld(77) {}
};

plan_gen::Options device_options() { return launched_plan_options(); }

/// Whether update() under per_node must refuse a change diff() accepts: a condition default or a
/// conditional node's body (docs/updating.md, "Every UpdateStatus", not_supported).
bool per_node_refuses(const plan_gen::Spec& a, const plan_gen::Spec& b, const gd::UpdateResult& d) {
  if (plan_gen::defaults_differ(a, b)) return true;
  for (std::uint32_t i : d.changed) {
    if (plan_gen::conditional(a.nodes[i].kind)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("generated updates: update() decides as diff() does under each policy, and then computes the edited plan",
          "[gpu][update][generated]") {
  World w;
  const plan_gen::Options options = device_options();
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, options);
    plan_gen::Spec a = gen.plan();
    INFO("seed " << seed);
    std::string trail;
    for (int step = 0; step < edits_per_seed; ++step) {
      plan_gen::Spec b = a;
      const std::string what = gen.edit(b);
      if (what.empty()) continue;
      trail += "\n  " + what;
      INFO("edits:" << trail);
      const gd::Graph A = plan_gen::build(a, w.r);
      const gd::Graph B = plan_gen::build(b, w.r);
      const gd::UpdateResult d = gd::diff(A, B);
      INFO("diff: " << d.to_string());
      CHECK(static_cast<bool>(d) == plan_gen::same_shape(a, b));
      gd::Executable fresh_a = A.instantiate();
      const std::vector<float> before = w.run(fresh_a);
      std::vector<float> after;
      if (d) {
        gd::Executable fresh_b = B.instantiate();
        after = w.run(fresh_b);
      }
      for (gd::UpdatePolicy policy :
           {gd::UpdatePolicy::automatic, gd::UpdatePolicy::per_node, gd::UpdatePolicy::whole_graph}) {
        INFO("policy " << static_cast<int>(policy));
        gd::Executable exec = A.instantiate();
        const gd::UpdateResult r = exec.update(B, policy);
        INFO("update: " << r.to_string());
        if (!d) {
          CHECK(r.status == d.status);
          CHECK(r.strategy == gd::UpdateStrategy::none);
        } else if (policy == gd::UpdatePolicy::per_node && per_node_refuses(a, b, d)) {
          CHECK(r.status == gd::UpdateStatus::not_supported);
        } else {
          CHECK(r.status == gd::UpdateStatus::success);
          if (r) {
            CHECK(r.changed == d.changed);
          }
        }
        // What the executable launches now: the edited plan after an applied update, the old one
        // after a refusal (the executable is left as it was).
        CHECK(w.run(exec) == (r ? after : before));
        CHECK(gd::diff(exec.plan(), r ? B : A).changed.empty());
        CHECK(exec.plan().dump() == (r ? B : A).dump());  // what it launches, in the template's names
      }
      if (d && gen.chance(2)) a = b;  // walk on from the edited plan, or edit the same plan again
    }
  }
}

TEST_CASE("generated updates after set_kernel switched a kernel to another signature: update() decides as diff() does",
          "[gpu][update][generated][set_kernel]") {
  World w;
  w.r.wide = affine;  // out = m * in + c: (float*, const float*, float, float, int), not the generated kernels'
  const plan_gen::Options options = device_options();
  int swapped = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(1000 + seed, options);
    const plan_gen::Spec a = gen.plan();
    INFO("seed " << 1000 + seed);
    std::uint32_t at = 0;
    while (at < a.nodes.size() && a.nodes[at].kind != plan_gen::Kind::kernel) ++at;
    if (at == a.nodes.size()) continue;
    // The spec of what the executable launches after the switch: node `at` launching wide.
    plan_gen::Spec sw = a;
    plan_gen::NodeSpec& n = sw.nodes[at];
    n.fn = 2;
    n.src = (n.buf + 1) % 4;
    const gd::Graph A = plan_gen::build(a, w.r);
    const gd::Graph W = plan_gen::build(sw, w.r);
    const auto handle = gd::node_cast<gd::KernelNodeOf<decltype(scale_by)>>(A.node(at));
    auto switched = [&] {
      gd::Executable exec = A.instantiate();
      const float* in = w.r.buffers[n.src];
      const auto now = exec.set_kernel(handle, affine, gd::Launch{n.grid, n.block}, w.r.buffers[n.buf], in, n.scalar,
                                       0.5f, n.count);
      CHECK(now.index() == at);
      return exec;
    };
    gd::Executable fresh_w = W.instantiate();
    const std::vector<float> expected = w.run(fresh_w);
    // Host callables compare by identity: two builds of one spec differ there, and the switched
    // executable's plan differs from W there alone.
    const std::vector<std::uint32_t> identity = gd::diff(A, plan_gen::build(a, w.r)).changed;
    {
      gd::Executable exec = switched();
      CHECK(w.run(exec) == expected);
      CHECK(gd::diff(exec.plan(), W).changed == identity);
      CHECK(exec.plan().dump() == W.dump());
      CHECK(exec.plan().fingerprint() == W.fingerprint());
      ++swapped;
    }
    std::string trail;
    for (int step = 0; step < edits_per_seed; ++step) {
      plan_gen::Spec b = step == 0 ? a : sw;  // first the plan before the switch (function_changed), then edits
      const std::string what = step == 0 ? "the plan before the switch" : gen.edit(b);
      if (what.empty()) continue;
      trail += "\n  " + what;
      INFO("edits:" << trail);
      const gd::Graph B = plan_gen::build(b, w.r);
      const gd::UpdateResult d = gd::diff(W, B);
      INFO("diff: " << d.to_string());
      if (step == 0) CHECK(d.status == gd::UpdateStatus::function_changed);
      std::vector<float> after;
      if (d) {
        gd::Executable fresh_b = B.instantiate();
        after = w.run(fresh_b);
      }
      for (gd::UpdatePolicy policy :
           {gd::UpdatePolicy::automatic, gd::UpdatePolicy::per_node, gd::UpdatePolicy::whole_graph}) {
        INFO("policy " << static_cast<int>(policy));
        gd::Executable exec = switched();
        const gd::UpdateResult de = gd::diff(exec.plan(), B);
        CHECK(de.status == d.status);
        CHECK(de.changed == d.changed);
        const gd::UpdateResult r = exec.update(B, policy);
        INFO("update: " << r.to_string());
        if (!d) {
          CHECK(r.status == d.status);
          CHECK(r.reason == d.reason);
        } else if (policy == gd::UpdatePolicy::per_node && per_node_refuses(sw, b, d)) {
          CHECK(r.status == gd::UpdateStatus::not_supported);
        } else {
          CHECK(r.status == gd::UpdateStatus::success);
          if (r) {
            CHECK(r.changed == d.changed);
          }
        }
        CHECK(w.run(exec) == (r ? after : expected));
        CHECK(gd::diff(exec.plan(), r ? B : W).changed == (r ? std::vector<std::uint32_t>{} : identity));
        CHECK(exec.plan().dump() == (r ? B : W).dump());
      }
    }
  }
  CHECK(swapped > static_cast<int>(seeds) / 4);  // plans with a top-level kernel node
}

TEST_CASE("generated updates: a plan edited in place with its setters runs and updates as the plan built so",
          "[gpu][update][generated][edit]") {
  World w;
  const plan_gen::Options options = device_options();
  int applied = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, options);
    const plan_gen::Spec a = gen.plan();
    plan_gen::Spec b = a;
    const std::string what = gen.edit(b);
    INFO("seed " << seed << ", edit: " << what);
    const gd::Graph A = plan_gen::build(a, w.r);
    gd::Graph edited = A;
    if (what.empty() || !plan_gen::set_all_params(edited, a, b, w.r)) continue;  // no setter makes it
    ++applied;
    const gd::Graph B = plan_gen::build(b, w.r);
    gd::Executable fresh = B.instantiate();
    const std::vector<float> want = w.run(fresh);
    gd::Executable compiled = edited.instantiate();
    CHECK(w.run(compiled) == want);
    gd::Executable exec = A.instantiate();
    const gd::UpdateResult r = exec.update(edited);
    INFO("update: " << r.to_string());
    CHECK(r.status == gd::diff(A, B).status);
    if (r) CHECK(w.run(exec) == want);
  }
  CHECK(applied > 0);
}

TEST_CASE("generated updates: a plan with a node removed runs as the plan built without it, and updates from the "
          "same removal",
          "[gpu][update][generated][edit]") {
  World w;
  const plan_gen::Options options = device_options();
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, options);
    const plan_gen::Spec s = gen.plan();
    const auto k = gen.below(static_cast<std::uint32_t>(s.nodes.size()));
    INFO("seed " << seed << ", remove_node #" << k);
    if (plan_gen::conditional(s.nodes[k].kind)) continue;  // its Condition would stay unused
    // The chain stays one: the node before k joined to the node after it (plan_edits.hpp).
    const plan_gen::Spec model = plan_gen::without_node(s, k, true);
    gd::Graph edited = plan_gen::build(s, w.r);
    gd::Executable before = edited.instantiate();
    plan_gen::remove_node(edited, s, k, true);
    gd::Executable fresh = plan_gen::build(model, w.r).instantiate();
    const std::vector<float> want = w.run(fresh);
    gd::Executable exec = edited.instantiate();
    CHECK(w.run(exec) == want);
    // From the plan before the removal: refused, as diff() says, the executable unchanged.
    const std::vector<float> old = w.run(before);
    const gd::UpdateResult refused = before.update(edited);
    CHECK(refused.status == gd::UpdateStatus::topology_changed);
    CHECK(refused.status == gd::diff(before.plan(), edited).status);
    CHECK(w.run(before) == old);
    // From another plan with the same removal, the next node's parameters edited too.
    plan_gen::Spec next = s;
    if (gen.edit(next).empty() || !plan_gen::same_shape(s, next)) continue;
    gd::Graph templ = plan_gen::build(next, w.r);
    plan_gen::remove_node(templ, next, k, true);
    const gd::UpdateResult r = exec.update(templ);
    INFO("update: " << r.to_string());
    CHECK(r.status == gd::diff(exec.plan(), templ).status);
    if (!r) continue;
    gd::Executable built = plan_gen::build(plan_gen::without_node(next, k, true), w.r).instantiate();
    CHECK(w.run(exec) == w.run(built));
  }
}

TEST_CASE("generated updates: an UpdatePolicy outside the enumeration is refused, the executable unchanged",
          "[gpu][update][generated]") {
  World w;
  plan_gen::Generator gen(1, device_options());
  const plan_gen::Spec a = gen.plan();
  plan_gen::Spec b = a;
  while (gen.edit(b).empty()) {
  }
  const gd::Graph A = plan_gen::build(a, w.r);
  gd::Executable exec = A.instantiate();
  const std::vector<float> before = w.run(exec);
  CHECK_THROWS_WITH(exec.update(plan_gen::build(b, w.r), static_cast<gd::UpdatePolicy>(7)),
                    "graphdsl: Executable::update: UpdatePolicy(7) is not an update policy (automatic, per_node or "
                    "whole_graph)");
  CHECK(w.run(exec) == before);
}

}  // namespace generated_update_test
