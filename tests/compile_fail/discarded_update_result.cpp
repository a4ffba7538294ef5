// Executable::update returns a [[nodiscard]] UpdateResult: a refusal must not go unnoticed.
// flags: -Werror=unused-result
// expect: ignoring return value.*nodiscard
#include <graphdsl/executable.hpp>

void misuse(graphdsl::Executable& exec, const graphdsl::Graph& next) { exec.update(next); }
