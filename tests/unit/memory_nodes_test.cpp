// Memset and memcpy helpers: the cudaMemsetParams / cudaMemcpy3DParms a plan stores.
#include <cstdint>
#include <cstring>

#include "unit_support.hpp"
#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)

namespace gd = graphdsl;

namespace {

const cudaMemsetParams& memset_of(const gd::Graph& g, const gd::Node& n) {
  const auto& impl = g.impl();
  REQUIRE(impl.nodes.at(n.index()).kind == gd::NodeKind::memset);
  return impl.memsets.at(impl.nodes[n.index()].payload);
}

const cudaMemcpy3DParms& memcpy_of(const gd::Graph& g, const gd::Node& n) {
  const auto& impl = g.impl();
  REQUIRE(impl.nodes.at(n.index()).kind == gd::NodeKind::memcpy);
  return impl.memcpys.at(impl.nodes[n.index()].payload);
}

}  // namespace

// ---- memset ------------------------------------------------------------------------------------

TEST_CASE("add_memset stores the value's bit pattern and the element size", "[memset]") {
  gd::Graph g;
  alignas(4) unsigned char raw[1024] = {};

  SECTION("uint8_t") {
    auto* p = reinterpret_cast<std::uint8_t*>(raw);
    const auto& m = memset_of(g, g.add_memset(p, std::uint8_t{0xA5}, 100));
    CHECK(m.dst == p);
    CHECK(m.value == 0xA5u);
    CHECK(m.elementSize == 1);
    CHECK(m.width == 100);
    CHECK(m.height == 1);
    CHECK(m.pitch == 100);
  }
  SECTION("int8_t: the byte, not a sign-extended int") {
    auto* p = reinterpret_cast<std::int8_t*>(raw);
    const auto& m = memset_of(g, g.add_memset(p, std::int8_t{-1}, 10));
    CHECK(m.value == 0xFFu);
    CHECK(m.elementSize == 1);
  }
  SECTION("uint16_t") {
    auto* p = reinterpret_cast<std::uint16_t*>(raw);
    const auto& m = memset_of(g, g.add_memset(p, std::uint16_t{0xBEEF}, 50));
    CHECK(m.value == 0xBEEFu);
    CHECK(m.elementSize == 2);
    CHECK(m.width == 50);
    CHECK(m.pitch == 100);
  }
  SECTION("int16_t: the two bytes, not a sign-extended int") {
    auto* p = reinterpret_cast<std::int16_t*>(raw);
    const auto& m = memset_of(g, g.add_memset(p, std::int16_t{-2}, 5));
    CHECK(m.value == 0xFFFEu);
    CHECK(m.elementSize == 2);
  }
  SECTION("float") {
    auto* p = reinterpret_cast<float*>(raw);
    const auto& m = memset_of(g, g.add_memset(p, 1.0f, 25));
    CHECK(m.value == 0x3F800000u);
    CHECK(m.elementSize == 4);
    CHECK(m.width == 25);
    CHECK(m.pitch == 100);
    const auto& neg = memset_of(g, g.add_memset(p, -2.5f, 1));
    float back;
    std::memcpy(&back, &neg.value, 4);
    CHECK(back == -2.5f);
  }
  SECTION("int") {
    auto* p = reinterpret_cast<int*>(raw);
    const auto& m = memset_of(g, g.add_memset(p, -1, 7));
    CHECK(m.value == 0xFFFFFFFFu);
    CHECK(m.elementSize == 4);
    CHECK(m.width == 7);
    CHECK(m.height == 1);
  }
  CHECK_NO_CUDA_CALL(g.validate());
}

TEST_CASE("add_memset_2d stores pitch, width in elements and height", "[memset]") {
  gd::Graph g;
  alignas(4) unsigned char raw[4096] = {};
  auto* p = reinterpret_cast<std::uint16_t*>(raw);
  auto n = g.add_memset_2d(p, 256, std::uint16_t{0x1234}, 100, 8).name("tile");
  const auto& m = memset_of(g, n);
  CHECK(m.dst == p);
  CHECK(m.pitch == 256);
  CHECK(m.width == 100);
  CHECK(m.height == 8);
  CHECK(m.elementSize == 2);
  CHECK(m.value == 0x1234u);
  CHECK(n.kind() == gd::NodeKind::memset);
  CHECK_NO_CUDA_CALL(g.validate());
}

TEST_CASE("add_memset_raw stores its parameters unchanged", "[memset]") {
  gd::Graph g;
  int buf[16] = {};
  const auto& m = memset_of(g, g.add_memset_raw(buf, 0xDEADBEEFu, 4, 3, 2, 64));
  CHECK(m.dst == buf);
  CHECK(m.value == 0xDEADBEEFu);
  CHECK(m.elementSize == 4);
  CHECK(m.width == 3);
  CHECK(m.height == 2);
  CHECK(m.pitch == 64);
  const auto& d = memset_of(g, g.add_memset_raw(buf, 1, 1, 16));
  CHECK(d.height == 1);
  CHECK(d.pitch == 0);
}

// ---- memcpy ------------------------------------------------------------------------------------

