// samples/bench/bench_workload.hpp — the benchmark's common workload (bench_workload.cu): a tiny
// one-thread kernel, chains and fork-joins of it built with graphdsl and with raw CUDA calls, and the
// context every section measures in (stream, data, bit-for-bit result checks).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

#include "sample_util.hpp"

namespace bench {

namespace gd = graphdsl;

constexpr float step_a = 0.5f;   // data[i] = data[i] * 0.5 + b: exact multiply, so fused or not
constexpr float step_b = 0.25f;  // the GPU result equals the CPU one bit for bit
constexpr int data_len = 16384;  // >= the largest N: node i touches only data[i]

/// data[i] = data[i] * a + b on one thread of a <<<1, 32>>> launch.
__global__ void step(float* data, int i, float a, float b);
extern const gd::Launch tiny;
using StepNode = gd::KernelNode<float*, int, float, float>;

enum class Shape { chain, fork_join };
const char* shape_name(Shape s);

/// graphdsl: a chain (node i after node i-1) or a fork-join (one root, N-2 parallel nodes, one join)
/// of step(data, i, step_a, b[i]) (b = step_b everywhere when `b` is null). `handles`, when given,
/// receives the node handles in creation order.
gd::Graph plan_of(Shape shape, int nodes, float* data, const std::vector<float>* b = nullptr,
                  std::vector<StepNode>* handles = nullptr);

/// The arguments of one step node as cudaKernelNodeParams wants them (pointers into this object:
/// not copyable).
struct StepArgs {
  float* data;
  int i;
  float a = step_a, b;
  void* ptrs[4] = {&data, &i, &a, &b};
  StepArgs(float* d, int index, float bv) : data(d), i(index), b(bv) {}
  StepArgs(const StepArgs&) = delete;
  StepArgs& operator=(const StepArgs&) = delete;
  cudaKernelNodeParams params(const gd::Launch& l = tiny);
};

/// A raw graph and its nodes in creation order (nodes[i] runs step for data[i]); destroyed with it.
struct RawGraph {
  cudaGraph_t graph = nullptr;
  std::vector<cudaGraphNode_t> nodes;
  RawGraph() = default;
  RawGraph(RawGraph&& o) noexcept;
  RawGraph& operator=(RawGraph&&) = delete;
  ~RawGraph();
};
/// Raw CUDA: the graph plan_of describes, one cudaGraphAddKernelNode per node, dependencies at creation.
RawGraph raw_graph_of(Shape shape, int nodes, float* data, const std::vector<float>* b = nullptr);
/// cudaGraphInstantiateWithParams with flags 0 (exits on failure).
cudaGraphExec_t raw_instantiate(cudaGraph_t g);
/// Raw CUDA: a conditional node of `type` with one body in `graph` after `deps` (a new handle, default 1,
/// assigned at each launch); its body graph in `body` and its handle in `handle` (exits on failure).
cudaGraphNode_t raw_conditional(cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t count,
                                cudaGraphConditionalNodeType type, cudaGraph_t* body,
                                cudaGraphConditionalHandle* handle);

/// A raw graph and its executable, destroyed together.
struct RawExec {
  RawGraph g;
  cudaGraphExec_t exec = nullptr;
  RawExec(Shape shape, int nodes, float* data, const std::vector<float>* b = nullptr)
      : g(raw_graph_of(shape, nodes, data, b)), exec(raw_instantiate(g.graph)) {}
  ~RawExec() { (void)cudaGraphExecDestroy(exec); }
  RawExec(const RawExec&) = delete;
  RawExec& operator=(const RawExec&) = delete;
  void launch(cudaStream_t s) const { CUDA_CHECK(cudaGraphLaunch(exec, s)); }
};

/// Host wall time of building a graph, instantiating it and destroying both (steady_clock).
struct Phases {
  double build = 0, instantiate = 0, destroy = 0;
  double total() const { return build + instantiate + destroy; }
};
/// graphdsl: plan_of, std::move(plan).instantiate(), then the Executable and the moved-from Graph destroyed.
Phases graphdsl_build(Shape shape, int nodes, float* data);
/// Raw CUDA: raw_graph_of, raw_instantiate, cudaGraphExecDestroy + cudaGraphDestroy.
Phases raw_build(Shape shape, int nodes, float* data);

/// N step<<<1, 32>>> launches on `s` (one cudaGetLastError).
void stream_batch(int nodes, float* data, cudaStream_t s);

/// Device buffers of the setter sections' memset and memcpy chains (node j writes element j of a
/// destination; memcpy sources of generations 0, 1 and 2, with their host copies).
struct SetterBuffers {
  unsigned* slots = nullptr;  // memset destinations
  float* src[3] = {};         // memcpy sources of generations 0, 1, 2
  float* dst = nullptr;       // memcpy destinations
  std::vector<float> hsrc[3];
  SetterBuffers();
  ~SetterBuffers();
  SetterBuffers(const SetterBuffers&) = delete;
  SetterBuffers& operator=(const SetterBuffers&) = delete;
};

/// The context every measurement shares.
struct Bench {
  cudaStream_t s = nullptr;
  float* data = nullptr;
  std::vector<float> init;  // random start values (never zeros)
  sample::EventTimer timer;
  int checks = 0;
  int checks_passed = 0;

  Bench();
  ~Bench();
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  /// Runs `one_batch` once from the random start values and checks that exactly nodes 0..N-1 were
  /// applied once each with b = step_b (so the graph has every node, each with its own arguments).
  void check(const char* what, int nodes, const std::function<void()>& one_batch);
  /// The same with node i's own b (`b[i]`; NaN: node i must have left data[i] alone), for i < b.size().
  void check_b(const std::string& what, const std::vector<float>& b, const std::function<void()>& one_batch);
  /// Counts one check; prints `what` and `why` when it failed.
  void expect(bool ok, const std::string& what, const std::string& why = "");

  /// Device time of `launches` calls of `one` (cudaEvent), per call, in microseconds.
  double per_launch_us(int launches, const std::function<void()>& one);
};

}  // namespace bench
