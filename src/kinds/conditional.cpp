// src/kinds/conditional.cpp — the conditional node kind (Graph::add_if / add_if_else / add_while / add_switch): what
// graphdsl does for one such node, concern by concern, each section filling the kind's entry of one table
// (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <algorithm>
#include <atomic>
#include <functional>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"

namespace graphdsl {

Condition Graph::add_condition(unsigned int default_value, bool assign_default) {
  static std::atomic<std::uint64_t> next{1};
  auto& g = impl();
  const Condition c(next.fetch_add(1, std::memory_order_relaxed));
  g.conditions.push_back(detail::ConditionData{c.id(), default_value, assign_default});
  return c;
}

namespace {
std::string body_name(ConditionalType type, unsigned i) {
  switch (type) {
    case ConditionalType::if_then: return "if body";
    case ConditionalType::if_else: return i == 0 ? "then body" : "else body";
    case ConditionalType::while_loop: return "while body";
    case ConditionalType::switch_case: return fmt::format("switch case {}", i);
  }
  return "body";
}
}  // namespace

namespace {
/// A body count no plan can hold (more than max_embedded_nodes: each body is a plan of its own)
/// is refused before any builder runs; other wrong counts are validate()'s rule
/// (check_conditional_shape), as they were.
void check_body_count(ConditionalType type, unsigned int size) {
  if (size <= max_embedded_nodes) return;
  throw UsageError(
      fmt::format("add_conditional: a {} node with {} bodies; a conditional node has at most {} "
                  "(max_embedded_nodes); no body builder was called",
                  to_string(type), size, max_embedded_nodes));
}
}  // namespace

ConditionalNode Graph::add_conditional_node(ConditionalType type, const Condition& cond, unsigned int size,
                                            detail::FunctionRef<void(unsigned int, Graph&)> body) {
  auto& g = impl();
  check_body_count(type, size);  // before the builder is called: a wrong count would call it ~2^32 times
  detail::ConditionalData c{type, g.resolve(cond), {}};
  c.bodies.reserve(std::min(size, 16u));  // `size` is the user's: a huge one fails in validate(), not here
  // The bodies reach this plan through `link` while their builders run, and only then: the guard
  // cuts it on every exit, so a body moved out of its builder cannot reach this plan later.
  const auto link = std::make_shared<detail::ParentLink>(detail::ParentLink{g.token});
  struct Cut {
    detail::ParentLink& l;
    ~Cut() { l.outer.reset(); }
  } cut{*link};
  const detail::SharedRef<detail::PlanToken> outer = g.token;  // outlives the plan if a builder destroys it
  std::vector<const detail::GraphImpl*> built;
  for (unsigned int i = 0; i < size; ++i) {
    Graph b(body_name(type, i));
    b.impl_.get()->parent = link;
    if (!body) throw std::bad_function_call();  // a null function pointer, as std::function did
    body(i, b);
    if (outer->plan != &g || impl_.get() != &g) {
      throw UsageError(
          fmt::format("the builder of the {} of a {} node destroyed, replaced or moved graph '{}', the plan "
                      "the node is added to; a builder builds only its body",
                      body_name(type, i), to_string(type), outer->name));
    }
    if (!b.impl_)
      throw UsageError(fmt::format("the {} of a {} node was moved from inside its builder", body_name(type, i),
                                   to_string(type)));
    b.impl_.get()->parent.reset();
    b.impl_.get()->sealed = detail::Sealed::body;
    built.push_back(b.impl_.get());
    c.bodies.push_back(std::shared_ptr<const detail::GraphImpl>(b.impl_.release()));
  }
  // What the node adds to this plan, undone if any of it fails. Made after the builders: what a
  // builder added to this plan itself (a node, through its own add_*) stays, as the handles the
  // builder holds to it do; undoing it would leave those handles naming the next node added there.
  Change change(*this);
  g.embed(built, false, fmt::format("add_conditional ({})", to_string(type)));
  g.conditionals.push_back(std::move(c));
  const ConditionalNode node(g.push(NodeKind::conditional, g.conditionals.size() - 1));
  for (std::uint32_t i = 0; i < built.size(); ++i) detail::adopt_parameters(g, node.index(), i, *built[i]);
  change.commit();
  return node;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <algorithm>
#include <optional>
#include <utility>

#include "graphdsl/error.hpp"
#include "plan/placement.hpp"
#include "plan/plan_access.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_conditional_shape(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const ConditionalData& c = g.conditionals[g.nodes[i].payload];
  const std::size_t n = c.bodies.size();
  if (c.type > ConditionalType::switch_case) {
    fail(g, i, ctx,
         fmt::format("ConditionalType({}) is not a conditional type (if_then, if_else, while_loop or "
                     "switch_case)",
                     static_cast<unsigned>(c.type)));
  }
  const bool ok = c.type == ConditionalType::switch_case ? n >= 1 : n == (c.type == ConditionalType::if_else ? 2u : 1u);
  if (!ok) {
    fail(g, i, ctx,
         fmt::format("{} {} node with {} bodies; {}",
                     c.type == ConditionalType::switch_case || c.type == ConditionalType::while_loop ? "a" : "an",
                     to_string(c.type), n,
                     c.type == ConditionalType::switch_case ? "a switch needs at least one body"
                     : c.type == ConditionalType::if_else   ? "an if-else has exactly two bodies"
                                                            : "it has exactly one body"));
  }
  if (c.condition.levels == ConditionRef::unresolved) {
    fail(g, i, ctx,
         fmt::format("its Condition is not declared in graph {} or a plan enclosing it (an empty "
                     "Condition, or one declared by another plan)",
                     quoted(g.name)));
  }
}

/// A WHILE whose body holds only inert (empty) nodes never ends once its condition is non-zero.
/// Checked after the body itself, so that a broken body (a cycle, say) is reported as such.
void check_while_progress(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const ConditionalData& c = g.conditionals[g.nodes[i].payload];
  if (c.type == ConditionalType::while_loop && std::all_of(c.bodies[0]->nodes.begin(), c.bodies[0]->nodes.end(),
                                                           [](const NodeData& b) { return rule_ops(b.kind).inert; })) {
    fail(g, i, ctx,
         "a while node whose body has no node but empty ones: nothing in it can change the condition, so "
         "the loop never ends once the condition is non-zero (add the nodes that update the condition)");
  }
}

/// Its Condition declared where it points and driving no other conditional node, then each body,
/// with its scope.
void check_conditional_scoped(const ScopedNode& node) {
  const GraphImpl& g = node.g;
  const std::uint32_t i = node.i;
  const ConditionalData& cd = g.conditionals[g.nodes[i].payload];
  const GraphImpl* owner = &condition_owner(g, i, node.ctx, &node.here, cd.condition, "its Condition");
  const auto [it, fresh] = node.usage.emplace(std::make_pair(owner, cd.condition.index), g.info(i));
  if (!fresh) {
    throw UsageError(
        fmt::format("{}{} and {} use the same Condition; each condition drives exactly one "
                    "conditional node (declare one per node with add_condition)",
                    node.ctx, it->second.describe(), g.info(i).describe()));
  }
  for (std::size_t b = 0; b < cd.bodies.size(); ++b) {
    const std::string body_ctx = fmt::format("{}in body {} ({}) of {} of graph {}: ", node.ctx, b,
                                             escaped(cd.bodies[b]->name), g.info(i).describe(), quoted(g.name));
    check_body_kinds(*cd.bodies[b], body_ctx);
    check_body_placement(*cd.bodies[b], body_ctx);
    check_nested_plan(*cd.bodies[b], body_ctx, node);
  }
  check_while_progress(g, i, node.ctx);
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail {

std::optional<ConditionalType> conditional_type(const GraphImpl& g, std::uint32_t i) noexcept {
  const NodeData& n = g.nodes[i];
  if (n.kind != NodeKind::conditional) return std::nullopt;
  return g.conditionals[n.payload].type;
}

}  // namespace graphdsl::detail

namespace graphdsl::detail::kinds::conditional {
const RuleOps rules{/*check=*/&rule::check_conditional_shape,
                    /*not_placeable=*/"a conditional node runs on the device its plan is compiled on",
                    /*in_body=*/true,
                    /*check_scoped=*/&rule::check_conditional_scoped,
                    /*kinded_edges=*/false,
                    /*check_replacement=*/nullptr,
                    /*nested_in_plan=*/false,
                    /*inert=*/false,
                    /*recount_on_remove=*/true};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include <fmt/format.h>

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// Evaluating its Condition reads it; the accesses of its bodies, analysed first.
void conditional_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  Access a = c.access();
  const ConditionalData& cd = g.conditionals[n.payload];
  if (const std::uint64_t uid = condition_uid(&c.here, cd.condition); uid != 0) {
    a.mode = AccessMode::read;
    a.origin = Origin::conditional;
    a.r = make_region(Space::condition, uid, 0, 1, 0, 1);
    level.accesses.push_back(a);
  }
  for (std::size_t b = 0; b < cd.bodies.size(); ++b) {
    add_nested(level, i, static_cast<std::int32_t>(b),
               analyze(*cd.bodies[b],
                       fmt::format("in body {} ({}) of {} of graph '{}'", b, cd.bodies[b]->name,
                                   level.info(i).describe(), g.name),
                       &c.here, &level));
  }
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::conditional {
const RaceOps races{&race::conditional_accesses};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::conditional {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const ConditionalData& x = a.conditionals[pa];
  const ConditionalData& y = b.conditionals[pb];
  for (std::size_t k = 0; k < x.bodies.size(); ++k) {
    const GraphImpl& bx = *x.bodies[k];
    const GraphImpl& by = *y.bodies[k];
    if (&bx == &by) continue;
    for (std::size_t c = 0; c < bx.conditions.size(); ++c) {
      if (bx.conditions[c].default_value != by.conditions[c].default_value ||
          bx.conditions[c].assign_default != by.conditions[c].assign_default) {
        return false;
      }
    }
    for (std::uint32_t n = 0; n < bx.nodes.size(); ++n) {
      if (!detail::same_params(bx, by, n)) return false;
    }
  }
  return true;
}

/// The same type, body count and condition, and bodies of the same shape.
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const ConditionalData& cx = a.conditionals[a.nodes[i].payload];
  const ConditionalData& cy = b.conditionals[b.nodes[i].payload];
  if (cx.type != cy.type || cx.bodies.size() != cy.bodies.size() || !same_ref(cx.condition, cy.condition)) {
    auto shape = [](const ConditionalData& c) {
      return fmt::format("{} ({} bod{})", to_string(c.type), c.bodies.size(), c.bodies.size() == 1 ? "y" : "ies");
    };
    return refusal(UpdateStatus::not_supported, b.info(i),
                   fmt::format("{}{} is {} in the executable but {} in the template (or uses another condition); "
                               "CUDA cannot change a conditional node's shape",
                               ctx, b.info(i).describe(), shape(cx), shape(cy)));
  }
  for (std::size_t k = 0; k < cx.bodies.size(); ++k) {
    if (cx.bodies[k] == cy.bodies[k]) continue;
    const std::string inner = fmt::format("{}in body {} of {}: ", ctx, k, b.info(i).describe());
    if (auto r = detail::compare_shape(*cx.bodies[k], *cy.bodies[k], inner)) {
      r->node = b.info(i);
      r->from_node.reset();
      if (r->status == UpdateStatus::node_type_changed) r->status = UpdateStatus::topology_changed;
      return r;
    }
  }
  return std::nullopt;
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool own) {
  s.bodies = g.conditionals[payload].bodies;
  for (auto& b : s.bodies) b = own ? own_copy(*b) : b;
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.conditionals[payload].bodies = s.bodies; }

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& memo) {
  const std::uint32_t payload = g.nodes[i].payload;
  const auto& c = g.conditionals[payload];
  f.add(c.type);
  f.add(c.condition.levels);
  f.add(c.condition.index);
  f.add(c.bodies.size());
  for (const auto& b : c.bodies) add_nested(f, *b, memo);
}

/// Slot k: body k.
NestedSlots nested_slots(GraphImpl& g, std::uint32_t payload) {
  auto& bodies = g.conditionals[payload].bodies;
  return {bodies.data(), bodies.size()};
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/compare_fns::compare_shape,
                         /*fingerprint=*/compare_fns::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/true,
                         /*needs_whole_update=*/&always_whole_update,
                         /*nested_slots=*/compare_fns::nested_slots};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::conditional {
namespace describing {
namespace {

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams&) {
  const auto& c = g.conditionals[g.nodes[i].payload];
  return fmt::format("{}, {} bod{}, condition {}", to_string(c.type), c.bodies.size(),
                     c.bodies.size() == 1 ? "y" : "ies", condition_ref(c.condition));
}

void dump_nested(std::string& out, const detail::GraphImpl& g, std::uint32_t i, const std::string& indent) {
  const auto& c = g.conditionals[g.nodes[i].payload];
  for (std::size_t b = 0; b < c.bodies.size(); ++b) {
    out += fmt::format("{}    body {} ({}):\n", indent, b, detail::quoted(c.bodies[b]->name));
    dump_into(out, *c.bodies[b], indent + "      ");
  }
}

void dot_nested(std::string& out, const detail::GraphImpl& g, std::uint32_t i, const std::string& prefix,
                const std::string& indent) {
  const auto& c = g.conditionals[g.nodes[i].payload];
  for (std::size_t b = 0; b < c.bodies.size(); ++b) {
    dot_cluster(out, *c.bodies[b], fmt::format("{}{}", prefix, i), fmt::format("{}{}_b{}_", prefix, i, b), indent);
  }
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "octagon", &describing::dump_nested, &describing::dot_nested};

}  // namespace graphdsl::detail::kinds::conditional

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/detail/config.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail::kinds::conditional {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const ConditionalData& c = g.conditionals[g.nodes[i].payload];
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = builder.scopes_[builder.scopes_.size() - 1 - c.condition.levels][c.condition.index];
#if GRAPHDSL_HAS_SWITCH
  p.conditional.type = c.type == ConditionalType::while_loop    ? cudaGraphCondTypeWhile
                       : c.type == ConditionalType::switch_case ? cudaGraphCondTypeSwitch
                                                                : cudaGraphCondTypeIf;
#else  // SWITCH exists from CUDA 12.8 on; instantiate() refuses it earlier with older runtimes
  p.conditional.type = c.type == ConditionalType::while_loop ? cudaGraphCondTypeWhile : cudaGraphCondTypeIf;
#endif
  p.conditional.size = static_cast<unsigned>(c.bodies.size());
  AddedNode out;
  out.api = "cudaGraphAddNode";
#if GRAPHDSL_CUDA_13
  out.rc = cuda_try(cudaGraphAddNode, &out.node, graph, deps.data(), static_cast<const cudaGraphEdgeData*>(nullptr),
                    deps.size(), &p);
#else
  out.rc = cuda_try(cudaGraphAddNode, &out.node, graph, deps.data(), deps.size(), &p);
#endif
  if (out.rc != cudaSuccess) return out;
  ++builder.body_depth_;
  for (std::uint32_t b = 0; b < c.bodies.size(); ++b) {
    builder.build_nested(i, b, *c.bodies[b], p.conditional.phGraph_out[b],
                         fmt::format("in body {} ({}) of {} of graph {}{}", b, escaped(c.bodies[b]->name),
                                     g.info(i).describe(), quoted(g.name),
                                     builder.where_.empty() ? "" : " " + builder.where_));
  }
  --builder.body_depth_;
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, true};

}  // namespace graphdsl::detail::kinds::conditional

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include <optional>

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::conditional {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// The bodies are not mapped node by node: update() goes whole-graph.
Applied apply(ExecImpl&, std::uint32_t) { return {cudaErrorNotSupported, "a per-node update of a conditional node"}; }

/// Only cudaGraphExecUpdate patches it.
std::optional<UpdateResult> update_needs(const GraphImpl&, const GraphImpl&, std::uint32_t, UpdateNeeds& needs) {
  needs.nested_change = true;
  return std::nullopt;
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, patch_fns::update_needs, nullptr};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end patch ====
