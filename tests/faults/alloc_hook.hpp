// tests/faults/alloc_hook.hpp — a replaceable global operator new that fails on request.
//
// alloc_hook.cpp replaces every global operator new / new[] (plain, aligned, nothrow) and the
// matching deletes with versions over malloc / free (so AddressSanitizer, which intercepts malloc,
// still sees every block). While armed on a thread, the k-th allocation that thread makes throws
// std::bad_alloc (the nothrow forms return nullptr); the hook then disarms itself, so the code
// handling the failure allocates normally. Other threads are never affected.
#pragma once

#include <cstdint>

namespace faults {

/// Arms the hook on the calling thread: its `k`-th allocation from now (k >= 1) fails.
void arm(std::uint64_t k) noexcept;

/// Disarms the hook; returns whether an allocation failed since arm().
bool disarm() noexcept;

/// Allocations the calling thread made while armed (the failed one included), since arm().
std::uint64_t allocations() noexcept;

}  // namespace faults
