// src/kinds/semaphore_signal.cpp — the semaphore_signal node kind (Graph::add_semaphore_signal: signals external
// semaphores): what graphdsl does for one such node, concern by concern, each section filling the kind's entry of one
// table (src/kinds/table.cpp). What it shares with semaphore_wait (all but the entry type and the CUDA calls) is in
// src/kinds/semaphore_node.hpp.
#include "kinds/kinds.hpp"
#include "kinds/semaphore_node.hpp"

namespace graphdsl::detail::kinds::semaphore_signal {

/// What semaphore_node's templates need to know of this kind.
struct Traits {
  using Entry = SemaphoreSignal;
  using Params = cudaExternalSemaphoreSignalParams;
  using NodeParams = cudaExternalSemaphoreSignalNodeParams;
  static constexpr auto add = &cudaGraphAddExternalSemaphoresSignalNode;
  static constexpr const char* add_api = "cudaGraphAddExternalSemaphoresSignalNode";
  static constexpr auto set = &cudaGraphExecExternalSemaphoresSignalNodeSetParams;
  static constexpr const char* set_api = "cudaGraphExecExternalSemaphoresSignalNodeSetParams";
  static Params params(const Entry& e) {
    Params p{};
    p.params.fence.value = e.value;
    p.params.keyedMutex.key = e.key;
    return p;
  }
  static bool same(const Entry& x, const Entry& y) {
    return x.semaphore == y.semaphore && x.value == y.value && x.key == y.key;
  }
  static std::string text(const Entry& e) {
    return e.key != 0 ? fmt::format("value {} key {}", e.value, e.key) : fmt::format("value {}", e.value);
  }
};

}  // namespace graphdsl::detail::kinds::semaphore_signal

// ==== make (the Graph::add_* of this kind) ====

namespace graphdsl {

SemaphoreSignalNode Graph::add_semaphore_signal(const std::vector<SemaphoreSignal>& signals) {
  auto& g = impl();
  Change change(*this);
  const SemaphoreSignalNode n(g.push(NodeKind::semaphore_signal,
                                     detail::kinds::semaphore_node::put(g, signals, "add_semaphore_signal")));
  change.commit();
  return n;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::semaphore_signal {
/// Not in a conditional body (CUDA's bodies hold kernel, empty, child, memset, memcpy and conditional nodes).
const RuleOps rules{&semaphore_node::check<SemaphoreSignal>, semaphore_node::not_placeable, false};
}  // namespace graphdsl::detail::kinds::semaphore_signal

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::semaphore_signal {
// No access the checker sees: a semaphore node orders work (with work outside the graph), it touches no memory.
const RaceOps races{nullptr};
}  // namespace graphdsl::detail::kinds::semaphore_signal

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::semaphore_signal {
const CompareOps compare{/*same_params=*/semaphore_node::same_params<Traits>,
                         /*compare_shape=*/semaphore_node::compare_shape,
                         /*fingerprint=*/semaphore_node::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/semaphore_node::save<SemaphoreSignal>,
                         /*restore=*/semaphore_node::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::semaphore_signal

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::semaphore_signal {
namespace {

std::string summary(const GraphImpl& g, std::uint32_t i, const NodeParams& /*params*/) {
  return semaphore_node::summary<Traits>(g, i);
}

}  // namespace

const DescribeOps describe{&summary, nullptr, "invhouse", nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::semaphore_signal

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::semaphore_signal {
const BuildOps build{&semaphore_node::add<Traits>, false};
}  // namespace graphdsl::detail::kinds::semaphore_signal

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::semaphore_signal {
const PatchOps patch{&semaphore_node::apply<Traits>, nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::semaphore_signal

// ==== end patch ====
