// samples/cuda_core_examples — two graph examples of NVIDIA's cuda.core (the Python CUDA API of
// cuda-python: its graph-definition integration tests, a heat diffusion and a bisection root
// finder) written with graphdsl, each checked against a CPU reference. The device keeps all the
// state and decides when to stop: one graph launch per solve, no value read back to steer it.
//
// Part 1, heat diffusion on an nx x ny plate (explicit 5-point stencil, top edge held at t_hot,
// the other edges at t_cold), iterated until the largest change of a step is at most heat_tol:
//
//   alloc u, u_next, residual, steps (graph memory)
//   u = cold --> heated edge (memset of u's first row: a slice) --> u_next = u --+
//   steps = 0 -------------------------------------------------------------------+--> WHILE {
//       residual = 0 --> heat step --+--> u = u_next (the interior rows: slices of both buffers)
//                                    +--> count step (++steps; condition = residual > tol && steps < max)
//   } --> download u, residual, steps --> free the four buffers
//
// The scratch buffers are allocated by the plan (add_mem_alloc) and used inside the WHILE body
// exactly as at top level: passed to kernels, memset, copied, sliced.
//
// Part 2, bisection: an IF-ELSE inside a WHILE. The problem (which function, interval, tolerance,
// most halvings) is read from a device buffer the host fills before each launch, so one executable
// solves every problem:
//
//   alloc bracket --> open bracket (f(lo), f(hi); sets "more" = sign change && wider than tol) -->
//   WHILE (more) {
//       f(mid) (sets "left" = the root is in [lo, mid]) --> IF-ELSE (left) --> count halving
//           then: hi = mid                                 (++iterations; sets "more")
//           else: lo = mid, f(lo) = f(mid)
//   } --> download bracket --> free bracket
//
// Checks: part 1 against the same stencil run on the CPU (steps taken, every cell); part 2 against
// a CPU bisection of each problem (sign change found, halvings, root) and the known roots. Each
// launch prints its device time (events around the launch) and the iterations it took.
//
// Without a GPU the two plans are built, printed (Graph::dump) and validated on the host, with no
// CUDA call. With `--dot` the sample prints the plans' DOT alone and exits.
// Exit status: 0 when every check passes (or when there is no GPU), 1 otherwise.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

const gd::Launch one_thread{dim3(1), dim3(1)};

/// Host memory the device can copy into (cudaMallocHost), freed when it goes out of scope.
template <class T>
struct Pinned {
  T* p = nullptr;
  explicit Pinned(std::size_t count) { CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T))); }
  ~Pinned() { (void)cudaFreeHost(p); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
};

/// Prints one check and remembers whether all passed.
struct Check {
  bool ok = true;
  void expect(bool cond, const std::string& what) {
    fmt::print("    {:<76} {}\n", what, cond ? "ok" : "FAILED");
    ok = ok && cond;
  }
};

// ==== part 1: heat diffusion ====================================================================

constexpr int nx = 64;  // columns
constexpr int ny = 64;  // rows; row 0 is the heated edge
constexpr int cells = nx * ny;
constexpr int interior_rows = (ny - 2) * nx;  // rows 1 .. ny-2, the ones a step changes
constexpr float alpha = 0.2f;                 // diffusion number (stable up to 0.25 in 2-D)
constexpr float t_hot = 100.0f;
constexpr float t_cold = 0.0f;
constexpr float heat_tol = 1e-3f;  // stop when no cell changed by more than this
constexpr int max_steps = 20000;   // guard: stop after this many steps regardless
constexpr int heat_launches = 3;
constexpr int tile = 16;  // a block updates a tile x tile square of cells

/// One explicit step of one cell, for the kernel and the CPU reference alike. On the device the
/// _rn intrinsics keep nvcc from fusing a multiply and an add (an FMA rounds once, the host twice),
/// so both sides round the same way and the CPU can follow the device step for step.
__host__ __device__ inline float diffuse(float c, float up, float down, float left, float right) {
#ifdef __CUDA_ARCH__
  const float laplacian = __fsub_rn(__fadd_rn(__fadd_rn(up, down), __fadd_rn(left, right)), __fmul_rn(4.0f, c));
  return __fadd_rn(c, __fmul_rn(alpha, laplacian));
#else
  const float laplacian = ((up + down) + (left + right)) - 4.0f * c;
  return c + alpha * laplacian;
#endif
}

