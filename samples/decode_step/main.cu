// samples/decode_step — the re-capture loop of an LLM decode step, three ways in one run.
//
// The step is stream work as a model runtime issues it: 32 layers of small kernels (about 1,000 in
// all) and 4 cuBLAS GEMMs, where one kernel per layer reads the KV-cache slot of the current
// position, so 32 pointer arguments change from one step to the next. It is stepped 100 times in
// each of these ways, interleaved step by step, and each result is checked against a CPU reference:
//   raw      re-capture + cudaGraphExecUpdate (re-instantiating when refused): what llama.cpp does
//   adopt    re-capture + graphdsl::adopt + Executable::update: patches only the 32 moved kernels
//   setter   the plan adopted once; each step Executable::set_kernel_arg on the 32 known nodes
//   raw set  cudaGraphExecKernelNodeSetParams on the 32 native nodes, handles kept (raw CUDA's floor)
// Then a step whose shape alternates (an extra kernel every other step, as when a runtime switches
// between two kernel variants): raw CUDA's update is refused and it re-instantiates; graphdsl keeps
// one executable per shape (ExecutableCache keyed by the adopted plan's fingerprint) and updates it.
// Printed: host time per step (medians of 100 steps, launch excluded) and the ratios to raw.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <graphdsl/adopt.hpp>
#include <graphdsl/cache.hpp>
#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int H = 256;          // hidden size
constexpr int layers = 32;      // 32 layers of 31 small kernels: 992 kernels, plus 4 GEMMs and their 4 mixes
constexpr int per_layer = 29;   // bias kernels per layer
constexpr int positions = 128;  // KV-cache slots
constexpr int steps = 100;

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

/// The model's device state and the step's stream work.
struct Model {
  float *x = nullptr, *h = nullptr, *g = nullptr, *out = nullptr, *bias = nullptr, *kv = nullptr, *w = nullptr;
  cublasHandle_t blas = nullptr;
  void* workspace = nullptr;
  std::vector<float> hx, hbias, hkv, hw;

