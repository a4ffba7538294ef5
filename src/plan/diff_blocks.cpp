// src/plan/diff_blocks.cpp — the wholesale part of the diff (plan/diff.cpp): a block of nodes of
// two plans compared in a few tight passes (node records field by field, then the kernel records
// and the argument bytes of the whole block with one memcmp each) instead of node by node through
// the kind table. A block this cannot show to be identical is compared node by node. No CUDA call.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "plan/diff.hpp"

namespace graphdsl::detail {
namespace {

/// The same predecessors in the same order (the common case; another order is left to the
/// node-by-node compare, which treats edges as a set).
inline bool same_preds(const SmallVec& x, const SmallVec& y) noexcept {
  const std::uint32_t n = x.size();
  if (n != y.size()) return false;
  const std::uint32_t* p = x.data();
  const std::uint32_t* q = y.data();
  if (n == 1) return p[0] == q[0];
  return n == 0 || std::memcmp(p, q, n * sizeof(std::uint32_t)) == 0;
}

/// Nodes [lo, hi) have the same names in both plans. Past the end of both plans' `names` no node
/// has a name (GraphImpl::names), so plans without names compare none.
bool same_block_names(const GraphImpl& a, const GraphImpl& b, std::uint32_t lo, std::uint32_t hi) noexcept {
  if (lo >= a.names.size() && lo >= b.names.size()) return true;
  for (std::uint32_t i = lo; i < hi; ++i) {
    if (a.node_name(i) != b.node_name(i)) return false;
  }
  return true;
}

/// Nodes [lo, hi) of both plans are kernel nodes on the same devices with the same edges, whose
/// records are kernels[k0 .. k0 + (hi - lo)) in both plans (the usual layout of plans built the
/// same way). Every node is read; the result is the AND of all of them.
bool same_node_records(const GraphImpl& a, const GraphImpl& b, std::uint32_t lo, std::uint32_t hi,
                       std::uint32_t k0) noexcept {
  const NodeData* x = a.nodes.data();
  const NodeData* y = b.nodes.data();
  bool same = true;
  for (std::uint32_t i = lo; i < hi; ++i) {
    const std::uint32_t k = k0 + (i - lo);
    same &= (x[i].kind == NodeKind::kernel) & (y[i].kind == NodeKind::kernel) & (x[i].device == y[i].device) &
            (x[i].payload == k) & (y[i].payload == k);
    same = same && same_preds(x[i].preds, y[i].preds);
  }
  return same;
}

/// Nodes [lo, hi) of `a` are kernel nodes whose records are kernels[k0 .. k0 + (hi - lo)).
bool kernels_in_order(const GraphImpl& a, std::uint32_t lo, std::uint32_t hi, std::uint32_t k0) noexcept {
  const NodeData* x = a.nodes.data();
  bool same = true;
  for (std::uint32_t i = lo; i < hi; ++i) same &= (x[i].kind == NodeKind::kernel) & (x[i].payload == k0 + (i - lo));
  return same;
}

/// Node records [lo, hi) of `a` and `b` hold the same bytes. Equal bytes are equal records: every
/// member is compared, there is no padding, unused inline predecessor slots are zero, and a list
/// on the heap compares its pointer (two plans never share one, so it decides nothing: the records
/// are then compared field by field). Different bytes decide nothing either.
bool same_record_bytes(const GraphImpl& a, const GraphImpl& b, std::uint32_t lo, std::uint32_t hi) noexcept {
  return std::memcmp(a.nodes.data() + lo, b.nodes.data() + lo, (hi - lo) * sizeof(NodeData)) == 0;
}

/// Kernel records [k0, k1) of `a` hold no Condition or GraphBuffer argument and the argument
/// blocks of `a` and `b` at their offsets hold the same bytes. The records are those of `b` too
/// (compared before), so each block lies inside both arenas. Blocks that follow one another in
/// the arena (as add_kernel packs them) are compared with one memcmp.
bool same_kernel_args(const GraphImpl& a, const GraphImpl& b, std::uint32_t k0, std::uint32_t k1) noexcept {
  const KernelData* ks = a.kernels.data();
  const std::uint64_t begin = ks[k0].args;
  std::uint64_t end = begin;
  const ArgLayout* layout = nullptr;
  std::size_t bytes = 0;
  bool contiguous = true;
  std::uint32_t placeholders = 0;
  for (std::uint32_t k = k0; k < k1; ++k) {
    if (ks[k].layout != layout) {
      layout = ks[k].layout;
      bytes = layout->total;
    }
    contiguous &= ks[k].args == end;
    end = ks[k].args + bytes;
    placeholders |= ks[k].ph_count;
  }
  if (placeholders != 0) return false;
  if (contiguous) return end == begin || std::memcmp(a.args.data() + begin, b.args.data() + begin, end - begin) == 0;
  for (std::uint32_t k = k0; k < k1; ++k) {
    const std::size_t n = ks[k].layout->total;
    if (n != 0 && std::memcmp(a.args.data() + ks[k].args, b.args.data() + ks[k].args, n) != 0) return false;
  }
  return true;
}

}  // namespace

bool same_kernel_block(const GraphImpl& a, const GraphImpl& b, std::uint32_t lo, std::uint32_t hi) noexcept {
  static_assert(std::has_unique_object_representations_v<KernelData>,
                "kernel records are compared with memcmp: no padding bytes");
  static_assert(sizeof(NodeData) <= 32, "node records are read for every node of both plans: keep them small");
  static_assert(sizeof(NodeData) == sizeof(SmallVec) + 2 * sizeof(std::uint32_t) &&
                    sizeof(SmallVec) ==
                        2 * sizeof(std::uint32_t) +
                            std::max(sizeof(std::uint32_t*), SmallVec::inline_capacity * sizeof(std::uint32_t)),
                "node records are compared with memcmp (same_record_bytes): no padding bytes");
  if (!a.kernel_attributes.empty() || !b.kernel_attributes.empty() || lo >= hi) return false;
  const std::uint32_t k0 = a.nodes[lo].payload;
  const std::uint32_t k1 = k0 + (hi - lo);
  if (k1 < k0 || k1 > a.kernels.size() || k1 > b.kernels.size()) return false;
  // The usual case (plans built by the same code) in two streaming passes: one memcmp of the
  // records, then a pass over `a`'s records alone, now in cache. Else field by field.
  const bool same_nodes = same_record_bytes(a, b, lo, hi) ? kernels_in_order(a, lo, hi, k0)
                                                          : same_node_records(a, b, lo, hi, k0);
  if (!same_nodes || !same_block_names(a, b, lo, hi)) return false;
  return std::memcmp(a.kernels.data() + k0, b.kernels.data() + k0, (k1 - k0) * sizeof(KernelData)) == 0 &&
         same_kernel_args(a, b, k0, k1);
}

}  // namespace graphdsl::detail
