// src/plan/recorded_update.cpp — what an update leaves in the recorded plan (plan/recorded_update.hpp).
#include "plan/recorded_update.hpp"

#include "plan/diff.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl::detail {

void take_template_names(GraphImpl& a, const GraphImpl& t, const std::vector<std::uint32_t>& renamed) {
  for (std::uint32_t i : renamed) a.set_node_name(i, t.node_name(i));
  take_param_values(a, t);  // the shapes matched: same entries and types
  // Only child and conditional nodes hold names of their own plans (held_kinds: every kind of
  // node this plan holds), so a plan without them is not walked again.
  if (!a.holds(NodeKind::child) && !a.holds(NodeKind::conditional)) return;
  for (std::uint32_t i = 0; i < node_count(a); ++i) take_nested_names(a, t, i);
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
  for (std::size_t k = 0; k < a.kernels.size(); ++k) {
    if (a.kernels[k].args != t.kernels[k].args || a.kernel_links[k].ph_first != t.kernel_links[k].ph_first ||
        a.kernel_links[k].ph_count != t.kernel_links[k].ph_count) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<GraphImpl> updated_copy(const GraphImpl& a, const GraphImpl& t,
                                        const std::vector<std::uint32_t>& changed,
                                        const std::vector<std::uint32_t>& renamed) {
  if (lines_up(a, t)) {
    // A copy of the template, its nested plans deep copies (as SavedParams::save(t, i, true) makes
    // them): what the node-by-node way below makes, without a per-node copy.
    auto img = std::make_unique<GraphImpl>(t);
    for (auto& c : img->children) c = own_copy(*c);
    for (auto& c : img->conditionals) {
      for (auto& b : c.bodies) b = own_copy(*b);
    }
    return img;
  }
  auto img = std::make_unique<GraphImpl>(a);
  for (std::uint32_t i : changed) SavedParams::save(t, i, true).restore(*img, i);
  take_condition_defaults(*img, t);
  take_template_names(*img, t, renamed);
  return img;
}

// same_storage and take_updated list GraphImpl's members by hand, as its copy constructor does
// (plan/graph.cpp) and stores_of (plan/savepoint.cpp, the stores an add_* may append to). A member
// added to GraphImpl must be added to all four, or be one they leave out on purpose (as `parent`
// and `token`, and `succs`, `long_edges` and `param_order`, which follow `nodes` and `params`: an
// update changes neither, and a rolled-back add_* trims them with them); this fails when GraphImpl
// changes size, to say so. The size is that of the ABI of CI and the GPU machines (x86-64,
// libstdc++); elsewhere it is not checked.
#if defined(__x86_64__) && defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG)
static_assert(sizeof(GraphImpl) == 824,
              "GraphImpl changed: add the new member to same_storage and take_updated (plan/recorded_update.cpp), "
              "to GraphImpl's copy constructor (plan/graph.cpp) and to stores_of (plan/savepoint.cpp), or leave it "
              "out on purpose, then set the size here");
#endif

bool same_storage(const GraphImpl& a, const GraphImpl& img) noexcept {
  return a.nodes.size() == img.nodes.size() && a.kernels.size() == img.kernels.size() &&
         a.args.size() == img.args.size() && a.memsets.size() == img.memsets.size() &&
         a.memcpys.size() == img.memcpys.size() && a.hosts.size() == img.hosts.size() &&
         a.children.size() == img.children.size() && a.events.size() == img.events.size() &&
         a.conditionals.size() == img.conditionals.size() && a.captures.size() == img.captures.size() &&
         a.records.size() == img.records.size() && a.conditions.size() == img.conditions.size() &&
         a.params.size() == img.params.size() && a.placeholders.size() == img.placeholders.size();
}

void take_updated(GraphImpl& a, const GraphImpl& img) {
  // Kernel records, links and arguments: img is a copy of a, so the argument offsets and
  // placeholder ranges are a's own; the vectors keep their capacity (a memcpy each).
  a.kernels = img.kernels;
  a.kernel_links = img.kernel_links;
  a.kernel_attributes = img.kernel_attributes;
  a.args = img.args;
  a.memsets = img.memsets;
  a.memset_types = img.memset_types;
  a.memcpys = img.memcpys;
  a.records = img.records;
  a.hosts = img.hosts;
  a.events = img.events;
  a.captures = img.captures;
  a.children = img.children;  // shared: nested plans are not changed in place ...
  for (std::size_t k = 0; k < a.conditionals.size(); ++k) a.conditionals[k].bodies = img.conditionals[k].bodies;
  a.names = img.names;
  take_condition_defaults(a, img);
  take_param_values(a, img);
  if (!a.params.empty()) own_parameter_plans(a);  // ... but those Executable::set writes into
}

}  // namespace graphdsl::detail
