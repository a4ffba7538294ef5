// The misuse catalogue (shared/reference/misuse-catalogue.md) as tests: one TEST_CASE per misuse
// that graphdsl catches while a plan is built, validated or compiled, before any CUDA call. Each
// case is named after its catalogue row ("row 46: ...") and tagged with the row's mark: [PB]
// (caught while building), [CT] (a compile-time row whose raw or runtime form is caught while
// building), [UB-doc] (a row the catalogue only documents, which graphdsl catches anyway).
//
// Every case asserts the UsageError type, the exact message, the node (or plan) names quoted in it
// and that no CUDA call was made (misuse_catalogue.hpp); misuse_catalogue_figure.cpp prints the count.
// docs/reliability.md maps each row to its cases and lists the rows not caught here, with the reason.
#include <functional>
#include <string>

#include <cuda_runtime_api.h>

#include "misuse_catalogue.hpp"

namespace gd = graphdsl;
using catalogue::expect_invalid;
using catalogue::expect_usage_error;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace misuse_catalogue_test {

namespace {

void set_flag(cudaGraphConditionalHandle, int) {}

/// How messages name a plan when two plans are involved: 'name' (plan id N).
std::string plan(const gd::Graph& g) { return "'" + g.name() + "' (plan id " + std::to_string(g.id()) + ")"; }

/// The rule text that follows a body-kind refusal.
std::string not_in_body(const std::string& kind) {
  return kind + " nodes are not allowed in a conditional body (bodies may hold kernel, empty, child, memset, memcpy "
                "and conditional nodes)";
}

const std::string zero_dimension = " has a zero dimension; every dimension must be at least 1";
const std::string memset_widths = "; CUDA memset nodes take 1, 2 or 4-byte elements";
const std::string memset_at_least = "; a memset node must set at least one element";
const std::string memcpy_at_least = "; a memcpy node must copy at least one byte";
const std::string empty_callable = "the callable is empty (a null function pointer or an empty std::function)";
const std::string empty_event = "the Event is empty (default-constructed); make one with Event::create()";
const std::string same_condition =
    " use the same Condition; each condition drives exactly one conditional node (declare one per node with "
    "add_condition)";
const std::string without_enclosing = " belongs to a plan enclosing this one, which is being compiled without it";
const std::string used_here =
    "(a buffer is used in the plan that allocates it, in that plan's conditional bodies and in child plans added to it)";
const std::string freed_here = "(a buffer is freed in the plan that allocates it)";
const std::string cannot_embed_memory =
    " node; CUDA cannot embed graph allocations in a child graph by copy (allocate in the enclosing plan instead)";
const std::string cannot_embed_conditional = "contains a conditional node; CUDA cannot embed conditional nodes in a "
                                             "child graph (add the conditional to the enclosing plan instead)";
const std::string device_launch_kinds =
    " cannot be part of a device-launchable executable (device_launch allows only kernel, memcpy, memset and child "
    "nodes)";

/// The rule text that follows a Condition that plan `name` cannot see.
std::string not_declared_in(const std::string& name) {
  return " is not declared in graph '" + name + "' or a plan enclosing it (an empty Condition, or one declared by "
         "another plan)";
}

/// Two plans: 'producer' holding kernel node 'load', 'consumer' holding empty node 'use'.
struct TwoPlans {
  gd::Graph producer{"producer"};
  gd::Graph consumer{"consumer"};
  gd::KernelNode<> load = producer.add_kernel(unit::no_args, gd::Launch{}).name("load");
  gd::EmptyNode use = consumer.add_empty().name("use");

  /// The refusal of the edge 'load' -> 'use' (or 'use' -> 'load').
  std::string edge_refusal(bool load_first) const {
    const std::string l = "kernel node 'load' (#0) belongs to graph " + plan(producer);
    const std::string u = "empty node 'use' (#0) belongs to graph " + plan(consumer);
    return (load_first ? "edge 'load' -> 'use': " + l + " but " + u : "edge 'use' -> 'load': " + u + " but " + l) +
           "; an edge must join two nodes of the same graph";
  }
  /// The refusal of 'load' given to the consumer plan.
  std::string load_not_in_consumer() const {
    return "kernel node 'load' (#0) belongs to graph " + plan(producer) + ", not to graph " + plan(consumer);
  }
};

/// Stand-in buffers: plans store their addresses and never touch them.
unit::Buffers buf;

/// A plan "g" whose one node, made by `add(g)` and named `name`, is refused with `message`.
template <class Add>
void expect_node_refused(const std::string& name, Add&& add, const std::string& message) {
  gd::Graph g("g");
  add(g).name(name);
  expect_invalid(g, message, {name});
}

/// Adds two nodes, 'p' then 'q', that form a cycle.
void add_two_node_cycle(gd::Graph& g) {
  auto p = g.add_empty().name("p");
  auto q = g.add_empty().name("q").after(p);
  p.after(q);
}

/// A plan holding the mem_alloc node 'a' of a 64-float buffer (returned through `buffer`).
gd::Graph with_buffer(const std::string& name, gd::GraphBuffer<float>& buffer) {
  gd::Graph g(name);
  auto alloc = g.add_mem_alloc<float>(64);
  alloc.node.name("a");
  buffer = alloc.buffer;
  return g;
}

/// A buffer that a plan of its own, 'owner', allocates: "a buffer of another plan".
struct ForeignBuffer {
  gd::GraphBuffer<float> buffer;
  gd::Graph owner = with_buffer("owner", buffer);
};

/// Plan "g" holding mem_alloc node 'a' (#0) of the buffer `tmp`.
struct Allocated {
  gd::GraphBuffer<float> tmp;
  gd::Graph g = with_buffer("g", tmp);
  gd::Node alloc = g.node(0);
};

/// The refusal of `user` (described), which uses the buffer of 'a' but is not ordered after it.
std::string not_after_alloc(const std::string& user, const std::string& name) {
  return user + " uses the buffer of mem_alloc node 'a' (#0) but is not ordered after it; add edges so that 'a' runs "
                "before '" + name + "'";
}

/// The refusal of `user` (described), which uses the buffer of 'a' but is not ordered before its free 'free' (#1).
std::string not_before_free(const std::string& user, const std::string& name) {
  return user + " uses the buffer of mem_alloc node 'a' (#0) but is not ordered before its free, mem_free node "
                "'free' (#1); add edges so that '" + name + "' runs before 'free'";
}

/// A plan whose IF node 'maybe' has `fill` build its body; the condition is the plan's own.
gd::Graph with_if(const std::string& name, const std::function<void(gd::Graph&)>& fill) {
  gd::Graph g(name);
  const gd::Condition c = g.add_condition(1);
  g.add_if(c, fill).name("maybe");
  return g;
}

/// The same for a WHILE node 'loop'.
gd::Graph with_while(const std::string& name, const std::function<void(gd::Graph&)>& fill) {
  gd::Graph g(name);
  const gd::Condition c = g.add_condition(1);
  g.add_while(c, fill).name("loop");
  return g;
}

/// `inner` embedded as child node 'sub' of a plan named `name`.
gd::Graph embedding(const std::string& name, const gd::Graph& inner) {
  gd::Graph g(name);
  g.add_child(inner).name("sub");
  return g;
}

/// A plan named `name` holding a conditional node 'x' of `type` built with `size` empty bodies.
gd::Graph conditional_of_size(const std::string& name, gd::ConditionalType type, unsigned size) {
  gd::Graph g(name);
  const gd::Condition c = g.add_condition(1);
  g.add_conditional(type, c, size, [](unsigned, gd::Graph& b) { b.add_empty(); }).name("x");
  return g;
}

const gd::InstantiateOptions device_launch = gd::InstantiateOptions{}.device_launch();

/// instantiate(device_launch) refuses `g` with `message`, without a CUDA call.
void expect_device_launch_refused(const gd::Graph& g, const std::string& message,
                                  std::initializer_list<std::string_view> names) {
  expect_usage_error([&] { (void)g.instantiate(device_launch); }, message, names);
}

}  // namespace

// ---- graph structure and edges -----------------------------------------------------------------

MISUSE_CASE(1, "PB", "a cycle of two nodes is named in run order") {
  gd::Graph g("g");
  auto load = g.add_empty().name("load");
  auto scale = g.add_kernel(unit::no_args, gd::Launch{}).name("scale").after(load);
  load.after(scale);
  expect_invalid(g, "cycle: 'load' -> 'scale' -> 'load'", {"load", "scale"});
}

MISUSE_CASE(1, "PB", "a cycle of three nodes is named in run order") {
  gd::Graph g("g");
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b").after(a);
  auto c = g.add_empty().name("c").after(b);
  a.after(c);
  expect_invalid(g, "cycle: 'a' -> 'b' -> 'c' -> 'a'", {"a", "b", "c"});
}

MISUSE_CASE(1, "PB", "a cycle inside a child plan names the child node") {
  gd::Graph body("body");
  add_two_node_cycle(body);
  expect_invalid(embedding("main", body),
                 "in child node 'sub' (#0) of graph 'main': cycle: 'p' -> 'q' -> 'p'", {"sub", "p", "q"});
}

MISUSE_CASE(1, "PB", "a cycle inside a conditional body names the conditional node") {
  expect_invalid(with_while("g", add_two_node_cycle),
                 "in body 0 (while body) of conditional node 'loop' (#0) of graph 'g': cycle: 'p' -> 'q' -> 'p'",
                 {"loop", "p", "q"});
}

MISUSE_CASE(2, "PB", "a self edge through after()") {
  gd::Graph g("g");
  auto a = g.add_empty().name("a");
  expect_usage_error([&] { a.after(a); }, "self edge: empty node 'a' (#0) cannot run after itself", {"a"});
}

MISUSE_CASE(2, "PB", "a self edge through before()") {
  gd::Graph g("g");
  auto k = g.add_kernel(unit::no_args, gd::Launch{}).name("k");
  expect_usage_error([&] { k.before(k); }, "self edge: kernel node 'k' (#0) cannot run after itself", {"k"});
}

MISUSE_CASE(2, "PB", "a self edge through Graph::add_edge") {
  gd::Graph g("g");
  g.add_empty();
  auto m = g.add_memset(buf.flags, 0, 64).name("clear");
  expect_usage_error([&] { g.add_edge(m, m); }, "self edge: memset node 'clear' (#1) cannot run after itself",
                     {"clear"});
}

MISUSE_CASE(5, "PB", "after() with a node of another graph names both graphs") {
  const TwoPlans t;
  expect_usage_error([&] { t.use.after(t.load); }, t.edge_refusal(true), {"load", "use", "producer", "consumer"});
}

MISUSE_CASE(5, "PB", "before() with a node of another graph names both graphs") {
  const TwoPlans t;
  expect_usage_error([&] { t.use.before(t.load); }, t.edge_refusal(false), {"load", "use", "producer", "consumer"});
}

MISUSE_CASE(5, "PB", "Graph::add_edge with a node of another graph") {
  TwoPlans t;
  expect_usage_error([&] { t.consumer.add_edge(t.load, t.use); }, t.load_not_in_consumer(),
                     {"load", "producer", "consumer"});
}

MISUSE_CASE(5, "PB", "launch_of() with a kernel node of another graph") {
  const TwoPlans t;
  expect_usage_error([&] { (void)t.consumer.launch_of(t.load); }, t.load_not_in_consumer(),
                     {"load", "producer", "consumer"});
}

MISUSE_CASE(5, "PB", "a handle of the original plan used with its copy (same name, other plan id)") {
  gd::Graph original("g");
  auto a = original.add_empty().name("a");
  original.add_empty().name("b").after(a);
  gd::Graph copy = original;
  expect_usage_error([&] { copy.add_edge(a, copy.node(1)); },
                     "empty node 'a' (#0) belongs to graph " + plan(original) + ", not to a copy of it (plan id " +
                         std::to_string(copy.id()) +
                         "); a handle refers only to the plan that made it, not to its copies: look the node up in "
                         "the plan you use (Graph::find or Graph::node)",
                     {"a", "g"});
}

// Row 6: the message has nothing to name (the object is gone), so these are not counted.
MISUSE_CASE(6, "PB", "use of a moved-from Graph") {
  gd::Graph g("g");
  gd::Graph taken = std::move(g);
  expect_usage_error([&] { g.validate(); }, "use of a moved-from Graph", {});  // NOLINT(bugprone-use-after-move)
}

MISUSE_CASE(6, "PB", "use of an empty Executable") {
  gd::Executable none;
  expect_usage_error([&] { none.launch(); }, "use of an empty or moved-from Executable", {});
}

MISUSE_CASE(6, "PB", "an empty node handle in after()") {
  gd::Graph g("g");
  auto a = g.add_empty().name("a");
  expect_usage_error([&] { a.after(gd::Node{}); }, "empty node handle (a default-constructed Node was used)", {});
}

// ---- kernel nodes --------------------------------------------------------------------------------

MISUSE_CASE(11, "PB", "a null kernel function") {
  void (*none)(float*, float, int) = nullptr;
  expect_node_refused("scale", [&](gd::Graph& g) { return g.add_kernel(none, gd::Launch{}, buf.x, 1.0f, 1); },
                      "kernel node 'scale' (#0): the kernel function is null");
}

MISUSE_CASE(14, "PB", "a grid dimension of 0") {
  expect_node_refused("k", [](gd::Graph& g) { return g.add_kernel(unit::no_args, gd::Launch{dim3(4, 0, 1), dim3(32)}); },
                      "kernel node 'k' (#0): grid (4,0,1)" + zero_dimension);
}

MISUSE_CASE(14, "PB", "a block dimension of 0") {
  expect_node_refused("k", [](gd::Graph& g) { return g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(32, 1, 0)}); },
                      "kernel node 'k' (#0): block (32,1,0)" + zero_dimension);
}

