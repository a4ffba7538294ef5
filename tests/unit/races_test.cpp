// The static race checker (Graph::check_races, graphdsl/races.hpp): a corpus of plans with seeded
// races, each found and named; the samples' plans, rebuilt here as the samples build them (their
// builders live in .cu files next to __global__ kernels, which this host-compiled suite cannot
// include), with no race and no redundant edge; declared ranges and their misuse; a randomized
// comparison against a brute-force oracle. No CUDA call anywhere.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)
#include "unit_support.hpp"

namespace {

namespace gd = graphdsl;

// ---- stand-in kernels (never called) ----------------------------------------------------------
void write_x(float*, int) {}
void read_x(const float*, int) {}
void copy_kernel(const float*, float*, int) {}
void set_cond(cudaGraphConditionalHandle, const int*) {}

const gd::Launch one{1, 1};

/// The names of the two nodes of each race, "first|second".
std::set<std::string> pairs(const gd::RaceReport& r) {
  std::set<std::string> out;
  for (const gd::Race& x : r.races) out.insert(x.first.node.name + "|" + x.second.node.name);
  return out;
}

}  // namespace

// ---- the seeded corpus ------------------------------------------------------------------------

TEST_CASE("races: a diamond with a missing edge between a writer and a reader", "[races]") {
  float x[64] = {}, y[64] = {};
  gd::Graph g("diamond");
  auto top = g.add_memset(y, 0.0f, 64).name("clear y");
  auto left = g.add_kernel(write_x, one, x, 64).name("left").after(top);
  auto right = g.add_kernel(copy_kernel, one, x, y, 64).name("right").after(top);
  g.add_empty().name("join").after(left, right);
  gd::RaceReport r;
  CHECK_NO_CUDA_CALL(r = g.check_races());
  REQUIRE(r.races.size() == 1);
  CHECK_FALSE(r.ok());
  const gd::Race& race = r.races[0];
  CHECK(race.first.node.name == "left");
  CHECK(race.second.node.name == "right");
  CHECK(race.first.mode == gd::AccessMode::write);
  CHECK(race.second.mode == gd::AccessMode::read);
  CHECK_FALSE(race.write_write());
  CHECK(race.first.what == "kernel parameter 0 (T*, extent unknown: checked at the pointer)");
  CHECK(race.second.what == "kernel parameter 0 (const T*, extent unknown: checked at the pointer)");
  CHECK(race.to_string().rfind("write/read race: kernel node 'left' (#1) writes (kernel parameter 0", 0) == 0);
  CHECK(r.to_string().find("race check: 1 race, 0 redundant edges") == 0);

  right.after(left);  // the fix
  CHECK(g.check_races().ok());
  CHECK(g.check_races().races.empty());
}

TEST_CASE("races: a memcpy into a buffer that a kernel reads, unordered", "[races]") {
  float host[128] = {}, dev[128] = {};
  gd::Graph g("upload");
  g.add_memcpy(dev, host, 128).name("upload");
  g.add_kernel(read_x, one, dev + 32, 16).name("reader");  // a pointer inside the copied range
  const gd::RaceReport r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].first.node.name == "upload");
  CHECK(r.races[0].first.what == "memcpy destination");
  CHECK(r.races[0].second.node.name == "reader");
  CHECK(r.races[0].memory.find("(1 byte)") != std::string::npos);
}

TEST_CASE("races: two readers do not race; ordered writers do not race", "[races]") {
  float x[16] = {};
  gd::Graph g("fine");
  auto w1 = g.add_kernel(write_x, one, x, 16).name("w1");
  auto r1 = g.add_kernel(read_x, one, x, 16).name("r1").after(w1);
  auto r2 = g.add_kernel(read_x, one, x, 16).name("r2").after(w1);
  auto w2 = g.add_kernel(write_x, one, x, 16).name("w2").after(r1, r2);
  g.add_memset(x, 1.0f, 16).name("w3").after(w2);
  const gd::RaceReport r = g.check_races();
  CHECK(r.ok());
  CHECK(r.redundant_edges.empty());
  CHECK(r.unknown_extents == 4);
}

