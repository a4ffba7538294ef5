// tests/faults/alloc_hook.cpp — the global operator new / delete of the fault-injection suite
// (alloc_hook.hpp). Every form goes to malloc / free underneath.
#include "alloc_hook.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace faults {
namespace {
// Constant-initialized: reading them needs no thread-local initializer, so operator new may run
// before main and on threads the suite does not know about.
thread_local std::uint64_t countdown = 0;  // 0: disarmed; else allocations left until the failing one
thread_local std::uint64_t counted = 0;
thread_local bool failed = false;

/// Whether this allocation is the one to fail (and disarms the hook when it is).
bool fail_now() noexcept {
  if (countdown == 0) return false;
  ++counted;
  if (--countdown != 0) return false;
  failed = true;
  return true;
}

constexpr std::size_t plain = alignof(std::max_align_t);
std::size_t align_of(std::align_val_t a) { return static_cast<std::size_t>(a); }

void* allocate(std::size_t bytes, std::size_t alignment) noexcept {
  if (fail_now()) return nullptr;
  if (bytes == 0) bytes = 1;
  if (alignment <= plain) return std::malloc(bytes);
  void* p = nullptr;
  return posix_memalign(&p, alignment, bytes) == 0 ? p : nullptr;
}

void* allocate_or_throw(std::size_t bytes, std::size_t alignment) {
  void* p = allocate(bytes, alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void arm(std::uint64_t k) noexcept {
  countdown = k;
  counted = 0;
  failed = false;
}

bool disarm() noexcept {
  countdown = 0;
  return failed;
}

std::uint64_t allocations() noexcept { return counted; }

}  // namespace faults

void* operator new(std::size_t n) { return faults::allocate_or_throw(n, faults::plain); }
void* operator new[](std::size_t n) { return faults::allocate_or_throw(n, faults::plain); }
void* operator new(std::size_t n, std::align_val_t a) { return faults::allocate_or_throw(n, faults::align_of(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return faults::allocate_or_throw(n, faults::align_of(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return faults::allocate(n, faults::plain); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return faults::allocate(n, faults::plain); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return faults::allocate(n, faults::align_of(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return faults::allocate(n, faults::align_of(a));
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