MISUSE_CASE(14, "PB", "a block of more than 1024 threads") {
  expect_node_refused("wide", [](gd::Graph& g) { return g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(2048)}); },
                      "kernel node 'wide' (#0): block (2048,1,1) has 2048 threads; CUDA allows at most 1024 threads "
                      "per block");
}

// ---- memset and memcpy nodes -----------------------------------------------------------------------

MISUSE_CASE(19, "CT", "add_memset_raw with 3-byte elements") {
  expect_node_refused("odd", [](gd::Graph& g) { return g.add_memset_raw(buf.flags, 0, 3, 16); },
                      "memset node 'odd' (#0): element size is 3 bytes" + memset_widths);
}

MISUSE_CASE(19, "CT", "add_memset_raw with 8-byte elements") {
  expect_node_refused("wide", [](gd::Graph& g) { return g.add_memset_raw(buf.flags, 0, 8, 16); },
                      "memset node 'wide' (#0): element size is 8 bytes" + memset_widths);
}

MISUSE_CASE(20, "PB", "a memset of 0 elements") {
  expect_node_refused("nothing", [](gd::Graph& g) { return g.add_memset(buf.x, 0.0f, 0); },
                      "memset node 'nothing' (#0): sets 0 x 1 elements" + memset_at_least);
}

