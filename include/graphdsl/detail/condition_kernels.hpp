// graphdsl/detail/condition_kernels.hpp — the library's own kernel behind Graph::add_set_condition.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <cuda_runtime_api.h>

namespace graphdsl::detail {

/// set_condition<T>(handle, value, op, operand): cudaGraphSetConditional(handle, *value OP operand).
template <class T>
using SetConditionKernel = void (*)(cudaGraphConditionalHandle, const T*, int, T);

/// The kernel for value type T (int, unsigned int, float, double; defined in src/condition_kernels.cu).
template <class T>
SetConditionKernel<T> set_condition_kernel() noexcept;

extern template SetConditionKernel<int> set_condition_kernel<int>() noexcept;
extern template SetConditionKernel<unsigned int> set_condition_kernel<unsigned int>() noexcept;
extern template SetConditionKernel<float> set_condition_kernel<float>() noexcept;
extern template SetConditionKernel<double> set_condition_kernel<double>() noexcept;

}  // namespace graphdsl::detail
