// samples/graph_update_experiments — how Executable::update() behaves, one experiment at a time.
//
//   upload --+--> mul --+
//            +--> add --+--> combine --> mark --> download --> report
//
//   upload    H2D copy of n random floats (pinned host buffer -> device)
//   mul       a = in * alpha          mul_by(const float*, float*, float, int)
//   add       b = in + beta           add_to(const float*, float*, float, int)  (the same signature)
//   combine   out = gamma * a * b
//   mark      memset: n ints of the tag buffer = tag
//   download  D2H copy of out into a pinned host buffer
//   report    host callback: sums the downloaded output and counts its calls (two versions)
//
// Each experiment builds a new template plan, prints what the host-side diff (graphdsl::diff, no
// CUDA call) says about it, applies it with Executable::update(), prints the UpdateResult, its cost
// and the cost of each strategy, then launches the executable on fresh poisoned buffers and checks
// the results against a float64 CPU reference: after an applied update they must follow the new
// parameters, after a refusal they must stay exactly as before. The last experiments use the typed
// per-node setters (set_kernel_args, set_kernel, set_enabled, the last one across a whole-graph
// update) and an ExecutableCache. docs/updating.md explains what each result means.
//
// Without a GPU it still builds every plan and prints the host-side diff of each experiment (plans
// over host stand-in buffers: building and diffing plans never dereferences their pointers), then
// says that no device was found and exits 0. With a GPU it exits 1 if any check FAILs.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <graphdsl/cache.hpp>  // ExecutableCache is not in the umbrella header
#include <graphdsl/graphdsl.hpp>

#include "sample_util.hpp"

namespace gd = graphdsl;

namespace {

constexpr int n = 4096;  // elements per buffer
constexpr int strategy_reps = 5;  // there-and-back pairs per strategy when measuring its cost

__global__ void mul_by(const float* in, float* out, float c, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[i] * c;
}

__global__ void add_to(const float* in, float* out, float c, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[i] + c;
}

__global__ void combine(const float* a, const float* b, float* out, float g, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = g * a[i] * b[i];
}

using UnaryNode = gd::KernelNode<const float*, float*, float, int>;

/// Everything an experiment can change.
struct Knobs {
  float alpha = 2.0f;
  float beta = 0.5f;
  float gamma = 1.5f;
  int tag = 7;
  int callback = 0;          // which version of the host callback runs (0 or 1)
  bool mul_is_add = false;   // node 'mul' launches add_to instead of mul_by: a kernel function change
  bool extra_node = false;   // one more node ('audit', after 'report'): a topology change
  bool extra_edge = false;   // one more edge ('mul' -> 'mark'): a topology change
  bool mark_enabled = true;  // for the set_enabled experiment (not part of the plan)
};

/// What the host callback leaves: calls per version and the checksum of the last call.
/// It runs on a CUDA driver thread; the main thread reads it after a synchronize.
struct Tally {
  std::atomic<int> calls[2] = {0, 0};
  std::atomic<double> checksum{0.0};
};

/// The buffers. With a device: pinned host input/output and device buffers. Without one: host
/// stand-ins, only so that plans can be built and diffed (nothing is dereferenced).
struct Buffers {
  bool device = false;
  float* h_in = nullptr;
  float* d_in = nullptr;
  float* d_a = nullptr;
  float* d_b = nullptr;
  float* d_out = nullptr;
  int* d_tag = nullptr;
  float* h_out = nullptr;
  std::vector<float> in;  // the random input values (never zeros)
  std::vector<float> stand_in;
  std::vector<int> stand_in_tag;

