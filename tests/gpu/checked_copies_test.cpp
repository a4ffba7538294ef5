// Checked copies (InstantiateOptions::check_copies): a memcpy node compiled between device buffers
// is not pointed at pageable host memory by a setter, a pointer parameter or a per-node update
// (CUDA accepts that change and the next launch faults with cudaErrorIllegalAddress, ending the
// context). Each refusal names the node and leaves the executable copying what it copied before;
// pinned host memory is taken.
#include <string>
#include <vector>

#include "gpu_support.hpp"

namespace checked_copies_test {
namespace {

using gpu_test::DeviceBuffer;
using gpu_test::PinnedBuffer;
using gpu_test::Stream;

constexpr int N = 1024;

std::vector<float> filled(float first) {
  std::vector<float> v(N);
  for (int i = 0; i < N; ++i) v[i] = first + static_cast<float>(i);
  return v;
}

/// Clears `dst`, launches `exec` and returns what it copied into `dst`.
std::vector<float> copied(gd::Executable& exec, DeviceBuffer<float>& dst, Stream& s) {
  dst.upload(std::vector<float>(N, -1.0f));
  exec.launch(s);
  exec.synchronize(s);
  return dst.download();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("checked copies refuse pageable host memory at a copy end compiled as device memory, node named, "
          "the copy unchanged; pinned memory is taken",
          "[gpu][memcpy][checked]") {
  DeviceBuffer<float> src(filled(1.0f)), dst(N);
  Stream s;
  gd::Graph g("copies");
  const gd::MemcpyNode copy = g.add_memcpy(dst.get(), static_cast<const float*>(src.get()), N).name("copy");
  gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.check_copies());
  REQUIRE(copied(exec, dst, s) == filled(1.0f));

  // A setter: CudaError naming the node and the rule; the copy still reads `src`.
  std::vector<float> pageable = filled(7.0f);
  try {
    exec.set_memcpy(copy, dst.get(), static_cast<const float*>(pageable.data()), N);
    FAIL("set_memcpy to pageable host memory was accepted");
  } catch (const gd::CudaError& e) {
    CHECK(has(e.what(), "memcpy node 'copy' (#0)"));
    CHECK(has(e.what(), "checked copies (InstantiateOptions::check_copies)"));
  }
  CHECK(copied(exec, dst, s) == filled(1.0f));

  // A per-node update: a refusal, the executable as it was.
  gd::Graph templ("copies");
  templ.add_memcpy(dst.get(), static_cast<const float*>(pageable.data()), N).name("copy");
  const gd::UpdateResult r = exec.update(templ, gd::UpdatePolicy::per_node);
  INFO(r.to_string());
  CHECK_FALSE(r);
  CHECK(has(r.to_string(), "checked copies"));
  CHECK(copied(exec, dst, s) == filled(1.0f));

  // Pinned host memory is taken.
  PinnedBuffer<float> pinned(N);
  const std::vector<float> three = filled(3.0f);
  std::copy(three.begin(), three.end(), pinned.data());
  exec.set_memcpy(copy, dst.get(), static_cast<const float*>(pinned.data()), N);
  CHECK(copied(exec, dst, s) == three);
}

TEST_CASE("checked copies refuse a pointer parameter set to pageable host memory; other copies it feeds keep "
          "their source",
          "[gpu][memcpy][checked][parameters]") {
  DeviceBuffer<float> src(filled(2.0f)), other(filled(9.0f)), dst(N);
  Stream s;
  gd::Graph g("parameter copies");
  const gd::Parameter<const float*> from = g.parameter<const float*>(src.get());
  from.name("from");
  g.add_memcpy(dst.get(), from, N).name("copy");
  gd::Executable exec = g.instantiate(gd::InstantiateOptions{}.check_copies());
  REQUIRE(copied(exec, dst, s) == filled(2.0f));

  std::vector<float> pageable = filled(5.0f);
  try {
    exec.set(from, static_cast<const float*>(pageable.data()));
    FAIL("a pointer parameter set to pageable host memory was accepted");
  } catch (const gd::Error& e) {
    CHECK(has(e.what(), "memcpy node 'copy' (#0)"));
    CHECK(has(e.what(), "checked copies"));
  }
  CHECK(copied(exec, dst, s) == filled(2.0f));

  // Device memory is taken.
  exec.set(from, static_cast<const float*>(other.get()));
  CHECK(copied(exec, dst, s) == filled(9.0f));
}

}  // namespace checked_copies_test