MISUSE_CASE(20, "PB", "a 2-D memset of 0 rows") {
  expect_node_refused("rows", [](gd::Graph& g) { return g.add_memset_raw(buf.flags, 0, 4, 16, 0, 64); },
                      "memset node 'rows' (#0): sets 16 x 0 elements" + memset_at_least);
}

MISUSE_CASE(20, "PB", "a memcpy of 0 bytes") {
  expect_node_refused("nothing", [](gd::Graph& g) { return g.add_memcpy(buf.x, buf.host_in, 0); },
                      "memcpy node 'nothing' (#0): copies 0 x 1 x 1 bytes" + memcpy_at_least);
}

MISUSE_CASE(20, "PB", "a 2-D memcpy of 0 rows") {
  expect_node_refused("tile", [](gd::Graph& g) { return g.add_memcpy_2d(buf.x, 64, buf.y, 64, 64, 0); },
                      "memcpy node 'tile' (#0): copies 64 x 0 x 1 bytes" + memcpy_at_least);
}

MISUSE_CASE(21, "PB", "a memset into a null pointer") {
  expect_node_refused("clear", [](gd::Graph& g) { return g.add_memset(static_cast<int*>(nullptr), 0, 16); },
                      "memset node 'clear' (#0): the destination pointer is null");
}

