// GPU tests of shared parameters (Graph::parameter, Executable::set): one call patches every kernel
// argument and memset value that uses the parameter, the results follow, the recorded plan follows,
// and a refused set leaves the executable launching what it launched before.
#include "gpu_support.hpp"
#include "parameter_kernels.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N and Buffers would collide with other files'.
namespace parameter_test {

namespace {

constexpr int N = 4096;

struct Buffers {
  DeviceBuffer<float> x, y1, y2, y3, z;
  std::vector<float> hx;
  explicit Buffers(std::mt19937& gen) : x(random_floats(N, gen)), y1(N), y2(N), y3(N), z(N), hx(x.download()) {}
};

/// 'k1' y1 = lr*x + 0.5 ; 'k2' y2 = lr*x + lr ; 'fill' z = lr ; 'k3' y3 = x + 1 (no parameter)
gd::Graph plan(Buffers& b, float lr_value, gd::Parameter<float>* lr_out = nullptr) {
  gd::Graph g("params");
  auto lr = g.parameter<float>(lr_value).name("lr");
  if (lr_out != nullptr) *lr_out = lr;
  g.add_kernel(axpb, gd::cover(N), b.y1.get(), b.x.get(), lr, 0.5f, N).name("k1");
  g.add_kernel(axpb, gd::cover(N), b.y2.get(), b.x.get(), lr, lr, N).name("k2");
  g.add_memset(b.z.get(), lr, N).name("fill");
  g.add_kernel(axpb, gd::cover(N), b.y3.get(), b.x.get(), 1.0f, 1.0f, N).name("k3");
  return g;
}

/// plan(b, 2.0f) compiled, with random x (`salt`), a stream and the parameter's handle.
struct Compiled {
  std::mt19937 gen;
  Buffers b;
  Stream s;
  gd::Parameter<float> lr;
  gd::Graph g;
  gd::Executable exec;
  explicit Compiled(unsigned salt) : gen(rng(salt)), b(gen), g(plan(b, 2.0f, &lr)), exec(g.instantiate()) {}
};

void run(gd::Executable& exec, Stream& s) {
  exec.launch(s);
  exec.synchronize(s);
}

/// Every output holds what `plan` with parameter value `lr` computes (exact: multiples of 1/8 times
/// small multiples of 1/4 plus multiples of 1/4 are exact in float).
void check(Buffers& b, float lr, const char* what) {
  INFO(what << " (lr = " << lr << ")");
  const auto y1 = b.y1.download(), y2 = b.y2.download(), y3 = b.y3.download(), z = b.z.download();
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    bad += y1[i] != lr * b.hx[i] + 0.5f;
    bad += y2[i] != lr * b.hx[i] + lr;
    bad += y3[i] != b.hx[i] + 1.0f;
    bad += z[i] != lr;
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("set patches every kernel argument and memset value that uses the parameter", "[gpu][parameter]") {
  Compiled c(1701);
  Buffers& b = c.b;
  Stream& s = c.s;
  const gd::Parameter<float>& lr = c.lr;
  const gd::Graph& g = c.g;
  gd::Executable& exec = c.exec;
  run(exec, s);
  check(b, 2.0f, "as compiled");

  const gd::ParameterSet r = exec.set(lr, -1.5f);
  CHECK(r.patched == 3);  // k1, k2 (two uses, one call) and fill; not k3
  CHECK(r.nodes() == std::vector<std::uint32_t>{0, 1, 2});
  run(exec, s);
  check(b, -1.5f, "after set(lr, -1.5f)");

  // The recorded plan took the value: dumps show it, and a diff against the compiled plan lists the
  // three nodes that use it.
  const std::string dump = exec.plan().dump();
  CHECK(dump.find("  parameter #0 'lr': float = -1.5, 4 uses\n") != std::string::npos);
  CHECK(dump.find("argument 3: lr=-1.5, argument 4: lr=-1.5") != std::string::npos);
  const gd::UpdateResult d = gd::diff(exec.plan(), g);
  CHECK(d.changed == std::vector<std::uint32_t>{0, 1, 2});

  // The declaring plan keeps its own value; the handle still names the executable's parameter.
  CHECK(lr.value() == 2.0f);
  (void)exec.set(lr, 0.25f);
  run(exec, s);
  check(b, 0.25f, "after a second set");
}

TEST_CASE("update(plan) after set diffs against the value set, and set works after update", "[gpu][parameter][update]") {
  Compiled c(1702);
  Buffers& b = c.b;
  Stream& s = c.s;
  const gd::Parameter<float>& lr = c.lr;
  gd::Executable& exec = c.exec;
  (void)exec.set(lr, 4.0f);
  gd::UpdateResult r = exec.update(plan(b, 2.0f));  // back to 2.0 in the three nodes that use lr
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{0, 1, 2});
  run(exec, s);
  check(b, 2.0f, "after update(plan) back to 2.0");
  CHECK(exec.plan().dump().find("parameter #0 'lr': float = 2, 4 uses") != std::string::npos);

  // A template's parameter handle is accepted once the executable was updated from it.
  gd::Parameter<float> templ_lr;
  const gd::Graph templ = plan(b, 0.5f, &templ_lr);
  r = exec.update(templ);
  REQUIRE(r);
  CHECK(exec.set(templ_lr, -0.75f).patched == 3);
  run(exec, s);
  check(b, -0.75f, "after set through the template's handle");
  CHECK(exec.set(lr, 1.25f).patched == 3);  // the compiled plan's handle still works
  run(exec, s);
  check(b, 1.25f, "after set through the compiled plan's handle");
}

TEST_CASE("a refused set changes nothing: wrong type, another plan's parameter", "[gpu][parameter][refusal]") {
  Compiled c(1703);
  Buffers& b = c.b;
  Stream& s = c.s;
  const gd::Parameter<float>& lr = c.lr;
  const gd::Graph& g = c.g;
  gd::Executable& exec = c.exec;
  (void)exec.set(lr, 3.0f);
  const std::string before = exec.plan().dump();

  const std::uint64_t calls = gd::debug::cuda_calls();
  CHECK(message_of([&] { (void)exec.set(lr, 1.0); }) ==
        "graphdsl: Executable::set: parameter 'lr' of graph 'params' is of type float, the value given is of type "
        "double; a parameter's value is never converted: pass a float");
  CHECK(message_of([&] { (void)exec.set(lr, 1); }) ==
        "graphdsl: Executable::set: parameter 'lr' of graph 'params' is of type float, the value given is of type "
        "int32; a parameter's value is never converted: pass a float");
  gd::Graph other("other");
  auto foreign = other.parameter<float>(1.0f).name("lr");
  CHECK(message_of([&] { (void)exec.set(foreign, 1.0f); }) ==
        "graphdsl: Executable::set: parameter 'lr' of graph 'other' (plan id " + std::to_string(other.id()) +
            ") is not a parameter of this executable, compiled from graph 'params' (plan id " +
            std::to_string(g.id()) + "); a parameter is set on executables compiled from the plan that declares it "
            "(or a copy of that plan, or a plan that embeds it as a child plan)");
  CHECK(gd::debug::cuda_calls() == calls);  // refused before any CUDA call
  CHECK(exec.plan().dump() == before);
  run(exec, s);
  check(b, 3.0f, "after the refused calls");
}

TEST_CASE("a pointer parameter swaps the buffer kernels read", "[gpu][parameter]") {
  auto gen = rng(1704);
  DeviceBuffer<float> ping(random_floats(N, gen)), pong(random_floats(N, gen)), out(N);
  const auto hping = ping.download(), hpong = pong.download();
  Stream s;
  gd::Graph g("ping-pong");
  auto src = g.parameter<float*>(ping.get()).name("src");
  auto up = g.add_kernel(axpb, gd::cover(N), out.get(), src, 2.0f, 0.0f, N).name("double");  // const float* x
  g.add_kernel(add_into, gd::cover(N), out.get(), src, N).name("add").after(up);
  gd::Executable exec = g.instantiate();
  auto expect = [&](const std::vector<float>& in, const char* what) {
    run(exec, s);
    INFO(what);
    const auto o = out.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += o[i] != 3.0f * in[i];
    CHECK(bad == 0);
  };
  expect(hping, "reading ping");
  CHECK(exec.set(src, pong.get()).patched == 2);
  expect(hpong, "reading pong");
  CHECK(exec.set(src, ping.get()).patched == 2);
  expect(hping, "reading ping again");
}

TEST_CASE("a parameter next to a GraphBuffer argument, and 8-byte parameters", "[gpu][parameter][graph-memory]") {
  Stream s;
  DeviceBuffer<float> out(N);
  DeviceBuffer<double> wide(N);
  gd::Graph g("mixed");
  auto lr = g.parameter<float>(1.5f).name("lr");
  auto scale = g.parameter<double>(0.5).name("scale");
  auto offset = g.parameter<long long>(-7).name("offset");
  auto [alloc, tmp] = g.add_mem_alloc<float>(N);
  auto fill = g.add_memset(tmp, lr, N).name("fill").after(alloc);
  auto use = g.add_kernel(axpb, gd::cover(N), out.get(), tmp, 2.0f, lr, N).name("use").after(fill);
  g.add_mem_free(tmp).after(use);
  g.add_kernel(index_affine, gd::cover(N), wide.get(), scale, offset, N).name("wide");
  gd::Executable exec = g.instantiate();
  auto expect = [&](float l, double sc, long long off, const char* what) {
    run(exec, s);
    INFO(what);
    const auto o = out.download();
    const auto w = wide.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) {
      bad += o[i] != 2.0f * l + l;
      bad += w[i] != sc * i + static_cast<double>(off);
    }
    CHECK(bad == 0);
  };
  expect(1.5f, 0.5, -7, "as compiled");
  CHECK(exec.set(lr, -0.25f).patched == 2);  // the memset of the graph buffer and the kernel reading it
  CHECK(exec.set(scale, 0.125).patched == 1);
  CHECK(exec.set(offset, 1LL << 40).patched == 1);
  expect(-0.25f, 0.125, 1LL << 40, "after three sets");
}

TEST_CASE("a pointer parameter re-points memcpy endpoints, and a null endpoint is refused",
          "[gpu][parameter][refusal]") {
  auto gen = rng(1705);
  DeviceBuffer<float> ping(random_floats(N, gen)), pong(random_floats(N, gen)), mid(N), out_a(N), out_b(N);
  const auto hping = ping.download(), hpong = pong.download();
  Stream s;
  gd::Graph g("copies");
  auto src = g.parameter<const float*>(ping.get()).name("src");
  auto dst = g.parameter<float*>(out_a.get()).name("dst");
  auto in = g.add_memcpy(mid.get(), src, N).name("in");  // mid = *src
  auto twice = g.add_kernel(axpb, gd::cover(N), mid.get(), mid.get(), 2.0f, 1.0f, N).name("twice").after(in);
  g.add_memcpy(dst, mid.get(), N).name("out").after(twice);  // *dst = 2 * *src + 1
  gd::Executable exec = g.instantiate();
  auto expect = [&](DeviceBuffer<float>& out, const std::vector<float>& from, const char* what) {
    run(exec, s);
    INFO(what);
    const auto o = out.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += o[i] != 2.0f * from[i] + 1.0f;
    CHECK(bad == 0);
  };
  expect(out_a, hping, "ping into out_a");
  const gd::ParameterSet r = exec.set(src, pong.get());
  CHECK(r.patched == 1);
  CHECK(r.nodes() == std::vector<std::uint32_t>{0});
  expect(out_a, hpong, "pong into out_a");
  CHECK(exec.set(dst, out_b.get()).patched == 1);
  expect(out_b, hpong, "pong into out_b");
  CHECK(exec.plan().dump().find("#2 memcpy 'out': 16384 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA "
                                "at run time), destination is parameter dst") != std::string::npos);

  // A null endpoint is refused before any CUDA call; the executable copies where it did.
  const std::uint64_t calls = gd::debug::cuda_calls();
  const std::string refused = message_of([&] { (void)exec.set(dst, static_cast<float*>(nullptr)); });
  CHECK(refused ==
        "graphdsl: Executable::set: parameter 'dst' of graph 'copies' is the destination of memcpy node "
        "'out' (#2); a memcpy endpoint cannot be null: pass the address of memory to copy to");
  CHECK(gd::debug::cuda_calls() == calls);
  out_b.upload(std::vector<float>(N, 0.0f));
  expect(out_b, hpong, "after the refused set");
}

}  // namespace parameter_test
