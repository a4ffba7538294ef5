// graphdsl/detail/exact_value.hpp — a literal of another type where a typed value is expected
// (add_memset's value, add_set_condition's operand).
//
// `add_memset(float_ptr, 0, n)` names the value as an int: it is converted when the conversion
// keeps the value (0 -> 0.0f; 300 into an 8-bit element is a UsageError); a floating-point value of
// a narrower element type (0.5 for a float element) is refused at compile time with a message that
// says what to write (0.5f): rounding it silently would change what the user wrote.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <string>
#include <type_traits>

namespace graphdsl::detail {

/// True when a value of type V may stand for a T: the same type, an integer (checked at run time
/// by exact_value), or a floating-point type that converts to T without loss (float -> double).
template <class T, class V>
inline constexpr bool value_accepted = std::is_same_v<std::remove_cv_t<T>, V> ||
                                       (std::is_integral_v<V> && !std::is_same_v<V, bool> && std::is_arithmetic_v<T> &&
                                        !std::is_same_v<T, bool>) ||
                                       (std::is_floating_point_v<V> && std::is_floating_point_v<T> &&
                                        sizeof(V) <= sizeof(T));

/// "float", "double", "8-bit unsigned integer", ... (for messages).
template <class T>
std::string value_type_name() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::is_same_v<T, float> ? "float" : std::is_same_v<T, double> ? "double" : "long double";
  } else {
    return std::to_string(8 * sizeof(T)) + (std::is_signed_v<T> ? "-bit signed integer" : "-bit unsigned integer");
  }
}

/// Throws UsageError: "<api>: <value> does not convert exactly to <role> (<type>)".
[[noreturn]] void throw_inexact_value(const char* api, const std::string& value, const char* role,
                                      const std::string& type);

/// The largest value of the integer type T (std::numeric_limits<T>::max() without <limits>: about
/// 1,000 preprocessed lines in every translation unit; docs/performance.md, "Include cost").
template <class T>
constexpr unsigned long long integer_max() noexcept {
  constexpr unsigned long long all = ~0ull >> (64 - 8 * sizeof(T));
  return std::is_signed_v<T> ? all >> 1 : all;
}

/// True when the integer `v` converted to T has the same value.
template <class T, class V>
bool fits_exactly(V v) noexcept {
  static_assert(std::is_integral_v<V>, "fits_exactly: integers only");
  if constexpr (std::is_floating_point_v<T>) {
    const T t = static_cast<T>(v);  // rounds; exact when converting back gives v
    if constexpr (std::is_signed_v<V>) {
      if (!(t >= static_cast<T>(-9223372036854775808.0) && t < static_cast<T>(9223372036854775808.0))) return false;
      return static_cast<long long>(t) == static_cast<long long>(v);
    } else {
      if (!(t < static_cast<T>(18446744073709551616.0))) return false;
      return static_cast<unsigned long long>(t) == static_cast<unsigned long long>(v);
    }
  } else if constexpr (std::is_signed_v<V>) {
    if (v < 0) {
      // T's minimum is -max - 1
      return std::is_signed_v<T> &&
             static_cast<unsigned long long>(-(static_cast<long long>(v) + 1)) <= integer_max<T>();
    }
    return static_cast<unsigned long long>(v) <= integer_max<T>();
  } else {
    return static_cast<unsigned long long>(v) <= integer_max<T>();
  }
}

/// `v` as a T, for a V with value_accepted<T, V>. @throws UsageError naming `api` and `role` ("the
/// element type") when an integer does not fit exactly.
template <class T, class V>
std::remove_cv_t<T> exact_value(V v, const char* api, const char* role) {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_integral_v<V> && !std::is_same_v<U, V>) {
    if (!fits_exactly<U>(v)) throw_inexact_value(api, std::to_string(v), role, value_type_name<U>());
  }
  return static_cast<U>(v);
}

}  // namespace graphdsl::detail
