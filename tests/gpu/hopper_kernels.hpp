// tests/gpu/hopper_kernels.hpp — kernels of the launch-attribute tests (tests/gpu/hopper_kernels.cu;
// how a .cpp names a kernel: kernels.hpp).
#pragma once

#include "kernels.hpp"

namespace gpu_test {

/// Per block b: out[3b] = the blocks in its cluster, out[3b+1] = its rank in the cluster, out[3b+2]
/// = what the next block of its cluster (rank + 1, wrapping) wrote to its own shared memory
/// (100 * that block's blockIdx.x + 7), read through distributed shared memory. Needs sm_90 and a
/// cluster launch; elsewhere it writes -1.
GPU_KERNEL void cluster_probe(int* out);
/// A cooperative grid: each block writes scratch[b] = b + 1, the grid synchronizes, then block b
/// writes out[b] = scratch[(b + 1) % blocks] (what another block wrote before the grid sync).
GPU_KERNEL void grid_sync_probe(int* scratch, int* out);

/// One link of a programmatic chain: waits for the predecessor grid (cudaGridDependencySynchronize),
/// x[i] = x[i] * 0.5 + add, then lets the successor start (cudaTriggerProgrammaticLaunchCompletion).
/// Plain edges work too (the calls then return at once). sm_90; elsewhere the same without them.
GPU_KERNEL void pdl_step(float* x, float add, int n);

}  // namespace gpu_test
