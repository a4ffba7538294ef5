// tests/gpu/dag_test.cpp — dependency edges are honoured: every test builds a DAG whose result is
// right only if each node runs after its predecessors (slow nodes spin before they write), and
// launches it on a cudaStreamNonBlocking stream, on the legacy default stream and on the per-thread
// default stream.
#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace dag_test {

namespace {

constexpr unsigned long long kMs = 1000ull * 1000ull;

struct NamedStream {
  const char* name;
  cudaStream_t stream;
};

}  // namespace

TEST_CASE("fork-join DAG: chained kernels in two branches, a slow branch, a join", "[gpu][dag]") {
  auto gen = rng(100);
  const int n = 4099;
  PinnedBuffer<float> h_x(n), h_c(n);
  DeviceBuffer<float> d_x(n), d_a(n), d_b(n), d_c(n);

  gd::Graph g("fork_join");
  auto up = g.add_memcpy(d_x.get(), h_x.data(), n).name("upload");
  // branch A: a = x + 1 (slow), a = 2a + 0.5, a = a + 4
  auto a1 = g.add_kernel(spin_affine, gd::cover(n), d_a.get(), d_x.get(), 1, 1, 3 * kMs, n).name("a1").after(up);
  auto a2 = g.add_kernel(spin_affine, gd::cover(n), d_a.get(), d_a.get(), 2, 0.5, 0ull, n).name("a2").after(a1);
  auto a3 = g.add_kernel(spin_affine, gd::cover(n), d_a.get(), d_a.get(), 1, 4, 1 * kMs, n).name("a3").after(a2);
  // branch B: b = 2 - x, b = 3b (slow)
  auto b1 = g.add_kernel(spin_affine, gd::cover(n), d_b.get(), d_x.get(), -1, 2, 0ull, n).name("b1").after(up);
  auto b2 = g.add_kernel(spin_affine, gd::cover(n), d_b.get(), d_b.get(), 3, 0, 2 * kMs, n).name("b2").after(b1);
  auto join = g.add_empty().name("join").after(a3, b2);
  auto sum = g.add_kernel(add2, gd::cover(n), d_c.get(), d_a.get(), d_b.get(), n).name("sum").after(join);
  g.add_memcpy(h_c.data(), static_cast<const float*>(d_c.get()), n).name("download").after(sum);
  gd::Executable exec = g.instantiate();

  Stream nonblocking(cudaStreamNonBlocking);
  for (const NamedStream& s : {NamedStream{"cudaStreamNonBlocking stream", nonblocking.get()},
                               NamedStream{"legacy default stream", nullptr},
                               NamedStream{"per-thread default stream", cudaStreamPerThread}}) {
    for (int launch = 0; launch < 3; ++launch) {
      INFO(s.name << ", launch " << launch);
      h_x.assign(random_floats(n, gen));  // new input each launch: a stale read cannot pass
      h_c.assign(random_floats(n, gen));
      GPU_REQUIRE(cudaMemset(d_a.get(), 0xFF, d_a.bytes()));  // NaN
      GPU_REQUIRE(cudaMemset(d_b.get(), 0xFF, d_b.bytes()));
      GPU_REQUIRE(cudaDeviceSynchronize());
      if (s.stream == nullptr) {
        exec.launch();  // the default argument is the legacy default stream
        exec.synchronize();
      } else {
        exec.launch(s.stream);
        exec.synchronize(s.stream);
      }
      std::vector<float> want(n);
      for (int i = 0; i < n; ++i) {
        const float a = ((h_x[i] + 1.0f) * 2.0f + 0.5f) + 4.0f;
        const float b = (2.0f - h_x[i]) * 3.0f;
        want[i] = a + b;
      }
      require_equal(h_c.to_vector(), want, "c = a + b");
    }
  }
}

