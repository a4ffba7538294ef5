// tests/support/catch.hpp — Catch2 v2 (Debian's catch2 package) or v3, whichever is installed.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
