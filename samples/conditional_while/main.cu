// samples/conditional_while — an iterative solver that runs until convergence on the device.
//
// Jacobi iteration for A x = b, A an n x n diagonally dominant matrix (off-diagonal entries drawn
// from [0, 1), a_ii = (1 + dominance) * sum of the row's off-diagonal entries), b = A x_true for a
// random x_true. The whole solve is one graph launch:
//
//   reset x = 0 --+
//                 +--> WHILE (residual > tol) {  clear residual --> jacobi step --+--> x = x_new
//   reset count --+                                                               +--> count iteration --> set condition
//                      }
//
//   clear residual   memset node: *residual = 0
//   jacobi step      x_new = D^-1 (b - (A - D) x); *residual = max_i |x_new_i - x_i| (atomicMax)
//   x = x_new        device-to-device memcpy node
//   count iteration  ++*iterations; at max_iters it writes *residual = -1, which ends the loop
//   set condition    graphdsl's helper node: condition = (*residual > tol)
//
// The user's kernels know nothing about conditional nodes: Graph::add_set_condition() turns the
// residual they already compute into the loop condition.
//
// What it shows:
//   1. The plan (with its WHILE body) is built, validated and printed on the host, no CUDA call.
//      With `--dot` the sample prints the plan's DOT alone and stops here
//      (docs/pictures/conditional_while.svg is drawn from it).
//   2. With a GPU: the device-driven solve is checked against the exact solution and a CPU float64
//      Jacobi run with the same stopping rule, and timed against the same kernels driven by a host
//      loop that reads the residual back after every iteration (cudaMemcpyAsync + synchronize).
//   3. The tolerance (a parameter of a node inside the WHILE body) is changed in place with
//      Executable::update(), and the solve re-checked.
//   4. Where a solve spends its device time (graphdsl::profile, through CUPTI): each WHILE body
//      node counted once per iteration, the sum of node times against the launch's event time.
//      `--profile-out DIR` also writes the heat-map DOT (docs/pictures/profile-conditional_while.svg
//      is drawn from one), CSV, Chrome trace and name map.
// Exit status: 0 when the checks pass (or when there is no GPU), 1 otherwise.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>

#include "sample_profile.hpp"
#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int n = 2048;                // unknowns (A is 16 MiB of floats)
constexpr double dominance = 0.05;     // a_ii = (1 + dominance) * row sum: contraction q = 1 / (1 + dominance)
constexpr float tol = 1e-5f;           // stop when max_i |x_new_i - x_i| <= tol
constexpr float loose_tol = 1e-3f;     // the tolerance the in-place update switches to
constexpr int max_iters = 2000;        // guard: the loop stops after this many iterations regardless
constexpr int rows_per_block = 8;      // one warp per row
constexpr int reps = 9;                // timed solves per variant (the median is reported)
constexpr int warmup = 2;              // untimed solves per variant first

static_assert(n % rows_per_block == 0, "whole blocks of rows");

/// One Jacobi step: warp w of block b owns row r = b * rows_per_block + w. Also folds
/// |x_new_r - x_r| into *residual (non-negative floats order like their bit patterns as ints).
__global__ void jacobi_step(const float* A, const float* b, const float* x, float* x_new, float* residual, int count) {
  __shared__ float warp_change[rows_per_block];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int row = static_cast<int>(blockIdx.x) * rows_per_block + warp;
  float change = 0.0f;
  if (row < count) {  // the same for the whole warp
    const float* a = A + static_cast<size_t>(row) * count;
    float s = 0.0f;
    for (int j = lane; j < count; j += 32) s += j == row ? 0.0f : a[j] * x[j];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const float xi = (b[row] - s) / a[row];
    if (lane == 0) x_new[row] = xi;
    change = fabsf(xi - x[row]);  // NaN stays NaN, and its bit pattern is larger than any float's
  }
  if (lane == 0) warp_change[warp] = change;
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = warp_change[0];
    for (int w = 1; w < rows_per_block; ++w) m = (warp_change[w] > m || warp_change[w] != warp_change[w]) ? warp_change[w] : m;
    atomicMax(reinterpret_cast<int*>(residual), __float_as_int(m));
  }
}

