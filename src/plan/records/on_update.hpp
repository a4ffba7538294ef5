// plan/records/on_update.hpp — what a whole-plan update does with each store of a plan: the
// on_update column of plan/records/stores.def (take_updated and same_storage, plan/recorded_update.cpp,
// are folds over it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "plan/records/conditional.hpp"
#include "plan/records/plan.hpp"

namespace graphdsl::detail::on_update {

// Each policy has apply(a, img): what the executable's plan `a` takes of the template's store, and
// `sized`: whether the two stores have the same size when the plans' storage lines up.

/// The executable's plan keeps its own store (the plan's structure).
struct keep {
  static constexpr bool sized = true;
  template <class T>
  static void apply(std::vector<T>& /*a*/, const std::vector<T>& /*img*/) noexcept {}
};
/// The executable's plan takes the template's store (parameters); the vector keeps its capacity.
struct take {
  static constexpr bool sized = true;
  template <class T>
  static void apply(std::vector<T>& a, const std::vector<T>& img) {
    a = img;
  }
};
/// As `take`, for names: a plan names fewer nodes than it has, so the sizes may differ.
struct take_names {
  static constexpr bool sized = false;
  static void apply(std::vector<std::string>& a, const std::vector<std::string>& img) { a = img; }
};
/// The conditions' defaults (not their ids).
struct take_condition_defaults {
  static constexpr bool sized = true;
  static void apply(std::vector<ConditionData>& a, const std::vector<ConditionData>& img) noexcept {
    for (std::size_t k = 0; k < a.size(); ++k) {
      a[k].default_value = img[k].default_value;
      a[k].assign_default = img[k].assign_default;
    }
  }
};
/// The conditional nodes' bodies (shared: nested plans are not changed in place; own_parameter_plans
/// copies those Executable::set writes into).
struct take_bodies {
  static constexpr bool sized = true;
  static void apply(std::vector<ConditionalData>& a, const std::vector<ConditionalData>& img) {
    for (std::size_t k = 0; k < a.size(); ++k) a[k].bodies = img[k].bodies;
  }
};
/// The bytes of each graph-buffer use (a slice's length: checked by validate() and the race
/// checker, printed by dumps; which buffer is used is the plan's structure, the slice's offset a
/// parameter of the node's record).
struct take_bytes {
  static constexpr bool sized = true;
  template <class T>
  static void apply(std::vector<T>& a, const std::vector<T>& img) noexcept {
    for (std::size_t k = 0; k < a.size(); ++k) a[k].bytes = img[k].bytes;
  }
};
/// The parameters' values and names (not their uses, which are the plan's structure).
struct take_param_values {
  static constexpr bool sized = true;
  static void apply(std::vector<ParamData>& a, const std::vector<ParamData>& img) {
    for (std::size_t k = 0; k < a.size(); ++k) {
      a[k].value = img[k].value;
      a[k].name = img[k].name;
    }
  }
};

}  // namespace graphdsl::detail::on_update
