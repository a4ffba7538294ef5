// Graph::validate() and instantiate(): every rule checkable without CUDA, with the exact message,
// and no CUDA call on the way (instantiate() of a bad plan must throw before touching CUDA).
#include <functional>
#include <string>
#include <vector>

#include "unit_support.hpp"

namespace gd = graphdsl;

// ---- cycles ------------------------------------------------------------------------------------

TEST_CASE("a valid plan validates without a CUDA call", "[validate]") {
  gd::Graph g("ok");
  unit::Buffers b;
  auto up = g.add_memcpy(b.x, b.host_in, 256).name("upload");
  auto k = g.add_kernel(unit::scale, gd::cover(256), b.x, 2.0f, 256).after(up);
  g.add_memset(b.flags, 1, 64).after(k);
  g.add_host([] {}).after(k);
  gd::Graph sub("sub");
  sub.add_empty();
  g.add_child(sub).after(k);
  CHECK_NO_CUDA_CALL(g.validate());
  CHECK_NO_CUDA_CALL(gd::Graph("empty").validate());
}

TEST_CASE("a cycle of two nodes is named in run order", "[validate][cycle]") {
  gd::Graph g;
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b").after(a);
  a.after(b);
  // Either rotation of the cycle is the cycle in run order; the exact start is covered below.
  const std::string msg = unit::usage_error_of([&] { g.validate(); });
  CHECK((msg == "graphdsl: cycle: 'a' -> 'b' -> 'a'" || msg == "graphdsl: cycle: 'b' -> 'a' -> 'b'"));
}

TEST_CASE("a cycle of three nodes is named in run order", "[validate][cycle]") {
  gd::Graph g;
  auto a = g.add_empty().name("a");
  auto b = g.add_kernel(unit::no_args, gd::Launch{}).name("b").after(a);
  auto c = g.add_empty().name("c").after(b);
  a.after(c);
  const std::string msg = unit::usage_error_of([&] { g.validate(); });
  CHECK((msg == "graphdsl: cycle: 'a' -> 'b' -> 'c' -> 'a'" || msg == "graphdsl: cycle: 'b' -> 'c' -> 'a' -> 'b'" ||
         msg == "graphdsl: cycle: 'c' -> 'a' -> 'b' -> 'c'"));
}

TEST_CASE("a cycle message starts at the cycle's first-created node", "[validate][cycle]") {
  // DESIGN.md: "graphdsl: cycle: 'load' -> 'scale' -> 'load'" for load created before scale.
  // plan_rules.cpp report_cycle() starts wherever its predecessor walk closed the loop, which gives
  // 'b' -> 'a' -> 'b' and 'b' -> 'c' -> 'a' -> 'b' here.
  gd::Graph g2;
  auto a2 = g2.add_empty().name("a");
  auto b2 = g2.add_empty().name("b").after(a2);
  a2.after(b2);
  CHECK_USAGE_ERROR(g2.validate(), "graphdsl: cycle: 'a' -> 'b' -> 'a'");

  gd::Graph g3;
  auto a3 = g3.add_empty().name("a");
  auto b3 = g3.add_empty().name("b").after(a3);
  auto c3 = g3.add_empty().name("c").after(b3);
  a3.after(c3);
  CHECK_USAGE_ERROR(g3.validate(), "graphdsl: cycle: 'a' -> 'b' -> 'c' -> 'a'");
}

TEST_CASE("cycle messages are deterministic and name unnamed nodes by index", "[validate][cycle]") {
  gd::Graph g;
  auto a = g.add_empty();               // #0
  auto b = g.add_empty().after(a);      // #1
  auto c = g.add_empty().name("c").after(b);
  a.after(c);
  const std::string msg = unit::usage_error_of([&] { g.validate(); });
  CHECK((msg == "graphdsl: cycle: #0 -> #1 -> 'c' -> #0" || msg == "graphdsl: cycle: #1 -> 'c' -> #0 -> #1" ||
         msg == "graphdsl: cycle: 'c' -> #0 -> #1 -> 'c'"));
  // the same plan (or a copy of it) always gets the same message
  CHECK_USAGE_ERROR(g.validate(), msg);
  CHECK_USAGE_ERROR(gd::Graph(g).validate(), msg);
  CHECK_USAGE_ERROR(g.instantiate(), msg);
}

