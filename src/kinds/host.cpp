// src/kinds/host.cpp — the host node kind (Graph::add_host): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/closure_pool.hpp"
#include "plan/counters.hpp"
#include "plan/graph_build.hpp"

namespace graphdsl::detail {

HostClosure::HostClosure() noexcept { counters().host_closures.fetch_add(1); }
HostClosure::~HostClosure() { counters().host_closures.fetch_sub(1); }

}  // namespace graphdsl::detail

namespace graphdsl {

HostNode Graph::add_host_node(detail::HostClosure* closure) {
  std::shared_ptr<detail::HostClosure> owned = detail::own_closure(closure);
  auto& g = impl();
  Change change(*this);
  g.hosts.push_back(std::move(owned));
  const HostNode n(g.push(NodeKind::host, g.hosts.size() - 1));
  change.commit();
  return n;
}

bool Graph::has_callable(const HostNode& node) const {
  const auto& g = impl();
  const std::uint32_t i = detail::own_node(g, node, NodeKind::host, "has_callable");
  return !g.hosts[g.nodes[i].payload]->empty;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_host(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (g.hosts[n.payload]->empty) {
    fail(g, i, ctx, "the callable is empty (a null function pointer or an empty std::function)");
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::host {
const RuleOps rules{&rule::check_host, "a host node runs on the CPU", false};
}  // namespace graphdsl::detail::kinds::host

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// Unbounded unless its accesses are declared.
void host_accesses(const NodeContext& c) {
  if (c.decl.empty()) {
    c.level.unbounded.push_back(UnboundedAccess{c.level.info(c.i),
                                                "a host callback with no accesses() declaration: not checked"});
  }
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::host {
const RaceOps races{&race::host_accesses};
}  // namespace graphdsl::detail::kinds::host

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::host {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const auto& x = a.hosts[pa];
  const auto& y = b.hosts[pb];
  return x == y || (x != nullptr && y != nullptr && x->same_as(*y));
}

}  // namespace compare_fns

using Stored = StoredParams<&GraphImpl::hosts, &SavedParams::host>;
const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/nullptr,
                         /*fingerprint=*/nullptr,
                         /*after_edges=*/false,
                         /*save=*/Stored::save,
                         /*restore=*/Stored::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::host

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

namespace graphdsl::detail::kinds::host {
namespace describing {
namespace {

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams&) {
  return g.hosts[g.nodes[i].payload]->empty ? "empty callable (a null function pointer or an empty std::function)"
                                            : "a callable";
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "hexagon", nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::host

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <atomic>
#include <exception>
#include <memory>
#include <vector>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/reaper.hpp"

namespace graphdsl::detail::kinds::host {
namespace building {
namespace {

/// The host node's CUDA callback: runs the slot's current callable; what it throws goes to the
/// executable's error sink.
void CUDART_CB host_trampoline(void* p) {
  const OnCallbackThread callback;  // CUDA calls are refused here: releases go to the release thread
  auto* slot = static_cast<HostSlot*>(p);
  const std::shared_ptr<HostClosure> fn = std::atomic_load(&slot->fn);  // a concurrent set_host may swap it
  try {
    fn->call();
  } catch (...) {
    slot->sink->store(std::current_exception());
  }
}

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const NodeData& n = g.nodes[i];
  auto slot = std::make_shared<HostSlot>();
  slot->fn = g.hosts[n.payload];
  slot->sink = builder.error_sink();
  cudaHostNodeParams p{};
  p.fn = &host_trampoline;
  p.userData = slot.get();
  if (builder.slots_ != nullptr) (*builder.slots_)[n.payload] = slot.get();
  builder.keep_.add(std::move(slot));
  AddedNode out;
  out.api = "cudaGraphAddHostNode";
  out.rc = cuda_try(cudaGraphAddHostNode, &out.node, graph, deps.data(), deps.size(),
                    static_cast<const cudaHostNodeParams*>(&p));
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, true};

}  // namespace graphdsl::detail::kinds::host

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include <atomic>

#include "exec/patch.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::host {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Swaps the callable in the node's slot: no CUDA call.
Applied apply(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& g = recorded_plan(x);
  const std::uint32_t payload = g.nodes[i].payload;
  std::atomic_store(&x.native.host_slots[payload]->fn, g.hosts[payload]);
  return {};
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::host

// ==== end patch ====
