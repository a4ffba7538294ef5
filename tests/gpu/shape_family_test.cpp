// GPU tests of gd::ShapeFamily (graphdsl/shape_family.hpp): eight batch sizes of a step served by one
// executable, launched in a seeded random order with every output read back and checked; each switch
// policy; two topologies; the dedicated budget's LRU; graph allocations sized for the largest variant;
// the memory report.
#include <map>
#include <string>
#include <vector>

#include <graphdsl/shape_family.hpp>

#include "gpu_support.hpp"
#include "shape_kernels.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace shape_family_test {

namespace {

constexpr int per_item = 32;              // elements per batch item
constexpr int capacity = 128 * per_item;  // the largest variant's elements per layer
constexpr int max_layers = 4;
constexpr float poison = -1000.5f;
const int sizes[] = {1, 2, 4, 8, 16, 32, 64, 128};

struct World {
  std::vector<float> hx;
  DeviceBuffer<float> x{capacity};
  DeviceBuffer<float> y{capacity * max_layers};
  Stream stream;
  World() {
    std::mt19937 gen = rng(31);
    hx = random_floats(capacity, gen);
    x.upload(hx);
  }
};

/// The step for batch size b: `layers` layers, layer l writes y_l[i] = (b + l) x[i] + count for
/// i < count = b * per_item, each after the one before.
gd::Graph step(World& w, int b, int layers = 3) {
  gd::Graph g("step b=" + std::to_string(b));
  const int count = b * per_item;
  gd::Node prev;
  for (int l = 0; l < layers; ++l) {
    auto k = g.add_kernel(shape_step, gd::cover(count), w.y.get() + l * capacity, w.x.get(), static_cast<float>(b + l),
                          count)
                 .name("layer " + std::to_string(l));
    if (l > 0) k.after(prev);
    prev = k;
  }
  return g;
}

/// Poisons y, runs `launch`, and checks every layer against variant b (`layers` layers).
template <class F>
void run_and_check(World& w, int b, int layers, F&& launch) {
  w.y.upload(std::vector<float>(capacity * max_layers, poison));
  launch();
  GPU_REQUIRE(cudaStreamSynchronize(w.stream));
  const std::vector<float> y = w.y.download();
  const int count = b * per_item;
  for (int l = 0; l < max_layers; ++l) {
    for (int i = 0; i < capacity; ++i) {
      const float want = l < layers && i < count ? static_cast<float>(b + l) * w.hx[i] + static_cast<float>(count)
                                                 : poison;
      if (y[l * capacity + i] != want) {
        FAIL("variant " << b << ", layer " << l << ", element " << i << ": " << y[l * capacity + i] << ", want "
                        << want);
      }
    }
  }
}

}  // namespace

TEST_CASE("a shape family serves eight sizes with one executable, switched in random order", "[gpu][shape_family]") {
  World w;
  for (gd::SwitchPolicy policy :
       {gd::SwitchPolicy::automatic, gd::SwitchPolicy::per_node, gd::SwitchPolicy::prepared}) {
    INFO("policy " << static_cast<int>(policy));
    gd::FamilyOptions o;
    o.policy = policy;
    o.prepare_eagerly = true;
    gd::ShapeFamily<int> family(o);
    for (int b : sizes) family.add(b, step(w, b));
    REQUIRE(family.topologies() == 1);
    family.compile(w.stream);
    CHECK(family.memory().prepared == 8);
    std::mt19937 gen = rng(5);
    int held = sizes[0];  // compile() leaves the executable on the first variant
    for (int launch = 0; launch < 48; ++launch) {
      const int b = sizes[gen() % 8];
      INFO("launch " << launch << ": variant " << b);
      run_and_check(w, b, 3, [&] { family.launch(b, w.stream); });
      const gd::SwitchReport& r = family.last_switch();
      INFO(r.to_string());
      CHECK(r.to == std::to_string(b));
      if (b == held) {
        CHECK(r.chosen == gd::SwitchStrategy::none);
      } else {
        CHECK(r.changed_nodes == 3);
        CHECK(r.prepared_available);
        if (policy == gd::SwitchPolicy::per_node) CHECK(r.chosen == gd::SwitchStrategy::per_node);
        if (policy == gd::SwitchPolicy::prepared) CHECK(r.chosen == gd::SwitchStrategy::prepared);
        CHECK((r.chosen == gd::SwitchStrategy::per_node || r.chosen == gd::SwitchStrategy::prepared));
      }
      // The executable's recorded plan holds the variant's parameters, whichever switch made it (the
      // per-node switch applies the pair's diff found once, without diffing again).
      const gd::UpdateResult same = gd::diff(family.executable(b)->plan(), family.plan(b));
      CHECK(same.status == gd::UpdateStatus::success);
      CHECK(same.changed.empty());
      held = b;
    }
    const gd::FamilyStats& s = family.stats();
    CHECK(s.launches == 48);
    CHECK(s.unchanged + s.per_node + s.prepared == 48);
    CHECK(s.compiled == 1);
  }
}

