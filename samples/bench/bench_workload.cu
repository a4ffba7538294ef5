// samples/bench/bench_workload.cu — the benchmark's common workload (see bench_workload.hpp).
#include "bench_workload.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <utility>

namespace bench {

__global__ void step(float* data, int i, float a, float b) {
  if (threadIdx.x == 0) data[i] = data[i] * a + b;
}
const gd::Launch tiny{dim3(1), dim3(32)};

const char* shape_name(Shape s) { return s == Shape::chain ? "chain" : "fork-join"; }

gd::Graph plan_of(Shape shape, int nodes, float* data, const std::vector<float>* b, std::vector<StepNode>* handles) {
  gd::Graph g(shape_name(shape));
  g.reserve(nodes);
  auto add = [&](int i) {
    StepNode k = g.add_kernel(step, tiny, data, i, step_a, b ? (*b)[i] : step_b);
    if (handles) handles->push_back(k);
    return k;
  };
  if (shape == Shape::chain) {
    StepNode prev;
    for (int i = 0; i < nodes; ++i) {
      StepNode k = add(i);
      if (i > 0) k.after(prev);
      prev = k;
    }
  } else {
    StepNode root = add(0);
    std::vector<StepNode> mid;
    mid.reserve(nodes - 2);
    for (int i = 1; i < nodes - 1; ++i) mid.push_back(add(i).after(root));
    add(nodes - 1).after(mid);
  }
  return g;
}

cudaKernelNodeParams StepArgs::params(const gd::Launch& l) {
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(&step);
  p.gridDim = l.grid;
  p.blockDim = l.block;
  p.sharedMemBytes = 0;
  p.kernelParams = ptrs;
  return p;
}

RawGraph::RawGraph(RawGraph&& o) noexcept : graph(std::exchange(o.graph, nullptr)), nodes(std::move(o.nodes)) {}
RawGraph::~RawGraph() {
  if (graph != nullptr) (void)cudaGraphDestroy(graph);
}

namespace {
/// Raw CUDA: one cudaGraphAddKernelNode per node, dependencies given at creation.
cudaGraphNode_t raw_add(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t ndeps, float* data, int i, float b) {
  StepArgs args(data, i, b);
  const cudaKernelNodeParams p = args.params();
  cudaGraphNode_t node = nullptr;
  CUDA_CHECK(cudaGraphAddKernelNode(&node, g, deps, ndeps, &p));
  return node;
}
}  // namespace

RawGraph raw_graph_of(Shape shape, int nodes, float* data, const std::vector<float>* b) {
  RawGraph r;
  CUDA_CHECK(cudaGraphCreate(&r.graph, 0));
  std::vector<cudaGraphNode_t>& made = r.nodes;
  made.reserve(nodes);
  auto bv = [&](int i) { return b ? (*b)[i] : step_b; };
  made.push_back(raw_add(r.graph, nullptr, 0, data, 0, bv(0)));
  if (shape == Shape::chain) {
    for (int i = 1; i < nodes; ++i) made.push_back(raw_add(r.graph, &made.back(), 1, data, i, bv(i)));
  } else {
    for (int i = 1; i < nodes - 1; ++i) made.push_back(raw_add(r.graph, &made.front(), 1, data, i, bv(i)));
    made.push_back(raw_add(r.graph, made.data() + 1, made.size() - 1, data, nodes - 1, bv(nodes - 1)));
  }
  return r;
}

cudaGraphExec_t raw_instantiate(cudaGraph_t g) {
  cudaGraphInstantiateParams p{};  // flags 0, like graphdsl's default InstantiateOptions
  cudaGraphExec_t e = nullptr;
  CUDA_CHECK(cudaGraphInstantiateWithParams(&e, g, &p));
  if (p.result_out != cudaGraphInstantiateSuccess) {
    std::fprintf(stderr, "raw cudaGraphInstantiateWithParams: result %d\n", static_cast<int>(p.result_out));
    std::exit(1);
  }
  return e;
}

cudaGraphNode_t raw_conditional(cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t count,
                                cudaGraphConditionalNodeType type, cudaGraph_t* body,
                                cudaGraphConditionalHandle* handle) {
  CUDA_CHECK(cudaGraphConditionalHandleCreate(handle, graph, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = *handle;
  p.conditional.type = type;
  p.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
#if CUDART_VERSION >= 13000
  CUDA_CHECK(cudaGraphAddNode(&node, graph, deps, nullptr, count, &p));  // CUDA 13: edge data before the count
#else
  CUDA_CHECK(cudaGraphAddNode(&node, graph, deps, count, &p));
#endif
  *body = p.conditional.phGraph_out[0];
  return node;
}

Phases graphdsl_build(Shape shape, int nodes, float* data) {
  Phases t;
  sample::Stopwatch w;
  std::optional<gd::Graph> g;
  std::optional<gd::Executable> e;
  g.emplace(plan_of(shape, nodes, data));
  t.build = w.us();
  w.restart();
  e.emplace(std::move(*g).instantiate());  // a one-shot plan is moved into its executable (no plan copy)
  t.instantiate = w.us();
  w.restart();
  e.reset();
  g.reset();
  t.destroy = w.us();
  return t;
}

Phases raw_build(Shape shape, int nodes, float* data) {
  Phases t;
  sample::Stopwatch w;
  std::optional<RawGraph> g(raw_graph_of(shape, nodes, data));
  t.build = w.us();
  w.restart();
  const cudaGraphExec_t e = raw_instantiate(g->graph);
  t.instantiate = w.us();
  w.restart();
  CUDA_CHECK(cudaGraphExecDestroy(e));
  g.reset();  // cudaGraphDestroy
  t.destroy = w.us();
  return t;
}

void stream_batch(int nodes, float* data, cudaStream_t s) {
  for (int i = 0; i < nodes; ++i) step<<<tiny.grid, tiny.block, 0, s>>>(data, i, step_a, step_b);
  CUDA_CHECK(cudaGetLastError());
}

SetterBuffers::SetterBuffers() {
  CUDA_CHECK(cudaMalloc(&slots, data_len * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&dst, data_len * sizeof(float)));
  for (int g = 0; g < 3; ++g) {
    hsrc[g].resize(data_len);
    for (int j = 0; j < data_len; ++j) hsrc[g][j] = static_cast<float>(j) * (g == 1 ? -1.0f : 1.0f) + 0.125f * g + 1;
    CUDA_CHECK(cudaMalloc(&src[g], data_len * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(src[g], hsrc[g].data(), data_len * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaStreamSynchronize(
        cudaStreamLegacy));  // a pageable upload may still be in flight: other streams do not wait for it
  }
}

SetterBuffers::~SetterBuffers() {
  (void)cudaFree(slots);
  (void)cudaFree(dst);
  for (float* p : src) (void)cudaFree(p);
}

Bench::Bench() : init(data_len) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&data, data_len * sizeof(float)));
  std::mt19937 rng(20261121u);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (float& v : init) v = dist(rng);
}

Bench::~Bench() {
  (void)cudaFree(data);
  (void)cudaStreamDestroy(s);
}

void Bench::check(const char* what, int nodes, const std::function<void()>& one_batch) {
  check_b(what, std::vector<float>(nodes, step_b), one_batch);
}

void Bench::check_b(const std::string& what, const std::vector<float>& b, const std::function<void()>& one_batch) {
  CUDA_CHECK(cudaMemcpyAsync(data, init.data(), data_len * sizeof(float), cudaMemcpyHostToDevice, s));
  one_batch();
  std::vector<float> out(data_len);
  CUDA_CHECK(cudaMemcpyAsync(out.data(), data, data_len * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  int bad = 0;
  for (int i = 0; i < data_len; ++i) {
    const bool applied = i < static_cast<int>(b.size()) && !std::isnan(b[i]);
    const float want = applied ? init[i] * step_a + b[i] : init[i];
    if (out[i] != want) ++bad;
  }
  expect(bad == 0, what, fmt::format("{} of {} values differ from the CPU reference", bad, data_len));
}

void Bench::expect(bool ok, const std::string& what, const std::string& why) {
  ++checks;
  if (ok) {
    ++checks_passed;
  } else {
    std::fprintf(stderr, "check FAILED: %s: %s\n", what.c_str(), why.c_str());
  }
}

double Bench::per_launch_us(int launches, const std::function<void()>& one) {
  timer.start(s);
  for (int i = 0; i < launches; ++i) one();
  return timer.stop_us(s) / launches;
}

}  // namespace bench
