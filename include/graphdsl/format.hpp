// graphdsl/format.hpp — fmt formatters for graphdsl's value types.
//
//   fmt::print("{}\n", graph);        // the plan's text dump (Graph::dump())
//   fmt::print("{}\n", node);         // kernel node 'scale' (#1)
//   fmt::print("{}\n", launch);       // <<<(16,1,1), (256,1,1), 0>>>
//   fmt::print("{}\n", NodeKind::host);   // and ConditionalType, Compare, UpdateStatus, UpdateStrategy
//   fmt::print("{}\n", error);            // any graphdsl::Error: its message
//
// Not included by graphdsl/graphdsl.hpp: include it where you format graphdsl values with fmt
// (the library links fmt's compiled library, fmt::fmt; nothing needs FMT_HEADER_ONLY).
#pragma once

#include <type_traits>
#include <utility>

// fmt 9 turns its constexpr support off under nvcc (FMT_USE_CONSTEXPR 0) but still makes
// basic_format_string's constructor consteval in C++20, so every fmt::format/print call with a
// literal format string fails in nvcc's C++20 mode ("call to consteval function ... did not produce
// a valid constant expression"). Turning the constexpr support back on makes the format-string
// checks work there (checked with nvcc 13.0 and fmt 9.1). It must happen before fmt's first
// include in the translation unit; define FMT_USE_CONSTEXPR yourself to decide otherwise.
#if defined(__NVCC__) && __cplusplus >= 202002L
#if !defined(FMT_VERSION) && !defined(FMT_USE_CONSTEXPR)
#define FMT_USE_CONSTEXPR 1
#elif defined(FMT_VERSION) && FMT_VERSION < 100000 && !FMT_USE_CONSTEXPR
#error \
    "graphdsl/format.hpp: in nvcc's C++20 mode include it before any fmt header, or compile with -DFMT_USE_CONSTEXPR=1 (fmt 9's consteval format strings fail otherwise)"
#endif
#endif

#include <fmt/format.h>

#include "graphdsl/condition.hpp"
#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/launch.hpp"
#include "graphdsl/node.hpp"
#include "graphdsl/node_kind.hpp"
#include "graphdsl/update.hpp"

namespace graphdsl::detail {
/// True for graphdsl's enums: the scoped enums that have a graphdsl::to_string overload.
template <class E, class = void>
struct is_named_enum : std::false_type {};
template <class E>
struct is_named_enum<E, std::void_t<decltype(graphdsl::to_string(std::declval<E>()))>> : std::is_enum<E> {};
}  // namespace graphdsl::detail

/// Formats graphdsl's enums (NodeKind, ConditionalType, Compare, UpdateStatus, UpdateStrategy) as
/// graphdsl::to_string does.
template <class E>
struct fmt::formatter<E, char, std::enable_if_t<graphdsl::detail::is_named_enum<E>::value>>
    : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(E value, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(graphdsl::to_string(value), ctx);
  }
};

/// Formats graphdsl's exceptions as their message (what()).
template <class T>
struct fmt::formatter<T, char, std::enable_if_t<std::is_base_of_v<graphdsl::Error, T>>>
    : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const graphdsl::Error& e, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(e.what(), ctx);
  }
};

/// Formats a NodeInfo as NodeInfo::describe() does.
template <>
struct fmt::formatter<graphdsl::NodeInfo> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const graphdsl::NodeInfo& n, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(n.describe(), ctx);
  }
};

/// Formats any node handle as its NodeInfo::describe(), or "empty node handle".
template <class T>
struct fmt::formatter<T, char, std::enable_if_t<std::is_base_of_v<graphdsl::Node, T>>>
    : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const graphdsl::Node& n, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(n.valid() ? n.info().describe() : std::string("empty node handle"),
                                                    ctx);
  }
};

/// Formats a Launch as `<<<(grid), (block), shared_bytes>>>` (the priority is left out).
template <>
struct fmt::formatter<graphdsl::Launch> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const graphdsl::Launch& l, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::format("<<<({},{},{}), ({},{},{}), {}>>>", l.grid.x, l.grid.y,
                                                                l.grid.z, l.block.x, l.block.y, l.block.z,
                                                                l.shared_bytes),
                                                    ctx);
  }
};

/// Formats a Graph as its text dump (Graph::dump()).
template <>
struct fmt::formatter<graphdsl::Graph> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const graphdsl::Graph& g, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(g.dump(), ctx);
  }
};

/// Formats an UpdateResult as UpdateResult::to_string() does.
template <>
struct fmt::formatter<graphdsl::UpdateResult> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const graphdsl::UpdateResult& r, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(r.to_string(), ctx);
  }
};
