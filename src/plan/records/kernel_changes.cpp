// src/plan/records/kernel_changes.cpp — what differs in a kernel record between two plans, in the
// user's terms (graphdsl::explain, through the kind table's DescribeOps::change), a kernel's
// argument block with one argument replaced (Executable::set_kernel_arg), and the slice lengths of
// its graph-buffer arguments taken from a template (updates). No CUDA call.
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/records/kernel_access.hpp"

namespace graphdsl::detail {
namespace {

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

/// An argument's bytes as a number (little-endian) for up to 8 bytes, else as hex bytes.
std::string argument_text(const unsigned char* p, std::uint32_t size) {
  if (size <= 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, size);
    return fmt::format("{:#x}", v);
  }
  std::string out;
  for (std::uint32_t b = 0; b < size; ++b) fmt::format_to(std::back_inserter(out), "{:02x}", p[b]);
  return out;
}

}  // namespace

std::string kernel_change(const GraphImpl& a, const GraphImpl& t, std::uint32_t i) {
  const KernelData& x = kernel_of(a, i);
  const KernelData& y = kernel_of(t, i);
  if (x.func != y.func) {  // adopted kernels are named after their functions; others by address
    if (a.node_name(i) != t.node_name(i)) return fmt::format("function '{}' -> '{}'", a.node_name(i), t.node_name(i));
    return fmt::format("function {} -> {}", x.func, y.func);
  }
  if (std::memcmp(&x.launch.grid, &y.launch.grid, sizeof(dim3)) != 0) {
    return fmt::format("grid {} -> {}", dims(x.launch.grid), dims(y.launch.grid));
  }
  if (std::memcmp(&x.launch.block, &y.launch.block, sizeof(dim3)) != 0) {
    return fmt::format("block {} -> {}", dims(x.launch.block), dims(y.launch.block));
  }
  if (x.launch.shared_bytes != y.launch.shared_bytes) {
    return fmt::format("dynamic shared memory {} B -> {} B", x.launch.shared_bytes, y.launch.shared_bytes);
  }
  if (x.launch.priority != y.launch.priority) {
    return fmt::format("priority {} -> {}", x.launch.priority, y.launch.priority);
  }
  const ArgLayout& l = kernel_layout(a, kernel_index(a, i));
  const unsigned char* xa = argument_block(a, x);
  const unsigned char* ya = argument_block(t, y);
  for (std::uint32_t p = 0; p < l.count; ++p) {
    const unsigned char* u = xa + l.offsets[p];
    const unsigned char* v = ya + l.offsets[p];
    if (std::memcmp(u, v, l.sizes[p]) != 0) {
      return fmt::format("argument {} ({} bytes): {} -> {}", p, l.sizes[p], argument_text(u, l.sizes[p]),
                         argument_text(v, l.sizes[p]));
    }
  }
  return "its launch attributes or placeholder arguments";
}

std::vector<unsigned char> arguments_with(const GraphImpl& g, std::uint32_t i, unsigned int index, const void* value,
                                          std::size_t bytes, const ArgLayout*& layout) {
  const KernelData& k = kernel_of(g, i);
  layout = &kernel_layout(g, kernel_index(g, i));
  const ArgLayout& l = *layout;
  if (index >= l.count) {
    throw UsageError(fmt::format("set_kernel_arg: {} has {} parameter{}; there is no parameter {}",
                                 g.info(i).describe(), l.count, l.count == 1 ? "" : "s", index));
  }
  if (bytes != l.sizes[index]) {
    throw UsageError(fmt::format("set_kernel_arg: parameter {} of {} is {} bytes; the value given is {} bytes", index,
                                 g.info(i).describe(), l.sizes[index], bytes));
  }
  std::vector<unsigned char> block(argument_block(g, k), argument_block(g, k) + l.total);
  std::memcpy(block.data() + l.offsets[index], value, bytes);
  return block;
}

void take_placeholder_bytes(GraphImpl& img, const GraphImpl& t) noexcept {
  if (img.placeholders.empty()) return;
  for (std::size_t k = 0; k < img.kernel_links.size() && k < t.kernel_links.size(); ++k) {
    const KernelLinks& x = img.kernel_links[k];
    const KernelLinks& y = t.kernel_links[k];
    for (std::uint32_t c = 0; c < x.ph_count && c < y.ph_count; ++c) {
      img.placeholders[x.ph_first + c].bytes = t.placeholders[y.ph_first + c].bytes;
    }
  }
}

}  // namespace graphdsl::detail
