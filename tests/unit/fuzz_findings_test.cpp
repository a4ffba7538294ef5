// Regression tests for what fuzzing the plan builder found (tests/fuzz, docs/reliability.md
// "Fuzzing"). Each case is the smallest plan showing the problem. No CUDA call.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "plan_checks.hpp"
#include "unit_support.hpp"

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace fuzz_findings_test {

namespace {

namespace gd = graphdsl;
using test_support::require_invalid;

void set_flag(cudaGraphConditionalHandle, int) {}
void no_params() {}

const std::string too_many = "more than 18446744073709551615";

}  // namespace

TEST_CASE("a body copied out of a conditional keeps position-based Condition references, checked where it is embedded",
          "[fuzz][validation]") {
  // The while body's kernel sets "condition 0 of the plan one level out". Copied out with
  // body_plan() and embedded as a child of a plan without conditions, that reference pointed past
  // the plan's condition handles: validate() passed and compiling would have read out of range.
  gd::Graph outer("outer");
  const gd::Condition loop = outer.add_condition(1);
  const gd::ConditionalNode w = outer.add_while(loop, [&](gd::Graph& body) { body.add_kernel(set_flag, gd::Launch{}, loop, 0); });
  CHECK_NO_CUDA_CALL(outer.validate());

  gd::Graph copied = outer.body_plan(w, 0);
  gd::Graph q("q");
  q.add_child(copied).name("copied");
  require_invalid(q, "in child node 'copied' (#0) of graph 'q': kernel node #0: a Condition argument refers to "
                     "condition number 0 of graph 'q', 1 level out, which declares 0 (a plan copied out of a "
                     "conditional body keeps its references to the conditions of the plan around that body)");

  // The same for a conditional node: a body holding an IF on the enclosing plan's condition
  // number 1, made the body of a plan that declares one condition.
  gd::Graph two("two");
  const gd::Condition c0 = two.add_condition(1);
  const gd::Condition c1 = two.add_condition(0);
  const gd::ConditionalNode w2 = two.add_while(c0, [&](gd::Graph& body) {
    body.add_if(c1, [](gd::Graph& inner) { inner.add_empty(); }).name("inner_if");
  });
  CHECK_NO_CUDA_CALL(two.validate());
  const gd::Graph body = two.body_plan(w2, 0);
  gd::Graph r("r");
  const gd::Condition rc = r.add_condition(1);
  r.add_while(rc, [&](gd::Graph& b) { b = body; }).name("loop");
  require_invalid(r, "in body 0 (while body) of conditional node 'loop' (#0) of graph 'r': conditional node "
                     "'inner_if' (#0): its Condition refers to condition number 1 of graph 'r', 1 level out, which "
                     "declares 1 (a plan copied out of a conditional body keeps its references to the conditions "
                     "of the plan around that body)");
}

TEST_CASE("sizes that overflow 64 bits fail the size rules instead of wrapping around", "[fuzz][validation]") {
  unit::Buffers buf;
  SECTION("a block whose thread count is 2^64") {
    gd::Graph g("g");
    g.add_kernel(unit::no_args, gd::Launch{dim3(1), dim3(1u << 22, 1u << 21, 1u << 21)}).name("huge");
    require_invalid(g, "kernel node 'huge' (#0): block (4194304,2097152,2097152) has " + too_many +
                           " threads; CUDA allows at most 1024 threads per block");
  }
  SECTION("a 2-D memset whose row does not fit in 64 bits") {
    gd::Graph g("g");
    const std::size_t width = std::numeric_limits<std::size_t>::max() / 2;
    g.add_memset_raw(buf.flags, 0, 4, width, 2, 16).name("rows");
    require_invalid(g, "memset node 'rows' (#0): sets " + too_many + " bytes, more than 9223372036854775807 bytes, "
                       "the largest size graphdsl accepts (a negative count converted to std::size_t, or a size that "
                       "wraps around?)");
  }
  SECTION("a memset of a graph buffer whose size wraps around to a few bytes") {
    gd::Graph g("g");
    const auto a = g.add_mem_alloc<float>(4);
    const std::size_t count = (std::size_t{1} << 62) + 1;  // 4 * count wraps around to 4 bytes
    // refused when the node is added (count * sizeof(float) is checked there), leaving the plan as it was
    CHECK_USAGE_ERROR(g.add_memset(a.buffer, 0.0f, count),
                      "graphdsl: add_memset: 4611686018427387905 elements of 4 bytes is more than "
                      "9223372036854775807 bytes, the largest size graphdsl accepts");
    CHECK(g.node_count() == 1);
  }
}

TEST_CASE("diff() of kernels without parameters", "[fuzz][update]") {
  // The plans' argument blocks are empty: the comparison used to hand memcmp a null pointer
  // (undefined behaviour reported by UBSan, for 0 bytes).
  gd::Graph a("a"), b("b");
  a.add_kernel(no_params, gd::Launch{});
  b.add_kernel(no_params, gd::Launch{});
  gd::UpdateResult r;
  CHECK_NO_CUDA_CALL(r = gd::diff(a, b));
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed.empty());
}

TEST_CASE("plans that diff() refuses for their graph memory have different fingerprints", "[fuzz][update]") {
  // Graph::fingerprint() promises that equal fingerprints mean update-compatible plans; the
  // allocation size, the buffer a node uses and the buffer a free frees were not hashed.
  unit::Buffers buf;
  auto plan = [&](std::size_t count, bool memset_second, bool free_second) {
    gd::Graph g("g");
    const auto first = g.add_mem_alloc<float>(count);
    const auto second = g.add_mem_alloc<float>(16);
    g.add_memset(memset_second ? second.buffer : first.buffer, 1.0f, 4).after(first.node, second.node);
    g.add_memcpy(buf.host_out, first.buffer, 4).after(first.node);
    g.add_mem_free(free_second ? second.buffer : first.buffer).after(g.node(2), g.node(3));
    return g;
  };
  const gd::Graph base = plan(16, false, false);
  for (const gd::Graph& other : {plan(32, false, false), plan(16, true, false), plan(16, false, true)}) {
    const gd::UpdateResult r = gd::diff(base, other);
    CHECK_FALSE(r);
    CHECK(base.fingerprint() != other.fingerprint());
  }
  const gd::Graph same = plan(16, false, false);
  CHECK(gd::diff(base, same));
  CHECK(base.fingerprint() == same.fingerprint());
}

}  // namespace fuzz_findings_test
