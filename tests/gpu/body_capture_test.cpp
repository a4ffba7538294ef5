// Captured nodes inside conditional bodies: the work is captured into a graph of its own and
// embedded as a child node, so a capture that fails inside a body is a CudaError naming the node
// (capturing straight into a body and invalidating the capture crashes the driver: CUDA 13.0,
// driver 580, H200).
#include "gpu_support.hpp"

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N and Buffers would collide with other files'.
namespace body_capture_test {

namespace {
constexpr int N = 4096;
}  // namespace

TEST_CASE("a captured node inside an IF body runs its captured work", "[gpu][capture][conditional]") {
  auto gen = gpu_test::rng(951);
  const std::vector<float> host = gpu_test::random_floats(N, gen);
  gpu_test::DeviceBuffer<float> x(host);
  gd::Graph g("if capture");
  auto cond = g.add_condition(1);  // reset to 1 at each launch: the body always runs
  g.add_if(cond, [&](gd::Graph& body) {
     body.add_captured([&](cudaStream_t s) { gpu_test::launch_kernel(gpu_test::scale_by, (N + 255) / 256, 256, 0, s, x.get(), 2.0f, N); }).name("double");
   }).name("if");
  gd::Executable exec = g.instantiate();
  gpu_test::Stream stream;
  exec.launch(stream);
  exec.launch(stream);
  exec.synchronize(stream);
  std::vector<float> want(host);
  for (float& v : want) v *= 4.0f;
  gpu_test::require_equal(x.download(), want, "captured work ran in the body at each launch");
}

TEST_CASE("a capture invalidated inside a WHILE body is a CudaError naming the node, not a crash",
          "[gpu][capture][conditional][fault]") {
  gpu_test::DeviceBuffer<float> x(N);
  cudaError_t inner = cudaSuccess;
  {
    gd::Graph g("loop");
    auto cond = g.add_condition(0);
    g.add_while(cond, [&](gd::Graph& body) {
       body.add_captured([&](cudaStream_t s) {
             void* p = nullptr;
             inner = cudaMalloc(&p, 4096);  // not allowed while this thread captures
             gpu_test::launch_kernel(gpu_test::scale_by, (N + 255) / 256, 256, 0, s, x.get(), 2.0f, N);
           })
           .name("alloc");
     }).name("while");
    try {
      (void)g.instantiate();
      FAIL("instantiate() should have thrown");
    } catch (const gd::CudaError& e) {
      INFO(e.what());
      CHECK(e.code() == cudaErrorStreamCaptureInvalidated);
      CHECK(e.api() == "cudaStreamEndCapture");
      REQUIRE(e.node());
      CHECK(e.node()->name == "alloc");
      CHECK_THAT(std::string(e.what()),
                 has_substr("captured node 'alloc' (#0) in body 0 (while body) of conditional node 'while' (#0) of "
                            "graph 'loop'; the capture was invalidated inside the captured function"));
    }
  }
  CHECK(inner != cudaSuccess);
  (void)cudaGetLastError();  // the user's own failed cudaMalloc
  void* p = nullptr;
  GPU_REQUIRE(cudaMalloc(&p, 1024));  // the thread is not left capturing
  GPU_REQUIRE(cudaFree(p));
}

}  // namespace body_capture_test
