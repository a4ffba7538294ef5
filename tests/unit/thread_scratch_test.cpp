// The scratch lists a compile keeps per thread (src/plan/thread_scratch.hpp): reused between
// compiles, and never shared by two compiles at once on one thread (a captured function that a
// compile runs may compile another graph).
#include <cstdint>
#include <thread>
#include <vector>

#include "plan/thread_scratch.hpp"  // src/, not installed
#include "unit_support.hpp"

namespace gd = graphdsl;

namespace thread_scratch_test {

struct Tag;
using Scratch = gd::detail::ThreadScratch<std::uint32_t, Tag>;

TEST_CASE("a thread's scratch list is cleared and reused by the next borrow, with its storage",
          "[compile][scratch]") {
  const std::uint32_t* storage = nullptr;
  {
    Scratch s;
    s.get().assign(100, 7);
    storage = s.get().data();
  }
  Scratch again;
  CHECK(again.get().empty());
  CHECK(again.get().capacity() >= 100);
  again.get().push_back(1);
  CHECK(again.get().data() == storage);
}

TEST_CASE("a borrow while the thread's scratch list is borrowed gets its own, and leaves the outer one as it was",
          "[compile][scratch]") {
  Scratch outer;
  outer.get() = {1, 2, 3};
  {
    Scratch inner;  // a compile inside a compile on this thread
    CHECK(&inner.get() != &outer.get());
    CHECK(inner.get().empty());
    inner.get().assign(50, 9);
  }
  CHECK(outer.get() == std::vector<std::uint32_t>{1, 2, 3});
  std::vector<std::uint32_t>* other_thread = nullptr;
  std::thread t([&other_thread] {
    Scratch s;  // another thread's own list, though this thread's is borrowed
    other_thread = &s.get();
  });
  t.join();
  CHECK(other_thread != &outer.get());
}

TEST_CASE("a borrow that grows the thread's scratch list beyond its limit gives the storage back",
          "[compile][scratch]") {
  {
    Scratch s;
    s.get().assign(Scratch::kept_limit, 1);  // at the limit: kept
  }
  {
    Scratch s;
    CHECK(s.get().capacity() >= Scratch::kept_limit);
    s.get().assign(Scratch::kept_limit + 1, 2);  // beyond it: given back at the end
  }
  Scratch after;
  CHECK(after.get().empty());
  CHECK(after.get().capacity() == 0);
}

TEST_CASE("the thread's scratch list is free again once a borrow ends by an exception", "[compile][scratch]") {
  std::vector<std::uint32_t>* kept = nullptr;
  {
    Scratch s;
    kept = &s.get();
  }
  try {
    Scratch s;
    s.get().push_back(4);
    throw 1;
  } catch (int) {
  }
  Scratch after;
  CHECK(&after.get() == kept);
  CHECK(after.get().empty());
}

}  // namespace thread_scratch_test
