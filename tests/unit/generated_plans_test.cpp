// Generated, model-based tests of the plan's invariants: seeded random plans of every node kind that
// can be built without a GPU (kernel, memset, memcpy, host, empty, event record and wait, child,
// if, if-else, switch, while, and kernels, memsets and copies on slices of the top-level plan's graph
// buffer at random offsets, also inside child plans and bodies) and random edits of every parameter and of the topology
// (tests/support/plan_generator.hpp). After each edit:
//   * equal fingerprints mean diff() finds the plans update-compatible, and the model agrees;
//   * diff() refuses exactly the pairs whose shapes differ and lists exactly the nodes whose
//     parameters differ; diff(a, copy of a) finds nothing; "nothing to update" means equal dumps;
//   * the recorded plan an update leaves (plan/recorded_update.hpp) describes the template;
//   * a recorded plan whose kernel was switched to another signature (the plan side of
//     Executable::set_kernel) describes a plan built with the new kernel, and diffs as it does;
//   * a copy never changes when its original, or a handle taken from it, is used;
//   * dump() and to_dot() are deterministic and name every node;
//   * the getters (memset_of, memcpy_of, event_of, ...) of a plan and of its copy return what the
//     plan was built from, and agree with the node's dump line.
// Every failure prints its seed and the edits made: rerun with that seed to reproduce it.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <graphdsl/graphdsl.hpp>
#include "catch.hpp"
#include "plan/diff.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"
#include "plan_edits.hpp"
#include "plan_generator.hpp"
#include "plan_stand_ins.hpp"
#include "unit_support.hpp"

namespace gd = graphdsl;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace generated_plans_test {

namespace {

void kernel_a(float*, float, int) {}
void kernel_b(float*, float, int) {}

constexpr std::uint32_t seeds = 200;  // per test case; each seed makes one plan and edits it 6 times
constexpr int edits_per_seed = 6;

/// Stand-ins for what plans point at (plan_stand_ins.hpp).
using World = plan_gen::StandIns;

/// Every kind, slices of a graph buffer included (the getters' case keeps to plans whose node i is
/// node i of the spec).
plan_gen::Options with_slices() {
  plan_gen::Options o;
  o.slices = true;
  return o;
}

/// What a test case keeps to reproduce a failure: the seed and the edits so far.
struct Trail {
  std::uint32_t seed = 0;
  std::string edits;
};

std::string text(const gd::UpdateResult& r) { return r.to_string(); }

/// The content stamp of `g`, stamping it first (plan/graph_impl.hpp): Executable::set_child sets the
/// graph it kept for a plan with this stamp without comparing plans, so every change must clear it.
std::uint64_t stamp_of(const gd::Graph& g) { return g.impl().content_stamp(); }


bool all_names_in(const std::string& out, const plan_gen::Spec& s, bool quoted) {
  std::vector<std::string> names;
  plan_gen::names_of(s, names);
  for (const std::string& n : names) {
    if (out.find(quoted ? "'" + n + "'" : n) == std::string::npos) return false;
  }
  return true;
}

/// Runs `check(a, A, b, B)` for `seeds` seeds, each over a random walk of edits from a random plan,
/// the plans built with the stand-ins of `w`.
template <class F>
void for_each_edit(const World& w, const plan_gen::Options& options, F&& check) {
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, options);
    Trail trail{seed, {}};
    plan_gen::Spec a = gen.plan();
    gd::Graph A = plan_gen::build(a, w.r);
    INFO("seed " << seed);
    REQUIRE_NOTHROW(A.validate());
    for (int step = 0; step < edits_per_seed; ++step) {
      plan_gen::Spec b = a;
      const std::string what = gen.edit(b);
      if (what.empty()) continue;
      trail.edits += "\n  " + what;
      INFO("edits:" << trail.edits);
      gd::Graph B = plan_gen::build(b, w.r);
      REQUIRE_NOTHROW(B.validate());
      check(a, A, b, B);
      if (gen.chance(2)) {  // walk on from the edited plan, or edit the same plan again
        a = b;
        A = std::move(B);
      }
    }
  }
}

/// for_each_edit with stand-ins of its own.
template <class F>
void for_each_edit(const plan_gen::Options& options, F&& check) {
  const World w;
  for_each_edit(w, options, std::forward<F>(check));
}

}  // namespace

