// tests/support/catch_session.hpp — the Catch2 session every suite's main runs (catch_session.cpp,
// compiled once into graphdsl_test_catch: with Catch2 v2 it also holds Catch's implementation, the
// slowest object of the test build, so the unit, thread and GPU suites share one copy).
#pragma once

namespace test_support {

/// Catch::Session().run(argc, argv).
int run_catch(int argc, char* argv[]);

}  // namespace test_support
