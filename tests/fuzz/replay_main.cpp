// tests/fuzz/replay_main.cpp — the plan fuzz harness without libFuzzer: replays files and folders
// of inputs (a corpus, a crash file) and runs seeded random inputs, so that any compiler builds it
// and CTest can run it as a smoke test.
//
//   graphdsl_fuzz_replay [PATH...] [--random N] [--seed S] [--max-len L]
//
// PATH is a file or a folder (its regular files, in name order). --random runs N inputs of random
// length 0..L (default 2048) from std::mt19937_64 seeded with S (default 1); the same S gives the
// same inputs. Exit status 0 when every input passed; a failed check aborts with its message.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "plan_fuzz.hpp"

namespace {

std::vector<std::uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int usage() {
  std::fprintf(stderr, "usage: graphdsl_fuzz_replay [PATH...] [--random N] [--seed S] [--max-len L]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  unsigned long long random_inputs = 0, seed = 1, max_len = 2048;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](unsigned long long& out) {
      if (i + 1 >= argc) return false;
      out = std::strtoull(argv[++i], nullptr, 10);
      return true;
    };
    if (arg == "--random") {
      if (!value(random_inputs)) return usage();
    } else if (arg == "--seed") {
      if (!value(seed)) return usage();
    } else if (arg == "--max-len") {
      if (!value(max_len)) return usage();
    } else if (arg.rfind("--", 0) == 0) {
      return usage();
    } else if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(arg)) {
        if (e.is_regular_file()) in_dir.push_back(e.path());
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::is_regular_file(arg)) {
      files.emplace_back(arg);
    } else {
      std::fprintf(stderr, "graphdsl_fuzz_replay: no such file or folder: %s\n", arg.c_str());
      return 2;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::size_t bytes = 0;
  for (const auto& f : files) {
    const std::vector<std::uint8_t> data = read_file(f);
    bytes += data.size();
    plan_fuzz::run_one(data.data(), data.size());
  }
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> data;
  for (unsigned long long k = 0; k < random_inputs; ++k) {
    data.resize(static_cast<std::size_t>(rng() % (max_len + 1)));
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    bytes += data.size();
    plan_fuzz::run_one(data.data(), data.size());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const plan_fuzz::Stats& s = plan_fuzz::stats();
  std::printf("graphdsl_fuzz_replay: %zu files + %llu random inputs (seed %llu), %zu bytes, %.2f s: all passed\n",
              files.size(), random_inputs, seed, bytes, seconds);
  std::printf("  operations %llu, nodes added %llu, edges added %llu, edge errors %llu\n",
              static_cast<unsigned long long>(s.ops), static_cast<unsigned long long>(s.nodes_added),
              static_cast<unsigned long long>(s.edges_added), static_cast<unsigned long long>(s.edge_errors));
  std::printf("  validate: %llu valid, %llu invalid (%llu cycles); diff: %llu (%llu refused); full checks %llu\n",
              static_cast<unsigned long long>(s.valid_plans), static_cast<unsigned long long>(s.invalid_plans),
              static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.diffs),
              static_cast<unsigned long long>(s.diffs_refused), static_cast<unsigned long long>(s.full_checks));
  std::printf("  moved-from uses %llu, builder aborts %llu\n", static_cast<unsigned long long>(s.moved_from_uses),
              static_cast<unsigned long long>(s.builder_aborts));
  std::printf("  graph-buffer references resolved to an enclosing plan %llu\n",
              static_cast<unsigned long long>(s.outer_buffers));
  return 0;
}