TEST_CASE("nodes downstream of a cycle are not listed in it", "[validate][cycle]") {
  gd::Graph g;
  auto tail = g.add_empty().name("tail");  // #0, runs after the cycle
  auto x = g.add_empty().name("x");
  auto y = g.add_empty().name("y").after(x);
  x.after(y);
  tail.after(y);
  auto ok = g.add_empty().name("ok");  // unrelated, fine
  (void)ok;
  const std::string msg = unit::usage_error_of([&] { g.validate(); });
  CHECK((msg == "graphdsl: cycle: 'x' -> 'y' -> 'x'" || msg == "graphdsl: cycle: 'y' -> 'x' -> 'y'"));
}

TEST_CASE("a cycle inside a child plan is reported with the child's context", "[validate][cycle][child]") {
  gd::Graph body("body");
  auto p = body.add_empty().name("p");
  auto q = body.add_empty().name("q").after(p);
  p.after(q);
  gd::Graph g("main");
  g.add_empty();
  g.add_child(body).name("inner");
  const std::string msg = unit::usage_error_of([&] { g.validate(); });
  const std::string prefix = "graphdsl: in child node 'inner' (#1) of graph 'main': cycle: ";
  CHECK((msg == prefix + "'p' -> 'q' -> 'p'" || msg == prefix + "'q' -> 'p' -> 'q'"));

  SECTION("nested two levels deep, unnamed") {
    gd::Graph outer("outer");
    outer.add_child(g);
    const std::string deep = unit::usage_error_of([&] { outer.validate(); });
    const std::string deep_prefix = "graphdsl: in child node #0 of graph 'outer': in child node 'inner' (#1) of graph "
                                    "'main': cycle: ";
    CHECK((deep == deep_prefix + "'p' -> 'q' -> 'p'" || deep == deep_prefix + "'q' -> 'p' -> 'q'"));
  }
}

TEST_CASE("instantiate() of a plan with a cycle throws UsageError before any CUDA call", "[validate][cycle][instantiate]") {
  gd::Graph g;
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b").after(a);
  a.after(b);
  const auto before = gd::debug::cuda_calls();
  const auto live = gd::debug::live_counts();
  CHECK(unit::usage_error_of([&] { (void)g.instantiate(); }).rfind("graphdsl: cycle: ", 0) == 0);
  CHECK(gd::debug::cuda_calls() == before);
  CHECK(gd::debug::live_counts().native_graphs == live.native_graphs);
  CHECK(gd::debug::live_counts().executables == live.executables);
  CHECK(gd::debug::live_counts().plans == live.plans);
}

// ---- kernel nodes ------------------------------------------------------------------------------

TEST_CASE("kernel nodes: null function and launch shapes are rejected with the node named", "[validate][kernel]") {
  gd::Graph g("k");
  unit::Buffers b;
  SECTION("null kernel function") {
    void (*none)(float*, float, int) = nullptr;
    g.add_kernel(none, gd::Launch{}, b.x, 1.0f, 1).name("scale");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: kernel node 'scale' (#0): the kernel function is null");
    CHECK_USAGE_ERROR(g.instantiate(), "graphdsl: kernel node 'scale' (#0): the kernel function is null");
  }
  SECTION("zero grid dimension") {
    g.add_empty();
    g.add_kernel(unit::no_args, gd::Launch{dim3(4, 0, 1), dim3(32)});
    CHECK_USAGE_ERROR(g.validate(),
                      "graphdsl: kernel node #1: grid (4,0,1) has a zero dimension; every dimension must be at least 1");
    CHECK_USAGE_ERROR(g.instantiate(),
                      "graphdsl: kernel node #1: grid (4,0,1) has a zero dimension; every dimension must be at least 1");
  }
  SECTION("zero block dimension") {
    g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(32, 1, 0)}).name("k0");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: kernel node 'k0' (#0): block (32,1,0) has a zero dimension; every "
                                    "dimension must be at least 1");
  }
  SECTION("gd::cover(0) still launches one block") {
    g.add_kernel(unit::no_args, gd::cover(0));
    CHECK_NO_CUDA_CALL(g.validate());
  }
  SECTION("more than 1024 threads per block") {
    g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(32, 33)}).name("big");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: kernel node 'big' (#0): block (32,33,1) has 1056 threads; CUDA allows at "
                                    "most 1024 threads per block");
    CHECK_USAGE_ERROR(g.instantiate(), "graphdsl: kernel node 'big' (#0): block (32,33,1) has 1056 threads; CUDA "
                                       "allows at most 1024 threads per block");
  }
  SECTION("a huge block does not overflow the thread count") {
    g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(65536, 65536, 2)});
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: kernel node #0: block (65536,65536,2) has 8589934592 threads; CUDA "
                                    "allows at most 1024 threads per block");
  }
  SECTION("exactly 1024 threads is allowed") {
    g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(8, 8, 16)});
    CHECK_NO_CUDA_CALL(g.validate());
  }
}

