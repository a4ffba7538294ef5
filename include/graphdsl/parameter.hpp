// graphdsl/parameter.hpp — a typed value declared on a plan, shared by the nodes that use it and
// patched in all of them with one call.
//
//   auto lr = g.parameter<float>(0.01f).name("lr");            // no CUDA call
//   g.add_kernel(sgd_step, gd::cover(n), d_w, d_grad, lr, n);  // lr stands for the float argument
//   g.add_memset(d_fill, lr, n);                               // ... and for a memset value
//   gd::Executable exec = g.instantiate();
//   exec.set(lr, 0.02f);   // patches exactly the nodes that use lr: O(uses), no diff, no allocation
//
// A parameter is passed as it is, never converted: its type must be the kernel parameter's type
// (a Parameter<U*> also fits a const U* parameter) or the memset's element type. A parameter is
// declared on a top-level plan and used there, in copies of it and in the conditional bodies built
// inside it; a plan that embeds it with add_child gets its parameters too (docs/parameters.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "graphdsl/detail/shared_ref.hpp"

namespace graphdsl {

namespace detail {
struct PlanToken;
struct ParamUse;

/// How a parameter's value is printed in dumps (its bits are what the plan stores).
enum class ParamValueKind : std::uint8_t { floating, signed_int, unsigned_int, boolean, pointer, other };

/// The type of a parameter or of the place it is used, for checks and messages.
struct ParamType {
  const std::type_info* info;
  std::string name;  ///< "float", "const float*", ...
  std::uint32_t size;
  ParamValueKind kind;
};

/// The largest parameter type (bytes): a parameter's value is kept inline, and set() copies the old
/// value onto the stack to roll back.
inline constexpr std::size_t max_parameter_bytes = 32;

template <class T>
std::string param_type_name() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_pointer_v<U>) {
    using E = std::remove_pointer_t<U>;
    return (std::is_const_v<E> ? "const " : "") + param_type_name<std::remove_const_t<E>>() + "*";
  } else if constexpr (std::is_same_v<U, float>) {
    return "float";
  } else if constexpr (std::is_same_v<U, double>) {
    return "double";
  } else if constexpr (std::is_same_v<U, bool>) {
    return "bool";
  } else if constexpr (std::is_same_v<U, void>) {
    return "void";
  } else if constexpr (std::is_integral_v<U>) {
    return (std::is_signed_v<U> ? "int" : "uint") + std::to_string(8 * sizeof(U));
  } else {
    return std::string("a ") + std::to_string(sizeof(U)) + "-byte type (" + typeid(U).name() + ")";
  }
}

/// The ParamType of T (one static per type).
template <class T>
const ParamType& param_type() {
  using U = std::remove_cv_t<T>;
  constexpr ParamValueKind kind = std::is_pointer_v<U>                           ? ParamValueKind::pointer
                                  : std::is_same_v<U, bool>                      ? ParamValueKind::boolean
                                  : std::is_floating_point_v<U>                  ? ParamValueKind::floating
                                  : std::is_integral_v<U> && std::is_signed_v<U> ? ParamValueKind::signed_int
                                  : std::is_integral_v<U>                        ? ParamValueKind::unsigned_int
                                                                                 : ParamValueKind::other;
  static const ParamType t{&typeid(U), param_type_name<U>(), static_cast<std::uint32_t>(sizeof(U)), kind};
  return t;
}

/// A parameter given to add_kernel or add_memset: which one, where its value goes, and whether its
/// type fits the place (decided at compile time, reported by the plan as a UsageError).
struct ParamArg {
  const PlanToken* plan = nullptr;  ///< the plan that declared it (null: an empty Parameter)
  std::uint64_t uid = 0;
  std::uint32_t offset = 0;           ///< byte offset in the kernel's argument block (0 for a memset)
  std::uint32_t position = 0;         ///< the kernel argument, counting from 1 (0 for a memset value)
  const ParamType* given = nullptr;   ///< the parameter's type
  const ParamType* wanted = nullptr;  ///< the kernel parameter's or memset element's type
  bool fits = false;
};

