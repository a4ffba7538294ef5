// samples/bench/bench_heap.cpp — the benchmark's heap counters, the CSV writer and the crossover line.
//
// The global operator new / delete of this program are replaced (the replacement is a program-wide
// one: the graphdsl library linked into it allocates through these too). Each allocation adds one to
// a thread-local count and its size to a thread-local byte total, then calls malloc; nothing else
// changes. Thread-local, so a figure "allocations per call" is what the calling thread allocated
// during the call, not what a CUDA driver thread did meanwhile. The CUDA driver is C and allocates
// with malloc, which operator new never sees: malloc_in_use() reads glibc's mallinfo2() instead.
#include <cstdio>
#include <cstdlib>
#include <new>

#include <malloc.h>

#include "bench_common.hpp"

namespace {

thread_local std::uint64_t t_allocs = 0;
thread_local std::uint64_t t_bytes = 0;

void* counted_alloc(std::size_t size, std::size_t align) {
  ++t_allocs;
  t_bytes += size;
  if (size == 0) size = 1;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (size + align - 1) / align * align)
                                              : std::malloc(size);
  return p;
}

void* counted_or_throw(std::size_t size, std::size_t align) {
  void* p = counted_alloc(size, align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

std::FILE* g_csv = nullptr;
bool g_csv_ok = true;
bench::Options g_options;

}  // namespace

void* operator new(std::size_t n) { return counted_or_throw(n, 0); }
void* operator new[](std::size_t n) { return counted_or_throw(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
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

namespace bench {

HeapCount thread_heap() noexcept { return {t_allocs, t_bytes}; }

std::uint64_t malloc_in_use() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  return static_cast<std::uint64_t>(m.uordblks) + static_cast<std::uint64_t>(m.hblkhd);
#else
  const struct mallinfo m = mallinfo();  // int fields: wraps above 2 GiB
  return static_cast<std::uint64_t>(static_cast<unsigned>(m.uordblks)) +
         static_cast<std::uint64_t>(static_cast<unsigned>(m.hblkhd));
#endif
}

Options& options() { return g_options; }

bool csv_open(const std::string& path) {
  g_csv = std::fopen(path.c_str(), "w");
  if (g_csv == nullptr) return false;
  g_csv_ok = std::fputs("section,workload,N,k,variant,median_us,noise,ratio_vs_raw,allocs_per_call,bytes_per_call\n",
                        g_csv) >= 0;
  return g_csv_ok;
}

bool csv_close() {
  if (g_csv == nullptr) return true;
  const bool ok = std::fclose(g_csv) == 0 && g_csv_ok;
  g_csv = nullptr;
  return ok;
}

namespace {

/// A text field as CSV writes it (RFC 4180): quoted, with inner quotes doubled, when it holds a comma
/// or a quote ("child, prepared"), else as it is.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

void csv_row(const Row& r) {
  if (g_csv == nullptr) return;
  auto num = [](double v, const char* spec) { return v < 0 ? std::string() : fmt::format(spec, v); };
  const std::string line =
      fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csv_field(r.section), csv_field(r.workload), r.n,
                  r.k < 0 ? std::string() : std::to_string(r.k), csv_field(r.variant), num(r.median_us, "{:.4f}"),
                  num(r.noise, "{:.4f}"), num(r.ratio, "{:.4f}"),
                  num(r.allocs, "{:.3f}"), num(r.bytes, "{:.1f}"));
  if (std::fputs(line.c_str(), g_csv) < 0) g_csv_ok = false;
}

void csv_pair(const std::string& section, const std::string& workload, int n, int k, const std::string& a_variant,
              const std::string& b_variant, const Pair& p) {
  csv_row({section, workload, n, k, a_variant, p.ma(), p.noise(), p.ratio()});
  csv_row({section, workload, n, k, b_variant, p.mb(), p.noise(), 1.0});
}

std::string crossover_line(int nodes, const std::vector<int>& ks, const std::vector<double>& per_node,
                           const std::vector<double>& whole) {
  std::size_t hi = 0;  // the first k where whole_graph is cheaper
  while (hi < ks.size() && !(whole[hi] < per_node[hi])) ++hi;
  if (ks.empty()) return "no k measured";
  if (hi == ks.size()) {
    return fmt::format("per_node is cheaper at every measured k (up to k={}: per_node {:.1f} us, whole_graph {:.1f} us)",
                       ks.back(), per_node.back(), whole.back());
  }
  if (hi == 0) {
    return fmt::format("whole_graph is cheaper from k={} (per_node {:.1f} us, whole_graph {:.1f} us)", ks[0],
                       per_node[0], whole[0]);
  }
  // Linear interpolation of per_node - whole_graph between the two bracketing k.
  const std::size_t lo = hi - 1;
  const double d0 = per_node[lo] - whole[lo], d1 = per_node[hi] - whole[hi];
  const double kx = ks[lo] + (ks[hi] - ks[lo]) * (-d0) / (d1 - d0);
  return fmt::format("per_node cheaper at k/N={:.4g}, whole_graph cheaper from k/N={:.4g}; interpolated crossover "
                     "k ~ {:.0f} (k/N ~ {:.4g})",
                     static_cast<double>(ks[lo]) / nodes, static_cast<double>(ks[hi]) / nodes, kx, kx / nodes);
}

}  // namespace bench
