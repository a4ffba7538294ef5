// Compiling across cudaDeviceReset: graphdsl keeps, per thread, the CUfunction of the kernels it
// added last, keyed by the context's unique id. A reset destroys the device's primary context (and
// every function handle of it) and the next CUDA call makes a new one, which may get the old
// handle back but never the old id: a plan compiled after the reset must add its kernels with
// functions of the new context. Run by CTest as gpu_device_reset, a process of its own (the reset
// frees every allocation of the process).
#include <random>
#include <vector>

#include "gpu_support.hpp"
#include "kernels.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace device_reset_test {

namespace {

constexpr int N = 1024;

/// Compiles a two-kernel plan (y = 3x + 1, then y = 2y + 0.5 through axpb in place) and checks y.
void compile_and_check(const char* when) {
  INFO(when);
  std::mt19937 gen = rng(131);
  const std::vector<float> hx = random_floats(N, gen);
  DeviceBuffer<float> x(hx);
  DeviceBuffer<float> y(N);
  gd::Graph g("reset");
  auto first = g.add_kernel(axpb, gd::cover(N), y.get(), x.get(), 3.0f, 1.0f, N).name("first");
  g.add_kernel(axpb, gd::cover(N), y.get(), static_cast<const float*>(y.get()), 2.0f, 0.5f, N).name("second").after(first);
  gd::Executable exec = g.instantiate();
  Stream s;
  exec.launch(s);
  exec.synchronize(s);
  const std::vector<float> got = y.download();
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += got[i] != 2.0f * (3.0f * hx[i] + 1.0f) + 0.5f;
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("a plan compiled after cudaDeviceReset adds its kernels with functions of the new context",
          "[.][gpu][device_reset]") {
  compile_and_check("before the reset");
  for (int round = 0; round < 3; ++round) {
    GPU_REQUIRE(cudaDeviceSynchronize());
    GPU_REQUIRE(cudaDeviceReset());
    compile_and_check("after a reset");
  }
}

}  // namespace device_reset_test
