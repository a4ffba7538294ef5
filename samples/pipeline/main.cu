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
//   2. With a GPU: where a plan pays and where it does not. The same pipeline at three sizes (4 KiB,
//      256 KiB, 4 MiB per buffer) and in three forms — the four kernels alone, with the two copies,
//      and with the copies and the host callback — is launched as a graph and issued as plain
//      stream operations (cudaMemcpyAsync + kernel<<<>>> + cudaLaunchHostFunc on one stream),
//      alternating rounds timed with cudaEvents in the same run. Every round's output is poisoned
//      before and checked against a CPU float64 reference after. One compact table: device time
//      and host (enqueue) time per launch, the ratio, and what the ratio means for that row.
//      About 2-4 s on an H200.
//   3. Where a launch of the full pipeline spends its device time (graphdsl::profile, through
//      CUPTI): the per-node table, the sum of node times against the launch's event time, replay
//      time with profiling off and on. `--profile-out DIR` also writes the heat-map DOT
//      (docs/pictures/profile-pipeline.svg is drawn from one), CSV, Chrome trace and name map.
// Exit status: 0 when the checks pass (or when there is no GPU), 1 otherwise.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "sample_profile.hpp"
#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int n = 1 << 16;           // elements per buffer in the plan shown (256 KiB of floats)
constexpr int sizes[] = {1 << 10, 1 << 16, 1 << 20};  // 4 KiB, 256 KiB, 4 MiB per buffer
constexpr int n_max = 1 << 20;       // the buffers hold the largest size
constexpr float scale_by = 2.5f;     // x = scale_by * in
constexpr float offset_by = -0.75f;  // z = in + offset_by
constexpr int rounds = 3;            // timed rounds per variant and form (the median is reported)
constexpr int launches = 100;        // launches per round
constexpr int warmup = 10;           // untimed launches per variant before the first round
constexpr double tolerance = 1e-5;   // max abs error allowed against the float64 reference
static_assert(sizes[0] % 8 == 0, "the host checksum sums eight lanes");

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

  void record(const float* out, int count) {
    double lane[8] = {};  // eight independent sums: a short callback keeps the pipeline short
    for (int i = 0; i < count; i += 8) {
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

/// How much of the pipeline a run includes.
enum class Variant { kernels, copies, host };

const char* describe(Variant v) {
  switch (v) {
    case Variant::kernels: return "4 kernels";
    case Variant::copies: return "+ 2 copies";
    case Variant::host: return "+ host callback";
  }
  return "";
}

/// The plan. Building it makes no CUDA call; the pointers are only recorded. Memcpy nodes keep raw
/// pointers, so the buffers must outlive every executable compiled from this plan.
gd::Graph build_plan(const Buffers& b, Tally& tally, int count = n, Variant v = Variant::host) {
  gd::Graph g("pipeline");
  const gd::Launch grid = gd::cover(count);  // count / 256 blocks of 256 threads

  std::vector<gd::Node> start;
  if (v != Variant::kernels) {
    start.push_back(g.add_memcpy(b.d_in, b.h_in, count, cudaMemcpyHostToDevice).name("upload"));
  }
  auto sx = g.add_kernel(scale, grid, b.d_in, b.d_x, scale_by, count).name("scale").after(start);
  auto sq = g.add_kernel(square, grid, b.d_in, b.d_y, count).name("square").after(start);
  auto off = g.add_kernel(offset, grid, b.d_in, b.d_z, offset_by, count).name("offset").after(start);
  auto join = g.add_kernel(combine, grid, b.d_x, b.d_y, b.d_z, b.d_out, count).name("combine").after(sx, sq, off);
  if (v == Variant::kernels) return g;
  auto download = g.add_memcpy(b.h_out, b.d_out, count, cudaMemcpyDeviceToHost).name("download").after(join);
  if (v == Variant::host) {
    g.add_host([&tally, out = b.h_out, count] { tally.record(out, count); }).name("checksum").after(download);
  }
  return g;
}

// ---- the same work as plain stream operations -------------------------------------------------

struct StreamCallback {
  Tally* tally;
  const float* out;
  int count;
};

void CUDART_CB stream_checksum(void* p) {
  auto* c = static_cast<StreamCallback*>(p);
  c->tally->record(c->out, c->count);
}

void issue_on_stream(const Buffers& b, StreamCallback* cb, cudaStream_t s, Variant v) {
  const int count = cb->count;
  const gd::Launch grid = gd::cover(count);
  if (v != Variant::kernels) {
    CUDA_CHECK(cudaMemcpyAsync(b.d_in, b.h_in, count * sizeof(float), cudaMemcpyHostToDevice, s));
  }
  scale<<<grid.grid, grid.block, 0, s>>>(b.d_in, b.d_x, scale_by, count);
  square<<<grid.grid, grid.block, 0, s>>>(b.d_in, b.d_y, count);
  offset<<<grid.grid, grid.block, 0, s>>>(b.d_in, b.d_z, offset_by, count);
  combine<<<grid.grid, grid.block, 0, s>>>(b.d_x, b.d_y, b.d_z, b.d_out, count);
  CUDA_CHECK(cudaGetLastError());
  if (v == Variant::kernels) return;
  CUDA_CHECK(cudaMemcpyAsync(b.h_out, b.d_out, count * sizeof(float), cudaMemcpyDeviceToHost, s));
  if (v == Variant::host) CUDA_CHECK(cudaLaunchHostFunc(s, &stream_checksum, cb));
}

// ---- device memory ----------------------------------------------------------------------------

/// Owns the buffers; declared before the executables so that it is destroyed after them.
struct DeviceBuffers {
  Buffers b;
  DeviceBuffers() {
    CUDA_CHECK(cudaMallocHost(&b.h_in, n_max * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&b.h_out, n_max * sizeof(float)));
    for (float** d : {&b.d_in, &b.d_x, &b.d_y, &b.d_z, &b.d_out}) CUDA_CHECK(cudaMalloc(d, n_max * sizeof(float)));
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
    for (int i = 0; i < n_max; ++i) b.h_out[i] = std::numeric_limits<float>::quiet_NaN();
    for (float* d : {b.d_x, b.d_y, b.d_z, b.d_out}) CUDA_CHECK(cudaMemsetAsync(d, 0xFF, n_max * sizeof(float), s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  }
};

/// Largest |out - ref| over the first `count` elements (NaN counts as infinitely wrong).
double max_abs_error(const float* out, const std::vector<double>& ref, int count) {
  double worst = 0.0;
  for (int i = 0; i < count; ++i) {
    const double e = std::fabs(static_cast<double>(out[i]) - ref[i]);
    if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
  }
  return worst;
}

/// One form (graph or stream) of one row: times per round and the worst error seen.
struct Series {
  std::vector<double> device_us;  ///< cudaEvent time per launch, per round
  std::vector<double> host_us;    ///< host time to enqueue one launch, per round
  double max_error = 0.0;
};

/// One row of the table: a size and a variant, measured as a graph and as stream operations.
struct Row {
  int count = 0;
  Variant variant = Variant::kernels;
  Series graph, stream;
  bool ok = true;
};

/// What the runs share: buffers, stream, timer, the CPU reference.
struct Bench {
  DeviceBuffers& mem;
  cudaStream_t stream;
  sample::EventTimer& timer;
  const std::vector<double>& ref;
  double ref_checksum(int count) const {
    double sum = 0.0;
    for (int i = 0; i < count; ++i) sum += ref[i];
    return sum;
  }

  /// One timed round of `launches` calls of `issue`; the output is poisoned first and checked after
  /// (for the kernels-only variant, after copying it back outside the timed part).
  template <class Issue>
  void round(Issue&& issue, const Row& row, Series& s) {
    mem.poison(stream);
    timer.start(stream);
    const sample::Stopwatch host;
    for (int i = 0; i < launches; ++i) issue();
    s.host_us.push_back(host.us() / launches);
    s.device_us.push_back(timer.stop_us(stream) / launches);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (row.variant == Variant::kernels) {
      CUDA_CHECK(cudaMemcpy(mem.b.h_out, mem.b.d_out, row.count * sizeof(float), cudaMemcpyDeviceToHost));
    }
    s.max_error = std::max(s.max_error, max_abs_error(mem.b.h_out, ref, row.count));
  }
};

/// Measures one row: compiles its plan, warms up both forms, alternates timed rounds, checks.
Row measure(Bench& bench, int count, Variant v) {
  Row row{count, v, {}, {}, true};
  Tally graph_tally, stream_tally;
  const gd::Graph plan = build_plan(bench.mem.b, graph_tally, count, v);
  gd::Executable exec = plan.instantiate();
  StreamCallback cb{&stream_tally, bench.mem.b.h_out, count};
  auto graph_one = [&] { exec.launch(bench.stream); };
  auto stream_one = [&] { issue_on_stream(bench.mem.b, &cb, bench.stream, v); };
  for (int i = 0; i < warmup; ++i) graph_one();
  for (int i = 0; i < warmup; ++i) stream_one();
  exec.synchronize(bench.stream);  // also re-throws an exception from the host callback, if any
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) {
      bench.round(graph_one, row, row.graph);
      bench.round(stream_one, row, row.stream);
    } else {
      bench.round(stream_one, row, row.stream);
      bench.round(graph_one, row, row.graph);
    }
  }
  exec.synchronize(bench.stream);
  row.ok = row.graph.max_error <= tolerance && row.stream.max_error <= tolerance;
  if (v == Variant::host) {  // the callback ran once per launch, on the last output
    const long expected = warmup + static_cast<long>(rounds) * launches;
    const double want = bench.ref_checksum(count);
    for (const Tally* t : {&graph_tally, &stream_tally}) {
      row.ok = row.ok && t->batches.load() == expected &&
               std::fabs(t->last_checksum.load() - want) <= tolerance * count;
    }
  }
  return row;
}

/// What the ratio of one row says, given the round-to-round noise of both forms.
std::string verdict(const Row& r) {
  const double g = sample::median(r.graph.device_us), s = sample::median(r.stream.device_us);
  const double noise = std::max(sample::half_spread(r.graph.device_us), sample::half_spread(r.stream.device_us));
  const double ratio = s > 0.0 ? g / s : 0.0;
  if (ratio < 1.0 - std::max(noise, 0.03)) return fmt::format("graph {:.0f}% faster", 100.0 * (1.0 - ratio));
  if (ratio > 1.0 + std::max(noise, 0.03)) return fmt::format("graph {:.0f}% slower", 100.0 * (ratio - 1.0));
  return "no difference beyond noise";
}

std::string size_label(int count) {
  const long bytes = static_cast<long>(count) * static_cast<long>(sizeof(float));
  return bytes >= (1 << 20) ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} KiB", bytes >> 10);
}

void print_table(const std::vector<Row>& rows) {
  fmt::print("\nwhere a plan pays: time per launch, graph vs the same work as stream operations\n"
             "(cudaEvent device time and host enqueue time per launch; median of {} rounds of {} launches\n"
             " after {} warm-up launches of each; graph and stream rounds alternate)\n\n",
             rounds, launches, warmup);
  fmt::print("  {:>8}  {:<16} {:>10} {:>10} {:>6}  {:>9} {:>9}  {}\n", "buffer", "pipeline", "graph us", "stream us",
             "ratio", "host g us", "host s us", "device time");
  for (const Row& r : rows) {
    const double g = sample::median(r.graph.device_us), s = sample::median(r.stream.device_us);
    fmt::print("  {:>8}  {:<16} {:>10.2f} {:>10.2f} {:>6.3f}  {:>9.2f} {:>9.2f}  {}{}\n", size_label(r.count),
               describe(r.variant), g, s, s > 0.0 ? g / s : 0.0, sample::median(r.graph.host_us),
               sample::median(r.stream.host_us), verdict(r), r.ok ? "" : "  CHECK FAILED");
  }
  fmt::print("\nhow to read it:\n"
             "  * a graph launch hands the driver all nodes in one call (host g us), where the stream form\n"
             "    makes one call per operation (host s us): the CPU side always gets cheaper.\n"
             "  * on the GPU a graph saves the gaps between short operations: it pays most for the kernels\n"
             "    alone at small sizes, where launching is a large part of the work.\n"
             "  * a copy runs on the copy engine at the same speed whoever issued it, and a host callback\n"
             "    makes the GPU wait for a CPU thread (one round trip per launch) in both forms: as they\n"
             "    grow to dominate a launch, the ratio tends to 1 and a graph neither pays nor costs.\n");
}

int run(bool dot_only, const std::string& profile_dir) {
  // ---- 1. the plan, on the host --------------------------------------------------------------
  // Buffers must exist before a plan that names them is built, and device buffers exist only once
  // we know there is a device. A plan is only a description: building, validating and printing it
  // never touches the memory it names, and this one is never compiled (instantiate() is the one
  // step that hands pointers to CUDA). So for this host-only part the plan names placeholder host
  // buffers of the right sizes; with a device, the same function builds the real plans below.
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

  // ---- 3. data, the CPU reference, and one row per size and variant ---------------------------
  const sample::Stopwatch total;
  DeviceBuffers mem;
  std::mt19937 rng(20261121u);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < n_max; ++i) mem.b.h_in[i] = dist(rng);
  std::vector<double> ref(n_max);
  for (int i = 0; i < n_max; ++i) {
    const double v = mem.b.h_in[i];
    ref[i] = scale_by * v + (v * v) * (v + offset_by);
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // the kernels-only rows read d_in as uploaded here once (the other rows upload it themselves)
  CUDA_CHECK(cudaMemcpy(mem.b.d_in, mem.b.h_in, n_max * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // a pageable upload may still be in flight: other streams do not wait for it
  sample::EventTimer timer;
  Bench bench{mem, stream, timer, ref};
  std::vector<Row> rows;
  bool ok = true;
  for (int count : sizes) {
    for (Variant v : {Variant::kernels, Variant::copies, Variant::host}) {
      rows.push_back(measure(bench, count, v));
      ok = ok && rows.back().ok;
    }
  }
  print_table(rows);
  {
    // Where one launch of the full pipeline (copies and host callback, 256 KiB per buffer) spends
    // its device time (graphdsl::profile, CUPTI).
    Tally tally;
    sample::attach_profiler();  // before instantiate(), so that the executable's node ids are recorded
    gd::Executable exec = build_plan(mem.b, tally, n, Variant::host).instantiate();
    exec.launch(stream);
    exec.synchronize(stream);
    const bool attributed = sample::print_profile(exec, stream, 20, "pipeline", profile_dir);
    if (!attributed) fmt::print("profile: records left unattributed: CHECK FAILED\n");
    ok = ok && attributed;
  }
  fmt::print("\nresults checked against a CPU float64 reference after every round (tolerance {:g}), host\n"
             "callback counts and checksums too: {}; {:.1f} s\n",
             tolerance, ok ? "all ok" : "FAILED", total.us() / 1e6);
  fmt::print("\n{}\n", ok ? "pipeline: PASSED" : "pipeline: FAILED");
  CUDA_CHECK(cudaStreamDestroy(stream));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv), sample::profile_out(argc, argv)); });
}