TEST_CASE("a shape family prepares a variant on its first prepared switch, once", "[gpu][shape_family]") {
  World w;
  gd::FamilyOptions o;
  o.policy = gd::SwitchPolicy::prepared;
  gd::ShapeFamily<int> family(o);
  for (int b : sizes) family.add(b, step(w, b));
  family.compile(w.stream);
  CHECK(family.memory().prepared == 0);  // compile() prepares nothing: build time and host memory
  for (int round = 0; round < 2; ++round) {
    for (int k = 1; k < 4; ++k) {
      const int b = sizes[k];
      run_and_check(w, b, 3, [&] { family.launch(b, w.stream); });
      const gd::SwitchReport& r = family.last_switch();
      INFO(r.to_string());
      CHECK(r.chosen == gd::SwitchStrategy::prepared);
      CHECK(r.prepared_available);
      if (round == 0) {
        CHECK(r.prepare_us > 0);  // the first switch to b prepared it, reported apart
      } else {
        CHECK(r.prepare_us == 0);  // the second reuses it
      }
    }
    CHECK(family.memory().prepared == 3);
  }
  // A family whose switches go per node prepares nothing.
  gd::FamilyOptions by_node;
  by_node.policy = gd::SwitchPolicy::per_node;
  gd::ShapeFamily<int> lean(by_node);
  for (int b : sizes) lean.add(b, step(w, b));
  lean.compile(w.stream);
  for (int b : sizes) run_and_check(w, b, 3, [&] { lean.launch(b, w.stream); });
  CHECK(lean.stats().prepared == 0);
  CHECK(lean.memory().prepared == 0);
  // An automatic family prepares a variant only for a switch its cost model sends the prepared way
  // (the model's estimates come from timings: on a loaded machine the prepared update may win).
  gd::ShapeFamily<int> automatic;
  for (int b : sizes) automatic.add(b, step(w, b));
  automatic.compile(w.stream);
  std::size_t chose_prepared = 0;
  for (int b : sizes) {
    run_and_check(w, b, 3, [&] { automatic.launch(b, w.stream); });
    const gd::SwitchReport& r = automatic.last_switch();
    INFO(r.to_string());
    if (r.chosen == gd::SwitchStrategy::prepared) {
      CHECK(r.prepared_us < r.per_node_us);
      ++chose_prepared;
    }
  }
  CHECK(automatic.stats().prepared == chose_prepared);
  CHECK(automatic.memory().prepared == chose_prepared);
}

TEST_CASE("a shape family gives a variant of another topology its own executable", "[gpu][shape_family]") {
  World w;
  gd::ShapeFamily<int> family;
  for (int b : sizes) family.add(b, step(w, b, b >= 64 ? 4 : 3));  // 64 and 128: one layer more
  REQUIRE(family.topologies() == 2);
  family.compile(w.stream);
  CHECK(family.stats().compiled == 2);
  std::mt19937 gen = rng(6);
  for (int launch = 0; launch < 32; ++launch) {
    const int b = sizes[gen() % 8];
    INFO("variant " << b);
    run_and_check(w, b, b >= 64 ? 4 : 3, [&] { family.launch(b, w.stream); });
    CHECK(family.last_switch().topology == (b >= 64 ? 1u : 0u));
  }
  CHECK(family.executable(1) != family.executable(64));
  CHECK(family.executable(1) == family.executable(32));
}

TEST_CASE("a shape family without compile() compiles on the first launch; later variants join on use",
          "[gpu][shape_family]") {
  World w;
  gd::ShapeFamily<int> family;
  family.add(4, step(w, 4));
  run_and_check(w, 4, 3, [&] { family.launch(4, w.stream); });
  family.add(8, step(w, 8));
  family.add(16, step(w, 16, 4));  // a new topology, compiled on its first launch
  run_and_check(w, 8, 3, [&] { family.launch(8, w.stream); });
  run_and_check(w, 16, 4, [&] { family.launch(16, w.stream); });
  CHECK(family.last_switch().chosen == gd::SwitchStrategy::compiled);
  run_and_check(w, 4, 3, [&] { family.launch(4, w.stream); });
  CHECK(family.stats().compiled == 2);
}