/// Counts iterations; at `limit` it makes the residual negative, which ends the loop.
__global__ void count_iteration(int* iterations, float* residual, int limit) {
  if (++*iterations >= limit) *residual = -1.0f;
}

const gd::Launch step_launch{dim3(n / rows_per_block), dim3(32 * rows_per_block)};
const gd::Launch one_thread{dim3(1), dim3(1)};

/// The buffers the solver uses (device memory, or host stand-ins for the host-only preview).
struct Buffers {
  const float* A = nullptr;
  const float* b = nullptr;
  float* x = nullptr;
  float* x_new = nullptr;
  float* residual = nullptr;
  int* iterations = nullptr;
};

/// The plan: the whole solve in one graph. Building it makes no CUDA call. `loop`, when given,
/// receives the WHILE node's handle.
gd::Graph build_solver(const Buffers& d, float tolerance, gd::ConditionalNode* loop = nullptr) {
  gd::Graph g("jacobi");
  auto reset_x = g.add_memset(d.x, 0.0f, n).name("reset x");
  auto reset_count = g.add_memset(d.iterations, 0, 1).name("reset count");
  gd::Condition more = g.add_condition(/*default_value=*/1);  // reset to 1 at every launch: at least one iteration
  gd::ConditionalNode node = g.add_while(more, [&](gd::Graph& body) {
     auto clear = body.add_memset(d.residual, 0.0f, 1).name("clear residual");
     auto step = body.add_kernel(jacobi_step, step_launch, d.A, d.b, d.x, d.x_new, d.residual, n)
                     .name("jacobi step")
                     .after(clear);
     body.add_memcpy(d.x, d.x_new, n, cudaMemcpyDeviceToDevice).name("x = x_new").after(step);
     auto count = body.add_kernel(count_iteration, one_thread, d.iterations, d.residual, max_iters)
                      .name("count iteration")
                      .after(step);
     body.add_set_condition(more, d.residual, gd::Compare::greater, tolerance).name("residual > tol").after(count);
   })
      .name("until converged")
      .after(reset_x, reset_count);
  if (loop != nullptr) *loop = node;
  return g;
}

// ---- the same solver driven by the host -------------------------------------------------------

