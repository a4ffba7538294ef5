// tests/gpu/shape_kernels.cu — kernels of the shape-family and dispatch GPU tests (shape_kernels.hpp).
#include <cuda_runtime.h>

#include "shape_kernels.hpp"

namespace gpu_test {

__global__ void shape_step(float* y, const float* x, float a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = a * x[i] + static_cast<float>(count);
}

__global__ void shape_record(int* log, const int* step, const int* size, int bucket) {
  log[*step] = bucket * 1000 + *size;
}

__global__ void shape_advance(int* step, const int* sizes, int* size, cudaGraphConditionalHandle more, int k) {
  const int s = ++*step;
  if (s < k) *size = sizes[s];
  cudaGraphSetConditional(more, s < k ? 1u : 0u);
}

}  // namespace gpu_test
