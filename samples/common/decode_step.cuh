// samples/common/decode_step.cuh — the re-capture loop of an LLM decode step, for the decode_step
// sample (with cuBLAS GEMMs) and the benchmark's adopt section (with a plain matrix-vector kernel).
//
// The step is stream work as a model runtime issues it: `layers` layers of 31 small kernels (one of
// them reads the KV-cache slot of the current position, so one pointer argument per layer moves from
// step to step) and, every 8th layer, a GEMM and a mix kernel; a copy in and a copy out. 32 layers
// give 1,002 nodes (992 small kernels, 4 GEMMs), 7 layers 221. run_ways() steps it in four ways,
// interleaved step by step, every result checked against a CPU reference:
//   raw      re-capture + cudaGraphExecUpdate (re-instantiating when refused): llama.cpp's way
//   adopt    re-capture + graphdsl::adopt + Executable::update: patches only the moved kernels
//   setter   the plan adopted once; each step Executable::set_kernel_arg on the known nodes
//   raw set  cudaGraphExecKernelNodeSetParams on the native nodes, handles kept (raw CUDA's floor)
// and then a step whose shape alternates (an extra kernel every other step): raw CUDA's update is
// refused and it re-instantiates; graphdsl keeps an executable per shape (ExecutableCache keyed by
// the adopted plan's fingerprint) and updates it.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <graphdsl/adopt.hpp>
#include <graphdsl/cache.hpp>
#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace decode {

namespace gd = graphdsl;

constexpr int H = 256;          ///< hidden size
constexpr int per_layer = 29;   ///< bias kernels per layer
constexpr int positions = 128;  ///< KV-cache slots

__global__ void shrink(float* h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = 0.5f * h[i] + 0.25f;
}
__global__ void add_bias(float* h, const float* bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] += bias[i];
}
__global__ void attend(float* h, const float* kv_slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] += 0.125f * kv_slot[i];
}
__global__ void mix(float* h, const float* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = 0.75f * h[i] + 0.25f * g[i];
}
__global__ void extra_scale(float* h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] *= 1.0f;
}
/// g = W h, W column-major H x H (one thread per row): the GEMM where cuBLAS is not linked.
__global__ void matvec(float* g, const float* w, const float* h, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float acc = 0.0f;
  for (int c = 0; c < n; ++c) acc += w[r + c * n] * h[c];
  g[r] = acc;
}

/// Issues g = W h on a stream (cuBLAS in the sample, matvec in the benchmark).
using Gemm = void (*)(void* context, cudaStream_t s, const float* w, const float* h, float* g);

inline void plain_gemm(void*, cudaStream_t s, const float* w, const float* h, float* g) {
  matvec<<<(H + 127) / 128, 128, 0, s>>>(g, w, h, H);
}

/// The model's device state and the step's stream work.
struct Model {
  int layers;
  Gemm gemm;
  void* gemm_context;
  float *x = nullptr, *h = nullptr, *g = nullptr, *out = nullptr, *bias = nullptr, *kv = nullptr, *w = nullptr;
  std::vector<float> hx, hbias, hkv, hw;

