#include <cstdio>
#include <vector>
#include <graphdsl/graphdsl.hpp>
namespace gd = graphdsl;

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> host(n, 1.5f);
  float* dev = nullptr;
  if (cudaMalloc(&dev, n * sizeof(float)) != cudaSuccess) return std::puts("no CUDA device found"), 0;

  gd::Graph g("quickstart");                                   // a plan: no CUDA call yet
  auto up = g.add_memcpy(dev, host.data(), n).name("upload");
  auto twice = g.add_kernel(scale, gd::cover(n), dev, 2.0, n)  // 2.0 is converted to float
                   .name("twice").after(up);
  g.add_memcpy(host.data(), dev, n).name("download").after(twice);

  gd::Executable exec = g.instantiate();                       // validate, materialize, instantiate
  exec.launch();
  exec.synchronize();
  std::printf("%shost[0] = %g (expected 3)\n", g.dump().c_str(), host[0]);
  cudaFree(dev);
  return host[0] == 3.0f ? 0 : 1;
}
