// src/kinds/kernel_diff.cpp — the kernel kind's part of the diff (plan/diff.cpp): a block of kernel
// nodes of two plans compared in a few tight passes (node records, then the kernel records and the argument
// bytes of the whole block with one memcmp each) instead of node by node through
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

/// No kernel record of [k0, k1) of `g` has a Condition or GraphBuffer argument. A plan without
/// placeholders has none (the common case: no KernelLinks is read).
bool no_placeholders(const GraphImpl& g, std::uint32_t k0, std::uint32_t k1) noexcept {
  if (g.placeholders.empty()) return true;
  const KernelLinks* ls = g.kernel_links.data();
  std::uint32_t count = 0;
  for (std::uint32_t k = k0; k < k1; ++k) count |= ls[k].ph_count;
  return count == 0;
}

/// The argument blocks of kernel records [k0, k1) hold the same bytes in `a` and `b`, whose records
/// are equal (compared before): the same offsets and functions, and a function determines its
/// layout, so each block has the same place and size in both arenas. Each block was reserved at the
/// end of its plan's arena (Graph::add_argument_block), so blocks never overlap: when the offsets
/// increase strictly, every block lies inside [offset of the first, end of the last), which one
/// memcmp compares, reading one layout. Bytes between the blocks (of other kernels) can only make it
/// report a difference, which the node-by-node compare then settles: never a wrong "same". Other
/// offsets (a kernel without arguments shares its offset with the next block): block by block.
bool same_kernel_args(const GraphImpl& a, const GraphImpl& b, std::uint32_t k0, std::uint32_t k1) noexcept {
  const KernelData* ks = a.kernels.data();
  const KernelLinks* ls = a.kernel_links.data();
  bool increasing = true;
  for (std::uint32_t k = k0 + 1; k < k1; ++k) increasing &= ks[k - 1].args < ks[k].args;
  if (increasing) {
    const std::uint64_t begin = ks[k0].args;
    const std::uint64_t end = ks[k1 - 1].args + ls[k1 - 1].layout->total;
    if (end > a.args.size() || end > b.args.size()) return false;
    return end == begin || std::memcmp(a.args.data() + begin, b.args.data() + begin, end - begin) == 0;
  }
  for (std::uint32_t k = k0; k < k1; ++k) {
    const std::size_t n = ls[k].layout->total;
    if (n != 0 && std::memcmp(a.args.data() + ks[k].args, b.args.data() + ks[k].args, n) != 0) return false;
  }
  return true;
}

}  // namespace

bool same_kernel_block(const GraphImpl& a, const GraphImpl& b, std::uint32_t lo, std::uint32_t hi) noexcept {
  static_assert(std::has_unique_object_representations_v<KernelData>,
                "kernel records are compared with memcmp: no padding bytes");
  static_assert(sizeof(KernelData) <= 48, "kernel records are read for every kernel of both plans: keep them small");
  static_assert(sizeof(NodeData) <= 24, "node records are read for every node of both plans: keep them small");
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
  // The records hold function, launch shape and argument offset; the placeholders (which a kernel
  // of one function may take in one plan and not in the other) are looked up in both plans.
  return std::memcmp(a.kernels.data() + k0, b.kernels.data() + k0, (k1 - k0) * sizeof(KernelData)) == 0 &&
         no_placeholders(a, k0, k1) && no_placeholders(b, k0, k1) && same_kernel_args(a, b, k0, k1);
}

}  // namespace graphdsl::detail
