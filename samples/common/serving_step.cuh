// samples/common/serving_step.cuh — a decode-like step for the serving sample and the benchmark's
// shapes section: `layers` layers of (GEMM, bias + tanh, an attention-like reduction over a small
// context, residual add) over `rows` batch rows of width H, after a copy of the input rows. Every
// node's launch shape and arguments follow the batch size, so the steps of two batch sizes have the
// same topology and differ in every node's parameters: 1 + 4 * layers nodes, all of them changed
// between two sizes.
//
// Rows are independent: row r of the output depends on row r of the input alone, with the same
// arithmetic whatever the batch size, so a step run for a larger (padded) batch or through another
// executable gives bit-identical rows, and results are compared with ==.
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <graphdsl/dispatch.hpp>
#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace serving {

namespace gd = graphdsl;

constexpr int H = 64;           ///< row width
constexpr int C = 16;           ///< context rows of the attention-like reduction
constexpr int max_batch = 128;  ///< the largest batch size
constexpr int block = 128;

/// y[r][h] = sum_k x[r][k] w[k][h] for r < rows (one thread per output).
__global__ void gemm_rows(float* y, const float* x, const float* w, int rows) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows * H) return;
  const int r = t / H, h = t % H;
  float acc = 0.0f;
  for (int k = 0; k < H; ++k) acc += x[r * H + k] * w[k * H + h];
  y[t] = acc;
}

/// y = tanh(y + bias) for the first rows rows.
__global__ void bias_tanh(float* y, const float* bias, int rows) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * H) y[t] = tanhf(y[t] + bias[t % H]);
}

/// out[r][h] = sum_j softmax_j(q_r . keys_j / 8) values[j][h] for r < rows (each thread computes its
/// row's C scores itself: no shared state, the same arithmetic at every batch size).
__global__ void attend(float* out, const float* q, const float* keys, const float* values, int rows) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows * H) return;
  const int r = t / H, h = t % H;
  float score[C];
  float top = -1e30f;
  for (int j = 0; j < C; ++j) {
    float s = 0.0f;
    for (int k = 0; k < H; ++k) s += q[r * H + k] * keys[j * H + k];
    score[j] = s * 0.125f;
    top = fmaxf(top, score[j]);
  }
  float num = 0.0f, den = 0.0f;
  for (int j = 0; j < C; ++j) {
    const float e = expf(score[j] - top);
    num += e * values[j * H + h];
    den += e;
  }
  out[t] = num / den;
}

/// x += 0.5 a for the first rows rows.
__global__ void residual(float* x, const float* a, int rows) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * H) x[t] += 0.5f * a[t];
}

/// log[*step][..rows * H] = x[..rows * H] (the device loop's record of each step's output).
__global__ void store_rows(float* log, const float* x, const int* step, int rows) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * H) log[static_cast<std::size_t>(*step) * max_batch * H + t] = x[t];
}

/// One thread: ++*step; while *step < k, *size = sizes[*step]; the loop goes on while *step < k.
__global__ void next_size(int* step, const int* sizes, int* size, cudaGraphConditionalHandle more, int k) {
  const int s = ++*step;
  if (s < k) *size = sizes[s];
  cudaGraphSetConditional(more, s < k ? 1u : 0u);
}

/// One thread: ++*step; while *step < k, *size = sizes[*step] (the host loop over a dispatch graph).
__global__ void advance_size(int* step, const int* sizes, int* size, int k) {
  const int s = ++*step;
  if (s < k) *size = sizes[s];
}

/// A launch covering rows * H threads.
inline gd::Launch rows_launch(int rows) {
  return gd::Launch{static_cast<unsigned>((rows * H + block - 1) / block), static_cast<unsigned>(block)};
}

