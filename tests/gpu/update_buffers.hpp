// tests/gpu/update_buffers.hpp — the buffers of the update suites (update_test.cpp,
// prepared_update_test.cpp, update_in_place_test.cpp): inputs and outputs of two kernels, a memset
// and a copy to the host; and the 2-D copy that cudaGraphExecUpdate refuses to move.
#pragma once

#include <cstddef>
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

/// The refusal cases' plan: 'k' y = a * x + 1, then 'rows' copies y (`N` floats, rows of 64) into
/// dst_a or dst_b, pitched. cudaGraphExecUpdate refuses a new destination of a 2-D copy (CUDA 13,
/// H200), and cudaGraphExecMemcpyNodeSetParams any multidimensional one.
template <int N>
struct RowsCopy {
  DeviceBuffer<float> x, y;
  std::vector<float> hx;
  std::size_t width = 64 * sizeof(float), rows = N / 64;
  PitchedBuffer dst_a, dst_b;
  explicit RowsCopy(std::mt19937& gen)
      : x(random_floats(N, gen)), y(N), hx(x.download()), dst_a(width, rows), dst_b(width, rows) {}
  gd::Graph plan(const char* name, float a, const PitchedBuffer& dst) {
    gd::Graph g(name);
    auto k = g.add_kernel(axpb, gd::cover(N), y.get(), x.get(), a, 1.0f, N).name("k");
    g.add_memcpy_2d(dst.get(), dst.pitch(), y.get(), width, width, rows).name("rows").after(k);
    return g;
  }
  /// Zeroes dst (and waits: non-blocking streams do not wait for cudaMemset2D).
  void clear(const PitchedBuffer& dst) {
    GPU_REQUIRE(cudaMemset2D(dst.get(), dst.pitch(), 0, width, rows));
    GPU_REQUIRE(cudaDeviceSynchronize());
  }
  std::vector<float> read(const PitchedBuffer& dst) {
    std::vector<float> got(N);
    GPU_REQUIRE(cudaMemcpy2D(got.data(), width, dst.get(), dst.pitch(), width, rows, cudaMemcpyDeviceToHost));
    return got;
  }
  /// dst holds a * x + 1.
  void expect(const PitchedBuffer& dst, float a) {
    const std::vector<float> got = read(dst);
    for (int i = 0; i < N; ++i) REQUIRE(got[i] == a * hx[i] + 1.0f);
  }
};

}  // namespace gpu_test