/// Launches the same kernels and copies from the host, reading the residual back after every
/// iteration. Returns the iteration count (same stopping rule as the graph).
int host_solve(const Buffers& d, float* h_residual, cudaStream_t s) {
  CUDA_CHECK(cudaMemsetAsync(d.x, 0, n * sizeof(float), s));
  int it = 0;
  while (it < max_iters) {
    CUDA_CHECK(cudaMemsetAsync(d.residual, 0, sizeof(float), s));
    jacobi_step<<<step_launch.grid, step_launch.block, 0, s>>>(d.A, d.b, d.x, d.x_new, d.residual, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(d.x, d.x_new, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    ++it;
    CUDA_CHECK(cudaMemcpyAsync(h_residual, d.residual, sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (!(*h_residual > tol)) break;
  }
  return it;
}

// ---- the CPU reference ------------------------------------------------------------------------

struct CpuSolve {
  std::vector<double> x;
  int iterations = 0;
};

/// float64 Jacobi on the same (float) A and b, with the graph's stopping rule.
CpuSolve cpu_jacobi(const std::vector<float>& A, const std::vector<float>& b, double tolerance) {
  CpuSolve r;
  r.x.assign(n, 0.0);
  std::vector<double> next(n);
  while (r.iterations < max_iters) {
    double change = 0.0;
    for (int i = 0; i < n; ++i) {
      const float* a = A.data() + static_cast<std::size_t>(i) * n;
      double s = 0.0;
      for (int j = 0; j < n; ++j) s += j == i ? 0.0 : static_cast<double>(a[j]) * r.x[j];
      next[i] = (b[i] - s) / a[i];
      change = std::max(change, std::fabs(next[i] - r.x[i]));
    }
    r.x.swap(next);
    ++r.iterations;
    if (!(change > tolerance)) break;
  }
  return r;
}

double max_abs_diff(const std::vector<float>& x, const std::vector<double>& ref) {
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    const double e = std::fabs(static_cast<double>(x[i]) - ref[i]);
    if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
  }
  return worst;
}

/// Device memory; declared before the executables so that it is destroyed after them.
struct DeviceBuffers {
  Buffers d;
  float* A = nullptr;
  float* b = nullptr;
  float* h_residual = nullptr;  // pinned
  DeviceBuffers() {
    CUDA_CHECK(cudaMalloc(&A, static_cast<std::size_t>(n) * n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.x_new, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.residual, sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d.iterations, sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_residual, sizeof(float)));
    d.A = A;
    d.b = b;
  }
  ~DeviceBuffers() {
    for (void* p : {static_cast<void*>(A), static_cast<void*>(b), static_cast<void*>(d.x), static_cast<void*>(d.x_new),
                    static_cast<void*>(d.residual), static_cast<void*>(d.iterations)}) {
      (void)cudaFree(p);
    }
    (void)cudaFreeHost(h_residual);
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;

  /// Fills x, x_new, the residual and the counter with garbage (NaN, -1), so that anything the
  /// solve fails to write shows up in the check.
  void poison(cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(d.x, 0xFF, n * sizeof(float), s));
    CUDA_CHECK(cudaMemsetAsync(d.x_new, 0xFF, n * sizeof(float), s));
    CUDA_CHECK(cudaMemsetAsync(d.residual, 0xFF, sizeof(float), s));
    CUDA_CHECK(cudaMemsetAsync(d.iterations, 0xFF, sizeof(int), s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  }
  std::vector<float> read_x(cudaStream_t s) const {
    std::vector<float> x(n);
    CUDA_CHECK(cudaMemcpyAsync(x.data(), d.x, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return x;
  }
  template <class T>
  T read(const T* p, cudaStream_t s) const {
    T v{};
    CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof(T), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return v;
  }
};

/// One solve's outcome, checked against the CPU.
struct Check {
  bool ok = true;
  void expect(bool cond, const std::string& what) {
    fmt::print("  {:<72} {}\n", what, cond ? "ok" : "FAILED");
    ok = ok && cond;
  }
};

int run(bool dot_only, const std::string& profile_dir) {
  // ---- 1. the plan, on the host --------------------------------------------------------------
  // A plan only records pointers; this preview is never compiled, so host stand-ins will do.
  std::vector<float> stand_in(3 * static_cast<std::size_t>(n) + 2);
  int stand_in_count = 0;
  const Buffers preview_buffers{stand_in.data(), stand_in.data(), stand_in.data() + n, stand_in.data() + 2 * n,
                                stand_in.data() + 3 * n, &stand_in_count};
  const auto calls_before = gd::debug::cuda_calls();
  gd::ConditionalNode loop;
  const gd::Graph preview = build_solver(preview_buffers, tol, &loop);
  preview.validate();  // body rules included; throws gd::UsageError naming the node and the body
  if (dot_only) return sample::print_dot(calls_before, preview);
  fmt::print("graphdsl {} conditional_while sample: Jacobi iteration, n = {}, tol = {:g}, max {} iterations\n\n",
             gd::version_string, n, tol, max_iters);
  fmt::print("plan '{}' built and validated on the host: {} top-level nodes ({} in the WHILE body), {} CUDA calls\n\n",
             preview.name(), preview.node_count(),
             preview.body_plan(loop, 0).node_count(),
             gd::debug::cuda_calls() - calls_before);
  fmt::print("--- Graph::dump() ---\n{}\n", preview.dump());
  fmt::print("--- Graph::to_dot() (render with: dot -Tsvg) ---\n{}\n", preview.to_dot());

  // ---- 2. is there a device? ------------------------------------------------------------------
  if (sample::cuda_device_count() == 0) {
    fmt::print("no CUDA device found: the plan above was built and validated on the host; "
               "run on a GPU machine to execute it\n");
    return 0;
  }
  CUDA_CHECK(cudaSetDevice(0));
  fmt::print("device: {}\n\n", sample::device_summary(0));

  // ---- 3. the system and the CPU reference ----------------------------------------------------
  std::mt19937 rng(20261121u);
  std::uniform_real_distribution<float> off_diag(0.0f, 1.0f);
  std::uniform_real_distribution<double> solution(-1.0, 1.0);
  std::vector<float> A(static_cast<std::size_t>(n) * n), b(n);
  std::vector<double> x_true(n);
  for (double& v : x_true) v = solution(rng);
  for (int i = 0; i < n; ++i) {
    float* a = A.data() + static_cast<std::size_t>(i) * n;
    double row_sum = 0.0;
    for (int j = 0; j < n; ++j) {
      a[j] = j == i ? 0.0f : off_diag(rng);
      row_sum += a[j];
    }
    a[i] = static_cast<float>((1.0 + dominance) * row_sum);
  }
  for (int i = 0; i < n; ++i) {
    const float* a = A.data() + static_cast<std::size_t>(i) * n;
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += static_cast<double>(a[j]) * x_true[j];
    b[i] = static_cast<float>(s);
  }
  sample::Stopwatch cpu_clock;
  const CpuSolve cpu = cpu_jacobi(A, b, tol);
  const CpuSolve cpu_loose = cpu_jacobi(A, b, loose_tol);
  const double cpu_ms = cpu_clock.us() / 1000.0;
  // With q = 1 / (1 + dominance) the Jacobi map contracts the max-norm by q, so when the last
  // step changed x by at most tol, x is within q / (1 - q) * tol of the solution. Float32
  // rounding adds about 1e-6 here; the bound allows 1e-5 for it.
  const double q = 1.0 / (1.0 + dominance);
  auto bound = [&](double t) { return q / (1.0 - q) * t + 1e-5; };
  fmt::print("CPU float64 Jacobi: {} iterations to tol {:g}, {} to tol {:g} ({:.0f} ms); its error vs the exact "
             "solution {:.3g}\n",
             cpu.iterations, tol, cpu_loose.iterations, loose_tol, cpu_ms,
             [&] {
               std::vector<float> xf(cpu.x.begin(), cpu.x.end());
               return max_abs_diff(xf, x_true);
             }());

  DeviceBuffers mem;
  const Buffers& d = mem.d;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMemcpyAsync(mem.A, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(mem.b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  // ---- 4. compile once, solve on the device, check ---------------------------------------------
  sample::attach_profiler();  // before instantiate(), for section 5b's profile
  gd::Executable exec = build_solver(d, tol).instantiate();
  Check check;
  auto graph_solve = [&] {
    exec.launch(stream);
    exec.synchronize(stream);
  };

  mem.poison(stream);
  graph_solve();
  const std::vector<float> x_graph = mem.read_x(stream);
  const int graph_iters = mem.read(d.iterations, stream);
  const float graph_residual = mem.read(d.residual, stream);
  const double err_graph = max_abs_diff(x_graph, x_true);
  const double diff_cpu = max_abs_diff(x_graph, cpu.x);
  fmt::print("\ndevice-driven solve (one graph launch): {} iterations, last residual {:.3g}\n", graph_iters,
             graph_residual);
  check.expect(graph_iters >= 1 && graph_iters < max_iters && graph_residual >= 0.0f && graph_residual <= tol,
               fmt::format("converged before the guard ({} < {}, residual <= tol)", graph_iters, max_iters));
  check.expect(std::abs(graph_iters - cpu.iterations) <= 3,
               fmt::format("iterations {} within 3 of the CPU's {}", graph_iters, cpu.iterations));
  check.expect(err_graph <= bound(tol),
               fmt::format("max |x - x_exact| = {:.3g} <= {:.3g} (contraction bound)", err_graph, bound(tol)));
  check.expect(diff_cpu <= bound(tol),
               fmt::format("max |x - x_cpu|   = {:.3g} <= {:.3g}", diff_cpu, bound(tol)));

  mem.poison(stream);
  const int host_iters = host_solve(d, mem.h_residual, stream);
  const std::vector<float> x_host = mem.read_x(stream);
  fmt::print("host-driven solve (residual read back every iteration): {} iterations, last residual {:.3g}\n",
             host_iters, *mem.h_residual);
  check.expect(host_iters == graph_iters && x_host == x_graph,
               "host-driven solve: same iteration count, bit-identical x (same kernels)");

  // ---- 5. time both, interleaved ----------------------------------------------------------------
  for (int i = 0; i < warmup; ++i) {
    graph_solve();
    (void)host_solve(d, mem.h_residual, stream);
  }
  std::vector<double> graph_us, host_us;
  sample::Stopwatch w;
  for (int r = 0; r < reps; ++r) {
    for (int k = 0; k < 2; ++k) {
      const bool graph_turn = (k == 0) == (r % 2 == 0);
      w.restart();
      if (graph_turn) {
        graph_solve();
        graph_us.push_back(w.us());
      } else {
        (void)host_solve(d, mem.h_residual, stream);
        host_us.push_back(w.us());
      }
    }
  }
  check.expect(mem.read(d.iterations, stream) == graph_iters && max_abs_diff(mem.read_x(stream), x_true) <= bound(tol),
               "after the timed solves: same iteration count and error bound");
  const double g = sample::median(graph_us), h = sample::median(host_us);
  fmt::print("\ntime per solve ({} iterations; host wall time from launch to synchronize, median of {} solves "
             "each, interleaved, after {} warm-up):\n",
             graph_iters, reps, warmup);
  fmt::print("  graph, WHILE node        {:10.1f} us  ({:6.2f} us/iteration, spread +-{:.1f}%)\n", g,
             g / graph_iters, 100.0 * sample::half_spread(graph_us));
  fmt::print("  host loop + read-back    {:10.1f} us  ({:6.2f} us/iteration, spread +-{:.1f}%)\n", h,
             h / host_iters, 100.0 * sample::half_spread(host_us));
  fmt::print("  host loop / graph        {:10.2f}x\n", g > 0.0 ? h / g : 0.0);

  // ---- 5b. where a solve spends its device time (graphdsl::profile, CUPTI) ---------------------
  {
    const int profiled = 5;
    const bool attributed = sample::print_profile(exec, stream, profiled, "conditional_while", profile_dir);
    check.expect(attributed, "profile: every kernel, memcpy and memset record attributed to a plan node");
  }

  // ---- 6. change the tolerance in place ----------------------------------------------------------
  // The tolerance is an argument of the set-condition node inside the WHILE body: a parameter
  // change, so the executable is updated in place (through cudaGraphExecUpdate), not rebuilt.
  const gd::UpdateResult upd = exec.update(build_solver(d, loose_tol));
  fmt::print("\nexec.update(plan with tol {:g}): {}\n", loose_tol, upd.to_string());
  check.expect(static_cast<bool>(upd), "the tolerance update was applied in place");
  if (upd) {
    mem.poison(stream);
    graph_solve();
    const int loose_iters = mem.read(d.iterations, stream);
    const double err_loose = max_abs_diff(mem.read_x(stream), x_true);
    fmt::print("  device-driven solve with tol {:g}: {} iterations (CPU {}), max |x - x_exact| = {:.3g}\n", loose_tol,
               loose_iters, cpu_loose.iterations, err_loose);
    check.expect(std::abs(loose_iters - cpu_loose.iterations) <= 3 && loose_iters < graph_iters,
                 fmt::format("iterations {} within 3 of the CPU's {}", loose_iters, cpu_loose.iterations));
    check.expect(err_loose <= bound(loose_tol),
                 fmt::format("max |x - x_exact| = {:.3g} <= {:.3g}", err_loose, bound(loose_tol)));
  }

  fmt::print("\n{}\n", check.ok ? "conditional_while: PASSED" : "conditional_while: FAILED");
  exec = gd::Executable();  // before the stream and the buffers go
  CUDA_CHECK(cudaStreamDestroy(stream));
  return check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv), sample::profile_out(argc, argv)); });
}
