// samples/multi_gpu — one plan over two GPUs: the input is scattered to both, each squares and
// weighs its share, an NCCL all-reduce inside the graph sums the two results, and both GPUs' sums
// are gathered back to the host.
//
//   scatter0 (gpu 0) --> square0 (gpu 0) --+                   +--> gather0 (gpu 0)
//                                          +--> all_reduce ---+
//   scatter1 (gpu 1) --> square1 (gpu 1) --+                   +--> gather1 (gpu 1)
//
//   scatterD  H2D copy of GPU D's share of the input (pinned host memory)
//   squareD   y_D = w_D * x_D * x_D  (a kernel on GPU D; w_0 and w_1 differ)
//   all_reduce  y_0 = y_1 = y_0 + y_1  (gd::nccl::add_all_reduce, in place: NCCL's own calls for
//               both ranks, captured into the plan at this node's place)
//   gatherD   D2H copy of GPU D's sum (both must equal the CPU reference)
//
// What it shows:
//   1. The plan is built and validated on the host, with no CUDA call, and printed. A collective
//      needs its communicators, and those need the GPUs: this host-only plan has an empty captured
//      node named all_reduce in the collective's place (same name, kind, device and edges, so the
//      same DOT). With `--dot` the sample prints that DOT alone and stops here.
//   2. With two GPUs and NCCL: for 1 Ki, 1 Mi and 16 Mi floats per GPU, the plan is compiled once
//      and launched in 9 rounds; every round's output is checked against a CPU float64 reference.
//      The time per launch is compared with the same work issued without a graph: one stream per
//      GPU (copies and kernel) and the all-reduce called from the host (ncclGroupStart, one
//      ncclAllReduce per rank on its stream, ncclGroupEnd) over the same communicators. Last, the
//      kernels' weights are changed on both GPUs with set_kernel_args and the result checked again.
//   3. A breakdown of what the plan costs, printed after that table: variants of the work, each timed
//      in the same rounds as the two above (every round times every variant, in one order on even
//      rounds and the reverse on odd ones; medians, with a noise figure), each variant's results
//      checked in every round. Pairs, per size:
//        whole launch      the plan vs the streams (as above); a raw CUDA graph of the same work (the
//                          streams' calls, NCCL's included, stream-captured into one cudaGraph_t on
//                          stream 0, the other GPU's stream forked in and joined back, instantiated and
//                          launched with no graphdsl) vs the streams: what one CUDA graph over two GPUs
//                          costs; and the plan vs the raw graph: what graphdsl adds to it.
//        no collective     the plan without its all_reduce node (each gatherD copies GPU D's own
//                          w_D * x_D^2) vs the streams without the NCCL call: the cross-device plan
//                          without NCCL; two plans, one per GPU, each launched on its GPU's stream, vs
//                          the same streams, and the single plan vs the two: whether one graph over two
//                          devices costs more than two single-device graphs.
//        all-reduce alone  a plan holding only the all_reduce node vs the host-called all-reduce alone;
//                          the host calls stream-captured into a raw CUDA graph vs the host calls (what
//                          NCCL costs inside any CUDA graph), and the plan vs that raw graph (what
//                          graphdsl adds to it).
// Exit status: 0 when the checks pass, and when the sample is skipped (fewer than two GPUs, or NCCL
// cannot be loaded); 1 otherwise.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nccl.h>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/nccl.hpp>

#include "host_nccl.hpp"
#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int gpus = 2;             // devices 0 and 1, ranks 0 and 1
constexpr int rounds = 9;           // timed rounds per variant and size (the median is reported)
constexpr int warmup = 5;           // untimed launches per variant and size before the first round
constexpr double tolerance = 1e-5;  // max abs error allowed against the float64 reference

using Weights = std::array<float, gpus>;
constexpr Weights weights{1.5f, -0.25f};    // w_D of squareD
constexpr Weights updated{-0.5f, 2.0f};     // set with set_kernel_args after the timed rounds

/// A problem size and how many launches one timed round makes.
struct Size {
  std::size_t count;  ///< floats per GPU
  int launches;
};
constexpr Size sizes[] = {{std::size_t{1} << 10, 200}, {std::size_t{1} << 20, 50}, {std::size_t{1} << 24, 10}};

__global__ void weigh_square(const float* in, float* out, float w, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = w * in[i] * in[i];
}

