// tests/support/gpu_session.cpp — what every GPU suite's main does (gpu_session.hpp): the device
// check that skips with 77, then the Catch2 session (catch_session.cpp). Compiled once, by the
// host compiler.
#include "gpu_session.hpp"

#include <cstdio>

#include <cuda_runtime_api.h>

#include "catch_session.hpp"

namespace test_support {

int run_gpu_suite(int argc, char* argv[], int required_gpus) {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device (%s)\n", rc == cudaSuccess ? "0 devices" : cudaGetErrorString(rc));
    return 77;
  }
  if (devices < required_gpus) {
    std::printf("skipped: needs %d GPUs (found %d)\n", required_gpus, devices);
    return 77;
  }
  for (int d = 0; d < required_gpus; ++d) {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, d);
    std::printf("GPU suite: device %d is %s (sm_%d%d)\n", d, prop.name, prop.major, prop.minor);
  }
  return run_catch(argc, argv);
}

}  // namespace test_support
