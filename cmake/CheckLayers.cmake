# tz_layering_test: fails when a file includes a header it may not use.
#   cmake -DSOURCE_DIR=<repository> -DTABLE=<build>/turbozarr_layers.cmake \
#         -P cmake/CheckLayers.cmake
#
# TABLE holds the layers as turbozarr_layer() declared them (cmake/Layers.cmake).
# The rules:
# - every file under src/ belongs to a declared layer: the one whose folder is
#   the longest prefix of the file's folder;
# - a file of layer L (tests too) may include the headers of L, of the layers
#   in L's DEPS and the public headers (turbozarr/...); tests (*_test.cc) may
#   also include the test-only layers (src/testing), which no production
#   layer may declare;
# - when the included layer is another layer that names its face (EXPORTS),
#   the header must be one of those;
# - headers are named from src/ or include/, never by a relative path, so
#   that every include is seen here;
# - the public headers, and the code that uses only the public API (the CLI,
#   the Python bindings, the install example), include no header of src/.
#   bench/ and fuzz/ may: they time and fuzz internal code.
cmake_minimum_required(VERSION 3.24)

if(NOT SOURCE_DIR OR NOT TABLE)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repository> -DTABLE=<table> "
                      "-P ${CMAKE_CURRENT_LIST_FILE}")
endif()
include(${TABLE})

set(public_api_only cli python/src examples)

# The declared layer whose folder holds `folder` (relative to src/), or "".
function(layer_of_folder folder out)
  set(best "")
  set(best_length -1)
  foreach(layer IN LISTS TZ_LAYERS TZ_TEST_LAYERS)
    set(layer_folder ${TZ_FOLDER_${layer}})
    string(LENGTH "${layer_folder}" length)
    if((folder STREQUAL layer_folder OR folder MATCHES "^${layer_folder}/")
       AND length GREATER best_length)
      set(best ${layer})
      set(best_length ${length})
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# The headers `file` includes with "..." or <...>, into `out`.
function(includes_of file out)
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][^\">]+[\">]")
  set(headers)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*$" "\\1"
           header "${line}")
    list(APPEND headers ${header})
  endforeach()
  set(${out} ${headers} PARENT_SCOPE)
endfunction()

# The layer whose header `header` names, "" for the public and third-party
# headers, or RELATIVE for a path through "." or "..".
function(layer_of_header header out)
  if(header MATCHES "(^|/)\\.\\.?/")
    set(${out} RELATIVE PARENT_SCOPE)
    return()
  endif()
  get_filename_component(folder "${header}" DIRECTORY)
  set(layer "")
  if(folder AND NOT folder MATCHES "^turbozarr(/|$)")
    layer_of_folder("${folder}" layer)
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

set(violations)
# Appends the concatenation of the arguments (which must hold no ";").
macro(violation)
  string(CONCAT _violation ${ARGV})
  list(APPEND violations "${_violation}")
endmacro()

# The layers' own files.
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}/src
     ${SOURCE_DIR}/src/*.h ${SOURCE_DIR}/src/*.cc)
list(SORT sources)
foreach(source IN LISTS sources)
  get_filename_component(folder "${source}" DIRECTORY)
  layer_of_folder("${folder}" owner)
  if(NOT owner)
    violation("src/${source} is in no layer: declare src/${folder} with "
              "turbozarr_layer() (cmake/Layers.cmake)")
    continue()
  endif()
  set(allowed ${owner} ${TZ_DEPS_${owner}})
  list(JOIN allowed ", " allowed_text)
  string(APPEND allowed_text ", the public headers turbozarr/...")
  if(source MATCHES "_test\\.cc$")
    list(APPEND allowed ${TZ_TEST_LAYERS})
    list(JOIN TZ_TEST_LAYERS ", " test_layers_text)
    string(APPEND allowed_text " and, in tests, ${test_layers_text}")
  endif()
  includes_of(${SOURCE_DIR}/src/${source} headers)
  foreach(header IN LISTS headers)
    layer_of_header("${header}" layer)
    if(layer STREQUAL "RELATIVE")
      violation("src/${source} includes \"${header}\" by a relative path, which "
                "hides its layer: name it from src/ (\"<layer>/...\") or include/ "
                "(\"turbozarr/...\")")
    elseif(layer AND NOT layer IN_LIST allowed)
      violation("src/${source} (layer ${owner}) includes \"${header}\" of layer "
                "${layer}, but ${owner} may use only ${allowed_text} (its DEPS "
                "in src/${TZ_FOLDER_${owner}}/CMakeLists.txt)")
    elseif(layer AND NOT layer STREQUAL owner AND TZ_EXPORTS_${layer}
           AND NOT header IN_LIST TZ_EXPORTS_${layer})
      list(JOIN TZ_EXPORTS_${layer} ", " exports_text)
      violation("src/${source} (layer ${owner}) includes \"${header}\", which "
                "layer ${layer} keeps to itself: the layers above it may use only "
                "${exports_text} (its EXPORTS in "
                "src/${TZ_FOLDER_${layer}}/CMakeLists.txt)")
    endif()
  endforeach()
endforeach()

# The public headers and their users outside src/.
file(GLOB_RECURSE public_files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/include/*.h)
foreach(folder IN LISTS public_api_only)
  file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
       ${SOURCE_DIR}/${folder}/*.h ${SOURCE_DIR}/${folder}/*.cc)
  list(APPEND public_files ${files})
endforeach()
list(SORT public_files)
foreach(file IN LISTS public_files)
  includes_of(${SOURCE_DIR}/${file} headers)
  foreach(header IN LISTS headers)
    layer_of_header("${header}" layer)
    if(layer STREQUAL "RELATIVE")
      violation("${file} includes \"${header}\" by a relative path, which hides "
                "what it reaches: name it from an include directory (\"turbozarr/...\")")
    elseif(layer)
      violation("${file} includes \"${header}\" of layer ${layer}, but it may use "
                "only the public headers turbozarr/... (installed without src/)")
    endif()
  endforeach()
endforeach()

list(LENGTH violations count)
if(count GREATER 0)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR
    "${count} include(s) against the layering (docs/architecture.md):\n  ${text}")
endif()
list(LENGTH sources source_count)
list(LENGTH public_files public_count)
message(STATUS "layering: ${source_count} files of src/ and ${public_count} users of "
               "the public API include only what they may")
