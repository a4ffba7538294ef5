// src/kinds/memcpy.cpp — the memcpy node kind (Graph::add_memcpy*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <cstdint>

#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"

namespace graphdsl {

MemcpyNode Graph::add_memcpy_bytes(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  return add_memcpy_2d(dst, bytes, src, bytes, bytes, 1, kind);
}

MemcpyNode Graph::add_memcpy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                                std::size_t width_bytes, std::size_t height, cudaMemcpyKind kind) {
  return add_memcpy_3d(detail::memcpy_node_params(dst, dst_pitch, src, src_pitch, width_bytes, height, kind));
}

MemcpyNode Graph::add_memcpy_3d(const cudaMemcpy3DParms& params) {
  auto& g = impl();
  Change change(*this);
  g.memcpys.push_back(params);
  const MemcpyNode n(g.push(NodeKind::memcpy, g.memcpys.size() - 1));
  change.commit();
  return n;
}

MemcpyNode Graph::add_memcpy_peer_bytes(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes) {
  const std::int16_t d = detail::device_number(dst_device, "add_memcpy_peer (destination device)");
  const std::int16_t s = detail::device_number(src_device, "add_memcpy_peer (source device)");
  Change change(*this);
  MemcpyNode n = add_memcpy_bytes(dst, src, bytes, cudaMemcpyDeviceToDevice);
  auto& g = impl();
  g.peer_copies.push_back(detail::PeerCopy{n.index(), s, d});
  g.nodes[n.index()].device = d;  // the copy runs in the destination's context
  change.commit();
  return n;
}

namespace detail {

const SymbolUse* GraphImpl::symbol_use(std::uint32_t index) const { return node_record(symbol_uses, index); }

}  // namespace detail

MemcpyNode Graph::add_memcpy_symbol_bytes(const void* symbol, std::size_t symbol_bytes, bool to_symbol, void* other,
                                          std::size_t bytes, std::size_t offset, cudaMemcpyKind kind) {
  auto& g = impl();
  // The record holds the symbol's own address plus the offset (as an integer: the offset may lie
  // past the symbol, which validate() reports); compiling puts the device address there.
  void* at = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(symbol) + offset);
  Change change(*this);
  const MemcpyNode n = to_symbol ? add_memcpy_bytes(at, other, bytes, kind) : add_memcpy_bytes(other, at, bytes, kind);
  g.symbol_uses.push_back(
      detail::SymbolUse{n.index(), to_symbol ? detail::BufferField::memcpy_dst : detail::BufferField::memcpy_src,
                        symbol, offset, symbol_bytes});
  change.commit();
  return n;
}

