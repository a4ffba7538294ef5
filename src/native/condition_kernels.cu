// src/native/condition_kernels.cu — device code of graphdsl: the kernel that sets a condition from a value.
#include <cuda_runtime.h>

#include "graphdsl/condition.hpp"
#include "graphdsl/detail/condition_kernels.hpp"

namespace graphdsl::detail {

namespace {
template <class T>
__global__ void set_condition(cudaGraphConditionalHandle handle, const T* value, int op, T operand) {
  const T v = *value;
  bool r = false;
  switch (static_cast<Compare>(op)) {
    case Compare::equal: r = v == operand; break;
    case Compare::not_equal: r = v != operand; break;
    case Compare::less: r = v < operand; break;
    case Compare::less_equal: r = v <= operand; break;
    case Compare::greater: r = v > operand; break;
    case Compare::greater_equal: r = v >= operand; break;
  }
  cudaGraphSetConditional(handle, r ? 1u : 0u);
}
}  // namespace

template <class T>
SetConditionKernel<T> set_condition_kernel() noexcept {
  return &set_condition<T>;
}

template SetConditionKernel<int> set_condition_kernel<int>() noexcept;
template SetConditionKernel<unsigned int> set_condition_kernel<unsigned int>() noexcept;
template SetConditionKernel<float> set_condition_kernel<float>() noexcept;
template SetConditionKernel<double> set_condition_kernel<double>() noexcept;

}  // namespace graphdsl::detail