  Model(cudaStream_t s) {
    hx.resize(H);
    hbias.resize(std::size_t(layers) * per_layer * H);
    hkv.resize(std::size_t(positions) * H);
    hw.resize(std::size_t(4) * H * H);
    for (int i = 0; i < H; ++i) hx[i] = std::sin(0.1f * i);
    for (std::size_t i = 0; i < hbias.size(); ++i) hbias[i] = 0.001f * static_cast<float>(i % 7) - 0.003f;
    for (std::size_t i = 0; i < hkv.size(); ++i) hkv[i] = std::cos(0.01f * static_cast<float>(i));
    for (std::size_t i = 0; i < hw.size(); ++i) hw[i] = (static_cast<float>(i % 13) - 6.0f) / (13.0f * H);
    upload(&x, hx);
    upload(&bias, hbias);
    upload(&kv, hkv);
    upload(&w, hw);
    CUDA_CHECK(cudaMalloc(&h, H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&g, H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&workspace, 32u << 20));
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) std::exit((std::puts("cublasCreate failed"), 1));
    cublasSetStream(blas, s);
    cublasSetWorkspace(blas, workspace, 32u << 20);  // after the stream: nothing allocated in a capture
  }
  static void upload(float** p, const std::vector<float>& v) {
    CUDA_CHECK(cudaMalloc(p, v.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(*p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  }

  /// The step's work at KV position `pos`; `extra` adds one kernel (the alternating shape).
  void issue(cudaStream_t s, int pos, bool extra = false) const {
    const dim3 grid((H + 127) / 128), block(128);
    const float one = 1.0f, zero = 0.0f;
    cudaMemcpyAsync(h, x, H * sizeof(float), cudaMemcpyDeviceToDevice, s);
    for (int l = 0; l < layers; ++l) {
      shrink<<<grid, block, 0, s>>>(h, H);
      for (int j = 0; j < per_layer; ++j)
        add_bias<<<grid, block, 0, s>>>(h, bias + (std::size_t(l) * per_layer + j) * H, H);
      attend<<<grid, block, 0, s>>>(h, kv + std::size_t((pos + l) % positions) * H, H);
      if (l % 8 == 0) {
        cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, H, 1, H, &one, w + std::size_t(l / 8) * H * H, H, h, H, &zero, g,
                    H);
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
      const float* slot = hkv.data() + std::size_t((pos + l) % positions) * H;
      for (int i = 0; i < H; ++i) v[i] += 0.125f * slot[i];
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

cudaGraph_t capture(cudaStream_t s, const Model& m, int pos, bool extra = false) {
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

struct Timing {
  const char* name;
  std::vector<double> us;
};

void report(const std::vector<Timing>& ways, double raw_median) {
  for (const Timing& t : ways) {
    const double m = sample::median(t.us);
    std::printf("  %-44s %9.1f us  (+-%4.1f%%)  x%.3f of raw\n", t.name, m, 100.0 * sample::half_spread(t.us),
                m / raw_median);
  }
}

}  // namespace

int main() {
  if (sample::cuda_device_count() == 0) return std::puts("decode_step: no CUDA device found; nothing to run"), 0;
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Model m(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("decode_step on %s\n", sample::device_summary(0).c_str());

  // The plan adopted once, and the nodes whose KV pointer moves: the 'attend' kernels.
  gd::Graph first = gd::adopt_capture(
      s, [&](cudaStream_t st) { m.issue(st, 0); }, cudaStreamCaptureModeThreadLocal, "decode step");
  std::vector<gd::Node> attends;
  for (const gd::Node& n : first.nodes()) {
    if (n.name().rfind("(anonymous namespace)::attend", 0) == 0) attends.push_back(n);
  }
  std::printf("adopted: %zu nodes, %zu edges; %zu 'attend' nodes change per step; node 1 is '%s'\n", first.node_count(),
              first.edge_count(), attends.size(), first.node(1).name().c_str());

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

  std::vector<Timing> t = {{"raw: re-capture + cudaGraphExecUpdate", {}},
                           {"graphdsl: re-capture + adopt + update()", {}},
                           {"graphdsl: adopted once + set_kernel_arg x32", {}},
                           {"raw: cudaGraphExecKernelNodeSetParams x32", {}}};
  std::vector<double> adopt_only;
  int wrong = 0, patched_max = 0;
  for (int step = 1; step <= steps; ++step) {
    const int pos = step % positions;
    for (int k = 0; k < 4; ++k) {
      const int way = (k + step) % 4;  // interleaved, each way first in turn
      sample::Stopwatch clock;
      if (way == 0) {
        raw.step(s, m, pos);
        t[0].us.push_back(clock.us());
        CUDA_CHECK(cudaGraphLaunch(raw.exec, s));
      } else if (way == 1) {
        const gd::UpdateResult r = adopted.update(gd::adopt_capture(s, [&](cudaStream_t st) { m.issue(st, pos); }));
        t[1].us.push_back(clock.us());
        if (!r) std::printf("update refused: %s\n", r.to_string().c_str());
        patched_max = std::max(patched_max, static_cast<int>(r.patched));
        adopted.launch(s);
      } else if (way == 2) {
        for (std::size_t a = 0; a < attends.size(); ++a) {
          const int l = static_cast<int>(a);
          setter.set_kernel_arg(attends[a], 1,
                                static_cast<const float*>(m.kv + std::size_t((pos + l) % positions) * H));
        }
        t[2].us.push_back(clock.us());
        setter.launch(s);
      } else {
        for (std::size_t a = 0; a < native_attends.size(); ++a) {
          const int l = static_cast<int>(a);
          float* hp = m.h;
          const float* slot = m.kv + std::size_t((pos + l) % positions) * H;
          int n = H;
          void* args[] = {&hp, &slot, &n};
          cudaKernelNodeParams p{};
          p.func = reinterpret_cast<void*>(attend);
          p.gridDim = dim3((H + 127) / 128);
          p.blockDim = dim3(128);
          p.kernelParams = args;
          CUDA_CHECK(cudaGraphExecKernelNodeSetParams(raw_set, native_attends[a], &p));
        }
        t[3].us.push_back(clock.us());
        CUDA_CHECK(cudaGraphLaunch(raw_set, s));
      }
      CUDA_CHECK(cudaStreamSynchronize(s));
      if (!m.check(pos)) ++wrong;
    }
    cudaGraph_t again = capture(s, m, pos);  // adopt alone, on a capture made outside the clock
    sample::Stopwatch clock;
    gd::Graph plan = gd::adopt(again);
    adopt_only.push_back(clock.us());
    CUDA_CHECK(cudaGraphDestroy(again));
  }
  const double raw_median = sample::median(t[0].us);
  std::printf("%d steps x 4 ways, each result checked against the CPU: %d wrong; update() patched at most %d nodes\n",
              steps, wrong, patched_max);
  std::printf("host time per step (medians; the launch excluded):\n");
  report(t, raw_median);
  const double per_node = sample::median(adopt_only) / static_cast<double>(first.node_count());
  std::printf("  adopt alone (cudaGraph_t -> Graph): %.1f us for %zu nodes, %.3f us per node\n",
              sample::median(adopt_only), first.node_count(), per_node);

  // The alternating shape: an extra kernel every other step.
  RawWay raw_alt;
  gd::ExecutableCache<std::uint64_t> cache;
  std::vector<Timing> alt = {{"raw: re-capture + update, re-instantiated", {}},
                             {"graphdsl: adopt + cache by fingerprint", {}}};
  int alt_wrong = 0;
  for (int step = 1; step <= steps; ++step) {
    const int pos = step % positions;
    const bool extra = step % 2 == 0;
    for (int k = 0; k < 2; ++k) {
      const int way = (k + step) % 2;
      sample::Stopwatch clock;
      if (way == 0) {
        raw_alt.step(s, m, pos, extra);
        alt[0].us.push_back(clock.us());
        CUDA_CHECK(cudaGraphLaunch(raw_alt.exec, s));
      } else {
        gd::Graph plan = gd::adopt_capture(s, [&](cudaStream_t st) { m.issue(st, pos, extra); });
        gd::Executable& e = cache.get(plan.fingerprint(), plan);
        alt[1].us.push_back(clock.us());
        e.launch(s);
      }
      CUDA_CHECK(cudaStreamSynchronize(s));
      if (!m.check(pos)) ++alt_wrong;
    }
  }
  std::printf(
      "alternating shape, %d steps x 2 ways: %d wrong; raw re-instantiated %d times; graphdsl compiled %zu, "
      "updated %zu\n",
      steps, alt_wrong, raw_alt.reinstantiated, cache.stats().compiled, cache.stats().updated);
  report(alt, sample::median(alt[0].us));

  CUDA_CHECK(cudaGraphExecDestroy(raw.exec));
  CUDA_CHECK(cudaGraphExecDestroy(raw_alt.exec));
  CUDA_CHECK(cudaGraphExecDestroy(raw_set));
  CUDA_CHECK(cudaGraphDestroy(native_once));
  cublasDestroy(m.blas);
  const bool ok = wrong == 0 && alt_wrong == 0;
  std::printf("decode_step: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
