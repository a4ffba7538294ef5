// GPU test of a real library call captured into an explicit plan: a cuBLAS SGEMM between
// graphdsl kernel nodes, checked against a CPU GEMM. Its own binary, so that only it needs cuBLAS.
#include <cmath>
#include <random>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "kernels.hpp"

namespace gd = graphdsl;

namespace {

using gpu_test::add_scalar;
using gpu_test::scale_by;

#define REQUIRE_CUDA(call) REQUIRE((call) == cudaSuccess)
#define REQUIRE_CUBLAS(call) REQUIRE((call) == CUBLAS_STATUS_SUCCESS)

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
