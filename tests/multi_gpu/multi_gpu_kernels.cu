// tests/multi_gpu/multi_gpu_kernels.cu — the kernels of the multi-GPU suite (no Catch2, no graphdsl).
#include "multi_gpu_kernels.hpp"

namespace multi_gpu_test {

__global__ void affine(const float* x, float* y, float a, float b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

__global__ void add_into(float* out, const float* p, const float* q, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i] + q[i];
}

}  // namespace multi_gpu_test