TEST_CASE("add_memcpy copies count * sizeof(T) bytes as a 1-D 3-D copy", "[memcpy]") {
  gd::Graph g;
  double dst[100] = {};
  const double src[100] = {};
  const auto& p = memcpy_of(g, g.add_memcpy(dst, src, 100));
  const std::size_t bytes = 100 * sizeof(double);
  CHECK(p.extent.width == bytes);
  CHECK(p.extent.height == 1);
  CHECK(p.extent.depth == 1);
  CHECK(p.dstPtr.ptr == dst);
  CHECK(p.srcPtr.ptr == src);
  CHECK(p.dstPtr.pitch == bytes);
  CHECK(p.srcPtr.pitch == bytes);
  CHECK(p.dstPtr.xsize == bytes);
  CHECK(p.dstPtr.ysize == 1);
  CHECK(p.kind == cudaMemcpyDefault);
  CHECK(p.srcArray == nullptr);
  CHECK(p.dstArray == nullptr);
  CHECK(p.srcPos.x == 0);
  CHECK(p.dstPos.x == 0);
}

TEST_CASE("add_memcpy keeps an explicit copy direction", "[memcpy]") {
  gd::Graph g;
  std::int16_t dst[8] = {};
  std::int16_t src[8] = {};
  const auto& p = memcpy_of(g, g.add_memcpy(dst, src, 3, cudaMemcpyDeviceToHost));  // non-const src is fine
  CHECK(p.extent.width == 6);
  CHECK(p.kind == cudaMemcpyDeviceToHost);
}

TEST_CASE("add_memcpy_bytes copies exactly the given byte count", "[memcpy]") {
  gd::Graph g;
  char dst[64] = {};
  char src[64] = {};
  const auto& p = memcpy_of(g, g.add_memcpy_bytes(dst, src, 37, cudaMemcpyHostToHost));
  CHECK(p.extent.width == 37);
  CHECK(p.extent.height == 1);
  CHECK(p.extent.depth == 1);
  CHECK(p.dstPtr.ptr == dst);
  CHECK(p.srcPtr.ptr == src);
  CHECK(p.kind == cudaMemcpyHostToHost);
}

TEST_CASE("add_memcpy_2d stores rows, width and both pitches", "[memcpy]") {
  gd::Graph g;
  unsigned char dst[4096] = {};
  unsigned char src[4096] = {};
  const auto& p = memcpy_of(g, g.add_memcpy_2d(dst, 512, src, 256, 200, 7, cudaMemcpyHostToDevice));
  CHECK(p.extent.width == 200);
  CHECK(p.extent.height == 7);
  CHECK(p.extent.depth == 1);
  CHECK(p.dstPtr.ptr == dst);
  CHECK(p.dstPtr.pitch == 512);
  CHECK(p.srcPtr.ptr == src);
  CHECK(p.srcPtr.pitch == 256);
  CHECK(p.srcPtr.xsize == 200);
  CHECK(p.srcPtr.ysize == 7);
  CHECK(p.kind == cudaMemcpyHostToDevice);
  CHECK_NO_CUDA_CALL(g.validate());
}

TEST_CASE("add_memcpy_3d stores the parameters as given", "[memcpy]") {
  gd::Graph g;
  float dst[1024] = {};
  float src[1024] = {};
  cudaMemcpy3DParms in{};
  in.srcPtr = cudaPitchedPtr{src, 64, 16, 4};
  in.dstPtr = cudaPitchedPtr{dst, 128, 32, 4};
  in.srcPos = cudaPos{4, 1, 0};
  in.dstPos = cudaPos{8, 2, 1};
  in.extent = cudaExtent{48, 3, 2};
  in.kind = cudaMemcpyDeviceToDevice;
  const auto& p = memcpy_of(g, g.add_memcpy_3d(in));
  CHECK(p.srcPtr.ptr == src);
  CHECK(p.srcPtr.pitch == 64);
  CHECK(p.dstPtr.pitch == 128);
  CHECK(p.dstPtr.xsize == 32);
  CHECK(p.srcPos.x == 4);
  CHECK(p.srcPos.y == 1);
  CHECK(p.dstPos.z == 1);
  CHECK(p.extent.width == 48);
  CHECK(p.extent.height == 3);
  CHECK(p.extent.depth == 2);
  CHECK(p.kind == cudaMemcpyDeviceToDevice);
  CHECK(std::memcmp(&p, &in, sizeof(in)) == 0);
  CHECK_NO_CUDA_CALL(g.validate());
}

TEST_CASE("memcpy and memset nodes keep raw pointers: the plan reads nothing from the buffers", "[memcpy][memset]") {
  gd::Graph g;
  float src[4] = {1, 2, 3, 4};
  float dst[4] = {};
  g.add_memcpy(dst, src, 4);
  g.add_memset(dst, 9.0f, 4);
  src[0] = 100;  // changing the buffer after building changes nothing in the plan's parameters
  CHECK(memcpy_of(g, g.node(0)).srcPtr.ptr == src);
  CHECK(dst[0] == 0);  // building never wrote through the pointer
  CHECK(src[0] == 100);
}
