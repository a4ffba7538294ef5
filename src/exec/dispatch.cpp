// src/exec/dispatch.cpp — gd::Buckets and gd::dispatch (graphdsl/dispatch.hpp): a SWITCH whose case
// the device picks from a size, built with Graph's public API (no CUDA call).
#include "graphdsl/dispatch.hpp"

#include <utility>

#include <fmt/format.h>

#include "graphdsl/error.hpp"

namespace graphdsl {

Buckets::Buckets(int min_size, int max_size, std::vector<int> upper_bounds)
    : min_(min_size), max_(max_size), upper_(std::move(upper_bounds)) {}

Buckets& Buckets::buffer(std::string name, std::size_t capacity, std::size_t per_item, std::size_t fixed) {
  buffers_.push_back(BufferUse{std::move(name), capacity, per_item, fixed, all_buckets});
  return *this;
}

Buckets& Buckets::buffer_for(unsigned int bucket, std::string name, std::size_t capacity, std::size_t per_item,
                             std::size_t fixed) {
  buffers_.push_back(BufferUse{std::move(name), capacity, per_item, fixed, bucket});
  return *this;
}

Bucket Buckets::bucket(unsigned int i) const {
  if (i >= upper_.size()) {
    throw UsageError(fmt::format("dispatch: bucket {} does not exist ({} buckets)", i, upper_.size()));
  }
  return Bucket{i, i == 0 ? min_ : upper_[i - 1] + 1, upper_[i]};
}

unsigned int Buckets::bucket_of(int size) const noexcept {
  if (size < min_) return this->size();
  for (unsigned int i = 0; i < upper_.size(); ++i) {
    if (size <= upper_[i]) return i;
  }
  return this->size();
}

detail::DispatchBounds Buckets::bounds() const noexcept {
  detail::DispatchBounds b{};
  b.count = static_cast<int>(upper_.size());
  b.lower = min_;
  for (std::size_t i = 0; i < upper_.size() && i < detail::max_dispatch_buckets; ++i) b.upper[i] = upper_[i];
  return b;
}

namespace {

std::string range(const Bucket& b) { return fmt::format("bucket {} (sizes {}..{})", b.index, b.lower, b.upper); }

void check_bounds(const std::string& name, int min, int max, const std::vector<int>& upper) {
  if (upper.empty() || upper.size() > detail::max_dispatch_buckets) {
    throw UsageError(fmt::format("dispatch '{}': {} buckets; a dispatch has 1 to {}", name, upper.size(),
                                 detail::max_dispatch_buckets));
  }
  if (min > max) {
    throw UsageError(fmt::format("dispatch '{}': the declared range {}..{} is empty", name, min, max));
  }
  if (upper[0] < min) {
    throw UsageError(fmt::format("dispatch '{}': bucket 0 ends at {}, below the declared smallest size {}", name,
                                 upper[0], min));
  }
  for (std::size_t i = 1; i < upper.size(); ++i) {
    if (upper[i] <= upper[i - 1]) {
      throw UsageError(
          fmt::format("dispatch '{}': bucket {} ends at {}, not above bucket {} (ends at {}): upper "
                      "bounds must increase strictly",
                      name, i, upper[i], i - 1, upper[i - 1]));
    }
    if (upper[i - 1] >= max) {
      throw UsageError(fmt::format("dispatch '{}': bucket {} (sizes {}..{}) lies above the declared range {}..{}", name,
                                   i, upper[i - 1] + 1, upper[i], min, max));
    }
  }
  if (upper.back() < max) {
    throw UsageError(
        fmt::format("dispatch '{}': sizes {}..{} have no bucket (the last, bucket {}, ends at {}; the "
                    "declared range is {}..{})",
                    name, upper.back() + 1, max, upper.size() - 1, upper.back(), min, max));
  }
}

}  // namespace

void Buckets::validate(const std::string& name) const {
  check_bounds(name, min_, max_, upper_);
  for (const BufferUse& u : buffers_) {
    if (u.bucket != all_buckets && u.bucket >= upper_.size()) {
      throw UsageError(
          fmt::format("dispatch '{}': buffer '{}' is declared for bucket {}, which does not exist ({} "
                      "buckets)",
                      name, u.name, u.bucket, upper_.size()));
    }
    for (unsigned int i = 0; i < upper_.size(); ++i) {
      if (u.bucket != all_buckets && u.bucket != i) continue;
      const Bucket b = bucket(i);
      const std::size_t largest = b.upper > 0 ? static_cast<std::size_t>(b.upper) : 0;
      const std::size_t need = u.fixed + u.per_item * largest;
      if (need > u.capacity) {
        throw UsageError(
            fmt::format("dispatch '{}': {} needs {} + {} x {} = {} elements of buffer '{}', which holds {}", name,
                        range(b), u.fixed, u.per_item, largest, need, u.name, u.capacity));
      }
    }
  }
}

Dispatch dispatch(Graph& g, const std::string& name, const int* size, const Buckets& buckets,
                  detail::FunctionRef<void(const Bucket&, Graph&)> body, int* out_of_range) {
  buckets.validate(name);
  if (size == nullptr) throw UsageError(fmt::format("dispatch '{}': the size pointer is null", name));
  Dispatch d;
  const unsigned int n = buckets.size();
  d.condition = g.add_condition(/*default_value=*/n, /*assign_default=*/true);  // unset: no body
  d.node = g.add_conditional(ConditionalType::switch_case, d.condition, n, [&](unsigned int i, Graph& b) {
              body(buckets.bucket(i), b);
            }).name(name);
  d.select = g.add_kernel(detail::dispatch_kernel(), Launch{1, 1}, d.condition, size, buckets.bounds(), out_of_range)
                 .name(name + ": select")
                 .before(d.node);
  return d;
}

}  // namespace graphdsl