TEST_CASE("a shape family's dedicated budget keeps the most recently used variants as executables of their own",
          "[gpu][shape_family]") {
  World w;
  gd::ShapeFamily<int> family;
  for (int b : sizes) family.add(b, step(w, b));
  family.compile(w.stream);
  const std::size_t one = std::max<std::size_t>(family.memory().device_bytes, 1);
  family.set_dedicated_budget(2 * one);  // room for two executables of their own
  auto use = [&](int b) { run_and_check(w, b, 3, [&] { family.launch(b, w.stream); }); };
  use(1);  // first use: switched
  CHECK_FALSE(family.dedicated(1));
  use(1);  // second use (promote_after = 2): its own executable
  CHECK(family.dedicated(1));
  CHECK(family.last_switch().chosen == gd::SwitchStrategy::dedicated);
  use(2);
  use(2);
  CHECK(family.dedicated(2));
  use(1);  // 1 is now more recent than 2
  use(4);
  use(4);  // promoting 4 evicts the least recently used: 2
  CHECK(family.dedicated(4));
  CHECK(family.dedicated(1));
  CHECK_FALSE(family.dedicated(2));
  CHECK(family.stats().evictions == 1);
  CHECK(family.stats().promotions == 3);
  CHECK(family.memory().dedicated == 2);
  use(2);  // switched again, still correct
  CHECK(family.last_switch().chosen != gd::SwitchStrategy::dedicated);
  family.set_dedicated_budget(0);  // back to one executable
  CHECK(family.memory().dedicated == 0);
  for (int b : sizes) use(b);
}

TEST_CASE("a shape family with graph allocations sized for the largest variant switches per node",
          "[gpu][shape_family]") {
  World w;
  auto plan = [&](int b) {
    gd::Graph g("alloc b=" + std::to_string(b));
    auto a = g.add_mem_alloc<float>(capacity);  // the largest variant's size, in every variant
    a.node.name("scratch");
    const int count = b * per_item;
    auto k = g.add_kernel(shape_step, gd::cover(count), a.buffer, w.x.get(), static_cast<float>(b), count)
                 .name("layer 0")
                 .after(a.node);
    auto c = g.add_memcpy(w.y.get(), a.buffer, static_cast<std::size_t>(count)).name("out").after(k);
    g.add_mem_free(a.buffer).name("free").after(c);
    return g;
  };
  gd::ShapeFamily<int> family;
  for (int b : sizes) family.add(b, plan(b));
  REQUIRE(family.topologies() == 1);
  family.compile(w.stream);
  std::mt19937 gen = rng(8);
  int held = sizes[0];
  for (int launch = 0; launch < 24; ++launch) {
    const int b = sizes[gen() % 8];
    INFO("variant " << b);
    run_and_check(w, b, 1, [&] { family.launch(b, w.stream); });
    if (b != held) {
      CHECK_FALSE(family.last_switch().prepared_available);  // prepare_update refuses graph allocations
      CHECK(family.last_switch().chosen == gd::SwitchStrategy::per_node);
    }
    held = b;
  }
}

TEST_CASE("a shape family without prepared templates switches per node", "[gpu][shape_family]") {
  World w;
  gd::FamilyOptions o;
  o.prepare_templates = false;
  gd::ShapeFamily<int> family(o);
  for (int b : sizes) family.add(b, step(w, b));
  family.compile(w.stream);
  CHECK(family.memory().prepared == 0);
  std::mt19937 gen = rng(9);
  for (int launch = 0; launch < 16; ++launch) {
    const int b = sizes[gen() % 8];
    INFO("variant " << b);
    run_and_check(w, b, 3, [&] { family.launch(b, w.stream); });
    CHECK_FALSE(family.last_switch().prepared_available);
    CHECK(family.last_switch().chosen != gd::SwitchStrategy::prepared);
  }
  CHECK(family.stats().prepared == 0);
}

TEST_CASE("a shape family's memory report compares with one executable per variant", "[gpu][shape_family]") {
  World w;
  gd::FamilyOptions o;
  o.prepare_eagerly = true;  // every variant's prepared template counted
  gd::ShapeFamily<int> family(o);
  for (int b : sizes) family.add(b, step(w, b));
  family.compile(w.stream);
  const gd::FamilyMemory m = family.memory();
  INFO(m.to_string());
  CHECK(m.variants == 8);
  CHECK(m.topologies == 1);
  CHECK(m.prepared == 8);
  CHECK(m.separate_device_bytes == 8 * m.device_bytes);
  CHECK(m.host_bytes > 0);
}

}  // namespace shape_family_test
