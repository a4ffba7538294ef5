// tests/faults/sweep.hpp — the allocation-failure sweep over a plan operation.
//
// sweep(make, op) runs `op` on a fresh fixture (`make()`) once for every k = 1, 2, ..., with the
// k-th allocation failing (alloc_hook.hpp), until `op` completes without reaching the failure.
// After each failed run the fixture's plans must be exactly as before `op`: the same dump, node
// and edge counts, edge list (with edge kinds), fingerprint and validation outcome, and diff()
// against a copy taken before must report nothing changed. The plan must also still work: one
// more node and edge added to it and to that copy leave the two dumps equal. A run where the
// failed allocation was absorbed and `op` completed must give the plan a fault-free run gives.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include <graphdsl/graphdsl.hpp>
#include "alloc_hook.hpp"
#include "catch.hpp"

namespace faults {

namespace gd = graphdsl;

/// What the sweep compares of a plan.
struct PlanState {
  explicit PlanState(const gd::Graph& g);

  gd::Graph copy;  ///< taken before the operation: the diff base and the usability witness
  std::string dump;
  std::size_t nodes = 0;
  std::size_t edges = 0;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, gd::EdgeKind>> edge_list;
  std::uint64_t fingerprint = 0;
  std::string validation;  ///< "" when validate() passes, else its message
  std::string races;       ///< check_races(), which reads the declared accesses (not in dumps)
};

/// The differences between `before` and `g` now ("" when none).
std::string differences(const PlanState& before, const gd::Graph& g);

/// Adds one empty node after node 0 (if any) to both `g` and `before.copy`; returns the
/// differences between their dumps ("" when none).
std::string still_usable(PlanState& before, gd::Graph& g);

/// The totals over every sweep of the run (the summary line printed at the end).
struct SweepTotals {
  std::uint64_t operations = 0;
  std::uint64_t failure_points = 0;
};
SweepTotals& totals();

/// Runs the sweep of `op` (invocable on a fixture F) over fixtures made by `make()` (returning F,
/// whose plans `plans_of(F&)` lists as `std::vector<gd::Graph*>`). Returns the number of
/// allocations `op` makes (each one failed once). Records a failed check, naming `what` and k, at
/// the first k that leaves a plan changed, and stops there.
template <class Make, class Op>
std::uint64_t sweep(const std::string& what, Make make, Op op) {
  for (std::uint64_t k = 1;; ++k) {
    auto f = make();
    const std::vector<gd::Graph*> plans = plans_of(f);
    std::vector<PlanState> before;
    before.reserve(plans.size());
    for (const gd::Graph* g : plans) before.emplace_back(*g);
    const Outcome run = run_failing(k, [&] { op(f); });
    INFO(what << ": allocation " << k << " failed");
    if (!run.other.empty()) {
      FAIL_CHECK("threw another exception: " << run.other);
      return k;
    }
    if (!run.failed) {  // op completed without reaching allocation k: every allocation was tried
      ++totals().operations;
      totals().failure_points += k - 1;
      return k - 1;
    }
    std::string report;
    try {  // a plan left inconsistent may throw from its own inspection
      if (run.threw) {
        for (std::size_t i = 0; i < plans.size(); ++i) report += differences(before[i], *plans[i]);
        for (std::size_t i = 0; report.empty() && i < plans.size(); ++i) report += still_usable(before[i], *plans[i]);
      } else {  // absorbed: the result must be the fault-free one
        auto reference = make();
        op(reference);
        const std::vector<gd::Graph*> expected = plans_of(reference);
        for (std::size_t i = 0; i < plans.size(); ++i) report += differences(PlanState(*expected[i]), *plans[i]);
      }
    } catch (const std::exception& e) {
      report += std::string("inspecting the plan afterwards threw: ") + e.what();
    }
    if (!report.empty()) {
      FAIL_CHECK(report);
      return k;
    }
  }
}

}  // namespace faults