/// u_next = u + alpha * laplacian(u) on the interior cells (the edges are never written), and
/// *residual = max(*residual, largest |u_next - u| of the block).
__global__ void heat_step(const float* u, float* u_next, float* residual, int width, int height) {
  __shared__ float block_max[tile * tile];
  const int x = static_cast<int>(blockIdx.x * tile + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * tile + threadIdx.y);
  const int t = static_cast<int>(threadIdx.y * tile + threadIdx.x);
  float change = 0.0f;
  if (x > 0 && x < width - 1 && y > 0 && y < height - 1) {
    const int k = y * width + x;
    const float next = diffuse(u[k], u[k - width], u[k + width], u[k - 1], u[k + 1]);
    u_next[k] = next;
    change = fabsf(next - u[k]);
  }
  block_max[t] = change;
  __syncthreads();
  for (int s = tile * tile / 2; s > 0; s >>= 1) {
    if (t < s) block_max[t] = fmaxf(block_max[t], block_max[t + s]);
    __syncthreads();
  }
  // Non-negative floats order like their bit patterns read as ints.
  if (t == 0) atomicMax(reinterpret_cast<int*>(residual), __float_as_int(block_max[0]));
}

/// Counts the step and sets the loop's condition: go on while the residual is above tol and the
/// guard is not reached. A cudaGraphConditionalHandle parameter receives a gd::Condition.
__global__ void count_step(const float* residual, int* steps, cudaGraphConditionalHandle more, float tol, int limit) {
  const int s = ++*steps;
  cudaGraphSetConditional(more, *residual > tol && s < limit ? 1u : 0u);
}

/// Where the plan's last nodes copy the result (host memory).
struct HeatOutput {
  float* field = nullptr;  // cells floats
  float* residual = nullptr;
  int* steps = nullptr;
};

/// The whole solve as one plan; building it makes no CUDA call.
gd::Graph build_heat(const HeatOutput& out) {
  gd::Graph g("heat diffusion");
  auto u_alloc = g.add_mem_alloc<float>(cells);
  auto next_alloc = g.add_mem_alloc<float>(cells);
  auto residual_alloc = g.add_mem_alloc<float>(1);
  auto steps_alloc = g.add_mem_alloc<int>(1);
  u_alloc.node.name("alloc u");
  next_alloc.node.name("alloc u_next");
  residual_alloc.node.name("alloc residual");
  steps_alloc.node.name("alloc steps");
  const gd::GraphBuffer<float> u = u_alloc.buffer, u_next = next_alloc.buffer, residual = residual_alloc.buffer;
  const gd::GraphBuffer<int> steps = steps_alloc.buffer;

  auto cold = g.add_memset(u, t_cold, cells).name("u = cold").after(u_alloc.node);
  auto heated = g.add_memset(u.slice(0, nx), t_hot, nx).name("heated edge").after(cold);  // row 0
  auto same_edges = g.add_memcpy(u_next, u, cells).name("u_next = u").after(heated, next_alloc.node);
  auto zero_steps = g.add_memset(steps, 0, 1).name("steps = 0").after(steps_alloc.node);

  // One step. The body uses the buffers this plan allocates as the plan itself does: in kernels,
  // memsets and copies, whole or as slices.
  const gd::Launch tiles{dim3((nx + tile - 1) / tile, (ny + tile - 1) / tile), dim3(tile, tile)};
  gd::Condition more = g.add_condition(/*default_value=*/1);  // 1 at each launch: at least one step
  auto one_step = [&](gd::Graph& body) {
    auto clear = body.add_memset(residual, 0.0f, 1).name("residual = 0");
    auto step = body.add_kernel(heat_step, tiles, u, u_next, residual, nx, ny).name("heat step").after(clear);
    body.add_memcpy(u.slice(nx, interior_rows), u_next.slice(nx, interior_rows), interior_rows)
        .name("u = u_next")
        .after(step);
    body.add_kernel(count_step, one_thread, residual, steps, more, heat_tol, max_steps).name("count step").after(step);
  };
  auto loop = g.add_while(more, one_step).name("until steady").after(same_edges, zero_steps, residual_alloc.node);

  auto get_u = g.add_memcpy(out.field, u, cells).name("download u").after(loop);
  auto get_residual = g.add_memcpy(out.residual, residual, 1).name("download residual").after(loop);
  auto get_steps = g.add_memcpy(out.steps, steps, 1).name("download steps").after(loop);
  g.add_mem_free(u).name("free u").after(get_u);
  g.add_mem_free(u_next).name("free u_next").after(loop);
  g.add_mem_free(residual).name("free residual").after(get_residual);
  g.add_mem_free(steps).name("free steps").after(get_steps);
  return g;
}

struct CpuHeat {
  std::vector<float> u;
  int steps = 0;
  float residual = 0.0f;
};

