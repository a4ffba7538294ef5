// src/plan/names.hpp — how graphdsl turns its enums into words: one array of names per enum, in
// the enum's order (src/plan/names.cpp), looked up by name_of. The fmt formatters of
// graphdsl/format.hpp print these same words through graphdsl::to_string.
#pragma once

#include <cstddef>

namespace graphdsl::detail {

/// names[value], or `unknown` for a value outside the enum (a cast from an out-of-range integer).
template <class E, std::size_t N>
constexpr const char* name_of(E value, const char* const (&names)[N], const char* unknown = "unknown") noexcept {
  const auto i = static_cast<std::size_t>(value);
  return i < N ? names[i] : unknown;
}

}  // namespace graphdsl::detail