/// One GPU's buffers: its share of the input and its result, on the host (pinned) and the device.
struct Shard {
  float* h_in = nullptr;
  float* d_in = nullptr;
  float* d_y = nullptr;   ///< squareD's output, then (in place) the all-reduced sum
  float* h_out = nullptr;
};
using Shards = std::array<Shard, gpus>;

using SquareNode = gd::KernelNode<const float*, float*, float, int>;

/// Which of the plan's nodes a variant holds: the scatter, square and gather of GPUs [first, last),
/// and the all-reduce of both GPUs' y between the squares and the gathers. Without the all-reduce,
/// gatherD copies GPU D's own y_D = w_D * x_D^2.
struct Parts {
  int first = 0;
  int last = gpus;
  bool all_reduce = true;
};
constexpr Parts whole{0, gpus, true};           // the sample's plan
constexpr Parts no_collective{0, gpus, false};  // scatter, square and gather on both GPUs
constexpr Parts collective_only{0, 0, true};    // the all-reduce alone (no host result)
constexpr Parts one_gpu(int d) { return Parts{d, d + 1, false}; }

/// The plan and the handles the update step needs.
struct Plan {
  gd::Graph graph;
  std::array<SquareNode, gpus> square;  ///< empty for a GPU the plan leaves out
};

/// Adds the all-reduce node: the real collective, or the host-only stand-in.
using AddAllReduce = std::function<gd::CapturedNode(gd::Graph&)>;

std::string count_label(std::size_t count) {
  return count >= (1u << 20) ? fmt::format("{} Mi", count >> 20) : fmt::format("{} Ki", count >> 10);
}

/// The plan named `name` for `count` floats per GPU, holding `parts` (the whole plan by default).
/// Building it makes no CUDA call: pointers are only recorded, so the buffers must outlive every
/// executable compiled from it.
Plan build_plan(const Shards& s, std::size_t count, const Weights& w, const AddAllReduce& add_all_reduce,
                const Parts& parts = whole, const std::string& name = "multi_gpu") {
  Plan p{gd::Graph(name), {}};
  gd::Graph& g = p.graph;
  const gd::Launch grid = gd::cover(count);
  const int n = static_cast<int>(count);
  std::vector<gd::Node> squares;
  for (int d = parts.first; d < parts.last; ++d) {
    g.set_default_device(d);  // nodes added from here on run on GPU d
    auto scatter = g.add_memcpy(s[d].d_in, s[d].h_in, count).name(fmt::format("scatter{}", d));
    p.square[d] = g.add_kernel(weigh_square, grid, s[d].d_in, s[d].d_y, w[d], n)
                      .name(fmt::format("square{}", d))
                      .after(scatter);
    squares.push_back(p.square[d]);
  }
  // Not placed: a collective issues each rank's call on a stream of that rank's GPU itself.
  g.set_default_device(-1);
  std::optional<gd::CapturedNode> sum;
  if (parts.all_reduce) {
    sum = add_all_reduce(g).name("all_reduce");
    if (!squares.empty()) sum->after(squares);
  }
  for (int d = parts.first; d < parts.last; ++d) {
    g.add_memcpy(s[d].h_out, s[d].d_y, count)
        .name(fmt::format("gather{}", d))
        .on_device(d)
        .after(sum ? gd::Node(*sum) : gd::Node(p.square[d]));
  }
  return p;
}

// ---- the baseline: NCCL called from the host -------------------------------------------------

