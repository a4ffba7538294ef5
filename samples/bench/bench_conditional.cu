// samples/bench/bench_conditional.cu — conditional nodes: what a device-side loop or branch saves
// over deciding on the host, and what graphdsl costs on top of raw CUDA conditional nodes.
//
//   C1  WHILE loop of K iterations of a one-thread body (increment a counter, set the condition),
//       K = 10, 100, 1000, 10000, time per loop (launch to synchronize, host wall time):
//         graphdsl   memset counter --> WHILE { tick }        built with Graph::add_while
//         raw        the same graph built with cudaGraphConditionalHandleCreate + cudaGraphAddNode
//         host loop  memset counter; repeat { tick kernel, copy the flag back, synchronize } while flag
//         helper     graphdsl, body = { count kernel --> add_set_condition(counter < K) } (two nodes)
//       goals: host loop / graphdsl >= 2.4 at K = 1000; graphdsl / raw <= 1.03.
//   C2  one decision per launch, taken from a value in device memory (a sequence of case numbers
//       read by a "decide" kernel), then a one-thread body that logs its case; time per decision
//       over 200 decisions (host wall time to the final synchronize):
//         conditional  one graph: decide (sets the condition) --> IF-ELSE / SWITCH (4 cases, plus
//                      out-of-range values that run no case)
//         host select  decide kernel, copy the case back, synchronize, launch the chosen separate
//                      graph (one graph per case) -- what a host must do without conditional nodes
//         host known   the host already knows the case and launches the chosen graph: no decision
//                      on the device at all (a lower bound, for scale)
//
// Every variant's effect is checked: the loop counter equals K after a loop, and the bodies' log
// equals the sequence of cases (out-of-range values leave no entry). Medians of interleaved reps.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

#include "bench_conditional.hpp"
#include "bench_workload.hpp"  // bench::raw_conditional
#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

const gd::Launch one_thread{dim3(1), dim3(1)};

// ---- C1 kernels ------------------------------------------------------------------------------------

/// The WHILE body: one more iteration; continue while the count is below the limit.
__global__ void tick(int* counter, cudaGraphConditionalHandle handle, int limit) {
  const int c = ++*counter;
  cudaGraphSetConditional(handle, c < limit ? 1u : 0u);
}
/// The host loop's body: the same, with the flag written to memory for the host to read.
__global__ void tick_flag(int* counter, int* flag, int limit) {
  const int c = ++*counter;
  *flag = c < limit ? 1 : 0;
}
/// The helper variant's body kernel: only counts (add_set_condition makes the decision).
__global__ void count_only(int* counter) { ++*counter; }

/// Device state of C1: one counter per variant, the host loop's flag.
struct LoopState {
  int* counters = nullptr;  // [0] graphdsl, [1] raw, [2] host loop, [3] helper
  int* flag = nullptr;
  int* h_flag = nullptr;  // pinned
  LoopState() {
    CUDA_CHECK(cudaMalloc(&counters, 4 * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&flag, sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_flag, sizeof(int)));
  }
  ~LoopState() {
    (void)cudaFree(counters);
    (void)cudaFree(flag);
    (void)cudaFreeHost(h_flag);
  }
  LoopState(const LoopState&) = delete;
  LoopState& operator=(const LoopState&) = delete;
};

gd::Graph gd_while(int* counter, int k) {
  gd::Graph g("while");
  auto reset = g.add_memset(counter, 0, 1).name("reset");
  gd::Condition more = g.add_condition(/*default_value=*/1);
  g.add_while(more, [&](gd::Graph& body) { body.add_kernel(tick, one_thread, counter, more, k).name("tick"); })
      .name("loop")
      .after(reset);
  return g;
}

gd::Graph gd_while_helper(int* counter, int k) {
  gd::Graph g("while, helper");
  auto reset = g.add_memset(counter, 0, 1).name("reset");
  gd::Condition more = g.add_condition(/*default_value=*/1);
  g.add_while(more, [&](gd::Graph& body) {
     auto count = body.add_kernel(count_only, one_thread, counter).name("count");
     body.add_set_condition(more, counter, gd::Compare::less, k).name("counter < K").after(count);
   })
      .name("loop")
      .after(reset);
  return g;
}

