// GPU tests of gd::dispatch (graphdsl/dispatch.hpp): the device picks the right bucket for every
// size, bounds and out-of-range sizes included; nested in a WHILE, K = 100 steps of changing sizes
// run in one launch, each step's body the bucket of that step's size.
#include <string>
#include <vector>

#include <graphdsl/dispatch.hpp>

#include "gpu_support.hpp"
#include "shape_kernels.hpp"

using namespace gpu_test;

// A namespace of its own: CI compiles the suite in unity batches (tests/CMakeLists.txt).
namespace dispatch_gpu_test {

TEST_CASE("dispatch runs the body of the bucket holding the size, for every size", "[gpu][dispatch]") {
  Stream stream;
  DeviceBuffer<int> size(1), step(std::vector<int>{0}), log(1), miss(1);
  const gd::Buckets buckets(1, 128, {1, 2, 4, 8, 16, 32, 64, 128});
  gd::Graph g("dispatch");
  gd::dispatch(
      g, "by size", size.get(), buckets,
      [&](const gd::Bucket& b, gd::Graph& body) {
        body.add_kernel(shape_record, gd::Launch{1, 1}, log.get(), step.get(), size.get(), static_cast<int>(b.index))
            .name("record");
      },
      miss.get());
  gd::Executable exec = g.instantiate();
  for (int s = -1; s <= 130; ++s) {
    INFO("size " << s);
    size.upload({s});
    log.upload({-1});
    miss.upload({-7});
    exec.launch(stream);
    exec.synchronize(stream);
    const unsigned want = buckets.bucket_of(s);
    if (want < buckets.size()) {
      CHECK(log.download()[0] == static_cast<int>(want) * 1000 + s);
      CHECK(miss.download()[0] == -7);
    } else {
      CHECK(log.download()[0] == -1);  // no body ran
      CHECK(miss.download()[0] == s);
    }
  }
}

TEST_CASE("dispatch nested in a WHILE: K = 100 steps of changing sizes in one launch", "[gpu][dispatch]") {
  constexpr int K = 100;
  Stream stream;
  std::mt19937 gen = rng(12);
  std::vector<int> host_sizes(K);
  for (int& s : host_sizes) s = 1 + static_cast<int>(gen() % 128);
  DeviceBuffer<int> sizes(host_sizes), size(1), step(1), log(K);
  const gd::Buckets buckets(1, 128, {2, 8, 16, 48, 64, 100, 128});
  gd::Graph g("decode loop");
  auto first = g.add_memcpy(size.get(), sizes.get(), 1).name("first size");
  auto zero = g.add_memset(step.get(), 0, 1).name("step 0");
  auto clear = g.add_memset(log.get(), -1, K).name("clear log");
  gd::Condition more = g.add_condition(1);
  g.add_while(more, [&](gd::Graph& body) {
     gd::Dispatch d = gd::dispatch(body, "step", size.get(), buckets, [&](const gd::Bucket& b, gd::Graph& inner) {
       inner.add_kernel(shape_record, gd::Launch{1, 1}, log.get(), step.get(), size.get(), static_cast<int>(b.index))
           .name("record");
     });
     body.add_kernel(shape_advance, gd::Launch{1, 1}, step.get(), sizes.get(), size.get(), more, K)
         .name("advance")
         .after(d.node);
   })
      .name("steps")
      .after(first, zero, clear);
  gd::Executable exec = g.instantiate();
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    if (round == 1) {  // new sizes, same executable: nothing on the host but the upload
      for (int& s : host_sizes) s = 1 + static_cast<int>(gen() % 128);
      sizes.upload(host_sizes);
    }
    exec.launch(stream);
    exec.synchronize(stream);
    const std::vector<int> got = log.download();
    for (int s = 0; s < K; ++s) {
      const int want = static_cast<int>(buckets.bucket_of(host_sizes[s])) * 1000 + host_sizes[s];
      if (got[s] != want) FAIL("step " << s << ": size " << host_sizes[s] << " logged " << got[s] << ", want " << want);
    }
    CHECK(step.download()[0] == K);
  }
}

}  // namespace dispatch_gpu_test
