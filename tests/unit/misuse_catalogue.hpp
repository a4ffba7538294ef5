// tests/unit/misuse_catalogue.hpp — how a misuse-catalogue case checks its misuse and how the
// suite counts it (shared/reference/misuse-catalogue.md, the rows graphdsl catches while building).
//
// A case is one TEST_CASE named "row N: ..." after its catalogue row (MISUSE_CASE below). It passes
// its misuse to expect_usage_error() or expect_invalid(), which require all of:
//   * a graphdsl::UsageError (not a CudaError, another exception or none),
//   * exactly the expected message,
//   * each given node (or plan) name quoted in that message,
//   * no CUDA call through graphdsl's checked path (debug::cuda_calls() unchanged).
// The listener in misuse_catalogue_figure.cpp counts the cases that ran, made at least one such
// check and passed, and prints the figure at the end of the run.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "unit_support.hpp"

namespace catalogue {

/// What the running catalogue case has checked so far (reset by the listener for each case).
struct Tally {
  int named = 0;    ///< checks that required node or plan names in the message
  int unnamed = 0;  ///< checks of a message that has nothing to name (a moved-from object, an empty handle)
  int failed = 0;   ///< checks that did not hold
};

inline Tally& running() {
  static Tally t;
  return t;
}

/// `misuse()` throws UsageError with exactly "graphdsl: " + `message`, the message quotes each of
/// `names` ('name'), and no CUDA call is made. An empty `names` marks a message with nothing to
/// name: such a check is not counted in the figure.
template <class F>
void expect_usage_error(F&& misuse, const std::string& message, std::initializer_list<std::string_view> names) {
  const auto calls = graphdsl::debug::cuda_calls();
  const std::string expected = "graphdsl: " + message;
  const std::string got = unit::usage_error_of(misuse);  // appends "<N CUDA calls made>" if any were
  CHECK(got == expected);
  bool named = true;
  for (std::string_view name : names) {
    const std::string quoted = "'" + std::string(name) + "'";
    INFO("the message must quote " << quoted);
    const bool found = got.find(quoted) != std::string::npos;
    CHECK(found);
    named = named && found;
  }
  const bool no_cuda_call = graphdsl::debug::cuda_calls() == calls;
  CHECK(no_cuda_call);
  Tally& t = running();
  ++(names.size() == 0 ? t.unnamed : t.named);
  if (got != expected || !named || !no_cuda_call) ++t.failed;
}

/// The plan is refused with `message` by validate() and by instantiate(), both without a CUDA call.
inline void expect_invalid(const graphdsl::Graph& g, const std::string& message,
                           std::initializer_list<std::string_view> names) {
  expect_usage_error([&] { g.validate(); }, message, names);
  expect_usage_error([&] { (void)g.instantiate(); }, message, names);
}

}  // namespace catalogue

/// A catalogue case: `row` is the row number in misuse-catalogue.md, `mark` where the catalogue
/// says graphdsl should catch it (PB, CT, ...), `title` the misuse.
#define MISUSE_CASE(row, mark, title) TEST_CASE("row " #row ": " title, "[catalogue][" mark "]")
