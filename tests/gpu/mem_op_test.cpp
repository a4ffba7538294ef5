// Memory-operations nodes on the device: writes that successors read, a wait that holds its
// successors until the host writes the awaited word into mapped memory, an update that patches
// values in place, and the device rules (pageable host memory refused before CUDA sees it). Plan
// rules: tests/unit/mem_op_test.cpp.
#include <chrono>
#include <thread>

#include "gpu_support.hpp"
#include "kernels.hpp"

namespace {

using gpu_test::DeviceBuffer;
using gpu_test::Stream;

/// Mapped pinned host memory: the host writes it, the device waits on it.
class MappedWords {
 public:
  MappedWords() {
    GPU_REQUIRE(cudaHostAlloc(reinterpret_cast<void**>(&host_), 4 * sizeof(unsigned), cudaHostAllocMapped));
    std::fill(host_, host_ + 4, 0u);
    GPU_REQUIRE(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
  }
  ~MappedWords() { (void)cudaFreeHost(host_); }
  MappedWords(const MappedWords&) = delete;
  MappedWords& operator=(const MappedWords&) = delete;
  volatile unsigned* host() const noexcept { return host_; }
  unsigned* device() const noexcept { return device_; }

 private:
  unsigned* host_ = nullptr;
  unsigned* device_ = nullptr;
};

/// The plan: set = {write word 0 = value, write the 64-bit word, GPU barrier} -> sum += word 0 ->
/// check = {wait until word 0 == value}.
gd::Graph signal_plan(DeviceBuffer<unsigned>& words, DeviceBuffer<unsigned>& sum, std::uint32_t value) {
  gd::Graph g("signal");
  auto* w64 = reinterpret_cast<std::uint64_t*>(words.get() + 2);
  auto set = g.add_mem_ops({gd::MemOp::write(words.get(), value), gd::MemOp::write(w64, 0x100000000ull + value),
                            gd::MemOp::barrier()})
                 .name("set");
  auto add = g.add_kernel(gpu_test::sum_into, gd::Launch{1, 1}, sum.get(), static_cast<const unsigned*>(words.get()))
                 .name("add")
                 .after(set);
  g.add_mem_ops({gd::MemOp::wait(words.get(), value, gd::MemOp::Until::equal)}).name("check").after(add);
  return g;
}

}  // namespace

TEST_CASE("mem ops: writes reach the successors, values are patched by an update", "[gpu][mem_op]") {
  DeviceBuffer<unsigned> words(std::vector<unsigned>(4, 0u)), sum(std::vector<unsigned>(1, 0u));
  Stream s;
  gd::Executable exec = signal_plan(words, sum, 41).instantiate();
  exec.launch(s);
  exec.synchronize(s);
  CHECK(sum.download()[0] == 41u);
  std::vector<unsigned> w = words.download();
  CHECK(w[0] == 41u);
  CHECK(w[2] == 41u);  // the 64-bit word 0x1'0000'0029, little-endian
  CHECK(w[3] == 1u);

  const gd::UpdateResult r = exec.update(signal_plan(words, sum, 7));
  INFO(r.to_string());
  REQUIRE(r);
  CHECK(r.strategy == gd::UpdateStrategy::per_node);
  CHECK(r.changed == std::vector<std::uint32_t>{0, 2});
  exec.launch(s);
  exec.synchronize(s);
  CHECK(sum.download()[0] == 48u);
  CHECK(words.download()[0] == 7u);

  // Another number of operations is refused and leaves the executable as it was.
  gd::Graph other("signal");
  auto set = other.add_mem_ops({gd::MemOp::write(words.get(), 9u)}).name("set");
  auto add = other.add_kernel(gpu_test::sum_into, gd::Launch{1, 1}, sum.get(), static_cast<const unsigned*>(words.get()))
                 .name("add")
                 .after(set);
  other.add_mem_ops({gd::MemOp::wait(words.get(), 9u, gd::MemOp::Until::equal)}).name("check").after(add);
  const gd::UpdateResult refused = exec.update(other);
  CHECK_FALSE(refused);
  CHECK(refused.status == gd::UpdateStatus::parameters_changed);
  exec.launch(s);
  exec.synchronize(s);
  CHECK(sum.download()[0] == 55u);
  CHECK(words.download()[0] == 7u);
}

TEST_CASE("mem ops: a wait holds its successors until the host writes the awaited word", "[gpu][mem_op]") {
  int device = 0, host_pointers = 0;
  GPU_REQUIRE(cudaGetDevice(&device));
  GPU_REQUIRE(cudaDeviceGetAttribute(&host_pointers, cudaDevAttrCanUseHostPointerForRegisteredMem, device));
  if (host_pointers == 0) {
    WARN("the device cannot wait on mapped host memory: skipped");
    return;
  }
  MappedWords flag;
  DeviceBuffer<unsigned> sum(std::vector<unsigned>(1, 0u));
  Stream s;
  gd::Graph g("gate");
  auto gate = g.add_mem_ops({gd::MemOp::wait(flag.device(), 1u, gd::MemOp::Until::at_least)}).name("gate");
  g.add_kernel(gpu_test::sum_into, gd::Launch{1, 1}, sum.get(), static_cast<const unsigned*>(flag.device() + 1))
      .name("add")
      .after(gate);
  gd::Executable exec = g.instantiate();
  exec.launch(s);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(cudaStreamQuery(s.get()) == cudaErrorNotReady);  // held by the wait
  CHECK(sum.download()[0] == 0u);                        // (download runs on the legacy stream)
  flag.host()[1] = 5u;                                   // the data first, then the flag
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flag.host()[0] = 1u;
  exec.synchronize(s);
  CHECK(sum.download()[0] == 5u);
}

TEST_CASE("mem ops: an address in pageable host memory is refused before CUDA sees it", "[gpu][mem_op][fault]") {
  static std::uint32_t pageable[4];
  gd::Graph g("g");
  g.add_mem_ops({gd::MemOp::write(&pageable[0], 1u)}).name("poke");
  REQUIRE_THROWS_MATCHES(g.instantiate(), gd::UsageError,
                         message_is("graphdsl: mem_op node 'poke' (#0): operation 0 (write32): the address is pageable "
                                    "host memory, which the device cannot reach; use device memory or host memory "
                                    "mapped into the device (cudaHostAlloc with cudaHostAllocMapped, cudaHostRegister)"));
}