MISUSE_CASE(22, "PB", "a 2-D memset whose pitch is smaller than a row") {
  expect_node_refused("rows", [](gd::Graph& g) { return g.add_memset_2d(buf.x, 10, 1.0f, 4, 3); },
                      "memset node 'rows' (#0): pitch 10 bytes is smaller than one row (4 elements x 4 bytes = 16 "
                      "bytes)");
}

MISUSE_CASE(23, "CT", "a cudaMemcpyKind outside the enumeration") {
  const auto odd = static_cast<cudaMemcpyKind>(7);
  expect_node_refused("odd", [&](gd::Graph& g) { return g.add_memcpy_bytes(buf.x, buf.y, 16, odd); },
                      "memcpy node 'odd' (#0): cudaMemcpyKind 7 is not a valid copy direction");
}

MISUSE_CASE(25, "PB", "a memcpy from a null pointer") {
  expect_node_refused("in", [](gd::Graph& g) { return g.add_memcpy_bytes(buf.x, nullptr, 16); },
                      "memcpy node 'in' (#0): the source pointer is null");
}

MISUSE_CASE(25, "PB", "a memcpy into a null pointer") {
  expect_node_refused("out", [](gd::Graph& g) { return g.add_memcpy(static_cast<float*>(nullptr), buf.host_in, 4); },
                      "memcpy node 'out' (#0): the destination pointer is null");
}

// ---- host and event nodes ----------------------------------------------------------------------------

