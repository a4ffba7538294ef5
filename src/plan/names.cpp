// src/plan/names.cpp — the names of graphdsl's enums: one table per enum, in declaration order
// (each checked against the enum's last value), and every to_string overload of the public
// headers. Messages, dumps, DOT labels and the fmt formatters all print these words.
#include <cstddef>
#include <iterator>

#include "graphdsl/condition.hpp"
#include "graphdsl/launch.hpp"
#include "graphdsl/node.hpp"
#include "graphdsl/node_kind.hpp"
#include "graphdsl/update.hpp"
#include "plan/names.hpp"

namespace graphdsl {

namespace {

constexpr const char* node_kind_names[] = {
#define GRAPHDSL_NODE_KIND(name, what) #name,
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND
};

constexpr const char* conditional_type_names[] = {"if", "if_else", "while", "switch"};
static_assert(std::size(conditional_type_names) == static_cast<std::size_t>(ConditionalType::switch_case) + 1);

constexpr const char* compare_names[] = {"==", "!=", "<", "<=", ">", ">="};
static_assert(std::size(compare_names) == static_cast<std::size_t>(Compare::greater_equal) + 1);

constexpr const char* edge_kind_names[] = {"full", "programmatic", "launch_completion"};
static_assert(std::size(edge_kind_names) == static_cast<std::size_t>(EdgeKind::launch_completion) + 1);

constexpr const char* sync_domain_names[] = {"default", "remote"};
static_assert(std::size(sync_domain_names) == static_cast<std::size_t>(MemSyncDomain::remote) + 1);

constexpr const char* l2_access_names[] = {"normal", "streaming", "persisting"};
static_assert(std::size(l2_access_names) == static_cast<std::size_t>(L2Access::persisting) + 1);

constexpr const char* update_status_names[] = {"success",
                                               "error",
                                               "topology changed",
                                               "node type changed",
                                               "function changed",
                                               "parameters changed",
                                               "not supported",
                                               "unsupported function change",
                                               "attributes changed",
                                               "invalid template"};
static_assert(std::size(update_status_names) == static_cast<std::size_t>(UpdateStatus::invalid_template) + 1);

constexpr const char* update_strategy_names[] = {"none", "per_node", "whole_graph"};
static_assert(std::size(update_strategy_names) == static_cast<std::size_t>(UpdateStrategy::whole_graph) + 1);

}  // namespace

const char* to_string(NodeKind kind) noexcept { return detail::name_of(kind, node_kind_names); }
const char* to_string(ConditionalType type) noexcept { return detail::name_of(type, conditional_type_names); }
const char* to_string(Compare op) noexcept { return detail::name_of(op, compare_names, "?"); }
const char* to_string(EdgeKind kind) noexcept { return detail::name_of(kind, edge_kind_names); }
const char* to_string(MemSyncDomain d) noexcept { return detail::name_of(d, sync_domain_names); }
const char* to_string(L2Access a) noexcept { return detail::name_of(a, l2_access_names); }
const char* to_string(UpdateStatus s) noexcept { return detail::name_of(s, update_status_names); }
const char* to_string(UpdateStrategy s) noexcept { return detail::name_of(s, update_strategy_names); }

}  // namespace graphdsl
