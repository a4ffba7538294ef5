// samples/pipeline — the main demo: a DAG written down node by node, with named nodes and
// explicit edges, compiled once and launched many times.
//
//   upload --+--> scale  --+
//            +--> square --+--> combine --> download --> checksum
//            +--> offset --+
//
//   upload    H2D copy from a pinned host buffer
//   scale     x = 2.5 * in        } three kernels, each reading the uploaded buffer and writing
//   square    y = in * in         } its own output; nothing orders them against each other, so
//   offset    z = in - 0.75       } the graph may run them concurrently
//   combine   out = x + y * z
//   download  D2H copy into a pinned host buffer
//   checksum  host callback: sums the output and counts batches
//
// What it shows:
//   1. The plan is built and validated on the host with no CUDA call at all; its text dump and its
//      Graphviz DOT are printed. This part runs on any machine. With `--dot` the sample prints the
//      DOT alone and stops here (docs/pictures/pipeline.svg is drawn from it).
//   2. With a GPU: the plan is compiled once and launched 5 x 200 times; the result is checked
//      against a CPU reference after every round, and the time per launch is compared with issuing
//      the same work as plain stream operations (cudaMemcpyAsync + kernel<<<>>> + cudaLaunchHostFunc
//      on one stream), timed with cudaEvents in the same run.
// Exit status: 0 when the checks pass (or when there is no GPU), 1 otherwise.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int n = 1 << 16;           // elements per buffer (256 KiB of floats)
constexpr float scale_by = 2.5f;     // x = scale_by * in
constexpr float offset_by = -0.75f;  // z = in + offset_by
constexpr int rounds = 5;            // timed rounds per variant (the median is reported)
constexpr int launches = 200;        // launches per round
constexpr int warmup = 10;           // untimed launches per variant before the first round
constexpr double tolerance = 1e-5;   // max abs error allowed against the float64 reference
static_assert(n % 8 == 0, "the host checksum sums eight lanes");

__global__ void scale(const float* in, float* out, float a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = a * in[i];
}

__global__ void square(const float* in, float* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[i] * in[i];
}

__global__ void offset(const float* in, float* out, float b, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[i] + b;
}

__global__ void combine(const float* x, const float* y, const float* z, float* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = x[i] + y[i] * z[i];
}

/// What the host callback keeps: the number of batches it saw and the checksum of the last one.
/// The callback runs on a CUDA driver thread; the main thread reads these after a synchronize.
struct Tally {
  std::atomic<long> batches{0};
  std::atomic<double> last_checksum{0.0};

  void record(const float* out) {
    double lane[8] = {};  // eight independent sums: a short callback keeps the pipeline short
    for (int i = 0; i < n; i += 8) {
      for (int k = 0; k < 8; ++k) lane[k] += out[i + k];
    }
    double sum = 0.0;
    for (double l : lane) sum += l;
    last_checksum.store(sum, std::memory_order_relaxed);
    batches.fetch_add(1, std::memory_order_relaxed);
  }
};

/// The seven buffers the pipeline uses: pinned host input and output, five device buffers.
struct Buffers {
  float* h_in = nullptr;
  float* d_in = nullptr;
  float* d_x = nullptr;
  float* d_y = nullptr;
  float* d_z = nullptr;
  float* d_out = nullptr;
  float* h_out = nullptr;
};

/// The plan. Building it makes no CUDA call; the pointers are only recorded. Memcpy nodes keep raw
/// pointers, so the buffers must outlive every executable compiled from this plan.
gd::Graph build_plan(const Buffers& b, Tally& tally) {
  gd::Graph g("pipeline");
  const gd::Launch grid = gd::cover(n);  // n / 256 blocks of 256 threads

  auto upload = g.add_memcpy(b.d_in, b.h_in, n, cudaMemcpyHostToDevice).name("upload");
  auto sx = g.add_kernel(scale, grid, b.d_in, b.d_x, scale_by, n).name("scale").after(upload);
  auto sq = g.add_kernel(square, grid, b.d_in, b.d_y, n).name("square").after(upload);
  auto off = g.add_kernel(offset, grid, b.d_in, b.d_z, offset_by, n).name("offset").after(upload);
  auto join = g.add_kernel(combine, grid, b.d_x, b.d_y, b.d_z, b.d_out, n).name("combine").after(sx, sq, off);
  auto download = g.add_memcpy(b.h_out, b.d_out, n, cudaMemcpyDeviceToHost).name("download").after(join);
  g.add_host([&tally, out = b.h_out] { tally.record(out); }).name("checksum").after(download);
  return g;
}

// ---- the same work as plain stream operations -------------------------------------------------

