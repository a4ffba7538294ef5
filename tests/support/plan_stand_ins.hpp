// tests/support/plan_stand_ins.hpp — what generated plans point at on the CPU: addresses only,
// never touched, and kernels never launched (the unit suite makes no CUDA call).
#pragma once

#include <cstdint>

#include <graphdsl/graphdsl.hpp>

#include "plan_generator.hpp"

namespace plan_gen {

inline void stand_in_kernel_a(float*, float, int) {}
inline void stand_in_kernel_b(float*, float, int) {}
inline void stand_in_wide(float*, const float*, float, float, int) {}

/// Buffers, host cells, memory-operation words, a semaphore and two events for plan_gen::build.
struct StandIns {
  float buffers[4][64] = {};
  int cells[4] = {};
  std::uint32_t words[4] = {};
  Resources r;
  StandIns() {
    r.words = words;
    r.semaphore = reinterpret_cast<cudaExternalSemaphore_t>(static_cast<std::uintptr_t>(0x5e0));
    r.kernels[0] = stand_in_kernel_a;
    r.kernels[1] = stand_in_kernel_b;
    r.wide = stand_in_wide;
    for (int b = 0; b < 4; ++b) r.buffers[b] = buffers[b];
    r.cells = cells;
    r.events = {graphdsl::Event::create(), graphdsl::Event::create()};
  }
  StandIns(const StandIns&) = delete;
  StandIns& operator=(const StandIns&) = delete;
};

}  // namespace plan_gen
