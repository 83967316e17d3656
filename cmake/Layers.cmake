# The layers of src/ and the rules between them.
#
# Each layer is an object library declared by turbozarr_layer() in its own
# folder, with the layers it may use (DEPS). Layers are declared bottom to top
# (the add_subdirectory order in CMakeLists.txt), and DEPS may name only
# layers declared before, so the layers stay a stack. The declarations are
# the one table of the rules: turbozarr_add_layering_test() writes them out
# for the tz_layering_test check (cmake/CheckLayers.cmake), which fails when
# a file includes a header of a layer that its own layer does not declare.
#
# A sub-folder (src/codec/sharding/) belongs to the layer of its parent folder
# unless it declares a layer of its own: adding either takes no more than the
# turbozarr_layer() call (and, for a layer, its add_subdirectory line).
#
# A layer may also name its face (EXPORTS, paths from src/): then the layers
# above it may include those headers of it and no other, so that what a layer
# keeps to itself (a codec's internals) stays there.

# Records layer `name` of the current folder with the layers it may use.
# Only tests may use a test-only layer (src/testing).
function(_turbozarr_declare_layer name test_only deps exports)
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(dep IN LISTS deps)
    get_property(declared GLOBAL PROPERTY TURBOZARR_LAYER_FOLDER_${dep} SET)
    if(NOT declared)
      message(FATAL_ERROR
        "${name} (src/${folder}) declares DEPS ${dep}, which is not a layer declared "
        "before it: a layer may use only the layers below it (add_subdirectory order "
        "in CMakeLists.txt).")
    endif()
    get_property(dep_test_only GLOBAL PROPERTY TURBOZARR_LAYER_TEST_ONLY_${dep})
    if(dep_test_only AND NOT test_only)
      message(FATAL_ERROR "${name} declares DEPS ${dep}, which only tests may use.")
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY TURBOZARR_LAYER_FOLDER_${name} ${folder})
  set_property(GLOBAL PROPERTY TURBOZARR_LAYER_DEPS_${name} ${deps})
  set_property(GLOBAL PROPERTY TURBOZARR_LAYER_EXPORTS_${name} ${exports})
  set_property(GLOBAL PROPERTY TURBOZARR_LAYER_TEST_ONLY_${name} ${test_only})
  if(test_only)
    set_property(GLOBAL APPEND PROPERTY TURBOZARR_TEST_LAYERS ${name})
  else()
    set_property(GLOBAL APPEND PROPERTY TURBOZARR_LAYERS ${name})
  endif()
endfunction()

# Parses `DEPS ... [EXPORTS ...] SOURCES ...` (the arguments after the name)
# into L_DEPS, L_EXPORTS and L_SOURCES, and records the layer.
macro(_turbozarr_layer_arguments command name test_only)
  cmake_parse_arguments(L "" "" "DEPS;EXPORTS;SOURCES" ${ARGN})
  if(L_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${command}(${name}): unexpected '${L_UNPARSED_ARGUMENTS}' "
                        "(sources go after SOURCES)")
  endif()
  _turbozarr_declare_layer(${name} ${test_only} "${L_DEPS}" "${L_EXPORTS}")
endmacro()

# What every library of src/ has: the public headers and src/ on its include
# path, JSON and threads, the project's warnings.
function(_turbozarr_src_library name)
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                                            ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC nlohmann_json::nlohmann_json Threads::Threads)
  target_compile_options(${name} PRIVATE ${TURBOZARR_WARNINGS})
endfunction()

# A layer: an object library of the current folder's SOURCES, linked to the
# layers in DEPS:
#   turbozarr_layer(tz_codec DEPS tz_dtype tz_util SOURCES a.cc b.cc)
#   turbozarr_layer(tz_codec DEPS ... EXPORTS codec/face.h SOURCES ...)
# DEPS lists every layer the layer's files (tests too) include or call, not
# only the nearest: tz_layering_test checks the includes, and each layer's
# tests link only the layer and its DEPS, so a call into a layer not declared
# fails to link.
function(turbozarr_layer name)
  _turbozarr_layer_arguments(turbozarr_layer ${name} FALSE ${ARGN})
  set(sources ${L_SOURCES})
  if(NOT sources)  # a layer still being written
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}_empty.cc "")
    set(sources ${CMAKE_CURRENT_BINARY_DIR}/${name}_empty.cc)
  endif()
  add_library(${name} OBJECT ${sources})
  _turbozarr_src_library(${name})
  # Between object libraries this passes on usage requirements (include paths,
  # third-party libraries), not object files: turbozarr_test links those.
  target_link_libraries(${name} PUBLIC ${L_DEPS})