/// One stream per GPU (stream d on device d); the graph is launched on stream 0.
class Streams {
 public:
  Streams() {
    for (int d = 0; d < gpus; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[d], cudaStreamNonBlocking));
      CUDA_CHECK(cudaEventCreateWithFlags(&marks_[d], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaSetDevice(0));
  }
  ~Streams() {
    for (int d = 0; d < gpus; ++d) {
      (void)cudaEventDestroy(marks_[d]);
      (void)cudaStreamDestroy(streams_[d]);
    }
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;

  cudaStream_t operator[](int d) const { return streams_[d]; }

  /// Every stream waits for what every other stream has enqueued so far: a barrier across the GPUs.
  void barrier() const {
    for (int d = 0; d < gpus; ++d) CUDA_CHECK(cudaEventRecord(marks_[d], streams_[d]));
    for (int d = 0; d < gpus; ++d) {
      for (int e = 0; e < gpus; ++e) {
        if (e != d) CUDA_CHECK(cudaStreamWaitEvent(streams_[d], marks_[e], 0));
      }
    }
  }

  /// Waits for the work on every GPU's stream.
  void synchronize() const {
    for (cudaStream_t s : streams_) CUDA_CHECK(cudaStreamSynchronize(s));
  }

  /// Device time per launch of `launches` calls of `issue()`, between two events on stream 0. The
  /// other streams wait for the start and stream 0 waits for them before the stop, so the figure
  /// covers the work on every GPU.
  template <class Issue>
  double us_per_launch(int launches, Issue&& issue) {
    timer_.start(streams_[0]);
    fork();
    for (int i = 0; i < launches; ++i) issue();
    join();
    return timer_.stop_us(streams_[0]) / launches;
  }

  /// One CUDA graph of what `issue()` enqueues on the streams, by plain stream capture (no graphdsl):
  /// stream 0 begins the capture, the other streams join it through an event and are joined back
  /// before it ends. Relaxed mode: no call of this thread is refused during the capture (graphdsl
  /// captures its collective in thread-local mode; the mode changes nothing in the graph made).
  /// @throws std::runtime_error naming the failed call (the capture is ended first).
  template <class Issue>
  cudaGraph_t capture(Issue&& issue) {
    CUDA_CHECK(cudaSetDevice(0));
    throw_on_error(cudaStreamBeginCapture(streams_[0], cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      fork();
      issue();
      join();
    } catch (...) {
      if (cudaStreamEndCapture(streams_[0], &graph) == cudaSuccess && graph != nullptr) (void)cudaGraphDestroy(graph);
      (void)cudaGetLastError();
      throw;
    }
    throw_on_error(cudaStreamEndCapture(streams_[0], &graph), "cudaStreamEndCapture");
    return graph;
  }

  /// Throws std::runtime_error naming `call` unless `rc` is cudaSuccess (and clears the error).
  static void throw_on_error(cudaError_t rc, const char* call) {
    if (rc == cudaSuccess) return;
    (void)cudaGetLastError();
    throw std::runtime_error(fmt::format("{} failed: {} ({})", call, cudaGetErrorName(rc), cudaGetErrorString(rc)));
  }

 private:
  /// The other streams wait for what stream 0 has enqueued so far.
  void fork() {
    CUDA_CHECK(cudaEventRecord(marks_[0], streams_[0]));
    for (int d = 1; d < gpus; ++d) CUDA_CHECK(cudaStreamWaitEvent(streams_[d], marks_[0], 0));
  }
  /// Stream 0 waits for what the other streams have enqueued so far.
  void join() {
    for (int d = 1; d < gpus; ++d) {
      CUDA_CHECK(cudaEventRecord(marks_[d], streams_[d]));
      CUDA_CHECK(cudaStreamWaitEvent(streams_[0], marks_[d], 0));
    }
  }

  std::array<cudaStream_t, gpus> streams_{};
  std::array<cudaEvent_t, gpus> marks_{};  ///< mark d is recorded on stream d
  sample::EventTimer timer_;               // created on device 0, recorded on stream 0
};

/// The work of `parts` without a graph (the whole plan's by default): on each GPU's stream the
/// scatter copy and the kernel, then the all-reduce called from the host over the same
/// communicators, then the gather copies.
void issue_on_streams(const Shards& s, std::size_t count, const Streams& streams, const gd::nccl::Communicators& comms,
                      const sample::HostNccl& nccl, const Parts& parts = whole, bool barrier_first = false) {
  const gd::Launch grid = gd::cover(count);
  const std::size_t bytes = count * sizeof(float);
  for (int d = parts.first; d < parts.last; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMemcpyAsync(s[d].d_in, s[d].h_in, bytes, cudaMemcpyHostToDevice, streams[d]));
    weigh_square<<<grid.grid, grid.block, 0, streams[d]>>>(s[d].d_in, s[d].d_y, weights[d], static_cast<int>(count));
    CUDA_CHECK(cudaGetLastError());
  }
  if (parts.all_reduce) {
    if (barrier_first) streams.barrier();  // every rank's all-reduce after both GPUs' kernels, as the plan's edges say
    nccl.check(nccl.group_start(), "ncclGroupStart");
    for (int d = 0; d < gpus; ++d) {
      const auto comm = static_cast<ncclComm_t>(comms.native_handle(static_cast<std::size_t>(d)));
      nccl.check(nccl.all_reduce(s[d].d_y, s[d].d_y, count, ncclFloat32, ncclSum, comm, streams[d]), "ncclAllReduce");
    }
    nccl.check(nccl.group_end(), "ncclGroupEnd");
  }
  for (int d = parts.first; d < parts.last; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMemcpyAsync(s[d].h_out, s[d].d_y, bytes, cudaMemcpyDeviceToHost, streams[d]));
  }
  CUDA_CHECK(cudaSetDevice(0));
}

