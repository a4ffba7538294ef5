// samples/bench/bench_combine.cpp — the figures of several bench processes combined
// (bench_combine.hpp).
#include "bench_combine.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "sample_util.hpp"

namespace bench {

namespace {

constexpr const char* header = "section,workload,N,k,variant,median_us,noise,ratio_vs_raw,allocs_per_call,bytes_per_call";
constexpr std::size_t field_count = 10;

/// The fields of one CSV line: commas split them, except inside double quotes, where "" is a quote.
std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

/// A number field (-1 when empty); `ok` turns false when it is not a number.
double number(const std::string& s, bool& ok) {
  if (s.empty()) return -1;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') ok = false;
  return v;
}

using Key = std::tuple<std::string, std::string, int, int, std::string>;

Key key_of(const CsvRow& r) { return {r.section, r.workload, r.n, r.k, r.variant}; }

/// The median over the values of `runs` that are not negative (-1 when none is).
double median_present(const std::vector<double>& values) {
  std::vector<double> v;
  for (double x : values) {
    if (x >= 0) v.push_back(x);
  }
  return median_of(std::move(v));
}

}  // namespace

double median_of(std::vector<double> v) { return v.empty() ? -1 : sample::median(std::move(v)); }

std::vector<CsvRow> read_bench_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", path));
  std::string line;
  if (!std::getline(in, line) || line != header) {
    throw std::runtime_error(fmt::format("{}:1: not a bench CSV (its header is not \"{}\")", path, header));
  }
  std::vector<CsvRow> rows;
  for (std::size_t at = 2; std::getline(in, line); ++at) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split_fields(line);
    if (f.size() != field_count) {
      throw std::runtime_error(fmt::format("{}:{}: {} fields, a bench CSV row has {}", path, at, f.size(), field_count));
    }
    CsvRow r;
    bool ok = true;
    r.section = f[0];
    r.workload = f[1];
    r.n = static_cast<int>(number(f[2], ok));
    r.k = static_cast<int>(number(f[3], ok));
    r.variant = f[4];
    r.median_us = number(f[5], ok);
    r.noise = number(f[6], ok);
    r.ratio = number(f[7], ok);
    r.allocs = number(f[8], ok);
    r.bytes = number(f[9], ok);
    if (!ok) throw std::runtime_error(fmt::format("{}:{}: a number field holds something else", path, at));
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<Combined> combine(const std::vector<std::vector<CsvRow>>& runs) {
  struct Values {
    std::vector<double> us, noise, ratio, allocs, bytes;
  };
  std::vector<Combined> out;
  std::vector<Values> values;
  std::map<std::pair<Key, std::size_t>, std::size_t> index;  // (key, occurrence in its process) -> figure
  for (const std::vector<CsvRow>& run : runs) {
    std::map<Key, std::size_t> seen;  // occurrences of each key in this process
    for (const CsvRow& r : run) {
      const Key key = key_of(r);
      const auto [it, added] = index.emplace(std::make_pair(key, seen[key]++), out.size());
      if (added) {
        Combined c;
        c.figure.section = r.section;
        c.figure.workload = r.workload;
        c.figure.n = r.n;
        c.figure.k = r.k;
        c.figure.variant = r.variant;
        out.push_back(std::move(c));
        values.emplace_back();
      }
      Combined& c = out[it->second];
      Values& v = values[it->second];
      if (r.ratio >= 0) c.ratios.push_back(r.ratio);
      if (r.median_us >= 0) c.us.push_back(r.median_us);
      v.noise.push_back(r.noise);
      v.allocs.push_back(r.allocs);
      v.bytes.push_back(r.bytes);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    Combined& c = out[i];
    c.figure.median_us = median_of(c.us);
    c.figure.ratio = median_of(c.ratios);
    c.figure.noise = median_present(values[i].noise);
    c.figure.allocs = median_present(values[i].allocs);
    c.figure.bytes = median_present(values[i].bytes);
    if (!c.ratios.empty()) {
      c.ratio_min = *std::min_element(c.ratios.begin(), c.ratios.end());
      c.ratio_max = *std::max_element(c.ratios.begin(), c.ratios.end());
    }
  }
  return out;
}

std::string combined_table(const std::vector<Combined>& figures, std::size_t processes) {
  std::string out = fmt::format(
      "combined: {} processes; per figure (ratio = graphdsl or peer / raw CUDA) the median over the processes, "
      "its range, and each process's value\n",
      processes);
  out += fmt::format("  {:<72} {:>6}  {:<11}  {}\n", "figure", "median", "range", "per process");
  for (const Combined& c : figures) {
    if (c.ratios.empty()) continue;
    if (std::all_of(c.ratios.begin(), c.ratios.end(), [](double r) { return r == 1.0; })) continue;  // a baseline
    std::string name = fmt::format("{} | {} N={}", c.figure.section, c.figure.workload, c.figure.n);
    if (c.figure.k >= 0) name += fmt::format(" k={}", c.figure.k);
    name += " | " + c.figure.variant;
    std::string each;
    for (double r : c.ratios) each += fmt::format("{}{:.3f}", each.empty() ? "" : " ", r);
    out += fmt::format("  {:<72} {:>6.3f}  {:.3f}-{:.3f}  {}{}\n", name, c.figure.ratio, c.ratio_min, c.ratio_max, each,
                       c.ratios.size() < processes ? fmt::format("   ({} of {})", c.ratios.size(), processes) : "");
  }
  return out;
}

}  // namespace bench
