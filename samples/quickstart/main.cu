// samples/quickstart — the README example: build a plan, compile it, launch it, check the result.
#include <cstdio>
#include <vector>

#include <graphdsl/graphdsl.hpp>

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

int main() {
  namespace gd = graphdsl;
  const int n = 1 << 20;
  std::vector<float> host(n, 1.0f);
  float* dev = nullptr;
  if (cudaMalloc(&dev, n * sizeof(float)) != cudaSuccess) {
    std::printf("no CUDA device found: nothing to run\n");
    return 0;
  }

  gd::Graph g("quickstart");
  auto up = g.add_memcpy(dev, host.data(), n).name("upload");
  auto twice = g.add_kernel(scale, gd::cover(n), dev, 2.0f, n).name("twice").after(up);
  g.add_memcpy(host.data(), dev, n).name("download").after(twice);

  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();

  std::printf("%s", g.dump().c_str());
  std::printf("host[0] = %.1f (expected 2.0)\n", host[0]);
  cudaFree(dev);
  return host[0] == 2.0f ? 0 : 1;
}
