// docs/probes/graph_memory_and_kernel_swap.cu — a raw-CUDA probe (no graphdsl) of three driver
// behaviours graphdsl's API relies on; docs/node-kinds.md, docs/updating.md and docs/errors.md cite it.
//
//   nvcc -arch=sm_90 -o probe docs/probes/graph_memory_and_kernel_swap.cu -lcuda && ./probe
//
// What it printed on 2 x H100, driver 580 (CUDA 13.0):
//   * graph allocations (cudaGraphAddMemAllocNode): pinned device memory works; managed memory with
//     location device 0 returns cudaSuccess but the memory is plain device memory
//     (cudaPointerGetAttributes type 2, device, not 3, managed; reading it from the host faults, so the
//     probe only reads it through cudaMemcpy); managed memory with location None or Host, pinned host
//     memory and pinned host NUMA memory return cudaErrorNotSupported. graphdsl therefore refuses
//     MemAllocOptions::kind managed and host (AllocationKind).
//   * a kernel node of an executable switched to a kernel of another signature
//     (cudaGraphExecKernelNodeSetParams from void(int) to void(float*, int, double)) returns cudaSuccess
//     and the executable launches (Executable::set_kernel to another signature).
//   * cudaDeviceSetGraphMemAttribute with 0 for cudaGraphMemAttrUsedMemHigh and ReservedMemHigh
//     succeeds, the mark then reads the current amount; a non-zero value is cudaErrorInvalidValue
//     (reset_graph_memory_high_marks passes 0).
// Probe: which allocation types and locations do graph memory-allocation nodes accept on this driver?
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i * 0.5f; }
__global__ void noop(int) {}
__global__ void other(float*, int, double) {}
static void try_alloc(const char* what, cudaMemAllocationType type, cudaMemLocationType loc, int id) {
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  cudaMemAllocNodeParams p{};
  p.poolProps.allocType = type; p.poolProps.location.type = loc; p.poolProps.location.id = id;
  p.bytesize = 1 << 20;
  cudaGraphNode_t a;
  cudaError_t rc = cudaGraphAddMemAllocNode(&a, g, nullptr, 0, &p);
  printf("%-40s add: %s", what, cudaGetErrorName(rc));
  if (rc == cudaSuccess) {
    float* d = (float*)p.dptr; int n = (1 << 20) / 4;
    cudaKernelNodeParams k{}; void* args[] = {&d, &n}; k.func = (void*)fill; k.gridDim = dim3((n + 255) / 256); k.blockDim = dim3(256); k.kernelParams = args;
    cudaGraphNode_t kn; rc = cudaGraphAddKernelNode(&kn, g, &a, 1, &k); printf(" kernel: %s", cudaGetErrorName(rc));
    cudaGraphExec_t x; rc = cudaGraphInstantiate(&x, g, 0); printf(" inst: %s", cudaGetErrorName(rc));
    if (rc == cudaSuccess) {
      rc = cudaGraphLaunch(x, 0); cudaError_t s = cudaStreamSynchronize(0); printf(" launch: %s/%s", cudaGetErrorName(rc), cudaGetErrorName(s));
      cudaPointerAttributes at{}; cudaPointerGetAttributes(&at, d); printf(" ptrtype %d", (int)at.type);
      if (at.type == cudaMemoryTypeManaged) { printf(" host-read p[10]=%g", (double)d[10]); }
      float h = 0; cudaMemcpy(&h, d + 10, 4, cudaMemcpyDefault); printf(" copy p[10]=%g", (double)h);
      cudaFree(d); cudaGraphExecDestroy(x);
    }
  }
  printf("\n"); cudaGetLastError(); cudaGraphDestroy(g);
}
int main() {
  setvbuf(stdout, nullptr, _IONBF, 0); cudaFree(0);
  int v = 0; cudaDriverGetVersion(&v); printf("driver %d\n", v);
  try_alloc("pinned device", cudaMemAllocationTypePinned, cudaMemLocationTypeDevice, 0);
  try_alloc("managed device", cudaMemAllocationTypeManaged, cudaMemLocationTypeDevice, 0);
  try_alloc("managed none", cudaMemAllocationTypeManaged, cudaMemLocationTypeNone, 0);
  try_alloc("managed host", cudaMemAllocationTypeManaged, cudaMemLocationTypeHost, 0);
  try_alloc("pinned host", cudaMemAllocationTypePinned, cudaMemLocationTypeHost, 0);
  try_alloc("pinned host numa 0", cudaMemAllocationTypePinned, cudaMemLocationTypeHostNuma, 0);
  // Kernel swap to another signature via cudaGraphExecKernelNodeSetParams.
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  int a0 = 1; void* args[] = {&a0}; cudaKernelNodeParams k{}; k.func = (void*)noop; k.gridDim = 1; k.blockDim = 1; k.kernelParams = args;
  cudaGraphNode_t kn; cudaGraphAddKernelNode(&kn, g, nullptr, 0, &k);
  cudaGraphExec_t x; cudaGraphInstantiate(&x, g, 0);
  float* fp = nullptr; int n = 3; double dd = 2; void* args2[] = {&fp, &n, &dd};
  cudaKernelNodeParams k2 = k; k2.func = (void*)other; k2.kernelParams = args2;
  printf("swap to other signature: %s\n", cudaGetErrorName(cudaGraphExecKernelNodeSetParams(x, kn, &k2)));
  printf("launch after swap: %s %s\n", cudaGetErrorName(cudaGraphLaunch(x, 0)), cudaGetErrorName(cudaStreamSynchronize(0)));
  // high-water reset
  size_t hi = 0; cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &hi); printf("used high %zu\n", hi);
  unsigned long long z = 0; printf("reset used high: %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &z)));
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &hi); printf("used high after %zu\n", hi);
  printf("reset reserved high: %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &z)));
  unsigned long long one = 1; printf("set used high to 1 (refused?): %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one)));
  printf("set used current (refused?): %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &z)));
  return 0;
}
