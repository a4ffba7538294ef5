// Copies to and from __device__ and __constant__ symbols (add_memcpy_to_symbol,
// add_memcpy_from_symbol) on the device: the copy lands where kernels read it, an update moves the
// other end, and a template that copies another symbol is refused with the executable unchanged.
// Plan rules: tests/unit/symbol_copy_test.cpp.
#include "gpu_support.hpp"
#include "kernels.hpp"

namespace {

using gpu_test::DeviceBuffer;
using gpu_test::Stream;

std::vector<float> iota_from(float first, std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = first + static_cast<float>(i);
  return v;
}

}  // namespace

TEST_CASE("memcpy to and from a __device__ symbol: kernels read what it copied; an update moves the source",
          "[gpu][memcpy][symbol]") {
  auto& table = gpu_test::symbol_table();
  DeviceBuffer<float> zeros(std::vector<float>(64, 0.0f)), a(iota_from(100.0f, 48)), b(iota_from(500.0f, 48));
  DeviceBuffer<float> out(64), back(16);
  Stream s;
  auto build = [&](const float* from) {
    gd::Graph g("symbols");
    auto clear = g.add_memcpy_to_symbol(table, static_cast<const float*>(zeros.get()), 64).name("clear");
    auto up = g.add_memcpy_to_symbol(table, from, 48, 8).name("upload").after(clear);  // table[8, 56)
    auto rd = g.add_kernel(gpu_test::read_symbol_table, gd::Launch{1, 64}, out.get(), 64).name("read").after(up);
    g.add_memcpy_from_symbol(back.get(), table, 16, 8).name("download").after(rd);  // table[8, 24)
    return g;
  };
  auto expect = [&](float first) {
    std::vector<float> want(64, 0.0f);
    for (int i = 0; i < 48; ++i) want[8 + i] = first + static_cast<float>(i);
    CHECK(out.download() == want);
    CHECK(back.download() == iota_from(first, 16));
  };
  gd::Executable exec = build(a.get()).instantiate();
  exec.launch(s);
  exec.synchronize(s);
  expect(100.0f);

  const gd::UpdateResult r = exec.update(build(b.get()));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.changed == std::vector<std::uint32_t>{1});
  exec.launch(s);
  exec.synchronize(s);
  expect(500.0f);

  // A plain copy where the symbol was: refused, and the executable still copies into the symbol.
  gd::Graph plain("symbols");
  auto clear = plain.add_memcpy_to_symbol(table, static_cast<const float*>(zeros.get()), 64).name("clear");
  auto up = plain.add_memcpy(out.get(), static_cast<const float*>(a.get()), 48).name("upload").after(clear);
  auto rd = plain.add_kernel(gpu_test::read_symbol_table, gd::Launch{1, 64}, out.get(), 64).name("read").after(up);
  plain.add_memcpy_from_symbol(back.get(), table, 16, 8).name("download").after(rd);
  const gd::UpdateResult refused = exec.update(plain);
  CHECK_FALSE(refused);
  CHECK(refused.status == gd::UpdateStatus::not_supported);
  CHECK_THAT(refused.reason, has_substr("memcpy node 'upload' (#1) copies to or from another __device__ symbol"));
  exec.launch(s);
  exec.synchronize(s);
  expect(500.0f);

  // The raw-pointer setter on the node that copies into the symbol: refused with the rule, never
  // a copy that silently keeps the symbol as its destination.
  const auto upload = gd::node_cast<gd::MemcpyNode>(*exec.plan().find("upload"));
  REQUIRE_THROWS_MATCHES(
      exec.set_memcpy(upload, out.get(), static_cast<const float*>(a.get()), 48), gd::UsageError,
      message_is("graphdsl: memcpy node 'upload' (#1): the destination is a __device__ symbol (256 bytes, at byte "
                 "32) in this executable's plan but a plain pointer in the setter; setters and update() patch "
                 "values, not which arguments are Conditions, GraphBuffers or __device__ symbols (compile a new "
                 "plan for that)"));
  exec.launch(s);
  exec.synchronize(s);
  expect(500.0f);
}

TEST_CASE("memcpy to a __constant__ scalar: kernels launched after it use the new value", "[gpu][memcpy][symbol]") {
  DeviceBuffer<float> x(std::vector<float>(32, 2.0f)), factor(std::vector<float>(1, 3.0f));
  Stream s;
  gd::Graph g("constant");
  auto set = g.add_memcpy_to_symbol(gpu_test::symbol_scale(), static_cast<const float*>(factor.get())).name("set");
  g.add_kernel(gpu_test::scale_by_symbol, gd::Launch{1, 32}, x.get(), 32).name("scale").after(set);
  CHECK_THAT(g.dump(), has_substr("to a __device__ symbol of 4 bytes at byte 0"));
  gd::Executable exec = g.instantiate();
  exec.launch(s);
  exec.synchronize(s);
  CHECK(x.download() == std::vector<float>(32, 6.0f));
}
