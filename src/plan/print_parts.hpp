// src/plan/print_parts.hpp — the parts of the text dump and the DOT export (src/plan/print.cpp) that
// the node kinds' describe sections (src/kinds/<kind>.cpp, DescribeOps) use.
#pragma once

#include <cstdint>
#include <string>

#include "plan/graph_impl.hpp"
#include "plan/kind_describe.hpp"

namespace graphdsl::detail {

/// A condition as the dump shows it: "#index" in this plan, or "#index of the plan n levels out".
std::string condition_ref(const ConditionRef& r);

/// A parameter as dumps and DOT labels name it: its name, or "parameter #k" when unnamed (raw:
/// the dump escapes it with escaped(), DOT with dot_escape()).
std::string param_label(const GraphImpl& g, std::uint32_t k);

/// "lr=0.01": parameter k as node i uses it (the value the node holds: a per-node setter may have
/// written another one over the parameter's).
std::string param_use_text(const GraphImpl& g, std::uint32_t k, const ParamUse& u);

/// A DOT string's text: escaped() (so no control character or non-UTF-8 byte reaches Graphviz),
/// then quotes and backslashes escaped for the DOT string, so the label shows what dumps show.
std::string dot_escape(const std::string& raw);

/// Appends the dump of plan g's conditions, parameters and nodes (nested plans under their node),
/// each line starting with `indent`.
void dump_into(std::string& out, const GraphImpl& g, const std::string& indent);

/// A nested plan (child plan or conditional body) as a dashed cluster, tied to its node `owner`;
/// `inner` is the prefix of the nested plan's node ids.
void dot_cluster(std::string& out, const GraphImpl& c, const std::string& owner, const std::string& inner,
                 const std::string& indent);

}  // namespace graphdsl::detail
