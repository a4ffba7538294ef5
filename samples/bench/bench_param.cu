// samples/bench/bench_param.cu — shared parameters: one shared parameter changed in k of N nodes.
//
//   params   a chain of N = 10000 step nodes; node j's b is a Parameter<float> for the k nodes
//            spread(N, k) (k = 1, 100, 1000), step_b elsewhere. One change of the parameter's value,
//            four ways, each on its own executable of the same chain:
//              set      exec.set(b, value)                               (Executable::set)
//              update   exec.update(template) with two templates prebuilt (diff of N nodes + k setters)
//              setters  exec.set_kernel_args(node, ...) on each of the k nodes
//              raw      cudaGraphExecKernelNodeSetParams on each of the k nodes of a raw executable
//            The four series are interleaved (the order rotates every repetition) after one untimed
//            batch each; µs per change (medians, noise = largest half-range / median), ratio against
//            raw, operator-new allocations per change. Every executable is then launched and its
//            output checked bit for bit (node j: data[j] = init[j] * 0.5 + b_j).
//   nested   the same change of a parameter used by k = 1, 100 step nodes inside the body of an if
//            node: exec.set(b, value) vs cudaGraphExecKernelNodeSetParams on the raw body's nodes,
//            interleaved, outputs checked.
#include <array>
#include <string>
#include <vector>

#include <graphdsl/format.hpp>
#include <graphdsl/graphdsl.hpp>

#include "bench_common.hpp"
#include "bench_param.hpp"

