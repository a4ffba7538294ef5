// tests/soak/soak_main.cu — graphdsl_soak: the leak soak (not run by CTest; docs/reliability.md, section 3).
//
//   graphdsl_soak [CYCLES] [--capture-cycles N] [--warmup N] [--drift-informational]
//
// Runs CYCLES (default 10,000) full-plan cycles and as many capture cycles (--capture-cycles),
// interleaved:
//   full-plan cycle: build a plan with every node kind (mem_alloc, memset, kernel, event record and
//     wait, memcpy, mem_free, child holding a captured node, WHILE conditional driven by
//     add_set_condition, empty, host) -> instantiate -> launch -> check the result -> update it in
//     place from a plan with new parameters -> launch -> check -> destroy everything.
//   capture cycle: a plan with a captured node -> instantiate -> launch -> check -> whole-graph
//     update with a new captured function -> launch -> check -> destroy. Every 10th capture cycle
//     the captured function throws, every 20th (offset 4) it invalidates the capture with a
//     cudaMalloc: instantiate() must throw (the original exception, or CudaError
//     cudaErrorStreamCaptureInvalidated), the thread must be usable (cudaMalloc works, no error left
//     pending) and every graphdsl object must be released.
// After the warm-up (default 100 iterations) it records the device's free memory (cudaMemGetInfo)
// and the process RSS (/proc/self/statm); at the end it prints MEM lines, the drifts, the live
// counters once the last executable is gone, the graph memory in use after cudaDeviceGraphMemTrim,
// and PASS or FAIL against: device free-memory drift <= 2 MiB, RSS drift <= 1 MiB, live counters 0,
// graph memory in use 0, and no failed check. --drift-informational prints the drifts without
// judging them (for runs under compute-sanitizer, whose own allocations move both figures).
//
// The driver's own growth, for reference: after the main loop the soak runs as many cycles of the
// raw CUDA pattern graphdsl relies on for host closures and events — a graph retaining a CUDA user
// object, instantiated, launched once and destroyed, no graphdsl involved — and prints its RSS
// growth per cycle and the RSS drift net of it (one such executable per full-plan cycle). Measured
// on an H200 with driver 580.159.04 / CUDA 13.0, that raw pattern alone keeps 208 bytes of malloc'd
// memory per launched executable (whatever the number of user objects or launches), which is the
// whole of the soak's RSS drift there. --judge-net-rss judges the net figure instead of the raw one.
// Exit status: 0 PASS, 1 FAIL, 2 bad arguments, 77 "skipped: no CUDA device".
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>

namespace gd = graphdsl;

namespace {

// ---- kernels -----------------------------------------------------------------------------------

__global__ void axpy_into(float* t, const float* x, float a, int n) {  // t += a * x
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] += a * x[i];
}

__global__ void twice_into(float* w, const float* x, int n) {  // w = 2 * x (the captured work)
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = 2.0f * x[i];
}

__global__ void add_into(float* y, const float* w, int n) {  // y += w
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += w[i];
}

__global__ void count_step(int* counters) {  // [0]: the WHILE condition's counter, [1]: body runs
  ++counters[0];
  ++counters[1];
}

__global__ void scale_by(float* c, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] *= factor;
}

constexpr int N = 4096;
constexpr int kBlock = 256;
constexpr int kBlocks = (N + kBlock - 1) / kBlock;
constexpr int kLoop = 4;  // the WHILE loop runs while counters[0] < kLoop (at least once)

// ---- bookkeeping -------------------------------------------------------------------------------

int g_errors = 0;

void error(const std::string& what) {
  ++g_errors;
  if (g_errors <= 20) std::printf("ERROR: %s\n", what.c_str());
  if (g_errors == 20) std::printf("ERROR: (further errors are counted, not printed)\n");
  std::fflush(stdout);
}

void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    std::printf("FATAL: %s -> %s (%s)\n", what, cudaGetErrorName(rc), cudaGetErrorString(rc));
    std::exit(1);
  }
}

/// The exception the captured function throws on forced-failure cycles (a user type: instantiate()
/// must hand back the original exception, type preserved).
struct ForcedFailure : std::runtime_error {
  explicit ForcedFailure(long cycle) : std::runtime_error("forced failure in capture cycle " + std::to_string(cycle)) {}
};

