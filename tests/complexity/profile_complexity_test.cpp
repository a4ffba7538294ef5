// The Profile writers (graphdsl/profile.hpp) at n and 8n nodes: to_table, to_csv, to_chrome_trace,
// to_name_map and to_dot(profile) (critical path included) are pure functions of a Profile, timed
// on a hand-made one: a chain with a second predecessor on every tenth node, one record per node,
// and a conditional node holding a quarter as many nodes again.
#include <cstdint>
#include <string>

#include <graphdsl/profile.hpp>

#include "catch.hpp"
#include "complexity_support.hpp"

namespace profile_complexity_test {

namespace gd = graphdsl;
using complexity::check_growth;

gd::Profile made(std::size_t n) {
  gd::Profile p;
  p.graph = "made";
  p.launches = 1;
  p.launch_ns = {1000 * static_cast<std::uint64_t>(n)};
  const std::size_t inner = n / 4;
  for (std::size_t i = 0; i < n + inner; ++i) {
    gd::ProfileNode node;
    const bool nested = i >= n;
    const std::uint32_t index = static_cast<std::uint32_t>(nested ? i - n : i);
    node.name = "node" + std::to_string(i);
    node.path = nested ? "loop[0]/" + node.name : node.name;
    node.kind = gd::NodeKind::kernel;
    node.index = index;
    node.parent = nested ? 0 : -1;
    if (index > 0) node.after.push_back(static_cast<std::uint32_t>(i - 1));
    if (index > 10 && index % 10 == 0) node.after.push_back(static_cast<std::uint32_t>(i - 10));
    node.node_ids = {i + 1};
    node.count = 1;
    node.total_ns = node.min_ns = node.max_ns = 500 + (i * 37) % 1000;
    p.nodes.push_back(node);
    gd::ProfileRecord r;
    r.what = "kernel";
    r.start_ns = 1000 * i;
    r.end_ns = r.start_ns + node.total_ns;
    r.stream = static_cast<std::uint32_t>(i % 4);
    r.graph_node_id = i + 1;
    r.node = static_cast<std::int32_t>(i);
    p.records.push_back(r);
  }
  p.nodes[0].kind = gd::NodeKind::conditional;
  return p;
}

TEST_CASE("complexity: profile writers", "[complexity][profile]") {
  check_growth("to_table(profile)", 4000, made, [](const gd::Profile& p) { return gd::to_table(p); });
  check_growth("to_csv(profile)", 4000, made, [](const gd::Profile& p) { return gd::to_csv(p); });
  check_growth("to_chrome_trace(profile)", 4000, made, [](const gd::Profile& p) { return gd::to_chrome_trace(p); });
  check_growth("to_name_map(profile)", 4000, made, [](const gd::Profile& p) { return gd::to_name_map(p); });
  check_growth("to_dot(profile), critical path included", 4000, made,
               [](const gd::Profile& p) { return gd::to_dot(p); });
}

}  // namespace profile_complexity_test
