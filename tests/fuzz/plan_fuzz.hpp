// tests/fuzz/plan_fuzz.hpp — the plan-builder fuzz harness, shared by the libFuzzer target and the
// plain replay driver.
#pragma once

#include <cstddef>
#include <cstdint>

namespace plan_fuzz {

/// What the harness has done since the process started (the replay driver prints it, so that a
/// smoke run shows it exercised the rules and not only the decoder).
struct Stats {
  std::uint64_t inputs = 0;
  std::uint64_t ops = 0;
  std::uint64_t nodes_added = 0;
  std::uint64_t edges_added = 0;
  std::uint64_t edge_errors = 0;       ///< after/before/add_edge refused as the model predicted
  std::uint64_t valid_plans = 0;       ///< validate() passed and the model agreed
  std::uint64_t invalid_plans = 0;     ///< validate() threw the rule the model predicted
  std::uint64_t cycles = 0;            ///< of which a cycle, its text checked against the model
  std::uint64_t diffs = 0;             ///< diff() results checked against the model
  std::uint64_t diffs_refused = 0;
  std::uint64_t moved_from_uses = 0;   ///< uses of a moved-from Graph that threw as documented
  std::uint64_t builder_aborts = 0;    ///< conditional bodies whose builder threw
  std::uint64_t full_checks = 0;       ///< complete introspection comparisons with the model
  std::uint64_t dead_handles = 0;      ///< handles of destroyed plans refused as documented
  std::uint64_t sealed_bodies = 0;     ///< body handles refused an edit after their builder returned
  std::uint64_t embedding_limits = 0;  ///< self-embedding plans refused at the embedding limit
  std::uint64_t outer_buffers = 0;     ///< buffer references resolved to an enclosing plan (bodies, add_child)
};

/// Runs one input: decodes the bytes into plan operations and checks every result against the
/// harness's model. Aborts (with a message on stderr) on the first disagreement.
void run_one(const std::uint8_t* data, std::size_t size);

/// The counters so far.
const Stats& stats();

}  // namespace plan_fuzz
