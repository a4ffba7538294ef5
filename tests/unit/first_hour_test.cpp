// What a newcomer meets in the first hour: plans with events work without a GPU,
// dumps show what the user wrote (typed memset values, buffers, copy directions), typed handles
// from plain nodes (node_cast, KernelNodeOf), literals of another type, and copy-aware messages.
// No CUDA call: every case checks debug::cuda_calls().
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {
void saxpy(const float*, float*, float, int) {}
void fill(float*, int) {}
}  // namespace

// ---- events without a GPU ---------------------------------------------------------------------

TEST_CASE("a plan with event nodes validates, dumps and diffs with no CUDA call", "[first-hour][event]") {
  const auto calls = gd::debug::cuda_calls();
  const auto events = gd::debug::live_counts().events;
  const gd::Event e = gd::Event::create();  // no cudaEventCreate: the event is created on first native use
  REQUIRE(e);
  CHECK_FALSE(e.created());
  float x[32] = {};
  auto build = [&](const gd::Event& ev) {
    gd::Graph g("events");
    auto k = g.add_kernel(fill, gd::Launch{1, 32}, x, 32).name("fill");
    auto r = g.add_event_record(ev).name("record").after(k);
    g.add_event_wait(ev).name("wait").after(r);
    return g;
  };
  const gd::Graph a = build(e);
  const gd::Graph b = build(e);
  CHECK_NOTHROW(a.validate());
  CHECK(a.dump().find("#1 event_record 'record': Event of flags cudaEventDisableTiming; after 'fill'") != std::string::npos);
  CHECK(a.to_dot().find("event_record") != std::string::npos);
  const gd::UpdateResult same = gd::diff(a, b);
  CHECK(same);
  CHECK(same.changed.empty());
  // another Event is a parameter change of the two event nodes, found on the host
  const gd::UpdateResult other = gd::diff(a, build(gd::Event::create()));
  CHECK(other);
  CHECK(other.changed == std::vector<std::uint32_t>{1, 2});
  CHECK(a.fingerprint() == b.fingerprint());
  CHECK(gd::debug::cuda_calls() == calls);
  CHECK(gd::debug::live_counts().events == events);  // no cudaEvent_t exists yet
  CHECK_FALSE(e.created());
  CHECK(e.use_count() == 5);  // e, and a and b (two event nodes each) share one state
}

TEST_CASE("copies of a created Event share one state", "[first-hour][event]") {
  const gd::Event e = gd::Event::create(cudaEventDefault);
  const gd::Event copy = e;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(copy.state() == e.state());
  CHECK(e.use_count() == 2);
  const gd::Event none;
  CHECK_FALSE(none.created());
  CHECK(none.native_handle() == nullptr);  // an empty Event makes no CUDA call either
}

// ---- dumps ------------------------------------------------------------------------------------

TEST_CASE("dump names a graph buffer kernel argument by its mem_alloc node, not as a condition",
          "[first-hour][print]") {
  const int limit = 3;
  gd::Graph g("buffers");
  const gd::Condition cond = g.add_condition(1);
  auto tmp = g.add_mem_alloc<float>(64);
  tmp.node.name("tmp");
  auto k = g.add_kernel(saxpy, gd::Launch{1, 64}, tmp.buffer, tmp.buffer, 2.0f, 64).name("use").after(tmp.node);
  g.add_mem_free(tmp.buffer).after(k);
  g.add_while(cond, [&](gd::Graph& body) { body.add_set_condition(cond, &limit, gd::Compare::less, 3); });
  const std::string d = g.dump();
  INFO(d);
  CHECK(d.find("#1 kernel 'use': grid (1,1,1) block (64,1,1) shared 0 B, 4 args (24 B), argument 1: buffer of "
               "'tmp', argument 2: buffer of 'tmp'; after 'tmp'") != std::string::npos);
  CHECK(d.find("sets condition #0") != std::string::npos);  // the set-condition kernel in the body
  CHECK(d.find("'use'") != std::string::npos);
  CHECK(d.find("sets condition", d.find("'use'")) > d.find("body 0"));  // none on 'use'
}