/// A CUDA graph of the streams' work made by Streams::capture and instantiated (cudaGraphInstantiate)
/// with no graphdsl: the raw-CUDA-graph variant of the breakdown. A failed capture or instantiation
/// leaves it empty, with the reason in error(): the sample reports it and goes on without it.
class RawGraph {
 public:
  template <class Issue>
  RawGraph(Streams& streams, Issue&& issue) {
    try {
      graph_ = streams.capture(issue);
      Streams::throw_on_error(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
    } catch (const std::exception& e) {
      error_ = e.what();
      exec_ = nullptr;
    }
  }
  ~RawGraph() {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
  }
  RawGraph(const RawGraph&) = delete;
  RawGraph& operator=(const RawGraph&) = delete;

  explicit operator bool() const { return exec_ != nullptr; }
  /// Why the graph could not be made (empty when it was).
  const std::string& error() const { return error_; }
  /// cudaGraphLaunch on `stream` (a stream of device 0, the current device).
  void launch(cudaStream_t stream) const { CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::string error_;
};

// ---- memory and checks -------------------------------------------------------------------------

/// Owns both GPUs' buffers, sized for `count` floats per GPU; the input is random, fixed seed.
struct Memory {
  Shards s{};

  explicit Memory(std::size_t count) {
    const std::size_t bytes = count * sizeof(float);
    std::mt19937 rng(20261122u);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int d = 0; d < gpus; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      CUDA_CHECK(cudaMalloc(&s[d].d_in, bytes));
      CUDA_CHECK(cudaMalloc(&s[d].d_y, bytes));
      // Portable: pinned for every device, since GPU d copies from and to its own share.
      CUDA_CHECK(cudaHostAlloc(&s[d].h_in, bytes, cudaHostAllocPortable));
      CUDA_CHECK(cudaHostAlloc(&s[d].h_out, bytes, cudaHostAllocPortable));
      std::generate(s[d].h_in, s[d].h_in + count, [&] { return dist(rng); });
    }
    CUDA_CHECK(cudaSetDevice(0));
  }
  ~Memory() {
    for (const Shard& x : s) {
      (void)cudaFree(x.d_in);
      (void)cudaFree(x.d_y);
      (void)cudaFreeHost(x.h_in);
      (void)cudaFreeHost(x.h_out);
    }
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
};

/// What each GPU's result must be, in float64.
struct Reference {
  std::array<std::vector<double>, gpus> own;  ///< w_D * x_D^2: GPU D's result without the all-reduce
  std::vector<double> sum;                    ///< the sum over D of own[D]: every GPU's after the all-reduce
};

Reference reference(const Shards& s, std::size_t count, const Weights& w) {
  Reference ref;
  ref.sum.assign(count, 0.0);
  for (int d = 0; d < gpus; ++d) {
    ref.own[d].resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      const double x = s[d].h_in[i];
      ref.own[d][i] = w[d] * x * x;
      ref.sum[i] += ref.own[d][i];
    }
  }
  return ref;
}

/// Fills both host results with NaN, so that an element no gather wrote fails the check.
void poison(const Shards& s, std::size_t count) {
  for (const Shard& x : s) std::fill(x.h_out, x.h_out + count, std::numeric_limits<float>::quiet_NaN());
}

/// Copies both GPUs' y into their host results (for the all-reduce alone, which has no gather).
void fetch_y(const Shards& s, std::size_t count) {
  for (const Shard& x : s) CUDA_CHECK(cudaMemcpy(x.h_out, x.d_y, count * sizeof(float), cudaMemcpyDeviceToHost));
}

/// The largest |result - expected| over the host results of the GPUs `parts` gathers: the sum when
/// it holds the all-reduce, else each GPU's own w_D * x_D^2 (NaN counts as infinitely wrong).
double worst_error(const Shards& s, const Parts& parts, const Reference& ref) {
  double worst = 0.0;
  for (int d = parts.first; d < parts.last; ++d) {
    const std::vector<double>& want = parts.all_reduce ? ref.sum : ref.own[d];
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double e = std::fabs(static_cast<double>(s[d].h_out[i]) - want[i]);
      worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(worst, e);
    }
  }
  return worst;
}

// ---- one size ----------------------------------------------------------------------------------

