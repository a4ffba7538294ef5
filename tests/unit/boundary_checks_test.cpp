// Values at the edges of their types, refused where they enter the library, before any CUDA call:
// copy positions that wrap around the address space, a device number below -1, a conditional body
// count no plan can hold, enumeration values outside their enumeration, and the longest timeout.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "unit_support.hpp"
#if GRAPHDSL_TEST_NCCL
#include <graphdsl/nccl.hpp>

#include "nccl/nccl_internal.hpp"
#endif

namespace gd = graphdsl;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace boundary_checks_test {

namespace {

/// A 1-row 3-D copy of 64 bytes between two pitched host arrays, with the positions given.
gd::Graph copy_3d(unit::Buffers& b, cudaPos src_pos, cudaPos dst_pos) {
  cudaMemcpy3DParms p{};
  p.srcPtr.ptr = b.x;
  p.srcPtr.pitch = sizeof b.x;
  p.srcPtr.xsize = sizeof b.x;
  p.srcPtr.ysize = 1;
  p.dstPtr.ptr = b.y;
  p.dstPtr.pitch = sizeof b.y;
  p.dstPtr.xsize = sizeof b.y;
  p.dstPtr.ysize = 1;
  p.srcPos = src_pos;
  p.dstPos = dst_pos;
  p.extent.width = 64;
  p.extent.height = 1;
  p.extent.depth = 1;
  p.kind = cudaMemcpyDefault;
  gd::Graph g("g");
  g.add_memcpy_3d(p).name("rows");
  return g;
}

constexpr std::size_t top = std::numeric_limits<std::size_t>::max();

}  // namespace

TEST_CASE("a 3-D copy whose position wraps around the address space fails validate(), before any CUDA call",
          "[memcpy][errors]") {
  unit::Buffers b;
  CHECK_NOTHROW(copy_3d(b, cudaPos{4, 0, 0}, cudaPos{8, 0, 0}).validate());
  // x near 2^64: x + 64 wraps around; a negative x converted to std::size_t.
  CHECK_USAGE_ERROR(copy_3d(b, cudaPos{0, 0, 0}, cudaPos{top - 8, 0, 0}).validate(),
                    "graphdsl: memcpy node 'rows' (#0): destination position (18446744073709551607, 0, 0) and extent "
                    "reach byte more than 18446744073709551615 past the destination pointer, beyond the largest size "
                    "graphdsl accepts (9223372036854775807 bytes) or the end of the address space (a negative offset "
                    "converted to std::size_t?)");
  CHECK_USAGE_ERROR(copy_3d(b, cudaPos{static_cast<std::size_t>(-16), 0, 0}, cudaPos{0, 0, 0}).validate(),
                    "graphdsl: memcpy node 'rows' (#0): source position (18446744073709551600, 0, 0) and extent reach "
                    "byte more than 18446744073709551615 past the source pointer, beyond the largest size graphdsl "
                    "accepts (9223372036854775807 bytes) or the end of the address space (a negative offset converted "
                    "to std::size_t?)");
  // y and z multiply the pitch: a product that wraps around.
  const std::string y_message = unit::usage_error_of([&] { copy_3d(b, cudaPos{0, top / 512, 0}, {}).validate(); });
  CHECK_THAT(y_message, has_substr("memcpy node 'rows' (#0): source position (0, 36028797018963967, 0)"));
  const std::string z_message = unit::usage_error_of([&] { copy_3d(b, {}, cudaPos{0, 0, top / 2}).validate(); });
  CHECK_THAT(z_message, has_substr("destination position (0, 0, 9223372036854775807)"));
  // instantiate() refuses it the same way, with no CUDA call (the driver never sees the offset).
  const gd::Graph g = copy_3d(b, cudaPos{static_cast<std::size_t>(-16), 0, 0}, {});
  CHECK_USAGE_ERROR(g.instantiate(),
                    "graphdsl: memcpy node 'rows' (#0): source position (18446744073709551600, 0, 0) and extent reach "
                    "byte more than 18446744073709551615 past the source pointer, beyond the largest size graphdsl "
                    "accepts (9223372036854775807 bytes) or the end of the address space (a negative offset converted "
                    "to std::size_t?)");
}

TEST_CASE("MemAllocOptions::device below -1 is refused by add_mem_alloc, which then adds nothing",
          "[memory][devices][errors]") {
  gd::Graph g("g");
  gd::MemAllocOptions options;
  options.device = -2;
  CHECK_USAGE_ERROR(g.add_mem_alloc<float>(16, options),
                    "graphdsl: add_mem_alloc: MemAllocOptions::device: -2 is not a device number (use 0, 1, ... or -1 "
                    "for the current device at compile time)");
  CHECK(g.node_count() == 0);
  options.device = -1;
  CHECK_NOTHROW(g.add_mem_alloc<float>(16, options));
}

TEST_CASE("MemAllocOptions::kind managed or host is refused by add_mem_alloc, which then adds nothing",
          "[memory][errors]") {
  gd::Graph g("g");
  g.add_empty().name("first");
  gd::MemAllocOptions options;
  options.kind = gd::AllocationKind::managed;
  CHECK_USAGE_ERROR(g.add_mem_alloc<float>(16, options),
                    "graphdsl: add_mem_alloc: mem_alloc node #1 of graph 'g' asks for managed memory "
                    "(MemAllocOptions::kind); CUDA graph allocations are device memory only: "
                    "cudaGraphAddMemAllocNode returns cudaErrorNotSupported for managed memory at no location or on "
                    "the host and for pinned host memory, and for managed memory on a device it returns plain device "
                    "memory (driver 580, CUDA 13.0); allocate it outside the graph (cudaMallocManaged, "
                    "cudaMallocHost) and pass the pointer");
  options.kind = gd::AllocationKind::host;
  CHECK_USAGE_ERROR(g.add_mem_alloc<float>(16, options),
                    "graphdsl: add_mem_alloc: mem_alloc node #1 of graph 'g' asks for pinned host memory "
                    "(MemAllocOptions::kind); CUDA graph allocations are device memory only: "
                    "cudaGraphAddMemAllocNode returns cudaErrorNotSupported for managed memory at no location or on "
                    "the host and for pinned host memory, and for managed memory on a device it returns plain device "
                    "memory (driver 580, CUDA 13.0); allocate it outside the graph (cudaMallocManaged, "
                    "cudaMallocHost) and pass the pointer");
  options.kind = static_cast<gd::AllocationKind>(7);
  CHECK_USAGE_ERROR(g.add_mem_alloc<float>(16, options),
                    "graphdsl: add_mem_alloc: AllocationKind(7) is not an allocation kind (device, managed or host)");
  CHECK(g.node_count() == 1);
  options.kind = gd::AllocationKind::device;  // the default
  auto [alloc, buffer] = g.add_mem_alloc<float>(16, options);
  CHECK(g.allocation_of(alloc).options.kind == gd::AllocationKind::device);
  CHECK(alloc.index() == 1);
  CHECK(buffer.size() == 16);
}

TEST_CASE("a conditional body count no plan can hold is refused before any builder runs", "[conditional][errors]") {
  gd::Graph g("g");
  const gd::Condition c = g.add_condition(1);
  int calls = 0;
  auto builder = [&](unsigned, gd::Graph& b) {
    ++calls;
    b.add_empty();
  };
  for (gd::ConditionalType type : {gd::ConditionalType::if_then, gd::ConditionalType::switch_case}) {
    CHECK_USAGE_ERROR(g.add_conditional(type, c, std::numeric_limits<unsigned>::max(), builder),
                      std::string("graphdsl: add_conditional: a ") + gd::to_string(type) +
                          " node with 4294967295 bodies; a conditional node has at most 16777216 "
                          "(max_embedded_nodes); no body builder was called");
  }
  CHECK(calls == 0);
  CHECK(g.node_count() == 0);
}

TEST_CASE("an edge kind outside EdgeKind is refused, and no edge is added", "[edges][errors]") {
  gd::Graph g("g");
  auto a = g.add_empty().name("a");
  auto b = g.add_empty().name("b");
  CHECK_USAGE_ERROR(b.after(a, static_cast<gd::EdgeKind>(7)),
                    "graphdsl: after: EdgeKind(7) is not an edge kind (full, programmatic or launch_completion)");
  CHECK(g.edge_count() == 0);
}

#if GRAPHDSL_TEST_NCCL
TEST_CASE("nccl: adopting communicators with an Ownership outside the enumeration is refused, not read as borrowed",
          "[devices][nccl][errors]") {
  int stand_in = 0;
  CHECK_USAGE_ERROR(gd::nccl::Communicators::adopt({&stand_in}, static_cast<gd::nccl::Ownership>(5)),
                    "graphdsl: nccl::Communicators::adopt: Ownership(5) is not an ownership (borrowed or owned)");
}

TEST_CASE("nccl: a collective, data type or reduction outside its enumeration is refused, not compiled as another",
          "[devices][nccl][errors]") {
  unit::Buffers b;
  const gd::nccl::Communicators comms({0, 1});
  gd::Graph g("g");
  const std::vector<gd::nccl::RawBuffers> ranks{{b.x, b.x}, {b.y, b.y}};
  const std::string where = "graphdsl: nccl all_reduce added to graph 'g': ";
  CHECK_USAGE_ERROR(gd::nccl::add_collective(g, comms, gd::nccl::Collective::all_reduce, ranks, 64,
                                             gd::nccl::DataType::float32, static_cast<gd::nccl::ReduceOp>(9)),
                    where + "ReduceOp(9) is not a reduction (sum, prod, max, min or avg)");
  CHECK_USAGE_ERROR(gd::nccl::add_collective(g, comms, gd::nccl::Collective::all_reduce, ranks, 64,
                                             static_cast<gd::nccl::DataType>(-1)),
                    where +
                        "DataType(-1) is not an NCCL data type (int8, uint8, int32, uint32, int64, uint64, float32 "
                        "or float64)");
  const std::string collective = unit::usage_error_of([&] {
    gd::nccl::add_collective(g, comms, static_cast<gd::nccl::Collective>(5), ranks, 64, gd::nccl::DataType::float32);
  });
  CHECK_THAT(collective, has_substr("Collective(5) is not a collective (all_reduce, broadcast or all_gather)"));
  CHECK(g.node_count() == 0);
}

TEST_CASE("nccl: the longest timeout is a deadline in the future, not an overflow into the past", "[devices][nccl]") {
  using gd::nccl::detail::Clock;
  const auto now = Clock::now();
  const Clock::duration longest = gd::nccl::detail::bounded_timeout(std::chrono::milliseconds::max());
  CHECK(longest > std::chrono::hours(24 * 365));
  CHECK(now + longest > now);
  CHECK(gd::nccl::detail::bounded_timeout(std::chrono::milliseconds(1500)) == std::chrono::milliseconds(1500));
}
#endif

}  // namespace boundary_checks_test
