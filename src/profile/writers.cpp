// src/profile/writers.cpp — a Profile as a table, CSV, Chrome-trace JSON and the Nsight name map:
// pure functions of the value, no CUDA or CUPTI call (tests/unit/profile_test.cpp checks each).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/profile.hpp"
#include "profile/profile_parts.hpp"

namespace graphdsl {

const char* to_string(ProfileWork work) noexcept {
  constexpr const char* names[] = {"kernel", "memcpy", "memset"};
  const auto k = static_cast<std::size_t>(work);
  return k < sizeof(names) / sizeof(names[0]) ? names[k] : "work";
}

std::uint64_t attributed_ns(const Profile& p) noexcept {
  std::uint64_t sum = 0;
  for (const ProfileNode& n : p.nodes) sum += n.total_ns;
  return sum;
}

namespace detail {

std::vector<std::uint64_t> inclusive_ns(const Profile& p) {
  std::vector<std::uint64_t> incl(p.nodes.size());
  for (std::size_t e = 0; e < p.nodes.size(); ++e) incl[e] = p.nodes[e].total_ns;
  for (std::size_t e = p.nodes.size(); e-- > 0;) {
    const std::int32_t parent = p.nodes[e].parent;
    if (parent >= 0 && static_cast<std::size_t>(parent) < e) incl[static_cast<std::size_t>(parent)] += incl[e];
  }
  return incl;
}

std::vector<bool> holders(const Profile& p) {
  std::vector<bool> holds(p.nodes.size());
  for (const ProfileNode& n : p.nodes) {
    if (n.parent >= 0 && static_cast<std::size_t>(n.parent) < holds.size())
      holds[static_cast<std::size_t>(n.parent)] = true;
  }
  return holds;
}

std::uint64_t launch_total_ns(const Profile& p) noexcept {
  std::uint64_t sum = 0;
  for (std::uint64_t ns : p.launch_ns) sum += ns;
  if (sum != 0 || p.records.empty()) return sum;
  std::uint64_t first = p.records.front().start_ns;
  std::uint64_t last = 0;
  for (const ProfileRecord& r : p.records) {
    first = std::min(first, r.start_ns);
    last = std::max(last, r.end_ns);
  }
  return last > first ? last - first : 0;
}

std::string micros(std::uint64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1000.0); }

std::string percent(std::uint64_t ns, std::uint64_t of) {
  return of == 0 ? std::string("-") : fmt::format("{:.1f}", 100.0 * static_cast<double>(ns) / static_cast<double>(of));
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string summary_line(const Profile& p) {
  const std::uint64_t launch = launch_total_ns(p);
  const std::uint64_t in_nodes = attributed_ns(p);
  const double per = p.launches == 0 ? 0.0 : static_cast<double>(launch) / 1000.0 / p.launches;
  return fmt::format("graph '{}': {} launch(es), {:.3f} us of device time per launch, {:.3f} us in nodes ({}% of it)",
                     p.graph, p.launches, per,
                     p.launches == 0 ? 0.0 : static_cast<double>(in_nodes) / 1000.0 / p.launches,
                     percent(in_nodes, launch));
}

}  // namespace detail

namespace {

struct Row {
  std::string path, kind, count, total, mean, min, max, pct;
};

Row row_of(const Profile& p, std::size_t e, const std::vector<std::uint64_t>& incl, bool holder, std::uint64_t of) {
  const ProfileNode& n = p.nodes[e];
  if (holder) {
    return Row{n.path, to_string(n.kind),
               "-",    "[" + detail::micros(incl[e]) + "]",
               "-",    "-",
               "-",    "[" + detail::percent(incl[e], of) + "]"};
  }
  const std::uint64_t mean = n.count == 0 ? 0 : n.total_ns / n.count;
  return Row{n.path,
             to_string(n.kind),
             std::to_string(n.count),
             detail::micros(n.total_ns),
             detail::micros(mean),
             detail::micros(n.min_ns),
             detail::micros(n.max_ns),
             detail::percent(n.total_ns, of)};
}

}  // namespace

std::string to_table(const Profile& p) {
  const std::vector<std::uint64_t> incl = detail::inclusive_ns(p);
  const std::vector<bool> holds = detail::holders(p);
  const std::uint64_t of = detail::launch_total_ns(p);
  std::vector<Row> rows{Row{"node", "kind", "count", "total us", "mean us", "min us", "max us", "%"}};
  for (std::size_t e = 0; e < p.nodes.size(); ++e) rows.push_back(row_of(p, e, incl, holds[e], of));
  std::size_t w[8] = {};
  for (const Row& r : rows) {
    const std::string* f[] = {&r.path, &r.kind, &r.count, &r.total, &r.mean, &r.min, &r.max, &r.pct};
    for (int k = 0; k < 8; ++k) w[k] = std::max(w[k], f[k]->size());
  }
  std::string out = "profile of " + detail::summary_line(p) + "\n";
  for (const Row& r : rows) {
    out += fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", r.path, w[0], r.kind, w[1],
                       r.count, w[2], r.total, w[3], r.mean, w[4], r.min, w[5], r.max, w[6], r.pct, w[7]);
  }
  out += fmt::format("unattributed records: {}\n", p.unattributed);
  for (const std::string& note : p.notes) out += "note: " + note + "\n";
  return out;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string to_csv(const Profile& p) {
  const std::vector<std::uint64_t> incl = detail::inclusive_ns(p);
  const std::uint64_t of = detail::launch_total_ns(p);
  std::string out = "path,name,kind,graph,count,total_us,mean_us,min_us,max_us,percent,inclusive_us\n";
  out.reserve(out.size() + 128 * p.nodes.size());  // one row per node: no regrowth copies
  for (std::size_t e = 0; e < p.nodes.size(); ++e) {
    const ProfileNode& n = p.nodes[e];
    const std::uint64_t mean = n.count == 0 ? 0 : n.total_ns / n.count;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(n.path), csv_field(n.name), to_string(n.kind),
                       csv_field(n.graph), n.count, detail::micros(n.total_ns), detail::micros(mean),
                       detail::micros(n.min_ns), detail::micros(n.max_ns), detail::percent(n.total_ns, of),
                       detail::micros(incl[e]));
  }
  return out;
}