/// The variants every round times, in the order of the even rounds (the odd rounds run them in
/// reverse); the two of each pair the breakdown compares are neighbours.
enum Variant : int {
  plan_whole,             // the sample's plan, launched on stream 0
  streams_whole,          // its work on the streams, the all-reduce called from the host
  raw_graph_whole,        // streams_whole stream-captured into one CUDA graph, launched on stream 0
  raw_graph_barrier,      // the same with a barrier across the streams before the NCCL calls
  plan_no_collective,     // the plan without the all_reduce node
  streams_no_collective,  // streams_whole without the NCCL call
  plans_per_gpu,          // two plans, GPU D's scatter, square and gather each, on stream D
  raw_graph_no_collective,  // streams_no_collective stream-captured into one CUDA graph, launched on stream 0
  plan_all_reduce,        // a plan holding only the all_reduce node
  host_all_reduce,        // the host-called all-reduce alone
  raw_graph_all_reduce,   // host_all_reduce stream-captured into one CUDA graph, launched on stream 0
  variant_count
};

/// A variant's name in the breakdown and the nodes its work holds.
struct VariantInfo {
  const char* label;
  Parts parts;
};
constexpr VariantInfo variant_info[variant_count] = {
    {"graphdsl plan", whole},           {"streams + host NCCL", whole}, {"raw CUDA graph", whole},
    {"raw graph, barrier", whole},
    {"graphdsl plan", no_collective},   {"streams", no_collective},     {"one plan per GPU", no_collective},
    {"raw CUDA graph", no_collective},
    {"graphdsl plan", collective_only}, {"host NCCL", collective_only},     {"raw CUDA graph", collective_only},
};

/// The breakdown's name for the work of `parts`.
const char* work_name(const Parts& parts) {
  if (parts.first == parts.last) return "all-reduce alone";
  return parts.all_reduce ? "whole launch" : "no collective";
}

/// A row of the breakdown: variant a's time per launch against variant b's (the same work).
struct Pair {
  Variant a, b;
};
constexpr Pair breakdown_pairs[] = {
    {plan_whole, streams_whole},
    {raw_graph_whole, streams_whole},
    {plan_whole, raw_graph_whole},
    {raw_graph_barrier, raw_graph_whole},
    {plan_whole, raw_graph_barrier},
    {plan_no_collective, streams_no_collective},
    {plans_per_gpu, streams_no_collective},
    {plan_no_collective, plans_per_gpu},
    {raw_graph_no_collective, streams_no_collective},
    {plan_no_collective, raw_graph_no_collective},
    {plan_all_reduce, host_all_reduce},
    {raw_graph_all_reduce, host_all_reduce},
    {plan_all_reduce, raw_graph_all_reduce},
};

struct Figures {
  std::size_t count = 0;
  int launches = 0;
  std::array<std::vector<double>, variant_count> us;  ///< per launch, one entry per round (empty: not measured)
  std::array<double, variant_count> worst{};          ///< over every checked round of the variant
  double worst_after_update = 0.0;
  std::string raw_graph_error;  ///< why a raw CUDA graph was not measured (empty: both were)

  /// The worst error over every variant.
  double worst_of_all() const { return *std::max_element(worst.begin(), worst.end()); }
};

