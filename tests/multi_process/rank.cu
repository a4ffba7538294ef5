// tests/multi_process/rank.cu — one process of a multi-process NCCL job, for the tests: CTest runs
// it alone (a world of one rank, a peer that never joins) and tests/multi_gpu/multi_process_test.cpp
// starts two of it, one GPU each. No Catch2 here: it checks what its mode expects, prints it, and
// exits 0 (as expected), 1 (not), or 77 (skipped: no CUDA device, or NCCL cannot be loaded).
//
//   graphdsl_mp_rank <mode> <rank> <world> <device> <id-file>
//
// The id file is the launcher's transport: rank 0 writes UniqueId::to_hex() to it (through a
// rename, so a reader never sees half of it), the other ranks wait for it. Modes:
//   ok         fill -> all_reduce (sum, in place) -> all_gather -> copy to the host; launched and
//              checked against the CPU; then the plan is updated to other buffers (per-node update
//              of the collectives) and checked again.
//   adopt      (a world of 1) the same plan over communicators adopted (borrowed) from a join; the
//              joined ones still work after the adopted ones and their plan are gone.
//   alone      rank 0 of a world of 2 whose other rank never starts: connect() throws NcclError
//              within the timeout (2 s).
//   no-launch  rank 1 compiles the plan but never launches it: rank 0's nccl::synchronize throws
//              NcclError naming the collective node within its timeout (3 s), instead of hanging.
//   world      rank 0 says the world has 2 ranks, rank 1 says 3: both get NcclError from connect().
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/nccl.hpp>

namespace gd = graphdsl;
namespace nccl = graphdsl::nccl;

namespace {

constexpr int n = 4096;

__global__ void fill(float* x, int rank, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] = static_cast<float>((rank + 1) * (i % 13)) * 0.125f;
}

void cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(rc));
    std::exit(1);
  }
}

struct Args {
  std::string mode;
  int rank = 0, world = 1, device = 0;
  std::string id_file;
};