TEST_CASE("a chain runs in edge order, not in node creation order", "[gpu][dag]") {
  // v -> 2v + c_k for k = 0..5: the composition depends on the order, so any reordering or overlap
  // shows. The nodes are created last-first; only the edges say first-last.
  auto gen = rng(101);
  const int n = 1000, steps = 6;
  const float c[steps] = {1, -3, 0.5f, 7, -0.25f, 2};
  PinnedBuffer<float> h_v(n), h_out(n);
  DeviceBuffer<float> d_v(n);

  gd::Graph g("chain");
  std::vector<gd::Node> step(steps);
  for (int k = steps - 1; k >= 0; --k) {
    // even steps spin: a successor that started early would read the old value
    step[k] = g.add_kernel(spin_affine, gd::cover(n), d_v.get(), d_v.get(), 2, c[k], (k % 2 == 0) ? kMs : 0ull, n)
                  .name("step" + std::to_string(k));
  }
  auto up = g.add_memcpy(d_v.get(), h_v.data(), n).name("upload");
  auto down = g.add_memcpy(h_out.data(), static_cast<const float*>(d_v.get()), n).name("download");
  g.add_edge(up, step[0]);
  for (int k = 1; k < steps; ++k) g.add_edge(step[k - 1], step[k]);
  g.add_edge(step[steps - 1], down);
  gd::Executable exec = g.instantiate();

  Stream s;
  for (int launch = 0; launch < 3; ++launch) {
    h_v.assign(random_floats(n, gen));
    h_out.assign(random_floats(n, gen));
    exec.launch(s);
    exec.synchronize(s);
    std::vector<float> want = h_v.to_vector();
    for (auto& v : want) {
      for (int k = 0; k < steps; ++k) v = 2.0f * v + c[k];
    }
    INFO("launch " << launch);
    require_equal(h_out.to_vector(), want, "steps applied in edge order");
  }
}

TEST_CASE("a wide fan-out and fan-in: every branch finishes before the join's successor", "[gpu][dag]") {
  auto gen = rng(102);
  const int n = 512, branches = 8;
  PinnedBuffer<float> h_x(n), h_out(n);
  DeviceBuffer<float> d_x(n), d_acc(n);
  std::vector<std::unique_ptr<DeviceBuffer<float>>> parts;
  for (int k = 0; k < branches; ++k) parts.push_back(std::make_unique<DeviceBuffer<float>>(n));

  gd::Graph g("fan");
  auto up = g.add_memcpy(d_x.get(), h_x.data(), n).name("upload");
  std::vector<gd::Node> ends;
  for (int k = 0; k < branches; ++k) {
    // part_k = (k + 1) x + k, the last branches slowest
    ends.push_back(g.add_kernel(spin_affine, gd::cover(n), parts[k]->get(), d_x.get(), k + 1, k,
                                static_cast<unsigned long long>(k) * kMs / 4, n)
                       .name("branch" + std::to_string(k))
                       .after(up));
  }
  // fan-in as a chain of sums after a join: acc = part_0, acc += part_k
  auto join = g.add_empty().name("join").after(ends);
  gd::Node prev = g.add_kernel(spin_affine, gd::cover(n), d_acc.get(), parts[0]->get(), 1, 0, 0ull, n)
                      .name("acc0")
                      .after(join);
  for (int k = 1; k < branches; ++k) {
    prev = g.add_kernel(add2, gd::cover(n), d_acc.get(), d_acc.get(), parts[k]->get(), n)
               .name("acc" + std::to_string(k))
               .after(prev);
  }
  g.add_memcpy(h_out.data(), static_cast<const float*>(d_acc.get()), n).name("download").after(prev);
  REQUIRE(g.predecessors(join).size() == static_cast<std::size_t>(branches));
  gd::Executable exec = g.instantiate();

  Stream s;
  for (int launch = 0; launch < 2; ++launch) {
    h_x.assign(random_floats(n, gen));
    for (auto& p : parts) GPU_REQUIRE(cudaMemset(p->get(), 0xFF, p->bytes()));
    GPU_REQUIRE(cudaDeviceSynchronize());
    exec.launch(s);
    exec.synchronize(s);
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) {
      float acc = 1.0f * h_x[i] + 0.0f;
      for (int k = 1; k < branches; ++k) acc += static_cast<float>(k + 1) * h_x[i] + static_cast<float>(k);
      want[i] = acc;
    }
    INFO("launch " << launch);
    require_equal(h_out.to_vector(), want, "sum of all branches");
  }
}

}  // namespace dag_test