TEST_CASE("races: a conditional body writing what a sibling node reads", "[races]") {
  float x[8] = {};
  int flag = 0;
  gd::Graph g("loop");
  auto cond = g.add_condition(1);
  auto loop = g.add_while(cond, [&](gd::Graph& body) {
                 auto w = body.add_kernel(write_x, one, x, 8).name("step");
                 body.add_set_condition(cond, &flag, gd::Compare::greater, 0).name("again").after(w);
               }).name("loop");
  g.add_kernel(read_x, one, x, 8).name("sibling");
  const gd::RaceReport r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].first.node.describe() == "conditional node 'loop' (#0)");
  CHECK(r.races[0].first.via == "body 0: kernel node 'step' (#0)");
  CHECK(r.races[0].second.node.name == "sibling");

  // the same inside a child plan, and inside the body itself
  gd::Graph inner("inner");
  auto a = inner.add_kernel(write_x, one, x, 8).name("a");
  inner.add_kernel(write_x, one, x, 8).name("b");
  gd::Graph outer("outer");
  auto child = outer.add_child(inner).name("sub");
  outer.add_kernel(read_x, one, x, 8).name("after sub").after(child);
  const gd::RaceReport nested = outer.check_races();
  REQUIRE(nested.races.size() == 1);
  CHECK(nested.races[0].first.node.describe() == "kernel node 'a' (#0) in child node 'sub' (#0) of graph 'outer'");
  CHECK(nested.races[0].write_write());
  (void)a;
  (void)loop;
}

TEST_CASE("races: 2D copies with overlapping pitches, rows compared exactly", "[races]") {
  static unsigned char pitched[8 * 256] = {};
  static unsigned char src[8 * 256] = {};
  gd::Graph g("tiles");
  // columns [0, 64) and [64, 128) of 8 rows 256 bytes apart: disjoint although their bounding ranges overlap
  g.add_memcpy_2d(pitched, 256, src, 64, 64, 8).name("left tile");
  g.add_memcpy_2d(pitched + 64, 256, src, 64, 64, 8).name("right tile");
  CHECK(g.check_races().ok());
  // columns [32, 96): overlaps both
  g.add_memcpy_2d(pitched + 32, 256, src, 64, 64, 8).name("middle tile");
  CHECK(pairs(g.check_races()) == std::set<std::string>{"left tile|middle tile", "right tile|middle tile"});

  // another pitch: 4 rows 512 bytes apart starting at byte 128 miss [0, 128) of every 256-byte row
  gd::Graph h("pitches");
  h.add_memcpy_2d(pitched, 256, src, 128, 128, 8).name("narrow");
  h.add_memset_2d(pitched + 128, 512, std::uint8_t{1}, 128, 4).name("odd pitch");
  CHECK(h.check_races().ok());
  h.add_memset_2d(pitched + 120, 512, std::uint8_t{1}, 16, 4).name("straddles");
  CHECK(pairs(h.check_races()) == std::set<std::string>{"narrow|straddles", "odd pitch|straddles"});
}

TEST_CASE("races: 3D copies with partial slices", "[races]") {
  static unsigned char a[4 * 8 * 64] = {};  // 4 slices of 8 rows of 64 bytes
  static unsigned char b[4 * 8 * 64] = {};
  auto box = [&](std::size_t y) {
    cudaMemcpy3DParms p{};
    p.dstPtr = cudaPitchedPtr{a, 64, 64, 8};
    p.dstPos = cudaPos{0, y, 0};
    p.srcPtr = cudaPitchedPtr{b, 64, 64, 8};
    p.extent = cudaExtent{64, 2, 4};  // rows y, y+1 of every slice
    return p;
  };
  gd::Graph g("boxes");
  g.add_memcpy_3d(box(0)).name("rows 0-1");
  g.add_memcpy_3d(box(2)).name("rows 2-3");
  CHECK(g.check_races().ok());
  g.add_memcpy_3d(box(1)).name("rows 1-2");
  CHECK(pairs(g.check_races()) == std::set<std::string>{"rows 0-1|rows 1-2", "rows 2-3|rows 1-2"});
}

