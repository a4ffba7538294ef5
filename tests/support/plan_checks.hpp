// tests/support/plan_checks.hpp — shared assertions of the unit suite.
#pragma once

#include <string>

#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

#include "catch.hpp"

namespace test_support {

/// `g` is refused with exactly `message` (after "graphdsl: ") by validate() and by instantiate(),
/// and neither makes a CUDA call.
inline void require_invalid(const graphdsl::Graph& g, const std::string& message) {
  const auto calls = graphdsl::debug::cuda_calls();
  REQUIRE_THROWS_MATCHES(g.validate(), graphdsl::UsageError, message_is("graphdsl: " + message));
  REQUIRE_THROWS_MATCHES(g.instantiate(), graphdsl::UsageError, message_is("graphdsl: " + message));
  CHECK(graphdsl::debug::cuda_calls() == calls);
}

}  // namespace test_support
