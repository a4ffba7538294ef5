// graphdsl/detail/node_checks.hpp — the compile-time rules of memset and memcpy nodes, shared by
// Graph's add_* templates and Executable's typed setters.
//
// Internal: not part of graphdsl's API; names here may change in any release.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "graphdsl/detail/exact_value.hpp"

namespace graphdsl::detail {

/// The compile-time rules of add_memset and Executable::set_memset.
template <class T, class V>
constexpr void check_memset_types() {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "graphdsl add_memset: the element type must be 1, 2 or 4 bytes wide");
  static_assert(std::is_trivially_copyable_v<T>, "graphdsl add_memset: the element type must be trivially copyable");
  static_assert(detail::value_accepted<T, V>,
                "graphdsl add_memset: the value is neither of the element type nor an integer: write it as the "
                "element type (e.g. 0.5f, not 0.5, for a float element)");
}
/// The compile-time rules of add_memcpy and Executable::set_memcpy.
template <class D, class S>
constexpr void check_memcpy_types() {
  static_assert(
      std::is_same_v<std::remove_cv_t<D>, std::remove_cv_t<S>>,
      "graphdsl add_memcpy: source and destination element types differ (use add_memcpy_bytes for raw bytes)");
  static_assert(!std::is_const_v<D>, "graphdsl add_memcpy: the destination is const");
}
/// The bits of a 1-, 2- or 4-byte memset value, as cudaMemsetParams::value takes them.
template <class T>
unsigned int bit_pattern(T value) {
  if constexpr (sizeof(T) == 1) {
    std::uint8_t b;
    std::memcpy(&b, &value, 1);
    return b;
  } else if constexpr (sizeof(T) == 2) {
    std::uint16_t b;
    std::memcpy(&b, &value, 2);
    return b;
  } else {
    std::uint32_t b;
    std::memcpy(&b, &value, 4);
    return b;
  }
}

}  // namespace graphdsl::detail
