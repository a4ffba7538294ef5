// GPU test of a real library call captured into an explicit plan: a cuBLAS SGEMM between
// graphdsl kernel nodes, checked against a CPU GEMM. Its own binary, so that only it needs cuBLAS.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <graphdsl/adopt.hpp>
#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "kernels.hpp"

namespace gd = graphdsl;

namespace {

using gpu_test::add_scalar;
using gpu_test::scale_by;

#define REQUIRE_CUDA(call) REQUIRE((call) == cudaSuccess)
#define REQUIRE_CUBLAS(call) REQUIRE((call) == CUBLAS_STATUS_SUCCESS)

/// Launches scale_by(x, 2, n) on `s` (as captured work: cudaLaunchKernel from a .cpp).
void launch_kernel_scale(cudaStream_t s, float* x, int n) {
  float factor = 2.0f;
  void* args[] = {&x, &factor, &n};
  (void)cudaLaunchKernel(reinterpret_cast<const void*>(scale_by), dim3((n + 255) / 256), dim3(256), args, 0, s);
}

}  // namespace

TEST_CASE("a cuBLAS SGEMM captured between graphdsl kernels matches a CPU GEMM", "[gpu][capture][cublas]") {
  const int m = 192, n = 160, k = 224;  // column-major A (m x k), B (k x n), C (m x n)
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);

  float *a = nullptr, *b = nullptr, *c = nullptr, *ha = nullptr, *hb = nullptr, *hc = nullptr;
  void* workspace = nullptr;
  const std::size_t workspace_bytes = 32u << 20;
  REQUIRE_CUDA(cudaMalloc(&a, sizeof(float) * m * k));
  REQUIRE_CUDA(cudaMalloc(&b, sizeof(float) * k * n));
  REQUIRE_CUDA(cudaMalloc(&c, sizeof(float) * m * n));
  REQUIRE_CUDA(cudaMallocHost(&ha, sizeof(float) * m * k));
  REQUIRE_CUDA(cudaMallocHost(&hb, sizeof(float) * k * n));
  REQUIRE_CUDA(cudaMallocHost(&hc, sizeof(float) * m * n));
  REQUIRE_CUDA(cudaMalloc(&workspace, workspace_bytes));
  cublasHandle_t handle = nullptr;
  REQUIRE_CUBLAS(cublasCreate(&handle));
  // A user-provided workspace: cuBLAS then allocates nothing while it is captured.
  REQUIRE_CUBLAS(cublasSetWorkspace(handle, workspace, workspace_bytes));
  cudaStream_t s = nullptr;
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  const float alpha = 1.0f, beta = 0.0f;
  gd::Graph g("gemm");
  auto up_a = g.add_memcpy(a, ha, m * k).name("upload A");
  auto up_b = g.add_memcpy(b, hb, k * n).name("upload B");
  auto twice = g.add_kernel(scale_by, gd::cover(m * k), a, 2.0, m * k).name("A *= 2").after(up_a);
  auto gemm = g.add_captured([&](cudaStream_t cs) {
                 cublasSetStream(handle, cs);
                 cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, m, b, k, &beta, c, m);
               })
                  .name("sgemm")
                  .after(twice, up_b);
  auto plus = g.add_kernel(add_scalar, gd::cover(m * n), c, 1.0f, m * n).name("C += 1").after(gemm);
  g.add_memcpy(hc, c, m * n).name("download C").after(plus);
  gd::Executable exec = g.instantiate();

  for (int launch = 0; launch < 3; ++launch) {
    for (int i = 0; i < m * k; ++i) ha[i] = dist(gen);
    for (int i = 0; i < k * n; ++i) hb[i] = dist(gen);
    exec.launch(s);
    exec.synchronize(s);
    double worst = 0;
    for (int col = 0; col < n; ++col) {
      for (int row = 0; row < m; ++row) {
        double want = 1.0;
        for (int p = 0; p < k; ++p) want += 2.0 * ha[row + p * m] * hb[p + col * k];
        worst = std::max(worst, std::fabs(want - hc[row + col * m]));
      }
    }
    INFO("launch " << launch << ": max abs error " << worst);
    CHECK(worst < 1e-3);
  }
  CHECK(cudaGetLastError() == cudaSuccess);

  REQUIRE_CUBLAS(cublasDestroy(handle));
  cudaStreamDestroy(s);
  cudaFree(workspace);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFreeHost(ha);
  cudaFreeHost(hb);
  cudaFreeHost(hc);
}

