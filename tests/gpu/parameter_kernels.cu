// tests/gpu/parameter_kernels.cu — the kernels declared in parameter_kernels.hpp. Thin on purpose:
// no Catch2, no graphdsl, no test macros.
#include "parameter_kernels.hpp"

#include <cuda_runtime.h>

namespace gpu_test {

__global__ void index_affine(double* out, double scale, long long offset, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale * i + static_cast<double>(offset);
}

__global__ void loop_step(unsigned* counter, unsigned limit, cudaGraphConditionalHandle more, float* acc, float step) {
  *acc += step;
  const unsigned c = ++*counter;
  cudaGraphSetConditional(more, c < limit ? 1u : 0u);
}

}  // namespace gpu_test