Figures measure(const Size& size, Memory& mem, const gd::nccl::Communicators& comms, Streams& streams,
                const sample::HostNccl& nccl, bool print_plan) {
  Figures f;
  f.count = size.count;
  f.launches = size.launches;
  const Shards& s = mem.s;
  const std::size_t count = size.count;
  const AddAllReduce all_reduce = [&comms, &s, count](gd::Graph& g) {
    return gd::nccl::add_all_reduce<float>(g, comms, {{s[0].d_y, s[0].d_y}, {s[1].d_y, s[1].d_y}}, count);
  };
  const Plan plan = build_plan(s, count, weights, all_reduce);
  if (print_plan) fmt::print("--- the plan with its NCCL collective, Graph::dump() ---\n{}\n", plan.graph.dump());
  gd::Executable exec = plan.graph.instantiate();  // checks the devices, captures the collective

  // The breakdown's variants: the same plan builder with fewer parts, and the same stream calls.
  gd::Executable exec_no_collective =
      build_plan(s, count, weights, all_reduce, no_collective, "multi_gpu.no_collective").graph.instantiate();
  gd::Executable exec_all_reduce =
      build_plan(s, count, weights, all_reduce, collective_only, "multi_gpu.all_reduce").graph.instantiate();
  std::array<gd::Executable, gpus> exec_per_gpu;
  for (int d = 0; d < gpus; ++d) {
    CUDA_CHECK(cudaSetDevice(d));  // compiled and launched with its own GPU current
    exec_per_gpu[d] =
        build_plan(s, count, weights, all_reduce, one_gpu(d), fmt::format("multi_gpu.gpu{}", d)).graph.instantiate();
  }
  CUDA_CHECK(cudaSetDevice(0));
  auto on_streams = [&](const Parts& parts) {
    return [&, parts] { issue_on_streams(s, count, streams, comms, nccl, parts); };
  };
  const RawGraph raw(streams, on_streams(whole));
  const RawGraph raw_barrier(streams, [&] { issue_on_streams(s, count, streams, comms, nccl, whole, true); });
  const RawGraph raw_no_collective(streams, on_streams(no_collective));
  const RawGraph raw_all_reduce(streams, on_streams(collective_only));
  for (const RawGraph* g : {&raw, &raw_barrier, &raw_no_collective, &raw_all_reduce}) {
    if (f.raw_graph_error.empty()) f.raw_graph_error = g->error();
  }

  std::array<std::function<void()>, variant_count> issue;  // one launch of each variant
  issue[plan_whole] = [&] { exec.launch(streams[0]); };
  issue[streams_whole] = on_streams(whole);
  issue[raw_graph_whole] = [&] { raw.launch(streams[0]); };
  issue[raw_graph_barrier] = [&] { raw_barrier.launch(streams[0]); };
  issue[plan_no_collective] = [&] { exec_no_collective.launch(streams[0]); };
  issue[streams_no_collective] = on_streams(no_collective);
  issue[plans_per_gpu] = [&] {
    for (int d = 0; d < gpus; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      exec_per_gpu[d].launch(streams[d]);
    }
    CUDA_CHECK(cudaSetDevice(0));
  };
  issue[raw_graph_no_collective] = [&] { raw_no_collective.launch(streams[0]); };
  issue[plan_all_reduce] = [&] { exec_all_reduce.launch(streams[0]); };
  issue[host_all_reduce] = on_streams(collective_only);
  issue[raw_graph_all_reduce] = [&] { raw_all_reduce.launch(streams[0]); };

  const Reference ref = reference(s, count, weights);
  auto timed = [&](Variant v) {
    const Parts& parts = variant_info[v].parts;
    poison(s, count);
    f.us[v].push_back(streams.us_per_launch(size.launches, issue[v]));  // returns when both GPUs are done
    if (parts.first == parts.last) {
      // The all-reduce alone has no gather, and each of its timed launches doubled y in place (up
      // to +-inf: the time does not depend on the values): run it once more on fresh squares.
      issue_on_streams(s, count, streams, comms, nccl, no_collective);  // y_D = w_D * x_D^2
      streams.synchronize();
      poison(s, count);
      (void)streams.us_per_launch(1, issue[v]);
      fetch_y(s, count);
    }
    f.worst[v] = std::max(f.worst[v], worst_error(s, parts.first == parts.last ? whole : parts, ref));
  };

  // The variants use the same buffers and communicators: one never runs while another does.
  std::vector<Variant> order;
  for (int v = 0; v < variant_count; ++v) {
    if ((v != raw_graph_whole || raw) && (v != raw_graph_barrier || raw_barrier) &&
        (v != raw_graph_no_collective || raw_no_collective) &&
        (v != raw_graph_all_reduce || raw_all_reduce)) {
      order.push_back(static_cast<Variant>(v));
    }
  }
  for (Variant v : order) {
    for (int i = 0; i < warmup; ++i) issue[v]();
    streams.synchronize();
  }
  for (int r = 0; r < rounds; ++r) {  // interleaved: G S R ..., ... R S G, G S R ...
    if (r % 2 == 0) {
      std::for_each(order.begin(), order.end(), timed);
    } else {
      std::for_each(order.rbegin(), order.rend(), timed);
    }
  }

  // New weights on both GPUs: each setter patches its node in the context of the node's device.
  for (int d = 0; d < gpus; ++d) {
    exec.set_kernel_args(plan.square[d], s[d].d_in, s[d].d_y, updated[d], static_cast<int>(count));
  }
  poison(s, count);
  exec.launch(streams[0]);
  exec.synchronize(streams[0]);
  f.worst_after_update = worst_error(s, whole, reference(s, count, updated));
  return f;
}

