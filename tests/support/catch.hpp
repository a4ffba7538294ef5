// tests/support/catch.hpp — Catch2 v2 (Debian's catch2 package) or v3, whichever is installed,
// plus the few matcher names that differ between them.
#pragma once

#include <string>

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
namespace test_support {
inline auto has_substr(const std::string& s) { return Catch::Matchers::ContainsSubstring(s); }
inline auto message_is(const std::string& s) { return Catch::Matchers::Message(s); }
}  // namespace test_support
#else
#include <catch2/catch.hpp>
namespace test_support {
inline auto has_substr(const std::string& s) { return Catch::Matchers::Contains(s); }
inline auto message_is(const std::string& s) { return Catch::Message(s); }
}  // namespace test_support
#endif
using test_support::has_substr;
using test_support::message_is;
