// src/reaper.hpp — releases objects off CUDA's callback threads.
//
// CUDA runs a user object's destructor on one of its own threads, where CUDA API calls are not
// permitted (cudaEventDestroy there returns cudaErrorNotPermitted and the event leaks). Keep-alives
// released by CUDA are therefore handed to one graphdsl thread, which drops them.
#pragma once

#include <memory>

namespace graphdsl::detail {

/// Drops `keep` on graphdsl's release thread (started on first use, joined at exit).
void release_later(std::shared_ptr<const void> keep) noexcept;

}  // namespace graphdsl::detail
