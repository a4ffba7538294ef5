// Generated profile tests on the device: seeded random plans of kernel, memset, memcpy, host,
// empty, child and conditional (if, if-else, switch) nodes (tests/support/plan_generator.hpp),
// compiled and profiled (gd::profile). Invariants: no record is unattributed, and each kernel,
// memset and memcpy node of the plan, at any depth, has exactly one record per execution, where
// the model says from the Spec alone how often a node runs (a conditional body runs when its
// condition's default selects it; each launch assigns the default). A failure names the seed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <graphdsl/profile.hpp>
#include "generated_world.hpp"
#include "gpu_support.hpp"
#include "plan_generator.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace generated_profile_test {

namespace {

constexpr std::uint32_t seeds = 30;
constexpr int launches = 2;

/// Whether body `slot` of conditional or child node `n` runs when `n` does.
bool body_runs(const plan_gen::NodeSpec& n, std::uint32_t slot) {
  const unsigned d = n.default_value;
  if (n.kind == plan_gen::Kind::child) return true;
  if (n.kind == plan_gen::Kind::if_then) return d != 0;
  if (n.kind == plan_gen::Kind::if_else) return slot == (d != 0 ? 0u : 1u);
  if (n.kind == plan_gen::Kind::switch_case) return slot == d;
  return false;  // while loops are not generated here
}

bool makes_records(plan_gen::Kind k) {
  return k == plan_gen::Kind::kernel || k == plan_gen::Kind::memset || k == plan_gen::Kind::memcpy;
}

/// The Spec node of profile entry e and how many times it runs per launch.
struct Modelled {
  const plan_gen::NodeSpec* spec;
  std::uint64_t runs;
};

Modelled model(const plan_gen::Spec& top, const gd::Profile& p, std::size_t e) {
  const gd::ProfileNode& node = p.nodes[e];
  if (node.parent < 0) return {&top.nodes.at(node.index), 1};
  const Modelled outer = model(top, p, static_cast<std::size_t>(node.parent));
  const plan_gen::Spec& plan = outer.spec->bodies.at(node.slot);
  return {&plan.nodes.at(node.index), body_runs(*outer.spec, node.slot) ? outer.runs : 0};
}

}  // namespace

TEST_CASE("generated: profile attributes every record of random nested plans, one per node execution",
          "[gpu][profile][generated]") {
  if (!gd::profiler_available()) {
    WARN("skipped: CUPTI is not available (GRAPHDSL_CUPTI_PATH, libcupti.so.13)");
    return;
  }
  gd::profiler_attach();  // before instantiate(): the executables' own node ids are recorded
  struct Detach {
    ~Detach() { gd::profiler_detach(); }  // the rest of the suite compiles unobserved
  } detach;
  GeneratedWorld w(91);
  plan_gen::Options o;
  o.events = false;
  o.driver_kinds = false;
  o.while_loops = false;
  o.clusters = false;
  o.programmatic = false;
  o.max_nodes = 8;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    INFO("seed " << seed);
    plan_gen::Generator g(seed, o);
    const plan_gen::Spec spec = g.plan();
    const gd::Graph plan = plan_gen::build(spec, w.r);
    gd::Executable exec = plan.instantiate();
    const gd::Profile p = gd::profile(exec, w.stream, launches);
    if (std::getenv("GRAPHDSL_PROFILE_TRACE") != nullptr) std::fprintf(stderr, "%s\n", gd::to_name_map(p).c_str());
    INFO(gd::to_table(p));
    CHECK(p.unattributed == 0);
    std::uint64_t want_records = 0;
    for (std::size_t e = 0; e < p.nodes.size(); ++e) {
      const Modelled m = model(spec, p, e);
      INFO("node " << p.nodes[e].path);
      if (makes_records(m.spec->kind)) {
        CHECK(p.nodes[e].count == m.runs * launches);
        want_records += m.runs * launches;
      } else {
        CHECK(p.nodes[e].count == 0);
      }
    }
    CHECK(p.records.size() == want_records);
  }
}

}  // namespace generated_profile_test
