// tests/support/unit_main.cpp — entry point of the unit and thread suites (Catch2 v2 or v3; the
// session is in catch_session.cpp).
#include "catch_session.hpp"

int main(int argc, char* argv[]) { return test_support::run_catch(argc, argv); }
