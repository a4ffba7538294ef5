// src/kinds/captured.cpp — the captured node kind (Graph::add_captured): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_captured(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  const cudaStreamCaptureMode m = g.captures[n.payload].mode;
  if (m != cudaStreamCaptureModeGlobal && m != cudaStreamCaptureModeThreadLocal && m != cudaStreamCaptureModeRelaxed) {
    fail(g, i, ctx, fmt::format("cudaStreamCaptureMode {} is not a capture mode", static_cast<int>(m)));
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::captured {
const RuleOps rules{&rule::check_captured, nullptr, true};
}  // namespace graphdsl::detail::kinds::captured

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// Unbounded unless its accesses are declared.
void captured_accesses(const NodeContext& c) {
  if (c.decl.empty()) {
    c.level.unbounded.push_back(
        UnboundedAccess{c.level.info(c.i), "captured work with no accesses() declaration: not checked"});
  }
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::captured {
const RaceOps races{&race::captured_accesses};
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