TEST_CASE(
    "an adopted cuBLAS capture (a library's kernels, named by their functions) computes the GEMM, and a "
    "re-capture with another output updates only the GEMM's node",
    "[gpu][adopt][cublas]") {
  const int m = 96, n = 64, k = 128;
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(m * k), hb(k * n);
  for (float& v : ha) v = dist(gen);
  for (float& v : hb) v = dist(gen);
  float *a = nullptr, *b = nullptr, *c1 = nullptr, *c2 = nullptr;
  void* workspace = nullptr;
  const std::size_t workspace_bytes = 32u << 20;
  REQUIRE_CUDA(cudaMalloc(&a, sizeof(float) * m * k));
  REQUIRE_CUDA(cudaMalloc(&b, sizeof(float) * k * n));
  REQUIRE_CUDA(cudaMalloc(&c1, sizeof(float) * m * n));
  REQUIRE_CUDA(cudaMalloc(&c2, sizeof(float) * m * n));
  REQUIRE_CUDA(cudaMalloc(&workspace, workspace_bytes));
  REQUIRE_CUDA(cudaMemcpy(a, ha.data(), sizeof(float) * m * k, cudaMemcpyHostToDevice));
  REQUIRE_CUDA(cudaMemcpy(b, hb.data(), sizeof(float) * k * n, cudaMemcpyHostToDevice));
  cublasHandle_t handle = nullptr;
  REQUIRE_CUBLAS(cublasCreate(&handle));
  cudaStream_t s = nullptr;
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // cublasSetStream puts the default workspace back, which cuBLAS allocates in the capture (a graph
  // allocation, which adopt() refuses): the workspace is set after the stream.
  REQUIRE_CUBLAS(cublasSetStream(handle, s));
  REQUIRE_CUBLAS(cublasSetWorkspace(handle, workspace, workspace_bytes));
  const float alpha = 1.0f, beta = 0.0f;
  auto step = [&](float* c) {
    return [&, c](cudaStream_t st) {
      launch_kernel_scale(st, a, m * k);
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, m, b, k, &beta, c, m);
    };
  };
  auto check = [&](float* c, int scaled) {
    std::vector<float> hc(m * n);
    REQUIRE_CUDA(cudaMemcpy(hc.data(), c, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
    double worst = 0;
    const double factor = std::pow(2.0, scaled);
    for (int col = 0; col < n; ++col) {
      for (int row = 0; row < m; ++row) {
        double want = 0.0;
        for (int p = 0; p < k; ++p) want += factor * ha[row + p * m] * hb[p + col * k];
        worst = std::max(worst, std::fabs(want - hc[row + col * m]));
      }
    }
    INFO("max abs error " << worst);
    CHECK(worst < 1e-2);
  };
  // Capture once outside the comparison so that cuBLAS has chosen its kernel.
  (void)gd::adopt_capture(s, step(c1));
  REQUIRE_CUDA(cudaMemcpy(a, ha.data(), sizeof(float) * m * k, cudaMemcpyHostToDevice));
  gd::Graph first = gd::adopt_capture(s, step(c1), cudaStreamCaptureModeThreadLocal, "gemm step");
  REQUIRE(first.node_count() >= 2);
  CHECK(first.node(0).name() == "gpu_test::scale_by");
  bool named_gemm = false;  // cuBLAS's own kernels (one or more), named after their functions
  for (std::uint32_t i = 1; i < first.node_count(); ++i) {
    INFO("node " << i << ": " << first.node(i).name());
    CHECK(first.node(i).kind() == gd::NodeKind::kernel);
    named_gemm = named_gemm || first.node(i).name().find("gemm") != std::string::npos;
  }
  CHECK(named_gemm);
  gd::Executable exec = first.instantiate();
  exec.launch(s);
  exec.synchronize(s);
  check(c1, 1);

  const gd::UpdateResult r = exec.update(gd::adopt_capture(s, step(c2)));
  REQUIRE(r);
  REQUIRE(!r.changed.empty());
  CHECK(r.changed.front() >= 1);  // cuBLAS's kernels took the new output; the scale kernel kept its arguments
  exec.launch(s);
  exec.synchronize(s);
  check(c2, 2);

  REQUIRE_CUBLAS(cublasDestroy(handle));
  cudaStreamDestroy(s);
  cudaFree(workspace);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c1);
  cudaFree(c2);
}