TEST_CASE("generated plans: edges removed and predecessors replaced in place give the plan built with those edges",
          "[generated][edit]") {
  World w;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, plan_gen::Options{});
    plan_gen::Spec spec = gen.plan();
    gd::Graph edited = plan_gen::build(spec, w.r);
    std::string edits;
    for (int step = 0; step < edits_per_seed; ++step) {
      const std::uint64_t stamp = stamp_of(edited);
      const std::size_t edits_before = edits.size();
      const auto n = static_cast<std::uint32_t>(spec.nodes.size());
      if (!spec.edges.empty() && gen.chance(2)) {  // remove one edge
        const std::uint32_t e = gen.below(static_cast<std::uint32_t>(spec.edges.size()));
        const plan_gen::EdgeSpec gone = spec.edges[e];
        edits += fmt::format("\n  remove_edge #{} -> #{}", gone.from, gone.to);
        spec.edges.erase(spec.edges.begin() + e);
        edited.remove_edge(edited.node(gone.from), edited.node(gone.to));
      } else if (n > 1) {  // new predecessors of one node: any of the nodes before it (the plan stays acyclic)
        const std::uint32_t to = 1 + gen.below(n - 1);
        std::vector<gd::Node> preds;
        std::vector<bool> wanted(n, false);
        for (std::uint32_t f = 0; f < to; ++f) {
          if (!gen.chance(2)) continue;
          wanted[f] = true;
          preds.push_back(edited.node(f));
        }
        edits += fmt::format("\n  set_predecessors #{} ({} of them)", to, preds.size());
        std::vector<plan_gen::EdgeSpec> kept;  // the model: unwanted edges into `to` go, new ones come last
        std::vector<bool> present(n, false);
        for (const plan_gen::EdgeSpec& e : spec.edges) {
          if (e.to == to && !wanted[e.from]) continue;
          if (e.to == to) present[e.from] = true;
          kept.push_back(e);
        }
        for (const gd::Node& p : preds) {
          if (!present[p.index()]) kept.push_back({p.index(), to, gd::EdgeKind::full});
        }
        spec.edges = std::move(kept);
        edited.set_predecessors(edited.node(to), preds);
      }
      INFO("seed " << seed << ", edits:" << edits);
      if (edits.size() != edits_before) CHECK(stamp_of(edited) != stamp);
      const gd::Graph built = plan_gen::build(spec, w.r);
      CHECK(edited.edge_count() == spec.edges.size());
      CHECK(edited.dump() == built.dump());
      CHECK(edited.fingerprint() == built.fingerprint());
      // Two builds of one spec differ only in their host callables (compared by identity): the
      // edited plan differs from a build in exactly those nodes.
      const gd::UpdateResult same = gd::diff(edited, built);
      CHECK(same.status == gd::UpdateStatus::success);
      CHECK(same.changed == gd::diff(plan_gen::build(spec, w.r), built).changed);
    }
  }
}

TEST_CASE("generated plans use slices of the top-level plan's graph buffer in child plans and bodies too",
          "[generated]") {
  World w;
  int nested = 0;  // plans whose buffer a child plan or a body uses
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, with_slices());
    const plan_gen::Spec s = gen.plan();
    bool inner = false;
    for (const plan_gen::NodeSpec& n : s.nodes) {
      inner = inner || (n.kind != plan_gen::Kind::slice && plan_gen::uses_slices(n));
    }
    if (!inner) continue;
    ++nested;
    INFO("seed " << seed);
    const gd::Graph g = plan_gen::build(s, w.r);
    CHECK_NOTHROW(g.validate());
    CHECK(g.dump().find("of the plan 1 level out") != std::string::npos);
  }
  CHECK(nested >= seeds / 10);
}