MemcpyParams Graph::memcpy_of(const MemcpyNode& node) const {
  const auto& g = impl();
  const std::uint32_t i = detail::own_node(g, node, NodeKind::memcpy, "memcpy_of");
  MemcpyParams out;
  out.full = detail::memcpy_of(g, i);
  out.dst = out.full.dstPtr.ptr;
  out.src = out.full.srcPtr.ptr;
  out.bytes = out.full.extent.width * out.full.extent.height * out.full.extent.depth;
  out.kind = out.full.kind;
  for (const detail::BufferUse& u : detail::buffer_uses_of(g, i)) {  // the record holds a slice's offset
    if (u.field == detail::BufferField::memcpy_dst) {
      out.dst_buffer = u.uid;
      out.dst_offset = reinterpret_cast<std::uintptr_t>(out.dst);
      out.dst = nullptr;
    } else {
      out.src_buffer = u.uid;
      out.src_offset = reinterpret_cast<std::uintptr_t>(out.src);
      out.src = nullptr;
    }
  }
  return out;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <tuple>
#include <utility>

#include "plan/replace.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

/// A copy to or from a __device__ symbol: inside the symbol, in a direction the runtime allows.
void check_symbol(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const SymbolUse& sym,
                  const cudaMemcpy3DParms& p) {
  const bool to = sym.field == BufferField::memcpy_dst;
  const Count end = Count{sym.offset}.plus(Count{p.extent.width});
  if (end.above(sym.symbol_bytes)) {
    fail(g, i, ctx,
         fmt::format("copies {} bytes {} bytes [{}, {}) of a __device__ symbol of {} bytes, past its end",
                     p.extent.width, to ? "to" : "from", sym.offset, end.text(), sym.symbol_bytes));
  }
  const cudaMemcpyKind other = to ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
  if (p.kind == cudaMemcpyHostToHost || p.kind == other) {
    fail(g, i, ctx,
         fmt::format("cudaMemcpyKind {} cannot copy {} a __device__ symbol (use cudaMemcpyDefault, {} or "
                     "cudaMemcpyDeviceToDevice)",
                     static_cast<int>(p.kind), to ? "to" : "from",
                     to ? "cudaMemcpyHostToDevice" : "cudaMemcpyDeviceToHost"));
  }
}

/// A pitched end's position (srcPos / dstPos: x in bytes, y in rows, z in slices of ysize rows)
/// plus the bytes the copy spans from it stay within max_bytes of the pointer, and the address
/// does not wrap around: a negative offset converted to std::size_t never reaches the driver.
void check_position(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const char* what,
                    const cudaPitchedPtr& ptr, const cudaPos& pos, const Count& span) {
  if (pos.x == 0 && pos.y == 0 && pos.z == 0) return;
  const Count rows = Count{pos.z}.times(ptr.ysize).plus(Count{pos.y});
  const Count offset = rows.fits ? Count{pos.x}.plus(Count{ptr.pitch}.times(rows.value)) : rows;
  const Count end = offset.plus(span);
  const Count address = Count{reinterpret_cast<std::uintptr_t>(ptr.ptr)}.plus(end);
  if (end.too_large() || !address.fits) {
    fail(g, i, ctx,
         fmt::format("{} position ({}, {}, {}) and extent reach byte {} past the {} pointer, beyond the largest size "
                     "graphdsl accepts ({} bytes) or the end of the address space (a negative offset converted to "
                     "std::size_t?)",
                     what, pos.x, pos.y, pos.z, end.text(), what, max_bytes));
  }
}

void check_memcpy(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const cudaMemcpy3DParms& p = g.memcpys[g.nodes[i].payload];
  if (p.extent.width == 0 || p.extent.height == 0 || p.extent.depth == 0) {
    fail(g, i, ctx,
         fmt::format("copies {} x {} x {} bytes; a memcpy node must copy at least one byte", p.extent.width,
                     p.extent.height, p.extent.depth));
  }
  const Count bytes = Count{p.extent.width}.times(p.extent.height).times(p.extent.depth);
  check_size(g, i, ctx, "copies", bytes);
  const Count rows = Count{p.extent.height}.times(p.extent.depth);
  for (auto [ptr, array] :
       {std::pair<const cudaPitchedPtr*, cudaArray_t>{&p.srcPtr, p.srcArray}, {&p.dstPtr, p.dstArray}}) {
    // the rows of a pitched pointer span pitch * (rows - 1) + width
    if (array != nullptr || (rows.fits && rows.value == 1)) continue;
    check_size(g, i, ctx, "spans",
               rows.fits ? Count{ptr->pitch}.times(rows.value - 1).plus(Count{p.extent.width}) : rows);
  }
  for (auto [what, ptr, pos, array] :
       {std::tuple<const char*, cudaPitchedPtr, cudaPos, cudaArray_t>{"source", p.srcPtr, p.srcPos, p.srcArray},
        {"destination", p.dstPtr, p.dstPos, p.dstArray}}) {
    if (array != nullptr || !rows.fits || rows.value == 0) continue;
    check_position(g, i, ctx, what, ptr, pos, Count{ptr.pitch}.times(rows.value - 1).plus(Count{p.extent.width}));
  }
  if (p.srcArray == nullptr) check_pointer(g, i, ctx, p.srcPtr.ptr, BufferField::memcpy_src, "source", bytes);
  if (p.dstArray == nullptr) check_pointer(g, i, ctx, p.dstPtr.ptr, BufferField::memcpy_dst, "destination", bytes);
  if (p.kind < cudaMemcpyHostToHost || p.kind > cudaMemcpyDefault) {
    fail(g, i, ctx, fmt::format("cudaMemcpyKind {} is not a valid copy direction", static_cast<int>(p.kind)));
  }
  if (const SymbolUse* sym = g.symbol_use(i)) check_symbol(g, i, ctx, *sym, p);
  const bool multi_row = p.extent.height > 1 || p.extent.depth > 1;
  for (auto [what, ptr, array] : {std::tuple<const char*, cudaPitchedPtr, cudaArray_t>{"source", p.srcPtr, p.srcArray},
                                  {"destination", p.dstPtr, p.dstArray}}) {
    if (array == nullptr && multi_row && ptr.pitch < p.extent.width) {
      fail(g, i, ctx,
           fmt::format("{} pitch {} bytes is smaller than the row width {} bytes", what, ptr.pitch, p.extent.width));
    }
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::rule {
namespace {

/// A setter's destination and source stand for what the node's do (a GraphBuffer, a __device__
/// symbol or a plain pointer).
void check_memcpy_replacement(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) {
  check_pointer_meanings(a, i, s, {BufferField::memcpy_dst, BufferField::memcpy_src});
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::memcpy {
const RuleOps rules{/*check=*/&rule::check_memcpy,
                    /*not_placeable=*/nullptr,
                    /*in_body=*/true,
                    /*check_scoped=*/nullptr,
                    /*kinded_edges=*/false,
                    /*check_replacement=*/&rule::check_memcpy_replacement};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include <algorithm>
#include <vector>

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// The accesses of one end of a memcpy node.
void memcpy_side(const GraphImpl& g, std::uint32_t i, bool dst, Access a, std::vector<Access>& out) {
  const cudaMemcpy3DParms& p = g.memcpys[g.nodes[i].payload];
  a.mode = dst ? AccessMode::write : AccessMode::read;
  a.origin = dst ? Origin::memcpy_dst : Origin::memcpy_src;
  if (cudaArray_t array = dst ? p.dstArray : p.srcArray; array != nullptr) {
    a.r = whole(Space::array, reinterpret_cast<std::uintptr_t>(array));
    out.push_back(a);
    return;
  }
  const cudaPitchedPtr& ptr = dst ? p.dstPtr : p.srcPtr;
  const cudaPos& pos = dst ? p.dstPos : p.srcPos;
  const std::uint64_t uid = buffer_of(g, i, dst ? BufferField::memcpy_dst : BufferField::memcpy_src);
  if (uid == 0 && ptr.ptr == nullptr) return;  // validate() reports it
  const Space space = uid != 0 ? Space::buffer : Space::address;
  const std::uint64_t base = reinterpret_cast<std::uintptr_t>(ptr.ptr);  // a buffer's: the slice's offset
  // With a CUDA array on the other end the extent's width counts elements: take whole pitches.
  const bool other_array = (dst ? p.srcArray : p.dstArray) != nullptr;
  const std::uint64_t width = other_array ? (ptr.pitch > 0 ? ptr.pitch : all_bytes) : p.extent.width;
  const std::uint64_t pitch = ptr.pitch, h = p.extent.height, d = std::max<std::size_t>(p.extent.depth, 1);
  const std::uint64_t slice = sat_mul(pitch, ptr.ysize);
  const std::uint64_t lo = sat_add(base, sat_add(sat_add(sat_mul(pos.z, slice), sat_mul(pos.y, pitch)), pos.x));
  if (d == 1 || ptr.ysize == h) {
    a.r = make_region(space, uid, lo, width, pitch, sat_mul(h, d));
    out.push_back(a);
  } else if (d <= 64) {
    for (std::uint64_t z = 0; z < d; ++z) {
      a.r = make_region(space, uid, sat_add(lo, sat_mul(z, slice)), width, pitch, h);
      out.push_back(a);
    }
  } else {  // many partial slices: one bounding range
    const Region last = make_region(space, uid, sat_add(lo, sat_mul(d - 1, slice)), width, pitch, h);
    a.r = make_region(space, uid, lo, last.hi - lo, 0, 1);
    out.push_back(a);
  }
}

/// Both ends of a memcpy node.
void memcpy_accesses(const NodeContext& c) {
  const Access a = c.access();
  memcpy_side(c.g, c.i, true, a, c.level.accesses);
  memcpy_side(c.g, c.i, false, a, c.level.accesses);
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::memcpy {
const RaceOps races{&race::memcpy_accesses};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_pos(const cudaPos& x, const cudaPos& y) { return x.x == y.x && x.y == y.y && x.z == y.z; }
bool same_ptr(const cudaPitchedPtr& x, const cudaPitchedPtr& y) {
  return x.ptr == y.ptr && x.pitch == y.pitch && x.xsize == y.xsize && x.ysize == y.ysize;
}

bool same_memcpy(const cudaMemcpy3DParms& x, const cudaMemcpy3DParms& y) {
  return x.srcArray == y.srcArray && same_pos(x.srcPos, y.srcPos) && same_ptr(x.srcPtr, y.srcPtr) &&
         x.dstArray == y.dstArray && same_pos(x.dstPos, y.dstPos) && same_ptr(x.dstPtr, y.dstPtr) &&
         x.extent.width == y.extent.width && x.extent.height == y.extent.height && x.extent.depth == y.extent.depth &&
         x.kind == y.kind;
}

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return same_memcpy(a.memcpys[pa], b.memcpys[pb]);
}

/// Which end is a __device__ symbol, which symbol and where: structure (the executable's plan keeps
/// the symbol record it was compiled with, and per-node patching resolves the symbol from it).
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const SymbolUse* x = a.symbol_use(i);
  const SymbolUse* y = b.symbol_use(i);
  if (x == nullptr && y == nullptr) return std::nullopt;
  if (x != nullptr && y != nullptr && x->field == y->field && x->symbol == y->symbol && x->offset == y->offset &&
      x->symbol_bytes == y->symbol_bytes) {
    return std::nullopt;
  }
  return refusal(UpdateStatus::not_supported, b.info(i),
                 fmt::format("{}{} copies to or from another __device__ symbol (or range of it) in the template, or "
                             "a symbol on one side only; a node's symbol is part of its structure (compile the new "
                             "plan)",
                             ctx, b.info(i).describe()));
}

/// What compare_shape compares: whether an end is a symbol, and which symbol and range.
void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& /*memo*/) {
  const SymbolUse* s = g.symbol_use(i);
  f.add(s != nullptr);
  if (s == nullptr) return;
  f.add(s->field);
  f.add(s->symbol);
  f.add(s->offset);
  f.add(s->symbol_bytes);
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) { s.memcpy = g.memcpys[payload]; }

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.memcpys[payload] = s.memcpy; }

/// A multi-dimensional copy or one with a CUDA array end: the memcpy setter takes 1-D operands.
bool needs_whole_update(const GraphImpl& a, std::uint32_t pa, const GraphImpl& t, std::uint32_t pt) {
  for (const cudaMemcpy3DParms* p : {&a.memcpys[pa], &t.memcpys[pt]}) {
    if (p->extent.height > 1 || p->extent.depth > 1 || p->srcArray != nullptr || p->dstArray != nullptr) return true;
  }
  return false;
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/compare_fns::compare_shape,
                         /*fingerprint=*/compare_fns::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/false,
                         /*needs_whole_update=*/compare_fns::needs_whole_update};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/names.hpp"
#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace describing {
namespace {

/// The direction of a copy, by cudaMemcpyKind.
constexpr const char* copy_kind_names[] = {"host-to-host", "host-to-device", "device-to-host", "device-to-device",
                                           "cudaMemcpyDefault (direction inferred by CUDA at run time)"};
static_assert(cudaMemcpyHostToHost == 0 && cudaMemcpyHostToDevice == 1 && cudaMemcpyDeviceToHost == 2 &&
              cudaMemcpyDeviceToDevice == 3 && cudaMemcpyDefault == 4);

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams& params) {
  const detail::NodeData& n = g.nodes[i];
  const auto& p = g.memcpys[n.payload];
  if (const detail::PeerCopy* peer = g.peer_copy(i)) {
    return fmt::format("{} bytes, peer copy device {} -> device {}", p.extent.width, peer->src_device,
                       peer->dst_device);
  }
  std::string s = fmt::format("{} x {} x {} bytes, {}", p.extent.width, p.extent.height, p.extent.depth,
                              name_of(p.kind, copy_kind_names, "invalid"));
  if (const detail::SymbolUse* sym = g.symbol_use(i)) {  // never the symbol's address (dumps compare equal)
    s += fmt::format(", {} a __device__ symbol of {} bytes at byte {}",
                     sym->field == detail::BufferField::memcpy_dst ? "to" : "from", sym->symbol_bytes, sym->offset);
  }
  for (const detail::BufferUse& u : detail::buffer_uses_of(g, i)) {  // slices (their offsets are parameters)
    const std::string part = detail::buffer_use_text(g, u);
    if (!part.empty())
      s += fmt::format(", {} {}", u.field == detail::BufferField::memcpy_dst ? "destination" : "source", part);
  }
  for (const detail::ParamPlace place : {detail::ParamPlace::memcpy_dst, detail::ParamPlace::memcpy_src}) {
    for (const auto& [k, use] : params) {  // the endpoints that are parameters, by name (not their values)
      if (use.place != place) continue;
      s += fmt::format(", {} is parameter {}", place == detail::ParamPlace::memcpy_dst ? "destination" : "source",
                       detail::escaped(param_label(g, k)));
    }
  }
  return s;
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "cds", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::memcpy

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <vector>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  cudaMemcpy3DParms p{};
  out.api = "cudaGetSymbolAddress";
  out.rc = memcpy_params(g, i, builder.dptrs_, p);
  if (out.rc != cudaSuccess) {
    out.hint = "the symbol is not a __device__ or __constant__ variable of code loaded for this device";
    return out;
  }
  out.api = "cudaGraphAddMemcpyNode";
  out.rc = cuda_try(cudaGraphAddMemcpyNode, &out.node, graph, deps.data(), deps.size(), &p);
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, /*may_keep=*/false, /*check_devices=*/nullptr,
                     /*device_launch=*/true};

}  // namespace graphdsl::detail::kinds::memcpy

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include <optional>
#include <utility>

#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  cudaMemcpy3DParms p{};
  if (const cudaError_t rc = detail::memcpy_params(detail::recorded_plan(x), i, x.native.dptrs, p); rc != cudaSuccess) {
    return {rc, "cudaGetSymbolAddress"};
  }
  return set_memcpy_node(x, x.native.nodes[i], p);
}

Applied patch_graph(ExecImpl& x, const GraphImpl& from, std::uint32_t i) {
  cudaMemcpy3DParms p{};
  if (const cudaError_t rc = detail::memcpy_params(from, i, x.native.dptrs, p); rc != cudaSuccess) {
    return {rc, "cudaGetSymbolAddress"};
  }
  return {cuda_try(cudaGraphMemcpyNodeSetParams, x.native.nodes[i], &p), "cudaGraphMemcpyNodeSetParams"};
}

bool compiled_copy(const ExecImpl& x, std::uint32_t i, cudaMemcpy3DParms& p) {
  return detail::memcpy_params(detail::recorded_plan(x), i, x.native.dptrs, p) == cudaSuccess;
}

/// cudaGraphExecMemcpyNodeSetParams takes 1-D operands only.
std::optional<UpdateResult> update_needs(const GraphImpl& a, const GraphImpl& t, std::uint32_t i, UpdateNeeds& needs) {
  for (const cudaMemcpy3DParms* p : {&std::as_const(a.memcpys[a.nodes[i].payload]), &t.memcpys[t.nodes[i].payload]}) {
    needs.multi_dim_copy |= p->extent.height > 1 || p->extent.depth > 1 || p->srcArray || p->dstArray;
  }
  return std::nullopt;
}

/// A parameter's value at an end of a copy of the executable's plan (apply_node) or of a plan nested
/// in it.
Applied patch_param(ExecImpl& x, const GraphImpl& g, std::uint32_t i, std::uint32_t nested) {
  if (nested == ConditionRef::unresolved) return apply_node(x, i);
  const cudaGraphNode_t node = x.native.nested[nested].nodes[i];
  const DeviceScope device(node_device(g, i, -1));
  mark_changed(x);
  cudaMemcpy3DParms p{};
  if (const cudaError_t rc = detail::memcpy_params(g, i, x.native.dptrs, p); rc != cudaSuccess) {
    return {rc, "cudaGetSymbolAddress"};
  }
  return set_memcpy_node(x, node, p);
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply,     patch_fns::update_needs, patch_fns::patch_graph, patch_fns::patch_param,
                     /*function=*/nullptr, patch_fns::compiled_copy};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end patch ====