MISUSE_CASE(27, "CT", "a host node calling a null function pointer") {
  void (*none)() = nullptr;
  expect_node_refused("cb", [&](gd::Graph& g) { return g.add_host(none); }, "host node 'cb' (#0): " + empty_callable);
}

MISUSE_CASE(27, "CT", "a host node calling an empty std::function") {
  expect_node_refused("cb", [](gd::Graph& g) { return g.add_host(std::function<void()>{}); },
                      "host node 'cb' (#0): " + empty_callable);
}

MISUSE_CASE(32, "CT", "an event record node with an empty Event") {
  expect_node_refused("done", [](gd::Graph& g) { return g.add_event_record(gd::Event{}); },
                      "event_record node 'done' (#0): " + empty_event);
}

MISUSE_CASE(32, "CT", "an event wait node with an empty Event") {
  expect_node_refused("ready", [](gd::Graph& g) { return g.add_event_wait(gd::Event{}); },
                      "event_wait node 'ready' (#0): " + empty_event);
}

MISUSE_CASE(34, "PB", "an event record node in an IF body") {
  expect_invalid(with_if("g", [](gd::Graph& body) { body.add_event_record(gd::Event{}).name("rec"); }),
                 "in body 0 (if body) of conditional node 'maybe' (#0) of graph 'g': event_record node 'rec' (#0): " +
                     not_in_body("event_record"),
                 {"maybe", "rec"});
}

MISUSE_CASE(34, "PB", "an event wait node in a WHILE body") {
  expect_invalid(with_while("g",
                            [](gd::Graph& body) {
                              auto k = body.add_kernel(unit::no_args, gd::Launch{}).name("k");
                              body.add_event_wait(gd::Event{}).name("wait").after(k);
                            }),
                 "in body 0 (while body) of conditional node 'loop' (#0) of graph 'g': event_wait node 'wait' (#1): " +
                     not_in_body("event_wait"),
                 {"loop", "wait"});
}

// ---- child graphs --------------------------------------------------------------------------------------

MISUSE_CASE(37, "PB", "a child plan that allocates graph memory") {
  gd::GraphBuffer<float> tmp;
  gd::Graph child = with_buffer("child", tmp);
  child.add_mem_free(tmp).after(child.node(0));
  expect_invalid(embedding("outer", child), "child node 'sub' (#0): child plan 'child' contains a mem_alloc" +
                                               cannot_embed_memory,
                 {"sub", "child"});
}

MISUSE_CASE(37, "PB", "a child plan that frees graph memory") {
  const ForeignBuffer other;
  gd::Graph child("child");
  child.add_mem_free(other.buffer).name("f");
  expect_invalid(embedding("outer", child), "child node 'sub' (#0): child plan 'child' contains a mem_free" +
                                               cannot_embed_memory,
                 {"sub", "child"});
}

MISUSE_CASE(37, "PB", "graph memory two child levels down") {
  gd::GraphBuffer<float> tmp;
  const gd::Graph inner = with_buffer("inner", tmp);
  expect_invalid(embedding("outer", embedding("middle", inner)),
                 "child node 'sub' (#0): child plan 'middle' contains a mem_alloc" + cannot_embed_memory,
                 {"sub", "middle"});
}

MISUSE_CASE(38, "PB", "a child plan holding a conditional node") {
  const gd::Graph inner = with_if("inner", [](gd::Graph& body) { body.add_empty(); });
  expect_invalid(embedding("outer", inner), "child node 'sub' (#0): child plan 'inner' " + cannot_embed_conditional,
                 {"sub", "inner"});
}

MISUSE_CASE(38, "PB", "a conditional node two child levels down") {
  const gd::Graph inner = with_while("inner", [](gd::Graph& body) { body.add_empty(); });
  expect_invalid(embedding("outer", embedding("middle", inner)),
                 "child node 'sub' (#0): child plan 'middle' " + cannot_embed_conditional, {"sub", "middle"});
}

// ---- memory alloc and free nodes -----------------------------------------------------------------------

MISUSE_CASE(42, "PB", "an allocation of 0 bytes") {
  gd::Graph g("g");
  g.add_mem_alloc<float>(0).node.name("none");
  expect_invalid(g, "mem_alloc node 'none' (#0): allocates 0 bytes; a graph allocation needs at least one", {"none"});
}

MISUSE_CASE(44, "CT", "a free of a buffer another plan allocates") {
  const ForeignBuffer other;
  expect_node_refused("foreign", [&](gd::Graph& g) { return g.add_mem_free(other.buffer); },
                      "mem_free node 'foreign' (#0): the GraphBuffer it frees is not allocated by graph 'g' " +
                          freed_here);
}

