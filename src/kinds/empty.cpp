// src/kinds/empty.cpp — the empty node kind (Graph::add_empty): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"

namespace graphdsl {

EmptyNode Graph::add_empty() { return EmptyNode(impl().push(NodeKind::empty, 0)); }

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::empty {
const RuleOps rules{/*check=*/nullptr,        /*not_placeable=*/nullptr,
                    /*in_body=*/true,         /*check_scoped=*/nullptr,
                    /*kinded_edges=*/false,   /*check_replacement=*/nullptr,
                    /*nested_in_plan=*/false, /*inert=*/true};
}  // namespace graphdsl::detail::kinds::empty

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::empty {
// No access: an empty node touches no memory.
const RaceOps races{nullptr};
}  // namespace graphdsl::detail::kinds::empty

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::empty {
const CompareOps compare{/*same_params=*/NoParams::same_params,
                         /*compare_shape=*/nullptr,
                         /*fingerprint=*/nullptr,
                         /*after_edges=*/false,
                         /*save=*/NoParams::save,
                         /*restore=*/NoParams::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::empty

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::empty {
const DescribeOps describe{nullptr, nullptr, "point", nullptr, nullptr};  // no summary: the kind says it all
}  // namespace graphdsl::detail::kinds::empty

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <vector>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl::detail::kinds::empty {
namespace building {
namespace {

AddedNode add(Builder&, const GraphImpl&, std::uint32_t, cudaGraph_t graph, const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  out.api = "cudaGraphAddEmptyNode";
  out.rc = cuda_try(cudaGraphAddEmptyNode, &out.node, graph, deps.data(), deps.size());
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, false};

}  // namespace graphdsl::detail::kinds::empty

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::empty {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Nothing to patch.
Applied apply(ExecImpl&, std::uint32_t) { return {}; }
Applied patch_graph(ExecImpl&, const GraphImpl&, std::uint32_t) { return {}; }

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr, patch_fns::patch_graph};
}  // namespace graphdsl::detail::kinds::empty

// ==== end patch ====