/// The same WHILE graph as gd_while, with raw CUDA calls.
struct RawWhile {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;

  RawWhile(int* counter, int limit) {
    CUDA_CHECK(cudaGraphCreate(&graph, 0));
    cudaMemsetParams mp{};
    mp.dst = counter;
    mp.value = 0;
    mp.elementSize = sizeof(int);
    mp.width = 1;
    mp.height = 1;
    mp.pitch = sizeof(int);
    cudaGraphNode_t reset = nullptr;
    CUDA_CHECK(cudaGraphAddMemsetNode(&reset, graph, nullptr, 0, &mp));

    cudaGraphConditionalHandle handle{};
    cudaGraph_t body = nullptr;
    bench::raw_conditional(graph, &reset, 1, cudaGraphCondTypeWhile, &body, &handle);
    void* args[] = {&counter, &handle, &limit};
    cudaKernelNodeParams kp{};
    kp.func = reinterpret_cast<void*>(&tick);
    kp.gridDim = one_thread.grid;
    kp.blockDim = one_thread.block;
    kp.sharedMemBytes = 0;
    kp.kernelParams = args;
    cudaGraphNode_t k = nullptr;
    CUDA_CHECK(cudaGraphAddKernelNode(&k, body, nullptr, 0, &kp));

    cudaGraphInstantiateParams ip{};
    CUDA_CHECK(cudaGraphInstantiateWithParams(&exec, graph, &ip));
    if (ip.result_out != cudaGraphInstantiateSuccess) {
      std::fprintf(stderr, "raw WHILE graph: cudaGraphInstantiateWithParams result %d\n", static_cast<int>(ip.result_out));
      std::exit(1);
    }
  }
  ~RawWhile() {
    (void)cudaGraphExecDestroy(exec);
    (void)cudaGraphDestroy(graph);
  }
  RawWhile(const RawWhile&) = delete;
  RawWhile& operator=(const RawWhile&) = delete;
  void launch(cudaStream_t s) const { CUDA_CHECK(cudaGraphLaunch(exec, s)); }
};

/// The host-driven loop: K launches, each followed by a read-back of the flag and a synchronize.
void host_loop(const LoopState& st, int k, cudaStream_t s) {
  int* counter = st.counters + 2;
  CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(int), s));
  do {
    tick_flag<<<1, 1, 0, s>>>(counter, st.flag, k);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(st.h_flag, st.flag, sizeof(int), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  } while (*st.h_flag != 0);
}