/// The weights (per layer: W (H x H), bias (H), keys and values (C x H)), the input rows and the
/// step's working rows, in device memory.
struct Model {
  int layers = 0;
  float* w = nullptr;
  float* bias = nullptr;
  float* keys = nullptr;
  float* values = nullptr;
  float* x0 = nullptr;  ///< the input rows (max_batch x H)
  float* x = nullptr;   ///< the step's state rows (its output)
  float* y = nullptr;
  float* att = nullptr;

  /// Placeholder addresses (never dereferenced): plans built from them validate and print without a GPU.
  static Model placeholder(int layers) {
    Model m;
    m.layers = layers;
    auto at = [](std::size_t a) { return reinterpret_cast<float*>(a); };
    m.w = at(0x100000);
    m.bias = at(0x200000);
    m.keys = at(0x300000);
    m.values = at(0x400000);
    m.x0 = at(0x500000);
    m.x = at(0x600000);
    m.y = at(0x700000);
    m.att = at(0x800000);
    return m;
  }

  /// Allocates and fills with seeded random values.
  static Model create(int layers, unsigned seed = 7) {
    Model m;
    m.layers = layers;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    auto fill = [&](float*& p, std::size_t n, float scale) {
      std::vector<float> h(n);
      for (float& v : h) v = scale * d(gen);
      CUDA_CHECK(cudaMalloc(&p, n * sizeof(float)));
      CUDA_CHECK(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    };
    const std::size_t L = static_cast<std::size_t>(layers);
    fill(m.w, L * H * H, 0.25f);
    fill(m.bias, L * H, 0.1f);
    fill(m.keys, L * C * H, 0.5f);
    fill(m.values, L * C * H, 1.0f);
    fill(m.x0, static_cast<std::size_t>(max_batch) * H, 1.0f);
    fill(m.x, static_cast<std::size_t>(max_batch) * H, 0.0f);
    fill(m.y, static_cast<std::size_t>(max_batch) * H, 0.0f);
    fill(m.att, static_cast<std::size_t>(max_batch) * H, 0.0f);
    return m;
  }

  void destroy() {
    for (float* p : {w, bias, keys, values, x0, x, y, att}) (void)cudaFree(p);
    *this = Model{};
  }
};

/// What add_step added: its first node (the input copy) and its last (the last residual add).
struct StepNodes {
  gd::Node first, last;
};

/// Adds the step for `rows` batch rows to `g` (a plan or a conditional body): copy x0 -> x, then per
/// layer gemm -> bias_tanh -> attend -> residual, each after the one before.
inline StepNodes add_step(gd::Graph& g, const Model& m, int rows) {
  const gd::Launch launch = rows_launch(rows);
  StepNodes s;
  gd::Node prev = g.add_memcpy(m.x, m.x0, static_cast<std::size_t>(rows) * H, cudaMemcpyDeviceToDevice).name("input");
  s.first = prev;
  for (int l = 0; l < m.layers; ++l) {
    const std::size_t L = static_cast<std::size_t>(l);
    const std::string n = "L" + std::to_string(l);
    auto mm = g.add_kernel(gemm_rows, launch, m.y, m.x, m.w + L * H * H, rows).name(n + " gemm").after(prev);
    auto act = g.add_kernel(bias_tanh, launch, m.y, m.bias + L * H, rows).name(n + " bias+tanh").after(mm);
    auto at = g.add_kernel(attend, launch, m.att, m.y, m.keys + L * C * H, m.values + L * C * H, rows)
                  .name(n + " attend")
                  .after(act);
    prev = g.add_kernel(residual, launch, m.x, m.att, rows).name(n + " residual").after(at);
  }
  s.last = prev;
  return s;
}

/// The step for `rows` rows as a plan of its own.
inline gd::Graph step_plan(const Model& m, int rows) {
  gd::Graph g("step b=" + std::to_string(rows));
  g.reserve(static_cast<std::size_t>(1 + 4 * m.layers));
  add_step(g, m, rows);
  return g;
}

/// The batch sizes served: 1, 2, 4, ..., 128.
inline std::vector<int> batch_sizes() { return {1, 2, 4, 8, 16, 32, 64, 128}; }

/// `k` sizes drawn from batch_sizes() with a fixed seed, each different from the one before.
inline std::vector<int> changing_sizes(int k, unsigned seed = 11) {
  std::mt19937 gen(seed);
  const std::vector<int> b = batch_sizes();
  std::vector<int> out;
  while (static_cast<int>(out.size()) < k) {
    const int s = b[gen() % b.size()];
    if (out.empty() || out.back() != s) out.push_back(s);
  }
  return out;
}

/// Device memory of the device-side loop: the K sizes, the current size and step, and the log of
/// each step's output rows (K x max_batch x H).
struct LoopState {
  int* sizes = nullptr;
  int* size = nullptr;
  int* step = nullptr;
  float* log = nullptr;
  int k = 0;

