// graphdsl/detail/unique_handle.hpp — a move-only owner of one native handle.
//
// `Traits` provides `static void destroy(H) noexcept`. Composition, not inheritance from
// std::unique_ptr: the owner exposes get() and release(), nothing else.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <utility>

namespace graphdsl::detail {

template <class H, class Traits>
class UniqueHandle {
 public:
  UniqueHandle() noexcept = default;
  explicit UniqueHandle(H handle) noexcept : h_(handle) {}
  UniqueHandle(UniqueHandle&& o) noexcept : h_(std::exchange(o.h_, H{})) {}
  UniqueHandle& operator=(UniqueHandle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, H{});
    }
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  ~UniqueHandle() { reset(); }

  H get() const noexcept { return h_; }
  H release() noexcept { return std::exchange(h_, H{}); }
  void reset() noexcept {
    if (h_) Traits::destroy(std::exchange(h_, H{}));
  }
  explicit operator bool() const noexcept { return h_ != H{}; }

 private:
  H h_{};
};

}  // namespace graphdsl::detail
