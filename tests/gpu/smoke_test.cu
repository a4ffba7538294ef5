#include "catch.hpp"
#include <graphdsl/graphdsl.hpp>
TEST_CASE("gpu smoke") { REQUIRE(true); }