TEST_CASE("dump shows a typed memset's value as its type, and a raw one as bits", "[first-hour][print]") {
  float f[8] = {};
  std::int32_t i[8] = {};
  std::uint8_t u[8] = {};
  std::int16_t s[8] = {};
  gd::Graph g("values");
  g.add_memset(f, 1.5f, 8);
  g.add_memset(i, -3, 8);
  g.add_memset(u, 0xFF, 8);
  g.add_memset(s, std::int16_t{-2}, 8);
  g.add_memset(f, 0, 8);  // an int literal for a float element: 0.0f
  g.add_memset_raw(f, 0x3f800000u, 4, 8);
  const std::string d = g.dump();
  INFO(d);
  CHECK(d.find("#0 memset: value 1.5 (float), 4-byte elements, 8 x 1") != std::string::npos);
  CHECK(d.find("#1 memset: value -3 (int32), 4-byte elements, 8 x 1") != std::string::npos);
  CHECK(d.find("#2 memset: value 255 (uint8), 1-byte elements, 8 x 1") != std::string::npos);
  CHECK(d.find("#3 memset: value -2 (int16), 2-byte elements, 8 x 1") != std::string::npos);
  CHECK(d.find("#4 memset: value 0 (float), 4-byte elements, 8 x 1") != std::string::npos);
  CHECK(d.find("#5 memset: value 0x3f800000, 4-byte elements, 8 x 1") != std::string::npos);
}

TEST_CASE("dump shows a copy's direction, and says when CUDA infers it", "[first-hour][print]") {
  float a[16] = {}, b[16] = {};
  gd::Graph g("copies");
  g.add_memcpy(a, b, 16, cudaMemcpyHostToDevice);
  g.add_memcpy(a, b, 16);
  const std::string d = g.dump();
  INFO(d);
  CHECK(d.find("#0 memcpy: 64 x 1 x 1 bytes, host-to-device") != std::string::npos);
  CHECK(d.find("#1 memcpy: 64 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time)") !=
        std::string::npos);
}

// ---- typed handles from plain nodes -------------------------------------------------------------

TEST_CASE("node_cast turns a Node into its typed handle and refuses another kind", "[first-hour][node_cast]") {
  float x[4] = {};
  gd::Graph g("cast");
  auto m = g.add_memset(x, 1.0f, 4).name("clear");
  auto k = g.add_kernel(saxpy, gd::Launch{1, 4}, x, x, 2.0f, 4).name("saxpy").after(m);
  const gd::Condition cond = g.add_condition(1);
  auto loop = g.add_while(cond, [&](gd::Graph& body) { body.add_kernel(fill, gd::Launch{1, 4}, x, 4); }).name("loop");

  const auto calls = gd::debug::cuda_calls();
  CHECK(gd::node_cast<gd::MemsetNode>(*g.find("clear")) == m);
  CHECK(gd::node_cast<gd::ConditionalNode>(g.node(2)) == loop);
  gd::KernelNodeOf<decltype(saxpy)> typed = gd::node_cast<gd::KernelNodeOf<decltype(saxpy)>>(g.nodes()[1]);
  CHECK(typed == k);
  CHECK(g.launch_of(typed).block.x == 4);
  CHECK(gd::node_cast<gd::KernelNodeFor<&saxpy>>(g.node(1)) == k);
  CHECK(gd::debug::cuda_calls() == calls);

  CHECK_USAGE_ERROR(gd::node_cast<gd::ConditionalNode>(g.node(0)),
                    "graphdsl: node_cast<ConditionalNode>: memset node 'clear' (#0) is not a conditional node");
  CHECK_USAGE_ERROR((gd::node_cast<gd::KernelNode<const float*, float*, float, int>>(g.node(2))),
                    "graphdsl: node_cast<KernelNode<...>>: conditional node 'loop' (#2) is not a kernel node");
  CHECK_USAGE_ERROR(gd::node_cast<gd::KernelNodeOf<decltype(fill)>>(g.node(1)),
                    "graphdsl: node_cast<KernelNode<...>>: kernel node 'saxpy' (#1) launches a kernel of 4 "
                    "parameters (8, 8, 4, 4 bytes), not of the handle's 2 parameters (8, 4 bytes); name the handle "
                    "from the kernel: KernelNodeOf<decltype(kernel)>");
  CHECK_USAGE_ERROR((gd::node_cast<gd::KernelNode<const float*, float*, int, int>>(g.node(1))),
                    "graphdsl: node_cast<KernelNode<...>>: kernel node 'saxpy' (#1) launches a kernel of 4 "
                    "parameters (8, 8, 4, 4 bytes), not of the handle's 4 parameters (8, 8, 4, 4 bytes) (same sizes, "
                    "other types); name the handle from the kernel: KernelNodeOf<decltype(kernel)>");
  CHECK_USAGE_ERROR(gd::node_cast<gd::EmptyNode>(gd::Node{}),
                    "graphdsl: empty node handle (a default-constructed Node was used)");
}