std::int64_t rss_bytes() {
  long pages_total = 0, pages_resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  const int got = std::fscanf(f, "%ld %ld", &pages_total, &pages_resident);
  std::fclose(f);
  if (got != 2) return -1;
  return static_cast<std::int64_t>(pages_resident) * sysconf(_SC_PAGESIZE);
}

std::int64_t device_free_bytes() {
  std::size_t free_b = 0, total_b = 0;
  check_cuda(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  return static_cast<std::int64_t>(free_b);
}

bool all_zero(const gd::debug::LiveCounts& c) {
  return c.plans == 0 && c.native_graphs == 0 && c.executables == 0 && c.events == 0 && c.host_closures == 0;
}

std::string describe(const gd::debug::LiveCounts& c) {
  return "plans=" + std::to_string(c.plans) + " native_graphs=" + std::to_string(c.native_graphs) +
         " executables=" + std::to_string(c.executables) + " events=" + std::to_string(c.events) +
         " host_closures=" + std::to_string(c.host_closures);
}

/// Waits (up to `timeout`) for every live counter to reach 0: closures and events held by CUDA user
/// objects are released asynchronously, on driver threads, after the executables are destroyed.
bool counters_reach_zero(std::chrono::milliseconds timeout) {
  (void)cudaDeviceSynchronize();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!all_zero(gd::debug::live_counts())) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

struct MemSample {
  std::int64_t device_free = 0;
  std::int64_t rss = 0;
};

/// Settles (device idle, counters at 0, unused graph memory trimmed), then samples.
MemSample settle_and_sample(const char* label, long iteration) {
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const bool zero = counters_reach_zero(std::chrono::milliseconds(2000));
  gd::trim_graph_memory();
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  MemSample m{device_free_bytes(), rss_bytes()};
  std::printf("MEM %-8s iteration=%-6ld device_free=%lld rss=%lld live: %s%s\n", label, iteration,
              static_cast<long long>(m.device_free), static_cast<long long>(m.rss),
              describe(gd::debug::live_counts()).c_str(), zero ? "" : " (not yet 0)");
  std::fflush(stdout);
  return m;
}

template <class T>
class Device {
 public:
  explicit Device(std::size_t n) { check_cuda(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)), "cudaMalloc"); }
  ~Device() { (void)cudaFree(p_); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

template <class T>
class Pinned {
 public:
  explicit Pinned(std::size_t n) { check_cuda(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)), "cudaMallocHost"); }
  ~Pinned() { (void)cudaFreeHost(p_); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  T* get() const { return p_; }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  T* p_ = nullptr;
};

// ---- the driver's own growth (raw CUDA, no graphdsl) -------------------------------------------

std::atomic<long> g_reference_destroyed{0};

void reference_destructor(void* p) {
  delete static_cast<int*>(p);
  g_reference_destroyed.fetch_add(1);
}

