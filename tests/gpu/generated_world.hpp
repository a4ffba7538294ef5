// The device side of the generated GPU tests (generated_update_test.cpp, generated_family_test.cpp,
// generated_profile_test.cpp): four device buffers with a fixed random start, the cells host nodes
// write, and the plan generator's view of them (plan_gen::Resources).
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "gpu_support.hpp"
#include "kernels.hpp"
#include "plan_generator.hpp"

namespace gpu_test {

/// The generator's options for plans that are compiled and launched and whose results are compared
/// with == (generated_update_test.cpp, generated_child_test.cpp).
inline plan_gen::Options launched_plan_options() {
  plan_gen::Options o;
  o.events = false;        // an event recorded and waited on in one graph orders nothing useful here
  o.driver_kinds = false;  // captured (identity only), memory-operation and semaphore nodes: not here
  o.while_loops = false;   // a generated while body never clears its condition
  o.clusters = false;      // cluster edits are refused on the host (the unit suite checks diff() for them)
  o.programmatic = false;  // edge kinds are refused on the host too
  o.chain = true;          // deterministic launches: results can be compared with ==
  o.max_nodes = 6;
  return o;
}

class GeneratedWorld {
 public:
  static constexpr int capacity = 64;  ///< floats per buffer

  /// Buffers filled from rng(salt).
  explicit GeneratedWorld(unsigned salt) {
    std::mt19937 gen = rng(salt);
    for (int b = 0; b < 4; ++b) {
      start.push_back(random_floats(capacity, gen));
      buffers.push_back(new DeviceBuffer<float>(start.back()));
      r.buffers[b] = buffers.back()->get();
    }
    r.kernels[0] = scale_by;    // x *= factor
    r.kernels[1] = add_scalar;  // x += c: another function of the same signature
    r.capacity = capacity;
    r.cells = cells.data();
  }
  ~GeneratedWorld() {
    for (DeviceBuffer<float>* b : buffers) delete b;
  }
  GeneratedWorld(const GeneratedWorld&) = delete;
  GeneratedWorld& operator=(const GeneratedWorld&) = delete;

  /// From the random start, runs `launch(stream)` and returns every buffer and host cell after it.
  template <class F>
  std::vector<float> run(F&& launch) {
    for (int b = 0; b < 4; ++b) buffers[b]->upload(start[b]);
    std::fill(cells.begin(), cells.end(), 0);
    launch(stream.get());
    GPU_REQUIRE(cudaStreamSynchronize(stream));
    std::vector<float> out;
    for (DeviceBuffer<float>* b : buffers) {
      const std::vector<float> v = b->download();
      out.insert(out.end(), v.begin(), v.end());
    }
    for (int c : cells) out.push_back(static_cast<float>(c));
    return out;
  }
  /// run() with one launch of `exec`.
  std::vector<float> run(gd::Executable& exec) {
    return run([&](cudaStream_t s) { exec.launch(s); });
  }

  std::vector<std::vector<float>> start;
  std::vector<DeviceBuffer<float>*> buffers;
  std::vector<int> cells = std::vector<int>(4, 0);
  plan_gen::Resources r;
  Stream stream;
};

}  // namespace gpu_test
