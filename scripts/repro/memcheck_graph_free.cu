// scripts/repro/memcheck_graph_free.cu — raw CUDA (no graphdsl) replica of the GPU test
// "a relaunch while a captured cudaMallocAsync of the last launch is live is refused before
// cudaGraphLaunch", the one case compute-sanitizer memcheck reports a leak for (4,096 B). A graph made
// by capture holds an allocation freed inside it and then one that is not; each launch is followed by
// cudaFreeAsync of the second outside the graph; finally cudaDeviceGraphMemTrim.
//
//   nvcc -arch=sm_90 scripts/repro/memcheck_graph_free.cu -o /tmp/repro
//   compute-sanitizer --tool memcheck --leak-check full /tmp/repro 0   (variants 0..4)
//
// Measured on an H200 (driver 580, CUDA 13.0), 2026-11-23: memcheck reports "4096 bytes leaked in 1
// allocations" for variants 0 (as the test), 1 (freed on the legacy default stream) and 3 (executable
// and graph destroyed, trimmed again), and nothing for variant 2 (no freed-in-graph allocation
// before); CUDA's own counters (cudaGraphMemAttrUsedMemCurrent / ReservedMemCurrent) read 0 B in
// every variant. The report is compute-sanitizer's accounting, not a leak of graphdsl's or CUDA's.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t rc_ = (x); if (rc_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(rc_)); std::exit(1);} } while (0)
constexpr int N = 1024;
__global__ void fill(float* x, float v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = v; }
int main(int argc, char** argv) {
  const int variant = argc > 1 ? std::atoi(argv[1]) : 0;
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cudaGraph_t g; float* kept = nullptr; float* bal = nullptr;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  if (variant != 2) { CK(cudaMallocAsync(reinterpret_cast<void**>(&bal), N * 4, s)); fill<<<N / 256, 256, 0, s>>>(bal, 1.f, N); CK(cudaFreeAsync(bal, s)); }
  CK(cudaMallocAsync(reinterpret_cast<void**>(&kept), N * 4, s));
  fill<<<N / 256, 256, 0, s>>>(kept, 2.f, N);
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e; CK(cudaGraphInstantiate(&e, g, 0));
  cudaStream_t fs = s;
  if (variant == 1) fs = 0;  // free on the legacy default stream
  for (int launch = 0; launch < 2; ++launch) {
    CK(cudaGraphLaunch(e, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaFreeAsync(kept, fs));
    CK(cudaStreamSynchronize(fs));
  }
  CK(cudaDeviceGraphMemTrim(0));
  if (variant >= 3) { CK(cudaGraphExecDestroy(e)); CK(cudaGraphDestroy(g)); CK(cudaDeviceGraphMemTrim(0)); }
  if (variant == 4) {  // as 3, then a second graph whose kernel writes its own mem_alloc node's buffer
    cudaGraph_t g2; CK(cudaGraphCreate(&g2, 0));
    cudaMemAllocNodeParams ap{};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = N * 4;
    cudaGraphNode_t alloc, k, fr;
    CK(cudaGraphAddMemAllocNode(&alloc, g2, nullptr, 0, &ap));
    float* tmp = static_cast<float*>(ap.dptr); float v = 3.f; int n = N; void* args[] = {&tmp, &v, &n};
    cudaKernelNodeParams kp{}; kp.func = reinterpret_cast<void*>(fill); kp.gridDim = dim3(N / 256); kp.blockDim = dim3(256); kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&k, g2, &alloc, 1, &kp));
    CK(cudaGraphAddMemFreeNode(&fr, g2, &k, 1, tmp));
    cudaGraphExec_t e2; CK(cudaGraphInstantiate(&e2, g2, 0));
    CK(cudaGraphLaunch(e2, s));
    std::printf("variant 4: second graph (buffer %p): %s\n", static_cast<void*>(tmp), cudaGetErrorString(cudaStreamSynchronize(s)));
    CK(cudaGraphExecDestroy(e2)); CK(cudaGraphDestroy(g2));
  }
  CK(cudaDeviceSynchronize());
  unsigned long long used = 0, reserved = 0;
  CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
  std::printf("variant %d done: graph memory in use %llu B, reserved %llu B\n", variant, used, reserved);
  return 0;
}
