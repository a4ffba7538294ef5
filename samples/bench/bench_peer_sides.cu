// samples/bench/bench_peer_sides.cu — the C++ peers' sides of the `peers` section (bench_peers.cu),
// each written as that library's documented graph API has a user write it. Compiled only where
// samples/CMakeLists.txt finds the peers' sources under GRAPHDSL_BENCH_PEERS, which defines
// GRAPHDSL_BENCH_PEER_CAW (eyalroz/cuda-api-wrappers, header-only, driver API) and
// GRAPHDSL_BENCH_PEER_TASKFLOW (taskflow/taskflow, tf::cudaGraph, runtime API) for those it found.
//
//   cuda-api-wrappers  cuda::graph::template_t: insert.node<kernel_launch>(kernel, launch config,
//                      argument pointers) per node (cuGraphAddKernelNode through the kernel's cached
//                      CUfunction), then every edge in one insert.edges() call
//                      (cuGraphAddDependencies); cuda::graph::instantiate(); instance_t::
//                      set_node_parameters<kernel_launch>() (cuGraphExecKernelNodeSetParams);
//                      instance_t::launch(stream_t)
//   Taskflow           tf::cudaGraph::kernel() per node (cudaGraphAddKernelNode), cudaTask::precede()
//                      per edge (cudaGraphAddDependencies); tf::cudaGraphExec (cudaGraphInstantiate);
//                      cudaGraphExec::kernel() (cudaGraphExecKernelNodeSetParams); its graphs are
//                      launched with cudaGraphLaunch, as tf::cudaStream::run() does
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#ifdef GRAPHDSL_BENCH_PEER_CAW
#include <cuda/api.hpp>
#endif
#ifdef GRAPHDSL_BENCH_PEER_TASKFLOW
#include <taskflow/cuda/cudaflow.hpp>
#endif

#include "bench_peers.hpp"

namespace bench {
namespace peer_sides_impl {

#ifdef GRAPHDSL_BENCH_PEER_CAW
/// cuda-api-wrappers: the kernel's arguments are passed as pointers (the library copies none of
/// them: cuGraphAddKernelNode and the exec setter read them during the call), kept here.
class CawSide final : public PeerSide {
 public:
  explicit CawSide(float* data) : data_(data) {}
  const char* name() const override { return "cuda-api-wrappers"; }
  void build(Shape shape, int n) override {
    template_.emplace(cuda::graph::create());
    nodes_.clear();
    nodes_.reserve(n);
    std::vector<Edge> edges;
    for (int j = 0; j < n; ++j) {
      nodes_.push_back(template_->insert.node<Kind::kernel_launch>(kernel_, config_, args(j, step_b)));
      if (shape == Shape::chain && j > 0) edges.emplace_back(nodes_[j - 1], nodes_[j]);
      if (shape == Shape::fork_join && j > 0 && j < n - 1) edges.emplace_back(nodes_.front(), nodes_[j]);
    }
    if (shape == Shape::fork_join) {
      for (int j = 1; j < n - 1; ++j) edges.emplace_back(nodes_[j], nodes_.back());
    }
    template_->insert.edges(cuda::span<const Edge>{edges.data(), edges.size()});
    instance_.emplace(cuda::graph::instantiate(*template_));
  }
  void destroy() override {
    instance_.reset();
    nodes_.clear();
    template_.reset();
  }
  void set(int j, float b) override {
    instance_->set_node_parameters<Kind::kernel_launch>(nodes_[j], {kernel_, config_, args(j, b)});
  }
  void launch(cudaStream_t s) override {
    if (!stream_ || stream_->handle() != s) {
      stream_.emplace(cuda::stream::wrap(device_.id(), cuda::context::current::get().handle(), s, false, false));
    }
    instance_->launch(*stream_);
  }

 private:
  using Kind = cuda::graph::node::kind_t;
  using Edge = cuda::graph::template_t::edge_type;
  std::vector<void*> args(int j, float b) {
    arg_i_ = j;
    arg_b_ = b;
    return {&data_, &arg_i_, &arg_a_, &arg_b_};
  }

  float* data_;
  int arg_i_ = 0;
  float arg_a_ = step_a, arg_b_ = step_b;
  cuda::device_t device_ = cuda::device::current::get();
  cuda::kernel::apriori_compiled_t kernel_ = cuda::kernel::get(device_, &step);
  cuda::launch_configuration_t config_{cuda::grid::dimensions_t(tiny.grid.x, tiny.grid.y, tiny.grid.z),
                                       cuda::grid::block_dimensions_t(tiny.block.x, tiny.block.y, tiny.block.z)};
  std::optional<cuda::graph::template_t> template_;
  std::optional<cuda::graph::instance_t> instance_;
  std::vector<cuda::graph::node::typed_node_t<Kind::kernel_launch>> nodes_;
  std::optional<cuda::stream_t> stream_;
};
#endif

#ifdef GRAPHDSL_BENCH_PEER_TASKFLOW
/// Taskflow: arguments by value at the call site, converted to nothing (they match step's types).
class TaskflowSide final : public PeerSide {
 public:
  explicit TaskflowSide(float* data) : data_(data) {}
  const char* name() const override { return "taskflow"; }
  void build(Shape shape, int n) override {
    graph_.emplace();
    tasks_.clear();
    tasks_.reserve(n);
    for (int j = 0; j < n; ++j) {
      tasks_.push_back(graph_->kernel(tiny.grid, tiny.block, 0, step, data_, j, step_a, step_b));
      if (shape == Shape::chain && j > 0) tasks_[j - 1].precede(tasks_[j]);
      if (shape == Shape::fork_join && j > 0 && j < n - 1) tasks_.front().precede(tasks_[j]);
    }
    if (shape == Shape::fork_join) {
      for (int j = 1; j < n - 1; ++j) tasks_[j].precede(tasks_.back());
    }
    exec_.emplace(*graph_);
  }
  void destroy() override {
    exec_.reset();
    tasks_.clear();
    graph_.reset();
  }
  void set(int j, float b) override { exec_->kernel(tasks_[j], tiny.grid, tiny.block, 0, step, data_, j, step_a, b); }
  void launch(cudaStream_t s) override { CUDA_CHECK(cudaGraphLaunch(exec_->get(), s)); }

 private:
  float* data_;
  std::optional<tf::cudaGraph> graph_;
  std::optional<tf::cudaGraphExec> exec_;
  std::vector<tf::cudaTask> tasks_;
};
#endif

}  // namespace peer_sides_impl

std::vector<std::unique_ptr<PeerSide>> peer_sides(float* data) {
  std::vector<std::unique_ptr<PeerSide>> s;
#ifdef GRAPHDSL_BENCH_PEER_CAW
  s.push_back(std::make_unique<peer_sides_impl::CawSide>(data));
#endif
#ifdef GRAPHDSL_BENCH_PEER_TASKFLOW
  s.push_back(std::make_unique<peer_sides_impl::TaskflowSide>(data));
#endif
  (void)data;
  return s;
}

std::string peer_versions() {
#ifdef GRAPHDSL_BENCH_PEERS_VERSIONS
  return GRAPHDSL_BENCH_PEERS_VERSIONS;
#else
  return "";
#endif
}

}  // namespace bench