/// The same solve on the CPU, with the device's order of operations and stopping rule.
CpuHeat cpu_heat() {
  CpuHeat r;
  r.u.assign(cells, t_cold);
  std::fill_n(r.u.begin(), nx, t_hot);
  std::vector<float> next = r.u;
  do {
    float change = 0.0f;
    for (int y = 1; y < ny - 1; ++y) {
      for (int x = 1; x < nx - 1; ++x) {
        const int k = y * nx + x;
        next[k] = diffuse(r.u[k], r.u[k - nx], r.u[k + nx], r.u[k - 1], r.u[k + 1]);
        change = std::max(change, std::fabs(next[k] - r.u[k]));
      }
    }
    std::copy(next.begin() + nx, next.end() - nx, r.u.begin() + nx);
    ++r.steps;
    r.residual = change;
  } while (r.residual > heat_tol && r.steps < max_steps);
  return r;
}

/// The largest |a_i - b_i| (infinity when a value is NaN).
float max_abs_diff(const float* a, const std::vector<float>& b) {
  float worst = 0.0f;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const float e = std::fabs(a[i] - b[i]);
    if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<float>::infinity() : e;
  }
  return worst;
}

bool run_heat(cudaStream_t stream) {
  fmt::print(
      "part 1: heat diffusion, {} x {} cells, alpha {:g}, until the largest change <= {:g} (at most {} "
      "steps)\n",
      nx, ny, alpha, heat_tol, max_steps);
  sample::Stopwatch cpu_clock;
  const CpuHeat cpu = cpu_heat();
  fmt::print("  CPU reference: {} steps, last residual {:.4g}, centre {:.3f} ({:.1f} ms)\n", cpu.steps, cpu.residual,
             cpu.u[(ny / 2) * nx + nx / 2], cpu_clock.us() / 1000.0);

  Pinned<float> field(cells), residual(1);
  Pinned<int> steps(1);
  gd::Executable exec = build_heat({field.p, residual.p, steps.p}).instantiate();
  sample::EventTimer timer;
  Check check;
  for (int launch = 0; launch < heat_launches; ++launch) {
    std::fill_n(field.p, cells, std::numeric_limits<float>::quiet_NaN());  // anything not written shows
    *residual.p = std::numeric_limits<float>::quiet_NaN();
    *steps.p = -1;
    timer.start(stream);
    exec.launch(stream);
    const double us = timer.stop_us(stream);
    exec.synchronize(stream);
    const float diff = max_abs_diff(field.p, cpu.u);
    fmt::print("  launch {}: {:9.1f} us, {} steps ({:.2f} us/step), last residual {:.4g}, centre {:.3f}{}\n", launch,
               us, *steps.p, *steps.p > 0 ? us / *steps.p : 0.0, *residual.p, field.p[(ny / 2) * nx + nx / 2],
               launch == 0 ? " (first launch: uploads the graph)" : "");
    check.expect(*steps.p < max_steps && *residual.p <= heat_tol,
                 fmt::format("converged before the guard ({} steps)", *steps.p));
    check.expect(std::abs(*steps.p - cpu.steps) <= 2,
                 fmt::format("steps {} within 2 of the CPU's {}", *steps.p, cpu.steps));
    check.expect(diff <= 2 * heat_tol, fmt::format("max |u - u_cpu| = {:.3g} <= {:g}{}", diff, 2 * heat_tol,
                                                   diff == 0.0f ? " (bit-identical)" : ""));
  }
  exec = gd::Executable();  // before the pinned buffers it copies into
  return check.ok;
}

// ==== part 2: bisection =========================================================================

/// One problem, as the host writes it into device memory before a launch.
struct Problem {
  int function;        // which f (evaluate)
  double lo, hi;       // the interval
  double tol;          // stop when hi - lo <= tol
  int max_iterations;  // or after this many halvings
};

/// The solver's state, in graph memory.
struct Bracket {
  double lo, hi, f_lo;  // the interval and f(lo)
  double mid, f_mid;    // the last midpoint and f(mid)
  double tol;
  int function, max_iterations;
  int iterations;  // halvings done
  int bracketed;   // f changes sign on the problem's interval
};

__host__ __device__ inline double evaluate(int function, double x) {
  switch (function) {
    case 0: return x * x - 2.0;
    case 1: return cos(x) - x;
    case 2: return x * x * x - x - 2.0;
    case 3: return exp(-x) - x;
    case 4: return sin(x);
    default: return x * x + 1.0;  // no real root
  }
}

