// Unit tests of captured nodes on the host: building, validation, printing, diff, ownership.
#include <memory>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

#include "catch.hpp"

namespace gd = graphdsl;

TEST_CASE("a captured node is an ordinary node of the plan until it is compiled", "[capture]") {
  const auto calls = gd::debug::cuda_calls();
  int called = 0;
  gd::Graph g("c");
  auto first = g.add_empty().name("first");
  auto cap = g.add_captured([&](cudaStream_t) { ++called; }).name("lib call").after(first);
  g.add_empty().name("last").after(cap);
  CHECK(cap.kind() == gd::NodeKind::captured);
  CHECK_NOTHROW(g.validate());
  CHECK(called == 0);  // captured only when the plan is compiled
  CHECK(g.dump() ==
        "graph 'c': 3 nodes, 2 edges\n"
        "  #0 empty 'first'\n"
        "  #1 captured 'lib call': stream capture, mode thread-local; after 'first'\n"
        "  #2 empty 'last'; after 'lib call'\n");
  CHECK(g.to_dot().find("n1 [label=\"lib call\\ncaptured\", shape=component];") != std::string::npos);
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("capture() returns a one-node plan", "[capture]") {
  const gd::Graph g = gd::capture([](cudaStream_t) {}, cudaStreamCaptureModeRelaxed);
  REQUIRE(g.node_count() == 1);
  CHECK(g.node(0).name() == "capture");
  CHECK(g.dump().find("captured 'capture': stream capture, mode relaxed") != std::string::npos);
}

TEST_CASE("an unknown capture mode is refused by validate()", "[capture][errors]") {
  gd::Graph g("c");
  // 3 is inside the enum's range (0..3) but not a mode; a value outside that range cannot be made
  // without undefined behaviour (UBSan reports the load).
  g.add_captured([](cudaStream_t) {}, static_cast<cudaStreamCaptureMode>(3)).name("odd");
  const auto calls = gd::debug::cuda_calls();
  REQUIRE_THROWS_MATCHES(g.validate(), gd::UsageError,
                         message_is("graphdsl: captured node 'odd' (#0): cudaStreamCaptureMode 3 is not a capture mode"));
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("the plan owns the captured function; a new function is a change for update", "[capture][update]") {
  const auto before = gd::debug::live_counts().host_closures;
  auto witness = std::make_shared<int>(0);
  std::weak_ptr<int> weak = witness;
  {
    gd::Graph g("c");
    g.add_captured([witness](cudaStream_t) {});
    witness.reset();
    CHECK_FALSE(weak.expired());
    CHECK(gd::debug::live_counts().host_closures == before + 1);
    const gd::Graph copy = g;  // shares the function
    CHECK(gd::diff(g, copy).changed.empty());
    gd::Graph other("c");
    other.add_captured([](cudaStream_t) {});
    CHECK(gd::diff(g, other).changed == std::vector<std::uint32_t>{0});
    CHECK(g.fingerprint() == other.fingerprint());
  }
  CHECK(weak.expired());
  CHECK(gd::debug::live_counts().host_closures == before);
}

TEST_CASE("fmt formats every graphdsl enum and error", "[print][fmt]") {
  CHECK(fmt::format("{}", gd::NodeKind::captured) == "captured");
  CHECK(fmt::format("{}", gd::ConditionalType::switch_case) == "switch");
  CHECK(fmt::format("{}", gd::Compare::less_equal) == "<=");
  CHECK(fmt::format("{}", gd::UpdateStatus::topology_changed) == "topology changed");
  CHECK(fmt::format("{:>12}", gd::UpdateStrategy::per_node) == "    per_node");
  const gd::UsageError usage("something is off");
  CHECK(fmt::format("{}", usage) == "graphdsl: something is off");
  const gd::CudaError cuda(cudaErrorInvalidValue, "cudaGraphLaunch");
  CHECK(fmt::format("{}", cuda) == "graphdsl: cudaGraphLaunch failed: cudaErrorInvalidValue (invalid argument)");
}
