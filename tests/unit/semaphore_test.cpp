// External-semaphore nodes (Graph::add_semaphore_signal / add_semaphore_wait) on the plan: how they
// are added, shown, compared and checked, without a GPU and without a CUDA call. A real semaphore
// needs an exporter (Vulkan, Direct3D, NvSciSync) that the project's GPU machines lack, so these
// nodes have plan-level tests only (docs/node-kinds.md says so).
#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {

/// Stand-ins for imported semaphores: the plan keeps handles, never dereferences them.
cudaExternalSemaphore_t fake(std::uintptr_t n) { return reinterpret_cast<cudaExternalSemaphore_t>(n * 64); }

gd::Graph handoff(unsigned long long value) {
  gd::Graph g("handoff");
  auto in = g.add_semaphore_wait({{fake(1), value, 0, 0}, {fake(2), 0, 7, 100}}).name("ready");
  auto e = g.add_empty().name("work").after(in);
  g.add_semaphore_signal({{fake(3), value + 1, 0}}).name("done").after(e);
  return g;
}

}  // namespace

TEST_CASE("semaphores: signal and wait nodes are kept, shown and compared", "[semaphore]") {
  const auto calls = gd::debug::cuda_calls();
  const gd::Graph g = handoff(5);
  CHECK_NOTHROW(g.validate());
  CHECK(g.node(0).kind() == gd::NodeKind::semaphore_wait);
  CHECK(g.node(2).kind() == gd::NodeKind::semaphore_signal);
  CHECK(std::string(gd::to_string(gd::NodeKind::semaphore_signal)) == "semaphore_signal");
  CHECK(g.dump() == "graph 'handoff': 3 nodes, 2 edges\n"
                    "  #0 semaphore_wait 'ready': 2 semaphores: value 5, value 0 key 7 timeout 100 ms\n"
                    "  #1 empty 'work'; after 'ready'\n"
                    "  #2 semaphore_signal 'done': 1 semaphore: value 6; after 'work'\n");
  CHECK_THAT(g.to_dot(), has_substr("shape=house"));
  CHECK_THAT(g.to_dot(), has_substr("shape=invhouse"));
  // Semaphores and values are parameters (an update patches them); their number is the shape.
  CHECK(handoff(9).fingerprint() == g.fingerprint());
  CHECK(gd::diff(g, handoff(5)).changed.empty());
  const gd::UpdateResult r = gd::diff(g, handoff(9));
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed == std::vector<std::uint32_t>{0, 2});
  gd::Graph fewer("handoff");
  auto in = fewer.add_semaphore_wait({{fake(1), 5, 0, 0}}).name("ready");
  auto e = fewer.add_empty().name("work").after(in);
  fewer.add_semaphore_signal({{fake(3), 6, 0}}).name("done").after(e);
  CHECK(fewer.fingerprint() != g.fingerprint());
  const gd::UpdateResult shape = gd::diff(g, fewer);
  CHECK(shape.status == gd::UpdateStatus::parameters_changed);
  CHECK(shape.reason == "semaphore_wait node 'ready' (#0): 2 semaphores in the executable, 1 in the template; CUDA "
                        "cannot change the number of a node's semaphores in place");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("semaphores: the count, null semaphores, bodies and placement are refused", "[semaphore]") {
  gd::Graph g("g");
  CHECK_USAGE_ERROR(g.add_semaphore_signal({}),
                    "graphdsl: add_semaphore_signal: 0 semaphores; a semaphore node has 1 to 64");
  CHECK_USAGE_ERROR(g.add_semaphore_wait(std::vector<gd::SemaphoreWait>(65, gd::SemaphoreWait{fake(1)})),
                    "graphdsl: add_semaphore_wait: 65 semaphores; a semaphore node has 1 to 64");
  CHECK(g.node_count() == 0);
  g.add_semaphore_signal({{fake(1), 1, 0}, {nullptr, 2, 0}}).name("sig");
  CHECK(unit::usage_error_of([&] { g.validate(); }) ==
        "graphdsl: semaphore_signal node 'sig' (#0): semaphore 1 is null; pass one made by "
        "cudaImportExternalSemaphore");

  gd::Graph outer("outer");
  const gd::Condition c = outer.add_condition(1);
  outer.add_if(c, [&](gd::Graph& body) { body.add_semaphore_wait({{fake(1)}}).name("in body"); }).name("if");
  const std::string e = unit::usage_error_of([&] { outer.validate(); });
  CHECK_THAT(e, has_substr("semaphore_wait node 'in body' (#0)"));
  CHECK_THAT(e, has_substr("semaphore_wait nodes are not allowed in a conditional body"));

  gd::Graph placed("placed");
  placed.add_semaphore_signal({{fake(1)}}).name("sig").on_device(1);
  CHECK_THAT(unit::usage_error_of([&] { placed.validate(); }),
             has_substr("an external-semaphore node runs on the device its semaphores were imported on"));
}
