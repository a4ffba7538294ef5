// Generated, model-based GPU cases: seeded random plans of kernel, memset and memcpy nodes (one of
// the kernels' factors a Parameter; each kernel's grid covering all of its buffer or a part), and
// random sequences of setters (arguments, launch shape, another function of the same signature),
// Executable::set and updates under every policy. A host model keeps what each node should do now;
// after every step
//   - the executable computes what the model computes (values read back from the device),
//   - the executable's plan (exec.plan()) dumps as the model's plan does, and compiles into an
//     executable that computes the same,
//   - an executable instantiated from native_graph() (raw CUDA) computes the same: the native graph
//     describes what runs,
//   - diff(exec.plan(), next) agrees with update(next) on its status,
//   - adopting the native graph (graphdsl::adopt) gives the executable's plan back: node by node of
//     the same kinds, it diffs against the adoption of a second compilation of the plan with nothing
//     to change (exec.plan() keeps its Parameter, the native graph its value), and it computes the same.
// A failure names the seed and the step; rerun one seed with GRAPHDSL_GENERATED_SEED.
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "gpu_support.hpp"
#include "graphdsl/adopt.hpp"

using namespace gpu_test;

namespace generated_native_test {

namespace {

constexpr int n = 2048;
constexpr int buffers = 4;
constexpr unsigned threads = 256;  // per block of every kernel: a grid of n / threads blocks covers a buffer

/// One node of the model: what it does to the buffers.
struct Step {
  enum Kind { affine, scale, memset, memcpy } kind;
  int out = 0, in = 0;  // buffers (scale: out only; memset: out; memcpy: out <- in)
  float m = 1.0f, c = 0.0f;
  bool param = false;  // scale: its factor is the plan's Parameter
  bool add = false;    // scale without the Parameter: adds m (add_scalar, the same signature) instead
  unsigned blocks = n / threads;  // kernels: the grid; elements past blocks * threads stay as they were

  int reach() const { return std::min(n, static_cast<int>(blocks * threads)); }
};

struct Model {
  std::vector<Step> steps;
  float param = 1.0f;

  /// The buffers after one launch from `init` (host reference of the chain, in order).
  std::vector<std::vector<float>> run(std::vector<std::vector<float>> b) const {
    for (const Step& s : steps) {
      const int count = s.kind == Step::affine || s.kind == Step::scale ? s.reach() : n;
      for (int i = 0; i < count; ++i) {
        switch (s.kind) {
          case Step::affine: b[s.out][i] = s.m * b[s.in][i] + s.c; break;
          case Step::scale:
            if (s.add) {
              b[s.out][i] += s.m;
            } else {
              b[s.out][i] *= s.param ? param : s.m;
            }
            break;
          case Step::memset: b[s.out][i] = s.m; break;
          case Step::memcpy: b[s.out][i] = b[s.in][i]; break;
        }
      }
    }
    return b;
  }
};

float small_value(std::mt19937& gen) { return static_cast<float>(std::uniform_int_distribution<int>(-8, 8)(gen)) / 4; }

/// A kernel's grid: the whole buffer most often, else half of it or one block.
unsigned random_blocks(std::mt19937& gen) {
  const unsigned choices[] = {n / threads, n / threads, n / threads / 2, 1};
  return choices[std::uniform_int_distribution<int>(0, 3)(gen)];
}

Model random_model(std::mt19937& gen) {
  Model m;
  const int count = std::uniform_int_distribution<int>(3, 10)(gen);
  std::uniform_int_distribution<int> buffer(0, buffers - 1);
  for (int k = 0; k < count; ++k) {
    Step s;
    s.kind = static_cast<Step::Kind>(std::uniform_int_distribution<int>(0, 3)(gen));
    s.out = buffer(gen);
    do s.in = buffer(gen);
    while (s.in == s.out);
    s.m = small_value(gen);
    s.c = small_value(gen);
    s.param = s.kind == Step::scale && k % 2 == 0;
    s.blocks = random_blocks(gen);
    m.steps.push_back(s);
  }
  m.param = small_value(gen);
  return m;
}

struct Built {
  gd::Graph g{"generated"};
  std::vector<gd::Node> nodes;
  gd::Parameter<float> param;
};

/// The model's plan: a chain, each node named after its position and kind.
Built build(const Model& m, const std::deque<DeviceBuffer<float>>& b) {
  Built out;
  out.param = out.g.parameter(m.param);
  for (std::size_t k = 0; k < m.steps.size(); ++k) {
    const Step& s = m.steps[k];
    const gd::Launch l{s.blocks, threads};
    auto chained = [&](auto node) {
      node.name("n" + std::to_string(k));
      if (k > 0) node.after(out.nodes.back());
      out.nodes.push_back(node);
    };
    switch (s.kind) {
      case Step::affine: chained(out.g.add_kernel(affine, l, b[s.out].get(), b[s.in].get(), s.m, s.c, n)); break;
      case Step::scale:
        if (s.param) {
          chained(out.g.add_kernel(scale_by, l, b[s.out].get(), out.param, n));
        } else if (s.add) {
          chained(out.g.add_kernel(add_scalar, l, b[s.out].get(), s.m, n));
        } else {
          chained(out.g.add_kernel(scale_by, l, b[s.out].get(), s.m, n));
        }
        break;
      case Step::memset: chained(out.g.add_memset(b[s.out].get(), s.m, n)); break;
      case Step::memcpy: chained(out.g.add_memcpy(b[s.out].get(), static_cast<const float*>(b[s.in].get()), n)); break;
    }
  }
  return out;
}

struct Harness {
  std::deque<DeviceBuffer<float>> b;  // not movable: a deque keeps them in place
  std::vector<std::vector<float>> init;
  Stream s;