TEST_CASE("validation reports the first invalid node in creation order", "[validate]") {
  gd::Graph g;
  unit::Buffers b;
  g.add_empty();
  g.add_kernel(unit::no_args, gd::Launch{dim3(0), dim3(1)}).name("first");
  g.add_memset(static_cast<int*>(nullptr), 0, 4).name("second");
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: kernel node 'first' (#1): grid (0,1,1) has a zero dimension; every "
                                  "dimension must be at least 1");
}

TEST_CASE("per-node rules are checked before cycles", "[validate]") {
  gd::Graph g;
  auto a = g.add_empty().name("a");
  auto b = g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(0)}).name("b").after(a);
  a.after(b);
  CHECK_USAGE_ERROR(g.validate(),
                    "graphdsl: kernel node 'b' (#1): block (0,1,1) has a zero dimension; every dimension must be at least 1");
}

// ---- memset nodes ------------------------------------------------------------------------------

TEST_CASE("memset nodes: null destination, element size, zero size and pitch are checked", "[validate][memset]") {
  gd::Graph g("m");
  unit::Buffers b;
  SECTION("null destination") {
    g.add_memset(static_cast<int*>(nullptr), 0, 16).name("clear");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memset node 'clear' (#0): the destination pointer is null");
    CHECK_USAGE_ERROR(g.instantiate(), "graphdsl: memset node 'clear' (#0): the destination pointer is null");
  }
  SECTION("element size 3") {
    g.add_memset_raw(b.flags, 0, 3, 16);
    CHECK_USAGE_ERROR(g.validate(),
                      "graphdsl: memset node #0: element size is 3 bytes; CUDA memset nodes take 1, 2 or 4-byte elements");
  }
  SECTION("element size 8") {
    g.add_memset_raw(b.flags, 0, 8, 16).name("wide");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memset node 'wide' (#0): element size is 8 bytes; CUDA memset nodes take "
                                    "1, 2 or 4-byte elements");
  }
  SECTION("zero width") {
    g.add_memset(b.x, 0.0f, 0).name("nothing");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memset node 'nothing' (#0): sets 0 x 1 elements; a memset node must set "
                                    "at least one element");
    CHECK_USAGE_ERROR(g.instantiate(), "graphdsl: memset node 'nothing' (#0): sets 0 x 1 elements; a memset node must "
                                       "set at least one element");
  }
  SECTION("zero height") {
    g.add_memset_raw(b.flags, 0, 4, 16, 0, 64);
    CHECK_USAGE_ERROR(g.validate(),
                      "graphdsl: memset node #0: sets 16 x 0 elements; a memset node must set at least one element");
  }
  SECTION("2-D pitch smaller than a row") {
    g.add_memset_2d(b.x, 10, 1.0f, 4, 3).name("rows");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memset node 'rows' (#0): pitch 10 bytes is smaller than one row (4 "
                                    "elements x 4 bytes = 16 bytes)");
  }
  SECTION("2-D pitch equal to a row is allowed") {
    g.add_memset_2d(b.x, 16, 1.0f, 4, 3);
    CHECK_NO_CUDA_CALL(g.validate());
  }
  SECTION("1-D memset ignores the pitch") {
    g.add_memset_raw(b.flags, 0, 4, 16, 1, 0);
    CHECK_NO_CUDA_CALL(g.validate());
  }
}

// ---- memcpy nodes ------------------------------------------------------------------------------

TEST_CASE("memcpy nodes: size, pointers, direction and pitch are checked", "[validate][memcpy]") {
  gd::Graph g("c");
  unit::Buffers b;
  SECTION("zero bytes") {
    g.add_memcpy(b.x, b.host_in, 0).name("nothing");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'nothing' (#0): copies 0 x 1 x 1 bytes; a memcpy node must "
                                    "copy at least one byte");
    CHECK_USAGE_ERROR(g.instantiate(), "graphdsl: memcpy node 'nothing' (#0): copies 0 x 1 x 1 bytes; a memcpy node "
                                       "must copy at least one byte");
  }
  SECTION("zero height in 2-D") {
    g.add_memcpy_2d(b.x, 64, b.y, 64, 64, 0);
    CHECK_USAGE_ERROR(g.validate(),
                      "graphdsl: memcpy node #0: copies 64 x 0 x 1 bytes; a memcpy node must copy at least one byte");
  }
  SECTION("null source") {
    g.add_memcpy_bytes(b.x, nullptr, 16).name("in");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'in' (#0): the source pointer is null");
  }
  SECTION("null destination") {
    g.add_memcpy(static_cast<float*>(nullptr), b.host_in, 4).name("out");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'out' (#0): the destination pointer is null");
    CHECK_USAGE_ERROR(g.instantiate(), "graphdsl: memcpy node 'out' (#0): the destination pointer is null");
  }
  SECTION("a cudaMemcpyKind value outside the enumeration") {
    g.add_memcpy_bytes(b.x, b.y, 16, static_cast<cudaMemcpyKind>(7)).name("odd");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'odd' (#0): cudaMemcpyKind 7 is not a valid copy direction");
  }
  SECTION("every valid direction is accepted") {
    for (cudaMemcpyKind k : {cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                             cudaMemcpyDeviceToDevice, cudaMemcpyDefault}) {
      g.add_memcpy_bytes(b.x, b.y, 16, k);
    }
    CHECK_NO_CUDA_CALL(g.validate());
  }
  SECTION("2-D source pitch smaller than a row") {
    g.add_memcpy_2d(b.x, 64, b.y, 32, 48, 4).name("tile");
    CHECK_USAGE_ERROR(g.validate(),
                      "graphdsl: memcpy node 'tile' (#0): source pitch 32 bytes is smaller than the row width 48 bytes");
  }
  SECTION("2-D destination pitch smaller than a row") {
    g.add_memcpy_2d(b.x, 40, b.y, 64, 48, 4).name("tile");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'tile' (#0): destination pitch 40 bytes is smaller than the "
                                    "row width 48 bytes");
  }
  SECTION("3-D copy with one row per slice still needs pitches") {
    cudaMemcpy3DParms p{};
    p.srcPtr = cudaPitchedPtr{b.y, 8, 16, 1};
    p.dstPtr = cudaPitchedPtr{b.x, 16, 16, 1};
    p.extent = cudaExtent{16, 1, 2};
    p.kind = cudaMemcpyDefault;
    g.add_memcpy_3d(p);
    CHECK_USAGE_ERROR(g.validate(),
                      "graphdsl: memcpy node #0: source pitch 8 bytes is smaller than the row width 16 bytes");
  }
  SECTION("CUDA arrays stand in for null pitched pointers") {
    cudaMemcpy3DParms p{};
    p.srcArray = reinterpret_cast<cudaArray_t>(b.y);  // never dereferenced by validate()
    p.dstPtr = cudaPitchedPtr{b.x, 64, 64, 4};
    p.extent = cudaExtent{64, 4, 1};
    p.kind = cudaMemcpyDeviceToDevice;
    g.add_memcpy_3d(p);
    CHECK_NO_CUDA_CALL(g.validate());
  }
}

// ---- host, event and child nodes ---------------------------------------------------------------

namespace {
void host_fn() {}
}  // namespace

TEST_CASE("host nodes: an empty callable is rejected by validate()", "[validate][host]") {
  gd::Graph g("h");
  const char* suffix = "the callable is empty (a null function pointer or an empty std::function)";
  SECTION("null function pointer") {
    void (*fp)() = nullptr;
    g.add_host(fp).name("cb");
    CHECK_USAGE_ERROR(g.validate(), std::string("graphdsl: host node 'cb' (#0): ") + suffix);
    CHECK_USAGE_ERROR(g.instantiate(), std::string("graphdsl: host node 'cb' (#0): ") + suffix);
  }
  SECTION("empty std::function") {
    g.add_empty();
    g.add_host(std::function<void()>{});
    CHECK_USAGE_ERROR(g.validate(), std::string("graphdsl: host node #1: ") + suffix);
  }
  SECTION("empty std::function lvalue") {
    std::function<void()> f;
    g.add_host(f);
    CHECK_USAGE_ERROR(g.validate(), std::string("graphdsl: host node #0: ") + suffix);
  }
  SECTION("non-empty callables are fine") {
    void (*fp)() = &host_fn;
    g.add_host(fp);
    g.add_host(&host_fn);
    g.add_host(std::function<void()>([] {}));
    g.add_host([] {});
    int x = 0;
    g.add_host([&x] { ++x; });
    CHECK_NO_CUDA_CALL(g.validate());
    CHECK(x == 0);  // building and validating never calls the callable
  }
}

TEST_CASE("event nodes: an empty Event is rejected by validate()", "[validate][event]") {
  gd::Graph g("e");
  const gd::Event none;
  REQUIRE_FALSE(none);
  CHECK(none.native_handle() == nullptr);
  const char* suffix = "the Event is empty (default-constructed); make one with Event::create()";
  SECTION("event record") {
    g.add_event_record(none).name("done");
    CHECK_USAGE_ERROR(g.validate(), std::string("graphdsl: event_record node 'done' (#0): ") + suffix);
    CHECK_USAGE_ERROR(g.instantiate(), std::string("graphdsl: event_record node 'done' (#0): ") + suffix);
  }
  SECTION("event wait") {
    g.add_empty();
    g.add_event_wait(gd::Event{});
    CHECK_USAGE_ERROR(g.validate(), std::string("graphdsl: event_wait node #1: ") + suffix);
    CHECK_USAGE_ERROR(g.instantiate(), std::string("graphdsl: event_wait node #1: ") + suffix);
  }
}

TEST_CASE("a bad node inside a child plan is named with the child's context", "[validate][child]") {
  gd::Graph body("body");
  body.add_empty();
  body.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(2048)}).name("wide");
  gd::Graph g("main");
  g.add_child(body).name("step");
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: in child node 'step' (#0) of graph 'main': kernel node 'wide' (#1): block "
                                  "(2048,1,1) has 2048 threads; CUDA allows at most 1024 threads per block");
  CHECK_USAGE_ERROR(g.instantiate(), "graphdsl: in child node 'step' (#0) of graph 'main': kernel node 'wide' (#1): "
                                     "block (2048,1,1) has 2048 threads; CUDA allows at most 1024 threads per block");
}

TEST_CASE("a child plan is a copy taken at add_child: later changes to the original are not validated",
          "[validate][child]") {
  gd::Graph body("body");
  body.add_empty();
  gd::Graph g("main");
  auto child = g.add_child(body);
  body.add_kernel(unit::no_args, gd::Launch{dim3(0), dim3(1)});  // invalid, but after the copy
  CHECK_NO_CUDA_CALL(g.validate());
  CHECK(g.child_plan(child).node_count() == 1);
}

// ---- instantiate options -----------------------------------------------------------------------

TEST_CASE("instantiate() rejects invalid option combinations before any CUDA call", "[instantiate][options]") {
  gd::Graph g("dl");
  unit::Buffers b;
  SECTION("device_launch with auto_free_on_launch") {
    g.add_kernel(unit::no_args, gd::Launch{});
    CHECK_USAGE_ERROR(g.instantiate(gd::InstantiateOptions{}.device_launch().auto_free_on_launch()),
                      "graphdsl: instantiating graph 'dl': device_launch and auto_free_on_launch cannot be combined "
                      "(CUDA refuses the pair)");
    CHECK_USAGE_ERROR(g.instantiate(gd::InstantiateOptions{}.auto_free_on_launch().device_launch()),
                      "graphdsl: instantiating graph 'dl': device_launch and auto_free_on_launch cannot be combined "
                      "(CUDA refuses the pair)");
  }
  SECTION("device_launch on an empty plan") {
    CHECK_USAGE_ERROR(g.instantiate(gd::InstantiateOptions{}.device_launch()),
                      "graphdsl: instantiating graph 'dl' for device launch: the graph is empty; a device-launchable "
                      "executable needs at least one node");
  }
  SECTION("device_launch with a host node") {
    g.add_kernel(unit::no_args, gd::Launch{});
    g.add_host([] {}).name("log");
    CHECK_USAGE_ERROR(g.instantiate(gd::InstantiateOptions{}.device_launch()),
                      "graphdsl: host node 'log' (#1) cannot be part of a device-launchable executable (device_launch "
                      "allows only kernel, memcpy, memset and child nodes)");
  }
  SECTION("device_launch with an event or empty node") {
    g.add_memset(b.flags, 0, 4);
    g.add_event_record(gd::Event{});
    CHECK_USAGE_ERROR(g.instantiate(gd::InstantiateOptions{}.device_launch()),
                      "graphdsl: event_record node #1 cannot be part of a device-launchable executable (device_launch "
                      "allows only kernel, memcpy, memset and child nodes)");
    gd::Graph e("e");
    e.add_empty().name("join");
    CHECK_USAGE_ERROR(e.instantiate(gd::InstantiateOptions{}.device_launch()),
                      "graphdsl: empty node 'join' (#0) cannot be part of a device-launchable executable (device_launch "
                      "allows only kernel, memcpy, memset and child nodes)");
  }
  SECTION("device_launch with a host node inside a child plan") {
    gd::Graph body("body");
    body.add_memcpy(b.x, b.y, 4);
    body.add_host([] {}).name("cb");
    g.add_kernel(unit::no_args, gd::Launch{});
    g.add_child(body).name("sub");
    CHECK_USAGE_ERROR(g.instantiate(gd::InstantiateOptions{}.device_launch()),
                      "graphdsl: in child node 'sub' (#1) of graph 'dl': host node 'cb' (#1) cannot be part of a "
                      "device-launchable executable (device_launch allows only kernel, memcpy, memset and child nodes)");
  }
  SECTION("an invalid plan is reported even with valid options") {
    g.add_kernel(unit::no_args, gd::Launch{dim3(0), dim3(1)});
    CHECK_USAGE_ERROR(g.instantiate(gd::InstantiateOptions{}.device_launch().use_node_priority()),
                      "graphdsl: kernel node #0: grid (0,1,1) has a zero dimension; every dimension must be at least 1");
  }
}

TEST_CASE("InstantiateOptions setters map to cudaGraphInstantiateFlags bits", "[instantiate][options]") {
  gd::InstantiateOptions o;
  CHECK(o.flags() == 0);
  o.auto_free_on_launch().use_node_priority();
  CHECK(o.flags() == (cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUseNodePriority));
  o.auto_free_on_launch(false).device_launch();
  CHECK(o.flags() == (cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUseNodePriority));
  int fake_stream = 0;
  const auto s = reinterpret_cast<cudaStream_t>(&fake_stream);
  o.upload_on(s);
  CHECK((o.flags() & cudaGraphInstantiateFlagUpload) != 0);
  CHECK(o.upload_stream() == s);
}
