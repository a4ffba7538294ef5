// Typed argument packing: arguments are converted to the kernel's parameter types and copied into
// storage the plan owns (graphdsl/detail/kernel_args.hpp, Graph::add_kernel).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "unit_support.hpp"
#include "plan/graph_impl.hpp"  // the plan's storage (src/, not installed)

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace kernel_args_test {

namespace {

struct Pod {
  int a;
  double b;
  char c;
};

enum class Mode : std::uint8_t { fast = 3, exact = 7 };

void mixed(float, std::size_t, long long, Pod, const float*) {}
void flags_kernel(bool, Mode, int*) {}
void one_float(float) {}
void two_ints(int, int) {}

/// The kernel data of kernel node `n`.
const gd::detail::KernelData& kernel_of(const gd::Graph& g, const gd::Node& n) {
  const auto& impl = g.impl();
  REQUIRE(impl.nodes.at(n.index()).kind == gd::NodeKind::kernel);
  return impl.kernels.at(impl.nodes[n.index()].payload);
}

/// The argument layout of kernel node `n` (its KernelLinks).
const gd::detail::ArgLayout* layout_of(const gd::Graph& g, const gd::Node& n) {
  const auto& impl = g.impl();
  REQUIRE(impl.nodes.at(n.index()).kind == gd::NodeKind::kernel);
  return impl.kernel_links.at(impl.nodes[n.index()].payload).layout;
}

/// Reads argument `i` of kernel node `n` out of the plan's packed argument storage as a T,
/// checking first that the stored argument is exactly sizeof(T) bytes wide.
template <class T>
T stored_arg(const gd::Graph& g, const gd::Node& n, std::uint32_t i) {
  const auto& k = kernel_of(g, n);
  const gd::detail::ArgLayout* layout = layout_of(g, n);
  REQUIRE(i < layout->count);
  REQUIRE(layout->sizes[i] == sizeof(T));
  const auto& args = g.impl().args;
  REQUIRE(k.args + layout->offsets[i] + sizeof(T) <= args.size());
  T value;
  std::memcpy(&value, args.data() + k.args + layout->offsets[i], sizeof(T));
  return value;
}

}  // namespace

TEST_CASE("add_kernel returns a handle typed by the kernel's parameter list", "[kernel][args]") {
  gd::Graph g;
  unit::Buffers b;
  auto k = g.add_kernel(unit::saxpy, gd::Launch{}, b.x, b.y, 2.0f, 256);
  STATIC_REQUIRE(std::is_same_v<decltype(k), gd::KernelNode<float*, const float*, float, int>>);
  STATIC_REQUIRE(std::is_convertible_v<decltype(k), gd::Node>);
  CHECK(k.kind() == gd::NodeKind::kernel);
  CHECK(kernel_of(g, k).func == reinterpret_cast<const void*>(&unit::saxpy));
}

TEST_CASE("the layout of a mixed signature packs each parameter at the prefix sum of the sizes before it",
          "[kernel][args][layout]") {
  gd::Graph g;
  float source[4] = {};
  auto k = g.add_kernel(mixed, gd::Launch{}, 1.0f, std::size_t{1}, 1LL, Pod{}, source);
  const gd::detail::ArgLayout& layout = *layout_of(g, k);

  REQUIRE(layout.count == 5);
  const std::vector<std::uint32_t> sizes(layout.sizes, layout.sizes + layout.count);
  const std::vector<std::uint32_t> offsets(layout.offsets, layout.offsets + layout.count);
  const std::uint32_t pod = sizeof(Pod);
  CHECK(sizes == std::vector<std::uint32_t>{4, 8, 8, pod, 8});
  CHECK(offsets == std::vector<std::uint32_t>{0, 4, 12, 20, 20 + pod});
  CHECK(layout.total == 4 + 8 + 8 + pod + 8);
  CHECK(g.impl().args.size() == layout.total);
}

TEST_CASE("add_kernel converts each argument to the kernel's own parameter type", "[kernel][args]") {
  gd::Graph g;
  float source[4] = {};
  const short minus_three = -3;
  const Pod pod{-42, 6.25, 'q'};
  // double -> float, int -> size_t, short -> long long, struct by value, float* -> const float*
  auto k = g.add_kernel(mixed, gd::Launch{}, 2.5, 7, minus_three, pod, &source[1]);

  CHECK(stored_arg<float>(g, k, 0) == 2.5f);
  CHECK(stored_arg<std::size_t>(g, k, 1) == 7u);
  CHECK(stored_arg<long long>(g, k, 2) == -3LL);  // sign-extended to all 8 bytes
  const Pod stored = stored_arg<Pod>(g, k, 3);
  CHECK(stored.a == -42);
  CHECK(stored.b == 6.25);
  CHECK(stored.c == 'q');
  CHECK(stored_arg<const float*>(g, k, 4) == &source[1]);
}

TEST_CASE("a double argument for a float parameter is rounded to float, not stored as a double",
          "[kernel][args]") {
  gd::Graph g;
  auto k = g.add_kernel(one_float, gd::Launch{}, 0.1);
  CHECK(layout_of(g, k)->total == sizeof(float));
  CHECK(stored_arg<float>(g, k, 0) == 0.1f);
}

TEST_CASE("a negative int for a size_t parameter is converted like static_cast", "[kernel][args]") {
  gd::Graph g;
  float source[1] = {};
  auto k = g.add_kernel(mixed, gd::Launch{}, 0.0f, -1, 0, Pod{}, source);
  CHECK(stored_arg<std::size_t>(g, k, 1) == std::numeric_limits<std::size_t>::max());
}

TEST_CASE("bool, enum class and null pointer arguments are packed with the parameter types' sizes",
          "[kernel][args]") {
  gd::Graph g;
  auto k = g.add_kernel(flags_kernel, gd::Launch{}, true, Mode::exact, nullptr);
  CHECK(layout_of(g, k)->total == sizeof(bool) + sizeof(Mode) + sizeof(int*));
  CHECK(stored_arg<bool>(g, k, 0) == true);
  CHECK(stored_arg<Mode>(g, k, 1) == Mode::exact);
  CHECK(stored_arg<int*>(g, k, 2) == nullptr);
}

TEST_CASE("arguments are copied: changing the caller's variables after add_kernel leaves the plan unchanged",
          "[kernel][args][ownership]") {
  gd::Graph g;
  float source[2] = {};
  float factor = 1.5f;
  int n = 256;
  Pod pod{1, 2.0, 'a'};
  const float* ptr = &source[0];
  auto k1 = g.add_kernel(unit::scale, gd::Launch{}, source, factor, n);
  auto k2 = g.add_kernel(mixed, gd::Launch{}, factor, n, n, pod, ptr);

  factor = -9.0f;
  n = 1;
  pod = Pod{99, 99.0, 'z'};
  ptr = &source[1];

  CHECK(stored_arg<float>(g, k1, 1) == 1.5f);
  CHECK(stored_arg<int>(g, k1, 2) == 256);
  CHECK(stored_arg<float>(g, k2, 0) == 1.5f);
  CHECK(stored_arg<std::size_t>(g, k2, 1) == 256u);
  CHECK(stored_arg<Pod>(g, k2, 3).a == 1);
  CHECK(stored_arg<Pod>(g, k2, 3).c == 'a');
  CHECK(stored_arg<const float*>(g, k2, 4) == &source[0]);
}

TEST_CASE("a copied plan holds its own argument bytes", "[kernel][args][ownership]") {
  gd::Graph g;
  auto k = g.add_kernel(two_ints, gd::Launch{}, 1, 2);
  gd::Graph copy = g;
  // Overwrite the original's bytes; the copy must not see it.
  std::memset(g.impl().args.data(), 0xff, g.impl().args.size());
  const gd::Node in_copy = copy.node(k.index());
  CHECK(stored_arg<int>(copy, in_copy, 0) == 1);
  CHECK(stored_arg<int>(copy, in_copy, 1) == 2);
  CHECK(stored_arg<int>(g, k, 0) == -1);
}

TEST_CASE("a zero-argument kernel has an empty layout and adds no argument bytes", "[kernel][args]") {
  gd::Graph g;
  g.add_kernel(two_ints, gd::Launch{}, 1, 2);
  const std::size_t before = g.impl().args.size();
  auto k = g.add_kernel(unit::no_args, gd::Launch{});
  const auto& data = kernel_of(g, k);
  CHECK(layout_of(g, k)->count == 0);
  CHECK(layout_of(g, k)->total == 0);
  CHECK(data.args == before);
  CHECK(g.impl().args.size() == before);
  CHECK(g.node_count() == 2);
  CHECK_NO_CUDA_CALL(g.validate());
}

TEST_CASE("each kernel node's argument block follows the previous one", "[kernel][args][layout]") {
  gd::Graph g;
  unit::Buffers b;
  auto k0 = g.add_kernel(unit::saxpy, gd::Launch{}, b.x, b.y, 2.0f, 10);  // 24 bytes
  auto k1 = g.add_kernel(unit::scale, gd::Launch{}, b.z, 3.0f, 20);       // 16 bytes
  auto k2 = g.add_kernel(unit::saxpy, gd::Launch{}, b.y, b.x, 4.0f, 30);  // 24 bytes
  CHECK(kernel_of(g, k0).args == 0);
  CHECK(kernel_of(g, k1).args == 24);
  CHECK(kernel_of(g, k2).args == 40);
  CHECK(g.impl().args.size() == 64);
  CHECK(stored_arg<float*>(g, k2, 0) == b.y);
  CHECK(stored_arg<int>(g, k2, 3) == 30);
  CHECK(stored_arg<int>(g, k1, 2) == 20);
  // One static layout table per signature.
  CHECK(layout_of(g, k0) == layout_of(g, k2));
  CHECK(layout_of(g, k0) != layout_of(g, k1));
}

TEST_CASE("the compile-time argument rules accept conversions and reject count or type mismatches",
          "[kernel][args][compile-time]") {
  using gd::detail::AllConvertible;
  using gd::detail::TypeList;
  // what add_kernel's static_asserts test (a misuse itself cannot be shown without a compile-fail test)
  STATIC_REQUIRE(AllConvertible<TypeList<float, std::size_t, const float*>, TypeList<double&&, int&&, float*&>>::value);
  STATIC_REQUIRE(AllConvertible<TypeList<>, TypeList<>>::value);
  STATIC_REQUIRE_FALSE(AllConvertible<TypeList<float, int>, TypeList<float&&>>::value);            // too few
  STATIC_REQUIRE_FALSE(AllConvertible<TypeList<float>, TypeList<float&&, int&&>>::value);          // too many
  STATIC_REQUIRE_FALSE(AllConvertible<TypeList<float*>, TypeList<const float*&>>::value);          // drops const
  STATIC_REQUIRE_FALSE(AllConvertible<TypeList<int*>, TypeList<int&&>>::value);                    // int -> pointer
  STATIC_REQUIRE_FALSE(AllConvertible<TypeList<Pod>, TypeList<int&&>>::value);                     // int -> struct
}

namespace {
void scheduler(gd::DeviceGraph, gd::DeviceGraph, const int*) {}
}  // namespace

TEST_CASE("a DeviceGraph is a kernel argument: trivially copyable, packed as its cudaGraphExec_t",
          "[kernel][args][device_launch]") {
  STATIC_REQUIRE(std::is_trivially_copyable_v<gd::DeviceGraph>);
  STATIC_REQUIRE(sizeof(gd::DeviceGraph) == sizeof(cudaGraphExec_t));
  STATIC_REQUIRE_FALSE(std::is_convertible_v<cudaGraphExec_t, gd::DeviceGraph>);  // explicit: use device_graph()
  const auto a = gd::DeviceGraph(reinterpret_cast<cudaGraphExec_t>(std::uintptr_t{0x1000}));
  const auto b = gd::DeviceGraph(reinterpret_cast<cudaGraphExec_t>(std::uintptr_t{0x2000}));
  CHECK_FALSE(gd::DeviceGraph{});
  CHECK(a != b);
  gd::Graph g("sched");
  int choice = 0;
  auto k = g.add_kernel(scheduler, gd::Launch{1, 1}, a, b, &choice);
  CHECK(stored_arg<gd::DeviceGraph>(g, k, 0) == a);
  CHECK(stored_arg<gd::DeviceGraph>(g, k, 1).native_handle() == b.native_handle());
  g.validate();
}

}  // namespace kernel_args_test
