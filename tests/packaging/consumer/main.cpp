// A tiny graphdsl user, compiled as plain C++ (no nvcc): builds a plan, validates it and prints
// its dump. It needs no GPU; with one it also compiles and launches the plan.
#include <cstdio>
#include <exception>

#include <cuda_runtime_api.h>
#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>  // fmt::print of a Graph

namespace gd = graphdsl;

#ifndef GRAPHDSL_CONSUMER_MODE
#define GRAPHDSL_CONSUMER_MODE "unknown"
#endif

int run() {
  fmt::print("graphdsl consumer ({}): graphdsl {}\n", GRAPHDSL_CONSUMER_MODE, gd::version_string);

  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess) devices = 0;
  fmt::print("CUDA devices: {} ({})\n", devices, cudaGetErrorName(rc));

  // Device memory when there is a device; host memory otherwise (the plan is then only validated).
  int host_value = 7;
  int* value = &host_value;
  if (devices > 0 && cudaMalloc(reinterpret_cast<void**>(&value), sizeof(int)) != cudaSuccess) return 1;

  int calls = 0;
  gd::Graph g("consumer");
  auto up = g.add_memcpy(value, &host_value, 1).name("upload");
  gd::Condition positive = g.add_condition(0);
  // The kernel behind add_set_condition is the library's own device code (src/condition_kernels.cu).
  auto test = g.add_set_condition(positive, static_cast<const int*>(value), gd::Compare::greater, 0)
                  .name("test")
                  .after(up);
  auto branch = g.add_if(positive, [&](gd::Graph& body) { body.add_memset(value, 0, 1).name("clear"); })
                    .name("if_positive")
                    .after(test);
  g.add_host([&calls] { ++calls; }).name("count").after(branch);

  g.validate();
  fmt::print("{}", g);
  fmt::print("nodes: {}, edges: {}\n", g.node_count(), g.edge_count());

  if (devices > 0) {
    gd::Executable exec = g.instantiate();
    exec.launch();
    exec.synchronize();
    int result = -1;
    if (cudaMemcpy(&result, value, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    cudaFree(value);
    fmt::print("launched: value {} (expected 0), host node ran {} time(s) (expected 1)\n", result, calls);
    if (result != 0 || calls != 1) return 1;
  }
  fmt::print("graphdsl consumer: ok\n");
  return 0;
}

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "graphdsl consumer: %s\n", e.what());
    return 1;
  }
}
