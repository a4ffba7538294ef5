// tests/gpu/hopper_kernels.cu — see hopper_kernels.hpp.
#include <cooperative_groups.h>

#include "hopper_kernels.hpp"

namespace cg = cooperative_groups;

namespace gpu_test {

__global__ void cluster_probe(int* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ int mine;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) mine = 100 * static_cast<int>(blockIdx.x) + 7;
  cluster.sync();
  const unsigned n = cluster.num_blocks();
  const unsigned r = cluster.block_rank();
  const int* theirs = cluster.map_shared_rank(&mine, (r + 1) % n);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = static_cast<int>(n);
    out[3 * blockIdx.x + 1] = static_cast<int>(r);
    out[3 * blockIdx.x + 2] = *theirs;
  }
  cluster.sync();  // no block leaves (and frees its shared memory) before its neighbour has read it
#else
  if (threadIdx.x == 0) out[3 * blockIdx.x] = out[3 * blockIdx.x + 1] = out[3 * blockIdx.x + 2] = -1;
#endif
}

__global__ void grid_sync_probe(int* scratch, int* out) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) scratch[blockIdx.x] = static_cast<int>(blockIdx.x) + 1;
  grid.sync();
  if (threadIdx.x == 0) out[blockIdx.x] = scratch[(blockIdx.x + 1) % gridDim.x];
}

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

}  // namespace gpu_test