  explicit Harness(std::mt19937& gen) {
    for (int i = 0; i < buffers; ++i) {
      init.push_back(random_floats(n, gen));
      b.emplace_back(init.back());
    }
  }
  void reset() {
    for (int i = 0; i < buffers; ++i) b[i].upload(init[i]);
  }
  std::vector<std::vector<float>> outputs() const {
    std::vector<std::vector<float>> v;
    for (const auto& x : b) v.push_back(x.download());
    return v;
  }
  std::vector<std::vector<float>> launch(gd::Executable& e) {
    reset();
    e.launch(s);
    e.synchronize(s);
    return outputs();
  }
  std::vector<std::vector<float>> launch_native(cudaGraph_t g) {
    reset();
    cudaGraphExec_t e = nullptr;
    GPU_REQUIRE(cudaGraphInstantiate(&e, g, 0));
    GPU_REQUIRE(cudaGraphLaunch(e, s));
    GPU_REQUIRE(cudaStreamSynchronize(s));
    GPU_REQUIRE(cudaGraphExecDestroy(e));
    return outputs();
  }
};

/// One to three kernel setters on node `node` (step `s`, an affine or a scale without the Parameter),
/// each the new arguments (twice as often), a new grid, or (a scale) the other function of its
/// signature: a setter often follows another change of the same node.
std::string kernel_setters(std::mt19937& gen, Step& s, Harness& h, gd::Executable& exec, const gd::Node& node) {
  using Affine = gd::KernelNodeOf<decltype(affine)>;
  using Scale = gd::KernelNodeOf<decltype(scale_by)>;
  std::string done;
  const int calls = std::uniform_int_distribution<int>(1, 3)(gen);
  for (int c = 0; c < calls; ++c) {
    const int which = std::uniform_int_distribution<int>(0, 3)(gen);
    if (which == 2) {
      s.blocks = random_blocks(gen);
      const gd::Launch l{s.blocks, threads};
      if (s.kind == Step::affine) {
        exec.set_launch(gd::node_cast<Affine>(node), l);
      } else {
        exec.set_launch(gd::node_cast<Scale>(node), l);
      }
      done += " set_launch " + std::to_string(s.blocks) + " blocks,";
    } else if (which == 3 && s.kind == Step::scale) {
      s.add = !s.add;
      s.m = small_value(gen);
      exec.set_kernel(gd::node_cast<Scale>(node), s.add ? add_scalar : scale_by, gd::Launch{s.blocks, threads},
                      h.b[s.out].get(), s.m, n);
      done += s.add ? " set_kernel add_scalar," : " set_kernel scale_by,";
    } else {
      s.m = small_value(gen);
      if (s.kind == Step::affine) {
        exec.set_kernel_args(gd::node_cast<Affine>(node), h.b[s.out].get(), h.b[s.in].get(), s.m, s.c, n);
      } else {
        exec.set_kernel_args(gd::node_cast<Scale>(node), h.b[s.out].get(), s.m, n);
      }
      done += " set_kernel_args,";
    }
  }
  done.pop_back();
  return done.substr(1);
}

/// One random change of the model, made on the executable through a setter, Executable::set or
/// update(): what was done, in words.
/// Half the changes are of `last`, the node changed before (-1: none yet), so that a node's setter
/// often follows another change of the same node (its launch, function or an update).
std::string random_change(std::mt19937& gen, Model& m, Harness& h, gd::Executable& exec, const Built& first, int& last) {
  const bool again = last >= 0 && std::uniform_int_distribution<int>(0, 1)(gen) == 0;
  const int k = again ? last : std::uniform_int_distribution<int>(0, static_cast<int>(m.steps.size()) - 1)(gen);
  last = k;
  Step& s = m.steps[k];
  const int how = std::uniform_int_distribution<int>(0, 3)(gen);
  if (how == 0 && (s.kind == Step::affine || (s.kind == Step::scale && !s.param))) {
    return kernel_setters(gen, s, h, exec, first.nodes[k]) + " n" + std::to_string(k);
  }
  if (how == 0) {  // the node's own setter
    switch (s.kind) {
      case Step::affine:
      case Step::scale: break;  // a scale by the Parameter: kernel_setters takes the others
      case Step::memset:
        s.m = small_value(gen);
        exec.set_memset(gd::node_cast<gd::MemsetNode>(first.nodes[k]), h.b[s.out].get(), s.m, n);
        return "set_memset n" + std::to_string(k);
      case Step::memcpy:
        do s.in = std::uniform_int_distribution<int>(0, buffers - 1)(gen);
        while (s.in == s.out);
        exec.set_memcpy(gd::node_cast<gd::MemcpyNode>(first.nodes[k]), h.b[s.out].get(),
                        static_cast<const float*>(h.b[s.in].get()), n);
        return "set_memcpy n" + std::to_string(k);
    }
  }
  if (how == 1) {  // the shared parameter
    m.param = small_value(gen);
    exec.set(first.param, m.param);
    return "set(param)";
  }
  // A new plan of the same shape: new values at one or two nodes, then update() under a policy.
  s.m = small_value(gen);
  s.c = small_value(gen);
  if (s.kind == Step::affine || s.kind == Step::scale) s.blocks = random_blocks(gen);
  if (how == 3) m.param = small_value(gen);
  const Built next = build(m, h.b);
  const gd::UpdatePolicy policy = static_cast<gd::UpdatePolicy>(std::uniform_int_distribution<int>(0, 2)(gen));
  const gd::UpdateResult predicted = gd::diff(exec.plan(), next.g);
  const gd::UpdateResult r = exec.update(next.g, policy);
  INFO(r.to_string());
  REQUIRE(r.status == gd::UpdateStatus::success);
  CHECK(predicted.status == r.status);
  return "update n" + std::to_string(k) + " policy " + std::to_string(static_cast<int>(policy));
}

}  // namespace

TEST_CASE(
    "generated: after random setters, parameters and updates, the executable, its plan and its native graph "
    "compute what the model does",
    "[gpu][generated][update]") {
  const char* one = std::getenv("GRAPHDSL_GENERATED_SEED");
  const unsigned first_seed = one != nullptr ? static_cast<unsigned>(std::atoi(one)) : 1u;
  const unsigned seeds = one != nullptr ? 1u : 40u;
  for (unsigned seed = first_seed; seed < first_seed + seeds; ++seed) {
    std::mt19937 gen(seed);
    Harness h(gen);
    Model m = random_model(gen);
    const Built first = build(m, h.b);
    gd::Executable exec = first.g.instantiate();
    int last = -1;
    for (int step = 0; step < 10; ++step) {
      const std::string what = step == 0 ? std::string("compiled") : random_change(gen, m, h, exec, first, last);
      INFO("seed " << seed << ", step " << step << ": " << what);
      const auto want = m.run(h.init);
      REQUIRE(h.launch(exec) == want);
      CHECK(exec.plan().dump() == build(m, h.b).g.dump());
      gd::Executable again = exec.plan().instantiate();
      CHECK(h.launch(again) == want);
      CHECK(h.launch_native(exec.native_graph()) == want);
      gd::Graph adopted = gd::adopt(exec.native_graph());
      REQUIRE(adopted.node_count() == exec.plan().node_count());
      CHECK(adopted.edge_count() == exec.plan().edge_count());
      for (std::uint32_t i = 0; i < adopted.node_count(); ++i) {
        CHECK(adopted.node(i).kind() == exec.plan().node(i).kind());
      }
      // The plan keeps its Parameter, the native graph only its value (diff refuses the other
      // parameter count): two compilations of the plan adopt alike.
      const gd::UpdateResult same = gd::diff(adopted, gd::adopt(again.native_graph()));
      INFO(same.to_string());
      CHECK(same.status == gd::UpdateStatus::success);
      CHECK(same.changed.empty());
      gd::Executable from_adopted = adopted.instantiate();
      CHECK(h.launch(from_adopted) == want);
    }
  }
}

}  // namespace generated_native_test
