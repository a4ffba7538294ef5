// tests/unit/misuse_catalogue_figure.cpp — prints how many misuse-catalogue cases the run caught:
//
//   misuse catalogue: 72 PB cases over 28 catalogue rows, 0 CUDA calls
//   misuse catalogue: of which 9 over 5 rows marked CT, 60 over 22 rows marked PB, 3 over 1 row marked UB-doc
//
// A Catch2 listener (v2 here, v3 on the GPU machine) watches the test cases named "row N: ..."
// (MISUSE_CASE). A case counts when Catch2 saw no failed assertion in it and it made at least one
// check of misuse_catalogue.hpp that required a name in the message; a row counts once however
// many cases it has. The second line splits the count by the case's tag, the catalogue's mark of
// its row (PB; CT or UB-doc for rows the catalogue expects caught elsewhere). The CUDA calls are
// those made while catalogue cases ran. Cases whose message has nothing to name (a moved-from
// object) are reported on a line of their own and not counted. Nothing is printed when no
// catalogue case ran (a filtered run).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#else
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // Catch2 v2: declares TestEventListenerBase
#include <catch2/catch.hpp>
#endif

#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "misuse_catalogue.hpp"

namespace {

#if __has_include(<catch2/catch_all.hpp>)
using ListenerBase = Catch::EventListenerBase;
#else
using ListenerBase = Catch::TestEventListenerBase;
#endif

// TestCaseStats::testInfo is a value in v2 and a pointer in v3.
[[maybe_unused]] const Catch::TestCaseInfo& info_of(const Catch::TestCaseInfo& info) { return info; }
[[maybe_unused]] const Catch::TestCaseInfo& info_of(const Catch::TestCaseInfo* info) { return *info; }

/// The catalogue row of a test case named "row N: ...", or -1.
int catalogue_row(const std::string& name) {
  const std::string prefix = "row ";
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  std::size_t end = prefix.size();
  int row = 0;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') row = row * 10 + (name[end++] - '0');
  return end > prefix.size() && end < name.size() && name[end] == ':' ? row : -1;
}

// TestCaseInfo::tags holds strings in v2 and Catch::Tag values (with `original`) in v3.
[[maybe_unused]] std::string tag_text(const std::string& tag) { return tag; }
template <class Tag>
auto tag_text(const Tag& tag) -> decltype(std::string(tag.original)) {
  return std::string(tag.original);
}

/// Where the catalogue says the case's row should be caught: the tag PB, CT or UB-doc.
std::string mark_of(const Catch::TestCaseInfo& info) {
  for (const auto& tag : info.tags) {
    std::string t = tag_text(tag);
    if (!t.empty() && t.front() == '[') t = t.substr(1, t.size() - 2);
    if (t == "PB" || t == "CT" || t == "UB-doc") return t;
  }
  return "?";
}

std::string row_list(const std::set<int>& rows) {
  std::string s;
  for (int r : rows) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

class CatalogueFigure : public ListenerBase {
 public:
  using ListenerBase::ListenerBase;

  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    ListenerBase::testCaseStarting(info);
    catalogue::running() = {};
    calls_at_start_ = graphdsl::debug::cuda_calls();
  }

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    ListenerBase::testCaseEnded(stats);
    const Catch::TestCaseInfo& info = info_of(stats.testInfo);
    const int row = catalogue_row(info.name);
    if (row < 0) return;
    ++ran_;
    cuda_calls_ += graphdsl::debug::cuda_calls() - calls_at_start_;
    const catalogue::Tally& t = catalogue::running();
    if (stats.totals.assertions.failed != 0 || t.failed != 0) return;
    if (t.named > 0) {
      ++counted_;
      rows_.insert(row);
      Marked& m = by_mark_[mark_of(info)];
      ++m.cases;
      m.rows.insert(row);
    } else if (t.unnamed > 0) {
      ++unnamed_;
      unnamed_rows_.insert(row);
    }
  }

  void testRunEnded(const Catch::TestRunStats& stats) override {
    ListenerBase::testRunEnded(stats);
    if (ran_ == 0) return;
    std::cout << "misuse catalogue: " << counted_ << " PB cases over " << rows_.size() << " catalogue rows, "
              << cuda_calls_ << " CUDA calls\n";
    std::string split;
    for (const auto& [mark, m] : by_mark_) {
      split += (split.empty() ? "" : ", ") + std::to_string(m.cases) + " over " + std::to_string(m.rows.size()) +
               (m.rows.size() == 1 ? " row" : " rows") + " marked " + mark;
    }
    if (!split.empty()) std::cout << "misuse catalogue: of which " << split << "\n";
    if (unnamed_ > 0) {
      std::cout << "misuse catalogue: " << unnamed_ << " more caught with nothing to name in the message (rows "
                << row_list(unnamed_rows_) << "), not counted\n";
    }
    if (counted_ + unnamed_ < ran_) {
      std::cout << "misuse catalogue: " << ran_ - counted_ - unnamed_ << " of " << ran_ << " cases failed or checked nothing\n";
    }
    std::cout.flush();
  }

 private:
  std::uint64_t calls_at_start_ = 0;
  std::uint64_t cuda_calls_ = 0;
  int ran_ = 0;
  int counted_ = 0;
  int unnamed_ = 0;
  std::set<int> rows_;
  std::set<int> unnamed_rows_;
  struct Marked {
    int cases = 0;
    std::set<int> rows;
  };
  std::map<std::string, Marked> by_mark_;  ///< counted cases by the catalogue's mark of their row
};

}  // namespace

CATCH_REGISTER_LISTENER(CatalogueFigure)
