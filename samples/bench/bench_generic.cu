// samples/bench/bench_generic.cu — the generic exec setter (cudaGraphExecNodeSetParams and the
// driver's cuGraphExecNodeSetParams, both since CUDA 12.2) against the per-type exec setters, which
// CUDA 13.5 announces will be deprecated; raw CUDA only, in one run.
//
//   For kernel (arguments changed), memset, memcpy and host nodes, one node of a chain of N = 1,000
//   and 10,000 is set in batches of 100 calls alternating two values, through
//     rt typed     cudaGraphExec{Kernel,Memset,Memcpy,Host}NodeSetParams
//     rt generic   cudaGraphExecNodeSetParams(exec, node, cudaGraphNodeParams*)
//     drv typed    cuGraphExec{Kernel,Memset,Memcpy,Host}NodeSetParams (through the runtime's entry point)
//     drv generic  cuGraphExecNodeSetParams(exec, node, CUgraphNodeParams*)
//   the four in an order rotated each repetition; µs per call, medians with noise, each a ratio to
//   the per-type runtime call; g/t is generic / per-type within one API.
//
// Afterwards each of the four calls sets a node of its own, and one launch checks every node of the
// chain against the values set (kernel: data[j] bit for bit; memset and memcpy: the destination's
// bits; host: the slot each node writes).
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cuda.h>

#include "bench_common.hpp"
#include "bench_driver.hpp"
#include "bench_generic.hpp"

namespace bench {
namespace generic_setters {

enum Call { rt_typed, rt_generic, drv_typed, drv_generic, call_count };
constexpr int batch_calls = 100;  // setter calls per timed batch (even: a batch ends on the value it began with)

using DriverGeneric = CUresult (*)(CUgraphExec, CUgraphNode, CUgraphNodeParams*);

/// What the node kinds share: the bench, the generic driver setter and the context the driver's
/// memset and memcpy setters take.
struct Shared {
  Bench& bench;
  DriverGeneric generic = nullptr;
  CUcontext ctx = nullptr;
  void launch(cudaGraphExec_t x) const { CUDA_CHECK(cudaGraphLaunch(x, bench.s)); }
};

/// A device pointer into either API's field.
inline void put(void*& to, void* p) { to = p; }
inline void put(CUdeviceptr& to, void* p) { to = reinterpret_cast<CUdeviceptr>(p); }

/// Poisons `want.size()` elements at `dev` (0xff bytes), launches `x`, and compares them bit for bit.
template <class T>
void expect_bits(const Shared& sh, const std::string& what, T* dev, const std::vector<T>& want, cudaGraphExec_t x) {
  CUDA_CHECK(cudaMemsetAsync(dev, 0xff, want.size() * sizeof(T), sh.bench.s));
  sh.launch(x);
  std::vector<T> got(want.size());
  CUDA_CHECK(cudaMemcpyAsync(got.data(), dev, want.size() * sizeof(T), cudaMemcpyDeviceToHost, sh.bench.s));
  CUDA_CHECK(cudaStreamSynchronize(sh.bench.s));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) bad += std::memcmp(&got[i], &want[i], sizeof(T)) != 0;
  sh.bench.expect(bad == 0, what, fmt::format("{} of {} values differ", bad, want.size()));
}

// ---- the node kinds ------------------------------------------------------------------------------
// Each kind gives the runtime's per-type add and exec-set functions (add_rt, set_rt), params(j, gen):
// node j's per-type runtime parameters in generation gen, other(c, exec, node, p): the generic
// runtime call and the two driver calls made from those parameters, and check().

/// Kernel nodes: step(data, j, step_a, b) with b = step_b + 0.5 * gen; the arguments live in the
/// kind (one StepArgs rewritten per call, as a caller who keeps them would).
struct KernelKind {
  static constexpr const char* name = "kernel args";
  static constexpr const char* typed_rt = "cudaGraphExecKernelNodeSetParams";
  static constexpr const char* typed_drv = "cuGraphExecKernelNodeSetParams";
  static constexpr auto add_rt = &cudaGraphAddKernelNode;
  static constexpr auto set_rt = &cudaGraphExecKernelNodeSetParams;
  using DriverTyped = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*);
  const Shared& sh;
  DriverTyped typed = driver_fn<DriverTyped>(typed_drv, 12000, "generic kernel args");
  CUfunction fn = nullptr;
  StepArgs args;
  explicit KernelKind(const Shared& s) : sh(s), args(s.bench.data, 0, b_of(0)) {
    CUDA_CHECK(cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(&step)));
  }
  static float b_of(int gen) { return step_b + 0.5f * static_cast<float>(gen); }
  cudaKernelNodeParams params(int j, int gen) {
    args.i = j;
    args.b = b_of(gen);
    return args.params();
  }
  template <class D>
  void fill(D& d, const cudaKernelNodeParams& p) const {  // CUDA_KERNEL_NODE_PARAMS and its _v3
    d.func = fn;
    d.gridDimX = p.gridDim.x, d.gridDimY = p.gridDim.y, d.gridDimZ = p.gridDim.z;
    d.blockDimX = p.blockDim.x, d.blockDimY = p.blockDim.y, d.blockDimZ = p.blockDim.z;
    d.sharedMemBytes = p.sharedMemBytes;
    d.kernelParams = p.kernelParams;
  }
  bool other(Call c, cudaGraphExec_t x, cudaGraphNode_t node, const cudaKernelNodeParams& p) const {
    if (c == drv_typed) {
      CUDA_KERNEL_NODE_PARAMS d{};
      fill(d, p);
      return typed(x, node, &d) == CUDA_SUCCESS;
    }
    if (c == rt_generic) {
      cudaGraphNodeParams g{};
      g.type = cudaGraphNodeTypeKernel;
      g.kernel.func = p.func;
      g.kernel.gridDim = p.gridDim;
      g.kernel.blockDim = p.blockDim;
      g.kernel.sharedMemBytes = p.sharedMemBytes;
      g.kernel.kernelParams = p.kernelParams;
      return cudaGraphExecNodeSetParams(x, node, &g) == cudaSuccess;
    }
    CUgraphNodeParams g{};
    g.type = CU_GRAPH_NODE_TYPE_KERNEL;
    fill(g.kernel, p);
    return sh.generic(x, node, &g) == CUDA_SUCCESS;
  }
  void check(const std::string& what, cudaGraphExec_t x, const std::vector<int>& gen_of) const {
    std::vector<float> b;
    for (int gen : gen_of) b.push_back(b_of(gen));
    sh.bench.check_b(what, b, [&] { sh.launch(x); });
  }
};

