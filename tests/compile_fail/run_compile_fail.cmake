# tests/compile_fail/run_compile_fail.cmake — one compile-fail test (cmake -P).
#
# Compiles SOURCE with COMPILER (-std=c++17 -fsyntax-only, INCLUDES as -I paths) and checks the
# expectation written in the snippet itself:
#   // expect: <regex>     the compilation must FAIL and its diagnostics must match <regex>
#                          (proves it failed for the intended reason, not a typo or a missing header)
#   // expect: compiles    the compilation must SUCCEED (the control snippet)
#   // flags: <flags>      extra compiler flags, e.g. -Werror=unused-result (optional)
#
#   cmake -DCOMPILER=g++ -DSOURCE=x.cpp -DINCLUDES="a|b" -P run_compile_fail.cmake
foreach(var COMPILER SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_compile_fail.cmake: ${var} is not set")
  endif()
endforeach()

file(STRINGS "${SOURCE}" expect_lines REGEX "^// expect: ")
file(STRINGS "${SOURCE}" flag_lines REGEX "^// flags: ")
list(LENGTH expect_lines n_expect)
if(NOT n_expect EQUAL 1)
  message(FATAL_ERROR "${SOURCE}: needs exactly one '// expect: <regex>' (or '// expect: compiles') line")
endif()
string(REGEX REPLACE "^// expect: " "" expect "${expect_lines}")
set(flags)
foreach(line IN LISTS flag_lines)
  string(REGEX REPLACE "^// flags: " "" line "${line}")
  separate_arguments(line UNIX_COMMAND "${line}")
  list(APPEND flags ${line})
endforeach()
set(include_flags)
string(REPLACE "|" ";" includes "${INCLUDES}")
foreach(dir IN LISTS includes)
  if(dir)
    list(APPEND include_flags "-I${dir}")
  endif()
endforeach()

execute_process(
  COMMAND "${COMPILER}" -std=c++17 -fsyntax-only ${flags} ${include_flags} "${SOURCE}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)

get_filename_component(name "${SOURCE}" NAME)
if(expect STREQUAL "compiles")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} must compile (it is the control of the compile-fail tests), but the compiler "
                        "exited with ${rc}:\n${out}")
  endif()
  message(STATUS "${name}: compiles, as it must")
  return()
endif()

if(rc EQUAL 0)
  message(FATAL_ERROR "${name} compiled, but it must not (expected a diagnostic matching '${expect}')")
endif()
if(NOT out MATCHES "${expect}")
  message(FATAL_ERROR "${name} failed to compile, but not for the intended reason: no diagnostic matches "
                      "'${expect}'. Compiler output:\n${out}")
endif()
# The diagnostic that matched, for the log.
string(REGEX MATCH "[^\n]*(${expect})[^\n]*" line "${out}")
string(REGEX MATCH "^[^\n]*" line "${line}")
message(STATUS "${name}: fails to compile, as it must: ${line}")