TEST_CASE("races: redundant edges are listed", "[races]") {
  float x[4] = {};
  gd::Graph g("chain");
  auto a = g.add_kernel(write_x, one, x, 4).name("a");
  auto b = g.add_kernel(write_x, one, x, 4).name("b").after(a);
  auto c = g.add_kernel(write_x, one, x, 4).name("c").after(b);
  c.after(a);
  const gd::RaceReport r = g.check_races();
  CHECK(r.ok());
  REQUIRE(r.redundant_edges.size() == 1);
  CHECK(r.redundant_edges[0].from.name == "a");
  CHECK(r.redundant_edges[0].to.name == "c");
  CHECK(r.to_string().find("redundant edge 'a' -> 'c': implied by another path") != std::string::npos);
}

// An edge that lets its successor start early (programmatic, launch completion) does not finish its
// predecessor before the path's last node starts: an edge that only such a path implies is needed.
TEST_CASE("races: an edge implied only through a programmatic or launch-completion first edge is not redundant",
          "[races][pdl]") {
  float x[4] = {};
  for (const gd::EdgeKind early : {gd::EdgeKind::programmatic, gd::EdgeKind::launch_completion}) {
    INFO(static_cast<int>(early));
    gd::Graph g("early");
    auto a = g.add_kernel(write_x, one, x, 4).name("a");
    auto b = g.add_kernel(write_x, one, x, 4).name("b").after(a, early);  // b may start before a finishes
    auto c = g.add_kernel(write_x, one, x, 4).name("c").after(b);
    c.after(a);  // the only edge that finishes a before c starts
    CHECK(g.check_races().redundant_edges.empty());

    gd::Graph late("late");  // the early edge last on the path: a finishes before b, so before c starts
    auto a2 = late.add_kernel(write_x, one, x, 4).name("a");
    auto b2 = late.add_kernel(write_x, one, x, 4).name("b").after(a2);
    auto c2 = late.add_kernel(write_x, one, x, 4).name("c").after(b2, early);
    c2.after(a2);
    const gd::RaceReport r = late.check_races();
    REQUIRE(r.redundant_edges.size() == 1);
    CHECK(r.redundant_edges[0].from.name == "a");
    CHECK(r.redundant_edges[0].to.name == "c");
  }
}

// Every pair of unordered writers races; each pair is counted once, also when both nodes touch
// the memory twice (then the pairs are remembered), and without remembering pairs otherwise.
TEST_CASE("races: unordered writers are counted once per pair, with one access or several", "[races]") {
  float x[64] = {}, y[64] = {};
  const std::size_t n = 1500;
  gd::Graph single("single");
  for (std::size_t k = 0; k < n; ++k) single.add_kernel(write_x, one, x, 64);
  const gd::RaceReport r = single.check_races();
  CHECK(r.races_found == n * (n - 1) / 2);
  CHECK(r.races.size() == gd::RaceReport::max_races);

  gd::Graph twice("twice");  // each host node writes x and y: a pair races on both, counted once
  for (int k = 0; k < 40; ++k) twice.add_host([] {}).accesses(gd::writes(x, 64), gd::writes(y, 64));
  CHECK(twice.check_races().races_found == 40 * 39 / 2);
}

