// graphdsl/detail/shared_ref.hpp — shared ownership of graphdsl's own reference-counted objects
// (a plan's liveness token, an event's state), counted behind out-of-line functions.
//
// What node handles, Parameters and Events hold instead of std::shared_ptr: <memory> and the
// instantiations of shared_ptr cost every translation unit that includes graphdsl, and these
// objects need none of its generality (docs/performance.md, "Include cost"). The count lives in
// the object (src/), changed atomically, so copies may be made and dropped on any thread.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <cstddef>
#include <utility>

namespace graphdsl::detail {

struct PlanToken;   // src/plan/graph_impl.hpp
struct EventState;  // src/native/event_state.hpp

/// Adds a reference to `p` (not null).
void retain(PlanToken* p) noexcept;
/// Drops a reference to `p` (not null), deleting it with the last one.
void release(PlanToken* p) noexcept;
/// The number of references to `p` (not null).
long use_count(const PlanToken* p) noexcept;
void retain(EventState* p) noexcept;
void release(EventState* p) noexcept;
long use_count(const EventState* p) noexcept;

/// A shared owner of a T that retain / release / use_count above count (like std::shared_ptr<T>
/// for those types only). Null, or one reference of its own.
template <class T>
class SharedRef {
 public:
  constexpr SharedRef() noexcept = default;
  constexpr SharedRef(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor): like shared_ptr
  /// Takes over `p`, a new object whose count is 1.
  static SharedRef adopt(T* p) noexcept {
    SharedRef r;
    r.p_ = p;
    return r;
  }
  SharedRef(const SharedRef& o) noexcept : p_(o.p_) {
    if (p_ != nullptr) retain(p_);
  }
  SharedRef(SharedRef&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  SharedRef& operator=(const SharedRef& o) noexcept {
    // The same object (`prev = node` in a loop building a chain: both handles share their plan's
    // token): the count stays, and the two atomic updates a copy and a release would make are saved.
    if (p_ != o.p_) SharedRef(o).swap(*this);
    return *this;
  }
  SharedRef& operator=(SharedRef&& o) noexcept {
    SharedRef(std::move(o)).swap(*this);
    return *this;
  }
  ~SharedRef() {
    if (p_ != nullptr) release(p_);
  }

  void swap(SharedRef& o) noexcept { std::swap(p_, o.p_); }
  void reset() noexcept { SharedRef().swap(*this); }
  T* get() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  T* operator->() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  /// The number of owners (0 for a null one).
  long use_count() const noexcept { return p_ != nullptr ? detail::use_count(p_) : 0; }

  friend bool operator==(const SharedRef& a, const SharedRef& b) noexcept { return a.p_ == b.p_; }
  friend bool operator!=(const SharedRef& a, const SharedRef& b) noexcept { return a.p_ != b.p_; }
  friend bool operator==(const SharedRef& a, std::nullptr_t) noexcept { return a.p_ == nullptr; }
  friend bool operator!=(const SharedRef& a, std::nullptr_t) noexcept { return a.p_ != nullptr; }

 private:
  T* p_ = nullptr;
};

}  // namespace graphdsl::detail