namespace bench {
namespace {

constexpr int chain_nodes = 10000;

/// The value of generation `gen`: 0 the start, 1 and 2 the two values the changes alternate between.
float value_gen(int gen) { return 0.25f + 0.5f * static_cast<float>(gen); }

/// The chain with a Parameter<float> "b" for the nodes in `uses` (ascending), step_b elsewhere.
/// `param` and `handles`, when given, receive the parameter and the node handles.
gd::Graph param_chain(float* data, const std::vector<int>& uses, float value, gd::Parameter<float>* param = nullptr,
                      std::vector<StepNode>* handles = nullptr) {
  gd::Graph g("param chain");
  g.reserve(chain_nodes);
  const gd::Parameter<float> b = g.parameter<float>(value).name("b");
  if (param != nullptr) *param = b;
  std::size_t next = 0;
  StepNode prev;
  for (int j = 0; j < chain_nodes; ++j) {
    const bool uses_b = next < uses.size() && uses[next] == j;
    next += uses_b ? 1 : 0;
    StepNode node = uses_b ? g.add_kernel(step, tiny, data, j, step_a, b)
                           : g.add_kernel(step, tiny, data, j, step_a, step_b);
    if (j > 0) node.after(prev);
    if (handles != nullptr) handles->push_back(node);
    prev = node;
  }
  return g;
}

/// The b of every node once the k nodes hold `value`.
std::vector<float> expected(const std::vector<int>& uses, float value) {
  std::vector<float> b(chain_nodes, step_b);
  for (int j : uses) b[j] = value;
  return b;
}

enum Variant { v_set, v_update, v_setters, v_raw, variants };
const char* const variant_names[variants] = {"graphdsl set(param)", "graphdsl update(plan)",
                                             "graphdsl per-node setters", "raw cudaGraphExecKernelNodeSetParams"};
const char* const variant_csv[variants] = {"graphdsl set", "graphdsl update", "graphdsl set_kernel_args",
                                           "raw cudaGraphExecKernelNodeSetParams"};

void one_k(Bench& bench, int k) {
  const std::vector<int> uses = spread(chain_nodes, k);
  // Each variant has its own executable of the same chain. `set` takes the handle of the plan its
  // executable was compiled from: that plan must stay alive while the handle is used.
  gd::Parameter<float> param;
  const gd::Graph set_plan = param_chain(bench.data, uses, value_gen(0), &param);
  gd::Executable exec_set = set_plan.instantiate();
  gd::Executable exec_update = param_chain(bench.data, uses, value_gen(0)).instantiate();
  std::vector<StepNode> handles;
  const gd::Graph setters_plan = param_chain(bench.data, uses, value_gen(0), nullptr, &handles);
  gd::Executable exec_setters = setters_plan.instantiate();
  const std::vector<float> start = expected(uses, value_gen(0));
  RawExec raw(Shape::chain, chain_nodes, bench.data, &start);
  const gd::Graph templates[2] = {param_chain(bench.data, uses, value_gen(1)),
                                  param_chain(bench.data, uses, value_gen(2))};

  int gen[variants] = {0, 0, 0, 0};  // the generation each executable holds now
  std::size_t patched = 0;
  auto change = [&](int v) {  // one change of the parameter's value on variant v
    const int g = gen[v] == 1 ? 2 : 1;
    const float value = value_gen(g);
    switch (v) {
      case v_set: patched = exec_set.set(param, value).patched; break;
      case v_update: {
        const gd::UpdateResult r = exec_update.update(templates[g - 1]);
        if (!r) bench.expect(false, "params update", r.to_string());
        break;
      }
      case v_setters:
        for (int j : uses) exec_setters.set_kernel_args(handles[j], bench.data, j, step_a, value);
        break;
      case v_raw:
        for (int j : uses) {
          StepArgs a(bench.data, j, value);
          const cudaKernelNodeParams p = a.params(tiny);
          CUDA_CHECK(cudaGraphExecKernelNodeSetParams(raw.exec, raw.g.nodes[j], &p));
        }
        break;
      default: break;
    }
    gen[v] = g;
  };

  const int batch = k == 1 ? 100 : 10;  // changes per timed batch
  const int reps = options().reps(15);
  std::array<std::vector<double>, variants> us;
  std::array<HeapCount, variants> heap{};
  std::array<double, variants> calls{};
  for (int v = 0; v < variants; ++v) {  // one untimed batch each
    for (int c = 0; c < batch; ++c) change(v);
  }
  for (int r = 0; r < reps; ++r) {
    for (int o = 0; o < variants; ++o) {
      const int v = (r + o) % variants;  // rotate the order every repetition
      const HeapCount h0 = thread_heap();
      sample::Stopwatch w;
      for (int c = 0; c < batch; ++c) change(v);
      us[v].push_back(w.us() / batch);
      heap[v] = heap[v] + (thread_heap() - h0);
      calls[v] += batch;
    }
  }
  bench.expect(patched == static_cast<std::size_t>(k), fmt::format("params k={}: set() patched", k),
               fmt::format("{} nodes, not {}", patched, k));

  const double raw_us = sample::median(us[v_raw]);
  for (int v = 0; v < variants; ++v) {
    const double med = sample::median(us[v]);
    const double allocs = static_cast<double>(heap[v].allocs) / calls[v];
    fmt::print("  {:<38} k={:<5} {:>11.3f} {:>7.3f} {:>5.1f}% {:>9.2f}\n", variant_names[v], k, med,
               raw_us > 0 ? med / raw_us : 0.0, 100.0 * sample::half_spread(us[v]), allocs);
    csv_row({"params", "chain", chain_nodes, k, variant_csv[v], med, sample::half_spread(us[v]),
             raw_us > 0 ? med / raw_us : 0.0, allocs, static_cast<double>(heap[v].bytes) / calls[v]});
  }

  const std::string what = fmt::format("params k={}", k);
  bench.check_b(what + " set", expected(uses, value_gen(gen[v_set])), [&] { exec_set.launch(bench.s); });
  bench.check_b(what + " update", expected(uses, value_gen(gen[v_update])), [&] { exec_update.launch(bench.s); });
  bench.check_b(what + " setters", expected(uses, value_gen(gen[v_setters])), [&] { exec_setters.launch(bench.s); });
  bench.check_b(what + " raw", expected(uses, value_gen(gen[v_raw])), [&] { raw.launch(bench.s); });
}

// ---- the parameter inside a conditional body ------------------------------------------------------

/// k step nodes in a chain (node j: data[j] = data[j] * a + b, b the Parameter) inside the body of an
/// if node whose condition is 1 at every launch.
gd::Graph nested_chain(float* data, int k, float value, gd::Parameter<float>* param) {
  gd::Graph g("nested param chain");
  const gd::Parameter<float> b = g.parameter<float>(value).name("b");
  *param = b;
  const gd::Condition go = g.add_condition(1);
  g.add_if(go, [&](gd::Graph& body) {
    StepNode prev;
    for (int j = 0; j < k; ++j) {
      StepNode node = body.add_kernel(step, tiny, data, j, step_a, b);
      if (j > 0) node.after(prev);
      prev = node;
    }
  });
  return g;
}

/// The same graph in raw CUDA, with the body's kernel nodes for cudaGraphExecKernelNodeSetParams.
struct RawNested {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<cudaGraphNode_t> body_nodes;
  RawNested(float* data, int k, float value) {
    CUDA_CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle go{};
    cudaGraph_t body = nullptr;
    raw_conditional(graph, nullptr, 0, cudaGraphCondTypeIf, &body, &go);
    for (int j = 0; j < k; ++j) {
      StepArgs a(data, j, value);
      const cudaKernelNodeParams kp = a.params(tiny);
      cudaGraphNode_t n = nullptr;
      CUDA_CHECK(cudaGraphAddKernelNode(&n, body, j > 0 ? &body_nodes.back() : nullptr, j > 0 ? 1 : 0, &kp));
      body_nodes.push_back(n);
    }
    exec = raw_instantiate(graph);
  }
  ~RawNested() {
    (void)cudaGraphExecDestroy(exec);
    (void)cudaGraphDestroy(graph);
  }
  RawNested(const RawNested&) = delete;
  RawNested& operator=(const RawNested&) = delete;
};

/// set(param) on k nodes of an if body vs cudaGraphExecKernelNodeSetParams on the raw body's nodes.
void nested_k(Bench& bench, int k) {
  gd::Parameter<float> param;
  const gd::Graph plan = nested_chain(bench.data, k, value_gen(0), &param);
  gd::Executable exec = plan.instantiate();
  RawNested raw(bench.data, k, value_gen(0));
  int gen_set = 0, gen_raw = 0;
  std::size_t patched = 0;
  const int batch = k == 1 ? 100 : 10;
  HeapCount heap{};
  auto set_batch = [&] {
    const HeapCount h0 = thread_heap();
    sample::Stopwatch w;
    for (int c = 0; c < batch; ++c) {
      gen_set = gen_set == 1 ? 2 : 1;
      patched = exec.set(param, value_gen(gen_set)).patched;
    }
    const double us = w.us() / batch;
    heap = heap + (thread_heap() - h0);
    return us;
  };
  auto raw_batch = [&] {
    sample::Stopwatch w;
    for (int c = 0; c < batch; ++c) {
      gen_raw = gen_raw == 1 ? 2 : 1;
      for (int j = 0; j < k; ++j) {
        StepArgs a(bench.data, j, value_gen(gen_raw));
        const cudaKernelNodeParams p = a.params(tiny);
        CUDA_CHECK(cudaGraphExecKernelNodeSetParams(raw.exec, raw.body_nodes[j], &p));
      }
    }
    return w.us() / batch;
  };
  (void)set_batch();  // untimed warm-up of both
  (void)raw_batch();
  heap = HeapCount{};
  const int reps = options().reps(15);
  const Pair pr = interleave(reps, set_batch, raw_batch);
  bench.expect(patched == static_cast<std::size_t>(k), fmt::format("params nested k={}: set() patched", k),
               fmt::format("{} nodes, not {}", patched, k));
  const double allocs = static_cast<double>(heap.allocs) / (reps * batch);
  fmt::print("  {:<38} k={:<5} {:>11.3f} {:>7.3f} {:>5.1f}% {:>9.2f}   (raw {:.3f} us)\n",
             "graphdsl set(param), in an if body", k, pr.ma(), pr.ratio(), 100.0 * pr.noise(), allocs, pr.mb());
  csv_row({"params", "if body", k, k, "graphdsl set (body)", pr.ma(), pr.noise(), pr.ratio(), allocs,
           static_cast<double>(heap.bytes) / (reps * batch)});
  const std::string what = fmt::format("params nested k={}", k);
  bench.check_b(what + " set", std::vector<float>(k, value_gen(gen_set)), [&] { exec.launch(bench.s); });
  bench.check_b(what + " raw", std::vector<float>(k, value_gen(gen_raw)),
                [&] { CUDA_CHECK(cudaGraphLaunch(raw.exec, bench.s)); });
}

}  // namespace

void params_bench(Bench& bench) {
  sample::Stopwatch section;
  fmt::print(
      "\n== params: one Parameter<float> used by k of N={} chain nodes, changed four ways "
      "(µs per change; ratio vs raw) ==\n",
      chain_nodes);
  fmt::print("  {:<38} {:<7} {:>11} {:>7} {:>6} {:>9}\n", "variant", "k", "us/change", "ratio", "noise", "allocs");
  for (int k : {1, 100, 1000}) one_k(bench, k);
  for (int k : {1, 100}) nested_k(bench, k);
  fmt::print("  (params took {:.1f} s)\n", section.us() / 1e6);
}

}  // namespace bench