TEST_CASE("races: host and captured nodes are unbounded unless they declare accesses", "[races]") {
  float x[16] = {};
  gd::Graph g("host");
  g.add_kernel(write_x, one, x, 16).name("producer");
  auto h = g.add_host([] {}).name("consumer");
  g.add_captured([](cudaStream_t) {}).name("library call");
  gd::RaceReport r = g.check_races();
  CHECK(r.ok());
  REQUIRE(r.unbounded.size() == 2);
  CHECK(r.unbounded[0].node.describe() == "host node 'consumer' (#1)");
  CHECK(r.unbounded[0].reason == "a host callback with no accesses() declaration: not checked");
  CHECK(r.unbounded[1].reason == "captured work with no accesses() declaration: not checked");

  h.accesses(gd::reads(x, 16));
  r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].second.what == "accesses() range");
  CHECK(r.unbounded.size() == 1);
}

TEST_CASE("races: gd::reads / gd::writes give exact ranges and pass the plain pointer", "[races]") {
  float x[64] = {};
  gd::Graph g("halves");
  g.add_kernel(write_x, one, gd::writes(x, 0, 32), 64).name("low");
  g.add_kernel(write_x, one, gd::writes(x, 32, 32), 64).name("high");
  CHECK(g.check_races().ok());
  CHECK(g.check_races().unknown_extents == 0);
  g.add_kernel(write_x, one, gd::writes(x, 16, 32), 64).name("middle");
  CHECK(pairs(g.check_races()) == std::set<std::string>{"low|middle", "high|middle"});

  // the kernel gets x itself: the same parameters as a plan built without the wrapper
  gd::Graph plain("halves");
  plain.add_kernel(write_x, one, x, 64);
  gd::Graph wrapped("halves");
  wrapped.add_kernel(write_x, one, gd::writes(x, 32, 32), 64);
  CHECK(plain.impl().args == wrapped.impl().args);

  // gd::reads narrows a T* parameter to reads: two "readers" through non-const pointers
  gd::Graph r("narrowed");
  r.add_kernel(write_x, one, gd::reads(x, 64), 64).name("r1");
  r.add_kernel(write_x, one, gd::reads(x, 64), 64).name("r2");
  CHECK(r.check_races().ok());
  r.add_kernel(copy_kernel, one, x, gd::writes(x + 8, 4), 64).name("w");
  CHECK(pairs(r.check_races()) == std::set<std::string>{"r1|w", "r2|w"});
}

TEST_CASE("races: graph buffers and conditions", "[races]") {
  float out[32] = {};
  int value = 0;
  gd::Graph g("memory");
  auto [alloc, buf] = g.add_mem_alloc<float>(32);
  auto w = g.add_kernel(write_x, one, buf, 32).name("fill").after(alloc);
  g.add_memcpy(out, buf, 32).name("download").after(alloc);
  gd::RaceReport r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].first.node.name == "fill");
  CHECK(r.races[0].first.what == "kernel parameter 0 (GraphBuffer: the whole buffer)");
  CHECK(r.races[0].memory == "the graph buffer of mem_alloc node #0, bytes [0, 128)");
  (void)w;

  // declared halves of a graph buffer
  gd::Graph h("buffer halves");
  auto [a2, b2] = h.add_mem_alloc<float>(32);
  h.add_kernel(write_x, one, gd::writes(b2, 0, 16), 16).name("low").after(a2);
  h.add_kernel(write_x, one, gd::writes(b2, 16, 16), 16).name("high").after(a2);
  CHECK(h.check_races().ok());

  // a kernel setting a condition, unordered with the conditional node that reads it
  gd::Graph c("condition");
  auto cond = c.add_condition(0, false);
  c.add_kernel(set_cond, one, cond, &value).name("choose");
  c.add_if(cond, [&](gd::Graph& body) { body.add_kernel(write_x, one, out, 32).name("then"); }).name("if");
  r = c.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].first.what == "kernel parameter 0 (sets the Condition)");
  CHECK(r.races[0].second.what == "evaluating its Condition");
  CHECK(r.races[0].memory == "Condition 0 of graph 'condition'");
}

