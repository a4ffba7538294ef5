// tests/gpu/shape_kernels.hpp — kernels of the shape-family and dispatch GPU tests, defined in
// tests/gpu/shape_kernels.cu (test cases are host-compiled; see kernels.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include "kernels.hpp"

namespace gpu_test {

/// y[i] = a * x[i] + count for i < count (one thread per element; the rest of y is left as it was).
GPU_KERNEL void shape_step(float* y, const float* x, float a, int count);
/// log[*step] = bucket * 1000 + *size (one thread): which body ran for which size.
GPU_KERNEL void shape_record(int* log, const int* step, const int* size, int bucket);
/// One thread: ++*step; when *step < k, *size = sizes[*step]; sets `more` to (*step < k).
GPU_KERNEL void shape_advance(int* step, const int* sizes, int* size, cudaGraphConditionalHandle more, int k);

}  // namespace gpu_test