/// Rank 0 makes the id and publishes it; the others wait for it (at most 30 s).
nccl::UniqueId exchange_id(const Args& a) {
  if (a.rank == 0) {
    const nccl::UniqueId id = nccl::UniqueId::create();
    const std::string tmp = a.id_file + ".tmp";
    std::ofstream(tmp) << id.to_hex();
    if (std::rename(tmp.c_str(), a.id_file.c_str()) != 0) throw std::runtime_error("cannot publish the id file");
    return id;
  }
  for (int i = 0; i < 30000; ++i) {
    std::ifstream in(a.id_file);
    std::stringstream text;
    if (in && (text << in.rdbuf())) return nccl::UniqueId::from_hex(text.str());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  throw std::runtime_error("no id file after 30 s: " + a.id_file);
}

/// Pinned host memory for the gathered vector. Not pageable: a graph's copy into pageable memory
/// makes cudaGraphLaunch itself wait for the work before it (measured on two H200s: with a peer
/// that never launched, launch() spun forever after the collectives and nccl::synchronize never ran).
struct PinnedFloats {
  float* p = nullptr;
  std::size_t count = 0;
  explicit PinnedFloats(std::size_t n) : count(n) { cuda(cudaMallocHost(&p, n * sizeof(float)), "cudaMallocHost"); }
  ~PinnedFloats() { (void)cudaFreeHost(p); }
  PinnedFloats(const PinnedFloats&) = delete;
  PinnedFloats& operator=(const PinnedFloats&) = delete;
  float* data() const { return p; }
  std::size_t size() const { return count; }
  float& operator[](std::size_t i) const { return p[i]; }
  float* begin() const { return p; }
  float* end() const { return p + count; }
};

/// Device memory of one rank: the input/reduced vector and the gathered one, and the gathered
/// vector's copy on the host.
struct Memory {
  float* x = nullptr;
  float* gathered = nullptr;
  PinnedFloats host;
  Memory(int world) : host(static_cast<std::size_t>(world) * n) {
    cuda(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
    cuda(cudaMalloc(&gathered, host.size() * sizeof(float)), "cudaMalloc");
  }
  ~Memory() {
    (void)cudaFree(x);
    (void)cudaFree(gathered);
  }
};

gd::Graph plan(const nccl::Communicators& comms, Memory& m, int rank) {
  gd::Graph g("ranks");
  auto k = g.add_kernel(fill, gd::cover(n), m.x, rank, n).name("fill");
  auto sum = nccl::add_all_reduce<float>(g, comms, {{m.x, m.x}}, n).name("sum").after(k);
  auto all = nccl::add_all_gather<float>(g, comms, {{m.x, m.gathered}}, n).name("gather").after(sum);
  g.add_memcpy(m.host.data(), m.gathered, m.host.size()).name("to_host").after(all);
  return g;
}

/// Every rank's share of the gathered vector is the sum over ranks of fill's values.
bool check(const Memory& m, int world, const char* what) {
  const float ranks_sum = static_cast<float>(world * (world + 1) / 2);
  for (std::size_t i = 0; i < m.host.size(); ++i) {
    const float want = ranks_sum * static_cast<float>((i % n) % 13) * 0.125f;
    if (m.host[i] != want) {
      std::printf("%s: element %zu is %g, expected %g\n", what, i, m.host[i], want);
      return false;
    }
  }
  std::printf("%s: %zu values checked\n", what, m.host.size());
  return true;
}

bool run_checked(const nccl::Communicators& comms, const Args& a, const char* what) {
  Memory m(a.world);
  gd::Executable exec = plan(comms, m, a.rank).instantiate();
  cudaStream_t s = nullptr;
  cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  bool ok = true;
  for (int round = 0; round < 3 && ok; ++round) {
    std::fill(m.host.begin(), m.host.end(), -1.0f);
    exec.launch(s);
    nccl::synchronize(exec, s, std::chrono::seconds(30));
    ok = check(m, a.world, what);
  }
  if (ok && a.mode == "ok") {
    // Other buffers, same shape: update() patches the kernel and the copy, and captures the two
    // collectives again with the new pointers.
    Memory other(a.world);
    const gd::UpdateResult r = exec.update(plan(comms, other, a.rank));
    std::printf("update to other buffers: %s\n", r.to_string().c_str());
    exec.launch(s);
    nccl::synchronize(exec, s, std::chrono::seconds(30));
    ok = r.status == gd::UpdateStatus::success && check(other, a.world, "after update");
  }
  cuda(cudaStreamDestroy(s), "cudaStreamDestroy");
  return ok;
}

bool expect_nccl_error(const std::function<void()>& f, const char* must_contain) {
  try {
    f();
  } catch (const nccl::NcclError& e) {
    std::printf("NcclError (code %d): %s\n", e.code(), e.what());
    return std::strstr(e.what(), must_contain) != nullptr;
  }
  std::printf("no NcclError\n");
  return false;
}

int run(const Args& a) {
  const nccl::UniqueId id = exchange_id(a);
  if (a.mode == "ok") return run_checked(nccl::Communicators::join(id, a.world, a.rank, a.device), a, "ok") ? 0 : 1;
  if (a.mode == "adopt") {
    const nccl::Communicators joined = nccl::Communicators::join(id, a.world, a.rank, a.device);
    bool ok = true;
    {
      const nccl::Communicators adopted = nccl::Communicators::adopt({joined.native_handle(0)});
      std::printf("adopted: %zu local rank(s), rank %d of %d on device %d\n", adopted.size(), adopted.ranks()[0],
                  adopted.world_size(), adopted.devices()[0]);
      ok = adopted.world_size() == a.world && adopted.ranks()[0] == a.rank && adopted.devices()[0] == a.device &&
           run_checked(adopted, a, "adopted");
    }
    return ok && run_checked(joined, a, "joined, after the adopted ones are gone") ? 0 : 1;
  }
  nccl::JoinOptions quick;
  quick.timeout = std::chrono::seconds(2);
  if (a.mode == "alone") {
    const auto comms = nccl::Communicators::join(id, a.world, a.rank, a.device, quick);
    return expect_nccl_error([&] { comms.connect(); }, "not every rank joined within 2000 ms") ? 0 : 1;
  }
  if (a.mode == "world") {
    const auto comms = nccl::Communicators::join(id, a.rank == 0 ? 2 : 3, a.rank, a.device, quick);
    return expect_nccl_error([&] { comms.connect(); }, "joining the world of") ? 0 : 1;
  }
  if (a.mode == "no-launch") {
    quick.timeout = std::chrono::seconds(5);
    const auto comms = nccl::Communicators::join(id, a.world, a.rank, a.device, quick);
    Memory m(a.world);
    gd::Executable exec = plan(comms, m, a.rank).instantiate();
    std::printf("rank %d: compiled\n", a.rank);
    std::fflush(stdout);
    if (a.rank != 0) {
      std::printf("rank %d: compiled, never launches\n", a.rank);
      std::this_thread::sleep_for(std::chrono::seconds(6));
      std::printf("rank %d: as expected\n", a.rank);
      std::fflush(stdout);
      std::_Exit(0);  // as a crashed peer: no finalize
    }
    cudaStream_t s = nullptr;
    cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    exec.launch(s);
    std::printf("rank 0: launched; nccl::synchronize with a 3 s timeout\n");
    std::fflush(stdout);
    const bool ok = expect_nccl_error([&] { nccl::synchronize(exec, s, std::chrono::seconds(3)); },
                                      "collective nodes: captured node 'sum' (#1)");
    std::printf("rank 0: %s\n", ok ? "as expected" : "NOT as expected");
    std::fflush(stdout);
    std::_Exit(ok ? 0 : 1);  // the aborted communicators and a stream that may still be busy: leave
  }
  std::fprintf(stderr, "unknown mode '%s'\n", a.mode.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s ok|adopt|alone|no-launch|world <rank> <world> <device> <id-file>\n", argv[0]);
    return 2;
  }
  Args a{argv[1], std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), argv[5]};
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= a.device) {
    std::printf("skipped: needs CUDA device %d\n", a.device);
    return 77;
  }
  if (!nccl::available()) {
    std::printf("skipped: %s\n", nccl::unavailable_reason().c_str());
    return 77;
  }
  cuda(cudaSetDevice(a.device), "cudaSetDevice");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("rank %d of %d on device %d: %s\n", a.rank, a.world, a.device, a.mode.c_str());
  try {
    const int rc = run(a);
    std::printf("rank %d: %s\n", a.rank, rc == 0 ? "as expected" : "NOT as expected");
    return rc;
  } catch (const std::exception& e) {
    std::printf("rank %d: unexpected error: %s\n", a.rank, e.what());
    return 1;
  }
}