namespace {

std::string record_name(const Profile& p, const ProfileRecord& r) {
  if (r.node >= 0 && static_cast<std::size_t>(r.node) < p.nodes.size())
    return p.nodes[static_cast<std::size_t>(r.node)].path;
  return fmt::format("unattributed (graph node {})", r.graph_node_id);
}

/// The metadata events naming each (device, stream) track.
std::string track_names(const Profile& p) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, bool> tracks;
  for (const ProfileRecord& r : p.records) tracks[{r.device, r.stream}] = true;
  std::string out;
  std::uint32_t device = ~0u;
  for (const auto& t : tracks) {
    if (t.first.first != device) {
      device = t.first.first;
      out += fmt::format("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}},\n",
                         device, detail::json_string(fmt::format("graph '{}' on device {}", p.graph, device)));
    }
    out += fmt::format(
        "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"stream {}\"}}}},\n",
        t.first.first, t.first.second, t.first.second);
  }
  return out;
}

}  // namespace

std::string to_chrome_trace(const Profile& p) {
  std::uint64_t origin = p.records.empty() ? 0 : p.records.front().start_ns;
  for (const ProfileRecord& r : p.records) origin = std::min(origin, r.start_ns);
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n" + track_names(p);
  out.reserve(out.size() + 224 * p.records.size() + 4);  // one event per record: no regrowth copies
  for (const ProfileRecord& r : p.records) {
    const std::uint64_t dur = r.end_ns > r.start_ns ? r.end_ns - r.start_ns : 0;
    fmt::format_to(
        std::back_inserter(out),
        "{{\"name\":{},\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{},\"tid\":{},\"args\":{{\"what\":{},"
        "\"correlation\":{},\"graph_node_id\":{}}}}},\n",
        detail::json_string(record_name(p, r)), to_string(r.work), detail::micros(r.start_ns - origin),
        detail::micros(dur), r.device, r.stream, detail::json_string(r.what), r.correlation, r.graph_node_id);
  }
  if (out.size() >= 2 && out.compare(out.size() - 2, 2, ",\n") == 0) out.erase(out.size() - 2, 1);
  out += "]}\n";
  return out;
}

std::string to_name_map(const Profile& p) {
  std::string out = "{\"graph\":" + detail::json_string(p.graph) + ",\"nodes\":[\n";
  out.reserve(out.size() + 160 * p.nodes.size() + 4);  // one line per node: no regrowth copies
  for (std::size_t e = 0; e < p.nodes.size(); ++e) {
    const ProfileNode& n = p.nodes[e];
    std::string ids;
    for (std::size_t k = 0; k < n.node_ids.size(); ++k) ids += (k == 0 ? "" : ",") + std::to_string(n.node_ids[k]);
    out +=
        fmt::format("{{\"path\":{},\"name\":{},\"kind\":\"{}\",\"graph\":{},\"index\":{},\"graph_node_ids\":[{}]}}{}\n",
                    detail::json_string(n.path), detail::json_string(n.name), to_string(n.kind),
                    detail::json_string(n.graph), n.index, ids, e + 1 < p.nodes.size() ? "," : "");
  }
  out += "]}\n";
  return out;
}

}  // namespace graphdsl
