// tests/gpu/kernels.cu — the kernels of the GPU suites (declared and described in kernels.hpp).
// Thin on purpose: no Catch2, no graphdsl, no test macros; nvcc compiles it in seconds.
#include "kernels.hpp"

#include <cuda_runtime.h>

#include "device_helpers.cuh"

namespace gpu_test {

namespace {
__device__ __forceinline__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }
}  // namespace

// ---- elementwise ---------------------------------------------------------------------------------

__global__ void scale_by(float* x, float factor, int n) {
  const int i = thread_index();
  if (i < n) x[i] *= factor;
}

__global__ void scale_by_value(float* x, const float* factor, int n) {
  const int i = thread_index();
  if (i < n) x[i] *= *factor;
}

__global__ void add_scalar(float* x, float c, int n) {
  const int i = thread_index();
  if (i < n) x[i] += c;
}

__global__ void add_into(float* y, const float* x, int n) {
  const int i = thread_index();
  if (i < n) y[i] += x[i];
}

__global__ void add2(float* out, const float* a, const float* b, int n) {
  const int i = thread_index();
  if (i < n) out[i] = a[i] + b[i];
}

__global__ void affine(float* out, const float* in, float m, float c, int n) {
  const int i = thread_index();
  if (i < n) out[i] = m * in[i] + c;
}

__global__ void axpb(float* y, const float* x, float a, float b, int n) {
  const int i = thread_index();
  if (i < n) y[i] = a * x[i] + b;
}

__global__ void axmb(float* y, const float* x, float a, float b, int n) {
  const int i = thread_index();
  if (i < n) y[i] = a * x[i] - b;
}

__global__ void axpb_sized(float* y, const float* x, float a, float b, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

__global__ void triple_plus(float* x, float b, int n) {
  const int i = thread_index();
  if (i < n) x[i] = 3.0f * x[i] + b;
}

__global__ void health_triple(int* out, const int* in, int n) {
  const int i = thread_index();
  if (i < n) out[i] = 3 * in[i] + 1;
}

// ---- slow nodes ----------------------------------------------------------------------------------

__global__ void spin_affine(float* out, const float* in, float m, float c, unsigned long long spin, int n) {
  spin_ns(spin);
  const int i = thread_index();
  if (i < n) out[i] = m * in[i] + c;
}

__global__ void spin_accumulate(float* v, const float* x, unsigned long long spin, int n) {
  spin_ns(spin);
  const int i = thread_index();
  if (i < n) v[i] += x[i];
}

__global__ void spin_kernel(unsigned long long ns) { spin_ns(ns); }

// ---- single cells and conditions ----------------------------------------------------------------

__global__ void step_and_check(unsigned* counter, unsigned limit, cudaGraphConditionalHandle more) {
  const unsigned c = ++*counter;
  cudaGraphSetConditional(more, c < limit ? 1u : 0u);
}

__global__ void write_marker(int* marker, int value) { *marker = value; }

__global__ void sum_into(unsigned* sum, const unsigned* value) { *sum += *value; }

__global__ void set_if_even(cudaGraphConditionalHandle h, const unsigned* value) {
  cudaGraphSetConditional(h, (*value % 2u) == 0u ? 1u : 0u);
}

__global__ void set_from(cudaGraphConditionalHandle h, const int* value) {
  cudaGraphSetConditional(h, static_cast<unsigned>(*value));
}

__global__ void increment(int* counter) { *counter += 1; }

// ---- launch configuration and node-kind specifics -----------------------------------------------

__global__ void smem_reverse(float* out, const float* in, int n) {
  extern __shared__ float s[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = s[n - 1 - i];
}

__global__ void __launch_bounds__(64) bounded_add(float* x, float v, int n) {
  const int i = thread_index();
  if (i < n) x[i] += v;
}

namespace {
__device__ __forceinline__ void add_through_shared(float* x, float v, int n) {
  extern __shared__ float s[];
  const int i = thread_index();
  if (i < n) s[threadIdx.x] = x[i] + v;
  __syncthreads();
  if (i < n) x[i] = s[threadIdx.x];
}
}  // namespace

__global__ void smem_add(float* x, float v, int n) { add_through_shared(x, v, n); }

__global__ void smem_add_raised(float* x, float v, int n) { add_through_shared(x, v, n); }

__global__ void mixed_args(double* out, char c, double d, short s, long long l, float f, Mixed m, unsigned u,
                           std::uint8_t b) {
  out[0] = c;
  out[1] = d;
  out[2] = s;
  out[3] = static_cast<double>(l);
  out[4] = f;
  out[5] = m.i;
  out[6] = m.f;
  out[7] = m.d;
  out[8] = u;
  out[9] = b;
}

__global__ void add_one_3d(cudaPitchedPtr p, int w, int h, int d) {
  const int x = thread_index();
  const int y = blockIdx.y;
  const int z = blockIdx.z;
  if (x < w && y < h && z < d) {
    char* slice = static_cast<char*>(p.ptr) + static_cast<std::size_t>(z) * p.pitch * h;
    float* row = reinterpret_cast<float*>(slice + static_cast<std::size_t>(y) * p.pitch);
    row[x] += 1.0f;
  }
}

// ---- threads_test --------------------------------------------------------------------------------

__global__ void fill_pattern(int* d, int base, int n) {
  const int i = thread_index();
  if (i < n) d[i] = base + i;
}

__global__ void add_value(int* d, int value, int n) {
  const int i = thread_index();
  if (i < n) d[i] += value;
}

__global__ void verify_pattern(const int* d, int base, int n, unsigned long long* checked, unsigned long long* wrong) {
  const int i = thread_index();
  if (i < n) {
    if (d[i] != base + i) atomicAdd(wrong, 1ull);
    atomicAdd(checked, 1ull);
  }
}

// ---- reliability_test ----------------------------------------------------------------------------

__global__ void rel_fill(float* x, float v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
__global__ void rel_set_flag(cudaGraphConditionalHandle h, int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = 1;
  (void)h;
}
__global__ void rel_spin(int ms) {
  const unsigned long long ns = 1000000ull * static_cast<unsigned long long>(ms);
  spin_ns(ns);
}

// ---- symbol_copy_test ----------------------------------------------------------------------------

__device__ float table[64];
__constant__ float scale_constant;

float (&symbol_table())[64] { return table; }
float& symbol_scale() { return scale_constant; }

__global__ void read_symbol_table(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[i];
}
__global__ void scale_by_symbol(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= scale_constant;
}

}  // namespace gpu_test
