// The Profile writers (graphdsl/profile.hpp) under the allocation-failure sweep: each of to_table,
// to_csv, to_chrome_trace, to_name_map and to_dot(profile) run once per allocation it makes, that
// allocation failing. A run must either throw std::bad_alloc (nothing else) or, when the failure
// was absorbed, give the fault-free output; the Profile, a const input, is left as it was.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <graphdsl/profile.hpp>

#include "alloc_hook.hpp"
#include "catch.hpp"

namespace profile_faults_test {

namespace gd = graphdsl;

namespace {

/// top -> loop (a WHILE, body: step) -> #2; four records, one unattributed.
gd::Profile small_profile() {
  gd::Profile p;
  p.graph = "faults";
  p.launches = 2;
  p.launch_ns = {9000, 9000};
  const char* names[] = {"top", "loop", "", "step"};
  const gd::NodeKind kinds[] = {gd::NodeKind::memcpy, gd::NodeKind::conditional, gd::NodeKind::memset,
                                gd::NodeKind::kernel};
  for (std::uint32_t i = 0; i < 4; ++i) {
    gd::ProfileNode n;
    n.name = names[i];
    n.path = i == 3 ? "loop[0]/step" : (i == 2 ? "#2" : names[i]);
    n.kind = kinds[i];
    n.graph = i == 3 ? "while body" : "faults";
    n.index = i == 3 ? 0 : i;
    n.parent = i == 3 ? 1 : -1;
    if (i == 1 || i == 2) n.after = {i - 1};
    n.node_ids = {10 + i};
    n.count = i == 1 ? 0 : 2;
    n.total_ns = n.count * 1000;
    n.min_ns = n.max_ns = n.count == 0 ? 0 : 1000;
    p.nodes.push_back(n);
  }
  p.records = {{gd::ProfileWork::memcpy, "HtoD", 0, 1000, 0, 7, 1, 10, 0},
               {gd::ProfileWork::kernel, "step", 1000, 2000, 0, 7, 1, 13, 3},
               {gd::ProfileWork::memset, "memset", 2000, 3000, 0, 8, 1, 12, 2},
               {gd::ProfileWork::kernel, "other", 3000, 3500, 0, 9, 1, 99, -1}};
  p.unattributed = 1;
  p.notes = {"1 record(s) carry graph node ids of no node of this executable"};
  return p;
}

}  // namespace

TEST_CASE("faults: the profile writers throw std::bad_alloc or give the fault-free output", "[faults][profile]") {
  const gd::Profile p = small_profile();
  const std::string csv_before = gd::to_csv(p);
  const std::vector<std::pair<const char*, std::function<std::string(const gd::Profile&)>>> writers = {
      {"to_table", [](const gd::Profile& q) { return gd::to_table(q); }},
      {"to_csv", [](const gd::Profile& q) { return gd::to_csv(q); }},
      {"to_chrome_trace", [](const gd::Profile& q) { return gd::to_chrome_trace(q); }},
      {"to_name_map", [](const gd::Profile& q) { return gd::to_name_map(q); }},
      {"to_dot(profile)", [](const gd::Profile& q) { return gd::to_dot(q); }},
  };
  for (const auto& [what, write] : writers) {
    const std::string want = write(p);
    std::uint64_t k = 1;
    for (;; ++k) {
      std::string got;
      const faults::Outcome run = faults::run_failing(k, [&] { got = write(p); });
      INFO(what << ": allocation " << k << " failed");
      CHECK(run.other.empty());
      if (!run.failed) {
        CHECK(got == want);
        break;
      }
      if (!run.threw) CHECK(got == want);  // absorbed: the same output
      CHECK(gd::to_csv(p) == csv_before);
    }
    CHECK(k > 1);  // each writer allocates, so each was swept
  }
}

}  // namespace profile_faults_test
