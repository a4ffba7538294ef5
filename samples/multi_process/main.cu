// samples/multi_process — one NCCL world over several processes, one GPU each (how torchrun, mpirun
// and srun run jobs): every process builds the same plan over its own GPU, with an all-reduce
// inside the graph that sums the ranks' results across the processes.
//
//   scatter --> square --> all_reduce --> gather        (in every rank's process, on its GPU)
//
//   scatter     H2D copy of this rank's input (pinned host memory; rank r's input is known to all)
//   square      y = w_r * x * x (a kernel; each rank's weight differs)
//   all_reduce  y = sum over all ranks' y (gd::nccl::add_all_reduce over Communicators::join)
//   gather      D2H copy of the sum, checked against a CPU float64 reference of every rank's work
//
// Starting it:
//   multi_process                      starts one rank of itself per GPU (at most 8; needs 2 GPUs),
//                                      the unique id passed through a file, and waits for them
//   multi_process --rank R --world W --device D --id-file F
//                                      one rank, as a job launcher starts it; rank 0 writes the id
//                                      to F, the others read it (F on a file system every node sees).
//                                      Without --rank, the launcher's variables are read: OMPI_COMM_
//                                      WORLD_RANK/SIZE/LOCAL_RANK (mpirun), SLURM_PROCID/NTASKS/LOCALID
//                                      (srun), RANK/WORLD_SIZE/LOCAL_RANK (torchrun); docs/multi-gpu.md
//   multi_process --dot                the plan's DOT (no GPU, no NCCL call)
//
// For 1 Ki, 1 Mi and 16 Mi floats per rank, the plan is launched in 9 timed rounds, each checked;
// the time per launch is compared with the same work issued on a stream with the all-reduce called
// from the host (ncclAllReduce on the same communicator). Rank 0 prints the table.
// Exit status: 0 when the checks pass, and when the sample is skipped (fewer than two GPUs, or NCCL
// cannot be loaded); 1 otherwise.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nccl.h>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/nccl.hpp>

#include "host_nccl.hpp"
#include "sample_util.hpp"

namespace gd = graphdsl;
namespace nccl = graphdsl::nccl;

namespace {

constexpr int rounds = 9;   // timed rounds per variant and size (the median is reported)
constexpr int warmup = 3;
constexpr double tolerance = 1e-4;  // relative, against the float64 reference

struct Size {
  std::size_t count;
  int launches;  // per timed round
};
constexpr Size sizes[] = {{1u << 10, 50}, {1u << 20, 20}, {1u << 24, 5}};

__global__ void weigh_square(const float* x, float* y, float w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = w * x[i] * x[i];
}

float weight(int rank) { return 0.5f + 0.25f * static_cast<float>(rank); }

/// Rank r's input: the same numbers in every process (a fixed seed per rank).
void input(int rank, std::size_t count, float* out) {
  std::mt19937 rng(20261124u + static_cast<unsigned>(rank));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < count; ++i) out[i] = dist(rng);
}

struct Args {
  int rank = -1, world = 0, device = -1;
  std::string id_file;
};

/// One rank's buffers: pinned input and output, device x and y.
struct Memory {
  float* h_in = nullptr;
  float* h_out = nullptr;
  float* d_x = nullptr;
  float* d_y = nullptr;
  explicit Memory(std::size_t count) {
    const std::size_t bytes = count * sizeof(float);
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
  }
  ~Memory() {
    (void)cudaFreeHost(h_in);
    (void)cudaFreeHost(h_out);
    (void)cudaFree(d_x);
    (void)cudaFree(d_y);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
};

gd::Graph build_plan(const nccl::Communicators& comms, const Memory& m, std::size_t count, float w) {
  gd::Graph g("multi_process");
  auto scatter = g.add_memcpy(m.d_x, m.h_in, count).name("scatter");
  auto square = g.add_kernel(weigh_square, gd::cover(count), m.d_x, m.d_y, w, static_cast<int>(count))
                    .name("square").after(scatter);
  auto sum = nccl::add_all_reduce<float>(g, comms, {{m.d_y, m.d_y}}, count).name("all_reduce").after(square);
  g.add_memcpy(m.h_out, m.d_y, count).name("gather").after(sum);
  return g;
}

/// The largest relative error of h_out against the sum over ranks of w_r * x_r^2 (float64).
double worst_error(const Memory& m, std::size_t count, int world) {
  std::vector<double> want(count, 0.0);
  std::vector<float> x(count);
  for (int r = 0; r < world; ++r) {
    input(r, count, x.data());
    for (std::size_t i = 0; i < count; ++i) want[i] += static_cast<double>(weight(r)) * x[i] * x[i];
  }
  double worst = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    const double err = std::abs(m.h_out[i] - want[i]) / std::max(1.0, std::abs(want[i]));
    worst = std::isnan(err) ? INFINITY : std::max(worst, err);
  }
  return worst;
}