  explicit Buffers(bool with_device) : device(with_device), in(n) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(0.25f, 4.0f);
    for (float& v : in) v = std::bernoulli_distribution(0.5)(rng) ? dist(rng) : -dist(rng);
    if (device) {
      CUDA_CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
      CUDA_CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
      for (float** d : {&d_in, &d_a, &d_b, &d_out}) CUDA_CHECK(cudaMalloc(d, n * sizeof(float)));
      CUDA_CHECK(cudaMalloc(&d_tag, n * sizeof(int)));
      std::copy(in.begin(), in.end(), h_in);
    } else {
      stand_in.resize(6 * n);
      stand_in_tag.resize(n);
      h_in = stand_in.data();
      d_in = h_in + n;
      d_a = d_in + n;
      d_b = d_a + n;
      d_out = d_b + n;
      h_out = d_out + n;
      d_tag = stand_in_tag.data();
    }
  }
  ~Buffers() {
    if (!device) return;
    (void)cudaFreeHost(h_in);
    (void)cudaFreeHost(h_out);
    for (void* d : {static_cast<void*>(d_in), static_cast<void*>(d_a), static_cast<void*>(d_b),
                    static_cast<void*>(d_out), static_cast<void*>(d_tag)}) {
      (void)cudaFree(d);
    }
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
};

/// Handles of the plan the executable is compiled from, for the typed setters.
struct Handles {
  UnaryNode mul, add;
  gd::MemsetNode mark;
  gd::HostNode report;
};

/// The pipeline for `k`. Building it makes no CUDA call. Every call makes a new host closure.
gd::Graph build_plan(const Buffers& b, Tally& tally, const Knobs& k, Handles* handles = nullptr) {
  gd::Graph g("pipeline");
  const gd::Launch grid = gd::cover(n);
  auto upload = g.add_memcpy(b.d_in, b.h_in, n).name("upload");
  auto mul = g.add_kernel(k.mul_is_add ? add_to : mul_by, grid, b.d_in, b.d_a, k.alpha, n).name("mul").after(upload);
  auto add = g.add_kernel(add_to, grid, b.d_in, b.d_b, k.beta, n).name("add").after(upload);
  auto join = g.add_kernel(combine, grid, b.d_a, b.d_b, b.d_out, k.gamma, n).name("combine").after(mul, add);
  auto mark = g.add_memset(b.d_tag, k.tag, n).name("mark").after(join);
  if (k.extra_edge) mark.after(mul);
  auto download = g.add_memcpy(b.h_out, b.d_out, n).name("download").after(mark);
  const int version = k.callback;
  auto report = g.add_host([&tally, out = b.h_out, version] {
                  double sum = 0.0;
                  for (int i = 0; i < n; ++i) sum += out[i];
                  tally.checksum.store(sum);
                  tally.calls[version].fetch_add(1);
                }).name("report").after(download);
  if (k.extra_node) g.add_empty().name("audit").after(report);
  if (handles != nullptr) *handles = Handles{mul, add, mark, report};
  return g;
}

/// The expected output for `k` (float64).
std::vector<double> reference(const Buffers& b, const Knobs& k) {
  std::vector<double> out(n);
  for (int i = 0; i < n; ++i) {
    const double x = b.in[i];
    const double a = k.mul_is_add ? x + k.alpha : x * k.alpha;
    out[i] = static_cast<double>(k.gamma) * a * (x + k.beta);
  }
  return out;
}

/// "'mul' (#1), 'report' (#6)".
std::string node_list(const gd::Graph& plan, const std::vector<std::uint32_t>& idx) {
  std::string s;
  for (std::uint32_t i : idx) {
    if (!s.empty()) s += ", ";
    s += fmt::format("'{}' (#{})", plan.node(i).name(), i);
  }
  return s.empty() ? "none" : s;
}

/// What graphdsl::diff (host only) says about `templ` against `current`.
void print_diff(const gd::Graph& current, const gd::Graph& templ) {
  const std::uint64_t calls = gd::debug::cuda_calls();
  sample::Stopwatch w;
  const gd::UpdateResult d = gd::diff(current, templ);
  const double us = w.us();
  if (d) {
    fmt::print("    diff (host only, {:.1f} us, {} CUDA calls): same shape; {} of {} nodes differ: {}\n", us,
               gd::debug::cuda_calls() - calls, d.changed.size(), templ.node_count(), node_list(templ, d.changed));
  } else {
    fmt::print("    diff (host only, {:.1f} us, {} CUDA calls): {}\n", us, gd::debug::cuda_calls() - calls, d);
  }
  fmt::print("    fingerprint: {}\n", current.fingerprint() == templ.fingerprint()
                                          ? "equal (update-compatible shape)"
                                          : "differs (another shape: update() refuses it, ExecutableCache recompiles)");
}

// ---- the device part ---------------------------------------------------------------------------------

struct Device {
  Buffers& b;
  Tally& tally;
  cudaStream_t s = nullptr;
  int failures = 0;

  Device(Buffers& buffers, Tally& t) : b(buffers), tally(t) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~Device() { (void)cudaStreamDestroy(s); }