  Model(int layer_count, Gemm gemm_fn = &plain_gemm, void* context = nullptr)
      : layers(layer_count), gemm(gemm_fn), gemm_context(context) {
    hx.resize(H);
    hbias.resize(std::size_t(layers) * per_layer * H);
    hkv.resize(std::size_t(positions) * H);
    hw.resize(std::size_t((layers + 7) / 8) * H * H);
    for (int i = 0; i < H; ++i) hx[i] = std::sin(0.1f * i);
    for (std::size_t i = 0; i < hbias.size(); ++i) hbias[i] = 0.001f * static_cast<float>(i % 7) - 0.003f;
    for (std::size_t i = 0; i < hkv.size(); ++i) hkv[i] = std::cos(0.01f * static_cast<float>(i));
    for (std::size_t i = 0; i < hw.size(); ++i) hw[i] = (static_cast<float>(i % 13) - 6.0f) / (13.0f * H);
    x = upload(hx);
    bias = upload(hbias);
    kv = upload(hkv);
    w = upload(hw);
    CUDA_CHECK(cudaMalloc(&h, H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&g, H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, H * sizeof(float)));
  }
  ~Model() {
    for (float* p : {x, h, g, out, bias, kv, w}) (void)cudaFree(p);
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  static float* upload(const std::vector<float>& v) {
    float* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, v.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
    return p;
  }

  /// The KV-cache slot layer l reads at position `pos`.
  const float* slot(int pos, int l) const { return kv + std::size_t((pos + l) % positions) * H; }

  /// The step's work at KV position `pos`; `extra` adds one kernel (the alternating shape).
  void issue(cudaStream_t s, int pos, bool extra = false) const {
    const dim3 grid((H + 127) / 128), block(128);
    cudaMemcpyAsync(h, x, H * sizeof(float), cudaMemcpyDeviceToDevice, s);
    for (int l = 0; l < layers; ++l) {
      shrink<<<grid, block, 0, s>>>(h, H);
      for (int j = 0; j < per_layer; ++j) {
        add_bias<<<grid, block, 0, s>>>(h, bias + (std::size_t(l) * per_layer + j) * H, H);
      }
      attend<<<grid, block, 0, s>>>(h, slot(pos, l), H);
      if (l % 8 == 0) {
        gemm(gemm_context, s, w + std::size_t(l / 8) * H * H, h, g);
        mix<<<grid, block, 0, s>>>(h, g, H);
      }
      if (extra && l == 0) extra_scale<<<grid, block, 0, s>>>(h, H);
    }
    cudaMemcpyAsync(out, h, H * sizeof(float), cudaMemcpyDeviceToDevice, s);
  }

  /// The step on the CPU.
  std::vector<float> reference(int pos) const {
    std::vector<float> v = hx, t(H);
    for (int l = 0; l < layers; ++l) {
      for (float& e : v) e = 0.5f * e + 0.25f;
      for (int j = 0; j < per_layer; ++j) {
        const float* b = hbias.data() + (std::size_t(l) * per_layer + j) * H;
        for (int i = 0; i < H; ++i) v[i] += b[i];
      }
      const float* kv_slot = hkv.data() + std::size_t((pos + l) % positions) * H;
      for (int i = 0; i < H; ++i) v[i] += 0.125f * kv_slot[i];
      if (l % 8 == 0) {
        const float* m = hw.data() + std::size_t(l / 8) * H * H;  // column-major H x H
        for (int r = 0; r < H; ++r) {
          double acc = 0;
          for (int c = 0; c < H; ++c) acc += double(m[r + std::size_t(c) * H]) * v[c];
          t[r] = static_cast<float>(acc);
        }
        for (int i = 0; i < H; ++i) v[i] = 0.75f * v[i] + 0.25f * t[i];
      }
    }
    return v;
  }

  /// Whether `out` holds the reference of `pos`.
  bool check(int pos) const {
    std::vector<float> got(H);
    CUDA_CHECK(cudaMemcpy(got.data(), out, H * sizeof(float), cudaMemcpyDeviceToHost));
    const std::vector<float> want = reference(pos);
    for (int i = 0; i < H; ++i) {
      if (std::fabs(got[i] - want[i]) > 1e-3f * (1.0f + std::fabs(want[i]))) return false;
    }
    return true;
  }
};

inline cudaGraph_t capture(cudaStream_t s, const Model& m, int pos, bool extra = false) {
  cudaGraph_t g = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  m.issue(s, pos, extra);
  CUDA_CHECK(cudaStreamEndCapture(s, &g));
  return g;
}

/// llama.cpp's way: re-capture, one whole-graph cudaGraphExecUpdate, re-instantiate when refused.
struct RawWay {
  cudaGraphExec_t exec = nullptr;
  int reinstantiated = 0;
  RawWay() = default;
  RawWay(const RawWay&) = delete;
  RawWay& operator=(const RawWay&) = delete;
  ~RawWay() {
    if (exec != nullptr) (void)cudaGraphExecDestroy(exec);
  }
  void step(cudaStream_t s, const Model& m, int pos, bool extra = false) {
    cudaGraph_t g = capture(s, m, pos, extra);
    cudaGraphExecUpdateResultInfo info{};
    if (exec == nullptr || cudaGraphExecUpdate(exec, g, &info) != cudaSuccess) {
      (void)cudaGetLastError();
      if (exec != nullptr) {
        CUDA_CHECK(cudaGraphExecDestroy(exec));
        ++reinstantiated;
      }
      CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    }
    CUDA_CHECK(cudaGraphDestroy(g));
  }
};

/// Host times per step (microseconds, one per step) of each way, and what was checked.
struct Results {
  std::size_t nodes = 0, edges = 0, moving = 0;  ///< the adopted plan; the kernels whose pointer moves
  std::vector<double> raw, adopt_update, setter, raw_setter, adopt_only, alt_raw, alt_cache;
  int wrong = 0, alt_wrong = 0, patched_max = 0, reinstantiated = 0;
  std::size_t cache_compiled = 0, cache_updated = 0;
};

/// The attend kernels of an adopted step, in layer order.
inline std::vector<gd::Node> attend_nodes(const gd::Graph& plan) {
  std::vector<gd::Node> out;
  for (const gd::Node& n : plan.nodes()) {
    if (n.name().rfind("decode::attend", 0) == 0) out.push_back(n);
  }
  return out;
}

/// The four ways, `steps` steps each, interleaved (each way first in turn); then the alternating shape.
inline Results run_ways(const Model& m, cudaStream_t s, int steps) {
  Results res;
  const gd::Graph first = gd::adopt_capture(s, [&](cudaStream_t st) { m.issue(st, 0); },
                                            cudaStreamCaptureModeThreadLocal, "decode step");
  const std::vector<gd::Node> attends = attend_nodes(first);
  res.nodes = first.node_count();
  res.edges = first.edge_count();
  res.moving = attends.size();
  RawWay raw;
  raw.step(s, m, 0);
  gd::Executable adopted = first.instantiate();
  gd::Executable setter = first.instantiate();
  cudaGraph_t native_once = capture(s, m, 0);
  cudaGraphExec_t raw_set = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&raw_set, native_once, 0));
  std::vector<cudaGraphNode_t> native_attends;
  {
    std::size_t count = 0;
    CUDA_CHECK(cudaGraphGetNodes(native_once, nullptr, &count));
    std::vector<cudaGraphNode_t> all(count);
    CUDA_CHECK(cudaGraphGetNodes(native_once, all.data(), &count));
    for (const gd::Node& n : attends) native_attends.push_back(all[n.index()]);
  }
  for (int step = 1; step <= steps; ++step) {
    const int pos = step % positions;
    for (int k = 0; k < 4; ++k) {
      const int way = (k + step) % 4;
      sample::Stopwatch clock;
      if (way == 0) {
        raw.step(s, m, pos);
        res.raw.push_back(clock.us());
        CUDA_CHECK(cudaGraphLaunch(raw.exec, s));
      } else if (way == 1) {
        const gd::UpdateResult r = adopted.update(gd::adopt_capture(s, [&](cudaStream_t st) { m.issue(st, pos); }));
        res.adopt_update.push_back(clock.us());
        if (!r) std::printf("update refused: %s\n", r.to_string().c_str());
        res.patched_max = std::max(res.patched_max, static_cast<int>(r.patched));
        adopted.launch(s);
      } else if (way == 2) {
        for (std::size_t a = 0; a < attends.size(); ++a) setter.set_kernel_arg(attends[a], 1, m.slot(pos, int(a)));
        res.setter.push_back(clock.us());
        setter.launch(s);
      } else {
        for (std::size_t a = 0; a < native_attends.size(); ++a) {
          float* hp = m.h;
          const float* slot = m.slot(pos, int(a));
          int n = H;
          void* args[] = {&hp, &slot, &n};
          cudaKernelNodeParams p{};
          p.func = reinterpret_cast<void*>(attend);
          p.gridDim = dim3((H + 127) / 128);
          p.blockDim = dim3(128);
          p.kernelParams = args;
          CUDA_CHECK(cudaGraphExecKernelNodeSetParams(raw_set, native_attends[a], &p));
        }
        res.raw_setter.push_back(clock.us());
        CUDA_CHECK(cudaGraphLaunch(raw_set, s));
      }
      CUDA_CHECK(cudaStreamSynchronize(s));
      if (!m.check(pos)) ++res.wrong;
    }
    cudaGraph_t again = capture(s, m, pos);  // adopt alone, on a capture made outside the clock
    sample::Stopwatch clock;
    const gd::Graph plan = gd::adopt(again);
    res.adopt_only.push_back(clock.us());
    CUDA_CHECK(cudaGraphDestroy(again));
  }
  CUDA_CHECK(cudaGraphExecDestroy(raw_set));
  CUDA_CHECK(cudaGraphDestroy(native_once));

  RawWay raw_alt;
  gd::ExecutableCache<std::uint64_t> cache;
  for (int step = 1; step <= steps; ++step) {
    const int pos = step % positions;
    const bool extra = step % 2 == 0;
    for (int k = 0; k < 2; ++k) {
      sample::Stopwatch clock;
      if ((k + step) % 2 == 0) {
        raw_alt.step(s, m, pos, extra);
        res.alt_raw.push_back(clock.us());
        CUDA_CHECK(cudaGraphLaunch(raw_alt.exec, s));
      } else {
        const gd::Graph plan = gd::adopt_capture(s, [&](cudaStream_t st) { m.issue(st, pos, extra); });
        gd::Executable& e = cache.get(plan.fingerprint(), plan);
        res.alt_cache.push_back(clock.us());
        e.launch(s);
      }
      CUDA_CHECK(cudaStreamSynchronize(s));
      if (!m.check(pos)) ++res.alt_wrong;
    }
  }
  res.reinstantiated = raw_alt.reinstantiated;
  res.cache_compiled = cache.stats().compiled;
  res.cache_updated = cache.stats().updated;
  return res;
}

}  // namespace decode
