// src/exec/kernel_arg.cpp — Executable::set_kernel_arg: one kernel parameter by position, the others
// kept (the setter of adopted kernels, whose parameters have sizes but no types).
#include <vector>

#include "graphdsl/executable.hpp"
#include "native/native.hpp"
#include "plan/records/kernel_access.hpp"

namespace graphdsl {

void Executable::set_kernel_arg_bytes(const Node& node, unsigned int index, const void* value, std::size_t bytes) {
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::kernel);
  const detail::ArgLayout* layout = nullptr;
  const std::vector<unsigned char> block = detail::arguments_with(x.plan.impl(), i, index, value, bytes, layout);
  set_kernel_params(node, block.data(), layout, nullptr);
}

}  // namespace graphdsl