TEST_CASE("races: validate(ValidateOptions) throws naming the first pair", "[races]") {
  float x[4] = {};
  gd::Graph g("v");
  g.add_kernel(write_x, one, x, 4).name("a");
  g.add_kernel(write_x, one, x, 4).name("b");
  g.add_kernel(read_x, one, x, 4).name("c");
  CHECK_NO_CUDA_CALL(g.validate());
  const std::string msg = unit::usage_error_of([&] { g.validate(gd::ValidateOptions{true}); });
  CHECK(msg.rfind("graphdsl: write/write race: kernel node 'a' (#0) writes (kernel parameter 0 (T*", 0) == 0);
  CHECK(msg.find("(2 more: see Graph::check_races())") != std::string::npos);
  CHECK_NO_CUDA_CALL(g.validate(gd::ValidateOptions{false}));
}

TEST_CASE("races: declared ranges outside their buffer and other bad input", "[races]") {
  float x[4] = {};
  gd::Graph g("bad");
  auto [alloc, buf] = g.add_mem_alloc<float>(16);
  CHECK_USAGE_ERROR(g.add_kernel(write_x, one, gd::writes(buf, 8, 16), 16),
                    "graphdsl: kernel node #1, parameter 0: gd::writes declares elements [8, 24) of a graph buffer "
                    "of 16 elements; a declared range must lie inside its buffer");
  CHECK(g.node_count() == 1);  // the refused add_kernel left no node behind: the host node is #1
  auto h = g.add_host([] {}).name("log");
  CHECK_USAGE_ERROR(h.accesses(gd::reads(buf, 17)),
                    "graphdsl: host node 'log' (#1), accesses(): gd::reads declares elements [0, 17) of a graph "
                    "buffer of 16 elements; a declared range must lie inside its buffer");
  CHECK_USAGE_ERROR(h.accesses(gd::reads(static_cast<const float*>(nullptr), 4)),
                    "graphdsl: host node 'log' (#1), accesses(): gd::reads declares elements [0, 4) at a null "
                    "pointer");
  CHECK_USAGE_ERROR(h.accesses(gd::writes(x, SIZE_MAX / 2, 4)),
                    "graphdsl: host node 'log' (#1), accesses(): gd::writes declares elements [9223372036854775807, "
                    "9223372036854775811) of 4 bytes each; the byte range does not fit in 64 bits");
  CHECK_NO_CUDA_CALL(h.accesses(gd::reads(buf, 16), gd::writes(x, 4)));
  (void)alloc;

  // a cycle is named, as validate() names it
  gd::Graph cyc("cycle");
  auto p = cyc.add_empty().name("p");
  auto q = cyc.add_empty().name("q").after(p);
  p.after(q);
  CHECK_USAGE_ERROR(cyc.check_races(), "graphdsl: cycle: 'p' -> 'q' -> 'p'");
}

// ---- the samples' plans: no race, no redundant edge --------------------------------------------

namespace {
namespace qs {  // samples/quickstart
void scale(float*, float, int) {}
}  // namespace qs
namespace pl {  // samples/pipeline and samples/graph_update_experiments
void scale(const float*, float*, float, int) {}
void square(const float*, float*, int) {}
void offset(const float*, float*, float, int) {}
void combine(const float*, const float*, const float*, float*, int) {}
void mul_by(const float*, float*, float, int) {}
void combine3(const float*, const float*, float*, float, int) {}
}  // namespace pl
namespace cw {  // samples/conditional_while
void jacobi_step(const float*, const float*, const float*, float*, float*, int) {}
void count_iteration(int*, float*, int) {}
}  // namespace cw
namespace sd {  // samples/switch_dispatch
void summarize(const int*, int, int*, int*) {}
void select_case(cudaGraphConditionalHandle, const int*) {}
void twice(const int*, float*, int*, int, int) {}
void square(const int*, float*, int*, int, int) {}
void offset(const int*, float*, float, int) {}
void halve(float*, int*, int, int) {}
void centre(const int*, float*, float, int*, int, int) {}
}  // namespace sd

void expect_clean(const gd::Graph& g) {
  const gd::RaceReport r = g.check_races();
  INFO(r.to_string());
  CHECK(r.ok());
  CHECK(r.redundant_edges.empty());
  CHECK_NOTHROW(g.validate(gd::ValidateOptions{true}));
}
}  // namespace

