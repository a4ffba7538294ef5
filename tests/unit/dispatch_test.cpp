// Unit tests of gd::dispatch and gd::Buckets (graphdsl/dispatch.hpp): bucket mapping at every size
// and bound, validation messages naming the dispatch and the bucket, the plan dispatch() builds
// (alone and nested in a WHILE). No CUDA call.
#include <string>
#include <vector>

#include <graphdsl/dispatch.hpp>

#include "unit_support.hpp"

namespace dispatch_test {

namespace {
namespace gd = graphdsl;
void work(float*, int) {}
void advance(int*, cudaGraphConditionalHandle, int) {}
float* const X = reinterpret_cast<float*>(0x10000);
int* const SIZE = reinterpret_cast<int*>(0x20000);
}  // namespace

TEST_CASE("Buckets map every size to its bucket, bounds included", "[dispatch]") {
  const gd::Buckets b(1, 128, {1, 2, 4, 8, 16, 32, 64, 128});
  CHECK_NOTHROW(b.validate("decode"));
  CHECK(b.size() == 8);
  for (int s = 1; s <= 128; ++s) {
    const unsigned i = b.bucket_of(s);
    REQUIRE(i < 8);
    const gd::Bucket k = b.bucket(i);
    CHECK(k.lower <= s);
    CHECK(s <= k.upper);
    CHECK(k.index == i);
  }
  CHECK(b.bucket_of(0) == 8);
  CHECK(b.bucket_of(129) == 8);
  CHECK(b.bucket_of(-5) == 8);
  CHECK(b.bucket(3).lower == 5);
  CHECK(b.bucket(3).upper == 8);
  CHECK(b.bucket(0).lower == 1);
  const gd::detail::DispatchBounds d = b.bounds();
  CHECK(d.count == 8);
  CHECK(d.lower == 1);
  CHECK(d.upper[7] == 128);
  CHECK_USAGE_ERROR(b.bucket(8), "graphdsl: dispatch: bucket 8 does not exist (8 buckets)");
}

TEST_CASE("Buckets::validate names the dispatch, the bucket and the buffer", "[dispatch]") {
  CHECK_USAGE_ERROR(gd::Buckets(1, 8, {}).validate("d"), "graphdsl: dispatch 'd': 0 buckets; a dispatch has 1 to 32");
  CHECK_USAGE_ERROR(gd::Buckets(1, 40, std::vector<int>(33, 1)).validate("d"),
                    "graphdsl: dispatch 'd': 33 buckets; a dispatch has 1 to 32");
  CHECK_USAGE_ERROR(gd::Buckets(9, 8, {8}).validate("d"), "graphdsl: dispatch 'd': the declared range 9..8 is empty");
  CHECK_USAGE_ERROR(gd::Buckets(4, 8, {2, 8}).validate("d"),
                    "graphdsl: dispatch 'd': bucket 0 ends at 2, below the declared smallest size 4");
  CHECK_USAGE_ERROR(gd::Buckets(1, 16, {1, 4, 4, 16}).validate("decode"),
                    "graphdsl: dispatch 'decode': bucket 2 ends at 4, not above bucket 1 (ends at 4): upper bounds "
                    "must increase strictly");
  CHECK_USAGE_ERROR(gd::Buckets(1, 128, {1, 2, 4, 8, 16, 32, 64}).validate("decode"),
                    "graphdsl: dispatch 'decode': sizes 65..128 have no bucket (the last, bucket 6, ends at 64; the "
                    "declared range is 1..128)");
  CHECK_USAGE_ERROR(gd::Buckets(1, 8, {4, 8, 16}).validate("decode"),
                    "graphdsl: dispatch 'decode': bucket 2 (sizes 9..16) lies above the declared range 1..8");
  gd::Buckets sized(1, 16, {4, 8, 16});
  sized.buffer("x", 8 * 64, 64);
  CHECK_USAGE_ERROR(sized.validate("decode"),
                    "graphdsl: dispatch 'decode': bucket 2 (sizes 9..16) needs 0 + 64 x 16 = 1024 elements of buffer "
                    "'x', which holds 512");
  gd::Buckets per(1, 16, {4, 8, 16});
  per.buffer("x", 16 * 64, 64).buffer_for(1, "workspace", 100, 16, 4);
  CHECK_USAGE_ERROR(per.validate("decode"),
                    "graphdsl: dispatch 'decode': bucket 1 (sizes 5..8) needs 4 + 16 x 8 = 132 elements of buffer "
                    "'workspace', which holds 100");
  gd::Buckets missing(1, 16, {4, 8, 16});
  missing.buffer_for(3, "w", 100, 1);
  CHECK_USAGE_ERROR(missing.validate("decode"),
                    "graphdsl: dispatch 'decode': buffer 'w' is declared for bucket 3, which does not exist (3 buckets)");
}

TEST_CASE("dispatch adds a select kernel and a SWITCH with one body per bucket", "[dispatch]") {
  const std::uint64_t calls = gd::debug::cuda_calls();
  gd::Graph g("serve");
  const gd::Buckets b(1, 16, {2, 4, 8, 16});
  std::vector<int> built;
  auto before = g.add_memset(X, 0.0f, 16).name("clear");
  gd::Dispatch d = gd::dispatch(g, "decode", SIZE, b, [&](const gd::Bucket& k, gd::Graph& body) {
    built.push_back(k.upper);
    body.add_kernel(work, gd::Launch{static_cast<unsigned>(k.upper), 32}, X, k.upper).name("work");
  });
  d.select.after(before);
  CHECK(built == std::vector<int>{2, 4, 8, 16});
  CHECK(g.node_count() == 3);
  CHECK(d.node.name() == "decode");
  CHECK(d.select.name() == "decode: select");
  CHECK(g.conditional_type(d.node) == gd::ConditionalType::switch_case);
  CHECK(g.successors(d.select).size() == 1);
  CHECK(g.successors(d.select)[0] == gd::Node(d.node));
  CHECK(g.body_plan(d.node, 3).node_count() == 1);
  CHECK_NOTHROW(g.validate());
  CHECK(gd::debug::cuda_calls() == calls);
  CHECK_USAGE_ERROR(gd::dispatch(g, "bad", nullptr, b, [](const gd::Bucket&, gd::Graph&) {}),
                    "graphdsl: dispatch 'bad': the size pointer is null");
  CHECK_USAGE_ERROR(gd::dispatch(g, "gap", SIZE, gd::Buckets(1, 16, {2, 4}), [](const gd::Bucket&, gd::Graph&) {}),
                    "graphdsl: dispatch 'gap': sizes 5..16 have no bucket (the last, bucket 1, ends at 4; the declared "
                    "range is 1..16)");
  CHECK(g.node_count() == 3);  // refused before adding anything
}

TEST_CASE("dispatch nests in a WHILE body: K steps of changing sizes in one plan", "[dispatch]") {
  gd::Graph g("loop");
  const gd::Buckets b(1, 8, {1, 2, 4, 8});
  gd::Condition more = g.add_condition(1);
  g.add_while(more, [&](gd::Graph& body) {
     gd::Dispatch d = gd::dispatch(body, "step", SIZE, b, [&](const gd::Bucket& k, gd::Graph& inner) {
       inner.add_kernel(work, gd::Launch{static_cast<unsigned>(k.upper), 32}, X, k.upper).name("work");
     });
     body.add_kernel(advance, gd::Launch{1, 1}, SIZE, more, 100).name("advance").after(d.node);
   }).name("decode loop");
  CHECK_NOTHROW(g.validate());
  const std::string dump = g.dump();
  CHECK_THAT(dump, has_substr("conditional 'step': switch, 4 bodies"));
  CHECK_THAT(dump, has_substr("kernel 'step: select'"));
}

}  // namespace dispatch_test