TEST_CASE("generated plans: parameters set in place through the plan's setters give the plan built with them",
          "[generated][edit]") {
  // Each parameter edit the generator makes, made on a built plan with Graph::set_kernel, set_memset,
  // set_memcpy, set_host, set_event and set_child: the plan must be the plan built with the edited
  // values (dump, DOT, fingerprint; diff() lists only the host nodes, whose callables compare by
  // identity), and the plan it was copied from must not change.
  const World w;
  std::size_t applied = 0;
  for_each_edit(w, with_slices(),
                [&](const plan_gen::Spec& a, const gd::Graph& A, const plan_gen::Spec& b, const gd::Graph& B) {
                  const std::string before = A.dump();
                  gd::Graph edited = A;
                  const std::uint64_t stamp = stamp_of(edited);
                  if (!plan_gen::set_all_params(edited, a, b, w.r)) return;  // not an edit the setters make
                  ++applied;
                  if (!plan_gen::changed_nodes(a, b).empty()) CHECK(stamp_of(edited) != stamp);
                  const std::uint64_t edited_stamp = stamp_of(edited);
                  CHECK(edited.dump() == B.dump());
                  CHECK(edited.to_dot() == B.to_dot());
                  CHECK(edited.fingerprint() == B.fingerprint());
                  REQUIRE_NOTHROW(edited.validate());
                  // As another build of b diffs against B (host callables compare by identity; a child
                  // plan whose host node differs so, with a memset on the plan's buffer, is refused).
                  const gd::UpdateResult r = gd::diff(edited, B);
                  const gd::UpdateResult rebuilt = gd::diff(plan_gen::build(b, w.r), B);
                  CHECK(r.status == rebuilt.status);
                  CHECK(r.changed == rebuilt.changed);
                  CHECK(gd::diff(A, edited).status == gd::diff(A, B).status);  // against the plan before: as B
                  CHECK(A.dump() == before);
                  // Reading a plan and copying it keep its stamp; the copy is a plan of its own.
                  const gd::Graph copy = edited;
                  CHECK(stamp_of(edited) == edited_stamp);
                  CHECK(stamp_of(copy) != edited_stamp);
                });
  CHECK(applied > seeds / 2);  // a good share of the edits are parameter edits the setters make
}

TEST_CASE("generated plans: a node removed in place leaves the plan built without it", "[generated][edit]") {
  // Each top-level node in turn removed from a built plan: the plan must read as the plan built
  // without it (dump, counts, race report; node numbers aside, which keep their positions), validate
  // when that plan does (a conditional node's Condition stays declared: validate() names it), and be
  // of the shape of the same removal made on another build; the plan before it is a topology change.
  World w;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, with_slices());
    const plan_gen::Spec s = gen.plan();
    const gd::Graph A = plan_gen::build(s, w.r);
    const std::string before = A.dump();
    INFO("seed " << seed);
    for (std::uint32_t k = 0; k < s.nodes.size(); ++k) {
      INFO("remove_node #" << k << " (" << s.nodes[k].name << ")");
      gd::Graph edited = A;
      const std::uint64_t stamp = stamp_of(edited);
      plan_gen::remove_node(edited, s, k);
      CHECK(stamp_of(edited) != stamp);
      const plan_gen::Spec model = plan_gen::without_node(s, k);
      const gd::Graph built = plan_gen::build(model, w.r);
      CHECK(edited.node_count() == built.node_count());
      CHECK(edited.nodes().size() == built.node_count());
      CHECK(edited.edge_count() == built.edge_count());
      CHECK(edited.edges().size() == built.edges().size());
      if (plan_gen::conditional(s.nodes[k].kind)) {
        const std::string why = unit::usage_error_of([&] { edited.validate(); });
        CHECK(why.find("declares a Condition") != std::string::npos);
        CHECK(why.find("that no conditional node uses") != std::string::npos);
      } else {
        REQUIRE_NOTHROW(edited.validate());
        CHECK(plan_gen::without_numbers(edited.dump()) == plan_gen::without_numbers(built.dump()));
        CHECK(plan_gen::without_numbers(edited.check_races().to_string()) ==
              plan_gen::without_numbers(built.check_races().to_string()));
      }
      gd::Graph twice = plan_gen::build(s, w.r);
      plan_gen::remove_node(twice, s, k);
      CHECK(twice.fingerprint() == edited.fingerprint());
      // Two builds differ in their host and captured callables (identity): diff() finds what it finds
      // between two builds of the plan without the node, at the positions the nodes keep (not for a
      // conditional node, whose Condition the plan still declares: no plan without it is valid).
      const gd::UpdateResult same = gd::diff(edited, twice);
      if (!plan_gen::conditional(s.nodes[k].kind)) {
        const gd::UpdateResult model_same = gd::diff(built, plan_gen::build(model, w.r));
        CHECK(same.status == model_same.status);
        std::vector<std::uint32_t> kept;
        const std::uint32_t first = plan_gen::has_slices(s) ? 1 : 0;
        const std::uint32_t model_first = plan_gen::has_slices(model) ? 1 : 0;
        for (std::uint32_t j : model_same.changed) {
          const std::uint32_t spec_index = j - model_first;
          kept.push_back(first + (spec_index >= k ? spec_index + 1 : spec_index));
        }
        CHECK(same.changed == kept);
      }
      CHECK(gd::diff(A, edited).status == gd::UpdateStatus::topology_changed);
      CHECK(gd::diff(edited, A).status == gd::UpdateStatus::topology_changed);
      CHECK(A.dump() == before);
    }
    if (plan_gen::has_slices(s)) {  // the graph buffer's allocation, used by the slices: refused
      gd::Graph edited = A;
      CHECK_THROWS_AS(edited.remove_node(edited.node(0)), gd::UsageError);
      CHECK(edited.dump() == before);
    }
  }
}

