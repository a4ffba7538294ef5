// tests/complexity/complexity_support.hpp — the timing rule of the complexity suite.
//
// Each case builds its input at n and at 8n and times one operation on it (best of 3 repetitions,
// a fresh input each time, std::chrono::steady_clock). The operation passes when 8 times the work
// costs at most 12 times the time, plus a small floor so that sub-millisecond timings do not flap:
//
//   t(8n) <= 12 * t(n) + 2 ms
//
// A linear operation takes about 8x; an O(n log n) one about 9x; an O(n^2) one 64x. An operation
// whose cost must not depend on the plan's size (check_flat: the same work on a plan of n and of 8n
// nodes) passes when t(8n) <= 2 * t(n) + 2 ms. Where the
// steady_clock times fail, the thread's CPU times may pass instead (time spent descheduled by a busy
// neighbour does not count), and a failing measurement is taken again (up to 3 attempts, each size
// keeping its best times). Only the ratio is checked, never an absolute time, so that the suite
// holds at -O0 under AddressSanitizer on a busy machine (CI) as well as in an optimised build.
//
// GRAPHDSL_COMPLEXITY_SCALE multiplies every base size (default 1: the 8n case takes tens of
// milliseconds at -O0). A manual run at GRAPHDSL_COMPLEXITY_SCALE=60 reaches about 10^6 nodes for
// most cases. Each case prints one line: its sizes, both steady_clock times, their ratio and the
// ratio of the CPU times.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include <time.h>

#include "catch.hpp"

namespace complexity {

/// The factor GRAPHDSL_COMPLEXITY_SCALE gives every base size (1 when unset or not a positive number).
inline std::size_t scale() {
  const char* text = std::getenv("GRAPHDSL_COMPLEXITY_SCALE");
  if (text == nullptr) return 1;
  const long value = std::strtol(text, nullptr, 10);
  return value > 0 ? static_cast<std::size_t>(value) : 1;
}

/// The slack added to 12 * t(n): timings this small are mostly noise.
inline constexpr double floor_ms = 2.0;
/// The most t(8n) may be, as a multiple of t(n).
inline constexpr double max_ratio = 12.0;

/// Milliseconds of CPU time this thread has used (time it spent descheduled does not count).
inline double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

/// One size's best times: steady_clock (wall) and the thread's CPU time, each the best of its runs.
struct Times {
  double wall = 0;
  double cpu = 0;
};

inline bool within(double small, double large, double ratio = max_ratio) { return large <= ratio * small + floor_ms; }

/// The most t(8n) may be, as a multiple of t(n), for an operation whose cost does not grow with the
/// plan (check_flat): the same work on a plan 8 times larger.
inline constexpr double flat_ratio = 2.0;

/// The best of 3 timings of op(input), each on a fresh input = make(n), in milliseconds.
template <class Make, class Op>
Times best_of_3(std::size_t n, Make& make, Op& op) {
  Times best;
  for (int rep = 0; rep < 3; ++rep) {
    auto input = make(n);
    std::chrono::steady_clock::time_point start, stop;
    double cpu_start = 0, cpu_stop = 0;
    if constexpr (std::is_void_v<decltype(op(input))>) {
      cpu_start = thread_cpu_ms();
      start = std::chrono::steady_clock::now();
      op(input);
      stop = std::chrono::steady_clock::now();
      cpu_stop = thread_cpu_ms();
    } else {  // what op returns (a plan it built) is destroyed after the timing
      cpu_start = thread_cpu_ms();
      start = std::chrono::steady_clock::now();
      const auto result = op(input);
      stop = std::chrono::steady_clock::now();
      cpu_stop = thread_cpu_ms();
    }
    const double wall = std::chrono::duration<double, std::milli>(stop - start).count();
    best.wall = rep == 0 ? wall : std::min(best.wall, wall);
    best.cpu = rep == 0 ? cpu_stop - cpu_start : std::min(best.cpu, cpu_stop - cpu_start);
  }
  return best;
}

/// Times op on make(n) and make(8n), n = base * scale(), prints the line and checks the ratio.
/// `make(n)` returns the input (built outside the timing); `op(input)` is the operation timed.
/// What op returns, if anything, is destroyed outside the timing.
///
/// The check is on steady_clock time; where that fails it is also made on the thread's CPU time,
/// which does not count the time a busy neighbour (another build on a 2-core machine) kept the
/// thread descheduled. A measurement failing both is taken again, up to 3 attempts in all, each
/// size keeping its best times: noise rarely slows the same size every time, while a cost that
/// grows faster than the work fails every attempt, on both clocks.
template <class Make, class Op>
void check_growth(const std::string& what, std::size_t base, Make make, Op op, double ratio_allowed = max_ratio) {
  constexpr int attempts = 3;
  const std::size_t n = base * scale();
  Times small, large;
  int attempt = 0;
  bool ok = false;
  for (; attempt < attempts && !ok; ++attempt) {
    const Times s = best_of_3(n, make, op);
    const Times l = best_of_3(8 * n, make, op);
    small = attempt == 0 ? s : Times{std::min(small.wall, s.wall), std::min(small.cpu, s.cpu)};
    large = attempt == 0 ? l : Times{std::min(large.wall, l.wall), std::min(large.cpu, l.cpu)};
    ok = within(small.wall, large.wall, ratio_allowed) || within(small.cpu, large.cpu, ratio_allowed);
  }
  const double ratio = large.wall / std::max(small.wall, 1e-6);
  const double cpu_ratio = large.cpu / std::max(small.cpu, 1e-6);
  std::printf("complexity: %-50s n=%-8zu %9.3f ms   8n=%-8zu %9.3f ms   ratio %5.1f (cpu %5.1f)%s%s\n", what.c_str(), n,
              small.wall, 8 * n, large.wall, ratio, cpu_ratio, attempt > 1 ? "   (measured again)" : "",
              ok ? "" : "   <-- grows faster than the work");
  std::fflush(stdout);
  INFO(what << ": n=" << n << " " << small.wall << " ms, 8n=" << 8 * n << " " << large.wall << " ms, ratio " << ratio
            << " (CPU time: " << small.cpu << " ms, " << large.cpu << " ms, ratio " << cpu_ratio << ")");
  CHECK(ok);
}

/// check_growth for an operation whose cost must not depend on the plan's size: `op(input)` does
/// the same work on make(n) and on make(8n) (e.g. k swaps of one node), and passes when
/// t(8n) <= 2 * t(n) + 2 ms (flat_ratio), on either clock.
template <class Make, class Op>
void check_flat(const std::string& what, std::size_t base, Make make, Op op) {
  check_growth(what, base, make, op, flat_ratio);
}

}  // namespace complexity