/// Names parameter `uid` of the plan behind `plan`. @throws UsageError for a dead plan.
void name_parameter(const SharedRef<PlanToken>& plan, std::uint64_t uid, std::string_view name);
/// The name of parameter `uid` ("" when unnamed). @throws UsageError for a dead plan.
std::string parameter_name(const SharedRef<PlanToken>& plan, std::uint64_t uid);
/// The current value bits of parameter `uid` of the plan (size bytes). @throws UsageError for a dead plan.
const unsigned char* parameter_value(const SharedRef<PlanToken>& plan, std::uint64_t uid);
}  // namespace detail

/// A typed value declared on a plan by Graph::parameter<T>(initial): pass it to add_kernel in place
/// of an argument of type T (or of const U* when T is U*) and to add_memset as the value; set it
/// on an executable compiled from the plan with Executable::set(param, value), which patches every
/// node that uses it. A small value (plan token + id), cheap to copy.
template <class T>
class Parameter {
 public:
  /// The value type.
  using value_type = T;

  /// An empty parameter (valid() is false); passing it anywhere is a UsageError.
  Parameter() noexcept = default;
  /// Internal: made by Graph::parameter().
  Parameter(detail::SharedRef<detail::PlanToken> plan, std::uint64_t uid) noexcept
      : plan_(std::move(plan)), uid_(uid) {}

  /// True for a parameter made by Graph::parameter().
  bool valid() const noexcept { return uid_ != 0; }
  /// A process-unique number identifying the parameter (copies of the plan keep it).
  std::uint64_t id() const noexcept { return uid_; }

  /// Names the parameter; the name appears in dumps, DOT labels and messages. Returns the handle.
  /// @throws UsageError when the plan is gone, or is sealed (a recorded plan).
  Parameter name(std::string_view new_name) const {
    detail::name_parameter(plan_, uid_, new_name);
    return *this;
  }
  /// The name ("" when unnamed). @throws UsageError when the plan is gone.
  std::string name() const { return detail::parameter_name(plan_, uid_); }
  /// The value the declaring plan holds (its initial value: Executable::set changes the executable's
  /// recorded plan, Executable::plan(), not this one). @throws UsageError when the plan is gone.
  T value() const {
    T v;
    std::memcpy(&v, detail::parameter_value(plan_, uid_), sizeof(T));
    return v;
  }

  /// Internal: the liveness token of the declaring plan (null for an empty parameter).
  const detail::SharedRef<detail::PlanToken>& plan_token() const noexcept { return plan_; }
  /// Internal: how add_kernel and add_memset see this parameter for a place of type P.
  template <class P>
  detail::ParamArg arg(std::uint32_t offset, std::uint32_t position) const {
    constexpr bool fits = std::is_same_v<P, T> ||
                          (std::is_pointer_v<T> && std::is_same_v<P, const std::remove_pointer_t<T>*>);
    return detail::ParamArg{plan_.get(), uid_, offset, position, &detail::param_type<T>(), &detail::param_type<P>(),
                            fits};
  }

 private:
  detail::SharedRef<detail::PlanToken> plan_;
  std::uint64_t uid_ = 0;
};

/// What Executable::set(param, value) did: the nodes that use the parameter were patched, one
/// driver call each. Cheap: a count and a view of the uses the executable's recorded plan keeps
/// (valid until the executable is updated, moved or destroyed); nodes() copies them out.
class ParameterSet {
 public:
  /// Nodes patched (a kernel taking the parameter twice counts once), nodes of conditional bodies
  /// and child plans included.
  std::size_t patched = 0;
  /// Indices, in the executable's plan, of the patched top-level nodes (allocates: call it when needed).
  std::vector<std::uint32_t> nodes() const;
  /// True: a set() that fails throws instead of returning.
  explicit operator bool() const noexcept { return true; }

  /// Internal: the first use of the parameter (its uses are in node order).
  const detail::ParamUse* first = nullptr;
  /// Internal: one past the last use.
  const detail::ParamUse* last = nullptr;
};

namespace detail {
template <class A>
struct IsParameter : std::false_type {};
template <class T>
struct IsParameter<Parameter<T>> : std::true_type {};
/// True for a graphdsl::Parameter argument.
template <class A>
inline constexpr bool is_parameter_v = IsParameter<std::decay_t<A>>::value;
}  // namespace detail

}  // namespace graphdsl