TEST_CASE("generated plans: equal fingerprints mean diff() finds the plans update-compatible", "[generated][diff]") {
  for_each_edit(with_slices(),
                [](const plan_gen::Spec& a, const gd::Graph& A, const plan_gen::Spec& b, const gd::Graph& B) {
                  const gd::UpdateResult r = gd::diff(A, B);
                  INFO(text(r));
                  const bool same_fingerprint = A.fingerprint() == B.fingerprint();
                  // (but for a change only cudaGraphExecUpdate applies in a plan with graph memory)
                  if (same_fingerprint) {
                    CHECK(r.status == (plan_gen::diff_accepts(a, b) ? gd::UpdateStatus::success
                                                                    : gd::UpdateStatus::not_supported));
                  }
                  // and the reverse, with the model: a shape difference changes the fingerprint
                  CHECK(same_fingerprint == plan_gen::same_shape(a, b));
                  CHECK(static_cast<bool>(r) == plan_gen::diff_accepts(a, b));
                });
}

TEST_CASE("generated plans: diff() refuses exactly the shape changes and lists exactly the changed nodes",
          "[generated][diff]") {
  for_each_edit(with_slices(),
                [](const plan_gen::Spec& a, const gd::Graph& A, const plan_gen::Spec& b, const gd::Graph& B) {
                  // A plan and its copy: nothing to update.
                  for (const gd::UpdateResult& same : {gd::diff(A, A), gd::diff(A, gd::Graph(A))}) {
                    CHECK(same.status == gd::UpdateStatus::success);
                    CHECK(same.changed.empty());
                    CHECK(text(same) == "nothing to update: the parameters are the same");
                  }
                  const gd::UpdateResult r = gd::diff(A, B);
                  INFO(text(r));
                  if (!plan_gen::same_shape(a, b)) {
                    CHECK(r.status != gd::UpdateStatus::success);
                    CHECK(!r.reason.empty());
                    CHECK(r.changed.empty());
                    return;
                  }
                  if (!plan_gen::diff_accepts(a, b)) {  // graph memory: no cudaGraphExecUpdate
                    CHECK(r.status == gd::UpdateStatus::not_supported);
                    return;
                  }
                  REQUIRE(r.status == gd::UpdateStatus::success);
                  CHECK(r.changed == plan_gen::changed_nodes(a, b));
                  // explain() names exactly those nodes, in order, each with what differs.
                  const std::vector<gd::NodeChange> why = gd::explain(A, B);
                  std::vector<std::uint32_t> explained;
                  for (const gd::NodeChange& c : why) {
                    if (!c.node) continue;  // a condition default: not a node
                    explained.push_back(c.node->index);
                    CHECK_FALSE(c.what.empty());
                  }
                  CHECK(explained == r.changed);
                  // "nothing to update" exactly when no node's parameters and no condition default differ (update()
                  // applies a changed default); then the plans describe the same work: equal dumps but for names.
                  const bool nothing = r.changed.empty() && !plan_gen::defaults_differ(a, b);
                  CHECK((text(r) == "nothing to update: the parameters are the same") == nothing);
                  std::vector<std::string> na, nb;
                  plan_gen::names_of(a, na);
                  plan_gen::names_of(b, nb);
                  if (nothing && na == nb) {
                    CHECK(A.dump() == B.dump());
                    CHECK(A.to_dot() == B.to_dot());
                  }
                });
}

