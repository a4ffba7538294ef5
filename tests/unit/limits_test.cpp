// Sizes, counts and launch shapes at their limits: every size a
// user gives is checked for overflow, sign and CUDA's limits, and refused with a UsageError naming
// the call or the node, before any CUDA call — never wrapped into a small size that validates.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "unit_support.hpp"
#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)

namespace gd = graphdsl;

namespace {
constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();
const std::string too_big = "9223372036854775807";  // PTRDIFF_MAX: the largest size graphdsl accepts

std::string kernel_with(const gd::Launch& l) {
  gd::Graph g("shape");
  g.add_kernel(unit::no_args, l).name("k");
  return unit::usage_error_of([&] { g.validate(); });
}
}  // namespace

// ---- launch shapes ----------------------------------------------------------------------------

TEST_CASE("grid and block dimensions beyond CUDA's limits are refused by validate()", "[reliability][launch]") {
  CHECK(kernel_with(gd::Launch{dim3(1, 65536, 1), dim3(1)}) ==
        "graphdsl: kernel node 'k' (#0): grid (1,65536,1) has y = 65536; CUDA allows at most 65535 in grid.y");
  CHECK(kernel_with(gd::Launch{dim3(1, 1, 65536), dim3(1)}) ==
        "graphdsl: kernel node 'k' (#0): grid (1,1,65536) has z = 65536; CUDA allows at most 65535 in grid.z");
  CHECK(kernel_with(gd::Launch{dim3(2147483648u), dim3(1)}) ==
        "graphdsl: kernel node 'k' (#0): grid (2147483648,1,1) has x = 2147483648; CUDA allows at most 2147483647 "
        "in grid.x");
  CHECK(kernel_with(gd::Launch{dim3(1), dim3(1, 1, 65)}) ==
        "graphdsl: kernel node 'k' (#0): block (1,1,65) has z = 65; CUDA allows at most 64 in block.z");
  CHECK(kernel_with(gd::Launch{dim3(1), dim3(1025, 1, 1)}) ==
        "graphdsl: kernel node 'k' (#0): block (1025,1,1) has 1025 threads; CUDA allows at most 1024 threads per "
        "block");  // x or y above 1024 always breaks the thread total too, which is checked first
  CHECK(kernel_with(gd::Launch{dim3(1), dim3(1, 2048, 1)}) ==
        "graphdsl: kernel node 'k' (#0): block (1,2048,1) has 2048 threads; CUDA allows at most 1024 threads per "
        "block");
  // The largest shapes CUDA takes validate.
  CHECK(kernel_with(gd::Launch{dim3(2147483647u, 65535, 65535), dim3(1, 1, 64)}) == "<no exception>");
  CHECK(kernel_with(gd::Launch{dim3(1), dim3(16, 1, 64)}) == "<no exception>");
}

TEST_CASE("a negative int count given to add_memcpy is refused, not copied as 2^64-4 bytes", "[reliability][sizes]") {
  unit::Buffers b;
  gd::Graph g("neg");
  const int n = -1;
  CHECK_USAGE_ERROR(g.add_memcpy(b.x, b.host_in, n),
                    "graphdsl: add_memcpy: the count 18446744073709551615 is not a size (-1 as a signed number: a "
                    "negative count converted to std::size_t?); counts must be at most " + too_big);
  CHECK_USAGE_ERROR(g.add_memset(b.flags, 1, n),
                    "graphdsl: add_memset: the count 18446744073709551615 is not a size (-1 as a signed number: a "
                    "negative count converted to std::size_t?); counts must be at most " + too_big);
  CHECK(g.node_count() == 0);
  // A raw byte count that is a negative number is refused by validate(), naming the node.
  g.add_memcpy_bytes(b.x, b.host_in, static_cast<std::size_t>(-8)).name("raw");
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'raw' (#0): copies 18446744073709551608 bytes, more than " +
                                      too_big +
                                      " bytes, the largest size graphdsl accepts (a negative count converted to "
                                      "std::size_t, or a size that wraps around?)");
}

// ---- conditional parameters -------------------------------------------------------------------

TEST_CASE("add_set_condition refuses a Compare value that is not a comparison", "[reliability][conditional]") {
  gd::Graph g("cmp");
  const gd::Condition c = g.add_condition(1);
  unit::Buffers b;
  CHECK_USAGE_ERROR(g.add_set_condition(c, b.flags, static_cast<gd::Compare>(42), 0),
                    "graphdsl: add_set_condition: Compare(42) is not a comparison (equal, not_equal, less, "
                    "less_equal, greater or greater_equal)");
  CHECK(g.node_count() == 0);
  // The same kernel given an out-of-range comparison another way is refused by validate().
  g.add_kernel(gd::detail::set_condition_kernel<int>(), gd::Launch{}, c, static_cast<const int*>(b.flags), 42, 0)
      .name("set");
  g.add_if(c, [](gd::Graph& body) { body.add_empty(); });
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: kernel node 'set' (#0): sets its condition with comparison 42, which is "
                                  "not a Compare value (equal, not_equal, less, less_equal, greater or greater_equal)");
}

