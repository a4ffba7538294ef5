// samples/cublas_capture — a cuBLAS GEMM inside an explicit plan: normalize -> SGEMM -> bias + ReLU,
// where the GEMM is captured from cuBLAS at its place in the DAG. Checked against a CPU result.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>

namespace gd = graphdsl;

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

__global__ void bias_relu(float* c, const float* bias, int rows, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = fmaxf(c[i] + bias[i % rows], 0.0f);
}

int main() {
  const int m = 256, n = 128, k = 512;  // column-major: A m x k, B k x n, C m x n
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(m * k), hb(k * n), hbias(m), hc(m * n);
  for (auto& v : ha) v = dist(gen);
  for (auto& v : hb) v = dist(gen);
  for (auto& v : hbias) v = dist(gen);

  float *a = nullptr, *b = nullptr, *c = nullptr, *bias = nullptr;
  if (cudaMalloc(&a, sizeof(float) * m * k) != cudaSuccess) return std::puts("no CUDA device found"), 0;
  cudaMalloc(&b, sizeof(float) * k * n);
  cudaMalloc(&c, sizeof(float) * m * n);
  cudaMalloc(&bias, sizeof(float) * m);
  void* workspace = nullptr;
  cudaMalloc(&workspace, 32u << 20);
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return std::puts("cublasCreate failed"), 1;
  cublasSetWorkspace(handle, workspace, 32u << 20);  // no allocation while the GEMM is captured
  cudaStream_t s = nullptr;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);

  const float alpha = 1.0f, beta = 0.0f;
  gd::Graph g("dense layer");
  auto load_a = g.add_memcpy(a, ha.data(), m * k).name("load A");
  auto load_b = g.add_memcpy(b, hb.data(), k * n).name("load B");
  auto load_bias = g.add_memcpy(bias, hbias.data(), m).name("load bias");
  auto norm = g.add_kernel(scale, gd::cover(m * k), a, 1.0 / std::sqrt(double(k)), m * k).name("normalize").after(load_a);
  auto gemm = g.add_captured([&](cudaStream_t cs) {
                 cublasSetStream(handle, cs);
                 cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, m, b, k, &beta, c, m);
               })
                  .name("cublasSgemm")
                  .after(norm, load_b);
  auto act = g.add_kernel(bias_relu, gd::cover(m * n), c, static_cast<const float*>(bias), m, m * n)
                 .name("bias + relu")
                 .after(gemm, load_bias);
  g.add_memcpy(hc.data(), c, m * n).name("store C").after(act);
  std::printf("%s", g.dump().c_str());

  gd::Executable exec = g.instantiate();
  exec.launch(s);
  exec.synchronize(s);

  double worst = 0;
  const double norm_factor = 1.0 / std::sqrt(double(k));
  for (int col = 0; col < n; ++col) {
    for (int row = 0; row < m; ++row) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += double(float(ha[row + p * m] * float(norm_factor))) * hb[p + col * k];
      const double want = std::max(acc + hbias[row], 0.0);
      worst = std::max(worst, std::fabs(want - hc[row + col * m]));
    }
  }
  const bool ok = worst < 1e-3;
  std::printf("max abs error vs CPU: %.3g (tolerance 1e-3): %s\n", worst, ok ? "ok" : "FAILED");

  cublasDestroy(handle);
  cudaStreamDestroy(s);
  cudaFree(workspace);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(bias);
  std::printf("cublas_capture: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
