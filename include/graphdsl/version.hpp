// graphdsl/version.hpp — the library version, in one place (CMake reads it from here).
#pragma once

/// The major version: changes that break the API.
#define GRAPHDSL_VERSION_MAJOR 0
/// The minor version: additions.
#define GRAPHDSL_VERSION_MINOR 1
/// The patch version: fixes.
#define GRAPHDSL_VERSION_PATCH 0

/// Everything graphdsl provides: plans (Graph), node handles, executables, updates and errors.
/// Names in graphdsl::detail are internal and may change in any release.
namespace graphdsl {
/// The library version as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";
}  // namespace graphdsl
