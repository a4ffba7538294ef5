// tests/multi_gpu/main.cu — entry point of the multi-GPU suite: it needs two devices. With fewer it
// prints "skipped: needs 2 GPUs" (or "skipped: no CUDA device") and exits with 77, which CTest
// counts as skipped.
#include <cstdio>

#include <cuda_runtime_api.h>

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int main(int argc, char* argv[]) {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device (%s)\n", rc == cudaSuccess ? "0 devices" : cudaGetErrorString(rc));
    return 77;
  }
  if (devices < 2) {
    std::printf("skipped: needs 2 GPUs (found %d)\n", devices);
    return 77;
  }
  for (int d = 0; d < 2; ++d) {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, d);
    std::printf("multi-GPU suite: device %d is %s (sm_%d%d)\n", d, prop.name, prop.major, prop.minor);
  }
  return Catch::Session().run(argc, argv);
}
