// graphdsl/condition.hpp — placeholders for conditional-node handles, and the conditional kinds.
//
//   gd::Condition more = g.add_condition(/*default*/ 1);           // no CUDA call
//   g.add_while(more, [&](gd::Graph& body) {
//     auto step = body.add_kernel(jacobi_step, launch, d_x, d_x_new, n);
//     body.add_set_condition(more, d_residual, gd::Compare::greater, 1e-6f).after(step);
//   });
//
// The real cudaGraphConditionalHandle exists only once the plan is compiled; graphdsl creates it
// then (cudaGraphConditionalHandleCreate on the graph that declared the condition) and patches it
// into every kernel argument that received the Condition.
#pragma once

#include <cstdint>

namespace graphdsl {

/// A condition declared by Graph::add_condition(). Pass it to add_if / add_if_else / add_while /
/// add_switch, and to add_kernel wherever the kernel takes a cudaGraphConditionalHandle.
/// A Condition may be used in the plan that declared it and in the bodies of its conditional nodes
/// (at any depth). Child plans (add_child) are copies of separately built plans and cannot use it.
class Condition {
 public:
  /// An empty condition (valid() is false).
  Condition() noexcept = default;
  /// Internal: made by Graph::add_condition().
  explicit Condition(std::uint64_t uid) noexcept : uid_(uid) {}

  /// True for a condition made by Graph::add_condition().
  bool valid() const noexcept { return uid_ != 0; }
  /// A process-unique number identifying the condition.
  std::uint64_t id() const noexcept { return uid_; }

  /// True when both are the same declared condition (or both are empty).
  friend bool operator==(const Condition& a, const Condition& b) noexcept { return a.uid_ == b.uid_; }
  /// `!(a == b)`.
  friend bool operator!=(const Condition& a, const Condition& b) noexcept { return a.uid_ != b.uid_; }

 private:
  std::uint64_t uid_ = 0;
};

/// The shape of a conditional node (cudaGraphConditionalNodeType and body count).
enum class ConditionalType : std::uint8_t {
  if_then,     ///< cudaGraphCondTypeIf, 1 body: runs when the condition is non-zero (CUDA 12.3)
  if_else,     ///< cudaGraphCondTypeIf, 2 bodies: [0] when non-zero, [1] when zero (CUDA 12.8)
  while_loop,  ///< cudaGraphCondTypeWhile, 1 body: runs while the condition is non-zero (CUDA 12.3)
  switch_case  ///< cudaGraphCondTypeSwitch, n bodies: body[c] for condition c; none if c >= n (CUDA 12.8)
};

/// "if", "if_else", "while" or "switch".
const char* to_string(ConditionalType type) noexcept;

/// Comparisons of Graph::add_set_condition: condition = (*value OP operand) ? 1 : 0.
enum class Compare : std::uint8_t { equal, not_equal, less, less_equal, greater, greater_equal };

/// The comparison's operator as written in C++: "==", "!=", "<", "<=", ">" or ">=".
const char* to_string(Compare op) noexcept;

}  // namespace graphdsl
