// Two processes, one GPU each, one NCCL world: the test starts two copies of graphdsl_mp_rank
// (tests/multi_process/rank.cu; fork + exec, the unique id passed through a file) and checks how
// each one ends. What a rank checks is in rank.cu; its output is shown when a check fails.
#if GRAPHDSL_TEST_NCCL
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdlib.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "gpu_support.hpp"

namespace {

/// How one rank process ended, and what it printed.
struct Ended {
  int status = -1;  ///< exit status; -1 when killed (it ran past the limit) or not started
  std::string output;
};

/// Starts `graphdsl_mp_rank mode <r> 2 <r> <id-file>` for ranks 0 and 1 (rank r on device r), waits
/// for both (at most 90 s, then kills them), and returns how they ended.
std::array<Ended, 2> run_pair(const std::string& mode) {
  static const std::string dir = [] {
    char name[] = "/tmp/graphdsl-mp-XXXXXX";
    return std::string(mkdtemp(name) != nullptr ? name : "/tmp");
  }();
  const std::string id_file = dir + "/" + mode + ".id";
  std::remove(id_file.c_str());
  std::array<pid_t, 2> pids{};
  std::array<std::string, 2> logs;
  for (int r = 0; r < 2; ++r) {
    logs[r] = dir + "/" + mode + ".rank" + std::to_string(r) + ".log";
    const std::string rank = std::to_string(r);
    const pid_t pid = fork();
    if (pid == 0) {
      std::FILE* log = std::freopen(logs[r].c_str(), "w", stdout);
      if (log == nullptr) _exit(3);
      dup2(fileno(stdout), fileno(stderr));
      execl(GRAPHDSL_MP_RANK, GRAPHDSL_MP_RANK, mode.c_str(), rank.c_str(), "2", rank.c_str(), id_file.c_str(),
            static_cast<char*>(nullptr));
      _exit(4);  // exec failed
    }
    pids[r] = pid;
  }
  std::array<Ended, 2> ended;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  for (int r = 0; r < 2; ++r) {
    if (pids[r] <= 0) continue;
    int status = 0;
    while (waitpid(pids[r], &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > limit) {
        kill(pids[r], SIGKILL);
        waitpid(pids[r], &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ended[r].status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(logs[r]);
    std::stringstream text;
    text << in.rdbuf();
    ended[r].output = text.str();
  }
  return ended;
}

void check_both(const std::array<Ended, 2>& e) {
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r << " printed:\n" << e[r].output);
    CHECK(e[r].status == 0);
    CHECK_THAT(e[r].output, has_substr("rank " + std::to_string(r) + ": as expected"));
  }
}

}  // namespace

TEST_CASE("two processes: a plan with an all-reduce and an all-gather over a joined world, checked and updated",
          "[multi_gpu][nccl][multi_process]") {
  const auto e = run_pair("ok");
  check_both(e);
  for (int r = 0; r < 2; ++r) {
    CHECK_THAT(e[r].output, has_substr("ok: 8192 values checked"));
    CHECK_THAT(e[r].output, has_substr("after update: 8192 values checked"));
  }
}

TEST_CASE("two processes: a peer that never launches gives NcclError naming the node, not a hang",
          "[multi_gpu][nccl][multi_process]") {
  const auto e = run_pair("no-launch");
  check_both(e);
  CHECK_THAT(e[0].output, has_substr("graph 'ranks' launched on a stream"));
  CHECK_THAT(e[0].output, has_substr("The communicators were aborted"));
}

TEST_CASE("two processes: ranks that disagree on the world size get NcclError when joining",
          "[multi_gpu][nccl][multi_process]") {
  check_both(run_pair("world"));
}
#endif  // GRAPHDSL_TEST_NCCL