/// One-element memset nodes: node j writes value(j, gen) into slots[j].
struct MemsetKind {
  static constexpr const char* name = "memset";
  static constexpr const char* typed_rt = "cudaGraphExecMemsetNodeSetParams";
  static constexpr const char* typed_drv = "cuGraphExecMemsetNodeSetParams";
  static constexpr auto add_rt = &cudaGraphAddMemsetNode;
  static constexpr auto set_rt = &cudaGraphExecMemsetNodeSetParams;
  using DriverTyped = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_MEMSET_NODE_PARAMS*, CUcontext);
  const Shared& sh;
  unsigned* slots;
  DriverTyped typed = driver_fn<DriverTyped>(typed_drv, 12000, "generic memset");
  static unsigned value(int j, int gen) { return 0x10000u * static_cast<unsigned>(gen + 1) + static_cast<unsigned>(j); }
  cudaMemsetParams params(int j, int gen) const {
    cudaMemsetParams p{};
    p.dst = slots + j;
    p.value = value(j, gen);
    p.elementSize = sizeof(unsigned);
    p.width = p.height = 1;
    return p;
  }
  template <class D>
  static void fill(D& d, const cudaMemsetParams& p) {  // cudaMemsetParamsV2, CUDA_MEMSET_NODE_PARAMS(_v2)
    put(d.dst, p.dst);
    d.value = p.value;
    d.elementSize = p.elementSize;
    d.width = p.width;
    d.height = p.height;
  }
  bool other(Call c, cudaGraphExec_t x, cudaGraphNode_t node, const cudaMemsetParams& p) const {
    if (c == drv_typed) {
      CUDA_MEMSET_NODE_PARAMS d{};
      fill(d, p);
      return typed(x, node, &d, sh.ctx) == CUDA_SUCCESS;
    }
    if (c == rt_generic) {
      cudaGraphNodeParams g{};
      g.type = cudaGraphNodeTypeMemset;
      fill(g.memset, p);
      return cudaGraphExecNodeSetParams(x, node, &g) == cudaSuccess;
    }
    CUgraphNodeParams g{};
    g.type = CU_GRAPH_NODE_TYPE_MEMSET;
    fill(g.memset, p);
    g.memset.ctx = sh.ctx;
    return sh.generic(x, node, &g) == CUDA_SUCCESS;
  }
  void check(const std::string& what, cudaGraphExec_t x, const std::vector<int>& gen_of) const {
    std::vector<unsigned> want;
    for (std::size_t j = 0; j < gen_of.size(); ++j) want.push_back(value(static_cast<int>(j), gen_of[j]));
    expect_bits(sh, what, slots, want, x);
  }
};

