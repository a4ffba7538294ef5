// graphdsl/prepared_update.hpp — an update template prepared ahead, applied any number of times; and
// a child plan prepared ahead for one child node (PreparedChild, at the end).
//
//   gd::PreparedUpdate a = exec.prepare_update(plan_a);   // diff, checks, materialization: once
//   gd::PreparedUpdate b = exec.prepare_update(plan_b);
//   for (;;) {
//     gd::UpdateResult r = exec.update(a);                 // one cudaGraphExecUpdate, no diff
//     exec.launch(stream);
//     r = exec.update(b);
//     exec.launch(stream);
//   }
//
// The graphdsl form of the raw pattern "build a cudaGraph_t template once, call
// cudaGraphExecUpdate(exec, template) many times". Executable::prepare_update(plan) does ahead what
// can be done ahead: the shape check against the executable's plan (a shape never changes between
// updates, so what holds now holds later), the whole-graph strategy's refusals (device-updatable
// nodes, graph allocations), the template's validation and its materialization. Executable::update
// (prepared) then makes O(1) checks, one cudaGraphExecUpdate and a bulk copy of the template's
// parameters into the executable's recorded plan, which afterwards equals what update(plan) would
// have left: later update(plan) calls and setters work as after any update.
#pragma once

#include "graphdsl/detail/unique_handle.hpp"
#include "graphdsl/update.hpp"

namespace graphdsl {

namespace detail {
struct PreparedImpl;
/// Deletes a prepared update's state (src/exec/prepared.cpp).
struct PreparedImplDelete {
  static void destroy(PreparedImpl* p) noexcept;
};
struct PreparedChildImpl;
/// Deletes a prepared child plan's state (src/exec/setters.cpp).
struct PreparedChildImplDelete {
  static void destroy(PreparedChildImpl* p) noexcept;
};
}  // namespace detail

/// A template plan prepared for one executable (Executable::prepare_update): its materialized
/// cudaGraph_t (with host slots, condition handles and keep-alives) and a copy of its parameters.
/// Move-only; owned by the user; applied with Executable::update(prepared) any number of times,
/// interleaved with other updates and setters, on the executable that made it only.
///
/// A template that an update would refuse (another shape, an invalid template, a plan whose
/// executable cannot take cudaGraphExecUpdate) gives a prepared update that carries the refusal:
/// result() returns it, and so does every update(prepared), with no CUDA call.
///
/// Lifetime: the prepared update may outlive its executable or be destroyed before it; an executable
/// updated from it keeps what it needs (the template graph's host callables, events and condition
/// handles) alive by itself. Destruction never throws.
class PreparedUpdate {
 public:
  /// An empty prepared update (operator bool is false); Executable::update throws UsageError on it.
  PreparedUpdate() noexcept;
  /// Internal: made by Executable::prepare_update().
  explicit PreparedUpdate(detail::PreparedImpl* impl) noexcept;
  /// Takes over the other one's template; the other one is left empty.
  PreparedUpdate(PreparedUpdate&&) noexcept;
  /// Releases this one's template and takes over the other one's; the other one is left empty.
  PreparedUpdate& operator=(PreparedUpdate&&) noexcept;
  PreparedUpdate(const PreparedUpdate&) = delete;
  PreparedUpdate& operator=(const PreparedUpdate&) = delete;
  /// Releases the template graph (the executables updated from it keep what they use).
  ~PreparedUpdate();

  /// True unless empty (default-constructed or moved-from).
  explicit operator bool() const noexcept { return static_cast<bool>(impl_); }
  /// What preparing found: the refusal every update(prepared) returns, or success with `changed`
  /// listing the top-level nodes that differed from the executable's plan when it was prepared
  /// (strategy none, patched 0). @throws UsageError when empty.
  const UpdateResult& result() const;
  /// True when update(prepared) can apply the template (result() is a success). @throws UsageError when empty.
  bool ok() const { return static_cast<bool>(result()); }

  /// Internal: the state (src/exec/prepared.cpp); null when empty.
  const detail::PreparedImpl* impl() const noexcept { return impl_.get(); }

 private:
  detail::UniqueHandle<detail::PreparedImpl*, detail::PreparedImplDelete> impl_;
};

/// A child plan prepared for one child node of one executable (Executable::prepare_child): a copy
/// of the plan, checked against the node's shape and validated, and its materialized cudaGraph_t.
/// Executable::set_child(node, prepared) then makes one CUDA call, like a raw caller switching
/// between child graphs built once:
///
///   gd::PreparedChild a = exec.prepare_child(sub, plan_a), b = exec.prepare_child(sub, plan_b);
///   for (;;) { exec.set_child(sub, a); exec.launch(s); exec.set_child(sub, b); exec.launch(s); }
///
/// Move-only; it may outlive its executable or be destroyed first (an executable set from it keeps
/// what the child graph's nodes need alive by itself). Destruction never throws.
class PreparedChild {
 public:
  /// An empty prepared child (operator bool is false); set_child throws UsageError on it.
  PreparedChild() noexcept;
  /// Internal: made by Executable::prepare_child().
  explicit PreparedChild(detail::PreparedChildImpl* impl) noexcept;
  /// Takes over the other one's child plan; the other one is left empty.
  PreparedChild(PreparedChild&&) noexcept;
  /// Releases this one's child plan and takes over the other one's; the other one is left empty.
  PreparedChild& operator=(PreparedChild&&) noexcept;
  PreparedChild(const PreparedChild&) = delete;
  PreparedChild& operator=(const PreparedChild&) = delete;
  /// Releases the child graph (the executables set from it keep what they use).
  ~PreparedChild();

  /// True unless empty (default-constructed or moved-from).
  explicit operator bool() const noexcept { return static_cast<bool>(impl_); }

  /// Internal: the state (src/exec/setters.cpp); null when empty.
  const detail::PreparedChildImpl* impl() const noexcept { return impl_.get(); }

 private:
  detail::UniqueHandle<detail::PreparedChildImpl*, detail::PreparedChildImplDelete> impl_;
};

}  // namespace graphdsl
