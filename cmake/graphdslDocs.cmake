# Optional documentation targets (never part of `all`, never needed by the tests):
#
#   docs      the API reference with Doxygen, warnings as errors: every public name in
#             include/graphdsl (detail/ excepted) must be documented. Output: <build>/docs/api/html.
#             Without Doxygen the target only says so.
#   pictures  the DOT export of the samples' plans rendered to SVG and PNG with Graphviz's `dot`, into
#             <build>/docs/pictures. Without Graphviz (or without samples) the target only says so.
#
# Generated output stays in the build tree; nothing is written to the source tree.

find_package(Doxygen QUIET)
set(GRAPHDSL_DOCS_OUTPUT ${PROJECT_BINARY_DIR}/docs/api)
if(DOXYGEN_FOUND)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/Doxyfile.in ${PROJECT_BINARY_DIR}/docs/Doxyfile @ONLY)
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E make_directory ${GRAPHDSL_DOCS_OUTPUT}
    COMMAND ${DOXYGEN_EXECUTABLE} ${PROJECT_BINARY_DIR}/docs/Doxyfile
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Doxygen: API reference in ${GRAPHDSL_DOCS_OUTPUT}/html (warnings are errors)"
    VERBATIM)
else()
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E echo "docs: Doxygen not found (Debian/Ubuntu: apt-get install doxygen); skipped"
    VERBATIM)
endif()

# Samples whose output contains Graphviz DOT (a "digraph" block); each block becomes one picture.
set(GRAPHDSL_PICTURE_SAMPLES pipeline conditional_while switch_dispatch)
find_program(GRAPHDSL_DOT_EXECUTABLE dot)
set(_graphdsl_picture_commands)
set(_graphdsl_picture_deps)
if(GRAPHDSL_DOT_EXECUTABLE AND GRAPHDSL_BUILD_SAMPLES)
  foreach(sample IN LISTS GRAPHDSL_PICTURE_SAMPLES)
    if(TARGET ${sample})
      list(APPEND _graphdsl_picture_deps ${sample})
      list(APPEND _graphdsl_picture_commands
        COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${sample}> -DNAME=${sample}
                -DDOT=${GRAPHDSL_DOT_EXECUTABLE} -DOUTPUT_DIR=${PROJECT_BINARY_DIR}/docs/pictures
                -P ${CMAKE_CURRENT_LIST_DIR}/graphdslRenderDot.cmake)
    endif()
  endforeach()
endif()
if(_graphdsl_picture_commands)
  add_custom_target(pictures ${_graphdsl_picture_commands}
    DEPENDS ${_graphdsl_picture_deps}
    COMMENT "Graphviz: rendering the samples' plans into ${PROJECT_BINARY_DIR}/docs/pictures"
    VERBATIM)
elseif(NOT GRAPHDSL_DOT_EXECUTABLE)
  add_custom_target(pictures
    COMMAND ${CMAKE_COMMAND} -E echo "pictures: Graphviz 'dot' not found (Debian/Ubuntu: apt-get install graphviz); skipped"
    VERBATIM)
else()
  add_custom_target(pictures
    COMMAND ${CMAKE_COMMAND} -E echo "pictures: the samples are not built (GRAPHDSL_BUILD_SAMPLES=OFF); skipped"
    VERBATIM)
endif()
