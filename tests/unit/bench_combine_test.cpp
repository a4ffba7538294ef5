// The benchmark's combination of several processes' figures (samples/bench/bench_combine.cpp, bench
// --processes P): its CSVs read back field by field, quoted fields included; each figure's median over
// the processes, range and per-process values; the baseline rows left out of the table; malformed
// files refused with the file and line named.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_combine.hpp"  // samples/bench/
#include "catch.hpp"

// A namespace of its own: CI compiles the suite's files in batches (unity builds, tests/CMakeLists.txt).
namespace bench_combine_test {

namespace {

const char* const header = "section,workload,N,k,variant,median_us,noise,ratio_vs_raw,allocs_per_call,bytes_per_call\n";

/// Writes `text` to a new file under the temporary folder; returns its path.
std::string file_with(const std::string& name, const std::string& text) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/graphdsl_bench_combine_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string process_csv(double args_ratio, double child_ratio, double us) {
  return std::string(header) + "setters kernel args,chain step,100,1,graphdsl set_kernel_args," + std::to_string(us) +
         ",0.02," + std::to_string(args_ratio) + ",0.000,\n" +
         "setters kernel args,chain step,100,1,raw cudaGraphExecKernelNodeSetParams,1.0,0.02,1.0000,0.000,\n" +
         "\"setters child, prepared\",chain child,100,,\"graphdsl \"\"prepared\"\"\",0.6,0.01," +
         std::to_string(child_ratio) + ",,\n" + "heap,chain,1000,,graphdsl,,,,,1747.7\n";
}

/// Whether a and b are equal up to rounding.
bool near(double a, double b) { return std::abs(a - b) < 1e-9; }

/// The message of the exception read_bench_csv(path) throws ("" when it throws none).
std::string error_of(const std::string& path) {
  try {
    (void)bench::read_bench_csv(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("bench CSVs are read back field by field, quoted fields and empty numbers included", "[bench][combine]") {
  const std::vector<bench::CsvRow> rows = bench::read_bench_csv(file_with("one.csv", process_csv(0.79, 1.01, 0.8)));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].section == "setters kernel args");
  CHECK(rows[0].n == 100);
  CHECK(rows[0].k == 1);
  CHECK(near(rows[0].ratio, 0.79));
  CHECK(rows[0].bytes == -1);
  CHECK(rows[2].section == "setters child, prepared");
  CHECK(rows[2].variant == "graphdsl \"prepared\"");
  CHECK(rows[2].k == -1);
  CHECK(rows[2].allocs == -1);
  CHECK(near(rows[3].bytes, 1747.7));
  CHECK(rows[3].ratio == -1);
}

TEST_CASE("combined figures: the median over the processes, the range and each process's value",
          "[bench][combine]") {
  std::vector<std::vector<bench::CsvRow>> runs;
  const double args[] = {0.80, 0.78, 0.85, 0.79, 0.90};
  for (int p = 0; p < 5; ++p) {
    runs.push_back(bench::read_bench_csv(
        file_with("p" + std::to_string(p) + ".csv", process_csv(args[p], 1.0 + 0.01 * p, 0.5 + 0.1 * p))));
  }
  runs[4].pop_back();  // the last process did not measure the heap row
  const std::vector<bench::Combined> c = bench::combine(runs);
  REQUIRE(c.size() == 4);  // in the order first written
  CHECK(c[0].figure.variant == "graphdsl set_kernel_args");
  CHECK(c[0].ratios == std::vector<double>{0.80, 0.78, 0.85, 0.79, 0.90});
  CHECK(near(c[0].figure.ratio, 0.80));
  CHECK(near(c[0].ratio_min, 0.78));
  CHECK(near(c[0].ratio_max, 0.90));
  CHECK(near(c[0].figure.median_us, 0.7));
  CHECK(near(c[2].figure.ratio, 1.02));
  CHECK(near(c[3].figure.bytes, 1747.7));
  CHECK(c[3].ratios.empty());
  CHECK(near(bench::median_of({4, 1, 3, 2}), 2.5));
  CHECK(bench::median_of({}) == -1);

  const std::string table = bench::combined_table(c, 5);
  CHECK(table.find("combined: 5 processes") != std::string::npos);
  CHECK(table.find("setters kernel args | chain step N=100 k=1 | graphdsl set_kernel_args") != std::string::npos);
  CHECK(table.find(" 0.800  0.780-0.900  0.800 0.780 0.850 0.790 0.900\n") != std::string::npos);
  CHECK(table.find("raw cudaGraphExecKernelNodeSetParams") == std::string::npos);  // a baseline: every ratio 1
  CHECK(table.find("heap") == std::string::npos);                                   // no ratio

  // A process that wrote a figure twice (the same key) keeps both, in order.
  std::vector<std::vector<bench::CsvRow>> twice{runs[0], runs[1]};
  twice[0].push_back(twice[0][0]);
  twice[0].back().ratio = 0.5;
  const std::vector<bench::Combined> t = bench::combine(twice);
  REQUIRE(t.size() == 5);
  CHECK(t[4].ratios == std::vector<double>{0.5});
  CHECK(bench::combined_table(t, 2).find("(1 of 2)") != std::string::npos);
}

TEST_CASE("a file that is not a bench CSV is refused, naming the file and the line", "[bench][combine]") {
  const std::string other = file_with("other.csv", "a,b,c\n1,2,3\n");
  CHECK_THAT(error_of(other), has_substr(other + ":1: not a bench CSV"));
  const std::string short_row = file_with("short.csv", std::string(header) + "setters,chain,100,1,graphdsl,0.5\n");
  CHECK_THAT(error_of(short_row), has_substr(short_row + ":2: 6 fields, a bench CSV row has 10"));
  const std::string text = file_with("text.csv", std::string(header) + "setters,chain,100,1,graphdsl,fast,,,,\n");
  CHECK_THAT(error_of(text), has_substr(text + ":2: a number field"));
  CHECK_THAT(error_of("/nonexistent/bench.csv"), has_substr("/nonexistent/bench.csv: cannot be read"));
  for (const std::string& f : {other, short_row, text}) std::remove(f.c_str());
}

}  // namespace bench_combine_test
