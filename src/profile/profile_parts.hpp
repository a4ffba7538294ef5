// src/profile/profile_parts.hpp — pieces the Profile writers share (writers.cpp, profile_dot.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graphdsl/profile.hpp"

namespace graphdsl::detail {

/// Per entry: its own total plus the totals of every node nested under it.
std::vector<std::uint64_t> inclusive_ns(const Profile& p);
/// Per entry: whether nodes are nested under it (a child or conditional node).
std::vector<bool> holders(const Profile& p);
/// The launches' device time (sum of Profile::launch_ns), or the records' span when there is none.
std::uint64_t launch_total_ns(const Profile& p) noexcept;
/// ns as microseconds with three decimals.
std::string micros(std::uint64_t ns);
/// 100 * ns / of with one decimal, "-" when `of` is 0.
std::string percent(std::uint64_t ns, std::uint64_t of);
/// `s` as a JSON string (quotes, backslashes and control characters escaped).
std::string json_string(const std::string& s);
/// "graph 'x': 3 launch(es), ... us of device time per launch, ... us in nodes (..% of it)".
std::string summary_line(const Profile& p);

}  // namespace graphdsl::detail
