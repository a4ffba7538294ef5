// src/plan/replace.hpp — new parameters for one node of a plan, taken from a one-node plan that a
// setter built with the add_* the node was made by: the typed setters of an executable
// (Executable::replace_node, src/exec/setters.cpp) and of a plan (Graph::set_kernel_args, ...,
// src/plan/edit.cpp) check and write them the same way. No CUDA call.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "plan/diff.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// Whether `layout` (the setter's) packs exactly like `recorded`.
bool same_layout(const ArgLayout& layout, const ArgLayout& recorded);

/// Refuses a new plan for child node i of `a` that has another shape than its current one.
/// @throws UsageError naming the node and the first difference.
void check_child_shape(const GraphImpl& a, std::uint32_t i, const GraphImpl& child);

/// Refuses a setter for node i of `a` whose `what` (an argument, a pointer) is `was` in node i and
/// `now` in the setter: setters patch values, not what a value stands for. @throws UsageError.
[[noreturn]] void refuse_replacement(const GraphImpl& a, std::uint32_t i, const std::string& what,
                                     const std::string& was, const std::string& now);

/// Refuses a setter (node #0 of `s`) whose pointers `fields` of memset or memcpy node i of `a` do not
/// mean what node i's own ones mean (a GraphBuffer, a __device__ symbol, a plain pointer): the
/// RuleOps::check_replacement of those kinds. @throws UsageError naming the node.
void check_pointer_meanings(const GraphImpl& a, std::uint32_t i, const GraphImpl& s,
                            std::initializer_list<BufferField> fields);

/// Node i of `a` takes the parameters of node #0 of `s`, a one-node plan a setter built. The
/// constructor checks that it may (same kind as the handle said; for a kernel, the same argument
/// layout; for a child, a child plan of the same shape; Conditions, GraphBuffers and __device__
/// symbols standing where and for what they stand in node i), writes the parameters (SavedParams,
/// and the lengths of graph-buffer slices) and checks node i's rules (check_node): all or nothing,
/// each refusal a UsageError naming the node. undo() puts the old parameters back (the caller's
/// next step failed: the executable's CUDA setter).
class NodeReplacement {
 public:
  NodeReplacement(GraphImpl& a, std::uint32_t i, const GraphImpl& s);
  NodeReplacement(const NodeReplacement&) = delete;
  NodeReplacement& operator=(const NodeReplacement&) = delete;
  /// Node i's parameters as they were before the constructor.
  void undo();

 private:
  GraphImpl& a_;
  std::uint32_t i_;
  SavedParams old_;
  std::vector<std::uint64_t> old_bytes_;  ///< graph-buffer slices' lengths
};

}  // namespace graphdsl::detail