TEST_CASE("races: the samples' plans have no race and no redundant edge", "[races][samples]") {
  constexpr int n = 1024;
  std::vector<float> f(8 * n);
  std::vector<int> ints(2 * n);
  const gd::Launch grid = gd::cover(n);
  {  // quickstart
    gd::Graph g("quickstart");
    auto up = g.add_memcpy(f.data() + n, f.data(), n).name("upload");
    auto twice = g.add_kernel(qs::scale, grid, f.data() + n, 2.0, n).name("twice").after(up);
    g.add_memcpy(f.data(), f.data() + n, n).name("download").after(twice);
    expect_clean(g);
  }
  {  // pipeline: the stand-ins are slices of one vector, as in the sample's --dot mode
    float *h_in = f.data(), *d_in = h_in + n, *d_x = d_in + n, *d_y = d_x + n, *d_z = d_y + n, *d_out = d_z + n,
          *h_out = d_out + n;
    gd::Graph g("pipeline");
    auto upload = g.add_memcpy(d_in, h_in, n, cudaMemcpyHostToDevice).name("upload");
    auto sx = g.add_kernel(pl::scale, grid, d_in, d_x, 2.5f, n).name("scale").after(upload);
    auto sq = g.add_kernel(pl::square, grid, d_in, d_y, n).name("square").after(upload);
    auto off = g.add_kernel(pl::offset, grid, d_in, d_z, -0.75f, n).name("offset").after(upload);
    auto join = g.add_kernel(pl::combine, grid, d_x, d_y, d_z, d_out, n).name("combine").after(sx, sq, off);
    auto download = g.add_memcpy(h_out, d_out, n, cudaMemcpyDeviceToHost).name("download").after(join);
    g.add_host([] {}).name("checksum").after(download);
    expect_clean(g);
    CHECK(g.check_races().unbounded.size() == 1);
  }
  {  // graph_update_experiments (default knobs)
    float *h_in = f.data(), *d_in = h_in + n, *d_a = d_in + n, *d_b = d_a + n, *d_out = d_b + n, *h_out = d_out + n;
    int* d_tag = ints.data();
    gd::Graph g("pipeline");
    auto upload = g.add_memcpy(d_in, h_in, n).name("upload");
    auto mul = g.add_kernel(pl::mul_by, grid, d_in, d_a, 2.0f, n).name("mul").after(upload);
    auto add = g.add_kernel(pl::mul_by, grid, d_in, d_b, 0.5f, n).name("add").after(upload);
    auto join = g.add_kernel(pl::combine3, grid, d_a, d_b, d_out, 1.5f, n).name("combine").after(mul, add);
    auto mark = g.add_memset(d_tag, 7, n).name("mark").after(join);
    auto download = g.add_memcpy(h_out, d_out, n).name("download").after(mark);
    g.add_host([] {}).name("report").after(download);
    expect_clean(g);
  }
  {  // conditional_while: A and b are the same stand-in, as in the sample
    float* s = f.data();
    int* iterations = ints.data();
    gd::Graph g("jacobi");
    auto reset_x = g.add_memset(s + n, 0.0f, n).name("reset x");
    auto reset_count = g.add_memset(iterations, 0, 1).name("reset count");
    gd::Condition more = g.add_condition(1);
    g.add_while(more,
                [&](gd::Graph& body) {
                  auto clear = body.add_memset(s + 3 * n, 0.0f, 1).name("clear residual");
                  auto step = body.add_kernel(cw::jacobi_step, grid, s, s, s + n, s + 2 * n, s + 3 * n, n)
                                  .name("jacobi step")
                                  .after(clear);
                  body.add_memcpy(s + n, s + 2 * n, n, cudaMemcpyDeviceToDevice).name("x = x_new").after(step);
                  auto count = body.add_kernel(cw::count_iteration, one, iterations, s + 3 * n, 2000)
                                   .name("count iteration")
                                   .after(step);
                  body.add_set_condition(more, static_cast<const float*>(s + 3 * n), gd::Compare::greater, 1e-5f)
                      .name("residual > tol")
                      .after(count);
                })
        .name("until converged")
        .after(reset_x, reset_count);
    expect_clean(g);
  }
  {  // switch_dispatch: both plans; h_x and d_x are the same stand-in, as in the sample
    int *h_x = ints.data(), *d_x = h_x, *h_info = ints.data() + n, *d_info = h_info + 3;
    float *h_y = f.data(), *d_y = h_y + n;
    int *sum = d_info, *mode_v = d_info + 1, *marker = d_info + 2;
    for (int plan = 0; plan < 2; ++plan) {
      gd::Graph g(plan == 0 ? "dispatch" : "threshold");
      auto upload = g.add_memcpy(d_x, h_x, n, cudaMemcpyHostToDevice).name("upload");
      auto poison_y = g.add_memset(d_y, 0.0f, n).name("poison y");
      auto poison_marker = g.add_memset(marker, -1, 1).name("poison marker");
      auto summed =
          g.add_kernel(sd::summarize, gd::Launch{1, 1024}, d_x, n, sum, mode_v).name("summarize").after(upload);
      gd::ConditionalNode branch;
      if (plan == 0) {
        gd::Condition mode = g.add_condition(0, false);
        auto select = g.add_kernel(sd::select_case, one, mode, mode_v).name("select case").after(summed);
        branch = g.add_switch(
                      mode, [&](gd::Graph& b) { b.add_kernel(sd::twice, grid, d_x, d_y, marker, 0, n).name("double"); },
                      [&](gd::Graph& b) { b.add_kernel(sd::square, grid, d_x, d_y, marker, 1, n).name("square"); },
                      [&](gd::Graph& b) {
                        auto o = b.add_kernel(sd::offset, grid, d_x, d_y, 7.0f, n).name("offset");
                        b.add_kernel(sd::halve, grid, d_y, marker, 2, n).name("halve").after(o);
                      })
                     .name("dispatch")
                     .after(select, poison_y, poison_marker);
      } else {
        gd::Condition high = g.add_condition();
        auto test = g.add_set_condition(high, static_cast<const int*>(sum), gd::Compare::greater, 500 * n)
                        .name("sum > 500 n")
                        .after(summed);
        branch =
            g.add_if_else(
                 high,
                 [&](gd::Graph& b) { b.add_kernel(sd::centre, grid, d_x, d_y, 1.0f, marker, 10, n).name("above"); },
                 [&](gd::Graph& b) { b.add_kernel(sd::centre, grid, d_x, d_y, -1.0f, marker, 20, n).name("below"); })
                .name("branch")
                .after(test, poison_y, poison_marker);
      }
      auto down_y = g.add_memcpy(h_y, d_y, n, cudaMemcpyDeviceToHost).name("download y").after(branch);
      g.add_memcpy(h_info, d_info, 3, cudaMemcpyDeviceToHost).name("download info").after(down_y);
      expect_clean(g);
    }
  }
}