int read_int(const int* d, cudaStream_t s) {
  int v = 0;
  CUDA_CHECK(cudaMemcpyAsync(&v, d, sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  return v;
}

struct Checks {
  int run = 0;
  int passed = 0;
  void expect(bool ok, const std::string& what) {
    ++run;
    if (ok) {
      ++passed;
    } else {
      std::fprintf(stderr, "check FAILED: %s\n", what.c_str());
    }
  }
};

/// Microseconds per call of `one` over `count` calls (host wall time; `one` synchronizes itself or
/// the stream is synchronized at the end).
double us_per(int count, cudaStream_t s, const std::function<void()>& one) {
  CUDA_CHECK(cudaStreamSynchronize(s));
  sample::Stopwatch w;
  for (int i = 0; i < count; ++i) one();
  CUDA_CHECK(cudaStreamSynchronize(s));
  return w.us() / count;
}

std::string conditional_goal_mark(bool met, const char* goal) { return fmt::format("{} {}", goal, met ? "met" : "MISSED"); }

double noise_of(std::initializer_list<const std::vector<double>*> series) {
  double n = 0.0;
  for (const auto* v : series) n = std::max(n, sample::half_spread(*v));
  return n;
}

void c1_while(Checks& checks, cudaStream_t s) {
  constexpr int reps = 9;
  fmt::print("\nC1: WHILE loop of K iterations of a one-thread body; time per loop (host wall time, launch to "
             "synchronize; median of {} interleaved reps)\n",
             reps);
  fmt::print("  {:<7} {:>12} {:>10} {:>13} {:>11} {:>9} {:>8} {:>7}  {}\n", "K", "graphdsl us", "raw us",
             "host loop us", "helper us", "host/gd", "gd/raw", "noise", "goals");
  LoopState st;
  int* const c_gd = st.counters + 0;
  int* const c_raw = st.counters + 1;
  int* const c_host = st.counters + 2;
  int* const c_helper = st.counters + 3;
  for (int k : {10, 100, 1000, 10000}) {
    const int loops = k <= 10 ? 100 : k <= 100 ? 20 : k <= 1000 ? 3 : 1;  // loops per rep
    gd::Executable gd_exec = gd_while(c_gd, k).instantiate();
    gd::Executable helper_exec = gd_while_helper(c_helper, k).instantiate();
    RawWhile raw(c_raw, k);

    auto run_gd = [&] {
      gd_exec.launch(s);
      CUDA_CHECK(cudaStreamSynchronize(s));
    };
    auto run_helper = [&] {
      helper_exec.launch(s);
      CUDA_CHECK(cudaStreamSynchronize(s));
    };
    auto run_raw = [&] {
      raw.launch(s);
      CUDA_CHECK(cudaStreamSynchronize(s));
    };
    auto run_host = [&] { host_loop(st, k, s); };
    auto check_all = [&](const char* when) {
      for (auto [name, counter] : {std::pair<const char*, int*>{"graphdsl", c_gd}, {"raw", c_raw},
                                   {"host loop", c_host}, {"helper", c_helper}}) {
        const int got = read_int(counter, s);
        checks.expect(got == k, fmt::format("C1 {} K={} {}: counter {} (expected {})", name, k, when, got, k));
      }
    };

    // Poison the counters, run each variant once, check; then warm up.
    CUDA_CHECK(cudaMemsetAsync(st.counters, 0x5A, 4 * sizeof(int), s));
    run_gd();
    run_raw();
    run_host();
    run_helper();
    check_all("first loop");
    for (int i = 0; i < 2; ++i) {
      run_gd();
      run_raw();
      run_helper();
    }
    run_host();

    std::vector<double> t_gd, t_raw, t_host, t_helper;
    const std::function<void()> variants[4] = {
        [&] { t_gd.push_back(us_per(loops, s, run_gd)); }, [&] { t_raw.push_back(us_per(loops, s, run_raw)); },
        [&] { t_host.push_back(us_per(loops, s, run_host)); },
        [&] { t_helper.push_back(us_per(loops, s, run_helper)); }};
    for (int r = 0; r < reps; ++r) {
      for (int v = 0; v < 4; ++v) variants[(v + r) % 4]();  // rotate the order
    }
    check_all("after timing");

    const double g = sample::median(t_gd), raw_us = sample::median(t_raw), h = sample::median(t_host),
                 hp = sample::median(t_helper);
    const double host_over_gd = g > 0 ? h / g : 0.0;
    const double gd_over_raw = raw_us > 0 ? g / raw_us : 0.0;
    std::string goals = conditional_goal_mark(gd_over_raw <= 1.03, "gd/raw<=1.03");
    if (k == 1000) goals = conditional_goal_mark(host_over_gd >= 2.4, "host/gd>=2.4") + ", " + goals;
    fmt::print("  {:<7} {:>12.1f} {:>10.1f} {:>13.1f} {:>11.1f} {:>9.2f} {:>8.3f} {:>6.1f}%  {}\n", k, g, raw_us, h, hp,
               host_over_gd, gd_over_raw, 100.0 * noise_of({&t_gd, &t_raw, &t_host, &t_helper}), goals);
  }
  fmt::print("  (per iteration at the largest K: see us / K; 'helper' = two body nodes, a counting kernel and "
             "add_set_condition)\n");
}

// ---- C2: IF-ELSE and SWITCH ------------------------------------------------------------------------

constexpr int decisions = 200;  // decisions per measurement (and the length of the case sequence)

/// Reads the next case number and sets the condition from it.
__global__ void decide(const int* seq, int* pos, cudaGraphConditionalHandle handle) {
  const int c = seq[*pos];
  *pos += 1;
  cudaGraphSetConditional(handle, static_cast<unsigned int>(c));
}
/// The same decision, written to memory for the host to read back.
__global__ void decide_flag(const int* seq, int* pos, int* out) {
  *out = seq[*pos];
  *pos += 1;
}
/// A body: appends `value` to the log.
__global__ void log_case(int* log, int* len, int value) {
  const int i = *len;
  if (i < decisions) log[i] = value;
  *len = i + 1;
}

/// Device state of C2.
struct BranchState {
  int* seq = nullptr;    // decisions case numbers
  int* pos = nullptr;    // next index into seq
  int* log = nullptr;    // decisions entries
  int* len = nullptr;    // entries written
  int* out = nullptr;    // host-select: the decision
  int* h_out = nullptr;  // pinned
  BranchState() {
    CUDA_CHECK(cudaMalloc(&seq, decisions * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&pos, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&log, decisions * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&len, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&out, sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_out, sizeof(int)));
  }
  ~BranchState() {
    for (int* p : {seq, pos, log, len, out}) (void)cudaFree(p);
    (void)cudaFreeHost(h_out);
  }
  BranchState(const BranchState&) = delete;
  BranchState& operator=(const BranchState&) = delete;
  /// Rewinds the sequence and empties the log (and poisons the log's entries).
  void reset(cudaStream_t s) const {
    CUDA_CHECK(cudaMemsetAsync(pos, 0, sizeof(int), s));
    CUDA_CHECK(cudaMemsetAsync(len, 0, sizeof(int), s));
    CUDA_CHECK(cudaMemsetAsync(log, 0xFF, decisions * sizeof(int), s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  }
};

/// One C2 shape: IF-ELSE (cases 1 = then, 0 = else) or SWITCH (cases 0..bodies-1, larger = none).
struct BranchShape {
  const char* label;
  bool if_else;
  int bodies;     // 2 for IF-ELSE
  int max_value;  // case numbers drawn from 0..max_value
};

/// The conditional graph: decide --> IF-ELSE / SWITCH, body i logging its case number.
gd::Graph conditional_plan(const BranchShape& shape, const BranchState& st) {
  gd::Graph g(shape.label);
  gd::Condition c = g.add_condition(0, /*assign_default=*/false);  // decide sets it on every launch
  auto d = g.add_kernel(decide, one_thread, st.seq, st.pos, c).name("decide");
  auto body = [&](int value) {
    return [&st, value](gd::Graph& b) { b.add_kernel(log_case, one_thread, st.log, st.len, value).name("log"); };
  };
  if (shape.if_else) {
    g.add_if_else(c, body(1), body(0)).name("branch").after(d);  // then runs for a non-zero condition
  } else {
    g.add_conditional(gd::ConditionalType::switch_case, c, static_cast<unsigned>(shape.bodies),
                      [&](unsigned i, gd::Graph& b) { body(static_cast<int>(i))(b); })
        .name("switch")
        .after(d);
  }
  return g;
}

/// One separate graph per case, for host-side selection.
gd::Graph case_plan(const BranchState& st, int value) {
  gd::Graph g(fmt::format("case {}", value));
  g.add_kernel(log_case, one_thread, st.log, st.len, value).name("log");
  return g;
}

void c2_branches(Checks& checks, cudaStream_t s) {
  constexpr int reps = 9;
  fmt::print("\nC2: one decision per launch from a value in device memory, time per decision over {} decisions "
             "(host wall time; median of {} interleaved reps)\n",
             decisions, reps);
  fmt::print("  {:<22} {:>14} {:>15} {:>14} {:>13} {:>7}\n", "shape", "conditional us", "host select us",
             "host known us", "select/cond", "noise");
  BranchState st;
  std::mt19937 rng(20261204u);
  const BranchShape shapes[] = {{"IF-ELSE", true, 2, 1}, {"SWITCH (4 cases)", false, 4, 4}};
  for (const BranchShape& shape : shapes) {
    std::vector<int> seq(decisions);
    std::uniform_int_distribution<int> pick(0, shape.max_value);
    for (int& v : seq) v = pick(rng);
    CUDA_CHECK(cudaMemcpyAsync(st.seq, seq.data(), decisions * sizeof(int), cudaMemcpyHostToDevice, s));
    std::vector<int> expected;  // the log each variant must leave: out-of-range cases run no body
    for (int v : seq) {
      if (v < shape.bodies) expected.push_back(v);
    }

    gd::Executable cond_exec = conditional_plan(shape, st).instantiate();
    std::vector<gd::Executable> case_execs;
    for (int v = 0; v < shape.bodies; ++v) case_execs.push_back(case_plan(st, v).instantiate());

    auto run_conditional = [&](int) { cond_exec.launch(s); };
    auto run_host_select = [&](int) {
      decide_flag<<<1, 1, 0, s>>>(st.seq, st.pos, st.out);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaMemcpyAsync(st.h_out, st.out, sizeof(int), cudaMemcpyDeviceToHost, s));
      CUDA_CHECK(cudaStreamSynchronize(s));
      const int v = *st.h_out;
      if (v < shape.bodies) case_execs[v].launch(s);
    };
    auto run_host_known = [&](int i) {
      const int v = seq[i];
      if (v < shape.bodies) case_execs[v].launch(s);
    };
    // One measurement: rewind, then `decisions` decisions; returns us per decision.
    auto measure = [&](const std::function<void(int)>& one) {
      st.reset(s);
      int i = 0;
      return us_per(decisions, s, [&] { one(i++); });
    };
    auto check_log = [&](const char* variant, const char* when) {
      std::vector<int> log(decisions);
      const int len = read_int(st.len, s);
      CUDA_CHECK(cudaMemcpyAsync(log.data(), st.log, decisions * sizeof(int), cudaMemcpyDeviceToHost, s));
      CUDA_CHECK(cudaStreamSynchronize(s));
      log.resize(static_cast<std::size_t>(std::clamp(len, 0, decisions)));
      checks.expect(len == static_cast<int>(expected.size()) && log == expected,
                    fmt::format("C2 {} {} {}: {} bodies ran (expected {}), log {} the case sequence", shape.label,
                                variant, when, len, expected.size(), log == expected ? "matches" : "DIFFERS from"));
    };

    const char* names[3] = {"conditional", "host select", "host known"};
    const std::function<void(int)> runs[3] = {run_conditional, run_host_select, run_host_known};
    for (int v = 0; v < 3; ++v) {  // check each variant once, then warm up
      (void)measure(runs[v]);
      check_log(names[v], "first run");
      (void)measure(runs[v]);
    }
    std::vector<double> t[3];
    for (int r = 0; r < reps; ++r) {
      for (int k = 0; k < 3; ++k) {
        const int v = (k + r) % 3;
        t[v].push_back(measure(runs[v]));
        if (r == reps - 1) check_log(names[v], "after timing");
      }
    }
    const double c = sample::median(t[0]), hs = sample::median(t[1]), hk = sample::median(t[2]);
    const int in_range = static_cast<int>(expected.size());
    fmt::print("  {:<22} {:>14.2f} {:>15.2f} {:>14.2f} {:>13.2f} {:>6.1f}%\n",
               fmt::format("{} ({} of {} run a body)", shape.label, in_range, decisions), c, hs, hk,
               c > 0 ? hs / c : 0.0, 100.0 * noise_of({&t[0], &t[1], &t[2]}));
  }
}

}  // namespace

int run_conditional_bench() {
  if (sample::cuda_device_count() == 0) {
    fmt::print("conditional nodes: skipped: no CUDA device\n");
    return 0;
  }
  int driver = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  fmt::print("\nconditional nodes (CUDA driver API {}.{}; WHILE needs 12.3, IF-ELSE and SWITCH 12.8)\n", driver / 1000,
             driver % 1000 / 10);
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Checks checks;
  sample::Stopwatch total;
  c1_while(checks, s);
  if (driver >= 12080) {
    c2_branches(checks, s);
  } else {
    fmt::print("\nC2: skipped: IF-ELSE and SWITCH need a CUDA 12.8 driver\n");
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  fmt::print("\nconditional nodes: {} of {} result checks passed ({:.1f} s)\n", checks.passed, checks.run,
             total.us() / 1e6);
  return checks.passed == checks.run ? 0 : 1;
}
