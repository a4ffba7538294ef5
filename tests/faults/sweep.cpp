// tests/faults/sweep.cpp — the comparisons of the allocation-failure sweep (sweep.hpp).
#include "sweep.hpp"

#include "plan/graph_impl.hpp"       // the plan's storage (not installed: the suite includes src/)
#include "plan/recorded_update.hpp"  // same_storage

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>

namespace faults {
namespace {
std::string validation_of(const gd::Graph& g) {
  try {
    g.validate();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

std::string races_of(const gd::Graph& g) {
  try {
    return g.check_races().to_string();
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::vector<std::tuple<std::uint32_t, std::uint32_t, gd::EdgeKind>> edge_list_of(const gd::Graph& g) {
  std::vector<std::tuple<std::uint32_t, std::uint32_t, gd::EdgeKind>> out;
  for (const gd::Edge& e : g.edges()) out.emplace_back(e.from.index(), e.to.index(), e.kind);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// The lines of `a` that `b` lacks, each after `mark` (a multiset difference: order ignored).
void lines_missing(std::ostringstream& out, const char* mark, std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::string> only;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
  for (const std::string& l : only) out << mark << l << "\n";
}

template <class T>
void compare(std::ostringstream& out, const char* what, const T& before, const T& now) {
  if (!(before == now)) out << what << " changed\n";
}
}  // namespace

PlanState::PlanState(const gd::Graph& g)
    : copy(g),
      dump(g.dump()),
      nodes(g.node_count()),
      edges(g.edge_count()),
      edge_list(edge_list_of(g)),
      fingerprint(g.fingerprint()),
      validation(validation_of(g)),
      races(races_of(g)) {}

std::string differences(const PlanState& before, const gd::Graph& g) {
  std::ostringstream out;
  const std::string dump = g.dump();
  if (dump != before.dump) {  // the lines that differ (dumps list nodes in order: few lines move)
    out << "dump changed:\n";
    lines_missing(out, "  - ", lines_of(before.dump), lines_of(dump));
    lines_missing(out, "  + ", lines_of(dump), lines_of(before.dump));
  }
  compare(out, "node count", before.nodes, g.node_count());
  compare(out, "edge count", before.edges, g.edge_count());
  compare(out, "edge list", before.edge_list, edge_list_of(g));
  compare(out, "fingerprint", before.fingerprint, g.fingerprint());
  compare(out, "validation", before.validation, validation_of(g));
  compare(out, "race report", before.races, races_of(g));
  // Records the public view does not show (a kernel's arguments, a memcpy's parameters) left behind:
  // the stores differ in size from the copy taken before.
  if (!gd::detail::same_storage(before.copy.impl(), g.impl())) out << "the plan's stores changed size\n";
  if (before.validation.empty()) {
    const gd::UpdateResult r = gd::diff(before.copy, g);
    if (!r || !r.changed.empty()) out << "diff against the plan before: " << r.to_string() << "\n";
  }
  return out.str();
}

std::string still_usable(PlanState& before, gd::Graph& g) {
  for (gd::Graph* p : {&before.copy, &g}) {
    auto e = p->add_empty().name("added after the fault");
    if (p->node_count() > 1) e.after(p->node(0));
  }
  const std::string witness = before.copy.dump();
  const std::string dump = g.dump();
  return dump == witness ? std::string()
                         : "a node added after the fault reads differently:\n" + dump + "expected:\n" + witness;
}

namespace {
/// Prints the totals when the program ends (CTest's log keeps the line).
struct PrintedTotals : SweepTotals {
  ~PrintedTotals() {
    std::printf("allocation-failure sweep: %llu operations, %llu allocations failed one at a time\n",
                static_cast<unsigned long long>(operations), static_cast<unsigned long long>(failure_points));
  }
};
}  // namespace

SweepTotals& totals() {
  static PrintedTotals t;
  return t;
}

}  // namespace faults
