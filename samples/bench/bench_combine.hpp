// samples/bench/bench_combine.hpp — the figures of several bench processes combined (bench
// --processes P): the CSV each process wrote, read back and grouped by figure, with each figure's
// median over the processes, its range and every process's value. A goal counts when the median of
// several processes meets it (docs/performance.md, Method); this is where that median is taken.
// Host code only, no CUDA: the unit suite tests it (tests/unit/bench_combine_test.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bench {

/// One row of the CSV the bench writes (--csv; bench_common.hpp, csv_row). A number left empty in
/// the file is -1 here, and so is an empty k.
struct CsvRow {
  std::string section, workload, variant;
  int n = 0, k = -1;
  double median_us = -1, noise = -1, ratio = -1, allocs = -1, bytes = -1;
};

/// The rows of a bench CSV (the header line skipped; fields quoted as RFC 4180 allows).
/// @throws std::runtime_error naming the file and the line: a file that cannot be read, a header
/// other than the bench's, a row of another number of fields or with a field that is not a number.
std::vector<CsvRow> read_bench_csv(const std::string& path);

/// One figure over several processes. `figure` holds its key (section, workload, N, k, variant) and,
/// for each number, the median over the processes that gave it (-1 where none did); `ratios` and
/// `us` hold each process's ratio_vs_raw and median_us, in process order (a process that did not
/// measure the figure, or gave no ratio, is left out).
struct Combined {
  CsvRow figure;
  std::vector<double> ratios;
  std::vector<double> us;
  double ratio_min = -1, ratio_max = -1;
};

/// Groups the rows of `runs` (one list per process) by figure, in the order of first appearance; a
/// figure written twice by one process (the same key) counts each row apart, in order.
std::vector<Combined> combine(const std::vector<std::vector<CsvRow>>& runs);

/// The combined figures as a table, one line per figure that has a ratio: the median over the
/// processes, its range and each process's value. Baseline rows (every ratio exactly 1) are left
/// out. `processes`: how many processes ran.
std::string combined_table(const std::vector<Combined>& figures, std::size_t processes);

/// sample::median of `v` (the mean of the two middle values for an even count), or -1 when `v` is
/// empty: the CSV's "no value".
double median_of(std::vector<double> v);

}  // namespace bench

namespace bench {

/// bench --processes P: runs this program P times one after the other, each with the command line
/// it was given less --processes and --csv, writing its output and its CSV into a new folder under
/// $TMPDIR (or /tmp), then prints the combined table and, with --csv FILE, writes the combined
/// figures there (one row per figure, as one process would). Returns 0, or 1 when a process failed
/// or its CSV could not be read (the others are still combined), 2 when none could be started.
/// Defined in bench_processes.cpp (the benchmark only: it starts processes).
int run_processes(int argc, char** argv, int processes, const std::string& csv);

}  // namespace bench