/// One-element device-to-device copies: node j copies src[gen][j] into dst[j] (cudaMemcpy3DParms,
/// which the per-type runtime setter and the generic one both take).
struct MemcpyKind {
  static constexpr const char* name = "memcpy";
  static constexpr const char* typed_rt = "cudaGraphExecMemcpyNodeSetParams";
  static constexpr const char* typed_drv = "cuGraphExecMemcpyNodeSetParams";
  static constexpr auto add_rt = &cudaGraphAddMemcpyNode;
  static constexpr auto set_rt = &cudaGraphExecMemcpyNodeSetParams;
  using DriverTyped = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_MEMCPY3D*, CUcontext);
  const Shared& sh;
  const SetterBuffers& buf;
  DriverTyped typed = driver_fn<DriverTyped>(typed_drv, 12000, "generic memcpy");
  cudaMemcpy3DParms params(int j, int gen) const {
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(buf.src[gen] + j, sizeof(float), 1, 1);
    p.dstPtr = make_cudaPitchedPtr(buf.dst + j, sizeof(float), 1, 1);
    p.extent = make_cudaExtent(sizeof(float), 1, 1);
    p.kind = cudaMemcpyDeviceToDevice;
    return p;
  }
  static CUDA_MEMCPY3D driver(const cudaMemcpy3DParms& p) {
    CUDA_MEMCPY3D d{};
    d.srcMemoryType = d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    put(d.srcDevice, p.srcPtr.ptr);
    put(d.dstDevice, p.dstPtr.ptr);
    d.WidthInBytes = p.extent.width;
    d.Height = d.Depth = 1;
    return d;
  }
  bool other(Call c, cudaGraphExec_t x, cudaGraphNode_t node, const cudaMemcpy3DParms& p) const {
    if (c == drv_typed) {
      const CUDA_MEMCPY3D d = driver(p);
      return typed(x, node, &d, sh.ctx) == CUDA_SUCCESS;
    }
    if (c == rt_generic) {
      cudaGraphNodeParams g{};
      g.type = cudaGraphNodeTypeMemcpy;
      g.memcpy.copyParams = p;
      return cudaGraphExecNodeSetParams(x, node, &g) == cudaSuccess;
    }
    CUgraphNodeParams g{};
    g.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    g.memcpy.copyCtx = sh.ctx;
    g.memcpy.copyParams = driver(p);
    return sh.generic(x, node, &g) == CUDA_SUCCESS;
  }
  void check(const std::string& what, cudaGraphExec_t x, const std::vector<int>& gen_of) const {
    std::vector<float> want;
    for (std::size_t j = 0; j < gen_of.size(); ++j) want.push_back(buf.hsrc[gen_of[j]][j]);
    expect_bits(sh, what, buf.dst, want, x);
  }
};

/// What a host node of generation gen writes: *slot = gen.
struct HostArgs {
  int* slot;
  int gen;
};
void CUDART_CB host_write(void* p) {
  const auto* a = static_cast<const HostArgs*>(p);
  *a->slot = a->gen;
}

