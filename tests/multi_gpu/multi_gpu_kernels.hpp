// tests/multi_gpu/multi_gpu_kernels.hpp — the kernels of the multi-GPU suite, defined in
// multi_gpu_kernels.cu (kernels in a thin .cu file, test cases in .cpp: see tests/gpu/kernels.hpp).
#pragma once

#include "kernels.hpp"  // GPU_KERNEL

namespace multi_gpu_test {

/// y = a * x + b
GPU_KERNEL void affine(const float* x, float* y, float a, float b, int n);
/// out = p + q
GPU_KERNEL void add_into(float* out, const float* p, const float* q, int n);

}  // namespace multi_gpu_test
