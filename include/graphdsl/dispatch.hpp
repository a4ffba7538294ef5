// graphdsl/dispatch.hpp — device-side shape dispatch: a SWITCH whose case the device picks from a
// size in device memory, through buckets.
//
//   gd::Buckets buckets(/*min_size=*/1, /*max_size=*/128, {1, 2, 4, 8, 16, 32, 64, 128});
//   buckets.buffer("activations", capacity, /*per_item=*/hidden);   // checked: each bucket fits
//   gd::Dispatch d = gd::dispatch(g, "decode", d_batch, buckets, [&](const gd::Bucket& b, gd::Graph& body) {
//     build_step(body, b.upper);                                    // the step sized for the bucket's largest size
//   });
//   d.select.after(prev);                                           // order it like any two nodes
//
// dispatch() adds a condition, a one-thread select kernel (the library's own) that reads `*size` on
// the device and sets the condition to the bucket holding it (bucket i holds the sizes
// buckets.bucket(i).lower .. upper), and a SWITCH with one body per bucket, built by `body`. A size
// outside every bucket runs no body (and is written to `out_of_range` when given). Because the case is
// chosen on the device, a dispatch inside an add_while body runs K steps of changing sizes in one
// launch, with no host round trip.
//
// Not in the umbrella header: #include <graphdsl/dispatch.hpp>.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/condition.hpp"
#include "graphdsl/detail/function_ref.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/node.hpp"

namespace graphdsl {

namespace detail {
/// The most buckets one dispatch takes (the bounds travel by value in the select kernel's arguments).
constexpr unsigned int max_dispatch_buckets = 32;
/// The select kernel's bucket bounds: bucket i holds lower_i .. upper[i], lower_0 = lower and
/// lower_i = upper[i - 1] + 1.
struct DispatchBounds {
  int count;                        ///< buckets
  int lower;                        ///< the smallest size of bucket 0
  int upper[max_dispatch_buckets];  ///< the largest size of each bucket, strictly increasing
};
/// select(handle, size, bounds, out_of_range): sets handle to the bucket of *size (count when none).
using DispatchKernel = void (*)(cudaGraphConditionalHandle, const int*, DispatchBounds, int*);
/// The select kernel (src/exec/dispatch_kernels.cu).
DispatchKernel dispatch_kernel() noexcept;
}  // namespace detail

/// One bucket of a dispatch: the sizes lower .. upper (both included).
struct Bucket {
  unsigned int index = 0;  ///< its case number in the SWITCH
  int lower = 0;           ///< the smallest size it holds
  int upper = 0;           ///< the largest size it holds: build its body for this size
};

/// The buckets of a dispatch: the declared range of sizes, the buckets' upper bounds, and the
/// buffers the bodies use (checked against each bucket's largest size).
class Buckets {
 public:
  /// Sizes min_size .. max_size, bucket i holding (upper_bounds[i - 1], upper_bounds[i]] (bucket 0
  /// from min_size). No check here: validate() (and dispatch()) check.
  Buckets(int min_size, int max_size, std::vector<int> upper_bounds);

  /// Declares a buffer of `capacity` elements that the body of every bucket uses for `fixed +
  /// per_item * size` elements at size `size`: validate() checks it holds that at each bucket's upper bound.
  Buckets& buffer(std::string name, std::size_t capacity, std::size_t per_item, std::size_t fixed = 0);
  /// The same for the body of bucket `bucket` only (e.g. a per-bucket workspace).
  Buckets& buffer_for(unsigned int bucket, std::string name, std::size_t capacity, std::size_t per_item,
                      std::size_t fixed = 0);

  /// Checks the buckets for a dispatch named `name`: 1 to 32 buckets; bounds strictly increasing;
  /// the declared range non-empty and covered (the first bucket reaches down to min_size, the last up
  /// to max_size, none lies wholly above max_size); every declared buffer holds what its buckets need.
  /// @throws UsageError naming the dispatch, the bucket and, for a buffer, the buffer.
  void validate(const std::string& name) const;

  /// The number of buckets.
  unsigned int size() const noexcept { return static_cast<unsigned int>(upper_.size()); }
  /// Bucket i (lower and upper bounds). @throws UsageError when out of range.
  Bucket bucket(unsigned int i) const;
  /// The bucket holding `size`, as the select kernel finds it: size() when none does.
  unsigned int bucket_of(int size) const noexcept;
  /// The smallest size of the declared range.
  int min_size() const noexcept { return min_; }
  /// The largest size of the declared range.
  int max_size() const noexcept { return max_; }
  /// The bounds as the select kernel takes them. @pre validate() passed.
  detail::DispatchBounds bounds() const noexcept;

 private:
  struct BufferUse {
    std::string name;
    std::size_t capacity, per_item, fixed;
    unsigned int bucket;  ///< a bucket, or all_buckets
  };
  static constexpr unsigned int all_buckets = ~0u;
  int min_, max_;
  std::vector<int> upper_;
  std::vector<BufferUse> buffers_;
};

/// What dispatch() added.
struct Dispatch {
  /// The one-thread select kernel: reads *size, sets `condition`. Order the dispatch after what
  /// writes the size with `select.after(...)`.
  KernelNode<cudaGraphConditionalHandle, const int*, detail::DispatchBounds, int*> select;
  /// The SWITCH (one body per bucket), after `select`. Order what follows with `node.before(...)`.
  ConditionalNode node;
  /// The condition select sets and the SWITCH reads (declared in the plan given to dispatch()).
  Condition condition;
};

/// Adds a device-side dispatch to `g` (a plan or a body, e.g. an add_while body): buckets.validate(name),
/// then a condition, the SWITCH named `name` with body i built by `body(buckets.bucket(i), body_plan)`,
/// and the select kernel named "<name>: select" before it. `size` points to device memory written
/// upstream (or before the launch); `out_of_range` (may be null) receives a size no bucket holds.
/// Basic guarantee only: a refusal by validate() or for a null `size` changes nothing; when a body
/// builder throws, or an allocation fails, the condition dispatch() declared first may stay in `g`
/// unused (validate() then refuses `g`, naming it), or the SWITCH without its select: rebuild the plan.
/// @throws UsageError from validate(), for a null `size`; what the body builder throws; std::bad_alloc.
Dispatch dispatch(Graph& g, const std::string& name, const int* size, const Buckets& buckets,
                  detail::FunctionRef<void(const Bucket&, Graph&)> body, int* out_of_range = nullptr);

}  // namespace graphdsl