// The steps of the loop, shared by the kernels and the CPU reference.
__host__ __device__ inline Bracket open_bracket(const Problem& p) {
  Bracket b{};
  b.lo = p.lo;
  b.hi = p.hi;
  b.f_lo = evaluate(p.function, p.lo);
  b.tol = p.tol;
  b.function = p.function;
  b.max_iterations = p.max_iterations;
  b.bracketed = b.f_lo * evaluate(p.function, p.hi) <= 0.0 ? 1 : 0;
  return b;
}
__host__ __device__ inline bool keep_going(const Bracket& b) {
  return b.bracketed != 0 && b.hi - b.lo > b.tol && b.iterations < b.max_iterations;
}
/// Evaluates f at the midpoint; true when the root is in [lo, mid].
__host__ __device__ inline bool root_in_left_half(Bracket& b) {
  b.mid = 0.5 * (b.lo + b.hi);
  b.f_mid = evaluate(b.function, b.mid);
  return b.f_lo * b.f_mid <= 0.0;
}

__global__ void open_bracket_kernel(const Problem* problem, Bracket* b, cudaGraphConditionalHandle more) {
  *b = open_bracket(*problem);
  cudaGraphSetConditional(more, keep_going(*b) ? 1u : 0u);
}
__global__ void evaluate_midpoint(Bracket* b, cudaGraphConditionalHandle left) {
  cudaGraphSetConditional(left, root_in_left_half(*b) ? 1u : 0u);
}
__global__ void keep_left_half(Bracket* b) { b->hi = b->mid; }
__global__ void keep_right_half(Bracket* b) {
  b->lo = b->mid;
  b->f_lo = b->f_mid;
}
__global__ void count_halving(Bracket* b, cudaGraphConditionalHandle more) {
  ++b->iterations;
  cudaGraphSetConditional(more, keep_going(*b) ? 1u : 0u);
}

/// The solver as one plan: reads *problem, writes the final bracket to *result.
gd::Graph build_bisection(const Problem* problem, Bracket* result) {
  gd::Graph g("bisection");
  auto alloc = g.add_mem_alloc<Bracket>(1);
  alloc.node.name("alloc bracket");
  const gd::GraphBuffer<Bracket> bracket = alloc.buffer;
  // Not reset at launch: "open bracket" sets it on every launch (0 when there is nothing to do).
  gd::Condition more = g.add_condition(/*default_value=*/0, /*assign_default=*/false);
  auto open =
      g.add_kernel(open_bracket_kernel, one_thread, problem, bracket, more).name("open bracket").after(alloc.node);
  auto one_halving = [&](gd::Graph& body) {
    gd::Condition left = body.add_condition(0, /*assign_default=*/false);  // set by "f(mid)" every iteration
    auto mid = body.add_kernel(evaluate_midpoint, one_thread, bracket, left).name("f(mid)");
    auto keep_left = [&](gd::Graph& then_body) {
      then_body.add_kernel(keep_left_half, one_thread, bracket).name("hi = mid");
    };
    auto keep_right = [&](gd::Graph& else_body) {
      else_body.add_kernel(keep_right_half, one_thread, bracket).name("lo = mid");
    };
    auto halve = body.add_if_else(left, keep_left, keep_right).name("root in [lo, mid]?").after(mid);
    body.add_kernel(count_halving, one_thread, bracket, more).name("count halving").after(halve);
  };
  auto loop = g.add_while(more, one_halving).name("until narrow").after(open);
  auto download = g.add_memcpy(result, bracket, 1).name("download bracket").after(loop);
  g.add_mem_free(bracket).name("free bracket").after(download);
  return g;
}

/// The same loop on the CPU.
Bracket cpu_bisect(const Problem& p) {
  Bracket b = open_bracket(p);
  while (keep_going(b)) {
    if (root_in_left_half(b)) {
      b.hi = b.mid;
    } else {
      b.lo = b.mid;
      b.f_lo = b.f_mid;
    }
    ++b.iterations;
  }
  return b;
}

struct Case {
  const char* name;
  Problem problem;
  double exact;  // the root, or NaN where the loop does not run to the tolerance
};

