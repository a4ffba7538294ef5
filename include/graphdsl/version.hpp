// graphdsl/version.hpp — the library version, in one place (CMake reads it from here).
#pragma once

#define GRAPHDSL_VERSION_MAJOR 0
#define GRAPHDSL_VERSION_MINOR 1
#define GRAPHDSL_VERSION_PATCH 0

namespace graphdsl {
/// The library version as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";
}  // namespace graphdsl
