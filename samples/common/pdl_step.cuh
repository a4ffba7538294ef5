// samples/common/pdl_step.cuh — one link of a chain of dependent kernels for programmatic dependent
// launch (samples/pdl_chain, the bench's pdl section; include it in one translation unit).
#pragma once

namespace sample {

/// x[i] = x[i] * 0.5 + add. The prologue (the index) runs before cudaGridDependencySynchronize(),
/// which waits for the predecessor over a programmatic edge (and returns at once over a full one);
/// cudaTriggerProgrammaticLaunchCompletion() then lets the successor start. sm_90; elsewhere the
/// same arithmetic without the two calls.
__global__ void pdl_step(float* x, float add, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  if (i < n) x[i] = x[i] * 0.5f + add;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

}  // namespace sample