bool run_bisection(cudaStream_t stream) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {"x^2 - 2 on [0, 2]", {0, 0.0, 2.0, 1e-12, 200}, std::sqrt(2.0)},
      {"cos x - x on [0, 1]", {1, 0.0, 1.0, 1e-12, 200}, 0.7390851332151607},
      {"x^3 - x - 2 on [1, 2]", {2, 1.0, 2.0, 1e-12, 200}, 1.5213797068045676},
      {"exp(-x) - x on [0, 1]", {3, 0.0, 1.0, 1e-12, 200}, 0.5671432904097838},
      {"sin x on [3, 4]", {4, 3.0, 4.0, 1e-12, 200}, 3.141592653589793},
      {"cos x - x on [0, 1], at most 10 halvings", {1, 0.0, 1.0, 1e-12, 10}, nan},
      {"x^2 + 1 on [-1, 1] (no sign change)", {5, -1.0, 1.0, 1e-12, 200}, nan},
  };
  fmt::print("\npart 2: bisection, an IF-ELSE inside a WHILE; one executable, {} problems\n", std::size(cases));
  Problem* d_problem = nullptr;
  CUDA_CHECK(cudaMalloc(&d_problem, sizeof(Problem)));
  Pinned<Bracket> result(1);
  gd::Executable exec = build_bisection(d_problem, result.p).instantiate();
  sample::EventTimer timer;
  Check check;
  int launch = 0;
  for (const Case& c : cases) {
    const Bracket cpu = cpu_bisect(c.problem);
    CUDA_CHECK(cudaMemcpyAsync(d_problem, &c.problem, sizeof(Problem), cudaMemcpyHostToDevice, stream));
    *result.p = Bracket{};
    result.p->iterations = -1;
    timer.start(stream);
    exec.launch(stream);
    const double us = timer.stop_us(stream);
    exec.synchronize(stream);
    const Bracket& b = *result.p;
    const double root = 0.5 * (b.lo + b.hi), cpu_root = 0.5 * (cpu.lo + cpu.hi);
    fmt::print("  launch {}: {:7.1f} us, {:3} halvings, root {:.15g}  -- {}{}\n", launch, us, b.iterations, root,
               c.name, launch == 0 ? " (first launch: uploads the graph)" : "");
    ++launch;
    check.expect(b.bracketed == cpu.bracketed && b.iterations == cpu.iterations,
                 fmt::format("sign change {}, {} halvings (CPU: {}, {})", b.bracketed ? "found" : "none", b.iterations,
                             cpu.bracketed ? "found" : "none", cpu.iterations));
    if (cpu.bracketed) {
      check.expect(std::fabs(root - cpu_root) <= c.problem.tol,
                   fmt::format("|root - CPU root| = {:.3g} <= {:g}", std::fabs(root - cpu_root), c.problem.tol));
    }
    if (!std::isnan(c.exact)) {
      check.expect(std::fabs(root - c.exact) <= c.problem.tol,
                   fmt::format("|root - exact| = {:.3g} <= {:g}", std::fabs(root - c.exact), c.problem.tol));
    }
  }
  exec = gd::Executable();  // before the buffers it reads and writes
  CUDA_CHECK(cudaFree(d_problem));
  return check.ok;
}

// ==== the program ===============================================================================

int run(bool dot_only) {
  // A plan only records pointers, and this preview is never compiled: host stand-ins will do.
  std::vector<float> field(cells);
  float residual = 0.0f;
  int steps = 0;
  Problem problem{};
  Bracket bracket{};
  const auto calls_before = gd::debug::cuda_calls();
  const gd::Graph heat = build_heat({field.data(), &residual, &steps});
  const gd::Graph bisection = build_bisection(&problem, &bracket);
  if (dot_only) {
    heat.validate();
    bisection.validate();
    return sample::print_dot(calls_before, heat, bisection);
  }
  fmt::print("graphdsl {} cuda_core_examples: cuda.core's heat diffusion and bisection graphs\n\n", gd::version_string);
  fmt::print("--- Graph::dump() ---\n{}\n{}\n", heat.dump(), bisection.dump());
  heat.validate();  // after the dump, so that a plan the rules refuse is still shown
  bisection.validate();
  fmt::print("both plans built and validated on the host: {} CUDA calls\n\n", gd::debug::cuda_calls() - calls_before);

  if (sample::cuda_device_count() == 0) {
    fmt::print(
        "no CUDA device found: the plans above were built and validated on the host; "
        "run on a GPU machine to execute them\n");
    return 0;
  }
  CUDA_CHECK(cudaSetDevice(0));
  fmt::print("device: {}\n\n", sample::device_summary(0));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const bool heat_ok = run_heat(stream);
  const bool bisection_ok = run_bisection(stream);
  CUDA_CHECK(cudaStreamDestroy(stream));
  fmt::print("\ncuda_core_examples: heat diffusion {}, bisection {}\n", heat_ok ? "PASSED" : "FAILED",
             bisection_ok ? "PASSED" : "FAILED");
  return heat_ok && bisection_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return sample::run_main([&] { return run(sample::dot_only(argc, argv)); });
}
