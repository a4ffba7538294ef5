// Host closures' storage (src/plan/closure_pool.cpp): a released closure's block serves the next
// closure of its size class on the same thread; closures released on another thread are destroyed
// exactly once there; every closure and owner is counted by debug::live_counts().
#include <memory>
#include <thread>
#include <vector>

#include "plan/closure_pool.hpp"  // src/, not installed
#include "unit_support.hpp"

namespace gd = graphdsl;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt).
namespace closure_pool_test {

TEST_CASE("a released host closure's block serves the next closure of its size on the same thread",
          "[host][lifetime][pool]") {
  gd::detail::HostClosure* first = gd::detail::new_host_closure([] {});
  void* const block = first;
  delete first;
  int calls = 0;
  gd::detail::HostClosure* second = gd::detail::new_host_closure([&calls] { ++calls; });
  if (gd::detail::pool_recycles()) {
    CHECK(static_cast<void*>(second) == block);
  } else {
    WARN("blocks come from the heap in this build (AddressSanitizer)");
  }
  second->call();
  CHECK(calls == 1);
  delete second;
}

TEST_CASE("closures owned through the pool and released on another thread are destroyed once",
          "[host][lifetime][pool]") {
  const std::int64_t before = gd::debug::live_counts().host_closures;
  std::vector<std::shared_ptr<gd::detail::HostClosure>> owned;
  int sum = 0;
  for (int k = 0; k < 200; ++k) {  // more than a thread keeps per size class
    owned.push_back(gd::detail::own_closure(gd::detail::new_host_closure([&sum, k] { sum += k; })));
  }
  CHECK(gd::debug::live_counts().host_closures - before == 200);
  for (const auto& c : owned) c->call();
  CHECK(sum == 199 * 200 / 2);
  std::thread([&owned] { owned.clear(); }).join();
  CHECK(gd::debug::live_counts().host_closures == before);
  int x = 0;
  const std::shared_ptr<gd::detail::HostClosure> again =
      gd::detail::own_closure(gd::detail::new_host_closure([&x] { x = 7; }));
  again->call();
  CHECK(x == 7);
}

}  // namespace closure_pool_test
