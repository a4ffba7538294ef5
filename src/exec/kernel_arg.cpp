// src/exec/kernel_arg.cpp — Executable::set_kernel_arg: one kernel parameter by position, the others
// kept (the setter of adopted kernels, whose parameters have sizes but no types).
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/executable.hpp"
#include "native/native.hpp"
#include "plan/records/kernel_access.hpp"

namespace graphdsl {

void Executable::set_kernel_arg_bytes(const Node& node, unsigned int index, const void* value, std::size_t bytes) {
  detail::ExecImpl& x = impl();
  const detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::kernel);
  const detail::KernelData& k = detail::kernel_of(a, i);
  const detail::KernelLinks& links = detail::kernel_links_of(a, detail::kernel_index(a, i));
  const detail::ArgLayout& layout = *links.layout;
  if (index >= layout.count) {
    throw UsageError(fmt::format("set_kernel_arg: {} has {} parameter{}; there is no parameter {}",
                                 a.info(i).describe(), layout.count, layout.count == 1 ? "" : "s", index));
  }
  if (bytes != layout.sizes[index]) {
    throw UsageError(fmt::format("set_kernel_arg: parameter {} of {} is {} bytes; the value given is {} bytes", index,
                                 a.info(i).describe(), layout.sizes[index], bytes));
  }
  std::vector<unsigned char> block(detail::argument_block(a, k), detail::argument_block(a, k) + layout.total);
  std::memcpy(block.data() + layout.offsets[index], value, bytes);
  set_kernel_params(node, block.data(), &layout, nullptr);
}

}  // namespace graphdsl