struct StreamCallback {
  Tally* tally;
  const float* out;
};

void CUDART_CB stream_checksum(void* p) {
  auto* c = static_cast<StreamCallback*>(p);
  c->tally->record(c->out);
}

void issue_on_stream(const Buffers& b, StreamCallback* cb, cudaStream_t s) {
  const gd::Launch grid = gd::cover(n);
  CUDA_CHECK(cudaMemcpyAsync(b.d_in, b.h_in, n * sizeof(float), cudaMemcpyHostToDevice, s));
  scale<<<grid.grid, grid.block, 0, s>>>(b.d_in, b.d_x, scale_by, n);
  square<<<grid.grid, grid.block, 0, s>>>(b.d_in, b.d_y, n);
  offset<<<grid.grid, grid.block, 0, s>>>(b.d_in, b.d_z, offset_by, n);
  combine<<<grid.grid, grid.block, 0, s>>>(b.d_x, b.d_y, b.d_z, b.d_out, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(b.h_out, b.d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaLaunchHostFunc(s, &stream_checksum, cb));
}

// ---- device memory ----------------------------------------------------------------------------

/// Owns the buffers; declared before the executable so that it is destroyed after it.
struct DeviceBuffers {
  Buffers b;
  DeviceBuffers() {
    CUDA_CHECK(cudaMallocHost(&b.h_in, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&b.h_out, n * sizeof(float)));
    for (float** d : {&b.d_in, &b.d_x, &b.d_y, &b.d_z, &b.d_out}) CUDA_CHECK(cudaMalloc(d, n * sizeof(float)));
  }
  ~DeviceBuffers() {
    (void)cudaFreeHost(b.h_in);
    (void)cudaFreeHost(b.h_out);
    for (float* d : {b.d_in, b.d_x, b.d_y, b.d_z, b.d_out}) (void)cudaFree(d);
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;

  /// Fills every output and intermediate with NaN, so that an element nothing wrote fails the check.
  void poison(cudaStream_t s) {
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) b.h_out[i] = std::numeric_limits<float>::quiet_NaN();
    for (float* d : {b.d_x, b.d_y, b.d_z, b.d_out}) CUDA_CHECK(cudaMemsetAsync(d, 0xFF, n * sizeof(float), s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  }
};

/// Largest |out - ref| (NaN counts as infinitely wrong).
double max_abs_error(const float* out, const std::vector<double>& ref) {
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    const double e = std::fabs(static_cast<double>(out[i]) - ref[i]);
    if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
  }
  return worst;
}

struct Result {
  double max_error = 0.0;  ///< worst over all rounds
  std::vector<double> us_per_launch;
};

bool report(const char* what, const Result& r, const Tally& t, long expected_batches, double ref_checksum) {
  const bool error_ok = r.max_error <= tolerance;
  const double checksum = t.last_checksum.load();
  const bool checksum_ok = std::fabs(checksum - ref_checksum) <= tolerance * n;
  const bool batches_ok = t.batches.load() == expected_batches;
  const bool ok = error_ok && checksum_ok && batches_ok;
  fmt::print("check {:<6}: {}\n"
             "  max abs error {:.3g} vs CPU float64 reference over {} rounds x {} launches (tolerance {:g}): {}\n"
             "  host callback ran {} times (expected {}): {}; last checksum {:.6f} (CPU {:.6f}): {}\n",
             what, ok ? "ok" : "FAILED", r.max_error, rounds, launches, tolerance, error_ok ? "ok" : "FAILED",
             t.batches.load(), expected_batches, batches_ok ? "ok" : "FAILED", checksum, ref_checksum,
             checksum_ok ? "ok" : "FAILED");
  return ok;
}

int run(bool dot_only) {
  // ---- 1. the plan, on the host --------------------------------------------------------------
  // Buffers must exist before a plan that names them is built, and device buffers exist only once
  // we know there is a device. A plan is only a description: building, validating and printing it
  // never touches the memory it names, and this one is never compiled (instantiate() is the one
  // step that hands pointers to CUDA). So for this host-only part the plan names placeholder host
  // buffers of the right sizes; with a device, the same function builds the real plan below.
  std::vector<float> placeholder(7 * static_cast<std::size_t>(n));
  const Buffers stand_in{placeholder.data() + 0 * n, placeholder.data() + 1 * n, placeholder.data() + 2 * n,
                         placeholder.data() + 3 * n, placeholder.data() + 4 * n, placeholder.data() + 5 * n,
                         placeholder.data() + 6 * n};
  Tally unused;
  const auto calls_before = gd::debug::cuda_calls();
  const gd::Graph preview = build_plan(stand_in, unused);
  preview.validate();  // every rule graphdsl can check without CUDA; throws gd::UsageError naming the node
  if (dot_only) return sample::print_dot(calls_before, preview);
  const auto calls = gd::debug::cuda_calls() - calls_before;
  fmt::print("graphdsl {} pipeline sample: {} floats per buffer\n\n", gd::version_string, n);
  fmt::print("plan '{}' built and validated on the host: {} nodes, {} edges, {} bytes of plan storage, "
             "{} CUDA calls\n\n",
             preview.name(), preview.node_count(), preview.edge_count(), preview.storage_bytes(), calls);
  fmt::print("--- Graph::dump() ---\n{}\n", preview.dump());
  fmt::print("--- Graph::to_dot() (render with: dot -Tsvg) ---\n{}\n", preview.to_dot());

  // ---- 2. is there a device? ------------------------------------------------------------------
  if (sample::cuda_device_count() == 0) {
    fmt::print("no CUDA device found: the plan above was built and validated on the host; "
               "run on a GPU machine to execute it\n");
    return 0;
  }
  CUDA_CHECK(cudaSetDevice(0));
  fmt::print("device: {}\n", sample::device_summary(0));

  // ---- 3. data and the CPU reference ----------------------------------------------------------
  DeviceBuffers mem;
  const Buffers& b = mem.b;
  std::mt19937 rng(20261121u);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i) b.h_in[i] = dist(rng);
  std::vector<double> ref(n);
  double ref_checksum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double v = b.h_in[i];
    ref[i] = scale_by * v + (v * v) * (v + offset_by);
    ref_checksum += ref[i];
  }

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  sample::EventTimer timer;

  // ---- 4. compile the real plan once ----------------------------------------------------------
  Tally graph_tally;
  const gd::Graph plan = build_plan(b, graph_tally);
  gd::Executable exec = plan.instantiate();  // validate, materialize (cudaGraph_t), instantiate

  Tally stream_tally;
  StreamCallback stream_cb{&stream_tally, b.h_out};

  Result graph_result, stream_result;
  auto graph_round = [&](int count) {
    for (int i = 0; i < count; ++i) exec.launch(stream);
  };
  auto stream_round = [&](int count) {
    for (int i = 0; i < count; ++i) issue_on_stream(b, &stream_cb, stream);
  };
  // One round of `launches`, timed with events; the output is poisoned first and checked after.
  auto timed_round = [&](auto&& issue, Result& r) {
    mem.poison(stream);
    timer.start(stream);
    issue(launches);
    r.us_per_launch.push_back(timer.stop_us(stream) / launches);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    exec.rethrow_host_error();
    r.max_error = std::max(r.max_error, max_abs_error(b.h_out, ref));
  };

  // ---- 5. warm up, then alternate graph and stream rounds -------------------------------------
  graph_round(warmup);
  stream_round(warmup);
  exec.synchronize(stream);  // also re-throws an exception from the host callback, if any
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) {
      timed_round(graph_round, graph_result);
      timed_round(stream_round, stream_result);
    } else {
      timed_round(stream_round, stream_result);
      timed_round(graph_round, graph_result);
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  // ---- 6. report -------------------------------------------------------------------------------
  const long expected = warmup + static_cast<long>(rounds) * launches;
  bool ok = report("graph", graph_result, graph_tally, expected, ref_checksum);
  ok = report("stream", stream_result, stream_tally, expected, ref_checksum) && ok;

  const double g_us = sample::median(graph_result.us_per_launch);
  const double s_us = sample::median(stream_result.us_per_launch);
  fmt::print("\ntime per launch (cudaEvent; median of {} rounds of {} launches, after {} warm-up launches;\n"
             "  one launch = upload {} KiB, 4 kernels, download {} KiB, host checksum):\n",
             rounds, launches, warmup, n * sizeof(float) / 1024, n * sizeof(float) / 1024);
  fmt::print("  graphdsl graph          {:9.2f} us   (round-to-round spread +-{:.1f}%)\n", g_us,
             100.0 * sample::half_spread(graph_result.us_per_launch));
  fmt::print("  stream launches         {:9.2f} us   (round-to-round spread +-{:.1f}%)\n", s_us,
             100.0 * sample::half_spread(stream_result.us_per_launch));
  fmt::print("  ratio graph / stream    {:9.3f}\n", s_us > 0.0 ? g_us / s_us : 0.0);
  fmt::print("\n{}\n", ok ? "pipeline: PASSED" : "pipeline: FAILED");

  CUDA_CHECK(cudaStreamDestroy(stream));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv)); });
}
