// Plans with NCCL collectives, built without a GPU: Communicators name devices and create nothing
// until first use, so adding collectives, their argument rules, dumps and diffs make no CUDA call
// and need no NCCL. (Compiling and running them: tests/multi_gpu.)
#if GRAPHDSL_TEST_NCCL
#include <graphdsl/nccl.hpp>

#include <array>
#include <cctype>

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
                    "give one per rank of this process");
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

namespace {
/// An id with recognisable bytes (no NCCL needed: ids are made by UniqueId::create in real jobs).
gd::nccl::UniqueId test_id() {
  std::array<unsigned char, gd::nccl::UniqueId::size> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
  return gd::nccl::UniqueId::from_bytes(bytes.data(), bytes.size());
}
}  // namespace

TEST_CASE("nccl: a unique id goes to text and back; bad text is refused", "[nccl][multi_process]") {
  const gd::nccl::UniqueId id = test_id();
  CHECK(static_cast<bool>(id));
  CHECK_FALSE(static_cast<bool>(gd::nccl::UniqueId()));
  const std::string hex = id.to_hex();
  CHECK(hex.size() == 256);
  CHECK(hex.substr(0, 8) == "01080f16");
  CHECK(gd::nccl::UniqueId::from_hex(hex) == id);
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(gd::nccl::UniqueId::from_hex(upper) == id);
  CHECK(gd::nccl::UniqueId::from_hex(hex.substr(2) + "00") != id);
  CHECK_USAGE_ERROR(gd::nccl::UniqueId::from_hex(hex.substr(1)),
                    "graphdsl: nccl::UniqueId::from_hex: 255 characters given; a unique id is 256 hex digits (to_hex())");
  CHECK_USAGE_ERROR(gd::nccl::UniqueId::from_hex(hex.substr(0, 10) + "g" + hex.substr(11)),
                    "graphdsl: nccl::UniqueId::from_hex: character 10 ('g') is not a hex digit");
  CHECK_USAGE_ERROR(gd::nccl::UniqueId::from_hex(hex.substr(0, 255) + "\n"),
                    "graphdsl: nccl::UniqueId::from_hex: character 255 ('\\x0a') is not a hex digit");
  CHECK_USAGE_ERROR(gd::nccl::UniqueId::from_bytes(hex.data(), 64),
                    "graphdsl: nccl::UniqueId::from_bytes: 64 bytes given; a unique id has 128");
}

TEST_CASE("nccl: joining a world is named on the host; its rules are checked with no CUDA or NCCL call",
          "[nccl][multi_process]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  const gd::nccl::UniqueId id = test_id();
  const auto comms = gd::nccl::Communicators::join(id, 2, 1, 0);
  CHECK(comms.size() == 1);
  CHECK(comms.world_size() == 2);
  CHECK(comms.ranks() == std::vector<int>{1});
  CHECK(comms.devices() == std::vector<int>{0});
  // This process's rank 1 of a world of 2: one buffer pair; the root and all_gather's share are
  // ranks of the world.
  gd::Graph g("ranks");
  auto sum = gd::nccl::add_all_reduce<float>(g, comms, {{b.x, b.x}}, 64).name("sum");
  auto from1 = gd::nccl::add_broadcast<float>(g, comms, {{b.x, b.y}}, 64, 1).name("from1").after(sum);
  gd::nccl::add_all_gather<float>(g, comms, {{b.y, b.z}}, 32).name("gather").after(from1);
  CHECK(g.dump() ==
        "graph 'ranks': 3 nodes, 2 edges\n"
        "  #0 captured 'sum': nccl all_reduce sum float32 x64 over rank 1 of 2 on device 0, stream capture, mode "
        "thread-local\n"
        "  #1 captured 'from1': nccl broadcast float32 x64 from rank 1 over rank 1 of 2 on device 0, stream capture, "
        "mode thread-local; after 'sum'\n"
        "  #2 captured 'gather': nccl all_gather float32 x32 over rank 1 of 2 on device 0, stream capture, mode "
        "thread-local; after 'from1'\n");
  CHECK_USAGE_ERROR(gd::nccl::add_broadcast<float>(g, comms, {{b.x, b.y}}, 64, 2),
                    "graphdsl: nccl broadcast added to graph 'ranks': root rank 2 is not one of the 2 ranks");
  CHECK_USAGE_ERROR(gd::nccl::add_all_reduce<float>(g, comms, {{b.x, b.x}, {b.y, b.y}}, 64),
                    "graphdsl: nccl all_reduce added to graph 'ranks': 2 buffer pairs for 1 communicator (rank 1 of 2 "
                    "on device 0); give one per rank of this process");
  const auto two = gd::nccl::Communicators::join(id, 4, {3, 1}, {1, 0});
  CHECK(two.ranks() == std::vector<int>{3, 1});
  CHECK(two.world_size() == 4);
  gd::Graph g2("two");
  gd::nccl::add_all_reduce<float>(g2, two, {{b.x, b.x}, {b.y, b.y}}, 64, gd::nccl::ReduceOp::max).name("max");
  CHECK_THAT(g2.dump(), has_substr("nccl all_reduce max float32 x64 over ranks 3,1 of 4 on devices 1,0,"));
  // Two joins are two sets of communicators: a plan over one differs from the same plan over the other.
  gd::Graph again("ranks");
  gd::nccl::add_all_reduce<float>(again, gd::nccl::Communicators::join(id, 2, 1, 0), {{b.x, b.x}}, 64).name("sum");
  gd::Graph same("ranks");
  gd::nccl::add_all_reduce<float>(same, comms, {{b.x, b.x}}, 64).name("sum");
  gd::Graph first("ranks");
  gd::nccl::add_all_reduce<float>(first, comms, {{b.x, b.x}}, 64).name("sum");
  CHECK(gd::diff(first, same).changed.empty());
  CHECK(gd::diff(first, again).changed == std::vector<std::uint32_t>{0});

  const char* j = "graphdsl: nccl::Communicators::join: ";
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(gd::nccl::UniqueId(), 2, 0, 0),
                    std::string(j) + "the unique id is all zero; make it with UniqueId::create() in one process and "
                                     "hand its bytes to the others");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 0, 0, 0), std::string(j) + "a world of 0 ranks; it needs at least 1");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 2, 2, 0),
                    std::string(j) + "rank 2 is not a rank of a world of 2 (0 to 1)");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 2, -1, 0),
                    std::string(j) + "rank -1 is not a rank of a world of 2 (0 to 1)");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 2, 0, -3), std::string(j) + "-3 is not a device number");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 4, {0, 1}, {0}),
                    std::string(j) + "2 ranks for 1 device; give one device per rank");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 4, {1, 1}, {0, 1}), std::string(j) + "rank 1 appears more than once");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 4, {0, 1}, {1, 1}),
                    std::string(j) + "device 1 appears more than once in {1,1}; one communicator per device");
  gd::nccl::JoinOptions never;
  never.timeout = std::chrono::milliseconds(0);
  CHECK_USAGE_ERROR(gd::nccl::Communicators::join(id, 2, 0, 0, never),
                    std::string(j) + "the timeout is 0 ms; it must be positive");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::adopt({}), "graphdsl: nccl::Communicators::adopt: the list of communicators is empty");
  CHECK_USAGE_ERROR(gd::nccl::Communicators::adopt({nullptr}), "graphdsl: nccl::Communicators::adopt: communicator 0 is null");
  CHECK(gd::debug::cuda_calls() == calls);
}
#endif  // GRAPHDSL_TEST_NCCL
