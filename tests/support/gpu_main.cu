// tests/support/gpu_main.cu — entry point of the GPU suites. Without a usable CUDA device it prints
// "skipped: no CUDA device" (or, for the multi-GPU suite, "skipped: needs 2 GPUs") and exits with
// 77, which CTest counts as skipped (SKIP_RETURN_CODE).
#include <cstdio>

#include <cuda_runtime_api.h>

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

// How many devices the suite needs (the multi-GPU suite is built with GRAPHDSL_TEST_GPUS=2; with
// fewer it prints "skipped: needs 2 GPUs").
#ifndef GRAPHDSL_TEST_GPUS
#define GRAPHDSL_TEST_GPUS 1
#endif

int main(int argc, char* argv[]) {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device (%s)\n", rc == cudaSuccess ? "0 devices" : cudaGetErrorString(rc));
    return 77;
  }
  if (devices < GRAPHDSL_TEST_GPUS) {
    std::printf("skipped: needs %d GPUs (found %d)\n", GRAPHDSL_TEST_GPUS, devices);
    return 77;
  }
  for (int d = 0; d < GRAPHDSL_TEST_GPUS; ++d) {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, d);
    std::printf("GPU suite: device %d is %s (sm_%d%d)\n", d, prop.name, prop.major, prop.minor);
  }
  return Catch::Session().run(argc, argv);
}
