// The plan layer used from several threads at once, as graph.hpp allows it: each thread builds,
// copies, moves, validates and diffs plans of its own, and all of them read the same const plans
// (introspection, validate, dump, DOT, fingerprint, diff, copies and embedding as a child). No CUDA
// call. Run under ThreadSanitizer by scripts/ci-extra.sh (docs/reliability.md, "ThreadSanitizer").
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "plan/graph_impl.hpp"  // src/, not installed: the content stamp
#include "unit_support.hpp"

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace threads_test {

namespace {

namespace gd = graphdsl;

void set_flag(cudaGraphConditionalHandle, int) {}

/// A plan with most node kinds, a child plan, a WHILE loop and graph memory; `variant` changes
/// parameters only (so plans of different variants have the same shape).
gd::Graph build_plan(unit::Buffers& buf, int variant, const gd::Graph& child) {
  gd::Graph g("worker");
  const auto up = g.add_memcpy(buf.x, buf.host_in, 256).name("upload");
  const auto k = g.add_kernel(unit::saxpy, gd::Launch{2, 128}, buf.y, buf.x, 1.0f + static_cast<float>(variant), 256)
                     .name("saxpy")
                     .after(up);
  const auto mem = g.add_mem_alloc<float>(64);
  const auto fill = g.add_memset(mem.buffer, static_cast<float>(variant), 64).after(mem.node);
  const auto use = g.add_kernel(unit::scale, gd::Launch{1, 64}, mem.buffer, 2.0f, 64).after(fill, k);
  const auto fr = g.add_mem_free(mem.buffer).after(use);
  const auto sub = g.add_child(child).name("child").after(k);
  const gd::Condition loop = g.add_condition(1);
  const auto w = g.add_while(loop, [&](gd::Graph& body) {
                    body.add_kernel(unit::step, gd::Launch{}, buf.flags).name("step");
                    body.add_kernel(set_flag, gd::Launch{}, loop, 0).after(body.node(0));
                  }).after(sub);
  g.add_host([variant] { (void)variant; }).name("done").after(w, fr);
  return g;
}

/// Everything a const plan offers, as a string to compare between threads.
std::string read_all(const gd::Graph& g) {
  std::string out = g.dump() + g.to_dot() + std::to_string(g.fingerprint()) + std::to_string(g.node_count());
  for (const gd::Node& n : g.nodes()) {
    out += n.info().describe();
    for (const gd::Node& p : g.predecessors(n)) out += p.name();
    for (const gd::Node& s : g.successors(n)) out += std::to_string(s.index());
  }
  for (const gd::Edge& e : g.edges()) out += std::to_string(e.from.index()) + ">" + std::to_string(e.to.index());
  if (const auto c = g.find("child")) out += g.child_plan(gd::ChildNode(c->ref())).dump();
  return out;
}

}  // namespace

TEST_CASE("threads build, copy, validate and diff their own plans while reading shared const plans", "[threads]") {
  constexpr int threads = 8;
  constexpr int iterations = 100;
  unit::Buffers buf;
  gd::Graph child_plan("child");
  child_plan.add_memset(buf.z, 0.0f, 16).name("zero");
  const gd::Graph child = child_plan;
  const gd::Graph shared = build_plan(buf, 0, child);
  gd::Graph bad("bad");
  const auto a = bad.add_empty().name("a");
  a.after(bad.add_empty().name("b").after(a));
  const gd::Graph invalid = bad;  // a cycle: validate() throws in every thread

  const std::string expected = read_all(shared);
  const std::uint64_t calls = gd::debug::cuda_calls();
  const gd::debug::LiveCounts live = gd::debug::live_counts();
  std::atomic<int> failures{0};
  std::atomic<int> checks{0};
  auto expect = [&](bool ok) {
    checks.fetch_add(1, std::memory_order_relaxed);
    if (!ok) failures.fetch_add(1, std::memory_order_relaxed);
  };

  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      unit::Buffers mine;
      for (int i = 0; i < iterations; ++i) {
        // Shared plans, const access only.
        expect(read_all(shared) == expected);
        shared.validate();
        const gd::UpdateResult same = gd::diff(shared, shared);
        expect(same && same.changed.empty());
        const std::string cycle = unit::usage_error_of([&] { invalid.validate(); });
        expect(cycle == "graphdsl: cycle: 'a' -> 'b' -> 'a'");

        // Plans of this thread: built from the shared child, copied, moved, changed, compared.
        gd::Graph own = build_plan(mine, t + i, child);
        own.validate();
        gd::Graph copy = own;
        expect(copy.fingerprint() == shared.fingerprint() && copy.id() != own.id());
        const gd::UpdateResult r = gd::diff(shared, copy);
        // The copy differs from `shared` in the saxpy scalar (variant > 0), the memset value, the
        // host callable and the buffers' addresses (another Buffers): shape equal, parameters not.
        // The while body's buffer changes too, which only cudaGraphExecUpdate applies, and it cannot
        // take a plan with graph memory: update() refuses that under every policy, and diff() too.
        expect(!r && r.status == gd::UpdateStatus::not_supported);
        gd::Graph moved = std::move(copy);
        moved.add_empty().after(moved.node(0));
        expect(!gd::diff(shared, moved) && moved.node_count() == shared.node_count() + 1);
        gd::Graph own_child("own child");
        own_child.add_kernel(unit::scale, gd::Launch{1, 32}, mine.z, 0.5f, 32);
        gd::Graph outer("outer");
        const gd::ChildNode shared_child = outer.add_child(child).name("shared");
        outer.add_child(own_child).name("own").after(shared_child);
        outer.validate();
        expect(outer.child_plan(shared_child).dump() == child.dump());
        (void)gd::debug::live_counts();
      }
    });
  }
  for (auto& th : pool) th.join();

  CHECK(failures.load() == 0);
  CHECK(checks.load() == threads * iterations * 7);
  CHECK(gd::debug::cuda_calls() == calls);
  const gd::debug::LiveCounts after = gd::debug::live_counts();
  CHECK(after.plans == live.plans);
  CHECK(after.host_closures == live.host_closures);
}

