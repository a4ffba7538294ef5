// src/profile/profile_dot.cpp — to_dot(profile): the plan's picture coloured by device time, its
// critical path drawn bold. A pure function of the Profile (tests/unit/profile_test.cpp).
//
// The critical path of a plan level is its longest chain over the plan's edges, a node weighing
// its inclusive time per launch (a child or conditional node: the sum of what it holds, an upper
// bound of its span). It is marked at the top level and, inside each nested plan whose node is on
// the path, within that plan.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/profile.hpp"
#include "profile/profile_parts.hpp"

namespace graphdsl {
namespace {

using Levels = std::map<std::pair<std::int32_t, std::uint32_t>, std::vector<std::uint32_t>>;

/// The entries of each plan level, by (parent entry, slot), in entry order.
Levels levels_of(const Profile& p) {
  Levels levels;
  for (std::uint32_t e = 0; e < p.nodes.size(); ++e) levels[{p.nodes[e].parent, p.nodes[e].slot}].push_back(e);
  return levels;
}

/// The longest chain (by `w`) through the edges among `members`, first node first. Kahn's order, so a long chain costs
/// no recursion.
std::vector<std::uint32_t> longest_chain(const Profile& p, const std::vector<std::uint32_t>& members,
                                         const std::vector<std::uint64_t>& w) {
  std::map<std::uint32_t, std::size_t> at;
  for (std::size_t k = 0; k < members.size(); ++k) at[members[k]] = k;
  std::vector<std::vector<std::size_t>> succ(members.size());
  std::vector<std::size_t> indegree(members.size());
  for (std::size_t k = 0; k < members.size(); ++k) {
    for (std::uint32_t a : p.nodes[members[k]].after) {
      const auto it = at.find(a);
      if (it == at.end()) continue;
      succ[it->second].push_back(k);
      ++indegree[k];
    }
  }
  std::vector<std::uint64_t> dist(members.size());
  std::vector<std::size_t> best(members.size(), members.size()), ready;
  for (std::size_t k = 0; k < members.size(); ++k) {
    dist[k] = w[members[k]];
    if (indegree[k] == 0) ready.push_back(k);
  }
  while (!ready.empty()) {
    const std::size_t k = ready.back();
    ready.pop_back();
    for (std::size_t s : succ[k]) {
      const std::uint64_t via = dist[k] + w[members[s]];
      if (best[s] == members.size() || via > dist[s]) {
        dist[s] = via;
        best[s] = k;
      }
      if (--indegree[s] == 0) ready.push_back(s);
    }
  }
  std::vector<std::uint32_t> chain;
  if (members.empty()) return chain;
  std::size_t end = 0;
  for (std::size_t k = 1; k < members.size(); ++k) {
    if (dist[k] > dist[end]) end = k;
  }
  for (std::size_t k = end; k != members.size(); k = best[k]) chain.push_back(members[k]);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

struct Critical {
  std::vector<bool> node;
  std::map<std::pair<std::uint32_t, std::uint32_t>, bool> edge;
};

/// The critical path at the top level and inside the nested plans of the nodes on it.
Critical critical_path(const Profile& p, const Levels& levels, const std::vector<std::uint64_t>& incl) {
  Critical c{std::vector<bool>(p.nodes.size()), {}};
  std::vector<std::pair<std::int32_t, std::uint32_t>> todo{{-1, 0}};
  while (!todo.empty()) {
    const auto key = todo.back();
    todo.pop_back();
    const auto it = levels.find(key);
    if (it == levels.end()) continue;
    const std::vector<std::uint32_t> chain = longest_chain(p, it->second, incl);
    for (std::size_t k = 0; k < chain.size(); ++k) {
      c.node[chain[k]] = true;
      if (k > 0) c.edge[{chain[k - 1], chain[k]}] = true;
      for (auto l = levels.lower_bound({static_cast<std::int32_t>(chain[k]), 0});
           l != levels.end() && l->first.first == static_cast<std::int32_t>(chain[k]); ++l) {
        todo.push_back(l->first);
      }
    }
  }
  return c;
}

/// `raw` inside a DOT string: quotes and backslashes escaped, control characters as spaces.
std::string dot_text(const std::string& raw) {
  std::string out;
  for (const char c : raw) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out;
}

/// White (no time) to red (the hottest leaf node).
std::string heat(std::uint64_t ns, std::uint64_t hottest) {
  const double t = hottest == 0 ? 0.0 : std::min(1.0, static_cast<double>(ns) / static_cast<double>(hottest));
  const int gb = 255 - static_cast<int>(t * 200.0 + 0.5);
  return fmt::format("#ff{:02x}{:02x}", gb, gb);
}

struct DotContext {
  const Profile& p;
  const Levels& levels;
  const std::vector<std::uint64_t>& incl;
  const std::vector<bool>& holds;
  const Critical& critical;
  std::uint64_t hottest;
  std::uint64_t of;
};

void dot_level(std::string& out, const DotContext& d, const std::vector<std::uint32_t>& members,
               const std::string& indent) {
  for (std::uint32_t e : members) {
    const ProfileNode& n = d.p.nodes[e];
    const std::string time = d.holds[e]
                                 ? fmt::format("[{} us, {}%]", detail::micros(d.incl[e] / std::max(1u, d.p.launches)),
                                               detail::percent(d.incl[e], d.of))
                                 : fmt::format("{} us x{}, {}%",
                                               detail::micros(n.count == 0 ? 0 : n.total_ns / n.count), n.count,
                                               detail::percent(n.total_ns, d.of));
    out += fmt::format("{}n{} [label=\"{}\\n{}  {}\", fillcolor=\"{}\"{}];\n", indent, e,
                       dot_text(n.name.empty() ? fmt::format("#{}", n.index) : n.name), to_string(n.kind), time,
                       heat(d.holds[e] ? 0 : n.total_ns, d.hottest),
                       d.critical.node[e] ? ", penwidth=3, color=\"#b00000\"" : "");
  }
  for (std::uint32_t e : members) {
    for (std::uint32_t a : d.p.nodes[e].after) {
      const bool hot = d.critical.edge.count({a, e}) != 0;
      out += fmt::format("{}n{} -> n{}{};\n", indent, a, e, hot ? " [penwidth=3, color=\"#b00000\"]" : "");
    }
  }
  for (std::uint32_t e : members) {
    for (auto l = d.levels.lower_bound({static_cast<std::int32_t>(e), 0});
         l != d.levels.end() && l->first.first == static_cast<std::int32_t>(e); ++l) {
      const ProfileNode& holder = d.p.nodes[e];
      const std::string label = holder.kind == NodeKind::conditional
                                    ? fmt::format("{}[{}]", holder.path, l->first.second)
                                    : holder.path;
      out += fmt::format("{}subgraph cluster_{}_{} {{\n{}  label=\"{}\";\n{}  style=dashed;\n", indent, e,
                         l->first.second, indent, dot_text(label), indent);
      dot_level(out, d, l->second, indent + "  ");
      out += indent + "}\n";
      for (std::uint32_t inner : l->second) {
        if (d.p.nodes[inner].after.empty())
          out += fmt::format("{}n{} -> n{} [style=dotted, arrowhead=none];\n", indent, e, inner);
      }
    }
  }
}

}  // namespace

std::string to_dot(const Profile& p) {
  const Levels levels = levels_of(p);
  const std::vector<std::uint64_t> incl = detail::inclusive_ns(p);
  const std::vector<bool> holds = detail::holders(p);
  const Critical critical = critical_path(p, levels, incl);
  std::uint64_t hottest = 0;
  for (std::size_t e = 0; e < p.nodes.size(); ++e) {
    if (!holds[e]) hottest = std::max(hottest, p.nodes[e].total_ns);
  }
  const DotContext d{p, levels, incl, holds, critical, hottest, detail::launch_total_ns(p)};
  std::string out = fmt::format(
      "digraph profile {{\n  label=\"{}\\ncritical path in bold; fill: share of the device time\";\n  labelloc=t;\n"
      "  node [shape=box, style=filled, fontname=\"Helvetica\"];\n",
      dot_text(detail::summary_line(p)));
  out.reserve(out.size() + 160 * p.nodes.size());  // one line per node and edge: no regrowth copies
  const auto top = levels.find({-1, 0});
  if (top != levels.end()) dot_level(out, d, top->second, "  ");
  out += "}\n";
  return out;
}

}  // namespace graphdsl