nccl::UniqueId exchange_id(const Args& a) {
  if (a.rank == 0) {
    const nccl::UniqueId id = nccl::UniqueId::create();
    const std::string tmp = a.id_file + ".tmp";
    std::ofstream(tmp) << id.to_hex();
    if (std::rename(tmp.c_str(), a.id_file.c_str()) != 0) throw std::runtime_error("cannot write " + a.id_file);
    return id;
  }
  for (int i = 0; i < 60000; ++i) {  // at most 60 s
    std::ifstream in(a.id_file);
    std::stringstream text;
    if (in && (text << in.rdbuf())) return nccl::UniqueId::from_hex(text.str());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  throw std::runtime_error("rank 0 did not write the id file " + a.id_file + " within 60 s");
}

struct Figures {
  std::size_t count = 0;
  int launches = 0;
  std::vector<double> graph_us, streams_us;
  double worst = 0.0;
};

/// One rank's run of every size; the figures of this rank.
std::vector<Figures> run_rank(const Args& a) {
  const nccl::Communicators comms = nccl::Communicators::join(exchange_id(a), a.world, a.rank, a.device);
  const auto comm = static_cast<ncclComm_t>(comms.native_handle(0));  // joins the world (every rank does)
  const sample::HostNccl host;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  sample::EventTimer timer;
  Memory m(sizes[std::size(sizes) - 1].count);
  std::vector<Figures> all;
  for (const Size& size : sizes) {
    Figures f;
    f.count = size.count;
    f.launches = size.launches;
    input(a.rank, size.count, m.h_in);
    const float w = weight(a.rank);
    gd::Graph plan = build_plan(comms, m, size.count, w);
    if (a.rank == 0 && all.empty()) fmt::print("--- rank 0's plan, Graph::dump() ---\n{}\n", plan.dump());
    gd::Executable exec = plan.instantiate();
    const gd::Launch grid = gd::cover(size.count);
    const std::size_t bytes = size.count * sizeof(float);
    auto graph_round = [&] { exec.launch(stream); };
    auto stream_round = [&] {
      CUDA_CHECK(cudaMemcpyAsync(m.d_x, m.h_in, bytes, cudaMemcpyHostToDevice, stream));
      weigh_square<<<grid.grid, grid.block, 0, stream>>>(m.d_x, m.d_y, w, static_cast<int>(size.count));
      CUDA_CHECK(cudaGetLastError());
      host.check_nonblocking(host.all_reduce(m.d_y, m.d_y, size.count, ncclFloat32, ncclSum, comm, stream), comm,
                             "ncclAllReduce");
      CUDA_CHECK(cudaMemcpyAsync(m.h_out, m.d_y, bytes, cudaMemcpyDeviceToHost, stream));
    };
    auto timed = [&](auto&& issue, std::vector<double>& us) {
      std::fill(m.h_out, m.h_out + size.count, NAN);
      timer.start(stream);
      for (int i = 0; i < size.launches; ++i) issue();
      us.push_back(timer.stop_us(stream) / size.launches);
      f.worst = std::max(f.worst, worst_error(m, size.count, a.world));
    };
    for (int i = 0; i < warmup; ++i) graph_round();
    nccl::synchronize(exec, stream, std::chrono::seconds(60));  // bounded: a dead peer gives NcclError
    for (int i = 0; i < warmup; ++i) stream_round();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int r = 0; r < rounds; ++r) {  // interleaved: G S, S G, ... (every rank in the same order)
      if (r % 2 == 0) {
        timed(graph_round, f.graph_us);
        timed(stream_round, f.streams_us);
      } else {
        timed(stream_round, f.streams_us);
        timed(graph_round, f.graph_us);
      }
    }
    all.push_back(f);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return all;
}

bool report(const Args& a, const std::vector<Figures>& all) {
  bool ok = true;
  for (const Figures& f : all) ok = ok && f.worst <= tolerance;
  if (a.rank != 0) {
    fmt::print("rank {}: checks {}\n", a.rank, ok ? "passed" : "FAILED");
    return ok;
  }
  fmt::print("checks on rank 0 (the all-reduced result vs the CPU float64 reference of every rank's work, tolerance "
             "{:g}; output poisoned with NaN before each round):\n",
             tolerance);
  for (const Figures& f : all) {
    fmt::print("  {:>9} floats per rank: {} rounds x {} launches per variant: worst {:.3g} {}\n", f.count, rounds,
               f.launches, f.worst, f.worst <= tolerance ? "ok" : "FAILED");
  }
  fmt::print("\ntime per launch on rank 0 (cudaEvent on its stream; median of {} rounds, order alternated, after {} "
             "warm-up launches each;\n  one launch = H2D copy, kernel, all-reduce over {} processes, D2H copy):\n",
             rounds, warmup, a.world);
  fmt::print("  {:>10}  {:>8}  {:>10}  {:>15}  {:>13}  {:>7}\n", "floats", "launches", "plan us", "stream+NCCL us",
             "plan/stream", "noise");
  for (const Figures& f : all) {
    const double g = sample::median(f.graph_us);
    const double st = sample::median(f.streams_us);
    const double noise = std::max(sample::half_spread(f.graph_us), sample::half_spread(f.streams_us));
    fmt::print("  {:>10}  {:>8}  {:>10.2f}  {:>15.2f}  {:>13.3f}  {:>6.1f}%\n", f.count, f.launches, g, st,
               st > 0.0 ? g / st : 0.0, 100.0 * noise);
  }
  return ok;
}

/// The launcher's rank variables (mpirun, srun, torchrun), when --rank was not given.
void from_environment(Args& a) {
  auto get = [](std::initializer_list<const char*> names) {
    for (const char* n : names) {
      const char* v = std::getenv(n);
      if (v != nullptr && *v != '\0') return std::atoi(v);
    }
    return -1;
  };
  if (a.rank < 0) a.rank = get({"OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "RANK"});
  if (a.world <= 0) a.world = get({"OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "WORLD_SIZE"});
  if (a.device < 0) a.device = get({"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "LOCAL_RANK"});
}

/// Starts `world` ranks of this program (rank r on device r) and waits for them.
int start_ranks(const char* self, int world) {
  char dir[] = "/tmp/graphdsl-multi-process-XXXXXX";
  if (mkdtemp(dir) == nullptr) throw std::runtime_error("mkdtemp failed");
  const std::string id_file = std::string(dir) + "/id";
  fmt::print("starting {} ranks of {} (one per GPU), the unique id passed through {}\n\n", world, self, id_file);
  std::fflush(stdout);
  std::vector<pid_t> pids;
  for (int r = 0; r < world; ++r) {
    const std::string rank = std::to_string(r), size = std::to_string(world);
    const pid_t pid = fork();
    if (pid == 0) {
      execl(self, self, "--rank", rank.c_str(), "--world", size.c_str(), "--device", rank.c_str(), "--id-file",
            id_file.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    if (pid < 0) throw std::runtime_error("fork failed");
    pids.push_back(pid);
  }
  bool ok = true;
  for (int r = 0; r < world; ++r) {
    int status = 0;
    waitpid(pids[static_cast<std::size_t>(r)], &status, 0);
    const bool passed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!passed) fmt::print("rank {} failed (status {})\n", r, status);
    ok = ok && passed;
  }
  std::remove(id_file.c_str());
  std::remove(dir);
  fmt::print("\n{}\n", ok ? "multi_process: PASSED" : "multi_process: FAILED");
  return ok ? 0 : 1;
}

int run(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--rank") a.rank = std::atoi(argv[i + 1]);
    else if (key == "--world") a.world = std::atoi(argv[i + 1]);
    else if (key == "--device") a.device = std::atoi(argv[i + 1]);
    else if (key == "--id-file") a.id_file = argv[i + 1];
  }
  if (sample::dot_only(argc, argv)) {
    // The plan of rank 0 of 2 over stand-in buffers: joining names the world and makes no call.
    const auto calls_before = gd::debug::cuda_calls();
    std::vector<unsigned char> stand_in_id(nccl::UniqueId::size, 1);
    const auto comms = nccl::Communicators::join(nccl::UniqueId::from_bytes(stand_in_id.data(), stand_in_id.size()), 2, 0, 0);
    std::vector<float> stand_in(4);
    gd::Graph g("multi_process");
    auto scatter = g.add_memcpy(stand_in.data() + 2, stand_in.data(), 1).name("scatter");
    auto square = g.add_kernel(weigh_square, gd::cover(1), stand_in.data() + 2, stand_in.data() + 3, 1.0f, 1)
                      .name("square").after(scatter);
    auto sum = nccl::add_all_reduce<float>(g, comms, {{stand_in.data() + 3, stand_in.data() + 3}}, 1).name("all_reduce")
                   .after(square);
    g.add_memcpy(stand_in.data() + 1, stand_in.data() + 3, 1).name("gather").after(sum);
    return sample::print_dot(calls_before, g);
  }
  from_environment(a);
  const int devices = sample::cuda_device_count();
  if (a.rank < 0) {  // the launcher of this machine's ranks
    fmt::print("graphdsl {} multi_process sample: one NCCL world over several processes, one GPU each\n\n",
               gd::version_string);
    if (devices < 2) {
      fmt::print("skipped: needs 2 GPUs (this machine has {})\n", devices);
      return 0;
    }
    if (!nccl::available()) {
      fmt::print("skipped: {}\n", nccl::unavailable_reason());
      return 0;
    }
    return start_ranks(argv[0], std::min(devices, 8));
  }
  if (a.world <= 0 || a.id_file.empty()) {
    throw std::runtime_error("a rank needs --world (or the launcher's size variable) and --id-file");
  }
  if (a.device < 0) a.device = a.rank % std::max(devices, 1);
  CUDA_CHECK(cudaSetDevice(a.device));
  if (a.rank == 0) fmt::print("rank 0 of {}: device {}: {}\n", a.world, a.device, sample::device_summary(a.device));
  const std::vector<Figures> all = run_rank(a);
  return report(a, all) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(argc, argv); });
}
