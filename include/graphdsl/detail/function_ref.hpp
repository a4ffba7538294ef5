// graphdsl/detail/function_ref.hpp — a non-owning reference to a callable, for parameters that are
// called before the function taking them returns (Graph::add_conditional's body builder).
//
// What std::function would do for such a parameter, without <functional> (about 10,000
// preprocessed lines in every translation unit that includes graph.hpp; docs/performance.md,
// "Include cost") and without a heap allocation. It refers to the callable it was made from: that
// callable must outlive every call (a temporary argument lives until the full-expression ends).
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <type_traits>
#include <utility>

namespace graphdsl::detail {

template <class Signature>
class FunctionRef;

/// A reference to any callable invocable as R(A...): a lambda, a function object (a std::function
/// too: calling an empty one throws std::bad_function_call, as it would) or a function (held by
/// its address; a null function pointer makes an empty reference, which must not be called).
template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                              std::is_invocable_r_v<R, F&, A...>>>
  FunctionRef(F&& f) noexcept {  // NOLINT(google-explicit-constructor): converts like std::function
    using Fn = std::decay_t<F>;
    if constexpr (std::is_pointer_v<Fn> && std::is_function_v<std::remove_pointer_t<Fn>>) {
      target_.function = reinterpret_cast<void (*)()>(static_cast<Fn>(f));
      call_ = target_.function != nullptr ? &call_function<Fn> : nullptr;
    } else {
      // __builtin_addressof: std::addressof without <memory> (libstdc++ and libc++ build it on this).
      target_.object = const_cast<void*>(static_cast<const void*>(__builtin_addressof(f)));
      call_ = &call_object<std::remove_reference_t<F>>;
    }
  }

  /// False for a null function pointer (a std::function is called, and throws when empty).
  explicit operator bool() const noexcept { return call_ != nullptr; }
  R operator()(A... args) const { return call_(target_, std::forward<A>(args)...); }

 private:
  union Target {
    void* object;
    void (*function)();
  };
  template <class Object>
  static R call_object(Target t, A... args) {
    return static_cast<R>((*static_cast<Object*>(t.object))(std::forward<A>(args)...));
  }
  template <class Function>
  static R call_function(Target t, A... args) {
    return static_cast<R>(reinterpret_cast<Function>(t.function)(std::forward<A>(args)...));
  }

  Target target_;
  R (*call_)(Target, A...);
};

}  // namespace graphdsl::detail
