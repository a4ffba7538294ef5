// tests/faults/alloc_hook.hpp — a replaceable global operator new that fails on request.
//
// alloc_hook.cpp replaces every global operator new / new[] (plain, aligned, nothrow) and the
// matching deletes with versions over malloc / free (so AddressSanitizer, which intercepts malloc,
// still sees every block). While armed on a thread, the k-th allocation that thread makes throws
// std::bad_alloc (the nothrow forms return nullptr); the hook then disarms itself, so the code
// handling the failure allocates normally. Other threads are never affected.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>

namespace faults {

/// Arms the hook on the calling thread: its `k`-th allocation from now (k >= 1) fails.
void arm(std::uint64_t k) noexcept;

/// Disarms the hook; returns whether an allocation failed since arm().
bool disarm() noexcept;

/// Allocations the calling thread made while armed (the failed one included), since arm().
std::uint64_t allocations() noexcept;

/// How a run of an operation with one allocation failing went.
struct Outcome {
  bool failed = false;  ///< the k-th allocation was reached (and failed); false: the operation made fewer
  bool threw = false;   ///< std::bad_alloc came out of the operation
  std::string other;    ///< the message of any other exception that came out of it ("" when none)
};

/// Runs `op()` with its k-th allocation failing. The exception is looked at only once the hook is
/// disarmed (reading its message may allocate).
template <class Op>
Outcome run_failing(std::uint64_t k, Op&& op) {
  std::exception_ptr thrown;
  arm(k);
  try {
    op();
  } catch (...) {
    thrown = std::current_exception();
  }
  Outcome out;
  out.failed = disarm();
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const std::bad_alloc&) {
    out.threw = true;
  } catch (const std::exception& e) {
    out.other = e.what();
  } catch (...) {
    out.other = "an exception of unknown type";
  }
  return out;
}

}  // namespace faults