/// Prints the breakdown: for each size, each pair's medians, their ratio and the noise.
void report_breakdown(const std::vector<Figures>& all) {
  fmt::print("\nbreakdown (the same rounds as above: each round times every variant, in one order on even rounds "
             "and the reverse on odd ones;\n"
             "  median us per launch of A and B, A/B, noise = the larger half-spread of the two):\n");
  fmt::print("  {:>10}  {:<16}  {:<19}  {:>10}  {:<19}  {:>10}  {:>7}  {:>7}\n", "floats/GPU", "work", "A", "A us",
             "B", "B us", "A/B", "noise");
  for (const Figures& f : all) {
    for (const Pair& p : breakdown_pairs) {
      const char* const work = work_name(variant_info[p.a].parts);
      const std::vector<double>& a = f.us[p.a];
      const std::vector<double>& b = f.us[p.b];
      const char* const a_label = variant_info[p.a].label;
      const char* const b_label = variant_info[p.b].label;
      if (a.empty() || b.empty()) {
        fmt::print("  {:>10}  {:<16}  {:<19}  {:>10}  {:<19}  {:>10}  {:>7}  {:>7}\n", count_label(f.count), work,
                   a_label, a.empty() ? "n/a" : fmt::format("{:.2f}", sample::median(a)), b_label,
                   b.empty() ? "n/a" : fmt::format("{:.2f}", sample::median(b)), "n/a", "n/a");
        continue;
      }
      const double ma = sample::median(a);
      const double mb = sample::median(b);
      const double noise = std::max(sample::half_spread(a), sample::half_spread(b));
      fmt::print("  {:>10}  {:<16}  {:<19}  {:>10.2f}  {:<19}  {:>10.2f}  {:>7.3f}  {:>6.1f}%\n", count_label(f.count),
                 work, a_label, ma, b_label, mb, mb > 0.0 ? ma / mb : 0.0, 100.0 * noise);
    }
  }
  fmt::print("  whole launch: scatter to both GPUs, a kernel on each, all-reduce, gather from both. raw CUDA graph: "
             "the streams' calls\n"
             "    (NCCL's included) stream-captured into one CUDA graph and launched on stream 0, no graphdsl; raw graph,\n"
             "    barrier: the same with every rank's all-reduce after both GPUs' kernels (the plan's edges).\n"
             "  no collective: scatter, kernel and gather on both GPUs, no all-reduce. one plan per GPU: two graphdsl "
             "plans,\n"
             "    one per GPU, each launched on its own GPU's stream; raw CUDA graph: the streams' calls stream-captured\n"
             "    into one CUDA graph (both GPUs' nodes in one graph, as in the plan).\n"
             "  all-reduce alone: the in-place all-reduce of both GPUs' y, nothing else (a graphdsl plan of the "
             "all_reduce node\n"
             "    vs ncclGroupStart, ncclAllReduce per rank, ncclGroupEnd from the host; raw CUDA graph: those host calls\n"
             "    stream-captured into one CUDA graph, no graphdsl: what NCCL costs inside any CUDA graph).\n");
}

bool report(const std::vector<Figures>& all) {
  bool ok = true;
  fmt::print("checks (both GPUs' results vs the CPU float64 reference, tolerance {:g}; outputs poisoned with NaN "
             "before each round):\n",
             tolerance);
  for (const Figures& f : all) {
    const double worst = f.worst_of_all();
    const bool timed_ok = worst <= tolerance;
    const bool update_ok = f.worst_after_update <= tolerance;
    ok = ok && timed_ok && update_ok;  // a raw graph CUDA would not make is reported, not failed
    fmt::print("  {:>5} floats per GPU: {} rounds x {} launches per variant: worst {:.3g} {}; after set_kernel_args "
               "on square0 and square1: worst {:.3g} {}\n",
               count_label(f.count), rounds, f.launches, worst, timed_ok ? "ok" : "FAILED", f.worst_after_update,
               update_ok ? "ok" : "FAILED");
    for (int v = 0; v < variant_count; ++v) {
      if (f.worst[v] > tolerance) {
        fmt::print("    FAILED: {} ({}): worst {:.3g}\n", variant_info[v].label, work_name(variant_info[v].parts),
                   f.worst[v]);
      }
    }
    if (!f.raw_graph_error.empty()) fmt::print("    raw CUDA graph not measured (CUDA did not make it): {}\n", f.raw_graph_error);
  }
  fmt::print("\ntime per launch (cudaEvent on device 0's stream, the other GPU's stream joined; median of {} rounds, "
             "order alternated, after {} warm-up launches each;\n"
             "  one launch = scatter to both GPUs, a kernel on each, all-reduce, gather from both):\n",
             rounds, warmup);
  fmt::print("  {:>10}  {:>8}  {:>12}  {:>15}  {:>13}  {:>7}\n", "floats/GPU", "launches", "graph us", "streams+NCCL us",
             "graph/streams", "noise");
  for (const Figures& f : all) {
    const double g = sample::median(f.us[plan_whole]);
    const double st = sample::median(f.us[streams_whole]);
    const double noise = std::max(sample::half_spread(f.us[plan_whole]), sample::half_spread(f.us[streams_whole]));
    fmt::print("  {:>10}  {:>8}  {:>12.2f}  {:>15.2f}  {:>13.3f}  {:>6.1f}%\n", count_label(f.count), f.launches, g, st,
               st > 0.0 ? g / st : 0.0, 100.0 * noise);
  }
  report_breakdown(all);
  return ok;
}

