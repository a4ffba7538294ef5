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

/// The plan and the handles the update step needs.
struct Plan {
  gd::Graph graph{"multi_gpu"};
  std::array<SquareNode, gpus> square;
};

/// Adds the all-reduce node: the real collective, or the host-only stand-in.
using AddAllReduce = std::function<gd::CapturedNode(gd::Graph&)>;

std::string count_label(std::size_t count) {
  return count >= (1u << 20) ? fmt::format("{} Mi", count >> 20) : fmt::format("{} Ki", count >> 10);
}

/// The plan for `count` floats per GPU. Building it makes no CUDA call: pointers are only recorded,
/// so the buffers must outlive every executable compiled from it.
Plan build_plan(const Shards& s, std::size_t count, const Weights& w, const AddAllReduce& add_all_reduce) {
  Plan p;
  gd::Graph& g = p.graph;
  const gd::Launch grid = gd::cover(count);
  const int n = static_cast<int>(count);
  for (int d = 0; d < gpus; ++d) {
    g.set_default_device(d);  // nodes added from here on run on GPU d
    auto scatter = g.add_memcpy(s[d].d_in, s[d].h_in, count).name(fmt::format("scatter{}", d));
    p.square[d] = g.add_kernel(weigh_square, grid, s[d].d_in, s[d].d_y, w[d], n)
                      .name(fmt::format("square{}", d))
                      .after(scatter);
  }
  // Not placed: a collective issues each rank's call on a stream of that rank's GPU itself.
  g.set_default_device(-1);
  const gd::CapturedNode sum = add_all_reduce(g).name("all_reduce").after(p.square);
  for (int d = 0; d < gpus; ++d) {
    g.add_memcpy(s[d].h_out, s[d].d_y, count).name(fmt::format("gather{}", d)).on_device(d).after(sum);
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
    CUDA_CHECK(cudaEventRecord(marks_[0], streams_[0]));
    for (int d = 1; d < gpus; ++d) CUDA_CHECK(cudaStreamWaitEvent(streams_[d], marks_[0], 0));
    for (int i = 0; i < launches; ++i) issue();
    for (int d = 1; d < gpus; ++d) {
      CUDA_CHECK(cudaEventRecord(marks_[d], streams_[d]));
      CUDA_CHECK(cudaStreamWaitEvent(streams_[0], marks_[d], 0));
    }
    return timer_.stop_us(streams_[0]) / launches;
  }

 private:
  std::array<cudaStream_t, gpus> streams_{};
  std::array<cudaEvent_t, gpus> marks_{};  ///< mark d is recorded on stream d
  sample::EventTimer timer_;               // created on device 0, recorded on stream 0
};

/// The plan's work without a graph: on each GPU's stream the scatter copy and the kernel, then the
/// all-reduce called from the host over the same communicators, then the gather copies.
void issue_on_streams(const Shards& s, std::size_t count, const Streams& streams, const gd::nccl::Communicators& comms,
                      const sample::HostNccl& nccl) {
  const gd::Launch grid = gd::cover(count);
  const std::size_t bytes = count * sizeof(float);
  for (int d = 0; d < gpus; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMemcpyAsync(s[d].d_in, s[d].h_in, bytes, cudaMemcpyHostToDevice, streams[d]));
    weigh_square<<<grid.grid, grid.block, 0, streams[d]>>>(s[d].d_in, s[d].d_y, weights[d], static_cast<int>(count));
    CUDA_CHECK(cudaGetLastError());
  }
  nccl.check(nccl.group_start(), "ncclGroupStart");
  for (int d = 0; d < gpus; ++d) {
    const auto comm = static_cast<ncclComm_t>(comms.native_handle(static_cast<std::size_t>(d)));
    nccl.check(nccl.all_reduce(s[d].d_y, s[d].d_y, count, ncclFloat32, ncclSum, comm, streams[d]), "ncclAllReduce");
  }
  nccl.check(nccl.group_end(), "ncclGroupEnd");
  for (int d = 0; d < gpus; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMemcpyAsync(s[d].h_out, s[d].d_y, bytes, cudaMemcpyDeviceToHost, streams[d]));
  }
  CUDA_CHECK(cudaSetDevice(0));
}

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

/// sum over D of w_D * x_D^2, in float64: what every GPU must end with.
std::vector<double> reference(const Shards& s, std::size_t count, const Weights& w) {
  std::vector<double> ref(count, 0.0);
  for (int d = 0; d < gpus; ++d) {
    for (std::size_t i = 0; i < count; ++i) {
      const double x = s[d].h_in[i];
      ref[i] += w[d] * x * x;
    }
  }
  return ref;
}

/// Fills both host results with NaN, so that an element no gather wrote fails the check.
void poison(const Shards& s, std::size_t count) {
  for (const Shard& x : s) std::fill(x.h_out, x.h_out + count, std::numeric_limits<float>::quiet_NaN());
}