TEST_CASE("threads stamp a shared const plan at once and agree on its stamp; their own plans' changes clear theirs",
          "[threads]") {
  // Executable::set_child stamps the child plan it is given, which other threads may be reading or
  // stamping (a const Graph): the stamp is taken with a compare-and-swap (plan/graph_impl.hpp).
  constexpr int threads = 8;
  constexpr int rounds = 200;
  std::atomic<int> failures{0};
  for (int round = 0; round < 20; ++round) {
    const gd::Graph shared = [] {
      gd::Graph g("shared");
      g.add_empty().name("only");
      return g;
    }();
    std::vector<std::uint64_t> seen(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        seen[t] = shared.impl().content_stamp();
        gd::Graph own("own");
        for (int r = 0; r < rounds; ++r) {
          const std::uint64_t before = std::as_const(own).impl().content_stamp();
          own.add_empty();
          if (std::as_const(own).impl().content_stamp() == before) failures.fetch_add(1);
          if (shared.impl().content_stamp() != seen[t]) failures.fetch_add(1);
        }
      });
    }
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) CHECK(seen[t] == seen[0]);
    CHECK(seen[0] != 0);
  }
  CHECK(failures.load() == 0);
}

TEST_CASE("threads copy, drop and check handles of shared plans while making and destroying their own", "[threads]") {
  // Node handles hold no count (src/plan/handles.hpp): copies are plain copies, liveness is a plan
  // table read. Plans made and destroyed in every thread take and give back table slots, reused
  // first-in first-out by other threads, while dead handles' messages read the names kept there.
  constexpr int threads = 8;
  constexpr int iterations = 400;
  gd::Graph shared("shared");
  std::vector<gd::Node> handles;
  for (int i = 0; i < 64; ++i) handles.push_back(shared.add_empty().name("n" + std::to_string(i)));
  gd::Node dead;
  {
    gd::Graph gone("gone");
    dead = gone.add_empty();
  }
  const gd::debug::LiveCounts live = gd::debug::live_counts();
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      auto expect = [&](bool ok) {
        if (!ok) failures.fetch_add(1, std::memory_order_relaxed);
      };
      for (int i = 0; i < iterations; ++i) {
        std::vector<gd::Node> copies = handles;  // copies of the shared plan's handles, dropped below
        const gd::Node& n = copies[static_cast<std::size_t>((t * 7 + i) % 64)];
        expect(n.valid() && n == handles[n.index()] && n.name() == "n" + std::to_string(n.index()));
        gd::EmptyNode mine;
        {
          gd::Graph own("own");
          const gd::EmptyNode first = own.add_empty();
          mine = own.add_empty().after(first);
          const gd::EmptyNode copy = mine;
          expect(copy.valid() && copy.index() == 1 && own.predecessors(copy).size() == 1);
        }
        expect(!mine.valid() && !dead.valid());
        const std::string msg = unit::usage_error_of([&] { (void)mine.kind(); });
        expect(msg.find("node #1 of ") != std::string::npos &&
               msg.find("was used after its plan was destroyed") != std::string::npos);
        expect(unit::usage_error_of([&] { (void)dead.info(); }).find("node #0 of ") != std::string::npos);
      }
    });
  }
  for (auto& th : pool) th.join();
  CHECK(failures.load() == 0);
  CHECK(gd::debug::live_counts().plans == live.plans);
  CHECK(handles.back().name() == "n63");
}

namespace {
void step(float*, int, float) {}

/// A chain of n step nodes; node `changed` takes 1.5 instead of 0.5.
gd::Graph chain_of(int n, int changed) {
  gd::Graph g("chain");
  g.reserve(static_cast<std::size_t>(n));
  float* const d = nullptr;
  for (int i = 0; i < n; ++i) {
    const auto k = g.add_kernel(step, gd::Launch{}, d, i, i == changed ? 1.5f : 0.5f);
    if (i > 0) g.add_edge(g.node(static_cast<std::uint32_t>(i - 1)), k);
  }
  return g;
}
}  // namespace

TEST_CASE("threads diff plans large enough for the diff's helper thread, all at once", "[threads][diff]") {
  // Plans of 4,096 nodes or more share their block compare with one helper thread
  // (src/plan/diff_helper.cpp); a thread that finds it taken by another's diff compares alone. Each
  // thread diffs its own plans and a shared const one, with the helper switched off and on meanwhile.
  constexpr int threads = 4;
  constexpr int iterations = 30;
  constexpr int n = 5000;
  const bool was = gd::diff_helper_enabled();
  gd::set_diff_helper(true);
  const gd::Graph shared = chain_of(n, -1);
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const int changed = 1000 * t + 7;
      const gd::Graph mine = chain_of(n, changed);
      for (int i = 0; i < iterations; ++i) {
        if (t == 0 && i % 10 == 5) gd::set_diff_helper(i % 20 != 5);
        const gd::UpdateResult r = gd::diff(shared, mine);
        if (!r || r.changed != std::vector<std::uint32_t>{static_cast<std::uint32_t>(changed)}) {
          failures.fetch_add(1, std::memory_order_relaxed);
        }
        if (!gd::diff(mine, mine) || !gd::diff(mine, mine).changed.empty()) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : pool) th.join();
  CHECK(failures.load() == 0);
  gd::set_diff_helper(was);
}

}  // namespace threads_test
