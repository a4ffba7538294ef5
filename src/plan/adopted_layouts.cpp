// src/plan/adopted_layouts.cpp — the process-wide table of adopted kernels' argument layouts.
#include "plan/adopted_layouts.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "graphdsl/error.hpp"

namespace graphdsl::detail {
namespace {

struct StoredLayout {
  std::vector<std::uint32_t> offsets, sizes, abi_offsets;
  ArgLayout layout{};
};

using Key = std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>;

}  // namespace

const ArgLayout& adopted_layout(const std::uint32_t* sizes, const std::uint32_t* abi_offsets, std::uint32_t count) {
  static std::mutex mutex;
  // Never destroyed: plans of any thread may point at these layouts until the process ends.
  static auto* table = new std::map<Key, std::unique_ptr<StoredLayout>>();
  Key key{std::vector<std::uint32_t>(sizes, sizes + count),
          std::vector<std::uint32_t>(abi_offsets, abi_offsets + count)};
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = table->find(key);
  if (it != table->end()) return it->second->layout;
  auto s = std::make_unique<StoredLayout>();
  s->sizes = key.first;
  s->abi_offsets = key.second;
  s->offsets.resize(count);
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    s->offsets[i] = static_cast<std::uint32_t>(total);
    total += sizes[i];
    if (total > UINT32_MAX) throw UsageError("adopt: a kernel's parameters pass 4 GiB");
  }
  s->layout = ArgLayout{
      count, static_cast<std::uint32_t>(total), s->offsets.data(), s->sizes.data(), nullptr, s->abi_offsets.data(),
      true};
  const ArgLayout& out = s->layout;
  table->emplace(std::move(key), std::move(s));
  return out;
}

}  // namespace graphdsl::detail
