// src/kinds/mem_free.cpp — the mem_free node kind (Graph::add_mem_free): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"

namespace graphdsl {

MemFreeNode Graph::add_mem_free_node(std::uint64_t uid, std::size_t first) {
  if (first != 0) {
    throw UsageError(
        fmt::format("add_mem_free: the buffer is a slice starting at element {} of its allocation; CUDA "
                    "frees whole allocations: pass the buffer add_mem_alloc returned",
                    first));
  }
  auto& g = impl();
  Change change(*this);
  g.frees.push_back(g.alloc_node(uid));
  const MemFreeNode n(g.push(NodeKind::mem_free, g.frees.size() - 1));
  change.commit();
  return n;
}

MemAllocNode Graph::freed_allocation(const MemFreeNode& node) const {
  const auto& g = impl();
  const std::uint32_t a = g.frees[g.nodes[detail::own_node(g, node, NodeKind::mem_free, "freed_allocation")].payload];
  return a == detail::ConditionRef::unresolved ? MemAllocNode() : MemAllocNode(g.handle(a));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <string>
#include <vector>

#include "plan/placement.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_mem_free(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (g.frees[n.payload] == no_buffer) {
    fail(g, i, ctx,
         fmt::format("the GraphBuffer it frees is not allocated by graph {} (a buffer is freed in the "
                     "plan that allocates it)",
                     quoted(g.name)));
  }
}

/// A free runs on its allocation's device: a placement must name that one.
void check_mem_free_placement(const GraphImpl& g, std::uint32_t i, const std::string& context) {
  const NodeData& n = g.nodes[i];
  if (n.device >= 0 && g.frees[n.payload] != ConditionRef::unresolved) {
    const int home = node_device(g, g.frees[n.payload], -1);
    if (home >= 0 && home != n.device) {
      refuse_placement(g, i, context,
                       fmt::format("is placed on device {} but frees memory of device {} ({}); a free runs on "
                                   "its allocation's device (leave it unplaced)",
                                   n.device, home, g.info(g.frees[n.payload]).describe()));
    }
  }
}

/// An unplaced free is created on its allocation's device.
int mem_free_device(const GraphImpl& g, std::uint32_t i, int home) {
  const std::uint32_t a = g.frees[g.nodes[i].payload];
  return a != ConditionRef::unresolved ? node_device(g, a, home) : home;
}

}  // namespace

std::vector<std::uint32_t> free_nodes(const GraphImpl& g, const std::string& ctx) {
  std::vector<std::uint32_t> free_of(g.nodes.size(), no_buffer);  // alloc node -> its free node
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != NodeKind::mem_free) continue;
    const std::uint32_t a = g.frees[g.nodes[i].payload];
    if (free_of[a] != no_buffer) {
      throw UsageError(fmt::format("{}{} and {} both free the buffer of {}; a graph allocation is freed once", ctx,
                                   g.info(free_of[a]).describe(), g.info(i).describe(), g.info(a).describe()));
    }
    free_of[a] = i;
  }
  return free_of;
}

bool frees_allocation(const GraphImpl& g, std::uint32_t k, std::uint32_t alloc) noexcept {
  const NodeData& n = g.nodes[k];
  return n.kind == NodeKind::mem_free && g.frees[n.payload] == alloc;
}

}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::mem_free {
const RuleOps rules{/*check=*/&rule::check_mem_free,
                    /*not_placeable=*/nullptr,
                    /*in_body=*/false,
                    /*check_scoped=*/nullptr,
                    /*kinded_edges=*/false,
                    /*check_replacement=*/nullptr,
                    /*nested_in_plan=*/false,
                    /*inert=*/false,
                    /*recount_on_remove=*/true,
                    /*check_removal=*/nullptr,
                    /*check_placement=*/&rule::check_mem_free_placement,
                    /*unplaced_device=*/&rule::mem_free_device};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// A free writes all of the buffer it frees.
void mem_free_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  Access a = c.access();
  const std::uint32_t alloc = g.frees[n.payload];
  if (alloc == ConditionRef::unresolved) return;
  a.origin = Origin::free;
  a.r = whole(Space::buffer, g.allocs[g.nodes[alloc].payload].uid);
  level.accesses.push_back(a);
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::mem_free {
const RaceOps races{&race::mem_free_accesses};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::mem_free {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl&, std::uint32_t, const GraphImpl&, std::uint32_t) {
  return true;  // compared as structure
}

/// The same buffer freed.
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  if (a.frees[a.nodes[i].payload] != b.frees[b.nodes[i].payload]) {
    return refusal(UpdateStatus::topology_changed, b.info(i),
                   fmt::format("{}{} frees another buffer in the template", ctx, b.info(i).describe()));
  }
  return std::nullopt;
}

void save(SavedParams&, const GraphImpl&, std::uint32_t, bool) {}
void restore(const SavedParams&, GraphImpl&, std::uint32_t) {}

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& /*memo*/) {
  const std::uint32_t payload = g.nodes[i].payload;
  f.add(g.frees[payload]);
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/compare_fns::compare_shape,
                         /*fingerprint=*/compare_fns::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/plan_access.hpp"
#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::mem_free {
namespace describing {
namespace {

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams&) {
  const std::uint32_t a = g.frees[g.nodes[i].payload];
  return a == detail::ConditionRef::unresolved
             ? std::string("frees a buffer of another plan")
             : fmt::format("frees {}, {} bytes", g.info(a).ref(), detail::alloc_of(g, a).bytes);
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "cylinder", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::mem_free

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <vector>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl::detail::kinds::mem_free {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  out.api = "cudaGraphAddMemFreeNode";
  out.rc = cuda_try(cudaGraphAddMemFreeNode, &out.node, graph, deps.data(), deps.size(),
                    builder.dptrs_[g.frees[g.nodes[i].payload]]);
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, false};

}  // namespace graphdsl::detail::kinds::mem_free

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::mem_free {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Nothing to patch.
Applied apply(ExecImpl&, std::uint32_t) { return {}; }

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end patch ====