// ---- a randomized comparison with a brute-force oracle ------------------------------------------

namespace {
void touch2(const float*, float*) {}
}  // namespace

TEST_CASE("races: random plans agree with a brute-force oracle", "[races]") {
  static float pool[8] = {};
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const int nodes = seed % 3 == 0 ? 300 : 60;  // 300 nodes over 8 pointers: groups above 64 accesses
    gd::Graph g("random");
    std::vector<std::pair<int, int>> use(nodes);                                   // (read pointer, written pointer)
    std::vector<std::vector<bool>> reach(nodes, std::vector<bool>(nodes, false));  // reach[u][v]: u before v
    for (int v = 0; v < nodes; ++v) {
      use[v] = {static_cast<int>(rng() % 8), static_cast<int>(rng() % 8)};
      auto node = g.add_kernel(touch2, one, pool + use[v].first, pool + use[v].second).name(std::to_string(v));
      for (int u = 0; u < v; ++u) {
        if (rng() % 100 < (nodes > 100 ? 2u : 6u)) {
          node.after(g.node(static_cast<std::uint32_t>(u)));
          reach[u][v] = true;
          for (int w = 0; w < u; ++w) reach[w][v] = reach[w][v] || reach[w][u];
        }
      }
    }
    std::set<std::string> want;
    for (int u = 0; u < nodes; ++u) {
      for (int v = u + 1; v < nodes; ++v) {
        const bool conflict = use[u].second == use[v].second || use[u].second == use[v].first ||
                              use[u].first == use[v].second;
        if (conflict && !reach[u][v]) want.insert(std::to_string(u) + "|" + std::to_string(v));
      }
    }
    const gd::RaceReport r = g.check_races();
    INFO("seed " << seed);
    CHECK(r.races_found == want.size());
    const std::set<std::string> got = pairs(r);
    CHECK(got.size() == std::min(want.size(), gd::RaceReport::max_races));
    CHECK(std::includes(want.begin(), want.end(), got.begin(), got.end()));
  }
}

