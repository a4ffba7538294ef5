// samples/serving — serve a decode-like step at every batch size 1, 2, 4, ..., 128, four ways:
//
//   1. per size   one executable per batch size, chosen on the host (what vLLM and SGLang do)
//   2. family     gd::ShapeFamily: one executable for all eight sizes, switched when the size changes
//                 (per-node setters or the prepared update, whichever is cheaper)
//   3. padded     one executable for the largest size, every step padded to 128 rows
//   4. device     gd::dispatch in a WHILE: K steps of changing sizes in one launch, the size's
//                 bucket chosen on the device
//
// The step (samples/common/serving_step.cuh): `layers` layers of GEMM, bias + tanh, an attention-like
// reduction and a residual add. Ways 2-4 are checked against way 1, bit for bit, at every step of a
// seeded sequence of K changing sizes. Then each way is timed over the same K steps.
//
//   serving [--layers L] [--steps K]     defaults: 16 layers (65 nodes per step), K = 100;
//                                        --layers 500 is the benchmark's 2,001-node step
//
// Without a GPU it builds and validates the plans and prints their sizes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/shape_family.hpp>

#include "sample_util.hpp"
#include "serving_step.cuh"

namespace gd = graphdsl;
using namespace serving;

namespace {

struct Args {
  int layers = 16;
  int steps = 100;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--layers") == 0) a.layers = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--steps") == 0) a.steps = std::max(1, std::atoi(argv[++i]));
  }
  return a;
}

std::vector<float> rows_of(const float* dev, int rows) {
  std::vector<float> h(static_cast<std::size_t>(rows) * H);
  CUDA_CHECK(cudaMemcpy(h.data(), dev, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

/// Counts the steps whose output rows differ from the reference of their size.
struct Checker {
  std::map<int, std::vector<float>> ref;
  int checked = 0, wrong = 0;
  void check(const char* way, int step, int b, const std::vector<float>& got) {
    ++checked;
    if (got != ref.at(b)) {
      if (++wrong <= 5) std::printf("  %s: step %d (batch %d) differs from the per-size executable\n", way, step, b);
    }
  }
};

/// Host wall time per step of `k` steps issued by `issue(step)`, then one synchronize (best of 3).
template <class F>
double us_per_step(cudaStream_t s, int k, F&& issue) {
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    sample::Stopwatch t;
    for (int i = 0; i < k; ++i) issue(i);
    CUDA_CHECK(cudaStreamSynchronize(s));
    best = std::min(best, t.us() / k);
  }
  return best;
}

int run(const Args& a) {
  const Model placeholder = Model::placeholder(a.layers);
  const gd::Graph shown = step_plan(placeholder, 128);
  shown.validate();
  std::printf("serving: a step of %d layers = %zu nodes per batch size; %d steps of changing sizes\n", a.layers,
              shown.node_count(), a.steps);
  if (sample::cuda_device_count() == 0) {
    std::printf("no CUDA device found: the plans were built and validated on the host only\n");
    return 0;
  }
  std::printf("device: %s\n", sample::device_summary(0).c_str());
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Model m = Model::create(a.layers);
  const std::vector<int> sizes = batch_sizes();
  const std::vector<int> seq = changing_sizes(a.steps);
  Checker c;

  // 1. One executable per size: the reference.
  sample::Stopwatch t1;
  std::map<int, gd::Executable> per_size;
  for (int b : sizes) per_size.emplace(b, step_plan(m, b).instantiate());
  const double build_per_size = t1.us();
  for (int b : sizes) {
    per_size.at(b).launch(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    c.ref[b] = rows_of(m.x, b);
  }

  // 2. The family.
  sample::Stopwatch t2;
  gd::ShapeFamily<int> family;
  for (int b : sizes) family.add(b, step_plan(m, b));
  family.compile(s);
  const double build_family = t2.us();
  for (int i = 0; i < a.steps; ++i) {
    family.launch(seq[i], s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    c.check("family", i, seq[i], rows_of(m.x, seq[i]));
  }
  std::printf("family: %zu topology, last %s\n", family.topologies(), family.last_switch().to_string().c_str());

  // 3. Padded to the largest size.
  gd::Executable& padded = per_size.at(max_batch);
  for (int i = 0; i < a.steps; ++i) {
    padded.launch(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    c.check("padded", i, seq[i], rows_of(m.x, seq[i]));
  }

  // 4. The device-side loop: one launch for all K steps.
  LoopState st = LoopState::create(seq);
  gd::Executable loop = loop_plan(m, st).instantiate();
  loop.launch(s);
  loop.synchronize(s);
  for (int i = 0; i < a.steps; ++i) {
    c.check("device", i, seq[i], rows_of(st.log + static_cast<std::size_t>(i) * max_batch * H, seq[i]));
  }
  gd::Executable loop_only = loop_plan(m, st, /*record=*/false).instantiate();

  // Timings: the same K steps each way.
  const double per_size_us = us_per_step(s, a.steps, [&](int i) { per_size.at(seq[i]).launch(s); });
  const double family_us = us_per_step(s, a.steps, [&](int i) { family.launch(seq[i], s); });
  const double padded_us = us_per_step(s, a.steps, [&](int) { padded.launch(s); });
  const double device_us = us_per_step(s, 1, [&](int) { loop_only.launch(s); }) / a.steps;
  const gd::FamilyMemory mem = family.memory();
  std::printf("\n%-10s %14s %16s\n", "way", "us per step", "build all sizes");
  std::printf("%-10s %14.1f %13.1f ms\n", "per size", per_size_us, build_per_size / 1e3);
  std::printf("%-10s %14.1f %13.1f ms\n", "family", family_us, build_family / 1e3);
  std::printf("%-10s %14.1f %16s\n", "padded", padded_us, "(one of them)");
  std::printf("%-10s %14.1f %16s\n", "device", device_us, "one loop graph");
  std::printf("family memory: %s\n", mem.to_string().c_str());
  std::printf("family stats: %zu launches, %zu per_node, %zu prepared, %zu unchanged\n", family.stats().launches,
              family.stats().per_node, family.stats().prepared, family.stats().unchanged);

  st.destroy();
  m.destroy();
  CUDA_CHECK(cudaStreamDestroy(s));
  const bool ok = c.wrong == 0 && c.checked == 3 * a.steps;
  std::printf("\nchecked %d steps (family, padded, device) against the per-size executables: %d differ\n", c.checked,
              c.wrong);
  std::printf("serving: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  return sample::run_main([&] { return run(a); });
}