// ---- main --------------------------------------------------------------------------------------

int run(bool dot_only) {
  // ---- 1. the plan, on the host: placeholder buffers and the real collective ------------------
  // Communicators name the devices and create nothing until a plan over them is compiled, so the
  // plan with its collective is built, validated and printed with no CUDA call.
  constexpr std::size_t preview_count = sizes[0].count;
  std::vector<float> placeholder(4 * gpus * preview_count);
  Shards stand_in{};
  for (int d = 0; d < gpus; ++d) {
    float* base = placeholder.data() + 4 * d * preview_count;
    stand_in[d] = Shard{base, base + preview_count, base + 2 * preview_count, base + 3 * preview_count};
  }
  const auto calls_before = gd::debug::cuda_calls();
  const gd::nccl::Communicators comms({0, 1});  // rank d on device d; ncclCommInitAll at first compile
  const Plan preview = build_plan(stand_in, preview_count, weights, [&](gd::Graph& g) {
    return gd::nccl::add_all_reduce<float>(g, comms, {{stand_in[0].d_y, stand_in[0].d_y}, {stand_in[1].d_y, stand_in[1].d_y}},
                                           preview_count);
  });
  preview.graph.validate();  // the rules that need no CUDA; devices are checked by instantiate()
  if (dot_only) return sample::print_dot(calls_before, preview.graph);
  fmt::print("graphdsl {} multi_gpu sample: {} GPUs, NCCL all-reduce inside the plan\n\n", gd::version_string, gpus);
  fmt::print("plan '{}' built and validated on the host: {} nodes, {} edges, {} CUDA calls\n\n",
             preview.graph.name(), preview.graph.node_count(), preview.graph.edge_count(),
             gd::debug::cuda_calls() - calls_before);
  fmt::print("--- Graph::dump() ---\n{}\n", preview.graph.dump());

  // ---- 2. two GPUs and NCCL? ------------------------------------------------------------------
  const int devices = sample::cuda_device_count();
  if (devices == 0) {
    fmt::print("skipped: no CUDA device (the sample needs 2 GPUs)\n");
    return 0;
  }
  if (devices < gpus) {
    fmt::print("skipped: needs 2 GPUs (this process sees {})\n", devices);
    return 0;
  }
  if (!gd::nccl::available()) {
    fmt::print("skipped: {}\n", gd::nccl::unavailable_reason());
    return 0;
  }
  for (int d = 0; d < gpus; ++d) fmt::print("device {}: {}\n", d, sample::device_summary(d));
  int peer = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&peer, 0, 1));
  const int v = gd::nccl::version();
  fmt::print("peer access between devices 0 and 1: {}; NCCL {}.{}.{} (loaded at run time)\n\n",
             peer ? "available" : "not available", v / 10000, (v / 100) % 100, v % 100);
  CUDA_CHECK(cudaSetDevice(0));

  // ---- 3. buffers, streams; then each size (the first compile creates the communicators) -------
  const sample::HostNccl nccl;
  Memory mem(sizes[std::size(sizes) - 1].count);  // the largest size; smaller ones use the start
  Streams streams;
  std::vector<Figures> all;
  for (const Size& size : sizes) all.push_back(measure(size, mem, comms, streams, nccl, all.empty()));

  // ---- 4. report ------------------------------------------------------------------------------
  const bool ok = report(all);
  fmt::print("\n{}\n", ok ? "multi_gpu: PASSED" : "multi_gpu: FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv)); });
}
