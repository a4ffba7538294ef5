// Unit tests of what a prepared update copies into the recorded plan (plan/recorded_update.hpp):
// updated_copy, same_storage and take_updated leave the plan update(plan) would have left. No CUDA call.
#include <cstring>
#include <memory>
#include <vector>

#include <graphdsl/graphdsl.hpp>

#include "catch.hpp"
#include "plan/diff.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"

namespace gd = graphdsl;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace recorded_update_test {

namespace {
void scale(float*, float, int) {}

float* const X = reinterpret_cast<float*>(0x1000);
int* const Z = reinterpret_cast<int*>(0x3000);

struct Values {
  float a = 2.0f;
  float lr = 0.5f;
  int fill = 7;
  unsigned int cond_default = 1;
  const char* name = "scale";
  int host = 0;
};

// 'scale' -> 'fill' -> host -> while (body: 'step' using parameter lr) ; 'k' with lr at the top.
gd::Graph plan(const Values& v) {
  gd::Graph g("tmpl");
  auto lr = g.parameter<float>(v.lr).name("lr");
  auto a = g.add_kernel(scale, gd::Launch{1, 64}, X, v.a, 64).name(v.name);
  auto f = g.add_memset(Z, v.fill, 64).name("fill").after(a);
  const int h = v.host;
  auto host = g.add_host([h] { (void)h; }).name("host").after(f);
  auto cond = g.add_condition(v.cond_default);
  auto loop = g.add_while(cond, [&](gd::Graph& body) {
                 body.add_kernel(scale, gd::Launch{1, 64}, X, lr, 64).name("step");
               }).after(host);
  g.add_kernel(scale, gd::Launch{1, 64}, X, lr, 64).name("k").after(loop);
  return g;
}

/// plan_diff's lists of changed and renamed nodes of t against a.
gd::UpdateResult diff_of(const gd::detail::GraphImpl& a, const gd::detail::GraphImpl& t,
                         std::vector<std::uint32_t>& renamed) {
  bool conditions = false;
  return gd::detail::plan_diff(a, t, &renamed, &conditions);
}
}  // namespace

TEST_CASE("take_updated leaves the recorded plan an update from the template would have", "[update][prepared]") {
  const auto calls = gd::debug::cuda_calls();
  const gd::Graph a = plan(Values{});
  Values other;
  other.a = 4.0f;
  other.lr = 0.25f;
  other.fill = 9;
  other.cond_default = 0;
  other.name = "scale2";
  other.host = 1;
  const gd::Graph t = plan(other);

  std::vector<std::uint32_t> renamed;
  const gd::UpdateResult d = diff_of(a.impl(), t.impl(), renamed);
  REQUIRE(d);
  CHECK(d.changed == std::vector<std::uint32_t>{0, 1, 2, 3, 4});  // every node (3 and 4 use lr)
  const auto image = gd::detail::updated_copy(a.impl(), t.impl(), d.changed, renamed);

  // A recorded plan that moved on since (another copy of a) takes the image in bulk.
  gd::Graph recorded = a;
  REQUIRE(gd::detail::same_storage(recorded.impl(), *image));
  gd::detail::take_updated(recorded.impl(), *image);
  std::vector<std::uint32_t> still_renamed;
  bool conditions_changed = false;
  const gd::UpdateResult after = gd::detail::plan_diff(recorded.impl(), t.impl(), &still_renamed, &conditions_changed);
  REQUIRE(after);
  CHECK(after.changed.empty());
  CHECK(still_renamed.empty());
  CHECK_FALSE(conditions_changed);
  CHECK(recorded.impl().node_name(0) == "scale2");
  CHECK(gd::detail::declared_condition(recorded.impl(), 0).default_value == 0);
  float lr = 0;
  std::memcpy(&lr, gd::detail::param_entry(recorded.impl(), 0).value.data(), sizeof lr);
  CHECK(lr == 0.25f);
  // The dump, names and values included, is the template's but for the plan's own name and id.
  CHECK(recorded.dump() == t.dump());

  // The while body holds a parameter entry: the recorded plan owns its copy (Executable::set writes
  // there), not the image's.
  const auto& mine = gd::detail::conditional_of(recorded.impl(), 3).bodies[0];
  const auto& theirs = gd::detail::conditional_of(*image, 3).bodies[0];
  CHECK(mine.get() != theirs.get());

  // The image holds its own copy of the template's names.
  CHECK(image->node_name(0) == "scale2");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("updated_copy of a template whose storage does not line up goes node by node, to the same plan",
          "[update][prepared]") {
  const gd::Graph a = plan(Values{});
  Values other;
  other.a = 4.0f;
  other.lr = 0.25f;
  other.name = "moved";
  const gd::Graph t = plan(other);
  // The same template with kernel 0's arguments moved to the end of the arena: same values, other offsets.
  gd::Graph moved = t;
  auto& m = moved.impl();
  const std::size_t bytes = m.kernel_links[0].layout->total;
  const std::size_t from = m.kernels[0].args;
  m.args.resize(m.args.size() + bytes);
  std::memcpy(m.args.data() + m.args.size() - bytes, m.args.data() + from, bytes);
  m.kernels[0].args = m.args.size() - bytes;

  std::vector<std::uint32_t> renamed, renamed_moved;
  const gd::UpdateResult d = diff_of(a.impl(), t.impl(), renamed);
  const gd::UpdateResult dm = diff_of(a.impl(), moved.impl(), renamed_moved);
  REQUIRE(d);
  REQUIRE(dm);
  const auto fast = gd::detail::updated_copy(a.impl(), t.impl(), d.changed, renamed);
  const auto slow = gd::detail::updated_copy(a.impl(), moved.impl(), dm.changed, renamed_moved);
  CHECK(gd::detail::same_storage(a.impl(), *fast));
  CHECK(gd::detail::same_storage(a.impl(), *slow));
  CHECK(fast->args.size() == a.impl().args.size());
  CHECK(slow->kernels[0].args == a.impl().kernels[0].args);  // a's offsets, not the template's
  gd::Graph r1 = a, r2 = a;
  gd::detail::take_updated(r1.impl(), *fast);
  gd::detail::take_updated(r2.impl(), *slow);
  CHECK(r1.dump() == t.dump());
  CHECK(r2.dump() == t.dump());
}

TEST_CASE("same_storage tells a plan of another layout apart", "[update][prepared]") {
  const gd::Graph a = plan(Values{});
  gd::Graph smaller("smaller");
  smaller.add_kernel(scale, gd::Launch{1, 64}, X, 1.0f, 64);
  CHECK(gd::detail::same_storage(a.impl(), a.impl()));
  CHECK_FALSE(gd::detail::same_storage(a.impl(), smaller.impl()));
}

}  // namespace recorded_update_test