  /// Poisons every output, launches `exec` once and checks the output, the tag buffer and the host
  /// callback against `k`. Prints PASS or FAIL with the first difference.
  bool check(gd::Executable& exec, const Knobs& k, const char* what = "device") {
    for (float* d : {b.d_a, b.d_b, b.d_out}) CUDA_CHECK(cudaMemsetAsync(d, 0xff, n * sizeof(float), s));  // NaN
    CUDA_CHECK(cudaMemsetAsync(b.d_tag, 0xff, n * sizeof(int), s));                                       // -1
    std::fill(b.h_out, b.h_out + n, std::numeric_limits<float>::quiet_NaN());
    CUDA_CHECK(cudaStreamSynchronize(s));
    const int before[2] = {tally.calls[0].load(), tally.calls[1].load()};
    exec.launch(s);
    exec.synchronize(s);
    std::vector<int> tag(n);
    CUDA_CHECK(cudaMemcpy(tag.data(), b.d_tag, n * sizeof(int), cudaMemcpyDeviceToHost));

    const std::vector<double> want = reference(b, k);
    std::string why;
    double want_sum = 0.0, abs_sum = 0.0;
    for (int i = 0; i < n; ++i) {
      want_sum += want[i];
      abs_sum += std::fabs(want[i]);
      if (why.empty() && !(std::fabs(b.h_out[i] - want[i]) <= 1e-5 * std::max(1.0, std::fabs(want[i])))) {
        why = fmt::format("out[{}] = {} (want {})", i, b.h_out[i], want[i]);
      }
      const int want_tag = k.mark_enabled ? k.tag : -1;  // a disabled memset leaves the poison
      if (why.empty() && tag[i] != want_tag) why = fmt::format("tag[{}] = {} (want {})", i, tag[i], want_tag);
    }
    const int other = 1 - k.callback;
    if (why.empty() && tally.calls[k.callback].load() != before[k.callback] + 1) {
      why = fmt::format("host callback version {} ran {} times (want 1)", k.callback,
                        tally.calls[k.callback].load() - before[k.callback]);
    }
    if (why.empty() && tally.calls[other].load() != before[other]) {
      why = fmt::format("host callback version {} ran too (want only version {})", other, k.callback);
    }
    if (why.empty() && !(std::fabs(tally.checksum.load() - want_sum) <= 1e-5 * (abs_sum + 1.0))) {
      why = fmt::format("host callback checksum {} (want {})", tally.checksum.load(), want_sum);
    }
    if (why.empty()) {
      fmt::print("    {}: PASS ({} outputs, {} tags, host callback version {} ran once with the right checksum)\n",
                 what, n, n, k.callback);
      return true;
    }
    fmt::print("    {}: FAIL: {}\n", what, why);
    ++failures;
    return false;
  }

