# Builds and runs tests/packaging/consumer against graphdsl in one of three ways (cmake -P script).
#
#   -DMODE=package|subdirectory|fetchcontent
#   -DSOURCE_DIR=<graphdsl source>  -DBINARY_DIR=<graphdsl build, for package mode>
#   -DWORK_DIR=<scratch folder, wiped first>  -DVERSION=<expected graphdsl version>
#   -DGENERATOR=... -DMAKE_PROGRAM=... -DBUILD_TYPE=... -DCONFIG=... -DCXX_COMPILER=...
#   -DCUDA_COMPILER=... -DCUDA_ARCHITECTURES=... -DCUDATOOLKIT_ROOT=... -DFMT_DIR=...
#   -DCXX_LAUNCHER=... -DCUDA_LAUNCHER=...   (optional: compiler launchers such as ccache)
#   -DCXX_FLAGS_<BUILD_TYPE>=... -DCUDA_FLAGS_<BUILD_TYPE>=...   (optional: that build type's flags)
#   -DUNITY_BUILD=ON|OFF   (optional: the calling build's CMAKE_UNITY_BUILD, for the modes that build graphdsl)
#
# package:      `cmake --install` the build tree into WORK_DIR, move the installed tree elsewhere
#               (the package must be relocatable), then find_package(graphdsl <VERSION> EXACT CONFIG).
# subdirectory: add_subdirectory(SOURCE_DIR); fetchcontent: FetchContent_Declare(SOURCE_DIR ...)
#               (no network). Both build graphdsl again, for one GPU architecture only.
# The consumer must print "graphdsl <VERSION>" and "graphdsl consumer: ok" and exit 0.
cmake_minimum_required(VERSION 3.25)

foreach(var MODE SOURCE_DIR WORK_DIR VERSION GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} COMMAND_ECHO STDOUT RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "packaging (${MODE}): command failed (${rc}): ${cmd}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

set(cache_args -DGRAPHDSL_CONSUMER_MODE=${MODE})
if(MAKE_PROGRAM)
  list(APPEND cache_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(BUILD_TYPE)
  list(APPEND cache_args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
  # That build type's flags as the calling build has them (CI builds Debug at -O0), so that a
  # compiler launcher such as ccache finds the library's objects already compiled.
  string(TOUPPER "${BUILD_TYPE}" _bt)
  foreach(lang CXX CUDA)
    if(DEFINED ${lang}_FLAGS_${_bt})
      list(APPEND cache_args "-DCMAKE_${lang}_FLAGS_${_bt}=${${lang}_FLAGS_${_bt}}")
    endif()
  endforeach()
endif()
if(CXX_COMPILER)
  list(APPEND cache_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(CUDATOOLKIT_ROOT)
  list(APPEND cache_args "-DCUDAToolkit_ROOT=${CUDATOOLKIT_ROOT}")
endif()
if(FMT_DIR)
  list(APPEND cache_args "-Dfmt_DIR=${FMT_DIR}")
endif()
# Compiler launchers (ccache) of the build that runs the test, if any.
if(CXX_LAUNCHER)
  list(APPEND cache_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER}")
endif()
if(CUDA_LAUNCHER)
  list(APPEND cache_args "-DCMAKE_CUDA_COMPILER_LAUNCHER=${CUDA_LAUNCHER}")
endif()

if(MODE STREQUAL "package")
  if(NOT BINARY_DIR)
    message(FATAL_ERROR "run_consumer.cmake: package mode needs -DBINARY_DIR=<graphdsl build>")
  endif()
  run(${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${WORK_DIR}/staging" ${config_args})
  # Nothing installed may point back into the source or build tree, and the tree must work from
  # wherever it ends up.
  file(GLOB_RECURSE installed_cmake "${WORK_DIR}/staging/*.cmake")
  if(NOT installed_cmake)
    message(FATAL_ERROR "packaging (package): no CMake package files were installed")
  endif()
  foreach(f IN LISTS installed_cmake)
    file(READ "${f}" text)
    foreach(tree "${SOURCE_DIR}" "${BINARY_DIR}" "${WORK_DIR}")
      string(FIND "${text}" "${tree}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "packaging (package): ${f} refers to ${tree}: the installed package is not relocatable")
      endif()
    endforeach()
  endforeach()
  file(RENAME "${WORK_DIR}/staging" "${WORK_DIR}/prefix")
  list(APPEND cache_args "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DGRAPHDSL_EXPECT_VERSION=${VERSION}")
elseif(MODE STREQUAL "subdirectory" OR MODE STREQUAL "fetchcontent")
  # Only the library: no tests, samples or install rules, one GPU architecture.
  list(APPEND cache_args "-DGRAPHDSL_SOURCE_DIR=${SOURCE_DIR}" -DGRAPHDSL_BUILD_TESTS=OFF -DGRAPHDSL_BUILD_SAMPLES=OFF)
  # A unity build (CI) builds graphdsl here in batches too: ccache cannot serve these objects (a
  # batch's source file lies in the build folder), and one TU per file would take three times as long.
  if(UNITY_BUILD)
    list(APPEND cache_args -DCMAKE_UNITY_BUILD=ON)
  endif()
  if(CUDA_COMPILER)
    list(APPEND cache_args "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}")
  endif()
  if(CUDA_ARCHITECTURES)
    list(APPEND cache_args "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}")
  endif()
  # Both modes put graphdsl's build in <build>/graphdsl-build (the consumer's add_subdirectory, and
  # FetchContent's <FETCHCONTENT_BASE_DIR>/graphdsl-build), and ccache rewrites the paths under the
  # packaging tests' folder relative to the build folder (CCACHE_BASEDIR): the compile commands of
  # the two modes are then the same, and the mode that runs second (fetchcontent) finds all of
  # graphdsl's objects (unity batches included) in the cache instead of compiling them again.
  if(MODE STREQUAL "fetchcontent")
    list(APPEND cache_args "-DFETCHCONTENT_BASE_DIR=${WORK_DIR}/build")
  endif()
  if("${CXX_LAUNCHER};${CUDA_LAUNCHER}" MATCHES "ccache")
    get_filename_component(_packaging_dir "${WORK_DIR}" DIRECTORY)
    set(ENV{CCACHE_BASEDIR} "${_packaging_dir}")
  endif()
else()
  message(FATAL_ERROR "run_consumer.cmake: unknown MODE '${MODE}'")
endif()

run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/packaging/consumer" -B "${WORK_DIR}/build" -G "${GENERATOR}" ${cache_args})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" ${config_args})

set(exe "${WORK_DIR}/build/consumer${CMAKE_EXECUTABLE_SUFFIX}")
if(CONFIG AND EXISTS "${WORK_DIR}/build/${CONFIG}/consumer${CMAKE_EXECUTABLE_SUFFIX}")
  set(exe "${WORK_DIR}/build/${CONFIG}/consumer${CMAKE_EXECUTABLE_SUFFIX}")
endif()
execute_process(COMMAND "${exe}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "packaging (${MODE}): the consumer exited with ${rc}")
endif()
foreach(expected "graphdsl consumer (${MODE}): graphdsl ${VERSION}" "graphdsl consumer: ok")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "packaging (${MODE}): the consumer's output lacks \"${expected}\"")
  endif()
endforeach()
message("packaging (${MODE}): ok")
