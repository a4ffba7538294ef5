// src/kinds/kinds.hpp — declares, for every line of graphdsl/detail/node_kinds.def, the entry of
// each concern that src/kinds/<kind>.cpp defines (`kinds::<kind>::rules`, ...). Included by the
// kind files (so that their definitions have external linkage) and by the table.
#pragma once

#include "exec/kind_patch.hpp"
#include "native/kind_build.hpp"
#include "plan/kind_compare.hpp"
#include "plan/kind_describe.hpp"
#include "plan/kind_races.hpp"
#include "plan/kind_rules.hpp"

namespace graphdsl::detail {

#define GRAPHDSL_NODE_KIND(name, what) \
  namespace kinds::name {              \
  extern const RuleOps rules;          \
  extern const RaceOps races;          \
  extern const CompareOps compare;     \
  extern const DescribeOps describe;   \
  extern const BuildOps build;         \
  extern const PatchOps patch;         \
  }
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND

}  // namespace graphdsl::detail