TEST_CASE("a ConditionalType outside the enumeration is refused, not compiled as an IF", "[reliability][conditional]") {
  gd::Graph g("type");
  const gd::Condition c = g.add_condition(1);
  g.add_conditional(static_cast<gd::ConditionalType>(7), c, 1, [](unsigned, gd::Graph& body) { body.add_empty(); })
      .name("odd");
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: conditional node 'odd' (#0): ConditionalType(7) is not a conditional "
                                  "type (if_then, if_else, while_loop or switch_case)");
}

TEST_CASE("a WHILE whose body can never change its condition is refused", "[reliability][conditional]") {
  const std::string rule =
      "a while node whose body has no node but empty ones: nothing in it can change the condition, so the loop never "
      "ends once the condition is non-zero (add the nodes that update the condition)";
  gd::Graph g("spin");
  const gd::Condition c = g.add_condition(1);
  g.add_while(c, [](gd::Graph&) {}).name("forever");
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: conditional node 'forever' (#0): " + rule);

  gd::Graph h("spin2");
  const gd::Condition d = h.add_condition(1);
  h.add_while(d, [](gd::Graph& body) { body.add_empty().name("nop"); }).name("forever");
  CHECK_USAGE_ERROR(h.validate(), "graphdsl: conditional node 'forever' (#0): " + rule);

  gd::Graph ok("ok");
  const gd::Condition e = ok.add_condition(1);
  unit::Buffers b;
  ok.add_while(e, [&](gd::Graph& body) { body.add_set_condition(e, b.flags, gd::Compare::less, 10); });
  CHECK_NO_CUDA_CALL(ok.validate());
}

// ---- cover() ----------------------------------------------------------------------------------

TEST_CASE("cover() neither divides by zero nor wraps around", "[reliability][launch]") {
  CHECK_USAGE_ERROR(gd::cover(100, 0), "graphdsl: cover(100, 0): the block size must be 1 to 1024 threads");
  CHECK_USAGE_ERROR(gd::cover(100, 2048), "graphdsl: cover(100, 2048): the block size must be 1 to 1024 threads");
  CHECK_USAGE_ERROR(gd::cover((1ull << 40) + 256),
                    "graphdsl: cover(1099511628032, 256): 4294967297 blocks are needed, more than CUDA's limit of "
                    "2147483647 in x (use larger blocks, a 2-D grid or a grid-stride loop)");
  CHECK_USAGE_ERROR(gd::cover(1ull << 40),
                    "graphdsl: cover(1099511627776, 256): 4294967296 blocks are needed, more than CUDA's limit of "
                    "2147483647 in x (use larger blocks, a 2-D grid or a grid-stride loop)");
  CHECK_USAGE_ERROR(gd::cover(std::numeric_limits<unsigned long long>::max()),
                    "graphdsl: cover(18446744073709551615, 256): 72057594037927936 blocks are needed, more than "
                    "CUDA's limit of 2147483647 in x (use larger blocks, a 2-D grid or a grid-stride loop)");
  CHECK(gd::cover(2147483647ull * 256).grid.x == 2147483647u);
  CHECK(gd::cover(2147483647ull * 256 + 1, 1024).grid.x == 536870912u);
  CHECK(gd::cover(0).grid.x == 1);
  CHECK(gd::cover(257).grid.x == 2);
  CHECK(gd::cover(256).grid.x == 1);
}

// ---- element counts times element sizes -------------------------------------------------------

TEST_CASE("count * sizeof(T) is overflow-checked in every typed add_*", "[reliability][sizes]") {
  unit::Buffers b;
  gd::Graph g("bytes");
  auto* d = reinterpret_cast<std::uint32_t*>(b.x);
  const auto* s = reinterpret_cast<const std::uint32_t*>(b.y);
  const std::size_t huge = (std::size_t{1} << 62) + 1;  // * 4 wraps to 4 bytes
  const std::string wraps = " elements of 4 bytes is more than " + too_big + " bytes, the largest size graphdsl accepts";
  CHECK_USAGE_ERROR(g.add_memcpy(d, s, huge), "graphdsl: add_memcpy: 4611686018427387905" + wraps);
  CHECK_USAGE_ERROR(g.add_memcpy(d, s, std::size_t{1} << 62), "graphdsl: add_memcpy: 4611686018427387904" + wraps);
  CHECK_USAGE_ERROR(g.add_memcpy(d, s, std::size_t{1} << 61), "graphdsl: add_memcpy: 2305843009213693952" + wraps);
  CHECK_USAGE_ERROR(g.add_memset(d, 1u, huge), "graphdsl: add_memset: 4611686018427387905" + wraps);
  CHECK_USAGE_ERROR(g.add_memcpy_peer(d, 1, s, 0, huge), "graphdsl: add_memcpy_peer: 4611686018427387905" + wraps);
  CHECK_USAGE_ERROR(g.add_mem_alloc<std::uint32_t>(huge), "graphdsl: add_mem_alloc: 4611686018427387905" + wraps);
  CHECK_USAGE_ERROR(g.add_mem_alloc<float>(size_max),
                    "graphdsl: add_mem_alloc: the count 18446744073709551615 is not a size (-1 as a signed number: a "
                    "negative count converted to std::size_t?); counts must be at most " + too_big);
  REQUIRE(g.node_count() == 0);

  // Graph buffers: a copy of more elements than the buffer holds is refused, whatever the count.
  auto [alloc, one] = g.add_mem_alloc<std::uint32_t>(1);
  alloc.name("one");
  CHECK_USAGE_ERROR(g.add_memcpy(one, s, huge), "graphdsl: add_memcpy: 4611686018427387905" + wraps);
  CHECK_USAGE_ERROR(g.add_memcpy(d, one, huge), "graphdsl: add_memcpy: 4611686018427387905" + wraps);
  CHECK_USAGE_ERROR(g.add_memset(one, 0u, huge), "graphdsl: add_memset: 4611686018427387905" + wraps);
  g.add_memcpy(one, s, 2).name("two").after(alloc);
  CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'two' (#1): touches 8 bytes of its destination, the buffer "
                                  "of mem_alloc node 'one' (#0), which holds 4 bytes");
  // The largest counts that fit still build (validate() checks the rest).
  CHECK_NOTHROW(gd::Graph().add_memcpy(d, s, (std::size_t{1} << 61) - 1));
}

TEST_CASE("raw memset and memcpy sizes beyond the largest object are refused by validate()", "[reliability][sizes]") {
  unit::Buffers b;
  const std::string tail = " bytes, the largest size graphdsl accepts (a negative count converted to std::size_t, "
                           "or a size that wraps around?)";
  {
    gd::Graph g("m");  // 2^62 four-byte elements: 2^64 bytes, which wrapped to 0
    g.add_memset_raw(b.x, 0, 4, std::size_t{1} << 62).name("all");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memset node 'all' (#0): sets more than 18446744073709551615 bytes, more "
                                    "than " + too_big + tail);
  }
  {
    gd::Graph g("m2");  // rows whose pitch times height overflows
    g.add_memset_raw(b.x, 0, 1, 16, std::size_t{1} << 60, 64).name("rows");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memset node 'rows' (#0): sets more than 18446744073709551615 bytes, "
                                    "more than " + too_big + tail);
  }
  {
    gd::Graph g("c");
    g.add_memcpy_2d(b.x, 1024, b.y, std::size_t{1} << 62, 16, 4).name("tall");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'tall' (#0): spans 13835058055282163728 bytes, more than " +
                                        too_big + tail);
  }
  {
    gd::Graph g("c2");
    g.add_memcpy_2d(b.x, 16, b.y, 16, std::size_t{1} << 32, std::size_t{1} << 32).name("square");
    CHECK_USAGE_ERROR(g.validate(), "graphdsl: memcpy node 'square' (#0): copies more than 18446744073709551615 "
                                    "bytes, more than " + too_big + tail);
  }
  {
    gd::Graph g("ok");
    g.add_memset_raw(b.x, 0, 4, 16, 4, 64);
    g.add_memcpy_2d(b.x, 64, b.y, 64, 16, 4);
    CHECK_NO_CUDA_CALL(g.validate());
  }
}

// ---- the kernel-argument arena -----------------------------------------------------------------

TEST_CASE("kernel argument offsets are 64-bit and the kernel record stays 48 bytes", "[reliability][storage]") {
  // A 32-bit offset wrapped after 4 GiB of kernel arguments: a node read another node's bytes.
  CHECK(sizeof(gd::detail::KernelData{}.args) == sizeof(std::uint64_t));
  CHECK(sizeof(gd::detail::KernelData) <= 48);
  // What the diff does not compare wholesale (layout, placeholders) is kept beside it, so a kernel
  // costs no more than before the split (64 bytes).
  CHECK(sizeof(gd::detail::KernelData) + sizeof(gd::detail::KernelLinks) <= 64);
}

// ---- reserve() ---------------------------------------------------------------------------------

TEST_CASE("reserve() of more nodes than a plan can hold is a UsageError", "[reliability][storage]") {
  gd::Graph g("big");
  CHECK_USAGE_ERROR(g.reserve(size_max), "graphdsl: reserve(18446744073709551615) on graph 'big': a plan holds at "
                                         "most 4294967294 nodes");
  CHECK_USAGE_ERROR(g.reserve(std::size_t{1} << 32), "graphdsl: reserve(4294967296) on graph 'big': a plan holds at "
                                                     "most 4294967294 nodes");
  CHECK_NOTHROW(g.reserve(16));
  CHECK(g.node_count() == 0);
}