MISUSE_CASE(44, "CT", "a free of an empty GraphBuffer") {
  expect_node_refused("f", [](gd::Graph& g) { return g.add_mem_free(gd::GraphBuffer<int>{}); },
                      "mem_free node 'f' (#0): the GraphBuffer it frees is not allocated by graph 'g' " + freed_here);
}

MISUSE_CASE(45, "PB", "a buffer freed twice") {
  Allocated m;
  auto f1 = m.g.add_mem_free(m.tmp).name("f1").after(m.alloc);
  m.g.add_mem_free(m.tmp).name("f2").after(f1);
  expect_invalid(m.g, "mem_free node 'f1' (#1) and mem_free node 'f2' (#2) both free the buffer of mem_alloc node 'a' "
                      "(#0); a graph allocation is freed once",
                 {"f1", "f2", "a"});
}

MISUSE_CASE(46, "PB", "a kernel using a buffer without an edge from its allocation") {
  Allocated m;
  m.g.add_kernel(unit::scale, gd::cover(64), m.tmp, 2.0f, 64).name("k");
  expect_invalid(m.g, not_after_alloc("kernel node 'k' (#1)", "k"), {"k", "a"});
}

MISUSE_CASE(46, "PB", "a memset of a buffer without an edge from its allocation") {
  Allocated m;
  m.g.add_memset(m.tmp, 0.0f, 64).name("zero");
  expect_invalid(m.g, not_after_alloc("memset node 'zero' (#1)", "zero"), {"zero", "a"});
}

MISUSE_CASE(46, "PB", "a kernel using a buffer after its free") {
  Allocated m;
  auto f = m.g.add_mem_free(m.tmp).name("free").after(m.alloc);
  m.g.add_kernel(unit::scale, gd::cover(64), m.tmp, 2.0f, 64).name("k").after(f);
  expect_invalid(m.g, not_before_free("kernel node 'k' (#2)", "k"), {"k", "a", "free"});
}

MISUSE_CASE(46, "PB", "a memcpy out of a buffer unordered with its free") {
  Allocated m;
  m.g.add_mem_free(m.tmp).name("free").after(m.alloc);
  m.g.add_memcpy(buf.host_out, m.tmp, 64).name("download").after(m.alloc);
  expect_invalid(m.g, not_before_free("memcpy node 'download' (#2)", "download"), {"download", "a", "free"});
}

MISUSE_CASE(46, "PB", "a free not ordered after its allocation") {
  Allocated m;
  m.g.add_mem_free(m.tmp).name("f");
  expect_invalid(m.g, "mem_free node 'f' (#1) is not ordered after mem_alloc node 'a' (#0), the allocation it frees; "
                      "add edges so that 'a' runs before 'f'",
                 {"f", "a"});
}

MISUSE_CASE(52, "UB-doc", "a kernel of another plan using a graph buffer") {
  const ForeignBuffer other;
  expect_node_refused("k", [&](gd::Graph& g) { return g.add_kernel(unit::scale, gd::cover(64), other.buffer, 1.0f, 64); },
                      "kernel node 'k' (#0): a GraphBuffer argument is not allocated by graph 'g' or a plan enclosing it " + used_here);
}

MISUSE_CASE(52, "UB-doc", "a memset of another plan into a graph buffer") {
  const ForeignBuffer other;
  expect_node_refused("zero", [&](gd::Graph& g) { return g.add_memset(other.buffer, 0.0f, 64); },
                      "memset node 'zero' (#0): its destination is a GraphBuffer not allocated by graph 'g' or a plan enclosing it " +
                          used_here);
}

MISUSE_CASE(52, "UB-doc", "a memcpy of another plan out of a graph buffer") {
  const ForeignBuffer other;
  expect_node_refused("c", [&](gd::Graph& g) { return g.add_memcpy(buf.host_out, other.buffer, 64); },
                      "memcpy node 'c' (#0): its source is a GraphBuffer not allocated by graph 'g' or a plan enclosing it " + used_here);
}

// ---- conditional nodes -----------------------------------------------------------------------------------

MISUSE_CASE(53, "PB", "a condition no conditional node uses") {
  gd::Graph g("u");
  g.add_condition(3);
  g.add_empty();
  expect_invalid(g, "graph 'u' declares a Condition (number 0, default 3) that no conditional node uses; CUDA refuses "
                    "to instantiate a graph with an unused condition",
                 {"u"});
}

