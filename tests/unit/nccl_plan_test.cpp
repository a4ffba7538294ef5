// Plans with NCCL collectives, built without a GPU: Communicators name devices and create nothing
// until first use, so adding collectives, their argument rules, dumps and diffs make no CUDA call
// and need no NCCL. (Compiling and running them: tests/multi_gpu.)
#if GRAPHDSL_TEST_NCCL
#include <graphdsl/nccl.hpp>

#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {
gd::Graph reduce_plan(unit::Buffers& b, const gd::nccl::Communicators& comms, float factor) {
  gd::Graph g("reduce");
  auto k0 = g.add_kernel(unit::scale, gd::cover(64), b.x, factor, 64).name("k0").on_device(0);
  auto k1 = g.add_kernel(unit::scale, gd::cover(64), b.y, factor, 64).name("k1").on_device(1);
  gd::nccl::add_all_reduce<float>(g, comms, {{b.x, b.x}, {b.y, b.y}}, 64).name("sum").after(k0, k1);
  return g;
}
}  // namespace

TEST_CASE("nccl: a plan with a collective is built, printed and compared with no CUDA call", "[devices][nccl]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  const gd::nccl::Communicators comms({0, 1});
  CHECK(comms.size() == 2);
  CHECK(comms.devices() == std::vector<int>{0, 1});
  const gd::Graph g = reduce_plan(b, comms, 2.0f);
  CHECK_NOTHROW(g.validate());
  CHECK(g.dump() ==
        "graph 'reduce': 3 nodes, 2 edges\n"
        "  #0 kernel 'k0': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), on device 0\n"
        "  #1 kernel 'k1': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), on device 1\n"
        "  #2 captured 'sum': nccl all_reduce sum float32 x64 over devices 0,1, stream capture, mode thread-local; "
        "after 'k0', 'k1'\n");
  CHECK_THAT(g.to_dot(), has_substr("n2 [label=\"sum\\ncaptured\\nnccl all_reduce sum float32 x64 over devices 0,1\", "
                                    "shape=component];"));
  // A template built anew holds the same collective (same communicators, buffers, count, op): only
  // the kernels differ, so an update patches them node by node without capturing NCCL again.
  const gd::UpdateResult same = gd::diff(g, reduce_plan(b, comms, 3.0f));
  CHECK(same.status == gd::UpdateStatus::success);
  CHECK(same.changed == std::vector<std::uint32_t>{0, 1});
  gd::Graph other("reduce");
  auto k0 = other.add_kernel(unit::scale, gd::cover(64), b.x, 2.0f, 64).name("k0").on_device(0);
  auto k1 = other.add_kernel(unit::scale, gd::cover(64), b.y, 2.0f, 64).name("k1").on_device(1);
  gd::nccl::add_all_reduce<float>(other, comms, {{b.x, b.x}, {b.y, b.y}}, 64, gd::nccl::ReduceOp::max)
      .name("sum").after(k0, k1);
  CHECK(gd::diff(g, other).changed == std::vector<std::uint32_t>{2});  // another reduction: the collective changed
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("nccl: argument rules are checked when a collective is added, before any CUDA call", "[devices][nccl]") {
  unit::Buffers b;
  const gd::nccl::Communicators comms({0, 1});
  gd::Graph g("g");
  CHECK_USAGE_ERROR(gd::nccl::add_all_reduce<float>(g, comms, {{b.x, b.x}}, 64),
                    "graphdsl: nccl all_reduce added to graph 'g': 1 buffer pair for 2 communicators (devices 0,1); "
                    "give one per rank");
  CHECK_USAGE_ERROR(gd::nccl::add_all_gather<float>(g, comms, {{b.x, b.y}, {nullptr, b.z}}, 64),
                    "graphdsl: nccl all_gather added to graph 'g': rank 1's send buffer is null");
  CHECK_USAGE_ERROR(gd::nccl::add_broadcast<float>(g, comms, {{b.x, b.x}, {b.y, b.y}}, 0, 0),
                    "graphdsl: nccl broadcast added to graph 'g': the element count is 0");
  CHECK_USAGE_ERROR(gd::nccl::add_broadcast<float>(g, comms, {{b.x, b.x}, {b.y, b.y}}, 64, 2),
                    "graphdsl: nccl broadcast added to graph 'g': root rank 2 is not one of the 2 ranks");
  CHECK(g.node_count() == 0);
  CHECK_USAGE_ERROR(gd::nccl::Communicators({}), "graphdsl: nccl::Communicators: the device list is empty");
  CHECK_USAGE_ERROR(gd::nccl::Communicators({1, 0, 1}),
                    "graphdsl: nccl::Communicators: device 1 appears more than once in {1,0,1}; one communicator per "
                    "device");
  CHECK_USAGE_ERROR(gd::nccl::Communicators({0, -1}), "graphdsl: nccl::Communicators: -1 is not a device number");
  CHECK(gd::nccl::data_type_of<double>() == gd::nccl::DataType::float64);
  CHECK(gd::nccl::data_type_of<std::int64_t>() == gd::nccl::DataType::int64);
  CHECK(std::string(gd::nccl::to_string(gd::nccl::ReduceOp::avg)) == "avg");
}
#endif  // GRAPHDSL_TEST_NCCL
