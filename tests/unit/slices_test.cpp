// Unit tests of parts of graph allocations on the host: slices and offsets of a GraphBuffer in
// kernel arguments, memsets (1-D and 2-D) and memcpys (buffer to buffer too), their dumps, the
// checks of validate(), diff() and the recorded plan of an update, and the race checker. No CUDA call.
#include <cstdint>
#include <string>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "plan/diff.hpp"
#include "plan/recorded_update.hpp"
#include "plan_checks.hpp"

namespace gd = graphdsl;
using test_support::require_invalid;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace slices_test {

namespace {
void scale(float*, float, int) {}
void read_only(const float*, int) {}
float* const HOST = reinterpret_cast<float*>(0x5000);

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A plan: 'tmp' (64 floats), a kernel writing elements [first, first + count) of it, a memset of
/// elements [16, 32) and a copy out of its first 8 elements.
gd::Graph plan(std::size_t first, std::size_t count = 16, const char* name = "slices") {
  gd::Graph g(name);
  auto [alloc, tmp] = g.add_mem_alloc<float>(64);
  alloc.name("tmp");
  auto k = g.add_kernel(scale, gd::cover(16), tmp.slice(first, count), 2.0f, 16).name("k").after(alloc);
  auto fill = g.add_memset(tmp.slice(16, 16), 1.5f, 16).name("fill").after(k);
  g.add_memcpy(HOST, tmp.slice(0, 8), 8).name("out").after(fill);
  return g;
}

}  // namespace

TEST_CASE("a slice is a GraphBuffer of part of an allocation: offset and size in elements", "[slices]") {
  gd::Graph g("s");
  auto [alloc, tmp] = g.add_mem_alloc<double>(100);
  const gd::GraphBuffer<double> s = tmp.slice(10, 20);
  CHECK(s.id() == tmp.id());
  CHECK(s.offset() == 10);
  CHECK(s.offset_bytes() == 80);
  CHECK(s.size() == 20);
  CHECK(s.bytes() == 160);
  const gd::GraphBuffer<double> t = s.slice(5, 3);  // a slice of a slice counts from the slice
  CHECK(t.offset() == 15);
  CHECK(t.size() == 3);
  const gd::GraphBuffer<double> rest = tmp + 40;  // to the end
  CHECK(rest.offset() == 40);
  CHECK(rest.size() == 60);
  CHECK((tmp + 200).size() == 0);
  CHECK((tmp + 200).offset() == 200);
  CHECK(tmp.offset() == 0);
  (void)alloc;
}

TEST_CASE("slices validate and print as byte ranges of their allocation", "[slices][print]") {
  gd::Graph g = plan(32);
  CHECK_NOTHROW(g.validate());
  const std::string dump = g.dump();
  INFO(dump);
  CHECK(has(dump,
            "#1 kernel 'k': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), argument 1: buffer of "
            "'tmp' bytes [128, 192); after 'tmp'"));
  CHECK(has(dump,
            "#2 memset 'fill': value 1.5 (float), 4-byte elements, 16 x 1, destination 'tmp' bytes [64, 128); "
            "after 'k'"));
  CHECK(has(dump,
            "#3 memcpy 'out': 32 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), "
            "source 'tmp' bytes [0, 32); after 'fill'"));
  // a whole buffer prints as before
  gd::Graph w("whole");
  auto [alloc, tmp] = w.add_mem_alloc<float>(64);
  w.add_kernel(scale, gd::cover(64), tmp.slice(0, 64), 2.0f, 64).name("k").after(alloc);
  CHECK(has(w.dump(), "argument 1: buffer of #0; after #0"));
}

TEST_CASE("a buffer-to-buffer copy and a 2-D memset of a buffer", "[slices][print]") {
  gd::Graph g("copies");
  auto [a_node, a] = g.add_mem_alloc<int>(256);
  a_node.name("a");
  auto [b_node, b] = g.add_mem_alloc<int>(256);
  b_node.name("b");
  auto whole = g.add_memcpy(b, a, 256).name("whole").after(a_node, b_node);
  auto within = g.add_memcpy(a + 128, a.slice(0, 128), 128).name("within").after(whole);
  auto rows = g.add_memset_2d(b.slice(16, 200), 64 * sizeof(int), 7, 32, 3).name("rows").after(within);
  CHECK_NOTHROW(g.validate());
  const std::string dump = g.dump();
  INFO(dump);
  CHECK(has(dump, "#2 memcpy 'whole': 1024 x 1 x 1 bytes, device-to-device; after 'a', 'b'"));
  CHECK(has(dump,
            "#3 memcpy 'within': 512 x 1 x 1 bytes, device-to-device, destination 'a' bytes [512, 1024), "
            "source 'a' bytes [0, 512); after 'whole'"));
  CHECK(has(dump,
            "#4 memset 'rows': value 7 (int32), 4-byte elements, 32 x 3, pitch 256 bytes, destination 'b' "
            "bytes [64, 864); after 'within'"));
  const gd::MemcpyParams c = g.memcpy_of(within);
  CHECK(c.dst == nullptr);
  CHECK(c.src == nullptr);
  CHECK(c.dst_buffer == a.id());
  CHECK(c.src_buffer == a.id());
  CHECK(c.dst_offset == 512);
  CHECK(c.src_offset == 0);
  const gd::MemsetParams m = g.memset_of(rows);
  CHECK(m.dst == nullptr);
  CHECK(m.buffer == b.id());
  CHECK(m.buffer_offset == 64);
  CHECK(m.pitch == 256);
  CHECK(m.height == 3);
}

TEST_CASE("a memset of a slice takes a Parameter for its value", "[slices][parameter]") {
  gd::Graph g("param");
  const gd::Parameter<float> value = g.parameter(2.5f);
  auto [alloc, tmp] = g.add_mem_alloc<float>(64);
  alloc.name("tmp");
  auto fill = g.add_memset(tmp + 32, value, 16).name("fill").after(alloc);
  CHECK_NOTHROW(g.validate());
  CHECK(g.memset_of(fill).buffer_offset == 128);
  CHECK(has(g.dump(), "destination 'tmp' bytes [128, 256)"));  // tmp + 32: to the end
}

TEST_CASE("validate() refuses a slice past its allocation and an extent past its slice", "[slices][errors]") {
  {
    gd::Graph g = plan(56);  // [56, 72) of 64 elements
    require_invalid(g,
                    "kernel node 'k' (#1): argument 1 is bytes [224, 288) of the buffer of mem_alloc node 'tmp' (#0), "
                    "which holds 256 bytes: the slice passes the end of its allocation");
  }
  {
    gd::Graph g("memset");
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    alloc.name("tmp");
    g.add_memset(tmp + 60, 0.0f, 4).name("tail").after(alloc);  // fits: elements [60, 64)
    CHECK_NOTHROW(g.validate());
    g.add_memset(tmp + 60, 0.0f, 8).name("over").after(alloc);  // 8 elements of a 4-element slice
    require_invalid(g,
                    "memset node 'over' (#2): touches 32 bytes of its destination, bytes [240, 256) of the buffer of "
                    "mem_alloc node 'tmp' (#0), a slice of 16 bytes");
  }
  {
    gd::Graph g("past");
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    alloc.name("tmp");
    g.add_memset(tmp.slice(60, 8), 0.0f, 8).name("past").after(alloc);
    require_invalid(g,
                    "memset node 'past' (#1): its destination is bytes [240, 272) of the buffer of mem_alloc node "
                    "'tmp' (#0), which holds 256 bytes: the slice passes the end of its allocation");
  }
  {
    gd::Graph g("copy");
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    alloc.name("tmp");
    g.add_memcpy(tmp.slice(0, 32), tmp.slice(32, 16), 32).name("more").after(alloc);
    require_invalid(g,
                    "memcpy node 'more' (#1): touches 128 bytes of its source, bytes [128, 192) of the buffer of "
                    "mem_alloc node 'tmp' (#0), a slice of 64 bytes");
  }
  {
    gd::Graph g("rows");  // 3 rows of 8 floats, 32 floats apart: the last row ends at element 72
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    alloc.name("tmp");
    g.add_memset_2d(tmp, 32 * sizeof(float), 1.0f, 8, 3).name("rows").after(alloc);
    require_invalid(g,
                    "memset node 'rows' (#1): touches 288 bytes of its destination, the buffer of mem_alloc node "
                    "'tmp' (#0), which holds 256 bytes");
  }
  {
    gd::Graph g("overflow");  // a byte offset that does not fit in 64 bits
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    alloc.name("tmp");
    g.add_kernel(read_only, gd::cover(1), tmp.slice(SIZE_MAX / 2, 1), 1).name("far").after(alloc);
    require_invalid(g,
                    "kernel node 'far' (#1): argument 1 is bytes [18446744073709551615, past 2^64) of the buffer of "
                    "mem_alloc node 'tmp' (#0), which holds 256 bytes: the slice passes the end of its allocation");
  }
}

TEST_CASE("add_mem_free refuses a slice that does not start at its allocation's start", "[slices][errors]") {
  gd::Graph g("free");
  auto [alloc, tmp] = g.add_mem_alloc<float>(64);
  CHECK_THROWS_WITH(g.add_mem_free(tmp + 8),
                    "graphdsl: add_mem_free: the buffer is a slice starting at element 8 of its allocation; CUDA frees "
                    "whole allocations: pass the buffer add_mem_alloc returned");
  CHECK(g.node_count() == 1);
  CHECK_NOTHROW(g.add_mem_free(tmp.slice(0, 8)).after(alloc));
  CHECK_NOTHROW(g.validate());
}

TEST_CASE("a slice's offset is a parameter: diff() lists the node, a different buffer is refused", "[slices][diff]") {
  const gd::Graph a = plan(32);
  CHECK(gd::diff(a, plan(32)).changed.empty());
  CHECK(gd::diff(a, plan(32)).to_string() == "nothing to update: the parameters are the same");
  const gd::UpdateResult moved = gd::diff(a, plan(40));
  CHECK(moved.status == gd::UpdateStatus::success);
  CHECK(moved.changed == std::vector<std::uint32_t>{1});
  CHECK(a.fingerprint() == plan(40).fingerprint());

  // memset and memcpy offsets too
  auto with = [](std::size_t set_at, std::size_t copy_at) {
    gd::Graph g("mc");
    auto [alloc, tmp] = g.add_mem_alloc<float>(64);
    auto s = g.add_memset(tmp + set_at, 0.0f, 8).after(alloc);
    g.add_memcpy(tmp.slice(copy_at, 8), tmp.slice(48, 8), 8).after(s);
    return g;
  };
  CHECK(gd::diff(with(0, 0), with(8, 0)).changed == std::vector<std::uint32_t>{1});
  CHECK(gd::diff(with(0, 0), with(0, 16)).changed == std::vector<std::uint32_t>{2});

  // another allocation is another buffer: topology
  gd::Graph one("k");
  auto [x_node, x] = one.add_mem_alloc<float>(64);
  auto [y_node, y] = one.add_mem_alloc<float>(64);
  one.add_kernel(scale, gd::cover(8), x + 8, 1.0f, 8).after(x_node, y_node);
  gd::Graph other("k");
  auto [x2_node, x2] = other.add_mem_alloc<float>(64);
  auto [y2_node, y2] = other.add_mem_alloc<float>(64);
  other.add_kernel(scale, gd::cover(8), y2 + 8, 1.0f, 8).after(x2_node, y2_node);
  const gd::UpdateResult r = gd::diff(one, other);
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  (void)y;
  (void)x2;
}

TEST_CASE("the recorded plan an update leaves takes a slice's offset and size", "[slices][update]") {
  const gd::Graph a = plan(32, 16);
  const gd::Graph t = plan(40, 8);
  std::vector<std::uint32_t> renamed;
  bool conditions = false;
  const gd::UpdateResult r = gd::detail::plan_diff(a.impl(), t.impl(), &renamed, &conditions);
  REQUIRE(r.status == gd::UpdateStatus::success);
  CHECK(r.changed == std::vector<std::uint32_t>{1});
  gd::Graph after(gd::detail::updated_copy(a.impl(), t.impl(), r.changed, renamed).release());
  CHECK(after.dump() == t.dump());
  CHECK(has(after.dump(), "argument 1: buffer of 'tmp' bytes [160, 192)"));
}

TEST_CASE("races: slices of one buffer are the byte ranges they are", "[slices][races]") {
  gd::Graph g("halves");
  auto [alloc, buf] = g.add_mem_alloc<float>(64);
  g.add_kernel(scale, gd::cover(32), buf.slice(0, 32), 1.0f, 32).name("low").after(alloc);
  g.add_kernel(scale, gd::cover(32), buf + 32, 1.0f, 32).name("high").after(alloc);
  CHECK(g.check_races().ok());
  g.add_memset(buf.slice(24, 16), 0.0f, 16).name("middle").after(alloc);
  const gd::RaceReport r = g.check_races();
  INFO(r.to_string());
  REQUIRE(r.races.size() == 2);
  CHECK(r.races[0].first.node.name == "low");
  CHECK(r.races[0].first.what == "kernel parameter 0 (GraphBuffer: a slice, bytes [0, 128))");
  CHECK(r.races[0].second.node.name == "middle");
  CHECK(r.races[0].memory == "the graph buffer of mem_alloc node #0, bytes [96, 128)");
  CHECK(r.races[1].first.node.name == "high");
  CHECK(r.races[1].memory == "the graph buffer of mem_alloc node #0, bytes [128, 160)");

  // a copy within one buffer: its two halves do not race with each other, a reader of both does
  gd::Graph c("copy");
  auto [c_alloc, cb] = c.add_mem_alloc<float>(64);
  auto copy = c.add_memcpy(cb + 32, cb.slice(0, 32), 32).name("copy").after(c_alloc);
  c.add_kernel(read_only, gd::cover(8), cb.slice(8, 8), 8).name("reads low").after(c_alloc);
  CHECK(c.check_races().ok());  // reads and a read
  c.add_kernel(read_only, gd::cover(8), cb.slice(40, 8), 8).name("reads high").after(c_alloc);
  CHECK(c.check_races().races.size() == 1);
  (void)copy;

  // declared ranges count from the slice
  gd::Graph d("declared");
  auto [d_alloc, db] = d.add_mem_alloc<float>(64);
  d.add_kernel(scale, gd::cover(8), gd::writes(db + 32, 0, 8), 1.0f, 8).name("w1").after(d_alloc);
  d.add_kernel(scale, gd::cover(8), gd::writes(db, 0, 8), 1.0f, 8).name("w2").after(d_alloc);
  CHECK(d.check_races().ok());
}

}  // namespace slices_test