MISUSE_CASE(53, "PB", "a condition declared in a body and never used") {
  expect_invalid(with_if("g",
                         [](gd::Graph& body) {
                           body.add_condition(0);
                           body.add_empty();
                         }),
                 "in body 0 (if body) of conditional node 'maybe' (#0) of graph 'g': graph 'if body' declares a "
                 "Condition (number 0, default 0) that no conditional node uses; CUDA refuses to instantiate a graph "
                 "with an unused condition",
                 {"maybe", "if body"});
}

MISUSE_CASE(54, "PB", "a conditional node driven by another plan's condition") {
  gd::Graph owner("owner");
  const gd::Condition c = owner.add_condition(1);
  gd::Graph g("other");
  g.add_while(c, [](gd::Graph& b) { b.add_empty(); }).name("loop");
  expect_invalid(g, "conditional node 'loop' (#0): its Condition" + not_declared_in("other"), {"loop", "other"});
}

MISUSE_CASE(54, "PB", "a conditional node driven by an empty Condition") {
  gd::Graph g("e");
  g.add_if(gd::Condition{}, [](gd::Graph& b) { b.add_empty(); }).name("if");
  expect_invalid(g, "conditional node 'if' (#0): its Condition" + not_declared_in("e"), {"if", "e"});
}

MISUSE_CASE(54, "PB", "a kernel setting another plan's condition") {
  gd::Graph owner("owner");
  const gd::Condition c = owner.add_condition(1);
  gd::Graph g("k");
  g.add_kernel(set_flag, gd::Launch{}, c, 1).name("set");
  expect_invalid(g, "kernel node 'set' (#0): a Condition argument" + not_declared_in("k"), {"set", "k"});
}

MISUSE_CASE(54, "PB", "a body compiled without the plan whose condition its kernel sets") {
  gd::Graph g("g");
  const gd::Condition c = g.add_condition(1);
  auto loop = g.add_while(c, [&](gd::Graph& b) { b.add_kernel(set_flag, gd::Launch{}, c, 0).name("set"); });
  expect_invalid(g.body_plan(loop, 0), "kernel node 'set' (#0): a Condition argument" + without_enclosing, {"set"});
}

MISUSE_CASE(54, "PB", "a body compiled without the plan whose condition its conditional node uses") {
  gd::Graph g("g");
  const gd::Condition outer = g.add_condition(1);
  const gd::Condition inner = g.add_condition(1);
  auto loop = g.add_while(outer, [&](gd::Graph& b) {
    b.add_if(inner, [](gd::Graph& ib) { ib.add_empty(); }).name("inner");
  });
  expect_invalid(g.body_plan(loop, 0), "conditional node 'inner' (#0): its Condition" + without_enclosing, {"inner"});
}

MISUSE_CASE(55, "PB", "one condition for two conditional nodes") {
  gd::Graph g("t");
  const gd::Condition c = g.add_condition(1);
  g.add_if(c, [](gd::Graph& b) { b.add_empty(); }).name("first");
  g.add_if(c, [](gd::Graph& b) { b.add_empty(); }).name("second");
  expect_invalid(g, "conditional node 'first' (#0) and conditional node 'second' (#1)" + same_condition,
                 {"first", "second"});
}

MISUSE_CASE(55, "PB", "a loop's condition reused by a conditional node in its body") {
  gd::Graph g("g");
  const gd::Condition c = g.add_condition(1);
  g.add_while(c, [&](gd::Graph& b) { b.add_if(c, [](gd::Graph& ib) { ib.add_empty(); }).name("inner"); }).name("loop");
  expect_invalid(g, "in body 0 (while body) of conditional node 'loop' (#0) of graph 'g': conditional node 'loop' (#0) "
                    "and conditional node 'inner' (#0)" + same_condition,
                 {"loop", "inner"});
}

MISUSE_CASE(56, "PB", "a SWITCH with no body") {
  gd::Graph g("g");
  const gd::Condition c = g.add_condition();
  g.add_switch(c).name("sw");
  expect_invalid(g, "conditional node 'sw' (#0): a switch node with 0 bodies; a switch needs at least one body", {"sw"});
}

MISUSE_CASE(56, "PB", "an IF with no body") {
  expect_invalid(conditional_of_size("g", gd::ConditionalType::if_then, 0),
                 "conditional node 'x' (#0): an if node with 0 bodies; it has exactly one body", {"x"});
}