// Ordering questions are answered by searches backwards over predecessor lists until they have read
// a few times the plan's edges, then by one bitset row per node (src/plan/race_order.hpp): small
// plans stay with the searches, the dense ones below run out and finish with the bitsets. Both
// must list the redundant edges, and the races of a chain updating one buffer, as a brute force does.
TEST_CASE("races: redundant edges and chained updates agree with a brute-force oracle", "[races]") {
  static float buffer[64] = {};
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    std::mt19937 rng(seed);
    const int nodes = seed % 4 == 0 ? 600 : 80;  // 600 nodes of ~60 close predecessors: the searches run out
    const int window = nodes > 100 ? 200 : 10;
    const unsigned density = nodes > 100 ? 30 : 25;  // percent of the window
    gd::Graph g("random");
    std::vector<std::vector<int>> preds(nodes);
    std::vector<std::vector<bool>> anc(nodes, std::vector<bool>(nodes, false));  // anc[v][u]: u runs before v
    for (int v = 0; v < nodes; ++v) {
      // every node updates the buffer; a node with no predecessor leaves the chain (races)
      auto node = g.add_kernel(write_x, one, gd::writes(buffer, 64), 64).name(std::to_string(v));
      for (int u = std::max(0, v - window); u < v; ++u) {
        if (rng() % 100 >= density && u != v - 1) continue;
        node.after(g.node(static_cast<std::uint32_t>(u)));
        preds[v].push_back(u);
        anc[v][u] = true;
        for (int w = 0; w < u; ++w) anc[v][w] = anc[v][w] || anc[u][w];
      }
    }
    std::set<std::pair<std::uint32_t, std::uint32_t>> want;
    for (int v = 0; v < nodes; ++v) {
      for (int p : preds[v]) {
        for (int q : preds[v]) {
          if (q != p && anc[q][p]) want.insert({static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(v)});
        }
      }
    }
    const gd::RaceReport r = g.check_races();
    std::set<std::pair<std::uint32_t, std::uint32_t>> got;
    for (const gd::RedundantEdge& e : r.redundant_edges) got.insert({e.from.index, e.to.index});
    INFO("seed " << seed << ", " << nodes << " nodes");
    CHECK(got == want);
    CHECK(r.redundant_edges.size() == want.size());
    CHECK(r.races_found == 0);  // each node after the one before it: a chain, whatever else it has
  }
}
