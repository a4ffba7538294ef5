// src/plan/diff.hpp — the host-side diff of two plans (plan/diff.cpp): the shape and parameter
// comparisons behind diff() and Executable::update, and the saved parameters of one node that
// updates and setters move between plans. No CUDA call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/error.hpp"
#include "graphdsl/event.hpp"
#include "graphdsl/launch.hpp"
#include "graphdsl/update.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// An error's message without the "graphdsl: " prefix, for UpdateResult::reason.
std::string without_prefix(const Error& e);

UpdateResult refusal(UpdateStatus status, std::optional<NodeInfo> node, std::string reason);

bool same_ref(const ConditionRef& x, const ConditionRef& y);

/// What a diff finds besides refusals: nodes whose parameters or names differ.
struct DiffOut {
  std::vector<std::uint32_t>* changed;
  std::vector<std::uint32_t>* renamed;
  bool* conditions_changed;  ///< a declared condition's default or assign flag differs
};

/// Compares the structure of `a` (the executable's plan) and `b` (the template). With `out`, the
/// same pass also lists the nodes whose parameters or names differ (one pass over both plans).
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, const std::string& ctx,
                                          const DiffOut* out = nullptr);

/// Nodes per block of the diff's wholesale compare: the records of a block of both plans stay in
/// the L1 cache while it is compared.
inline constexpr std::uint32_t diff_block = 64;

/// True when nodes [lo, hi) of `a` and `b` are kernel nodes that are identical in everything the
/// diff compares (kind, device, edges in the same order, name, kernel record, argument bytes; no
/// Condition or GraphBuffer argument, no launch attributes in either plan): such a block holds no
/// refusal and no changed or renamed node. False says nothing: the block is compared node by node
/// (src/kinds/kernel_diff.cpp).
bool same_kernel_block(const GraphImpl& a, const GraphImpl& b, std::uint32_t lo, std::uint32_t hi) noexcept;

/// Plans of this many nodes or more have their blocks compared by the calling thread and a helper
/// thread together (plan/diff_helper.cpp; graphdsl::set_diff_helper).
inline constexpr std::uint32_t shared_diff_nodes = 4096;

/// For a plan of shared_diff_nodes nodes or more, same_kernel_block of every block of diff_block
/// nodes (element j: block j), computed by the calling thread and the helper thread together.
/// Empty when the blocks are left to the caller: a smaller plan, the helper disabled, or busy with
/// another thread's diff.
std::vector<std::uint8_t> shared_block_compare(const GraphImpl& a, const GraphImpl& b);

/// Shares of blocks the helper thread has compared since the process started (tests).
std::uint64_t diff_helper_shares() noexcept;

/// The shape check and the lists of changed and renamed nodes, in one pass (diff(), update()).
UpdateResult plan_diff(const GraphImpl& a, const GraphImpl& t, std::vector<std::uint32_t>* renamed,
                       bool* conditions_changed);

/// Why cudaGraphExecUpdate cannot take executable plan `a` (a device-updatable kernel node, graph
/// allocations), or nullopt (plan/update_rules.cpp).
std::optional<UpdateResult> whole_graph_refusal(const GraphImpl& a);

/// Whether applying template `t` to `a` (nodes `changed`; `conditions_changed`: a condition's
/// default) needs cudaGraphExecUpdate, per-node setters being unable to make the change: a kernel's
/// priority or launch attributes, a multi-dimensional copy, a conditional or captured node, a
/// condition default. With whole_graph_refusal(a), update() refuses it under every policy.
bool needs_exec_update(const GraphImpl& a, const GraphImpl& t, const std::vector<std::uint32_t>& changed,
                       bool conditions_changed);

/// Whether node i has the same parameters in `a` and `b` (same shape), through the kind table.
bool same_params(const GraphImpl& a, const GraphImpl& b, std::uint32_t i);

bool same_dims(const dim3& x, const dim3& y);

/// Priority and launch attributes: what per-node setters cannot patch.
bool same_attributes(const Launch& x, const Launch& y);

/// A setter's launch keeps the node's launch attributes: CUDA patches a kernel node's grid, block,
/// shared memory and arguments, not its attributes. @throws UsageError naming the node.
void check_setter_attributes(const GraphImpl& a, std::uint32_t i, const Launch& recorded, const Launch& given);

/// "cluster (2,1,1), cooperative" / "no cluster, not cooperative" (update refusals).
std::string launch_attributes_text(const Launch& l);

/// A deep copy of plan `g`: its child plans and conditional bodies are copied too, not shared.
std::shared_ptr<const GraphImpl> own_copy(const GraphImpl& g);

/// Gives node i of the recorded plan `a` the names inside the template's child plan or bodies
/// (node i's parameters are the same in both: only names differ).
void take_nested_names(GraphImpl& a, const GraphImpl& t, std::uint32_t i);

/// The FNV-1a hash behind Graph::fingerprint.
struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void add(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  template <class T>
  void add(const T& v) {
    add(&v, sizeof v);
  }
};

/// Fingerprints of nested plans already hashed in one fingerprint() call: copies of a plan share
/// its nested plans, and a plan embedding copies of itself would otherwise be hashed 2^n times.
struct FingerprintMemo {
  std::unordered_map<const GraphImpl*, std::uint64_t> hashes;
};

/// Adds the fingerprint of nested plan `g` to `f`.
void add_nested(Fnv& f, const GraphImpl& g, FingerprintMemo& memo);

/// A copy of one node's parameters, to move them between plans or roll a change back. Each kind
/// saves and restores its own fields (CompareOps::save / restore, src/kinds/<kind>.cpp).
/// A kernel's saved parameters are the kernel's own record (SavedKernel, plan/records/kernel.hpp).
struct SavedParams : SavedKernel {
  NodeKind kind = NodeKind::empty;
  cudaMemsetParams memset{};
  ScalarType memset_type = ScalarType::raw;
  cudaMemcpy3DParms memcpy{};
  std::shared_ptr<HostClosure> host;
  std::shared_ptr<const GraphImpl> child;
  Event event;
  std::vector<std::shared_ptr<const GraphImpl>> bodies;
  CaptureData capture{};
  std::vector<unsigned char>
      record;  ///< the node's bytes of GraphImpl::records (kinds that keep their parameters there)

  /// With `own`, child plans and bodies are deep copies, so that the recorded plan the parameters
  /// go to never shares storage with a template (whose handles may still edit it).
  static SavedParams save(const GraphImpl& g, std::uint32_t i, bool own = false);

  /// Writes these parameters into node i of g (same kind; for kernels, same signature).
  void restore(GraphImpl& g, std::uint32_t i) const;
};

/// The save / restore of CompareOps for a kind whose parameters are one element of a GraphImpl vector
/// (`Store`, e.g. &GraphImpl::hosts) kept in one SavedParams field (`Saved`, e.g. &SavedParams::host).
template <auto Store, auto Saved>
struct StoredParams {
  static void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) {
    s.*Saved = (g.*Store)[payload];
  }
  static void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { (g.*Store)[payload] = s.*Saved; }
};

/// The CompareOps functions of a kind without parameters (empty nodes): always the same, nothing to keep.
struct NoParams {
  static bool same_params(const GraphImpl&, std::uint32_t, const GraphImpl&, std::uint32_t) { return true; }
  static void save(SavedParams&, const GraphImpl&, std::uint32_t, bool) {}
  static void restore(const SavedParams&, GraphImpl&, std::uint32_t) {}
};

}  // namespace graphdsl::detail

#include "plan/records/kernel_diff.hpp"  // how the diff compares kernel nodes
