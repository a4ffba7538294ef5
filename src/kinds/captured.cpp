// src/kinds/captured.cpp — the captured node kind (Graph::add_captured): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/counters.hpp"

namespace graphdsl::detail {

StreamClosure::StreamClosure() noexcept { counters().host_closures.fetch_add(1); }
StreamClosure::~StreamClosure() { counters().host_closures.fetch_sub(1); }
void StreamClosure::check(const NodeInfo&) const {}
std::string StreamClosure::describe() const { return {}; }

}  // namespace graphdsl::detail

namespace graphdsl {

CapturedNode Graph::add_captured_node(std::shared_ptr<detail::StreamClosure> fn, cudaStreamCaptureMode mode) {
  auto& g = impl();
  g.captures.push_back(detail::CaptureData{std::move(fn), mode});
  return CapturedNode(g.push(NodeKind::captured, g.captures.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::captured {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::captured {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::captured {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::captured {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::captured {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::captured {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end patch ====
