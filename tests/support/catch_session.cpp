// tests/support/catch_session.cpp — see catch_session.hpp. Catch2 v2 (Debian's header-only package)
// or v3 (a compiled library, linked by CMake).
#include "catch_session.hpp"

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

namespace test_support {

int run_catch(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

}  // namespace test_support
