// src/plan/errors.cpp — the plan-level error types and node descriptions (UsageError, NodeInfo, escaped
// names), used by every layer, and the live-object counters behind debug::live_counts(). No CUDA call:
// CudaError and the checked CUDA path are in native/errors.cpp.
#include <fmt/format.h>

#include "graphdsl/debug.hpp"
#include "graphdsl/error.hpp"
#include "plan/counters.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl {

namespace detail {
namespace {
/// The length of the well-formed UTF-8 sequence at s[i] (2 to 4 bytes; overlong forms, surrogates
/// and code points above U+10FFFF are not well-formed), or 0; `cp` receives its code point.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  const std::size_t len = b0 >= 0xf0 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc0 ? 2 : 0;
  if (len == 0 || b0 > 0xf4 || i + len > s.size()) return 0;
  cp = b0 & (0x7f >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  constexpr char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

/// Code points that move or break lines, or reorder text, when printed: C1 controls, the line and
/// paragraph separators and the bidirectional controls.
bool invisible_control(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}
}  // namespace

std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      char32_t cp = 0;
      const std::size_t len = utf8_sequence(text, i, cp);
      if (len == 0) {
        out += fmt::format("\\x{:02x}", u);  // not UTF-8: the byte's value
        ++i;
      } else {
        if (invisible_control(cp)) {
          out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(cp));
        } else {
          out.append(text.substr(i, len));
        }
        i += len;
      }
      continue;
    }
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += fmt::format("\\x{:02x}", u);
        } else {
          out += c;
        }
    }
    ++i;
  }
  return out;
}

std::string quoted(std::string_view text) { return "'" + escaped(text) + "'"; }

}  // namespace detail

std::string NodeInfo::ref() const { return name.empty() ? fmt::format("#{}", index) : detail::quoted(name); }

std::string NodeInfo::describe() const {
  std::string s = name.empty() ? fmt::format("{} node #{}", to_string(kind), index)
                               : fmt::format("{} node {} (#{})", to_string(kind), detail::quoted(name), index);
  if (!context.empty()) s += " " + context;
  return s;
}

UsageError::UsageError(const std::string& message) : Error("graphdsl: " + message) {}

namespace debug {

LiveCounts live_counts() noexcept {
  auto& c = detail::counters();
  return LiveCounts{c.plans.load(), c.native_graphs.load(), c.executables.load(), c.events.load(),
                    c.host_closures.load()};
}

}  // namespace debug
}  // namespace graphdsl
