// tests/gpu/gpu_support.cpp — the out-of-line helpers of gpu_support.hpp.
#include "gpu_support.hpp"

namespace gpu_test {

void require_device_healthy() {
  auto gen = rng(99);
  std::vector<int> in(1000);
  std::uniform_int_distribution<int> d(-100000, 100000);
  for (auto& v : in) v = d(gen);
  DeviceBuffer<int> d_in(in);
  DeviceBuffer<int> d_out(in.size());
  launch_kernel(health_triple, (1000 + 127) / 128, 128, 0, nullptr, d_out.get(), d_in.get(), 1000);
  GPU_REQUIRE(cudaGetLastError());
  GPU_REQUIRE(cudaDeviceSynchronize());
  const std::vector<int> out = d_out.download();
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("element " << i);
    REQUIRE(out[i] == 3 * in[i] + 1);
  }
}

}  // namespace gpu_test