endfunction()

# A static library of test helpers (src/testing): never installed, usable by
# tests only, and allowed to include the layers in DEPS. It does not link
# those layers, because a static library would take in their object files; its
# consumers link them (the layer under test, or the whole library).
function(turbozarr_test_library name)
  _turbozarr_layer_arguments(turbozarr_test_library ${name} TRUE ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  _turbozarr_src_library(${name})
endfunction()

# `layer` and every layer below it that it reaches through DEPS, into `out`.
function(_turbozarr_layer_closure layer out)
  set(closure ${${out}})
  if(NOT layer IN_LIST closure)
    list(APPEND closure ${layer})
    get_property(deps GLOBAL PROPERTY TURBOZARR_LAYER_DEPS_${layer})
    foreach(dep IN LISTS deps)
      _turbozarr_layer_closure(${dep} closure)
    endforeach()
  endif()
  set(${out} ${closure} PARENT_SCOPE)
endfunction()

# A GoogleTest executable registered with ctest. A production layer in LIBS
# brings the layers below it that it declares (an executable links the object
# files only of the object libraries it names itself).
function(turbozarr_test name)
  if(NOT TURBOZARR_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 T "" "" "SOURCES;LIBS")
  set(libs)
  foreach(lib IN LISTS T_LIBS)
    get_property(is_layer GLOBAL PROPERTY TURBOZARR_LAYER_FOLDER_${lib} SET)
    get_property(test_only GLOBAL PROPERTY TURBOZARR_LAYER_TEST_ONLY_${lib})
    if(is_layer AND NOT test_only)
      _turbozarr_layer_closure(${lib} libs)
    else()
      list(APPEND libs ${lib})
    endif()
  endforeach()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${libs} GTest::gtest GTest::gtest_main)
  target_compile_options(${name} PRIVATE ${TURBOZARR_WARNINGS})
  add_test(NAME ${name} COMMAND ${name})
endfunction()

# Writes the declared layers for cmake/CheckLayers.cmake and registers the
# check with ctest. Called once every layer is declared.
function(turbozarr_add_layering_test)
  get_property(layers GLOBAL PROPERTY TURBOZARR_LAYERS)
  get_property(test_layers GLOBAL PROPERTY TURBOZARR_TEST_LAYERS)
  set(table "# Written by cmake/Layers.cmake from the turbozarr_layer() declarations.\n")
  string(APPEND table "set(TZ_LAYERS ${layers})\nset(TZ_TEST_LAYERS ${test_layers})\n")
  foreach(layer IN LISTS layers test_layers)
    get_property(folder GLOBAL PROPERTY TURBOZARR_LAYER_FOLDER_${layer})
    get_property(deps GLOBAL PROPERTY TURBOZARR_LAYER_DEPS_${layer})
    get_property(exports GLOBAL PROPERTY TURBOZARR_LAYER_EXPORTS_${layer})
    string(APPEND table "set(TZ_FOLDER_${layer} ${folder})\n"
                        "set(TZ_DEPS_${layer} ${deps})\n"
                        "set(TZ_EXPORTS_${layer} ${exports})\n")
  endforeach()
  set(table_file ${PROJECT_BINARY_DIR}/turbozarr_layers.cmake)
  file(CONFIGURE OUTPUT ${table_file} CONTENT "${table}" @ONLY)
  add_test(NAME tz_layering_test
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DTABLE=${table_file}
            -P ${PROJECT_SOURCE_DIR}/cmake/CheckLayers.cmake)
endfunction()
