// src/kinds/semaphore_wait.cpp — the semaphore_wait node kind (Graph::add_semaphore_wait: waits on external
// semaphores): what graphdsl does for one such node, concern by concern, each section filling the kind's entry of one
// table (src/kinds/table.cpp). What it shares with semaphore_signal (all but the entry type and the CUDA calls) is in
// src/kinds/semaphore_node.hpp.
#include "kinds/kinds.hpp"
#include "kinds/semaphore_node.hpp"

namespace graphdsl::detail::kinds::semaphore_wait {

/// What semaphore_node's templates need to know of this kind.
struct Traits {
  using Entry = SemaphoreWait;
  using Params = cudaExternalSemaphoreWaitParams;
  using NodeParams = cudaExternalSemaphoreWaitNodeParams;
  static constexpr auto add = &cudaGraphAddExternalSemaphoresWaitNode;
  static constexpr const char* add_api = "cudaGraphAddExternalSemaphoresWaitNode";
  static constexpr auto set = &cudaGraphExecExternalSemaphoresWaitNodeSetParams;
  static constexpr const char* set_api = "cudaGraphExecExternalSemaphoresWaitNodeSetParams";
  static Params params(const Entry& e) {
    Params p{};
    p.params.fence.value = e.value;
    p.params.keyedMutex.key = e.key;
    p.params.keyedMutex.timeoutMs = e.timeout_ms;
    return p;
  }
  static bool same(const Entry& x, const Entry& y) {
    return x.semaphore == y.semaphore && x.value == y.value && x.key == y.key && x.timeout_ms == y.timeout_ms;
  }
  static std::string text(const Entry& e) {
    return e.key != 0 ? fmt::format("value {} key {} timeout {} ms", e.value, e.key, e.timeout_ms)
                      : fmt::format("value {}", e.value);
  }
};

}  // namespace graphdsl::detail::kinds::semaphore_wait

// ==== make (the Graph::add_* of this kind) ====

namespace graphdsl {

SemaphoreWaitNode Graph::add_semaphore_wait(const std::vector<SemaphoreWait>& waits) {
  auto& g = impl();
  Change change(*this);
  const SemaphoreWaitNode n(g.push(NodeKind::semaphore_wait,
                                   detail::kinds::semaphore_node::put(g, waits, "add_semaphore_wait")));
  change.commit();
  return n;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::semaphore_wait {
/// Not in a conditional body (CUDA's bodies hold kernel, empty, child, memset, memcpy and conditional nodes).
const RuleOps rules{&semaphore_node::check<SemaphoreWait>, semaphore_node::not_placeable, false};
}  // namespace graphdsl::detail::kinds::semaphore_wait

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::semaphore_wait {
// No access the checker sees: a semaphore node orders work (with work outside the graph), it touches no memory.
const RaceOps races{nullptr};
}  // namespace graphdsl::detail::kinds::semaphore_wait

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::semaphore_wait {
const CompareOps compare{/*same_params=*/semaphore_node::same_params<Traits>,
                         /*compare_shape=*/semaphore_node::compare_shape,
                         /*fingerprint=*/semaphore_node::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/semaphore_node::save<SemaphoreWait>,
                         /*restore=*/semaphore_node::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::semaphore_wait

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::semaphore_wait {
namespace {

std::string summary(const GraphImpl& g, std::uint32_t i, const NodeParams& /*params*/) {
  return semaphore_node::summary<Traits>(g, i);
}

}  // namespace

const DescribeOps describe{&summary, nullptr, "house", nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::semaphore_wait

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::semaphore_wait {
const BuildOps build{&semaphore_node::add<Traits>, false};
}  // namespace graphdsl::detail::kinds::semaphore_wait

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::semaphore_wait {
const PatchOps patch{&semaphore_node::apply<Traits>, nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::semaphore_wait

// ==== end patch ====
