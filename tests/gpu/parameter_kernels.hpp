// tests/gpu/parameter_kernels.hpp — the kernels of tests/gpu/parameter_test.cpp, defined in
// parameter_kernels.cu (the elementwise kernels of kernels.hpp serve the float parameters).
#pragma once

#include "kernels.hpp"

namespace gpu_test {

/// out[i] = scale * i + offset (8-byte parameters: a double and a long long)
GPU_KERNEL void index_affine(double* out, double scale, long long offset, int n);

/// One loop iteration (one thread): *acc += step, ++*counter, and the loop goes on while the
/// counter is below `limit` (a kernel with both a parameter and a Condition argument).
GPU_KERNEL void loop_step(unsigned* counter, unsigned limit, cudaGraphConditionalHandle more, float* acc, float step);

}  // namespace gpu_test
