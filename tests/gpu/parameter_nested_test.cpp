// GPU tests of parameters used inside conditional bodies and child plans: Executable::set patches
// the nodes there through their native nodes (a while body's kernel that also takes the loop's
// Condition, both bodies of an if-else, an if nested in a while, a child plan's own parameter), the
// results follow, set works after a whole-graph update, and a refused set changes nothing.
#include "gpu_support.hpp"
#include "parameter_kernels.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N, Cells, run and check would collide with other files'.
namespace parameter_nested_test {

namespace {

constexpr int N = 2048;

struct Cells {
  std::mt19937 gen = rng(71);
  DeviceBuffer<float> x{random_floats(N, gen)};
  std::vector<float> hx = x.download();
  DeviceBuffer<float> y{N}, z{N}, w{N}, acc{1};
  DeviceBuffer<unsigned> counter{1};
  Stream s;
};

/// 'loop' (while, `iterations` times): acc += lr; 'branch' (if-else, then taken): y = lr*x and
/// z = lr (memset) / else y = x + lr; 'sub' (child plan with its own parameter 'scale'): w = scale*x.
gd::Graph nested_plan(Cells& c, float lr_value, unsigned iterations, gd::Parameter<float>* lr_out,
                      gd::Parameter<float>* scale_out) {
  gd::Graph sub("sub");
  auto scale = sub.parameter<float>(3.0f).name("scale");
  sub.add_kernel(axpb, gd::cover(N), c.w.get(), c.x.get(), scale, 0.0f, N).name("scale_x");
  if (scale_out != nullptr) *scale_out = scale;

  gd::Graph g("nested");
  auto lr = g.parameter<float>(lr_value).name("lr");
  if (lr_out != nullptr) *lr_out = lr;
  const auto more = g.add_condition(1);
  const auto take_then = g.add_condition(1);
  auto reset = g.add_memset(c.counter.get(), 0u, 1).name("reset");
  auto zero = g.add_memset(c.acc.get(), 0.0f, 1).name("zero");
  g.add_while(
       more,
       [&](gd::Graph& body) {
         body.add_kernel(loop_step, gd::Launch{1, 1}, c.counter.get(), iterations, more, c.acc.get(), lr).name("step");
       })
      .name("loop")
      .after(reset, zero);
  g.add_if_else(
       take_then,
       [&](gd::Graph& then) {
         then.add_kernel(axpb, gd::cover(N), c.y.get(), c.x.get(), lr, 0.0f, N).name("then_y");
         then.add_memset(c.z.get(), lr, N).name("then_z");
       },
       [&](gd::Graph& otherwise) {
         otherwise.add_kernel(axpb, gd::cover(N), c.y.get(), c.x.get(), 1.0f, lr, N).name("else_y");
       })
      .name("branch");
  g.add_child(sub).name("sub");
  return g;
}

void run(gd::Executable& exec, Stream& s) {
  exec.launch(s);
  exec.synchronize(s);
}

/// What nested_plan computes with `lr`, `scale` and `iterations` (exact in float: see parameter_test.cpp).
void check(Cells& c, float lr, float scale, unsigned iterations, const char* what) {
  INFO(what << " (lr = " << lr << ", scale = " << scale << ")");
  CHECK(c.acc.download()[0] == lr * static_cast<float>(iterations));
  CHECK(c.counter.download()[0] == iterations);
  const auto y = c.y.download(), z = c.z.download(), w = c.w.download();
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    bad += y[i] != lr * c.hx[i];
    bad += z[i] != lr;
    bad += w[i] != scale * c.hx[i];
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("set patches parameter uses in a while body, an if-else's bodies and a child plan",
          "[gpu][parameter][nested]") {
  Cells c;
  gd::Parameter<float> lr, scale;
  gd::Graph g = nested_plan(c, 0.5f, 4, &lr, &scale);
  gd::Executable exec = g.instantiate();
  run(exec, c.s);
  check(c, 0.5f, 3.0f, 4, "as compiled");

  // step (with the loop's Condition), then_y, then_z and else_y: four nodes in two conditional nodes.
  const gd::ParameterSet r = exec.set(lr, 0.25f);
  CHECK(r.patched == 4);
  CHECK(r.nodes().empty());  // no top-level node uses lr
  run(exec, c.s);
  check(c, 0.25f, 3.0f, 4, "after set(lr)");
  // The child plan's parameter is set on the executable of the plan that embeds it.
  CHECK(exec.set(scale, 1.5f).patched == 1);
  run(exec, c.s);
  check(c, 0.25f, 1.5f, 4, "after set(scale)");

  // The recorded plan holds the values; the plan compiled from does not change.
  const std::string recorded = exec.plan().dump();
  INFO(recorded);
  CHECK(recorded.find("argument 5: lr=0.25") != std::string::npos);
  CHECK(recorded.find("value lr=0.25 (float)") != std::string::npos);
  CHECK(recorded.find("argument 3: scale=1.5") != std::string::npos);
  CHECK(g.dump().find("argument 5: lr=0.5") != std::string::npos);
  // Updating back to the compiled plan puts its values back (whole graph: bodies changed).
  const gd::UpdateResult u = exec.update(g);
  INFO(u.to_string());
  REQUIRE(u);
  run(exec, c.s);
  check(c, 0.5f, 3.0f, 4, "after update(compiled plan)");
}

TEST_CASE("set after a whole-graph update, and with an if nested in a while body", "[gpu][parameter][nested][update]") {
  Cells c;
  gd::Parameter<float> lr;
  gd::Executable exec = nested_plan(c, 0.5f, 4, &lr, nullptr).instantiate();
  run(exec, c.s);
  check(c, 0.5f, 3.0f, 4, "as compiled");
  // A template whose loop runs 6 times: the body changed, so the update is whole-graph; the
  // executable then uses the template's condition handles, which set() must use for 'step'.
  gd::Parameter<float> lr2;
  const gd::Graph templ = nested_plan(c, 0.5f, 6, &lr2, nullptr);  // alive: lr2 is its handle
  const gd::UpdateResult u = exec.update(templ);
  INFO(u.to_string());
  REQUIRE(u);
  CHECK(u.strategy == gd::UpdateStrategy::whole_graph);
  CHECK(exec.set(lr, 0.125f).patched == 4);
  run(exec, c.s);
  check(c, 0.125f, 3.0f, 6, "after update, then set(lr)");
  CHECK(exec.set(lr2, 2.0f).patched == 4);  // the template's handle names the same parameter
  run(exec, c.s);
  check(c, 2.0f, 3.0f, 6, "after set(template's lr)");

  // An if inside a while body: two levels of nesting.
  gd::Graph g("two levels");
  auto step = g.parameter<float>(1.0f).name("step");
  const auto more = g.add_condition(1);
  const auto inner = g.add_condition(1);
  auto reset = g.add_memset(c.counter.get(), 0u, 1);
  auto zero = g.add_memset(c.acc.get(), 0.0f, 1);
  g.add_while(more, [&](gd::Graph& body) {
     auto k = body.add_kernel(loop_step, gd::Launch{1, 1}, c.counter.get(), 3u, more, c.acc.get(), step).name("step");
     body.add_if(inner, [&](gd::Graph& then) { then.add_memset(c.z.get(), step, N).name("fill"); }).after(k);
   }).after(reset, zero);
  gd::Executable two = g.instantiate();
  run(two, c.s);
  CHECK(c.acc.download()[0] == 3.0f);
  CHECK(two.set(step, 0.75f).patched == 2);
  run(two, c.s);
  CHECK(c.acc.download()[0] == 2.25f);
  const auto z = c.z.download();
  CHECK(std::count(z.begin(), z.end(), 0.75f) == N);
}

TEST_CASE("a refused set of a parameter used in a body changes nothing", "[gpu][parameter][nested][refusal]") {
  Cells c;
  DeviceBuffer<float> other(N);
  gd::Graph g("copy in body");
  auto dst = g.parameter<float*>(c.y.get()).name("dst");
  const auto go = g.add_condition(1);
  g.add_if(go, [&](gd::Graph& body) { body.add_memcpy(dst, c.x.get(), N).name("copy"); }).name("maybe");
  gd::Executable exec = g.instantiate();
  const std::uint64_t calls = gd::debug::cuda_calls();
  const std::string message = message_of([&] { (void)exec.set(dst, static_cast<float*>(nullptr)); });
  CHECK(message ==
        "graphdsl: Executable::set: parameter 'dst' of graph 'copy in body' is the destination of memcpy node 'copy' "
        "(#0) in body 0 (if body) of conditional node 'maybe' (#0) of graph 'copy in body'; a memcpy endpoint cannot "
        "be null: pass the address of memory to copy to");
  CHECK(gd::debug::cuda_calls() == calls);  // refused before any CUDA call
  run(exec, c.s);
  CHECK(c.y.download() == c.hx);  // still copies into y
  CHECK(exec.set(dst, other.get()).patched == 1);
  run(exec, c.s);
  CHECK(other.download() == c.hx);
}

TEST_CASE("a child plan that uses parameters: per-node update and set_child keep set working",
          "[gpu][parameter][nested][child]") {
  Cells c;
  // w = scale * x + offset
  auto child = [&](float scale_value, float offset, gd::Parameter<float>* out) {
    gd::Graph sub("sub");
    auto scale = sub.parameter<float>(scale_value).name("scale");
    sub.add_kernel(axpb, gd::cover(N), c.w.get(), c.x.get(), scale, offset, N).name("scale_x");
    if (out != nullptr) *out = scale;
    return sub;
  };
  auto outer = [&](const gd::Graph& sub) {
    gd::Graph g("outer");
    g.add_memset(c.z.get(), 1.0f, N).name("fill");
    g.add_child(sub).name("sub");
    return g;
  };
  auto check_w = [&](float scale, float offset, const char* what) {
    INFO(what);
    const auto w = c.w.download();
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += w[i] != scale * c.hx[i] + offset;
    CHECK(bad == 0);
  };
  gd::Parameter<float> scale;
  const gd::Graph g = outer(child(3.0f, 0.0f, &scale));
  gd::Executable exec = g.instantiate();
  run(exec, c.s);
  check_w(3.0f, 0.0f, "as compiled");

  // A plain argument inside the child changes: the child node is patched on its own.
  const gd::UpdateResult u = exec.update(outer(child(3.0f, 1.0f, nullptr)));
  INFO(u.to_string());
  REQUIRE(u);
  CHECK(u.changed == std::vector<std::uint32_t>{1});
  run(exec, c.s);
  check_w(3.0f, 1.0f, "after update");
  CHECK(exec.set(scale, 2.0f).patched == 1);
  run(exec, c.s);
  check_w(2.0f, 1.0f, "after update, then set(scale)");

  // A new child plan of the same shape through set_child; the handle of the first child still sets it.
  exec.set_child(gd::node_cast<gd::ChildNode>(g.node(1)), child(5.0f, 0.5f, nullptr));
  run(exec, c.s);
  check_w(5.0f, 0.5f, "after set_child");
  CHECK(exec.set(scale, 4.0f).patched == 1);
  run(exec, c.s);
  check_w(4.0f, 0.5f, "after set_child, then set(scale)");
  CHECK(exec.plan().dump().find("argument 3: scale=4") != std::string::npos);
}

}  // namespace parameter_nested_test
