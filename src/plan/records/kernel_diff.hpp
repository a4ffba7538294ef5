// plan/records/kernel_diff.hpp — how the diff compares kernel nodes: the launch and argument bytes
// of two kernel records, and the plain kernel node the diff's loop settles without the kind table
// (plan/diff.cpp). Inline: the diff reads every node of both plans on every update. The wholesale
// compare of blocks of kernel nodes is src/kinds/kernel_diff.cpp. No CUDA call.
//
// Included at the end of plan/diff.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "plan/diff.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// Same launch shape and attributes of kernel records `ka` of `a` and `kb` of `b` (the attributes
/// looked up only when a plan has any).
inline bool same_launch(const GraphImpl& a, std::uint32_t ka, const GraphImpl& b, std::uint32_t kb) {
  const LaunchShape& x = a.kernels[ka].launch;
  const LaunchShape& y = b.kernels[kb].launch;
  if (!(same_dims(x.grid, y.grid) && same_dims(x.block, y.block) && x.shared_bytes == y.shared_bytes &&
        x.priority == y.priority)) {
    return false;
  }
  if (a.kernel_attributes.empty() && b.kernel_attributes.empty()) return true;
  return same_attributes(launch_of(a, ka), launch_of(b, kb));
}

/// Same launch shape and argument bytes (the function is compared as structure): CompareOps::same_params
/// of the kernel kind. A kernel without parameters compares no bytes: its plan's argument block may
/// be empty (data() null, which memcmp must not be given even for 0 bytes).
inline bool same_kernel(const GraphImpl& a, std::uint32_t ka, const GraphImpl& b, std::uint32_t kb) {
  const KernelData& x = a.kernels[ka];
  const KernelData& y = b.kernels[kb];
  const std::size_t bytes = a.kernel_links[ka].layout->total;
  return same_launch(a, ka, b, kb) &&
         (bytes == 0 || std::memcmp(a.args.data() + x.args, b.args.data() + y.args, bytes) == 0);
}

/// CompareOps::needs_whole_update of the kernel kind: a kernel's priority or launch attributes, which
/// its per-node setter cannot patch.
inline bool kernel_needs_whole_update(const GraphImpl& a, std::uint32_t pa, const GraphImpl& t, std::uint32_t pt) {
  return !same_attributes(launch_of(a, pa), launch_of(t, pt));
}

/// The common case, kept tight in compare_shape's loop (the diff reads every node of both plans
/// on every update, so the common node skips the table and compare_node): a
/// kernel of the same function, device and edges and no Condition or GraphBuffer argument or launch
/// attributes in both plans. Lists it as changed or renamed and returns true; false for every other node.
inline bool same_plain_kernel(const GraphImpl& a, const GraphImpl& b, std::uint32_t i, const DiffOut* out) {
  const NodeData& x = a.nodes[i];
  const NodeData& y = b.nodes[i];
  if (x.kind != NodeKind::kernel || y.kind != NodeKind::kernel || x.device != y.device || !(x.preds == y.preds)) {
    return false;
  }
  if (a.kernels[x.payload].func != b.kernels[y.payload].func) return false;
  // Placeholder arguments in either plan (none when the plan has none: the common case, read no links).
  if ((!a.placeholders.empty() && a.kernel_links[x.payload].ph_count != 0) ||
      (!b.placeholders.empty() && b.kernel_links[y.payload].ph_count != 0)) {
    return false;
  }
  if ((!a.kernel_attributes.empty() || !b.kernel_attributes.empty()) &&
      (attributes_of(a, x.payload) != nullptr || attributes_of(b, y.payload) != nullptr)) {
    return false;  // launch attributes hold shape (device-updatable, cluster, cooperative): compare_node
  }
  if (!same_kernel(a, x.payload, b, y.payload)) out->changed->push_back(i);
  if (a.node_name(i) != b.node_name(i)) out->renamed->push_back(i);
  return true;
}

}  // namespace graphdsl::detail
