// src/plan/records/kernel_swap.cpp — a kernel node of an executable's recorded plan taking a kernel of
// another signature (Executable::set_kernel): its record, layout and argument block replaced, the
// argument arena kept small (plan/records/kernel_access.hpp). No CUDA call.
#include <cstring>
#include <new>
#include <vector>

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

KernelSwap swap_kernel(GraphImpl& g, std::uint32_t i, const void* func, const ArgLayout& layout,
                       const unsigned char* block, const LaunchShape& shape) {
  const std::uint32_t kernel = kernel_index(g, i);
  KernelData& k = g.kernels[kernel];
  KernelLinks& links = g.kernel_links[kernel];
  const std::uint32_t old_total = links.layout->total;
  KernelSwap s;
  s.node = i;
  s.kernel = k;
  s.layout = links.layout;
  s.block.assign(argument_block(g, k), argument_block(g, k) + old_total);
  s.arena = g.args.size();
  s.unused = g.unused_args;
  // Where the new block goes: over the old one when it ends the arena (the arena then fits it) or
  // when the new one is no larger; else at the end, the old one left unused.
  const bool last = k.args + old_total == g.args.size();
  std::uint64_t at = k.args;
  if (last) {
    g.args.resize(k.args + layout.total);  // the only step that may throw, before any other change
  } else if (layout.total <= old_total) {
    g.unused_args += old_total - layout.total;
  } else {
    at = g.args.size();
    g.args.resize(at + layout.total);
    g.unused_args += old_total;
  }
  if (layout.total != 0) std::memcpy(g.args.data() + at, block, layout.total);
  k.func = func;
  k.args = at;
  k.launch.grid = shape.grid;
  k.launch.block = shape.block;
  k.launch.shared_bytes = shape.shared_bytes;
  links.layout = &layout;
  return s;
}

void undo_kernel_swap(GraphImpl& g, const KernelSwap& s) noexcept {
  const std::uint32_t kernel = kernel_index(g, s.node);
  // The arena only grew (its capacity kept) or shrank from its end: back to its old size without
  // allocating, the old block written back where it was.
  g.args.resize(s.arena);
  if (!s.block.empty()) std::memcpy(g.args.data() + s.kernel.args, s.block.data(), s.block.size());
  g.kernels[kernel] = s.kernel;
  g.kernel_links[kernel].layout = s.layout;
  g.unused_args = s.unused;
}

void tidy_arguments(GraphImpl& g) noexcept {
  if (g.unused_args == 0 || 2 * g.unused_args <= g.args.size()) return;
  std::size_t used = 0;
  for (std::size_t k = 0; k < g.kernels.size(); ++k) used += g.kernel_links[k].layout->total;
  std::vector<unsigned char> packed;
  try {
    packed.reserve(used);
  } catch (const std::bad_alloc&) {
    return;  // kept as it is: a later swap tries again
  }
  for (std::size_t k = 0; k < g.kernels.size(); ++k) {
    const unsigned char* from = g.args.data() + g.kernels[k].args;
    packed.insert(packed.end(), from, from + g.kernel_links[k].layout->total);  // within the reserve
  }
  std::uint64_t at = 0;
  for (std::size_t k = 0; k < g.kernels.size(); ++k) {
    g.kernels[k].args = at;
    at += g.kernel_links[k].layout->total;
  }
  g.args.swap(packed);
  g.unused_args = 0;
}

std::uint32_t parameter_of_node(const GraphImpl& g, std::uint32_t i) noexcept {
  for (std::uint32_t p = 0; p < g.params.size(); ++p) {
    for (const ParamUse& u : g.params[p].uses) {
      if (u.node == i) return p;
    }
  }
  return ConditionRef::unresolved;
}

}  // namespace graphdsl::detail