TEST_CASE("generated plans: the recorded plan an update leaves describes the template, edit after edit",
          "[generated][update]") {
  // What update() leaves in the executable's recorded plan (Executable::plan(), from which dump(),
  // to_dot() and later diffs read) is computed on the host: updated_copy. After any sequence of
  // updates it must print as the template does.
  World w;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, with_slices());
    plan_gen::Spec s = gen.plan();
    gd::Graph recorded = plan_gen::build(s, w.r);
    INFO("seed " << seed);
    std::string trail;
    for (int step = 0; step < edits_per_seed; ++step) {
      plan_gen::Spec next = s;
      const std::string what = gen.edit(next);
      if (what.empty() || !plan_gen::diff_accepts(s, next)) continue;  // update() would refuse it
      trail += "\n  " + what;
      INFO("edits:" << trail);
      const gd::Graph templ = plan_gen::build(next, w.r);
      std::vector<std::uint32_t> renamed;
      bool conditions = false;
      const gd::UpdateResult r = gd::detail::plan_diff(recorded.impl(), templ.impl(), &renamed, &conditions);
      REQUIRE(r.status == gd::UpdateStatus::success);
      auto copy = gd::detail::updated_copy(recorded.impl(), templ.impl(), r.changed, renamed);
      gd::Graph after(copy.release());
      CHECK(after.dump() == templ.dump());
      CHECK(after.to_dot() == templ.to_dot());
      CHECK(after.fingerprint() == templ.fingerprint());
      const gd::UpdateResult again = gd::diff(after, templ);
      CHECK(again.changed.empty());
      CHECK(text(again) == "nothing to update: the parameters are the same");
      recorded = std::move(after);
      s = next;
    }
  }
}

TEST_CASE("generated plans: a kernel switched to another signature in the recorded plan diffs as a plan built with it",
          "[generated][update][set_kernel]") {
  // The plan side of Executable::set_kernel to another signature: the recorded plan (a sealed copy,
  // as Graph::compile keeps it) takes the new kernel's record (swap_kernel). It must then print,
  // fingerprint and diff as the plan built with that kernel, against the plan before the switch and
  // against random edits of the switched plan.
  World w;
  int switched = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, plan_gen::Options{});
    const plan_gen::Spec a = gen.plan();
    std::vector<std::uint32_t> kernels;
    for (std::uint32_t i = 0; i < a.nodes.size(); ++i) {
      if (a.nodes[i].kind == plan_gen::Kind::kernel) kernels.push_back(i);
    }
    if (kernels.empty()) continue;
    const std::uint32_t at = kernels[gen.below(static_cast<std::uint32_t>(kernels.size()))];
    INFO("seed " << seed << ", node " << at);
    plan_gen::Spec sw = a;
    plan_gen::NodeSpec& n = sw.nodes[at];
    n.fn = 2;
    n.src = (n.buf + 1) % 4;
    const gd::Graph A = plan_gen::build(a, w.r);
    const gd::Graph W = plan_gen::build(sw, w.r);
    gd::Graph recorded(A);
    gd::detail::seal_as_recorded(recorded.impl(), A.id());
    {
      gd::Graph one("setter");
      one.add_kernel(w.r.wide, gd::Launch{n.grid, n.block}, w.r.buffers[n.buf],
                     static_cast<const float*>(w.r.buffers[n.src]), n.scalar, 0.5f, n.count);
      const gd::detail::GraphImpl& s = one.impl();
      const gd::detail::KernelData& k = gd::detail::kernel_of(s, 0);
      (void)gd::detail::swap_kernel(recorded.impl(), at, k.func, gd::detail::kernel_layout(s, 0),
                                    gd::detail::argument_block(s, k), k.launch);
      gd::detail::tidy_arguments(recorded.impl());
    }
    ++switched;
    CHECK(recorded.dump() == W.dump());
    CHECK(recorded.to_dot() == W.to_dot());
    CHECK(recorded.fingerprint() == W.fingerprint());
    // Host callables and captured functions compare by identity: two builds of one spec differ
    // there, and the switched plan differs from W there alone.
    const std::vector<std::uint32_t> identity = gd::diff(A, plan_gen::build(a, w.r)).changed;
    CHECK(gd::diff(recorded, W).changed == identity);
    const gd::UpdateResult back = gd::diff(recorded, A);
    CHECK(back.status == gd::UpdateStatus::function_changed);
    CHECK(text(back) == text(gd::diff(W, A)));
    std::string trail;
    for (int step = 0; step < edits_per_seed; ++step) {
      plan_gen::Spec b = sw;
      const std::string what = gen.edit(b);
      if (what.empty()) continue;
      trail += "\n  " + what;
      INFO("edits:" << trail);
      const gd::Graph B = plan_gen::build(b, w.r);
      const gd::UpdateResult d = gd::diff(W, B);
      const gd::UpdateResult r = gd::diff(recorded, B);
      CHECK(text(r) == text(d));
      CHECK(r.changed == d.changed);
      if (!r) continue;
      std::vector<std::uint32_t> renamed;
      bool conditions = false;
      const gd::UpdateResult pd = gd::detail::plan_diff(recorded.impl(), B.impl(), &renamed, &conditions);
      REQUIRE(pd.changed == r.changed);
      const gd::Graph after(gd::detail::updated_copy(recorded.impl(), B.impl(), pd.changed, renamed).release());
      CHECK(after.dump() == B.dump());
      CHECK(gd::diff(after, B).changed.empty());
    }
  }
  CHECK(switched > static_cast<int>(seeds) / 4);  // plans with a top-level kernel node
}

