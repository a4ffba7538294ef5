// tests/gpu/kernels.hpp — the kernels the GPU suites launch, defined in tests/gpu/kernels.cu.
//
// Test cases are compiled by the host compiler only (Catch2 never goes through nvcc, whose front end
// can take minutes on Catch2 v3's macros); the kernels live in one thin .cu file. A __global__
// function defined in a named namespace has a host stub with ordinary external linkage, so test code
// declares it as a plain function (GPU_KERNEL is empty outside nvcc) and hands its address to
// add_kernel or to launch_kernel (gpu_support.hpp). Kernels must not be templates: an explicit
// instantiation exports no linkable stub.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#ifdef __CUDACC__
#define GPU_KERNEL __global__
#else
#define GPU_KERNEL
#endif

namespace gpu_test {

/// A kernel parameter of several scalar types (node_kinds_test: argument packing).
struct Mixed {
  int i;
  float f;
  double d;
};

// ---- elementwise, one thread per element ---------------------------------------------------------

/// x *= factor
GPU_KERNEL void scale_by(float* x, float factor, int n);
/// x *= *factor
GPU_KERNEL void scale_by_value(float* x, const float* factor, int n);
/// x += c
GPU_KERNEL void add_scalar(float* x, float c, int n);
/// y += x
GPU_KERNEL void add_into(float* y, const float* x, int n);
/// out = a + b
GPU_KERNEL void add2(float* out, const float* a, const float* b, int n);
/// out = m * in + c
GPU_KERNEL void affine(float* out, const float* in, float m, float c, int n);
/// y = a * x + b
GPU_KERNEL void axpb(float* y, const float* x, float a, float b, int n);
/// y = a * x - b (a different function of axpb's signature)
GPU_KERNEL void axmb(float* y, const float* x, float a, float b, int n);
/// y = a * x + b with a std::size_t count
GPU_KERNEL void axpb_sized(float* y, const float* x, float a, float b, std::size_t n);
/// x = 3 x + b
GPU_KERNEL void triple_plus(float* x, float b, int n);
/// out = 3 in + 1 (ints; the device health check)
GPU_KERNEL void health_triple(int* out, const int* in, int n);

// ---- slow nodes: every thread spins ~spin ns (global timer) first ---------------------------------

/// out = m * in + c (in may equal out)
GPU_KERNEL void spin_affine(float* out, const float* in, float m, float c, unsigned long long spin, int n);
/// v += x
GPU_KERNEL void spin_accumulate(float* v, const float* x, unsigned long long spin, int n);
/// only spins (one thread is enough)
GPU_KERNEL void spin_kernel(unsigned long long ns);

// ---- single cells and conditions ----------------------------------------------------------------

/// ++*counter; sets `more` to counter < limit
GPU_KERNEL void step_and_check(unsigned* counter, unsigned limit, cudaGraphConditionalHandle more);
GPU_KERNEL void write_marker(int* marker, int value);
/// *sum += *value
GPU_KERNEL void sum_into(unsigned* sum, const unsigned* value);
/// sets h to 1 when *value is even, else 0
GPU_KERNEL void set_if_even(cudaGraphConditionalHandle h, const unsigned* value);
/// sets h to *value
GPU_KERNEL void set_from(cudaGraphConditionalHandle h, const int* value);
/// *counter += 1
GPU_KERNEL void increment(int* counter);

// ---- launch configuration and node-kind specifics -----------------------------------------------

/// Reverses `in` through dynamic shared memory of n floats (one block).
GPU_KERNEL void smem_reverse(float* out, const float* in, int n);
/// x += v, limited to 64 threads per block (__launch_bounds__(64))
GPU_KERNEL void bounded_add(float* x, float v, int n);
/// x += v through dynamic shared memory (used without raising its limit)
GPU_KERNEL void smem_add(float* x, float v, int n);
/// The same, for the case that raises its limit to the device maximum (the attribute is per process).
GPU_KERNEL void smem_add_raised(float* x, float v, int n);
/// out[0..9] = the arguments, converted to double
GPU_KERNEL void mixed_args(double* out, char c, double d, short s, long long l, float f, Mixed m, unsigned u,
                           std::uint8_t b);
/// Adds 1 to every element of a pitched 3-D float array of w x h x d elements.
GPU_KERNEL void add_one_3d(cudaPitchedPtr p, int w, int h, int d);

// ---- threads_test --------------------------------------------------------------------------------

/// d[i] = base + i
GPU_KERNEL void fill_pattern(int* d, int base, int n);
/// d[i] += value
GPU_KERNEL void add_value(int* d, int value, int n);
/// Counts the elements checked and the ones that differ from base + i.
GPU_KERNEL void verify_pattern(const int* d, int base, int n, unsigned long long* checked, unsigned long long* wrong);

// ---- reliability_test ----------------------------------------------------------------------------

/// x[i] = v
GPU_KERNEL void rel_fill(float* x, float v, int n);
/// *out = 1 (takes a conditional handle it does not use: a kernel with a Condition parameter)
GPU_KERNEL void rel_set_flag(cudaGraphConditionalHandle h, int* out);
/// Spins for `ms` milliseconds.
GPU_KERNEL void rel_spin(int ms);

// ---- symbol_copy_test ----------------------------------------------------------------------------

/// The __device__ array `table` of 64 floats, as the runtime API takes a symbol (the variable).
float (&symbol_table())[64];
/// The __constant__ float `scale_constant`.
float& symbol_scale();
/// out[i] = table[i]
GPU_KERNEL void read_symbol_table(float* out, int n);
/// x[i] *= scale_constant
GPU_KERNEL void scale_by_symbol(float* x, int n);

}  // namespace gpu_test