MISUSE_CASE(56, "PB", "a WHILE with two bodies") {
  expect_invalid(conditional_of_size("g", gd::ConditionalType::while_loop, 2),
                 "conditional node 'x' (#0): a while node with 2 bodies; it has exactly one body", {"x"});
}

MISUSE_CASE(56, "PB", "an IF-ELSE with three bodies") {
  expect_invalid(conditional_of_size("g", gd::ConditionalType::if_else, 3),
                 "conditional node 'x' (#0): an if_else node with 3 bodies; an if-else has exactly two bodies", {"x"});
}

MISUSE_CASE(57, "PB", "a host node in a WHILE body") {
  expect_invalid(with_while("g",
                            [](gd::Graph& body) {
                              auto k = body.add_kernel(unit::no_args, gd::Launch{}).name("k");
                              body.add_host([] {}).name("cb").after(k);
                            }),
                 "in body 0 (while body) of conditional node 'loop' (#0) of graph 'g': host node 'cb' (#1): " +
                     not_in_body("host"),
                 {"loop", "cb"});
}

MISUSE_CASE(57, "PB", "a graph allocation in an IF body") {
  expect_invalid(with_if("g", [](gd::Graph& body) { body.add_mem_alloc<float>(4).node.name("tmp"); }),
                 "in body 0 (if body) of conditional node 'maybe' (#0) of graph 'g': mem_alloc node 'tmp' (#0): " +
                     not_in_body("mem_alloc"),
                 {"maybe", "tmp"});
}

MISUSE_CASE(57, "PB", "a host node in a child plan inside a body") {
  gd::Graph inner("inner");
  inner.add_host([] {}).name("cb");
  expect_invalid(with_if("g", [&](gd::Graph& body) { body.add_child(inner).name("sub"); }),
                 "in body 0 (if body) of conditional node 'maybe' (#0) of graph 'g': in child node 'sub' (#0) of graph "
                 "'if body': host node 'cb' (#0): " +
                     not_in_body("host"),
                 {"maybe", "sub", "cb"});
}

MISUSE_CASE(57, "PB", "a host node in the body of a conditional nested in a loop") {
  gd::Graph g("g");
  const gd::Condition outer = g.add_condition(1);
  const gd::Condition inner = g.add_condition(1);
  g.add_while(outer, [&](gd::Graph& b) {
     b.add_if(inner, [](gd::Graph& ib) { ib.add_host([] {}).name("cb"); }).name("inner");
   }).name("loop");
  expect_invalid(g, "in body 0 (while body) of conditional node 'loop' (#0) of graph 'g': in body 0 (if body) of "
                    "conditional node 'inner' (#0) of graph 'while body': host node 'cb' (#0): " +
                        not_in_body("host"),
                 {"loop", "inner", "cb"});
}

// ---- instantiate options ---------------------------------------------------------------------------------

MISUSE_CASE(64, "PB", "device_launch combined with auto_free_on_launch") {
  gd::Graph g("dl");
  g.add_kernel(unit::no_args, gd::Launch{});
  expect_usage_error([&] { (void)g.instantiate(gd::InstantiateOptions{}.device_launch().auto_free_on_launch()); },
                     "instantiating graph 'dl': device_launch and auto_free_on_launch cannot be combined (CUDA refuses "
                     "the pair)",
                     {"dl"});
}

MISUSE_CASE(65, "PB", "device launch of an empty plan") {
  expect_device_launch_refused(gd::Graph("none"),
                               "instantiating graph 'none' for device launch: the graph is empty; a device-launchable "
                               "executable needs at least one node",
                               {"none"});
}

MISUSE_CASE(65, "PB", "device launch of a plan with a host node") {
  gd::Graph g("dl");
  auto k = g.add_kernel(unit::no_args, gd::Launch{}).name("k");
  g.add_host([] {}).name("cb").after(k);
  expect_device_launch_refused(g, "host node 'cb' (#1)" + device_launch_kinds, {"cb"});
}

MISUSE_CASE(65, "PB", "device launch of a plan with an event record node") {
  gd::Graph g("dl");
  g.add_event_record(gd::Event{}).name("done");
  expect_device_launch_refused(g, "event_record node 'done' (#0)" + device_launch_kinds, {"done"});
}

MISUSE_CASE(65, "PB", "device launch of a plan with a host node inside a child plan") {
  gd::Graph inner("inner");
  inner.add_host([] {}).name("cb");
  expect_device_launch_refused(embedding("dl", inner),
                               "in child node 'sub' (#0) of graph 'dl': host node 'cb' (#0)" + device_launch_kinds,
                               {"sub", "cb"});
}

}  // namespace misuse_catalogue_test
