// The Profile writers (graphdsl/profile.hpp): to_table, to_csv, to_chrome_trace, to_name_map and
// to_dot(profile) of a Profile built by hand (no CUDA, no CUPTI), asserted literally; the JSON
// outputs are also parsed by a minimal JSON reader.
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "unit_support.hpp"

namespace gd = graphdsl;

namespace profile_test {
namespace {

/// upload -> scale -> loop (WHILE, body: step); upload -> #3 (an unnamed memset). Two launches of
/// 15 us each; the body ran 3 times per launch.
gd::Profile hand_made() {
  gd::Profile p;
  p.graph = "demo";
  p.launches = 2;
  p.launch_ns = {15000, 15000};
  auto node = [&](std::string path, std::string name, gd::NodeKind kind, std::uint32_t index, std::int32_t parent,
                  std::vector<std::uint32_t> after, std::uint64_t id, std::uint64_t count, std::uint64_t total,
                  std::uint64_t min, std::uint64_t max) {
    gd::ProfileNode n;
    n.path = std::move(path);
    n.name = std::move(name);
    n.kind = kind;
    n.graph = parent < 0 ? "demo" : "body";
    n.index = index;
    n.parent = parent;
    n.after = std::move(after);
    n.node_ids = {id};
    n.count = count;
    n.total_ns = total;
    n.min_ns = min;
    n.max_ns = max;
    p.nodes.push_back(n);
  };
  node("upload", "upload", gd::NodeKind::memcpy, 0, -1, {}, 11, 2, 4000, 1900, 2100);
  node("scale", "scale", gd::NodeKind::kernel, 1, -1, {0}, 12, 2, 10000, 4000, 6000);
  node("loop", "loop", gd::NodeKind::conditional, 2, -1, {1}, 13, 0, 0, 0, 0);
  node("#3", "", gd::NodeKind::memset, 3, -1, {0}, 15, 2, 1000, 500, 500);
  node("loop[0]/step", "step", gd::NodeKind::kernel, 0, 2, {}, 14, 6, 6000, 900, 1100);
  p.records = {
      {gd::ProfileWork::memcpy, "HtoD", 1000, 3000, 0, 7, 5, 11, 0},
      {gd::ProfileWork::kernel, "scale_kernel(float*, float, int)", 3000, 8000, 0, 7, 5, 12, 1},
      {gd::ProfileWork::kernel, "other", 8000, 8500, 0, 9, 6, 99, -1},
  };
  p.unattributed = 1;
  p.notes = {"1 record(s) carry graph node ids of no node of this executable"};
  return p;
}

/// A minimal JSON reader: true when `s` is one valid JSON value (RFC 8259 grammar; numbers loosely).
class Json {
 public:
  explicit Json(const std::string& s) : s_(s) {}
  bool valid() {
    ws();
    if (!value()) return false;
    ws();
    return i_ == s_.size();
  }

 private:
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool string() {
    if (!eat('"')) return false;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) return false;
      if (s_[i_] == '\\') ++i_;
      ++i_;
    }
    return eat('"');
  }
  bool number() {
    const std::size_t start = i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == '.' ||
                              s_[i_] == 'e' || s_[i_] == '+'))
      ++i_;
    return i_ > start;
  }
  template <class F>
  bool list(char close, F item) {
    if (eat(close)) return true;
    do {
      if (!item()) return false;
    } while (eat(','));
    return eat(close);
  }
  bool value() {
    ws();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '"') return string();
    if (c == '{') {
      ++i_;
      return list('}', [&] { return string() && eat(':') && value(); });
    }
    if (c == '[') {
      ++i_;
      return list(']', [&] { return value(); });
    }
    for (const char* word : {"true", "false", "null"}) {
      const std::string w(word);
      if (s_.compare(i_, w.size(), w) == 0) {
        i_ += w.size();
        return true;
      }
    }
    return number();
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