  static LoopState create(const std::vector<int>& host_sizes) {
    LoopState s;
    s.k = static_cast<int>(host_sizes.size());
    CUDA_CHECK(cudaMalloc(&s.sizes, host_sizes.size() * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(s.sizes, host_sizes.data(), host_sizes.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc(&s.size, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&s.step, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&s.log, host_sizes.size() * max_batch * H * sizeof(float)));
    return s;
  }
  void destroy() {
    (void)cudaFree(sizes);
    (void)cudaFree(size);
    (void)cudaFree(step);
    (void)cudaFree(log);
    *this = LoopState{};
  }
};

/// The buckets of the device-side dispatch: one per batch size (bucket i holds the sizes above the
/// previous size up to batch_sizes()[i]), the working rows declared so that validate() checks that
/// each bucket's step fits them.
inline gd::Buckets size_buckets() {
  gd::Buckets b(1, max_batch, batch_sizes());
  b.buffer("x", static_cast<std::size_t>(max_batch) * H, H).buffer("y", static_cast<std::size_t>(max_batch) * H, H);
  return b;
}

/// K steps of changing batch sizes in one launch: the first size and step 0 set, then a WHILE whose
/// body dispatches on the device to the step of the size's bucket (run for the bucket's largest
/// size), records the output rows, and moves to the next size. `record` false leaves the record out
/// (for timing the steps alone).
inline gd::Graph loop_plan(const Model& m, const LoopState& st, bool record = true) {
  gd::Graph g("decode loop");
  auto first = g.add_memcpy(st.size, st.sizes, 1, cudaMemcpyDeviceToDevice).name("first size");
  auto zero = g.add_memset(st.step, 0, 1).name("step 0");
  gd::Condition more = g.add_condition(1);
  const gd::Buckets buckets = size_buckets();
  g.add_while(more, [&](gd::Graph& body) {
     gd::Dispatch d = gd::dispatch(body, "by batch size", st.size, buckets, [&](const gd::Bucket& b, gd::Graph& step) {
       const StepNodes s = add_step(step, m, b.upper);
       if (record) step.add_kernel(store_rows, rows_launch(b.upper), st.log, m.x, st.step, b.upper).name("record").after(s.last);
     });
     body.add_kernel(next_size, gd::Launch{1, 1}, st.step, st.sizes, st.size, more, st.k).name("next size").after(d.node);
   })
      .name("steps")
      .after(first, zero);
  return g;
}

/// One step per launch, its bucket chosen on the device: dispatch(size) then the next size. The host
/// launches it K times (after setting *step = 0 and *size = sizes[0]), with no read-back.
inline gd::Graph switch_plan(const Model& m, const LoopState& st) {
  gd::Graph g("one dispatched step");
  const gd::Buckets buckets = size_buckets();
  gd::Dispatch d = gd::dispatch(g, "by batch size", st.size, buckets,
                                [&](const gd::Bucket& b, gd::Graph& step) { add_step(step, m, b.upper); });
  g.add_kernel(advance_size, gd::Launch{1, 1}, st.step, st.sizes, st.size, st.k).name("next size").after(d.node);
  return g;
}

}  // namespace serving