TEST_CASE("generated plans: a copy never changes when its original, or a handle taken from it, is used",
          "[generated][copy]") {
  World w;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, with_slices());
    const plan_gen::Spec s = gen.plan();
    INFO("seed " << seed);
    for (int direction = 0; direction < 2; ++direction) {
      // direction 0: the original changes (through handles taken before the copy), the copy is
      // watched; 1: the copy changes (through its own handles), the original is watched.
      gd::Graph p = plan_gen::build(s, w.r);
      gd::Node in_body;  // a handle taken inside a body, kept past its builder
      const gd::Condition c = p.add_condition(1);
      p.add_if(c, [&](gd::Graph& b) {
         in_body = b.add_empty().name("kept");
         b.add_empty().name("other");
       }).name("with_kept");
      const std::vector<gd::Node> before_copy = p.nodes();
      gd::Graph q = p;
      gd::Graph& changed = direction == 0 ? p : q;
      const gd::Graph& watched = direction == 0 ? q : p;
      const std::vector<gd::Node> handles = direction == 0 ? before_copy : q.nodes();
      INFO("direction " << direction);
      const std::string dump = watched.dump(), dot = watched.to_dot();
      const std::uint64_t fingerprint = watched.fingerprint();
      const std::string races = watched.check_races().to_string();
      const std::size_t k = gen.below(static_cast<std::uint32_t>(handles.size()));
      gd::detail::name_node(handles[k], "renamed");
      try {
        gd::detail::place_node(handles[k], 1);
      } catch (const gd::UsageError&) {  // a kind that cannot be placed: changes nothing either way
      }
      auto extra = changed.add_empty().name("extra");
      gd::detail::add_edge(handles[k], extra);
      changed.add_host([] {}).name("extra_host").after(extra);
      changed.add_child(changed).name("itself");
      // Edits through the handle kept inside the body are refused (copies share the body).
      CHECK_THROWS_AS(gd::detail::name_node(in_body, "x"), gd::UsageError);
      CHECK_THROWS_AS(gd::detail::declare_accesses(in_body, nullptr, 0), gd::UsageError);
      CHECK(watched.dump() == dump);
      CHECK(watched.to_dot() == dot);
      CHECK(watched.fingerprint() == fingerprint);
      CHECK(watched.check_races().to_string() == races);
    }
  }
}

TEST_CASE("generated plans: dump() and to_dot() are deterministic and name every node", "[generated][print]") {
  World w;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, with_slices());
    plan_gen::Spec s = gen.plan();
    (void)gen.edit(s);
    INFO("seed " << seed);
    const gd::Graph g = plan_gen::build(s, w.r);
    const gd::Graph again = plan_gen::build(s, w.r);
    CHECK(g.dump() == g.dump());
    CHECK(g.dump() == gd::Graph(g).dump());
    CHECK(g.dump() == again.dump());  // host callables differ, and are not printed
    CHECK(g.to_dot() == g.to_dot());
    CHECK(g.to_dot() == again.to_dot());
    CHECK(all_names_in(g.dump(), s, true));
    CHECK(all_names_in(g.to_dot(), s, false));
  }
}

/// The dump line of top-level node i ("  #i kind ..."), without its newline.
std::string dump_line(const std::string& dump, std::uint32_t i) {
  const std::string start = "\n  #" + std::to_string(i) + " ";
  const std::size_t at = dump.find(start);
  if (at == std::string::npos) return {};
  return dump.substr(at + 1, dump.find('\n', at + 1) - at - 1);
}

