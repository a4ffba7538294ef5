// tests/gpu/update_buffers.hpp — the buffers of the update suites (update_test.cpp,
// prepared_update_test.cpp): inputs and outputs of two kernels, a memset and a copy to the host.
#pragma once

#include <random>
#include <vector>

#include "gpu_support.hpp"

namespace gpu_test {

/// `N` elements each: x (random) in, y1, y2 and z out on the device, `out` in pinned host memory;
/// `hx` is x on the host, for the expected values.
template <int N>
struct UpdateBuffers {
  DeviceBuffer<float> x, y1, y2;
  DeviceBuffer<int> z;
  PinnedBuffer<float> out;
  std::vector<float> hx;
  explicit UpdateBuffers(std::mt19937& gen) : x(random_floats(N, gen)), y1(N), y2(N), z(N), out(N), hx(x.download()) {}
  /// Fills the outputs with 0xff bytes, so that a node that did not run leaves them wrong.
  void poison() {
    GPU_REQUIRE(cudaMemset(y1.get(), 0xff, y1.bytes()));
    GPU_REQUIRE(cudaMemset(y2.get(), 0xff, y2.bytes()));
    GPU_REQUIRE(cudaMemset(z.get(), 0xff, z.bytes()));
    // cudaMemset runs on the legacy default stream, which the tests' non-blocking streams do not
    // wait for: without this the graph could run before the poison lands (seen once: y2 and z
    // poisoned after a correct launch).
    GPU_REQUIRE(cudaDeviceSynchronize());
  }
};

}  // namespace gpu_test
