// tests/support/gpu_session.cpp — what every GPU suite's main does (gpu_session.hpp): the device
// check that skips with 77, then the Catch2 session. Compiled once, by the host compiler; with
// Catch2 v2 it also holds Catch's implementation.
#include "gpu_session.hpp"

#include <cstdio>

#include <cuda_runtime_api.h>

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

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
  return Catch::Session().run(argc, argv);
}

}  // namespace test_support