/// Checks the getters of node i of `g` and of `copy` (a copy of g) against `n`, the node's spec, and
/// against g's dump line.
void check_getters(const gd::Graph& g, const gd::Graph& copy, std::uint32_t i, const plan_gen::NodeSpec& n,
                   const plan_gen::Resources& r, const std::string& line) {
  using plan_gen::Kind;
  CHECK(g.owns(g.node(i)));
  CHECK_FALSE(copy.owns(g.node(i)));
  if (n.kind == Kind::memset) {
    for (const gd::Graph* p : {&g, &copy}) {
      const gd::MemsetParams m = p->memset_of(gd::node_cast<gd::MemsetNode>(p->node(i)));
      std::uint32_t bits = 0;
      std::memcpy(&bits, &n.scalar, sizeof bits);
      CHECK(m.dst == r.buffers[n.buf]);
      CHECK(m.value == bits);
      CHECK(m.element_size == 4);
      CHECK(m.width == static_cast<std::size_t>(n.count));
      CHECK(m.height == 1);
      CHECK(line.find(fmt::format("4-byte elements, {} x 1", m.width)) != std::string::npos);
    }
  } else if (n.kind == Kind::memcpy) {
    for (const gd::Graph* p : {&g, &copy}) {
      const gd::MemcpyParams m = p->memcpy_of(gd::node_cast<gd::MemcpyNode>(p->node(i)));
      CHECK(m.dst == r.buffers[n.buf]);
      CHECK(m.src == r.buffers[n.src]);
      CHECK(m.bytes == static_cast<std::size_t>(n.count) * sizeof(float));
      CHECK(line.find(fmt::format("{} x 1 x 1 bytes", m.bytes)) != std::string::npos);
    }
  } else if (n.kind == Kind::host) {
    CHECK(g.has_callable(gd::node_cast<gd::HostNode>(g.node(i))));
    CHECK(copy.has_callable(gd::node_cast<gd::HostNode>(copy.node(i))));
    CHECK(line.find(": a callable") != std::string::npos);
  } else if (n.kind == Kind::event_record || n.kind == Kind::event_wait) {
    const gd::Event& e = r.events[static_cast<std::size_t>(n.event)];
    if (n.kind == Kind::event_record) {
      CHECK(g.event_of(gd::node_cast<gd::EventRecordNode>(g.node(i))).state() == e.state());
      CHECK(copy.event_of(gd::node_cast<gd::EventRecordNode>(copy.node(i))).state() == e.state());
    } else {
      CHECK(g.event_of(gd::node_cast<gd::EventWaitNode>(g.node(i))).state() == e.state());
      CHECK(copy.event_of(gd::node_cast<gd::EventWaitNode>(copy.node(i))).state() == e.state());
    }
    CHECK(line.find(": Event of flags") != std::string::npos);
  } else if (n.kind == Kind::child) {
    CHECK(g.child_plan(gd::node_cast<gd::ChildNode>(g.node(i))).node_count() == n.bodies[0].nodes.size());
  }
}

TEST_CASE("generated plans: the getters of a plan and of its copy return what the plan was built from",
          "[generated][getters]") {
  World w;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    plan_gen::Generator gen(seed, plan_gen::Options{});
    plan_gen::Spec s = gen.plan();
    (void)gen.edit(s);
    INFO("seed " << seed);
    const gd::Graph g = plan_gen::build(s, w.r);
    const gd::Graph copy = g;
    const std::string dump = g.dump();
    REQUIRE(g.node_count() == s.nodes.size());
    for (std::uint32_t i = 0; i < s.nodes.size(); ++i) {
      INFO("node " << i);
      check_getters(g, copy, i, s.nodes[i], w.r, dump_line(dump, i));
    }
  }
}

// ---- the defects the generated cases found, each pinned by name -----------------------------------

TEST_CASE("diff() refuses a cluster shape change as update() does, and the fingerprint tells it",
          "[generated][diff][attributes]") {
  float x[64] = {};
  auto plan = [&](unsigned cluster) {
    gd::Graph g("clusters");
    gd::Launch l{4, 64};
    if (cluster != 0) l = l.with_cluster(cluster);
    g.add_kernel(kernel_a, l, x, 1.0f, 64).name("probe");
    return g;
  };
  const gd::Graph four = plan(4), two = plan(2), none = plan(0);
  for (const gd::Graph* t : {&two, &none}) {
    const gd::UpdateResult r = gd::diff(four, *t);
    CHECK(r.status == gd::UpdateStatus::attributes_changed);
    REQUIRE(r.node.has_value());
    CHECK(r.node->name == "probe");
    CHECK(four.fingerprint() != t->fingerprint());
  }
  CHECK(gd::diff(four, two).reason ==
        "kernel node 'probe' (#0): its cluster or cooperative launch changed (cluster (4,1,1), not cooperative to "
        "cluster (2,1,1), not cooperative), which CUDA cannot patch in an executable; compile the new plan instead");
  CHECK(gd::diff(four, plan(4)).status == gd::UpdateStatus::success);
}

