// Names in every output path: dumps, DOT, messages, fmt formatters and
// UpdateResult print a name through one escaping rule (docs/errors.md, "Names in messages"), so a
// name can neither forge lines nor put NUL bytes or bytes that are not UTF-8 into the output.
#include <algorithm>
#include <string>

#include <graphdsl/format.hpp>

#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {
/// True when `s` holds only printable ASCII, newlines and well-formed UTF-8 (no NUL, no other control byte).
bool clean_text(const std::string& s, bool newlines_allowed) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u == '\n' && newlines_allowed) continue;
    if (u < 0x20 || u == 0x7f) return false;
    if (u >= 0x80) {
      const std::size_t len = u >= 0xf0 ? 4 : u >= 0xe0 ? 3 : u >= 0xc2 ? 2 : 0;
      if (len == 0 || i + len > s.size()) return false;
      for (std::size_t k = 1; k < len; ++k) {
        if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
      }
      i += len - 1;
    }
  }
  return true;
}

const char nasty_raw[] = "a\nkernel node 'x' (#9)\0z\xff\xc3\x28\t'\\\x7f\xc2\x85\xe2\x80\xae\xc3\xbc";
const std::string nasty(nasty_raw, sizeof nasty_raw - 1);  // with its NUL byte
const std::string nasty_escaped = "a\\nkernel node \\'x\\' (#9)\\x00z\\xff\\xc3(\\t\\'\\\\\\x7f\\u0085\\u202e\xc3\xbc";
}  // namespace

TEST_CASE("escaped() writes control characters, quotes and bytes that are not UTF-8 as escapes", "[reliability][escape]") {
  CHECK(nasty.size() == 38);
  CHECK(gd::detail::escaped(nasty) == nasty_escaped);
  CHECK(gd::detail::escaped("plain name_1 {} \"q\" \xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80") ==
        "plain name_1 {} \"q\" \xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80");  // valid UTF-8 is kept
  CHECK(gd::detail::escaped("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80") ==
        "\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80");  // overlong, surrogate, above U+10FFFF
  CHECK(gd::detail::escaped("\xe2\x82") == "\\xe2\\x82");  // cut short
  CHECK(gd::detail::quoted("it's") == "'it\\'s'");
}

TEST_CASE("a name cannot forge lines or bytes in dump(), DOT, messages and formatters", "[reliability][escape]") {
  gd::Graph g(nasty);
  auto a = g.add_empty().name(nasty);
  auto b = g.add_empty().name("b").after(a);
  gd::Graph child("child\nline");
  child.add_empty().name("in\x01side");
  g.add_child(child).name("sub").after(b);

  const std::string dump = g.dump();
  CHECK(clean_text(dump, true));
  CHECK(std::count(dump.begin(), dump.end(), '\n') == 5);  // the header, three nodes, one child node
  CHECK(dump.find("graph '" + nasty_escaped + "': 3 nodes, 2 edges\n") == 0);
  CHECK(dump.find("  #0 empty '" + nasty_escaped + "'\n") != std::string::npos);
  CHECK(dump.find("graph 'child\\nline', 1 nodes") != std::string::npos);
  CHECK(dump.find("#0 empty 'in\\x01side'") != std::string::npos);

  const std::string dot = g.to_dot();
  CHECK(clean_text(dot, true));
  CHECK(dot.find(std::string(1, '\0')) == std::string::npos);
  CHECK(dot.find("label=\"a\\\\nkernel node \\\\'x\\\\' (#9)\\\\x00z") != std::string::npos);

  CHECK(a.info().describe() == "empty node '" + nasty_escaped + "' (#0)");
  CHECK(fmt::format("{}", a) == "empty node '" + nasty_escaped + "' (#0)");
  CHECK(fmt::format("{}", g) == dump);

  // A message naming the node and the plan.
  b.after(a);
  a.after(b);
  const std::string cycle = unit::usage_error_of([&] { g.validate(); });
  CHECK(cycle == "graphdsl: cycle: '" + nasty_escaped + "' -> 'b' -> '" + nasty_escaped + "'");
  CHECK(clean_text(cycle, false));
  gd::Graph other("x");
  const std::string foreign = unit::usage_error_of([&] { other.add_edge(a, b); });
  CHECK(foreign == "graphdsl: empty node '" + nasty_escaped + "' (#0) belongs to graph '" + nasty_escaped +
                       "' (plan id " + std::to_string(g.id()) + "), not to graph 'x' (plan id " +
                       std::to_string(other.id()) + ")");
  CHECK(clean_text(foreign, false));
  const std::string range = unit::usage_error_of([&] { (void)g.node(7); });
  CHECK(range == "graphdsl: graph '" + nasty_escaped + "' has 3 nodes; there is no node #7");
}

TEST_CASE("UpdateResult reasons print names escaped", "[reliability][escape]") {
  gd::Graph x("x");
  const auto xa = x.add_empty().name("one\ntwo");
  x.add_empty().name("b").after(xa);
  gd::Graph y("y");
  y.add_empty().name("one\ntwo");
  y.add_empty().name("b");
  const gd::UpdateResult r = gd::diff(x, y);  // the edge is gone
  REQUIRE(!r);
  const std::string text = fmt::format("{}", r);
  CHECK(clean_text(text, false));
  CHECK(text.find("'one\\ntwo'") != std::string::npos);
  CHECK(r.node.has_value());
}

TEST_CASE("messages about nested plans escape the plan names too", "[reliability][escape]") {
  gd::Graph inner("in\rner");
  inner.add_kernel(static_cast<void (*)()>(nullptr), gd::Launch{}).name("k\x1b[31m");
  gd::Graph g("out'er");
  g.add_child(inner).name("c");
  const std::string msg = unit::usage_error_of([&] { g.validate(); });
  CHECK(msg == "graphdsl: in child node 'c' (#0) of graph 'out\\'er': kernel node 'k\\x1b[31m' (#0): the kernel "
               "function is null");
}