  /// Records a FAIL that is not about the device results.
  void expect(bool ok, const std::string& what) {
    if (ok) return;
    fmt::print("    FAIL: {}\n", what);
    ++failures;
  }
};

/// Median cost of update() with `policy`, going from `from` to `to` and back `strategy_reps` times
/// (every update changes the same nodes). The executable ends where it started (at `from`).
double strategy_cost(gd::Executable& exec, const gd::Graph& from, const gd::Graph& to, gd::UpdatePolicy policy,
                     Device& dev) {
  std::vector<double> us;
  for (int r = 0; r < strategy_reps; ++r) {
    for (const gd::Graph* t : {&to, &from}) {
      sample::Stopwatch w;
      const gd::UpdateResult res = exec.update(*t, policy);
      us.push_back(w.us());
      dev.expect(static_cast<bool>(res), fmt::format("a there-and-back update was refused: {}", res));
    }
  }
  return sample::median(us);
}

/// One experiment on the executable: diff, cost of each strategy, update(), device check.
/// `current` is the plan with the parameters the executable holds; on success it becomes `templ`.
void experiment(int number, const std::string& title, gd::Executable& exec, gd::Graph& current, Knobs& knobs,
                const Knobs& next_knobs, gd::Graph templ, bool expect_applied, Device& dev) {
  fmt::print("\n[{}] {}\n", number, title);
  print_diff(exec.plan(), templ);
  if (expect_applied) {
    const double per_node = strategy_cost(exec, current, templ, gd::UpdatePolicy::per_node, dev);
    const double whole = strategy_cost(exec, current, templ, gd::UpdatePolicy::whole_graph, dev);
    fmt::print("    cost by strategy (median of {} updates there and back): per_node {:.1f} us, whole_graph {:.1f} us\n",
               2 * strategy_reps, per_node, whole);
  } else {
    std::vector<double> us;
    for (int r = 0; r < strategy_reps; ++r) {
      sample::Stopwatch w;
      const gd::UpdateResult res = exec.update(templ);
      us.push_back(w.us());
      dev.expect(!res, "a refused update was applied");
    }
    fmt::print("    cost of the refusal (median of {} update() calls): {:.2f} us\n", strategy_reps,
               sample::median(us));
  }
  const std::uint64_t calls = gd::debug::cuda_calls();
  sample::Stopwatch w;
  const gd::UpdateResult r = exec.update(templ);  // UpdatePolicy::automatic
  const double us = w.us();
  const std::uint64_t made = gd::debug::cuda_calls() - calls;
  fmt::print("    update(): {}\n", r);
  fmt::print("    cost: {:.1f} us, {} CUDA call{}", us, made, made == 1 ? "" : "s");
  if (r && r.strategy != gd::UpdateStrategy::none) {
    fmt::print("; automatic chose {} ({} of {} nodes changed)", gd::to_string(r.strategy), r.changed.size(),
               templ.node_count());
  }
  fmt::print("\n");
  if (!r) {
    if (r.node) fmt::print("    error node: {}\n", *r.node);
    if (r.from_node) fmt::print("    error-from node: {}\n", *r.from_node);
    fmt::print("    CUDA error: {}\n", cudaGetErrorName(r.cuda_error));
  }
  dev.expect(static_cast<bool>(r) == expect_applied,
             expect_applied ? "the update was refused" : "the update was applied although it should be refused");
  if (!r) dev.expect(made == 0, "a refused update made CUDA calls");
  if (r) {
    knobs = next_knobs;
    current = std::move(templ);
  }
  dev.check(exec, knobs, r ? "device (new parameters)" : "device (unchanged after the refusal)");
}

void print_intro(const Buffers& b, Tally& tally) {
  const gd::Graph g = build_plan(b, tally, Knobs{});
  g.validate();
  fmt::print("the plan (built and validated on the host, no CUDA call):\n{}\n", g);
}

/// The experiments: each a title, the new knobs, and whether update() should apply them.
struct Step {
  std::string title;
  Knobs next;
  bool applied;
};

std::vector<Step> steps() {
  std::vector<Step> v;
  Knobs k;
  k.alpha = 3.0f;
  v.push_back({"one kernel's arguments change ('mul': alpha 2 -> 3)", k, true});
  k.alpha = -1.25f;
  k.beta = 2.0f;
  k.gamma = 0.75f;
  v.push_back({"all kernels' arguments change (alpha, beta, gamma)", k, true});
  k.tag = -42;
  v.push_back({"a memset value changes ('mark': tag 7 -> -42)", k, true});
  k.callback = 1;
  v.push_back({"the host callback is replaced ('report': version 0 -> version 1)", k, true});
  Knobs t = k;
  t.extra_node = true;
  t.alpha = 9.0f;
  v.push_back({"a topology change: one more node ('audit' after 'report'; alpha changes too)", t, false});
  t = k;
  t.extra_edge = true;
  v.push_back({"a topology change: one more edge ('mul' -> 'mark')", t, false});
  t = k;
  t.mul_is_add = true;
  v.push_back({"a kernel function change ('mul' launches add_to, same signature)", t, false});
  return v;
}

int run_host_only() {
  Buffers b(false);
  Tally tally;
  print_intro(b, tally);
  gd::Graph current = build_plan(b, tally, Knobs{});
  int number = 1;
  for (const Step& s : steps()) {
    fmt::print("\n[{}] {}\n", number++, s.title);
    gd::Graph templ = build_plan(b, tally, s.next);
    print_diff(current, templ);
    if (gd::diff(current, templ)) current = std::move(templ);
  }
  fmt::print("\nno CUDA device found: the update(), setter and ExecutableCache experiments need one; "
             "the diffs above are what update() decides before any CUDA call\n");
  return 0;
}

int run_device() {
  CUDA_CHECK(cudaSetDevice(0));
  fmt::print("graphdsl {} graph-update experiments on {}\n\n", gd::version_string, sample::device_summary(0));
  Buffers b(true);
  Tally tally;
  Device dev(b, tally);
  print_intro(b, tally);

  // [0] compile and launch the first plan. `first` stays alive: its handles are used by the setters.
  Knobs knobs;
  Handles h;
  const gd::Graph first = build_plan(b, tally, knobs, &h);
  fmt::print("[0] compile the first plan and launch it\n");
  sample::Stopwatch w;
  gd::Executable exec = first.instantiate();
  fmt::print("    instantiate(): {:.1f} us\n", w.us());
  dev.check(exec, knobs);
  gd::Graph current = build_plan(b, tally, knobs);  // the parameters the executable holds now

  int number = 1;
  for (const Step& s : steps()) {
    experiment(number++, s.title, exec, current, knobs, s.next, build_plan(b, tally, s.next), s.applied, dev);
  }
  fmt::print("\n    note: every build_plan() call makes a new host closure, and host nodes compare by closure "
             "identity, so 'report' counts as changed in every rebuilt template (patching it makes no CUDA call)\n");

  // Typed setters: one node each, checked at compile time against the node's kind and kernel signature.
  fmt::print("\n[{}] typed setter: set_kernel_args('add', beta 2 -> -0.5)\n", number++);
  w.restart();
  exec.set_kernel_args(h.add, b.d_in, b.d_b, -0.5, n);  // -0.5 (double) is converted to the kernel's float
  fmt::print("    cost: {:.1f} us\n", w.us());
  knobs.beta = -0.5f;
  dev.check(exec, knobs);

  fmt::print("\n[{}] typed setter: set_kernel('mul', add_to, ...) -- the remedy for the refused function change\n",
             number++);
  w.restart();
  exec.set_kernel(h.mul, add_to, gd::cover(n), b.d_in, b.d_a, knobs.alpha, n);
  fmt::print("    cost: {:.1f} us (the executable's recorded plan now launches add_to in 'mul')\n", w.us());
  knobs.mul_is_add = true;
  dev.check(exec, knobs);
  Knobs same_fn = knobs;
  same_fn.alpha = 0.5f;
  {
    const gd::Graph templ = build_plan(b, tally, same_fn);
    const gd::UpdateResult r = exec.update(templ);
    fmt::print("    update() with a template that launches add_to in 'mul' (alpha -> 0.5): {}\n", r);
    dev.expect(static_cast<bool>(r), "the update after set_kernel was refused");
    if (r) knobs = same_fn;
    dev.check(exec, knobs);
  }

  fmt::print("\n[{}] set_enabled('mark', false), launch, a whole-graph update, set_enabled('mark', true)\n", number++);
  exec.set_enabled(h.mark, false);
  fmt::print("    enabled('mark') = {}\n", exec.enabled(h.mark));
  knobs.mark_enabled = false;
  dev.check(exec, knobs, "device (mark disabled: the tag buffer keeps its poison)");
  {
    // Enabled state is not part of the plan. Does a whole-graph update (cudaGraphExecUpdate) keep it?
    Knobs next = knobs;
    next.gamma = -2.0f;
    const gd::UpdateResult r = exec.update(build_plan(b, tally, next), gd::UpdatePolicy::whole_graph);
    fmt::print("    while disabled, update(..., whole_graph) with gamma -> -2: {}\n", r);
    dev.expect(static_cast<bool>(r), "the whole-graph update was refused");
    if (r) knobs = next;
    knobs.mark_enabled = exec.enabled(h.mark);
    fmt::print("    after it, enabled('mark') = {} (the device check below follows that answer)\n", knobs.mark_enabled);
    dev.check(exec, knobs);
  }
  exec.set_enabled(h.mark, true);
  knobs.mark_enabled = true;
  dev.check(exec, knobs, "device (mark enabled again)");

  // ExecutableCache: one executable per key, updated in place while the fingerprint matches.
  fmt::print("\n[{}] ExecutableCache<int>: get(key, plan) three times with key 1\n", number++);
  {
    gd::ExecutableCache<int> cache;
    Knobs c;
    struct Get {
      const char* what;
      Knobs k;
    };
    Knobs c2 = c;
    c2.alpha = 5.0f;
    c2.tag = 99;
    Knobs c3 = c2;
    c3.extra_node = true;
    const gd::Executable* previous = nullptr;
    for (const Get& g : {Get{"first plan", c}, Get{"alpha and tag changed", c2}, Get{"one more node", c3}}) {
      const gd::Graph plan = build_plan(b, tally, g.k);
      w.restart();
      gd::Executable& e = cache.get(1, plan);
      const double us = w.us();
      const auto& st = cache.stats();
      fmt::print("    get(1, {}): {:.1f} us; stats: compiled {}, updated {}, refused {}; {}\n", g.what, us, st.compiled,
                 st.updated, st.refused,
                 previous == nullptr ? "new entry" : (st.updated > 0 && st.compiled == 1 ? "same executable, updated in place"
                                                                                        : "compiled anew (new fingerprint)"));
      previous = &e;
      dev.check(e, g.k);
    }
    const auto& st = cache.stats();
    dev.expect(st.compiled == 2 && st.updated == 1 && st.refused == 0, "unexpected ExecutableCache statistics");
  }

  fmt::print("\n{}\n", dev.failures == 0 ? "all experiments PASS" : fmt::format("{} FAIL(s)", dev.failures));
  return dev.failures == 0 ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return sample::cuda_device_count() == 0 ? run_host_only() : run_device();
  } catch (const gd::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
