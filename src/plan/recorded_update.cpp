// src/plan/recorded_update.cpp — what an update leaves in the recorded plan (plan/recorded_update.hpp).
#include "plan/recorded_update.hpp"

#include "plan/diff.hpp"
#include "plan/plan_access.hpp"
#include "plan/records/kernel_access.hpp"
#include "plan/records/on_update.hpp"

namespace graphdsl::detail {

void take_template_names(GraphImpl& a, const GraphImpl& t, const std::vector<std::uint32_t>& renamed) {
  for (std::uint32_t i : renamed) a.set_node_name(i, t.node_name(i));
  take_param_values(a, t);  // the shapes matched: same entries and types
  // Only nested plans hold names of their own, so a plan that embeds none is not walked again.
  if (!embeds_plans(a)) return;
  for (std::uint32_t i = 0; i < node_count(a); ++i) take_nested_names(a, t, i);
}

// `img` has t's shape: the same buffer uses, and per kernel the same placeholder arguments.
void take_buffer_bytes(GraphImpl& img, const GraphImpl& t) noexcept {
  for (std::size_t k = 0; k < img.buffer_uses.size() && k < t.buffer_uses.size(); ++k) {
    img.buffer_uses[k].bytes = t.buffer_uses[k].bytes;
  }
  take_placeholder_bytes(img, t);
}

namespace {

/// The lengths of node i's graph-buffer uses, by reference (kernel placeholders, then buffer uses).
template <class G, class F>
void each_buffer_bytes(G& g, std::uint32_t i, F&& f) {
  each_placeholder_bytes(g, i, f);
  for (auto& u : g.buffer_uses) {
    if (u.node == i) f(u.bytes);
  }
}

}  // namespace

std::vector<std::uint64_t> buffer_bytes_of(const GraphImpl& g, std::uint32_t i) {
  std::vector<std::uint64_t> out;
  each_buffer_bytes(g, i, [&](const std::uint64_t& b) { out.push_back(b); });
  return out;
}

void set_buffer_bytes(GraphImpl& g, std::uint32_t i, const std::vector<std::uint64_t>& bytes) noexcept {
  std::size_t k = 0;
  each_buffer_bytes(g, i, [&](std::uint64_t& b) {
    if (k < bytes.size()) b = bytes[k++];
  });
}

namespace {

/// Whether `t` (a plan of a's shape) keeps its parameters where `a` does: the same payload per node,
/// argument offset and placeholder range per kernel, and storage sizes. Plans built by the same code
/// do; then a copy of `t` is what updated_copy would make of `a`, for the storage take_updated copies.
bool lines_up(const GraphImpl& a, const GraphImpl& t) noexcept {
  if (!same_storage(a, t)) return false;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    if (a.nodes[i].payload != t.nodes[i].payload) return false;
  }
  return kernel_storage_lines_up(a, t);
}

}  // namespace

std::unique_ptr<GraphImpl> updated_copy(const GraphImpl& a, const GraphImpl& t,
                                        const std::vector<std::uint32_t>& changed,
                                        const std::vector<std::uint32_t>& renamed) {
  if (lines_up(a, t)) {
    // A copy of the template, its nested plans deep copies (as SavedParams::save(t, i, true) makes
    // them): what the node-by-node way below makes, without a per-node copy.
    auto img = std::make_unique<GraphImpl>(t);
    each_nested_slot(*img, [](std::shared_ptr<const GraphImpl>& p) { p = own_copy(*p); });
    return img;
  }
  auto img = std::make_unique<GraphImpl>(a);
  for (std::uint32_t i : changed) SavedParams::save(t, i, true).restore(*img, i);
  take_condition_defaults(*img, t);
  take_template_names(*img, t, renamed);
  take_buffer_bytes(*img, t);
  return img;
}

bool same_storage(const GraphImpl& a, const GraphImpl& img) noexcept {
  bool same = true;
#define GRAPHDSL_STORE(owner, member, element, policy, on_remove) \
  same = same && (!on_update::policy::sized || a.member.size() == img.member.size());
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE
  return same;
}

void take_updated(GraphImpl& a, const GraphImpl& img) {
  // img is a copy of a (same_storage), so the argument offsets and placeholder ranges are a's own.
#define GRAPHDSL_STORE(owner, member, element, policy, on_remove) on_update::policy::apply(a.member, img.member);
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE
  a.unused_args = img.unused_args;                // with `args`, taken whole
  if (!a.params.empty()) own_parameter_plans(a);  // the nested plans Executable::set writes into
}

}  // namespace graphdsl::detail