/// Host nodes: node j calls host_write(&args[gen][j]), which writes gen into slots[j].
struct HostKind {
  static constexpr const char* name = "host";
  static constexpr const char* typed_rt = "cudaGraphExecHostNodeSetParams";
  static constexpr const char* typed_drv = "cuGraphExecHostNodeSetParams";
  static constexpr auto add_rt = &cudaGraphAddHostNode;
  static constexpr auto set_rt = &cudaGraphExecHostNodeSetParams;
  using DriverTyped = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_HOST_NODE_PARAMS*);
  const Shared& sh;
  DriverTyped typed = driver_fn<DriverTyped>(typed_drv, 10020, "generic host");
  std::vector<int> slots = std::vector<int>(data_len, -1);
  std::vector<HostArgs> args[3];
  explicit HostKind(const Shared& s) : sh(s) {
    for (int g = 0; g < 3; ++g) {
      for (int j = 0; j < data_len; ++j) args[g].push_back(HostArgs{&slots[j], g});
    }
  }
  HostKind(const HostKind&) = delete;
  HostKind& operator=(const HostKind&) = delete;
  cudaHostNodeParams params(int j, int gen) { return {&host_write, &args[gen][j]}; }
  bool other(Call c, cudaGraphExec_t x, cudaGraphNode_t node, const cudaHostNodeParams& p) const {
    if (c == drv_typed) {
      const CUDA_HOST_NODE_PARAMS d{p.fn, p.userData};
      return typed(x, node, &d) == CUDA_SUCCESS;
    }
    if (c == rt_generic) {
      cudaGraphNodeParams g{};
      g.type = cudaGraphNodeTypeHost;
      g.host.fn = p.fn;
      g.host.userData = p.userData;
      return cudaGraphExecNodeSetParams(x, node, &g) == cudaSuccess;
    }
    CUgraphNodeParams g{};
    g.type = CU_GRAPH_NODE_TYPE_HOST;
    g.host.fn = p.fn;
    g.host.userData = p.userData;
    return sh.generic(x, node, &g) == CUDA_SUCCESS;
  }
  void check(const std::string& what, cudaGraphExec_t x, const std::vector<int>& gen_of) {
    std::fill(slots.begin(), slots.end(), -1);
    sh.launch(x);
    CUDA_CHECK(cudaStreamSynchronize(sh.bench.s));
    const bool same = std::equal(gen_of.begin(), gen_of.end(), slots.begin());
    sh.bench.expect(same, what, "a host node wrote another generation");
  }
};

// ---- timing ---------------------------------------------------------------------------------------

void header() {
  fmt::print("  {:<22} {:>9} {:>10} {:>9} {:>11} | {:>7} {:>7} {:>7} {:>6}  {}\n", "node (us per call)", "rt typed",
             "rt generic", "drv typed", "drv generic", "g/t rt", "g/t drv", "drv/rt", "noise", "generic >= as fast");
}

/// The table row and the four CSV rows of one kind at N (ratios against the per-type runtime call).
template <class K>
void report(int n, const std::vector<std::vector<double>>& s) {
  double med[call_count];
  double noise = 0;
  for (int c = 0; c < call_count; ++c) {
    med[c] = sample::median(s[c]);
    noise = std::max(noise, sample::half_spread(s[c]));
  }
  auto ratio = [&](int a, int b) { return med[b] > 0 ? med[a] / med[b] : 0.0; };
  const double g_rt = ratio(rt_generic, rt_typed), g_drv = ratio(drv_generic, drv_typed);
  const double worst = std::max(g_rt, g_drv);
  const char* verdict = worst <= 1.0 ? "yes" : worst <= 1.0 + noise ? "within noise" : "NO";
  fmt::print("  {:<22} {:>9.3f} {:>10.3f} {:>9.3f} {:>11.3f} | {:>7.3f} {:>7.3f} {:>7.3f} {:>5.1f}%  {}\n",
             fmt::format("{} N={}", K::name, n), med[rt_typed], med[rt_generic], med[drv_typed], med[drv_generic],
             g_rt, g_drv, ratio(drv_typed, rt_typed), 100.0 * noise, verdict);
  const std::string variants[call_count] = {fmt::format("raw {}", K::typed_rt), "raw cudaGraphExecNodeSetParams",
                                            fmt::format("raw driver {}", K::typed_drv),
                                            "raw driver cuGraphExecNodeSetParams"};
  for (int c = 0; c < call_count; ++c) {
    const double row_noise = std::max(sample::half_spread(s[c]), sample::half_spread(s[rt_typed]));
    csv_row({"generic", fmt::format("chain {}", K::name), n, 1, variants[c], med[c], row_noise, ratio(c, rt_typed)});
  }
}

