// samples/bench/bench_common.hpp — what the benchmark's sections share: interleaved pairs of series
// (medians and noise), the CSV every figure is written to (--csv FILE), the per_node / whole_graph
// crossover line, and the heap counters of bench_heap.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sample_util.hpp"

namespace bench {

// ---- heap counters (bench_heap.cpp replaces the global operator new / delete) --------------------

/// Allocations made through operator new by the calling thread since it started (count and bytes).
struct HeapCount {
  std::uint64_t allocs = 0;
  std::uint64_t bytes = 0;
  HeapCount operator-(const HeapCount& o) const { return {allocs - o.allocs, bytes - o.bytes}; }
  HeapCount operator+(const HeapCount& o) const { return {allocs + o.allocs, bytes + o.bytes}; }
};
/// The calling thread's operator new counters (thread-local: allocations of CUDA's own threads are
/// not in them, so a per-call figure is what the call itself allocated).
HeapCount thread_heap() noexcept;
/// Bytes the process's malloc heap holds now, all threads and arenas (glibc mallinfo2(): uordblks +
/// hblkhd). Sees what the CUDA driver allocates with malloc too, which operator new does not.
std::uint64_t malloc_in_use() noexcept;

// ---- two interleaved series ------------------------------------------------------------------------

/// Medians (and noise) of two interleaved series: a = graphdsl, b = raw (or the stream baseline).
struct Pair {
  std::vector<double> a, b;
  double ma() const { return sample::median(a); }
  double mb() const { return sample::median(b); }
  double ratio() const { return mb() > 0 ? ma() / mb() : 0.0; }
  double noise() const { return std::max(sample::half_spread(a), sample::half_spread(b)); }
};

/// Runs `reps` repetitions of two measurements, alternating which goes first.
template <class A, class B>
Pair interleave(int reps, A&& measure_a, B&& measure_b) {
  Pair p;
  for (int r = 0; r < reps; ++r) {
    if (r % 2 == 0) {
      p.a.push_back(measure_a());
      p.b.push_back(measure_b());
    } else {
      p.b.push_back(measure_b());
      p.a.push_back(measure_a());
    }
  }
  return p;
}

/// Runs `reps` repetitions of every measurement in `measure`, rotating the order by one each
/// repetition (measurement i goes first in repetitions i, i + k, ...); series[i] holds measurement
/// i's results. For more than two series, where interleave() alternates two.
template <class M>
std::vector<std::vector<double>> rotate(int reps, const std::vector<M>& measure) {
  const std::size_t k = measure.size();
  std::vector<std::vector<double>> series(k);
  for (int r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t v = (i + static_cast<std::size_t>(r)) % k;
      series[v].push_back(measure[v]());
    }
  }
  return series;
}

// ---- options and the CSV -------------------------------------------------------------------------

/// Command-line options every section sees.
struct Options {
  bool quick = false;  ///< --quick: fewer repetitions (noisier figures, same checks)
  /// --max-nodes N: the build sections (hbuild, peers) skip graphs of more nodes. A fork-join of
  /// 10,000 nodes takes the driver 2-4 s to instantiate, most of those sections' time: runs of
  /// many processes measure the smaller sizes and leave that one to fewer processes.
  int max_nodes = 1 << 30;
  /// `full` repetitions normally, about half (at least `least`) with --quick.
  int reps(int full, int least = 3) const { return quick ? std::max(least, (full + 1) / 2) : full; }
  /// Whether a build section measures a graph of `n` nodes (--max-nodes).
  bool builds(int n) const { return n <= max_nodes; }
};
Options& options();

/// Opens the CSV (--csv FILE) and writes its header line; false when the file cannot be opened.
bool csv_open(const std::string& path);
/// Closes it (flushes); true when every row was written.
bool csv_close();

/// One CSV row (nothing without --csv). Columns: section, workload, N, k, variant, median_us, noise,
/// ratio_vs_raw, allocs_per_call, bytes_per_call. A negative number leaves its field empty; heap rows
/// (section "heap") have no time and carry bytes per node in bytes_per_call.
struct Row {
  std::string section, workload;
  int n = 0, k = -1;
  std::string variant;
  double median_us = -1, noise = -1, ratio = -1, allocs = -1, bytes = -1;
};
void csv_row(const Row& r);
/// The two rows of a Pair: `a_variant` (graphdsl, ratio = a / b) and `b_variant` (the baseline, ratio 1).
void csv_pair(const std::string& section, const std::string& workload, int n, int k, const std::string& a_variant,
              const std::string& b_variant, const Pair& p);

/// k node indices spread evenly over 0..N-1 (k = 1: the middle node).
inline std::vector<int> spread(int nodes, int k) {
  std::vector<int> s(k);
  for (int i = 0; i < k; ++i) s[i] = static_cast<int>((2LL * i + 1) * nodes / (2LL * k));
  return s;
}

// ---- per_node / whole_graph crossover ---------------------------------------------------------------

/// "per_node cheaper at k/N=..., whole_graph cheaper from k/N=...; interpolated crossover k/N ~ ..."
/// from the medians of the two forced strategies at increasing k (same length, ks ascending).
std::string crossover_line(int nodes, const std::vector<int>& ks, const std::vector<double>& per_node,
                           const std::vector<double>& whole);

}  // namespace bench
