# Optional documentation targets (never part of `all`, never needed by the tests):
#
#   docs      the API reference with Doxygen, warnings as errors: every public name in
#             include/graphdsl (detail/ excepted) must be documented. Output: <build>/docs/api/html.
#             Without Doxygen the target only says so.
#   pictures  the DOT export of the samples' plans, and the pictures drawn by hand in DOT
#             (docs/pictures/architecture.dot), rendered to SVG and PNG with Graphviz's `dot`, into
#             <build>/docs/pictures. Without Graphviz the target only says so.
#   update-pictures  the same pictures, as DOT and SVG, into docs/pictures: the one target that writes
#             to the source tree (its output is committed; the pictures.<name> tests check it).
#
# The API reference stays in the build tree and is never committed.

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

# Pictures of the samples' plans: `<sample> --dot` prints its plans' DOT with no CUDA call (so no
# GPU is needed), and cmake/graphdslRenderDot.cmake turns each plan into <stem>.dot and a drawing.
# docs/pictures holds the committed copies the docs show; the pictures.<sample> tests fail when they
# no longer match the code.
set(GRAPHDSL_PICTURE_SAMPLES pipeline conditional_while switch_dispatch multi_gpu)
set(GRAPHDSL_PICTURES_DIR ${PROJECT_SOURCE_DIR}/docs/pictures)
find_program(GRAPHDSL_DOT_EXECUTABLE dot)
set(_graphdsl_picture_samples)
if(GRAPHDSL_BUILD_SAMPLES)
  foreach(sample IN LISTS GRAPHDSL_PICTURE_SAMPLES)
    if(TARGET ${sample})
      list(APPEND _graphdsl_picture_samples ${sample})
    endif()
  endforeach()
endif()

# Pictures drawn by hand: docs/pictures/<name>.dot is the source (edited by hand), <name>.svg is
# rendered from it; the pictures.<name> tests check that the SVG was drawn from the current DOT and
# that every file the picture names still exists. The profile heat maps (profile-pipeline,
# profile-conditional_while: docs/profiling.md) are DOT that `<sample> --profile-out DIR` writes on
# a GPU (to_dot(profile)): device times cannot be made again in CI, so the DOT is committed as
# a drawn picture.
set(GRAPHDSL_DRAWN_PICTURES architecture profile-pipeline profile-conditional_while)

# One render command per sample and per drawn picture, for `pictures` and `update-pictures`.
function(_graphdsl_picture_target target output_dir formats comment)
  if(NOT GRAPHDSL_DOT_EXECUTABLE)
    add_custom_target(${target} COMMAND ${CMAKE_COMMAND} -E echo
      "${target}: Graphviz 'dot' not found (Debian/Ubuntu: apt-get install graphviz); skipped" VERBATIM)
    return()
  endif()
  set(commands)
  foreach(sample IN LISTS _graphdsl_picture_samples)
    list(APPEND commands
      COMMAND ${CMAKE_COMMAND} -DMODE=render -DPROGRAM=$<TARGET_FILE:${sample}> -DNAME=${sample}
              -DDOT=${GRAPHDSL_DOT_EXECUTABLE} "-DFORMATS=${formats}" -DOUTPUT_DIR=${output_dir}
              -P ${PROJECT_SOURCE_DIR}/cmake/graphdslRenderDot.cmake)
  endforeach()
  foreach(picture IN LISTS GRAPHDSL_DRAWN_PICTURES)
    list(APPEND commands
      COMMAND ${CMAKE_COMMAND} -DMODE=render -DSOURCE=${GRAPHDSL_PICTURES_DIR}/${picture}.dot
              -DDOT=${GRAPHDSL_DOT_EXECUTABLE} "-DFORMATS=${formats}" -DOUTPUT_DIR=${output_dir}
              -P ${PROJECT_SOURCE_DIR}/cmake/graphdslRenderDot.cmake)
  endforeach()
  if(NOT _graphdsl_picture_samples)
    list(APPEND commands COMMAND ${CMAKE_COMMAND} -E echo
      "${target}: the samples are not built (GRAPHDSL_BUILD_SAMPLES=OFF): their plans' pictures skipped")
  endif()
  set(depends)
  if(_graphdsl_picture_samples)
    set(depends DEPENDS ${_graphdsl_picture_samples})
  endif()
  add_custom_target(${target} ${commands}
    ${depends}
    COMMENT "${comment}"
    VERBATIM)
endfunction()

# `pictures`: SVG and PNG into <build>/docs/pictures, to look at; the source tree is untouched.
_graphdsl_picture_target(pictures ${PROJECT_BINARY_DIR}/docs/pictures "svg png"
  "Graphviz: the samples' plans and the drawn pictures as SVG and PNG in ${PROJECT_BINARY_DIR}/docs/pictures")
# `update-pictures`: rewrites docs/pictures (DOT and SVG) after a change to a sample's plan or to
# Graph::to_dot(), and the SVG of a drawn picture after its DOT was edited; commit the result.
_graphdsl_picture_target(update-pictures ${GRAPHDSL_PICTURES_DIR} "svg"
  "Graphviz: regenerating ${GRAPHDSL_PICTURES_DIR} from the samples' plans and the drawn pictures' DOT")

# Tests pictures.<sample>: docs/pictures shows the sample's current plans (no GPU, no Graphviz).
# Tests pictures.<name> of the drawn pictures: the SVG is drawn from the current DOT, and the files
# the DOT names exist (no Graphviz).
if(GRAPHDSL_BUILD_TESTS)
  foreach(picture IN LISTS GRAPHDSL_DRAWN_PICTURES)
    add_test(NAME pictures.${picture}
      COMMAND ${CMAKE_COMMAND} -DMODE=check -DSOURCE=${GRAPHDSL_PICTURES_DIR}/${picture}.dot
              -DOUTPUT_DIR=${GRAPHDSL_PICTURES_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
              -P ${PROJECT_SOURCE_DIR}/cmake/graphdslRenderDot.cmake)
  endforeach()
  foreach(sample IN LISTS _graphdsl_picture_samples)
    add_test(NAME pictures.${sample}
      COMMAND ${CMAKE_COMMAND} -DMODE=check -DPROGRAM=$<TARGET_FILE:${sample}> -DNAME=${sample}
              -DOUTPUT_DIR=${GRAPHDSL_PICTURES_DIR} -DBUILD_DIR=${PROJECT_BINARY_DIR}
              -P ${PROJECT_SOURCE_DIR}/cmake/graphdslRenderDot.cmake)
  endforeach()
endif()
