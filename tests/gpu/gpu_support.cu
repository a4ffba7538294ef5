// tests/gpu/gpu_support.cu — the out-of-line helpers of gpu_support.hpp.
#include "gpu_support.hpp"

namespace gpu_test {

namespace {
__global__ void health_triple(int* out, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * in[i] + 1;
}
}  // namespace

void require_device_healthy() {
  auto gen = rng(99);
  std::vector<int> in(1000);
  std::uniform_int_distribution<int> d(-100000, 100000);
  for (auto& v : in) v = d(gen);
  DeviceBuffer<int> d_in(in);
  DeviceBuffer<int> d_out(in.size());
  health_triple<<<(1000 + 127) / 128, 128>>>(d_out.get(), d_in.get(), 1000);
  GPU_REQUIRE(cudaGetLastError());
  GPU_REQUIRE(cudaDeviceSynchronize());
  const std::vector<int> out = d_out.download();
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("element " << i);
    REQUIRE(out[i] == 3 * in[i] + 1);
  }
}

}  // namespace gpu_test
