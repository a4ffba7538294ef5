// samples/bench/bench_processes.cpp — bench --processes P: the benchmark run in P processes one
// after the other and their figures combined (bench_combine.hpp).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "bench_combine.hpp"
#include "bench_common.hpp"

extern char** environ;

namespace bench {

namespace {

/// How a process ended, for the progress lines.
std::string ending(int status) {
  if (WIFEXITED(status)) return fmt::format("exit {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "ended";
}

/// Runs `/proc/self/exe args...` with its standard output and error in `log`; the exit status
/// (as waitpid gives it), or -1 when it could not be started.
int run_one(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  if (posix_spawn_file_actions_init(&files) != 0) return -1;
  int status = -1;
  pid_t pid = 0;
  if (posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0 &&
      posix_spawn_file_actions_adddup2(&files, 1, 2) == 0 &&
      posix_spawn(&pid, "/proc/self/exe", &files, nullptr, argv.data(), environ) == 0) {
    while (waitpid(pid, &status, 0) < 0) {
    }
  }
  posix_spawn_file_actions_destroy(&files);
  return status;
}

}  // namespace

int run_processes(int argc, char** argv, int processes, const std::string& csv) {
  std::vector<std::string> args{argv[0]};
  std::string shown;
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if ((w == "--processes" || w == "--csv") && i + 1 < argc) {
      ++i;
      continue;
    }
    args.push_back(w);
    shown += " " + w;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/graphdsl-bench.XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) {
    std::fprintf(stderr, "bench: cannot create a folder %s for the processes' output\n", dir.c_str());
    return 2;
  }
  fmt::print("bench --processes {}: `bench{}` {} times, one after the other; each one's output and CSV in {}\n",
             processes, shown, processes, dir);
  std::fflush(stdout);
  std::vector<std::vector<CsvRow>> runs;
  int failed = 0;
  for (int p = 1; p <= processes; ++p) {
    const std::string log = fmt::format("{}/process{}.log", dir, p);
    const std::string out = fmt::format("{}/process{}.csv", dir, p);
    std::vector<std::string> child = args;
    child.insert(child.end(), {"--csv", out});
    const auto start = std::chrono::steady_clock::now();
    const int status = run_one(child, log);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status == -1) {
      std::fprintf(stderr, "bench: process %d could not be started\n", p);
      if (p == 1) return 2;
      ++failed;
      continue;
    }
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    fmt::print("  process {} of {}: {} after {:.1f} s{}\n", p, processes, ending(status), s,
               ok ? "" : fmt::format(" (see {})", log));
    std::fflush(stdout);
    if (!ok) {
      ++failed;
      continue;
    }
    try {
      runs.push_back(read_bench_csv(out));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench: %s\n", e.what());
      ++failed;
    }
  }
  const std::vector<Combined> figures = combine(runs);
  fmt::print("\n{}", combined_table(figures, runs.size()));
  if (!csv.empty()) {
    if (!csv_open(csv)) {
      std::fprintf(stderr, "bench: cannot write %s\n", csv.c_str());
      return 2;
    }
    for (const Combined& c : figures) {
      const CsvRow& f = c.figure;
      csv_row({f.section, f.workload, f.n, f.k, f.variant, f.median_us, f.noise, f.ratio, f.allocs, f.bytes});
    }
    if (!csv_close()) failed = failed == 0 ? 1 : failed;
  }
  if (failed != 0) fmt::print("bench: {} of {} processes failed or left no readable CSV\n", failed, processes);
  return failed == 0 ? 0 : 1;
}

}  // namespace bench
