// The quickstart sample (samples/quickstart/main.cu) written with the raw CUDA graph API: the
// baseline of scripts/include-cost.sh. Same work (upload, scale by 2, download, print the plan and
// the first element), same standard headers; the "plan dump" is printed by hand.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

static bool check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> host(n, 1.5f);
  float* dev = nullptr;
  if (cudaMalloc(&dev, n * sizeof(float)) != cudaSuccess) return std::puts("no CUDA device found"), 0;

  cudaGraph_t graph = nullptr;
  if (!check(cudaGraphCreate(&graph, 0), "cudaGraphCreate")) return 1;
  cudaGraphNode_t up = nullptr, twice = nullptr, down = nullptr;
  if (!check(cudaGraphAddMemcpyNode1D(&up, graph, nullptr, 0, dev, host.data(), n * sizeof(float),
                                      cudaMemcpyHostToDevice), "upload")) return 1;

  float factor = 2.0f;
  int count = n;
  void* args[] = {&dev, &factor, &count};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3((n + 255) / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  if (!check(cudaGraphAddKernelNode(&twice, graph, &up, 1, &kp), "twice")) return 1;
  if (!check(cudaGraphAddMemcpyNode1D(&down, graph, &twice, 1, host.data(), dev, n * sizeof(float),
                                      cudaMemcpyDeviceToHost), "download")) return 1;

  cudaGraphExec_t exec = nullptr;
  if (!check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate")) return 1;
  if (!check(cudaGraphLaunch(exec, cudaStreamPerThread), "cudaGraphLaunch")) return 1;
  if (!check(cudaStreamSynchronize(cudaStreamPerThread), "cudaStreamSynchronize")) return 1;
  std::printf("graph 'quickstart': 3 nodes\n  #0 memcpy 'upload'\n  #1 kernel 'twice' after #0\n"
              "  #2 memcpy 'download' after #1\nhost[0] = %g (expected 3)\n", host[0]);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(dev);
  return host[0] == 3.0f ? 0 : 1;
}
