// GPU tests of parts of graph allocations: a kernel writing into a slice, a memset of a slice, a
// copy from one graph buffer to another, a 2-D memset of a buffer, and updates and setters that move
// a slice's offset. Every value is read back from the device.
#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N would collide with other files'.
namespace slices_test {

namespace {

constexpr int N = 4096;

/// A plan: `tmp` (N ints) takes `in`, a kernel adds `value` to elements [first, first + count) of
/// it, and `out` takes it back; freed in the plan.
gd::Graph add_to_slice(const int* in, int* out, std::size_t first, std::size_t count, int value) {
  gd::Graph g("slice");
  auto [alloc, tmp] = g.add_mem_alloc<int>(N);
  alloc.name("tmp");
  auto up = g.add_memcpy(tmp, in, N).name("up").after(alloc);
  auto k = g.add_kernel(add_value, gd::cover(static_cast<unsigned>(count)), tmp.slice(first, count), value,
                        static_cast<int>(count))
               .name("add")
               .after(up);
  auto down = g.add_memcpy(out, tmp, N).name("down").after(k);
  g.add_mem_free(tmp).name("free").after(down);
  return g;
}

std::vector<int> added(const std::vector<int>& in, std::size_t first, std::size_t count, int value) {
  std::vector<int> want = in;
  for (std::size_t i = first; i < first + count; ++i) want[i] += value;
  return want;
}

}  // namespace

TEST_CASE("a kernel writes into a slice of a graph buffer, and an update moves the slice", "[gpu][memory][slices]") {
  auto gen = rng(811);
  const auto hin = random_ints<int>(N, gen);
  DeviceBuffer<int> in(hin);
  PinnedBuffer<int> out(N);
  Stream s;
  gd::Executable exec = add_to_slice(in.get(), out.data(), 1000, 512, 17).instantiate();
  exec.launch(s);
  exec.synchronize(s);
  require_equal(out.to_vector(), added(hin, 1000, 512, 17), "slice [1000, 1512)");

  // Only the offset (and the value) changes: a parameter change, patched per node.
  const gd::UpdateResult r = exec.update(add_to_slice(in.get(), out.data(), 3000, 512, -5));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{2});
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  exec.launch(s);
  exec.synchronize(s);
  require_equal(out.to_vector(), added(hin, 3000, 512, -5), "slice moved to [3000, 3512)");
  CHECK(exec.plan().dump().find("argument 1: buffer of 'tmp' bytes [12000, 14048)") != std::string::npos);
}

TEST_CASE("set_kernel_args and set_memset take slices of the executable's buffer", "[gpu][memory][slices]") {
  auto gen = rng(812);
  const auto hin = random_ints<int>(N, gen);
  DeviceBuffer<int> in(hin);
  PinnedBuffer<int> out(N);
  Stream s;
  gd::Graph g("setters");
  auto [alloc, tmp] = g.add_mem_alloc<int>(N);
  auto up = g.add_memcpy(tmp, static_cast<const int*>(in.get()), N).after(alloc);
  auto k = g.add_kernel(add_value, gd::cover(256), tmp.slice(0, 256), 3, 256).after(up);
  auto fill = g.add_memset(tmp.slice(512, 64), 9, 64).after(k);
  auto down = g.add_memcpy(out.data(), tmp, N).after(fill);
  g.add_mem_free(tmp).after(down);
  gd::Executable exec = g.instantiate();
  exec.set_kernel_args(k, tmp + 2048, 4, 256);
  exec.set_memset(fill, tmp.slice(100, 32), 11, 32);
  exec.launch(s);
  exec.synchronize(s);
  std::vector<int> want = added(hin, 2048, 256, 4);
  for (int i = 100; i < 132; ++i) want[i] = 11;
  require_equal(out.to_vector(), want, "after the setters");

  // A shorter slice at the end: checked with its own length, not the recorded one's.
  exec.set_kernel_args(k, tmp.slice(N - 64, 64), 6, 64);
  exec.launch(s);
  exec.synchronize(s);
  want = added(hin, N - 64, 64, 6);
  for (int i = 100; i < 132; ++i) want[i] = 11;
  require_equal(out.to_vector(), want, "after a setter with a shorter slice");
  // Past the end: refused before any CUDA call, and the executable keeps what it had.
  REQUIRE_THROWS_WITH(exec.set_kernel_args(k, tmp.slice(N - 32, 64), 6, 64),
                      has_substr("the slice passes the end of its allocation"));
  exec.launch(s);
  exec.synchronize(s);
  require_equal(out.to_vector(), want, "after a refused setter");
}