/// One kind at N: a raw chain of N nodes (K::add_rt), node N/2 set in batches through
/// each of the four calls (rotated each repetition), then each call on a node of its own and a
/// launch that checks every node.
template <class K>
void generic_rows(Bench& bench, K& kind, int n) {
  RawGraph g;
  CUDA_CHECK(cudaGraphCreate(&g.graph, 0));
  for (int j = 0; j < n; ++j) {
    const auto p = kind.params(j, 0);
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(K::add_rt(&node, g.graph, j > 0 ? &g.nodes.back() : nullptr, j > 0 ? 1 : 0, &p));
    g.nodes.push_back(node);
  }
  const cudaGraphExec_t x = raw_instantiate(g.graph);
  std::vector<int> gen_of(n, 0);
  int made = 0, failed = 0;
  auto set = [&](int c, int j, int gen) {
    const auto p = kind.params(j, gen);
    const bool ok = c == rt_typed ? K::set_rt(x, g.nodes[j], &p) == cudaSuccess
                                  : kind.other(static_cast<Call>(c), x, g.nodes[j], p);
    failed += !ok;
    gen_of[j] = gen;
  };
  std::vector<std::function<double()>> batch;
  for (int c = 0; c < call_count; ++c) {
    batch.push_back([&, c] {
      sample::Stopwatch w;
      for (int i = 0; i < batch_calls; ++i) set(c, n / 2, 1 + made++ % 2);
      return w.us() / batch_calls;
    });
  }
  for (auto& b : batch) (void)b();  // warm-up
  report<K>(n, rotate(options().reps(15), batch));
  for (int c = 0; c < call_count; ++c) set(c, (2 * c + 1) * n / 8, 2 - c % 2);
  const std::string what = fmt::format("generic {} N={}", K::name, n);
  bench.expect(failed == 0, what + " calls", fmt::format("{} calls failed", failed));
  kind.check(what, x, gen_of);
  CUDA_CHECK(cudaGraphExecDestroy(x));
}

}  // namespace generic_setters

void generic_setters_bench(Bench& bench) {
  namespace gs = generic_setters;
  sample::Stopwatch section;
  fmt::print(
      "\ngeneric: per-type vs generic exec setters (cudaGraphExecNodeSetParams, cuGraphExecNodeSetParams), raw CUDA; "
      "one node of a chain of N, batches of {} calls alternating two values; us per call (steady_clock; median of "
      "{} reps, the four calls rotated each rep); g/t = generic / per-type in the same API\n",
      gs::batch_calls, options().reps(15));
  gs::Shared sh{bench, driver_fn<gs::DriverGeneric>("cuGraphExecNodeSetParams", 12020, "generic"), bench_context()};
  if (sh.generic == nullptr || sh.ctx == nullptr) {
    fmt::print("  generic: no cuGraphExecNodeSetParams or no current context; section skipped\n");
    return;
  }
  SetterBuffers buf;
  gs::KernelKind kernel(sh);
  gs::MemsetKind memsets{sh, buf.slots};
  gs::MemcpyKind memcpys{sh, buf};
  gs::HostKind host(sh);
  gs::header();
  for (int n : {1000, 10000}) {
    if (kernel.typed != nullptr) gs::generic_rows(bench, kernel, n);
    if (memsets.typed != nullptr) gs::generic_rows(bench, memsets, n);
    if (memcpys.typed != nullptr) gs::generic_rows(bench, memcpys, n);
    if (host.typed != nullptr) gs::generic_rows(bench, host, n);
  }
  fmt::print("  (generic took {:.1f} s)\n", section.us() / 1e6);
}

}  // namespace bench
