// samples/decode_step — the re-capture loop of an LLM decode step, four ways in one run
// (samples/common/decode_step.cuh): 32 layers, about 1,000 small kernels and 4 cuBLAS GEMMs, 32
// KV-cache pointers moving per step; re-capture + cudaGraphExecUpdate (llama.cpp's way), re-capture
// + graphdsl::adopt + update(), the adopted plan's set_kernel_arg, and raw CUDA's own setters; then a
// step whose shape alternates. Every result is checked against a CPU reference. Printed: host time
// per step (medians of 100 steps, launch excluded) and the ratios to the raw re-capture loop.
#include <cstdio>

#include <cublas_v2.h>

#include "decode_step.cuh"

namespace {

/// g = W h through cuBLAS (SGEMM with one column), on the stream being captured.
void cublas_gemm(void* context, cudaStream_t s, const float* w, const float* h, float* g) {
  auto handle = static_cast<cublasHandle_t>(context);
  const float one = 1.0f, zero = 0.0f;
  cublasSetStream(handle, s);
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, decode::H, 1, decode::H, &one, w, decode::H, h, decode::H, &zero, g,
              decode::H);
}

void report(const char* name, const std::vector<double>& t, double raw_median) {
  const double m = sample::median(t);
  std::printf("  %-44s %9.1f us  (+-%5.1f%%)  x%.3f of raw\n", name, m, 100.0 * sample::half_spread(t), m / raw_median);
}

}  // namespace

int main() {
  if (sample::cuda_device_count() == 0) return std::puts("decode_step: no CUDA device found; nothing to run"), 0;
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t blas = nullptr;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) return std::puts("decode_step: cublasCreate failed"), 1;
  void* workspace = nullptr;
  CUDA_CHECK(cudaMalloc(&workspace, 32u << 20));
  // The workspace after the stream (setting a stream puts the default workspace back, which cuBLAS
  // would allocate inside the capture: a graph allocation, which adopt() refuses).
  cublasSetStream(blas, s);
  cublasSetWorkspace(blas, workspace, 32u << 20);
  std::printf("decode_step on %s\n", sample::device_summary(0).c_str());
  const int steps = 100;
  decode::Results r;
  {
    const decode::Model m(32, &cublas_gemm, blas);
    r = decode::run_ways(m, s, steps);
  }
  std::printf("adopted: %zu nodes, %zu edges; %zu 'attend' kernels change per step\n", r.nodes, r.edges, r.moving);
  std::printf("%d steps x 4 ways, each result checked against the CPU: %d wrong; update() patched at most %d nodes\n",
              steps, r.wrong, r.patched_max);
  std::printf("host time per step (medians; the launch excluded):\n");
  const double raw = sample::median(r.raw);
  report("raw: re-capture + cudaGraphExecUpdate", r.raw, raw);
  report("graphdsl: re-capture + adopt + update()", r.adopt_update, raw);
  report("graphdsl: adopted once + set_kernel_arg x32", r.setter, raw);
  report("raw: cudaGraphExecKernelNodeSetParams x32", r.raw_setter, raw);
  std::printf("  adopt alone (cudaGraph_t -> Graph): %.1f us for %zu nodes, %.3f us per node\n",
              sample::median(r.adopt_only), r.nodes, sample::median(r.adopt_only) / static_cast<double>(r.nodes));
  std::printf("alternating shape, %d steps x 2 ways: %d wrong; raw re-instantiated %d times; graphdsl compiled %zu, "
              "updated %zu\n",
              steps, r.alt_wrong, r.reinstantiated, r.cache_compiled, r.cache_updated);
  const double alt_raw = sample::median(r.alt_raw);
  report("raw: re-capture + update, re-instantiated", r.alt_raw, alt_raw);
  report("graphdsl: adopt + cache by fingerprint", r.alt_cache, alt_raw);
  cublasDestroy(blas);
  (void)cudaFree(workspace);
  const bool ok = r.wrong == 0 && r.alt_wrong == 0;
  std::printf("decode_step: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