/// What graphdsl does for a host closure or an event, in raw CUDA: a graph retains a user object,
/// is instantiated, launched once and destroyed.
void raw_user_object_cycle(cudaStream_t s) {
  cudaGraph_t g = nullptr;
  check_cuda(cudaGraphCreate(&g, 0), "cudaGraphCreate");
  cudaUserObject_t o = nullptr;
  check_cuda(cudaUserObjectCreate(&o, new int(1), reference_destructor, 1, cudaUserObjectNoDestructorSync),
             "cudaUserObjectCreate");
  check_cuda(cudaGraphRetainUserObject(g, o, 1, cudaGraphUserObjectMove), "cudaGraphRetainUserObject");
  cudaGraphNode_t node = nullptr;
  check_cuda(cudaGraphAddEmptyNode(&node, g, nullptr, 0), "cudaGraphAddEmptyNode");
  cudaGraphExec_t exec = nullptr;
  check_cuda(cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate");
  check_cuda(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  check_cuda(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check_cuda(cudaGraphDestroy(g), "cudaGraphDestroy");
}

/// RSS growth per cycle of raw_user_object_cycle over `cycles` cycles (after 100 warm-up cycles),
/// once every user object's destructor has run.
double reference_rss_per_cycle(cudaStream_t s, long cycles) {
  long created = 0;
  auto settle = [&] {
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
    while (g_reference_destroyed.load() != created && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  };
  for (int i = 0; i < 100; ++i, ++created) raw_user_object_cycle(s);
  settle();
  const std::int64_t before = rss_bytes();
  for (long i = 0; i < cycles; ++i, ++created) raw_user_object_cycle(s);
  settle();
  const std::int64_t after = rss_bytes();
  if (g_reference_destroyed.load() != created) {
    std::printf("REFERENCE: %ld of %ld user-object destructors ran\n", g_reference_destroyed.load(), created);
  }
  return static_cast<double>(after - before) / static_cast<double>(cycles);
}

// ---- the full plan -------------------------------------------------------------------------------

struct Resources {
  Device<float> x{N};     // input: multiples of 1/8 in [-64, 64), never 0
  Device<float> w{N};     // written by the captured work
  Device<float> y{N};     // result
  Device<int> counters{2};  // WHILE counter, body runs
  Device<float> c{N};     // capture cycles
  Pinned<float> out{N};   // downloads
  Pinned<int> out_counters{2};
  Pinned<float> out_c{N};
  std::vector<float> hx = std::vector<float>(N);
  std::atomic<long long> host_calls{0};
};

/// The child plan holding the captured node. Built once per cycle and embedded (as copies that share
/// the captured function) in both the plan and its update template: a captured node is identified
/// by its function, and an unchanged one needs no whole-graph update (which CUDA refuses for plans
/// with graph allocations).
gd::Graph make_capture_child(Resources& r) {
  gd::Graph cap("captured");
  float* w = r.w.get();
  const float* x = r.x.get();
  cap.add_captured([w, x](cudaStream_t s) { twice_into<<<kBlocks, kBlock, 0, s>>>(w, x, N); }).name("twice");
  return cap;
}

/// Every node kind: y = (f + a*x) + 2x computed through a graph allocation; a WHILE loop whose
/// counter starts at `start` and runs until it reaches kLoop (kLoop - start body runs); a host node
/// adding `host_increment` to the call counter.
gd::Graph build_full_plan(Resources& r, const gd::Graph& cap, const gd::Event& ev, float a, float f, int start,
                          long long host_increment) {
  gd::Graph g("soak");
  const float* cx = r.x.get();
  auto [alloc, tmp] = g.add_mem_alloc<float>(N);
  alloc.name("alloc");
  auto fill = g.add_memset(tmp, f, N).name("fill").after(alloc);
  auto axpy = g.add_kernel(axpy_into, gd::cover(N), tmp, cx, a, N).name("axpy").after(fill);
  auto record = g.add_event_record(ev).name("record").after(axpy);
  auto wait = g.add_event_wait(ev).name("wait").after(record);
  auto copy = g.add_memcpy(r.y.get(), tmp, N).name("copy").after(wait);
  g.add_mem_free(tmp).name("free").after(copy);
  auto child = g.add_child(cap).name("captured");
  int* counters = r.counters.get();
  auto reset = g.add_memset(counters, start, 1).name("reset");
  auto reset_runs = g.add_memset(counters + 1, 0, 1).name("reset_runs");
  const gd::Condition more = g.add_condition(1);
  auto loop = g.add_while(more, [&](gd::Graph& body) {
                 auto step = body.add_kernel(count_step, gd::Launch{1, 1}, counters).name("step");
                 body.add_set_condition(more, static_cast<const int*>(counters), gd::Compare::less, kLoop)
                     .name("more")
                     .after(step);
               })
                  .name("loop")
                  .after(reset, reset_runs);
  auto combine = g.add_kernel(add_into, gd::cover(N), r.y.get(), static_cast<const float*>(r.w.get()), N)
                     .name("combine")
                     .after(copy, child);
  auto join = g.add_empty().name("join").after(combine, loop);
  auto down = g.add_memcpy(r.out.get(), static_cast<const float*>(r.y.get()), N).name("download").after(join);
  auto down_counters =
      g.add_memcpy(r.out_counters.get(), static_cast<const int*>(counters), 2).name("download_counters").after(join);
  std::atomic<long long>* calls = &r.host_calls;
  g.add_host([calls, host_increment] { calls->fetch_add(host_increment); }).name("count").after(down, down_counters);
  return g;
}

void poison_outputs(Resources& r) {
  std::fill(r.out.get(), r.out.get() + N, std::numeric_limits<float>::quiet_NaN());
  r.out_counters[0] = r.out_counters[1] = -1;
}

void check_full_result(Resources& r, long cycle, const char* which, float a, float f, int start,
                       long long calls_want) {
  for (int i = 0; i < N; ++i) {
    const float want = (f + a * r.hx[i]) + 2.0f * r.hx[i];
    if (!(r.out[i] == want)) {
      error("full cycle " + std::to_string(cycle) + " (" + which + "): element " + std::to_string(i) + " is " +
            std::to_string(r.out[i]) + ", want " + std::to_string(want));
      return;
    }
  }
  if (r.out_counters[0] != kLoop || r.out_counters[1] != kLoop - start) {
    error("full cycle " + std::to_string(cycle) + " (" + which + "): WHILE counter " +
          std::to_string(r.out_counters[0]) + " after " + std::to_string(r.out_counters[1]) + " body runs, want " +
          std::to_string(kLoop) + " after " + std::to_string(kLoop - start));
  }
  if (r.host_calls.load() != calls_want) {
    error("full cycle " + std::to_string(cycle) + " (" + which + "): host counter " +
          std::to_string(r.host_calls.load()) + ", want " + std::to_string(calls_want));
  }
}

void full_cycle(Resources& r, cudaStream_t s, long cycle) {
  const float a = static_cast<float>(cycle % 7 - 3);
  const float f = 0.25f * static_cast<float>(cycle % 5) + 0.125f;
  const float a2 = a + 5.0f;
  gd::Event ev = gd::Event::create();
  const gd::Graph cap = make_capture_child(r);
  gd::Executable exec = build_full_plan(r, cap, ev, a, f, 0, 1).instantiate();

  const long long calls0 = r.host_calls.load();
  poison_outputs(r);
  exec.launch(s);
  exec.synchronize(s);
  check_full_result(r, cycle, "first launch", a, f, 0, calls0 + 1);

  // Same shape, new parameters: the kernel's scalar, the loop counter's start value, the host callable.
  const gd::UpdateResult u = exec.update(build_full_plan(r, cap, ev, a2, f, 2, 1000));
  if (!u || u.strategy != gd::UpdateStrategy::per_node || u.patched != 3) {
    error("full cycle " + std::to_string(cycle) + ": update: " + u.to_string() +
          " (want a per-node update of 3 nodes: axpy, reset, count)");
    return;
  }
  poison_outputs(r);
  exec.launch(s);
  exec.synchronize(s);
  check_full_result(r, cycle, "after update", a2, f, 2, calls0 + 1 + 1000);
}

// ---- capture cycles ----------------------------------------------------------------------------

gd::Graph build_capture_plan(Resources& r, float v, float factor, bool throw_now, bool invalidate_now, long cycle,
                             void** stray, cudaError_t* inner) {
  gd::Graph g("capture_cycle");
  float* c = r.c.get();
  auto fill = g.add_memset(c, v, N).name("fill");
  auto cap = g.add_captured([=](cudaStream_t s) {
                scale_by<<<kBlocks, kBlock, 0, s>>>(c, factor, N);
                if (invalidate_now) *inner = cudaMalloc(stray, 256);  // not allowed while this thread captures
                if (throw_now) throw ForcedFailure(cycle);
              })
                 .name("capture")
                 .after(fill);
  g.add_memcpy(r.out_c.get(), static_cast<const float*>(c), N).name("download").after(cap);
  return g;
}

void check_capture_result(Resources& r, long cycle, const char* which, float want) {
  for (int i = 0; i < N; ++i) {
    if (!(r.out_c[i] == want)) {
      error("capture cycle " + std::to_string(cycle) + " (" + which + "): element " + std::to_string(i) + " is " +
            std::to_string(r.out_c[i]) + ", want " + std::to_string(want));
      return;
    }
  }
}

struct CaptureTally {
  long throws = 0;
  long invalidations = 0;
  long caught = 0;
};

void capture_cycle(Resources& r, cudaStream_t s, long cycle, CaptureTally& tally) {
  const bool throw_now = cycle % 10 == 9;
  const bool invalidate_now = !throw_now && cycle % 20 == 4;
  const float v = 0.5f * static_cast<float>(cycle % 9 - 4) + 0.25f;
  void* stray = nullptr;
  cudaError_t inner = cudaSuccess;
  const std::string name = "capture cycle " + std::to_string(cycle);

  if (throw_now || invalidate_now) {
    (throw_now ? tally.throws : tally.invalidations)++;
    {
      const gd::Graph g = build_capture_plan(r, v, 3.0f, throw_now, invalidate_now, cycle, &stray, &inner);
      try {
        gd::Executable exec = g.instantiate();
        error(name + ": instantiate() did not throw");
      } catch (const ForcedFailure& e) {
        if (throw_now && std::string(e.what()) == "forced failure in capture cycle " + std::to_string(cycle)) {
          ++tally.caught;
        } else {
          error(name + ": unexpected ForcedFailure: " + e.what());
        }
      } catch (const gd::CudaError& e) {
        if (invalidate_now && e.code() == cudaErrorStreamCaptureInvalidated && e.node() && e.node()->name == "capture") {
          ++tally.caught;
        } else {
          error(name + ": unexpected CudaError: " + e.what());
        }
      } catch (const std::exception& e) {
        error(name + ": unexpected exception: " + e.what());
      }
    }
    if (invalidate_now) {
      if (inner == cudaSuccess) error(name + ": cudaMalloc inside a thread-local capture succeeded");
      (void)cudaGetLastError();  // the captured function's own failed cudaMalloc
    }
    if (stray != nullptr) (void)cudaFree(stray);
    const cudaError_t pending = cudaGetLastError();
    if (pending != cudaSuccess) error(name + ": an error was left pending: " + cudaGetErrorName(pending));
    void* p = nullptr;  // fails with cudaErrorStreamCaptureUnsupported if a capture was left open
    const cudaError_t rc = cudaMalloc(&p, 256);
    if (rc != cudaSuccess) {
      error(name + ": cudaMalloc after the failed capture: " + cudaGetErrorName(rc));
    } else {
      (void)cudaFree(p);
    }
    if (!counters_reach_zero(std::chrono::milliseconds(2000))) {
      error(name + ": objects still alive after the failed instantiation: " + describe(gd::debug::live_counts()));
    }
    return;
  }

  gd::Executable exec = build_capture_plan(r, v, 3.0f, false, false, cycle, &stray, &inner).instantiate();
  std::fill(r.out_c.get(), r.out_c.get() + N, std::numeric_limits<float>::quiet_NaN());
  exec.launch(s);
  exec.synchronize(s);
  check_capture_result(r, cycle, "first launch", 3.0f * v);
  // A new captured function: the whole-graph update re-captures it.
  const gd::UpdateResult u = exec.update(build_capture_plan(r, v, -2.0f, false, false, cycle, &stray, &inner));
  if (!u || u.strategy != gd::UpdateStrategy::whole_graph) {
    error(name + ": update: " + u.to_string() + " (want a whole-graph update)");
    return;
  }
  std::fill(r.out_c.get(), r.out_c.get() + N, std::numeric_limits<float>::quiet_NaN());
  exec.launch(s);
  exec.synchronize(s);
  check_capture_result(r, cycle, "after update", -2.0f * v);
}

void usage() {
  std::printf("usage: graphdsl_soak [CYCLES] [--capture-cycles N] [--warmup N] [--drift-informational] "
              "[--judge-net-rss]\n");
}

bool parse_count(const char* s, long& out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < 0) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  long cycles = 10000;
  long capture_cycles = -1;
  long warmup = -1;
  bool drift_informational = false;
  bool judge_net_rss = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      usage();
      return 0;
    } else if (arg == "--capture-cycles" && i + 1 < argc) {
      if (!parse_count(argv[++i], capture_cycles)) {
        usage();
        return 2;
      }
    } else if (arg == "--warmup" && i + 1 < argc) {
      if (!parse_count(argv[++i], warmup)) {
        usage();
        return 2;
      }
    } else if (arg == "--drift-informational") {
      drift_informational = true;
    } else if (arg == "--judge-net-rss") {
      judge_net_rss = true;
    } else if (!parse_count(argv[i], cycles)) {
      usage();
      return 2;
    }
  }
  if (capture_cycles < 0) capture_cycles = cycles;
  const long iterations = std::max(cycles, capture_cycles);
  if (warmup < 0) warmup = std::min<long>(100, iterations / 2);
  warmup = std::min(warmup, iterations);

  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device (%s)\n", rc == cudaSuccess ? "0 devices" : cudaGetErrorString(rc));
    return 77;
  }
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  std::printf("graphdsl soak on %s (sm_%d%d), driver %d, runtime %d\n", prop.name, prop.major, prop.minor, driver,
              runtime);
  std::printf("cycles: %ld full-plan, %ld capture (every 10th throws, every 20th (offset 4) invalidates the capture); "
              "warm-up %ld iterations\n",
              cycles, capture_cycles, warmup);
  std::fflush(stdout);

  int status = 0;
  {
    Resources r;
    {
      std::uint32_t state = 20240611u;
      for (int i = 0; i < N; ++i) {
        state = state * 1664525u + 1013904223u;
        int k = static_cast<int>((state >> 8) % 1024u) - 512;  // [-512, 511]
        if (k == 0) k = 1;
        r.hx[i] = static_cast<float>(k) / 8.0f;
      }
      check_cuda(cudaMemcpy(r.x.get(), r.hx.data(), N * sizeof(float), cudaMemcpyHostToDevice), "upload x");
    }
    cudaStream_t s = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");

    CaptureTally tally;
    MemSample base{};
    bool have_base = false;
    double full_seconds = 0, capture_seconds = 0;
    long full_done = 0, capture_done = 0;
    const long report_every = std::max<long>(1000, iterations / 10);
    using clock = std::chrono::steady_clock;
    for (long it = 0; it < iterations; ++it) {
      if (it == warmup) {
        base = settle_and_sample("baseline", it);
        have_base = true;
      } else if (it > warmup && it % report_every == 0) {
        (void)settle_and_sample("progress", it);
      }
      try {
        if (it < cycles) {
          const auto t0 = clock::now();
          full_cycle(r, s, it);
          full_seconds += std::chrono::duration<double>(clock::now() - t0).count();
          ++full_done;
        }
        if (it < capture_cycles) {
          const auto t0 = clock::now();
          capture_cycle(r, s, it, tally);
          capture_seconds += std::chrono::duration<double>(clock::now() - t0).count();
          ++capture_done;
        }
      } catch (const std::exception& e) {
        error("iteration " + std::to_string(it) + ": unexpected exception: " + e.what());
        (void)cudaGetLastError();
      }
      if (g_errors > 100) {
        std::printf("stopping after %d errors\n", g_errors);
        break;
      }
    }
    if (!have_base) base = settle_and_sample("baseline", iterations);  // 0 iterations or warm-up == all
    const MemSample end = settle_and_sample("end", iterations);

    const std::int64_t free_drift = base.device_free - end.device_free;  // > 0: device memory lost
    const std::int64_t rss_drift = end.rss - base.rss;                   // > 0: host memory gained
    const std::int64_t free_limit = 2 << 20, rss_limit = 1 << 20;
    std::printf("DRIFT device_free %lld bytes (%.3f MiB; limit 2 MiB)\n", static_cast<long long>(free_drift),
                free_drift / 1048576.0);
    std::printf("DRIFT rss %lld bytes (%.3f MiB; limit 1 MiB)\n", static_cast<long long>(rss_drift),
                rss_drift / 1048576.0);

    // The driver's own growth for the executables the measured full-plan cycles launched (one each,
    // holding user objects for its host closure and its event), measured with raw CUDA calls.
    const long measured_full = std::max<long>(0, std::min(cycles, iterations) - warmup);
    std::int64_t rss_net = rss_drift;
    if (measured_full > 0) {
      const double per_cycle = reference_rss_per_cycle(s, measured_full);
      rss_net = rss_drift - static_cast<std::int64_t>(per_cycle * static_cast<double>(measured_full));
      std::printf("REFERENCE raw CUDA, no graphdsl (graph retaining a user object, instantiated, launched once, "
                  "destroyed): %.1f bytes/cycle RSS over %ld cycles\n",
                  per_cycle, measured_full);
      std::printf("DRIFT rss net of that driver growth (%ld full-plan cycles measured): %lld bytes (%.3f MiB)\n",
                  measured_full, static_cast<long long>(rss_net), rss_net / 1048576.0);
    }

    check_cuda(cudaStreamDestroy(s), "cudaStreamDestroy");
    const bool zero = counters_reach_zero(std::chrono::milliseconds(5000));
    const gd::debug::LiveCounts live = gd::debug::live_counts();
    std::printf("LIVE after the last executable: %s -> %s\n", describe(live).c_str(), zero ? "all 0" : "NOT 0");

    check_cuda(cudaDeviceGraphMemTrim(device), "cudaDeviceGraphMemTrim");
    std::uint64_t used = 0, reserved = 0, used_high = 0;
    check_cuda(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemCurrent, &used), "used mem");
    check_cuda(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemCurrent, &reserved), "reserved mem");
    check_cuda(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemHigh, &used_high), "used mem high");
    std::printf("GRAPHMEM after cudaDeviceGraphMemTrim: used_current=%llu reserved_current=%llu used_high=%llu\n",
                static_cast<unsigned long long>(used), static_cast<unsigned long long>(reserved),
                static_cast<unsigned long long>(used_high));

    std::printf("RATE full-plan cycles: %ld in %.3f s = %.1f cycles/s (%.1f us/cycle)\n", full_done, full_seconds,
                full_seconds > 0 ? full_done / full_seconds : 0.0, full_done ? 1e6 * full_seconds / full_done : 0.0);
    std::printf("RATE capture cycles: %ld in %.3f s = %.1f cycles/s (%.1f us/cycle)\n", capture_done, capture_seconds,
                capture_seconds > 0 ? capture_done / capture_seconds : 0.0,
                capture_done ? 1e6 * capture_seconds / capture_done : 0.0);
    std::printf("FORCED failures: %ld throws + %ld invalidations, %ld caught as expected\n", tally.throws,
                tally.invalidations, tally.caught);
    std::printf("HOST callbacks run: %lld\n", r.host_calls.load());

    std::vector<std::string> failed;
    if (g_errors != 0) failed.push_back(std::to_string(g_errors) + " failed checks");
    if (full_done != cycles || capture_done != capture_cycles) failed.push_back("not every cycle ran");
    if (tally.caught != tally.throws + tally.invalidations) failed.push_back("forced failures not all caught");
    if (!zero) failed.push_back("live counters not 0");
    if (used != 0) failed.push_back("graph memory still in use");
    if (free_drift > free_limit) {
      failed.push_back(std::string("device free-memory drift > 2 MiB") + (drift_informational ? " (informational)" : ""));
    }
    const std::int64_t judged_rss = judge_net_rss ? rss_net : rss_drift;
    if (judged_rss > rss_limit) {
      failed.push_back(std::string(judge_net_rss ? "RSS drift net of the driver's growth > 1 MiB" : "RSS drift > 1 MiB") +
                       (drift_informational ? " (informational)" : ""));
    }
    std::size_t judged = 0;
    for (const auto& f : failed) judged += f.find("(informational)") == std::string::npos;
    if (judged == 0) {
      std::printf("PASS");
      if (!failed.empty()) {
        std::printf(" (not judged:");
        for (const auto& f : failed) std::printf(" %s;", f.c_str());
        std::printf(")");
      }
      std::printf("\n");
    } else {
      status = 1;
      std::printf("FAIL:");
      for (const auto& f : failed) std::printf(" %s;", f.c_str());
      std::printf("\n");
    }
  }
  return status;
}
