// src/kinds/conditional.cpp — the conditional node kind (Graph::add_if / add_if_else / add_while / add_switch): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
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

ConditionalNode Graph::add_conditional(ConditionalType type, const Condition& cond, unsigned int size,
                                       const std::function<void(unsigned int, Graph&)>& body) {
  auto& g = impl();
  detail::ConditionalData c{type, g.resolve(cond), {}};
  c.bodies.reserve(std::min(size, 16u));  // `size` is the user's: a huge one fails in validate(), not here
  // The bodies reach this plan through `link` while their builders run, and only then: the guard
  // cuts it on every exit, so a body moved out of its builder cannot reach this plan later.
  const auto link = std::make_shared<detail::ParentLink>(detail::ParentLink{g.token});
  struct Cut {
    detail::ParentLink& l;
    ~Cut() { l.outer.reset(); }
  } cut{*link};
  const std::shared_ptr<detail::PlanToken> outer = g.token;  // outlives the plan if a builder destroys it
  std::vector<const detail::GraphImpl*> built;
  for (unsigned int i = 0; i < size; ++i) {
    Graph b(body_name(type, i));
    b.impl_->parent = link;
    body(i, b);
    if (outer->plan != &g || impl_.get() != &g) {
      throw UsageError(fmt::format("the builder of the {} of a {} node destroyed, replaced or moved graph '{}', the plan "
                                   "the node is added to; a builder builds only its body",
                                   body_name(type, i), to_string(type), outer->name));
    }
    if (!b.impl_) throw UsageError(fmt::format("the {} of a {} node was moved from inside its builder", body_name(type, i),
                                               to_string(type)));
    b.impl_->parent.reset();
    b.impl_->sealed = detail::Sealed::body;
    built.push_back(b.impl_.get());
    c.bodies.push_back(std::shared_ptr<const detail::GraphImpl>(std::move(b.impl_)));
  }
  g.embed(built, false, fmt::format("add_conditional ({})", to_string(type)));
  g.conditionals.push_back(std::move(c));
  return ConditionalNode(g.push(NodeKind::conditional, g.conditionals.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end patch ====