TEST_CASE("to_table lists every node with count, times and share of the launches", "[profile]") {
  const std::string want =
      "profile of graph 'demo': 2 launch(es), 15.000 us of device time per launch, 10.500 us in nodes (70.0% of "
      "it)\n"
      "node          kind         count  total us  mean us  min us  max us       %\n"
      "upload        memcpy           2     4.000    2.000   1.900   2.100    13.3\n"
      "scale         kernel           2    10.000    5.000   4.000   6.000    33.3\n"
      "loop          conditional      -   [6.000]        -       -       -  [20.0]\n"
      "#3            memset           2     1.000    0.500   0.500   0.500     3.3\n"
      "loop[0]/step  kernel           6     6.000    1.000   0.900   1.100    20.0\n"
      "unattributed records: 1\n"
      "note: 1 record(s) carry graph node ids of no node of this executable\n";
  CHECK(gd::to_table(hand_made()) == want);
  CHECK(gd::attributed_ns(hand_made()) == 21000);
}

TEST_CASE("to_csv writes one row per node, quoting fields as RFC 4180 says", "[profile]") {
  gd::Profile p = hand_made();
  p.nodes[3].name = "set, \"zero\"";
  const std::string want =
      "path,name,kind,graph,count,total_us,mean_us,min_us,max_us,percent,inclusive_us\n"
      "upload,upload,memcpy,demo,2,4.000,2.000,1.900,2.100,13.3,4.000\n"
      "scale,scale,kernel,demo,2,10.000,5.000,4.000,6.000,33.3,10.000\n"
      "loop,loop,conditional,demo,0,0.000,0.000,0.000,0.000,0.0,6.000\n"
      "#3,\"set, \"\"zero\"\"\",memset,demo,2,1.000,0.500,0.500,0.500,3.3,1.000\n"
      "loop[0]/step,step,kernel,body,6,6.000,1.000,0.900,1.100,20.0,6.000\n";
  CHECK(gd::to_csv(p) == want);
}

TEST_CASE("to_chrome_trace names each record after its node, one track per device and stream", "[profile]") {
  const std::string trace = gd::to_chrome_trace(hand_made());
  const std::string want =
      "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"graph 'demo' on device "
      "0\"}},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7\"}},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":9,\"args\":{\"name\":\"stream 9\"}},\n"
      "{\"name\":\"upload\",\"cat\":\"memcpy\",\"ph\":\"X\",\"ts\":0.000,\"dur\":2.000,\"pid\":0,\"tid\":7,"
      "\"args\":{\"what\":\"HtoD\",\"correlation\":5,\"graph_node_id\":11}},\n"
      "{\"name\":\"scale\",\"cat\":\"kernel\",\"ph\":\"X\",\"ts\":2.000,\"dur\":5.000,\"pid\":0,\"tid\":7,"
      "\"args\":{\"what\":\"scale_kernel(float*, float, int)\",\"correlation\":5,\"graph_node_id\":12}},\n"
      "{\"name\":\"unattributed (graph node 99)\",\"cat\":\"kernel\",\"ph\":\"X\",\"ts\":7.000,\"dur\":0.500,"
      "\"pid\":0,\"tid\":9,\"args\":{\"what\":\"other\",\"correlation\":6,\"graph_node_id\":99}}\n"
      "]}\n";
  CHECK(trace == want);
  CHECK(Json(trace).valid());
  gd::Profile empty;
  CHECK(Json(gd::to_chrome_trace(empty)).valid());
  gd::Profile odd = hand_made();
  odd.nodes[0].path = "up\"load\\\n";
  CHECK(Json(gd::to_chrome_trace(odd)).valid());
}

TEST_CASE("to_name_map pairs each plan node with its graph node ids", "[profile]") {
  const std::string map = gd::to_name_map(hand_made());
  const std::string want =
      "{\"graph\":\"demo\",\"nodes\":[\n"
      "{\"path\":\"upload\",\"name\":\"upload\",\"kind\":\"memcpy\",\"graph\":\"demo\",\"index\":0,\"graph_node_ids\":"
      "[11]},\n"
      "{\"path\":\"scale\",\"name\":\"scale\",\"kind\":\"kernel\",\"graph\":\"demo\",\"index\":1,\"graph_node_ids\":"
      "[12]},\n"
      "{\"path\":\"loop\",\"name\":\"loop\",\"kind\":\"conditional\",\"graph\":\"demo\",\"index\":2,"
      "\"graph_node_ids\":[13]},\n"
      "{\"path\":\"#3\",\"name\":\"\",\"kind\":\"memset\",\"graph\":\"demo\",\"index\":3,\"graph_node_ids\":[15]},\n"
      "{\"path\":\"loop[0]/step\",\"name\":\"step\",\"kind\":\"kernel\",\"graph\":\"body\",\"index\":0,"
      "\"graph_node_ids\":[14]}\n"
      "]}\n";
  CHECK(map == want);
  CHECK(Json(map).valid());
}