TEST_CASE("a memset of a slice sets only the slice", "[gpu][memory][slices]") {
  auto gen = rng(813);
  const auto hin = random_ints<int>(N, gen);
  const int value = random_value_not_in(hin, gen);
  DeviceBuffer<int> in(hin);
  PinnedBuffer<int> out(N);
  Stream s;
  auto build = [&](std::size_t first) {
    gd::Graph g("memset");
    auto [alloc, tmp] = g.add_mem_alloc<int>(N);
    auto up = g.add_memcpy(tmp, static_cast<const int*>(in.get()), N).after(alloc);
    auto fill = g.add_memset(tmp + first, value, 100).name("fill").after(up);
    auto down = g.add_memcpy(out.data(), tmp, N).after(fill);
    g.add_mem_free(tmp).after(down);
    return g;
  };
  gd::Executable exec = build(N - 100).instantiate();  // the last 100 elements
  exec.launch(s);
  exec.synchronize(s);
  std::vector<int> want = hin;
  std::fill(want.begin() + (N - 100), want.end(), value);
  require_equal(out.to_vector(), want, "memset of the tail");
  const gd::UpdateResult r = exec.update(build(7));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{2});
  exec.launch(s);
  exec.synchronize(s);
  want = hin;
  std::fill(want.begin() + 7, want.begin() + 107, value);
  require_equal(out.to_vector(), want, "memset moved to [7, 107)");
}

TEST_CASE("a copy from one graph buffer to another, and within one", "[gpu][memory][slices]") {
  auto gen = rng(814);
  const auto hin = random_ints<int>(N, gen);
  DeviceBuffer<int> in(hin);
  PinnedBuffer<int> out(N);
  Stream s;
  auto build = [&](std::size_t to) {
    gd::Graph g("copies");
    auto [a_node, a] = g.add_mem_alloc<int>(N);
    auto [b_node, b] = g.add_mem_alloc<int>(N);
    auto up = g.add_memcpy(a, static_cast<const int*>(in.get()), N).after(a_node);
    auto whole = g.add_memcpy(b, a, N).name("whole").after(up, b_node);                  // b = a
    auto part = g.add_memcpy(b + to, a.slice(0, 1024), 1024).name("part").after(whole);  // b[to..] = a[0..1024)
    auto within =
        g.add_memcpy(b.slice(0, 16), b.slice(N - 16, 16), 16).name("within").after(part);  // b[0..16) = b[N-16..N)
    auto down = g.add_memcpy(out.data(), b, N).after(within);
    auto fa = g.add_mem_free(a).after(part);
    g.add_mem_free(b).after(down, fa);
    return g;
  };
  auto expected = [&](std::size_t to) {
    std::vector<int> want = hin;
    std::copy(hin.begin(), hin.begin() + 1024, want.begin() + static_cast<std::ptrdiff_t>(to));
    std::copy(want.end() - 16, want.end(), want.begin());
    return want;
  };
  gd::Executable exec = build(2048).instantiate();
  exec.launch(s);
  exec.synchronize(s);
  require_equal(out.to_vector(), expected(2048), "copies to [2048, 3072)");
  const gd::UpdateResult r = exec.update(build(N - 1024));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.changed == std::vector<std::uint32_t>{4});
  exec.launch(s);
  exec.synchronize(s);
  require_equal(out.to_vector(), expected(N - 1024), "copies moved to the tail");
}

TEST_CASE("a 2-D memset of a graph buffer sets its rows and leaves the gaps", "[gpu][memory][slices]") {
  auto gen = rng(815);
  const auto hin = random_ints<int>(N, gen);
  const int value = random_value_not_in(hin, gen);
  DeviceBuffer<int> in(hin);
  PinnedBuffer<int> out(N);
  Stream s;
  constexpr std::size_t row = 64, width = 40, height = 10, first = 128;  // rows of 64 ints, 40 set
  gd::Graph g("rows");
  auto [alloc, tmp] = g.add_mem_alloc<int>(N);
  auto up = g.add_memcpy(tmp, static_cast<const int*>(in.get()), N).after(alloc);
  auto fill = g.add_memset_2d(tmp + first, row * sizeof(int), value, width, height).after(up);
  auto down = g.add_memcpy(out.data(), tmp, N).after(fill);
  g.add_mem_free(tmp).after(down);
  gd::Executable exec = g.instantiate();
  exec.launch(s);
  exec.synchronize(s);
  std::vector<int> want = hin;
  for (std::size_t r = 0; r < height; ++r) {
    for (std::size_t c = 0; c < width; ++c) want[first + r * row + c] = value;
  }
  require_equal(out.to_vector(), want, "2-D memset");
}

TEST_CASE("Executable::address of a slice is its first element's", "[gpu][memory][slices]") {
  Stream s;
  gd::Graph g("address");
  auto [alloc, tmp] = g.add_mem_alloc<int>(N);
  g.add_memset(tmp.slice(10, 10), 5, 10).after(alloc);
  gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.auto_free_on_launch());
  exec.launch(s);
  exec.synchronize(s);
  CHECK(exec.address(tmp + 10) == exec.address(tmp) + 10);
  int got[10] = {};
  GPU_REQUIRE(cudaMemcpy(got, exec.address(tmp + 10), sizeof got, cudaMemcpyDeviceToHost));
  for (int v : got) CHECK(v == 5);
  exec.free_graph_memory(s);
  exec.synchronize(s);
}

}  // namespace slices_test
