// tests/gpu/device_helpers.cuh — device-side helpers of the test kernels (nvcc only: included by
// the kernels' .cu files, never by test cases).
#pragma once

namespace gpu_test {

/// Spins the calling GPU thread for about `ns` nanoseconds (global timer), so that a node finishes
/// visibly later than its siblings and a missing edge shows up as a wrong result.
__device__ __forceinline__ void spin_ns(unsigned long long ns) {
  if (ns == 0) return;
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  unsigned long long now = start;
  while (now - start < ns) {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

}  // namespace gpu_test