TEST_CASE("diff() does not say 'nothing to update' when only a condition's default changed", "[generated][diff]") {
  auto plan = [](unsigned def) {
    gd::Graph g("cond");
    const gd::Condition c = g.add_condition(def);
    g.add_if(c, [](gd::Graph& b) { b.add_empty(); }).name("branch");
    return g;
  };
  const gd::UpdateResult r = gd::diff(plan(0), plan(1));
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed.empty());
  CHECK(r.to_string() == "update possible: condition #0 of graph 'cond' changes its default (0 to 1)");
  CHECK(gd::diff(plan(1), plan(1)).to_string() == "nothing to update: the parameters are the same");
}

TEST_CASE("a handle taken inside a body cannot declare accesses once the builder returned (a copy shares the body)",
          "[generated][copy][races]") {
  float x[64] = {};
  gd::Graph p("p");
  gd::EmptyNode first, second;
  const gd::Condition c = p.add_condition(1);
  p.add_if(c, [&](gd::Graph& b) {
     first = b.add_empty().name("first");
     second = b.add_empty().name("second");
   }).name("branch");
  const gd::Graph q = p;
  const std::string before = q.check_races().to_string();
  CHECK_THROWS_WITH(first.accesses(gd::writes(x, 4)),
                    "graphdsl: empty node 'first' (#0) is in conditional body 'if body', which is fixed once its "
                    "builder returns (copies of the plan share it); declaring its accesses is allowed only inside "
                    "the builder");
  CHECK_THROWS_AS(second.accesses(gd::writes(x, 4)), gd::UsageError);
  CHECK(q.check_races().to_string() == before);
  CHECK(q.check_races().races_found == 0);
}

TEST_CASE("diff() refuses a change only cudaGraphExecUpdate makes in a plan it cannot take, as update() does",
          "[generated][diff]") {
  // Per-node setters cannot change a kernel's priority; cudaGraphExecUpdate cannot take a graph with
  // a device-updatable node, nor one that allocates graph memory: update() refuses under every
  // policy, and diff() says so with automatic's status and reason.
  float x[64] = {};
  auto plan = [&](int priority, bool device_updatable, bool allocates) {
    gd::Graph g("g");
    gd::Launch first{1, 64};
    first.priority = priority;
    g.add_kernel(kernel_a, first, x, 1.0f, 64).name("first");
    gd::Launch second{1, 64};
    if (device_updatable) second.with_device_updatable();
    g.add_kernel(kernel_b, second, x, 2.0f, 64).name("second");
    if (allocates) g.add_mem_alloc<float>(64).node.name("scratch");
    return g;
  };
  const gd::UpdateResult plain = gd::diff(plan(0, false, false), plan(1, false, false));
  CHECK(plain.status == gd::UpdateStatus::success);
  CHECK(plain.changed == std::vector<std::uint32_t>{0});
  const gd::UpdateResult updatable = gd::diff(plan(0, true, false), plan(1, true, false));
  CHECK(updatable.status == gd::UpdateStatus::not_supported);
  REQUIRE(updatable.node.has_value());
  CHECK(updatable.node->name == "second");
  CHECK(updatable.reason ==
        "graph 'g' holds device-updatable kernel node 'second' (#1), and CUDA does not allow cudaGraphExecUpdate on a "
        "graph with device-updatable nodes; only changes per-node setters make (kernel arguments, grid, block, shared "
        "memory; memset and memcpy parameters) can be applied to it: compile the new plan instead");
  CHECK(gd::diff(plan(0, false, true), plan(1, false, true)).status == gd::UpdateStatus::not_supported);
  // A change per-node setters make is still possible in both.
  const gd::Graph before = plan(0, true, true);
  gd::Graph after("g");
  {
    gd::Launch first{1, 64};
    after.add_kernel(kernel_a, first, x, 3.0f, 64).name("first");
    gd::Launch second{1, 64};
    second.with_device_updatable();
    after.add_kernel(kernel_b, second, x, 2.0f, 64).name("second");
    after.add_mem_alloc<float>(64).node.name("scratch");
  }
  CHECK(gd::diff(before, after).status == gd::UpdateStatus::success);
}

}  // namespace generated_plans_test