/// The largest |result - ref| over both GPUs' results (NaN counts as infinitely wrong).
double worst_error(const Shards& s, const std::vector<double>& ref) {
  double worst = 0.0;
  for (const Shard& x : s) {
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const double e = std::fabs(static_cast<double>(x.h_out[i]) - ref[i]);
      worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(worst, e);
    }
  }
  return worst;
}

// ---- one size ----------------------------------------------------------------------------------

struct Figures {
  std::size_t count = 0;
  int launches = 0;
  std::vector<double> graph_us, streams_us;  ///< per launch, one entry per round
  double worst = 0.0;                        ///< over every checked round of both variants
  double worst_after_update = 0.0;
};

Figures measure(const Size& size, Memory& mem, const gd::nccl::Communicators& comms, Streams& streams,
                const sample::HostNccl& nccl, bool print_plan) {
  Figures f;
  f.count = size.count;
  f.launches = size.launches;
  const Shards& s = mem.s;
  const Plan plan = build_plan(s, size.count, weights, [&comms, &s, count = size.count](gd::Graph& g) {
    return gd::nccl::add_all_reduce<float>(g, comms, {{s[0].d_y, s[0].d_y}, {s[1].d_y, s[1].d_y}}, count);
  });
  if (print_plan) fmt::print("--- the plan with its NCCL collective, Graph::dump() ---\n{}\n", plan.graph.dump());
  gd::Executable exec = plan.graph.instantiate();  // checks the devices, captures the collective

  auto graph_round = [&] { exec.launch(streams[0]); };
  auto stream_round = [&] { issue_on_streams(s, size.count, streams, comms, nccl); };
  const std::vector<double> ref = reference(s, size.count, weights);
  auto timed = [&](auto&& issue, std::vector<double>& us) {
    poison(s, size.count);
    us.push_back(streams.us_per_launch(size.launches, issue));  // returns when both GPUs are done
    f.worst = std::max(f.worst, worst_error(s, ref));
  };

  // The two variants use the same buffers and communicators: one never runs while the other does.
  for (int i = 0; i < warmup; ++i) graph_round();
  streams.synchronize();
  for (int i = 0; i < warmup; ++i) stream_round();
  streams.synchronize();
  for (int r = 0; r < rounds; ++r) {  // interleaved: G S, S G, G S, ...
    if (r % 2 == 0) {
      timed(graph_round, f.graph_us);
      timed(stream_round, f.streams_us);
    } else {
      timed(stream_round, f.streams_us);
      timed(graph_round, f.graph_us);
    }
  }

  // New weights on both GPUs: each setter patches its node in the context of the node's device.
  for (int d = 0; d < gpus; ++d) {
    exec.set_kernel_args(plan.square[d], s[d].d_in, s[d].d_y, updated[d], static_cast<int>(size.count));
  }
  poison(s, size.count);
  exec.launch(streams[0]);
  exec.synchronize(streams[0]);
  f.worst_after_update = worst_error(s, reference(s, size.count, updated));
  return f;
}

bool report(const std::vector<Figures>& all) {
  bool ok = true;
  fmt::print("checks (both GPUs' results vs the CPU float64 reference, tolerance {:g}; outputs poisoned with NaN "
             "before each round):\n",
             tolerance);
  for (const Figures& f : all) {
    const bool timed_ok = f.worst <= tolerance;
    const bool update_ok = f.worst_after_update <= tolerance;
    ok = ok && timed_ok && update_ok;
    fmt::print("  {:>5} floats per GPU: {} rounds x {} launches per variant: worst {:.3g} {}; after set_kernel_args "
               "on square0 and square1: worst {:.3g} {}\n",
               count_label(f.count), rounds, f.launches, f.worst, timed_ok ? "ok" : "FAILED", f.worst_after_update,
               update_ok ? "ok" : "FAILED");
  }
  fmt::print("\ntime per launch (cudaEvent on device 0's stream, the other GPU's stream joined; median of {} rounds, "
             "order alternated, after {} warm-up launches each;\n"
             "  one launch = scatter to both GPUs, a kernel on each, all-reduce, gather from both):\n",
             rounds, warmup);
  fmt::print("  {:>10}  {:>8}  {:>12}  {:>15}  {:>13}  {:>7}\n", "floats/GPU", "launches", "graph us", "streams+NCCL us",
             "graph/streams", "noise");
  for (const Figures& f : all) {
    const double g = sample::median(f.graph_us);
    const double st = sample::median(f.streams_us);
    const double noise = std::max(sample::half_spread(f.graph_us), sample::half_spread(f.streams_us));
    fmt::print("  {:>10}  {:>8}  {:>12.2f}  {:>15.2f}  {:>13.3f}  {:>6.1f}%\n", count_label(f.count), f.launches, g, st,
               st > 0.0 ? g / st : 0.0, 100.0 * noise);
  }
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
