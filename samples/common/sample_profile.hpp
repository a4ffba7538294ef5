// samples/common/sample_profile.hpp — what the pipeline and conditional_while samples print about
// where a launch spends its device time (graphdsl/profile.hpp; not part of graphdsl): the profile
// table, the sum of node times against the launch's event time, replay time with profiling off
// and on, and with `--profile-out DIR` the heat-map DOT, CSV, Chrome trace and name map.
#pragma once

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <graphdsl/executable.hpp>
#include <graphdsl/profile.hpp>

#include "sample_util.hpp"

namespace sample {

/// The folder after `--profile-out` on the command line; empty without it.
inline std::string profile_out(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--profile-out") == 0) return argv[i + 1];
  }
  return {};
}

/// graphdsl::profiler_attach() when CUPTI is there (before the executables to profile are
/// compiled: their own graph node ids are then recorded); says why not otherwise.
inline void attach_profiler() {
  if (!graphdsl::profiler_available()) return;
  try {
    graphdsl::profiler_attach();
  } catch (const graphdsl::ProfilerError& e) {
    fmt::print("profile: {}: the profile will be skipped\n", e.what());
  }
}

/// Writes `text` to `path`; false (with a message) when it cannot.
inline bool write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

/// Launches `exec` `launches` times unprofiled (each timed with events), then profiles as many
/// launches (graphdsl::profile) and prints what it found. Without CUPTI (or with another profiler
/// attached) it says why and returns true: profiling is optional. Returns false when a record
/// could not be attributed to a plan node.
inline bool print_profile(graphdsl::Executable& exec, cudaStream_t stream, int launches, const std::string& stem,
                          const std::string& out_dir) {
  EventTimer timer;
  std::vector<double> off_us;
  for (int k = 0; k < launches; ++k) {
    timer.start(stream);
    exec.launch(stream);
    off_us.push_back(timer.stop_us(stream));
  }
  exec.synchronize(stream);
  if (!graphdsl::profiler_available()) {
    fmt::print("\nprofile: CUPTI is not available (libcupti.so.13 not found; GRAPHDSL_CUPTI_PATH names it): skipped\n");
    return true;
  }
  graphdsl::Profile p;
  const Stopwatch host;
  try {
    p = graphdsl::profile(exec, stream, launches);
  } catch (const graphdsl::ProfilerError& e) {
    fmt::print("\nprofile: {}: skipped\n", e.what());
    return true;
  }
  const double profile_ms = host.us() / 1e3;
  std::vector<double> on_us;
  for (std::uint64_t ns : p.launch_ns) on_us.push_back(static_cast<double>(ns) / 1e3);
  const double off = median(off_us), on = median(on_us);
  const double nodes_us = static_cast<double>(graphdsl::attributed_ns(p)) / 1e3 / launches;
  double launch_us = 0.0;
  for (double v : on_us) launch_us += v / launches;
  fmt::print("\n--- graphdsl::profile(exec, stream, {}) ---\n{}", launches, graphdsl::to_table(p));
  fmt::print("sum of node times vs the launch's device time (cudaEvent): {:.2f} us of {:.2f} us per launch ({:.1f} %)\n",
             nodes_us, launch_us, launch_us > 0.0 ? 100.0 * nodes_us / launch_us : 0.0);
  fmt::print("replay device time per launch (median of {}): profiling off {:.2f} us, on {:.2f} us: overhead x{:.3f};"
             " profile() took {:.1f} ms on the host\n",
             launches, off, on, off > 0.0 ? on / off : 0.0, profile_ms);
  if (!out_dir.empty()) {
    const std::string base = out_dir + "/profile-" + stem;
    const bool written = write_file(base + ".dot", graphdsl::to_dot(p)) && write_file(base + ".csv", graphdsl::to_csv(p)) &&
                         write_file(base + "-trace.json", graphdsl::to_chrome_trace(p)) &&
                         write_file(base + "-names.json", graphdsl::to_name_map(p));
    fmt::print("{} {}.dot (heat map: dot -Tsvg), .csv, -trace.json (ui.perfetto.dev), -names.json (Nsight Systems "
               "name map)\n",
               written ? "wrote" : "could not write all of", base);
  }
  return p.unattributed == 0;
}

}  // namespace sample
