// Copies to and from __device__ symbols on the plan (no GPU: host arrays stand for the symbols,
// whose addresses are only looked up when a plan is compiled): bounds and directions checked by
// validate(), the dump, and the symbol as structure in diff and fingerprint. On the device:
// tests/gpu/symbol_copy_test.cpp.
#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {
float symbol_a[16];
float symbol_b[16];
float scalar_c;
}  // namespace

TEST_CASE("symbol copies: the copy must stay inside the symbol and go in a direction it can", "[memcpy][symbol]") {
  unit::Buffers b;
  const auto calls = gd::debug::cuda_calls();
  gd::Graph g("g");
  g.add_memcpy_to_symbol(symbol_a, b.x, 8, 4).name("in");
  g.add_memcpy_from_symbol(b.y, symbol_a, 16).name("out");
  g.add_memcpy_to_symbol(scalar_c, b.z).name("one");
  CHECK_NOTHROW(g.validate());
  CHECK(g.dump() == "graph 'g': 3 nodes, 0 edges\n"
                    "  #0 memcpy 'in': 32 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), "
                    "to a __device__ symbol of 64 bytes at byte 16\n"
                    "  #1 memcpy 'out': 64 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), "
                    "from a __device__ symbol of 64 bytes at byte 0\n"
                    "  #2 memcpy 'one': 4 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), "
                    "to a __device__ symbol of 4 bytes at byte 0\n");
  gd::Graph past("past");
  past.add_memcpy_to_symbol(symbol_a, b.x, 8, 10).name("past");
  CHECK_USAGE_ERROR(past.validate(),
                    "graphdsl: memcpy node 'past' (#0): copies 32 bytes to bytes [40, 72) of a __device__ symbol of 64 "
                    "bytes, past its end");
  gd::Graph wrong("wrong");
  wrong.add_memcpy_from_symbol(b.y, symbol_a, 4, 0, cudaMemcpyHostToDevice).name("wrong");
  CHECK_USAGE_ERROR(wrong.validate(),
                    "graphdsl: memcpy node 'wrong' (#0): cudaMemcpyKind 1 cannot copy from a __device__ symbol (use "
                    "cudaMemcpyDefault, cudaMemcpyDeviceToHost or cudaMemcpyDeviceToDevice)");
  CHECK_USAGE_ERROR(g.add_memcpy_to_symbol(symbol_a, b.x, std::size_t{1} << 62),
                    "graphdsl: add_memcpy_to_symbol: 4611686018427387904 elements of 4 bytes is more than "
                    "9223372036854775807 bytes, the largest size graphdsl accepts");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("symbol copies: the symbol is structure, the other end a parameter", "[memcpy][symbol][update]") {
  unit::Buffers b;
  auto plan = [&](float (&symbol)[16], float* src) {
    gd::Graph g("g");
    g.add_memcpy_to_symbol(symbol, src, 8).name("in");
    return g;
  };
  const gd::Graph g = plan(symbol_a, b.x);
  CHECK(plan(symbol_a, b.y).fingerprint() == g.fingerprint());
  CHECK(plan(symbol_b, b.x).fingerprint() != g.fingerprint());
  const gd::UpdateResult moved = gd::diff(g, plan(symbol_a, b.y));
  CHECK(moved.status == gd::UpdateStatus::success);
  CHECK(moved.changed == std::vector<std::uint32_t>{0});
  const gd::UpdateResult other = gd::diff(g, plan(symbol_b, b.x));
  CHECK(other.status == gd::UpdateStatus::not_supported);
  CHECK(other.reason == "memcpy node 'in' (#0) copies to or from another __device__ symbol (or range of it) in the "
                        "template, or a symbol on one side only; a node's symbol is part of its structure (compile "
                        "the new plan)");
}