TEST_CASE("KernelNodeOf and KernelNodeFor name the handle from the kernel", "[first-hour][node_cast]") {
  STATIC_REQUIRE(std::is_same_v<gd::KernelNodeOf<decltype(saxpy)>, gd::KernelNode<const float*, float*, float, int>>);
  STATIC_REQUIRE(std::is_same_v<gd::KernelNodeOf<decltype(&saxpy)>, gd::KernelNode<const float*, float*, float, int>>);
  STATIC_REQUIRE(std::is_same_v<gd::KernelNodeFor<&fill>, gd::KernelNode<float*, int>>);
}

// ---- literals of another type -------------------------------------------------------------------

TEST_CASE("add_memset and add_set_condition convert an integer that fits exactly", "[first-hour][values]") {
  float f[4] = {};
  std::uint8_t u[4] = {};
  std::int16_t s[4] = {};
  gd::Graph g("literals");
  CHECK_NO_CUDA_CALL(g.add_memset(f, 0, 4));
  CHECK_NO_CUDA_CALL(g.add_memset(u, 255, 4));
  CHECK_NO_CUDA_CALL(g.add_memset(f, 16777216, 4));  // 2^24: exact in a float
  CHECK_USAGE_ERROR(g.add_memset(u, 256, 4),
                    "graphdsl: add_memset: 256 does not convert exactly to the element type (8-bit unsigned integer)");
  CHECK_USAGE_ERROR(g.add_memset(u, -1, 4),
                    "graphdsl: add_memset: -1 does not convert exactly to the element type (8-bit unsigned integer)");
  CHECK_USAGE_ERROR(g.add_memset(s, 40000, 4),
                    "graphdsl: add_memset: 40000 does not convert exactly to the element type (16-bit signed integer)");
  CHECK_USAGE_ERROR(g.add_memset(f, 16777217, 4),
                    "graphdsl: add_memset: 16777217 does not convert exactly to the element type (float)");
  CHECK(g.node_count() == 3);  // a refused value adds no node

  const gd::Condition cond = g.add_condition(1);
  const float* residual = f;
  g.add_while(cond, [&](gd::Graph& body) {
    CHECK_NO_CUDA_CALL(body.add_set_condition(cond, residual, gd::Compare::greater, 0));
    const unsigned* count = nullptr;
    CHECK_USAGE_ERROR(body.add_set_condition(cond, count, gd::Compare::less, -1),
                      "graphdsl: add_set_condition: -1 does not convert exactly to the value's type (32-bit unsigned "
                      "integer)");
  });
  CHECK(g.dump().find("#3 memset") == std::string::npos);
}

TEST_CASE("exact integer conversion at the limits of each type", "[first-hour][values]") {
  using gd::detail::fits_exactly;
  CHECK(fits_exactly<std::int8_t>(-128));
  CHECK_FALSE(fits_exactly<std::int8_t>(-129));
  CHECK(fits_exactly<std::uint32_t>(4294967295LL));
  CHECK_FALSE(fits_exactly<std::uint32_t>(4294967296LL));
  CHECK_FALSE(fits_exactly<std::uint32_t>(-1));
  CHECK(fits_exactly<std::int32_t>(2147483647u));
  CHECK_FALSE(fits_exactly<std::int32_t>(2147483648u));
  CHECK(fits_exactly<float>(-16777216));
  CHECK_FALSE(fits_exactly<float>(9223372036854775807LL));  // rounds up to 2^63
  CHECK(fits_exactly<float>(std::uint64_t{1} << 63));
  CHECK_FALSE(fits_exactly<float>(~std::uint64_t{0}));      // rounds up to 2^64
  CHECK(fits_exactly<double>(-9007199254740992LL));
  CHECK_FALSE(fits_exactly<double>(9007199254740993LL));
}
