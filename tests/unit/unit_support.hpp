// tests/unit/unit_support.hpp — helpers shared by the GPU-free unit tests.
//
// Nothing here calls CUDA. "Kernels" are plain host functions with kernel-like signatures: a plan
// only stores their address and never calls them. "Device pointers" are addresses of host arrays:
// a plan stores pointer values and never dereferences them.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <typeinfo>

#include "catch.hpp"
#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

namespace unit {

namespace gd = graphdsl;

// ---- stand-in kernels (never called) ----------------------------------------------------------
inline void saxpy(float*, const float*, float, int) {}
inline void scale(float*, float, int) {}
inline void add(const float*, const float*, float*, int) {}
inline void no_args() {}
inline void step(int*) {}

// ---- stand-in buffers (addresses only) --------------------------------------------------------
struct Buffers {
  float x[256] = {};
  float y[256] = {};
  float z[256] = {};
  float host_in[256] = {};
  float host_out[256] = {};
  int flags[64] = {};
};

/// Runs `f` and returns the what() of the graphdsl::UsageError it throws. Returns a text starting
/// with "<" when `f` does not throw, or throws something else, and appends " <N CUDA calls made>"
/// when a CUDA call went through graphdsl's checked path meanwhile, so that a CHECK comparing with
/// the expected message fails and shows what happened.
template <class F>
std::string usage_error_of(F&& f) {
  const std::uint64_t calls_before = graphdsl::debug::cuda_calls();
  try {
    f();
  } catch (const graphdsl::UsageError& e) {
    const std::uint64_t made = graphdsl::debug::cuda_calls() - calls_before;
    return made == 0 ? std::string(e.what())
                     : std::string(e.what()) + " <" + std::to_string(made) + " CUDA calls made>";
  } catch (const graphdsl::CudaError& e) {
    return std::string("<CudaError instead of UsageError: ") + e.what() + ">";
  } catch (const std::exception& e) {
    return std::string("<other exception instead of UsageError: ") + e.what() + ">";
  } catch (...) {
    return "<unknown exception instead of UsageError>";
  }
  return "<no exception>";
}

}  // namespace unit

/// Checks that `expr` throws graphdsl::UsageError whose what() is exactly `message`, and that no
/// CUDA call went through graphdsl's checked path while it ran.
#define CHECK_USAGE_ERROR(expr, message)                                                         \
  do {                                                                                           \
    const std::uint64_t unit_calls_before_ = ::graphdsl::debug::cuda_calls();                     \
    CHECK(::unit::usage_error_of([&] { (void)(expr); }) == std::string(message));                \
    CHECK(::graphdsl::debug::cuda_calls() == unit_calls_before_);                                 \
  } while (false)

/// Checks that `expr` completes without throwing and without a CUDA call.
#define CHECK_NO_CUDA_CALL(expr)                                                                 \
  do {                                                                                           \
    const std::uint64_t unit_calls_before_ = ::graphdsl::debug::cuda_calls();                     \
    CHECK_NOTHROW(expr);                                                                         \
    CHECK(::graphdsl::debug::cuda_calls() == unit_calls_before_);                                 \
  } while (false)
