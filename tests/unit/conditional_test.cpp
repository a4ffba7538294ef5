// Unit tests of conditional nodes on the host: building, body rules, condition scope and usage,
// dumps, diffs. No CUDA call is made (checked in each error case).
#include <functional>

#include <cuda_runtime_api.h>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "plan_checks.hpp"
#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)

namespace gd = graphdsl;
using test_support::require_invalid;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace conditional_test {

namespace {
void step(float*, int) {}
void set_flag(cudaGraphConditionalHandle, const int*) {}
void count(unsigned long long*, int) {}
float* const X = reinterpret_cast<float*>(0x1000);
int* const F = reinterpret_cast<int*>(0x2000);

}  // namespace

TEST_CASE("a body copied out with body_plan() is refused where it would bind another plan's Condition by position",
          "[conditional][validate]") {
  gd::Graph g("solver");
  const gd::Condition first = g.add_condition(0);
  g.add_if(first, [&](gd::Graph& body) { body.add_kernel(step, gd::Launch{1, 32}, X, 32); });
  const gd::Condition more = g.add_condition(1);
  auto loop = g.add_while(more, [&](gd::Graph& body) {
    body.add_kernel(set_flag, gd::Launch{1, 1}, more, F).name("check");
  });
  const gd::Graph fragment = g.body_plan(loop, 0);

  // Another plan that declares two conditions: position 1 is its own 'other', not 'more'.
  gd::Graph h("elsewhere");
  const gd::Condition own = h.add_condition(0);
  h.add_if(own, [&](gd::Graph& body) { body.add_kernel(step, gd::Launch{1, 32}, X, 32); });
  const gd::Condition other = h.add_condition(1);
  h.add_while(other, [&](gd::Graph& body) { body.add_kernel(set_flag, gd::Launch{1, 1}, other, F); });
  h.add_child(fragment).name("copied");
  require_invalid(h,
                  "in child node 'copied' (#2) of graph 'elsewhere': graph 'while body' was copied out of another plan "
                  "(body_plan / child_plan) and refers to condition number 1 of the plan 1 level out by position; "
                  "graph 'elsewhere' declares another Condition there, which its nodes would read and set instead "
                  "of their own (embed such a copy only in the plan it came from, or a copy of it)");

  // Where it came from, or a copy of that plan, the same Condition is at that position.
  gd::Graph copy = g;
  copy.add_child(fragment).name("copied back");
  CHECK_NOTHROW(copy.validate());
  gd::Graph again = copy;
  CHECK_NOTHROW(again.validate());
  // And the copied-out plan keeps what it refers to in its own copies.
  gd::Graph fragment_copy = fragment;
  h.add_child(fragment_copy);
  CHECK_THROWS_AS(h.validate(), gd::UsageError);
}

TEST_CASE("a while loop with its condition set inside the body validates and prints", "[conditional][dump]") {
  gd::Graph g("solver");
  const gd::Condition more = g.add_condition(1);
  auto init = g.add_memset(F, 0, 1).name("init");
  auto loop = g.add_while(more, [&](gd::Graph& body) {
                 auto s = body.add_kernel(step, gd::Launch{1, 32}, X, 32).name("step");
                 body.add_kernel(set_flag, gd::Launch{1, 1}, more, F).name("check").after(s);
               })
                  .name("loop")
                  .after(init);
  CHECK_NOTHROW(g.validate());
  CHECK(g.node_count() == 2);
  CHECK(loop.kind() == gd::NodeKind::conditional);
  CHECK(g.conditional_type(loop) == gd::ConditionalType::while_loop);
  const gd::Graph body = g.body_plan(loop, 0);
  CHECK(body.name() == "while body");
  CHECK(body.node_count() == 2);
  CHECK(g.dump() ==
        "graph 'solver': 2 nodes, 1 edges\n"
        "  condition #0: default 1 (assigned at each launch)\n"
        "  #0 memset 'init': value 0 (int32), 4-byte elements, 1 x 1\n"
        "  #1 conditional 'loop': while, 1 body, condition #0; after 'init'\n"
        "      body 0 ('while body'):\n"
        "        #0 kernel 'step': grid (1,1,1) block (32,1,1) shared 0 B, 2 args (12 B)\n"
        "        #1 kernel 'check': grid (1,1,1) block (1,1,1) shared 0 B, 2 args (16 B), sets condition #0 of the "
        "plan 1 level out; after 'step'\n");
  const std::string dot = g.to_dot();
  CHECK(dot.find("n1 [label=\"loop\\nconditional\", shape=octagon];") != std::string::npos);
  CHECK(dot.find("subgraph cluster_n1_b0 {") != std::string::npos);
  CHECK(dot.find("n1 -> n1_b0_0 [style=dotted, arrowhead=none];") != std::string::npos);
}

TEST_CASE("every conditional shape builds its bodies", "[conditional]") {
  gd::Graph g("shapes");
  const auto c1 = g.add_condition(), c2 = g.add_condition(), c3 = g.add_condition(2), c4 = g.add_condition(0, false);
  int then_built = 0, else_built = 0;
  std::vector<unsigned> cases;
  auto a = g.add_if(c1, [&](gd::Graph& b) { b.add_empty(); }).name("if");
  auto b = g.add_if_else(
                c2, [&](gd::Graph& t) { ++then_built, t.add_empty(); }, [&](gd::Graph& e) { ++else_built, e.add_empty(); })
               .name("if_else");
  auto c = g.add_switch(
                c3, [&](gd::Graph& s) { cases.push_back(0), s.add_empty(); },
                [&](gd::Graph& s) { cases.push_back(1), s.add_empty(); }, [&](gd::Graph& s) { cases.push_back(2), s.add_empty(); })
               .name("switch");
  auto d = g.add_conditional(gd::ConditionalType::switch_case, c4, 5, [&](unsigned i, gd::Graph& s) {
    s.add_kernel(step, gd::Launch{1, 32}, X, static_cast<int>(i));
  });
  CHECK(then_built == 1);
  CHECK(else_built == 1);
  CHECK(cases == std::vector<unsigned>{0, 1, 2});
  CHECK(g.conditional_type(a) == gd::ConditionalType::if_then);
  CHECK(g.conditional_type(b) == gd::ConditionalType::if_else);
  CHECK(g.body_plan(b, 1).name() == "else body");
  CHECK(g.conditional_type(c) == gd::ConditionalType::switch_case);
  CHECK(g.body_plan(c, 2).name() == "switch case 2");
  CHECK(g.body_plan(d, 4).node_count() == 1);
  REQUIRE_THROWS_MATCHES(g.body_plan(d, 5), gd::UsageError,
                         message_is("graphdsl: conditional node #3 has 5 bodies; there is no body 5"));
  CHECK_NOTHROW(g.validate());
}

namespace {
void build_empty_body(unsigned, gd::Graph& b) { b.add_empty(); }
}  // namespace

// add_conditional took a std::function before it became a template (issue 12, item 5: include
// cost); every callable that converted to that std::function must still work, and an empty one
// still throws std::bad_function_call.
TEST_CASE("add_conditional takes any callable std::function took", "[conditional]") {
  gd::Graph g("callables");
  const auto if_then = gd::ConditionalType::if_then;
  SECTION("a function and a function pointer") {
    g.add_conditional(if_then, g.add_condition(), 1, build_empty_body);
    void (*fp)(unsigned, gd::Graph&) = &build_empty_body;
    g.add_conditional(if_then, g.add_condition(), 1, fp);
    CHECK(g.body_plan(gd::node_cast<gd::ConditionalNode>(g.node(1)), 0).node_count() == 1);
  }
  SECTION("a std::function, an lvalue and a temporary") {
    std::function<void(unsigned, gd::Graph&)> f = build_empty_body;
    g.add_conditional(if_then, g.add_condition(), 1, f);
    g.add_conditional(if_then, g.add_condition(), 1, std::function<void(unsigned, gd::Graph&)>(f));
    CHECK(g.node_count() == 2);
  }
  SECTION("a const function object whose call operator is not const, and one returning a value") {
    int calls = 0;
    const auto counting = [calls](unsigned, gd::Graph& b) mutable { ++calls, b.add_empty(); };
    g.add_conditional(if_then, g.add_condition(), 1, counting);
    g.add_conditional(gd::ConditionalType::switch_case, g.add_condition(), 2,
                      [&](unsigned i, gd::Graph& b) { return ++calls + static_cast<int>(i) + b.add_empty().index(); });
    CHECK(calls == 2);
    CHECK(g.node_count() == 2);
  }
  SECTION("an empty std::function and a null function pointer throw std::bad_function_call, the plan unchanged") {
    CHECK_THROWS_AS(g.add_conditional(if_then, g.add_condition(), 1, std::function<void(unsigned, gd::Graph&)>{}),
                    std::bad_function_call);
    void (*null)(unsigned, gd::Graph&) = nullptr;
    CHECK_THROWS_AS(g.add_conditional(if_then, g.add_condition(), 1, null), std::bad_function_call);
    CHECK(g.node_count() == 0);
  }
}

TEST_CASE("bodies may not hold host or event nodes", "[conditional][errors]") {
  gd::Graph g("g");
  const auto c = g.add_condition(1);
  g.add_while(c, [](gd::Graph& body) {
     auto k = body.add_kernel(step, gd::Launch{1, 32}, X, 32).name("k");
     body.add_host([] {}).name("cb").after(k);
   }).name("loop");
  require_invalid(g,
                  "in body 0 (while body) of conditional node 'loop' (#0) of graph 'g': host node 'cb' (#1): host "
                  "nodes are not allowed in a conditional body (bodies may hold kernel, empty, child, memset, memcpy "
                  "and conditional nodes)");

  gd::Graph h("h");
  const auto c2 = h.add_condition(1);
  gd::Graph inner("inner");
  inner.add_event_record(gd::Event{}).name("rec");
  h.add_if(c2, [&](gd::Graph& body) { body.add_child(inner).name("sub"); }).name("maybe");
  require_invalid(h,
                  "in body 0 (if body) of conditional node 'maybe' (#0) of graph 'h': in child node 'sub' (#0) of "
                  "graph 'if body': event_record node 'rec' (#0): event_record nodes are not allowed in a conditional "
                  "body (bodies may hold kernel, empty, child, memset, memcpy and conditional nodes)");
}

TEST_CASE("a condition must be used by exactly one conditional node", "[conditional][errors]") {
  gd::Graph unused("u");
  unused.add_condition(3);
  unused.add_empty();
  require_invalid(unused,
                  "graph 'u' declares a Condition (number 0, default 3) that no conditional node uses; CUDA refuses to "
                  "instantiate a graph with an unused condition");

  gd::Graph twice("t");
  const auto c = twice.add_condition(1);
  twice.add_if(c, [](gd::Graph& b) { b.add_empty(); }).name("first");
  twice.add_if(c, [](gd::Graph& b) { b.add_empty(); }).name("second");
  require_invalid(twice,
                  "conditional node 'first' (#0) and conditional node 'second' (#1) use the same Condition; each "
                  "condition drives exactly one conditional node (declare one per node with add_condition)");
}

TEST_CASE("a condition of another plan is refused where it is used", "[conditional][errors]") {
  gd::Graph owner("owner");
  const auto c = owner.add_condition(1);
  gd::Graph other("other");
  other.add_while(c, [](gd::Graph& b) { b.add_empty(); }).name("loop");
  require_invalid(other,
                  "conditional node 'loop' (#0): its Condition is not declared in graph 'other' or a plan enclosing "
                  "it (an empty Condition, or one declared by another plan)");

  gd::Graph kernel_user("k");
  kernel_user.add_kernel(set_flag, gd::Launch{1, 1}, c, F).name("set");
  require_invalid(kernel_user,
                  "kernel node 'set' (#0): a Condition argument is not declared in graph 'k' or a plan enclosing it "
                  "(an empty Condition, or one declared by another plan)");

  gd::Graph empty_cond("e");
  empty_cond.add_if(gd::Condition{}, [](gd::Graph& b) { b.add_empty(); }).name("if");
  require_invalid(empty_cond,
                  "conditional node 'if' (#0): its Condition is not declared in graph 'e' or a plan enclosing it (an "
                  "empty Condition, or one declared by another plan)");
}

TEST_CASE("a body compiled on its own cannot see the enclosing plan's condition", "[conditional][errors]") {
  gd::Graph g("g");
  const auto c = g.add_condition(1);
  auto loop = g.add_while(c, [&](gd::Graph& b) { b.add_kernel(set_flag, gd::Launch{1, 1}, c, F).name("set"); });
  CHECK_NOTHROW(g.validate());
  require_invalid(g.body_plan(loop, 0),
                  "kernel node 'set' (#0): a Condition argument belongs to a plan enclosing this one, which is being "
                  "compiled without it");
}

TEST_CASE("a switch needs a body and a child plan may not hold conditionals", "[conditional][errors]") {
  gd::Graph g("g");
  const auto c = g.add_condition();
  g.add_switch(c).name("sw");
  require_invalid(g, "conditional node 'sw' (#0): a switch node with 0 bodies; a switch needs at least one body");

  gd::Graph inner("inner");
  const auto ic = inner.add_condition(1);
  inner.add_if(ic, [](gd::Graph& b) { b.add_empty(); });
  CHECK_NOTHROW(inner.validate());
  gd::Graph outer("outer");
  outer.add_child(inner).name("sub");
  require_invalid(outer,
                  "child node 'sub' (#0): child plan 'inner' contains a conditional node; CUDA cannot embed "
                  "conditional nodes in a child graph (add the conditional to the enclosing plan instead)");
}

TEST_CASE("nested conditionals resolve conditions of every enclosing plan", "[conditional]") {
  gd::Graph g("g");
  const auto outer = g.add_condition(1);
  g.add_while(outer, [&](gd::Graph& body) {
     const auto inner = body.add_condition(0);
     auto k = body.add_kernel(count, gd::Launch{1, 1}, reinterpret_cast<unsigned long long*>(X), 1).name("count");
     auto branch = body.add_if(inner, [&](gd::Graph& then) {
                         then.add_kernel(set_flag, gd::Launch{1, 1}, outer, F).name("stop");  // two levels out
                       })
                       .after(k);
     body.add_kernel(set_flag, gd::Launch{1, 1}, inner, F).name("decide").before(branch);
   }).name("loop");
  CHECK_NOTHROW(g.validate());
  CHECK(g.dump().find("#0 kernel 'stop': grid (1,1,1) block (1,1,1) shared 0 B, 2 args (16 B), sets condition #0 of "
                      "the plan 2 levels out") != std::string::npos);
}

TEST_CASE("add_set_condition adds the library's kernel with the comparison", "[conditional]") {
  gd::Graph g("g");
  const auto c = g.add_condition(1);
  float* residual = X;
  g.add_while(c, [&](gd::Graph& body) {
     body.add_set_condition(c, static_cast<const float*>(residual), gd::Compare::greater, 1e-6f).name("converged?");
   }).name("loop");
  CHECK_NOTHROW(g.validate());
  const gd::Graph body = g.body_plan(gd::ConditionalNode(g.node(0).ref()), 0);
  const auto& k = body.impl().kernels[0];
  CHECK(k.func == reinterpret_cast<const void*>(gd::detail::set_condition_kernel<float>()));
  const auto& links = body.impl().kernel_links[0];
  CHECK(links.ph_count == 1);
  int op = -1;
  std::memcpy(&op, body.impl().args.data() + k.args + links.layout->offsets[2], sizeof op);
  CHECK(op == static_cast<int>(gd::Compare::greater));
  CHECK(std::string(gd::to_string(gd::Compare::greater_equal)) == ">=");
  CHECK(std::string(gd::to_string(gd::ConditionalType::while_loop)) == "while");
}

TEST_CASE("the diff treats conditional shape as structure and body parameters as changes", "[conditional][update][diff]") {
  auto build = [](bool as_if, int n) {
    gd::Graph g("g");
    const auto c = g.add_condition(1);
    auto body = [&](gd::Graph& b) {
      auto k = b.add_kernel(step, gd::Launch{1, 32}, X, n).name("step");
      b.add_kernel(set_flag, gd::Launch{1, 1}, c, F).name("check").after(k);
    };
    if (as_if) {
      g.add_if(c, body).name("loop");
    } else {
      g.add_while(c, body).name("loop");
    }
    return g;
  };
  const auto calls = gd::debug::cuda_calls();
  CHECK(gd::diff(build(false, 32), build(false, 32)).changed.empty());
  CHECK(gd::diff(build(false, 32), build(false, 64)).changed == std::vector<std::uint32_t>{0});
  const gd::UpdateResult r = gd::diff(build(false, 32), build(true, 32));
  CHECK(r.status == gd::UpdateStatus::not_supported);
  CHECK(r.reason ==
        "conditional node 'loop' (#0) is while (1 body) in the executable but if (1 body) in the template (or uses "
        "another condition); CUDA cannot change a conditional node's shape");
  CHECK(build(false, 32).fingerprint() == build(false, 64).fingerprint());
  CHECK(build(false, 32).fingerprint() != build(true, 32).fingerprint());
  CHECK(gd::debug::cuda_calls() == calls);
}

}  // namespace conditional_test