TEST_CASE("to_dot(profile) colours nodes by time and draws the critical path bold", "[profile]") {
  const std::string want =
      "digraph profile {\n"
      "  label=\"graph 'demo': 2 launch(es), 15.000 us of device time per launch, 10.500 us in nodes (70.0% of "
      "it)\\ncritical path in bold; fill: share of the device time\";\n"
      "  labelloc=t;\n"
      "  node [shape=box, style=filled, fontname=\"Helvetica\"];\n"
      "  n0 [label=\"upload\\nmemcpy  2.000 us x2, 13.3%\", fillcolor=\"#ffafaf\", penwidth=3, color=\"#b00000\"];\n"
      "  n1 [label=\"scale\\nkernel  5.000 us x2, 33.3%\", fillcolor=\"#ff3737\", penwidth=3, color=\"#b00000\"];\n"
      "  n2 [label=\"loop\\nconditional  [3.000 us, 20.0%]\", fillcolor=\"#ffffff\", penwidth=3, "
      "color=\"#b00000\"];\n"
      "  n3 [label=\"#3\\nmemset  0.500 us x2, 3.3%\", fillcolor=\"#ffebeb\"];\n"
      "  n0 -> n1 [penwidth=3, color=\"#b00000\"];\n"
      "  n1 -> n2 [penwidth=3, color=\"#b00000\"];\n"
      "  n0 -> n3;\n"
      "  subgraph cluster_2_0 {\n"
      "    label=\"loop[0]\";\n"
      "    style=dashed;\n"
      "    n4 [label=\"step\\nkernel  1.000 us x6, 20.0%\", fillcolor=\"#ff8787\", penwidth=3, color=\"#b00000\"];\n"
      "  }\n"
      "  n2 -> n4 [style=dotted, arrowhead=none];\n"
      "}\n";
  CHECK(gd::to_dot(hand_made()) == want);
}

TEST_CASE("the critical path follows the longest chain, not the hottest node", "[profile]") {
  // a -> b -> c (1 + 1 + 1 us) beside d (2.5 us): the chain is critical, d is not.
  gd::Profile p;
  p.graph = "chain";
  p.launches = 1;
  const char* names[] = {"a", "b", "c", "d"};
  const std::uint64_t ns[] = {1000, 1000, 1000, 2500};
  for (std::uint32_t i = 0; i < 4; ++i) {
    gd::ProfileNode n;
    n.path = n.name = names[i];
    n.kind = gd::NodeKind::kernel;
    n.index = i;
    if (i == 1 || i == 2) n.after = {i - 1};
    n.count = 1;
    n.total_ns = n.min_ns = n.max_ns = ns[i];
    p.nodes.push_back(n);
  }
  const std::string dot = gd::to_dot(p);
  CHECK(dot.find("n2 [label=\"c\\nkernel  1.000 us x1, -%\", fillcolor=\"#ffafaf\", penwidth=3") != std::string::npos);
  CHECK(dot.find("n3 [label=\"d\\nkernel  2.500 us x1, -%\", fillcolor=\"#ff3737\"];") != std::string::npos);
  CHECK(dot.find("n1 -> n2 [penwidth=3") != std::string::npos);
}

TEST_CASE("ProfilerError names the CUPTI function and keeps its result", "[profile]") {
  const gd::ProfilerError e(39, "cuptiSubscribe",
                            "cuptiSubscribe failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  CHECK(e.code() == 39);
  CHECK(e.api() == "cuptiSubscribe");
  CHECK(std::string(e.what()) == "graphdsl: cuptiSubscribe failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  CHECK(std::string(gd::to_string(gd::ProfileWork::memset)) == "memset");
}

}  // namespace profile_test
