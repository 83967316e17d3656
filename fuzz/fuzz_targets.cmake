# The fuzz targets and their seeds, shared by the libFuzzer build
# (fuzz/CMakeLists.txt, clang only) and the corpus replay that `ctest` runs
# with any compiler (fuzz/replay/CMakeLists.txt), so that both build the
# same sources from the same seeds.
#
# Each target fuzz/<target>.cc defines LLVMFuzzerTestOneInput. Its seeds are
# the committed corpus fuzz/corpus/<target>/ and, for targets with a seed
# generator (TZ_FUZZ_SEEDER_<target>, fuzz/<seeder>.cc), the inputs that
# generator writes with the library at build time into
# ${TZ_FUZZ_SEED_DIR}/<target>/.
set(TZ_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(TZ_FUZZ_TARGETS metadata_fuzzer codec_fuzzer zip_fuzzer shard_index_fuzzer
                    http_response_fuzzer s3_xml_fuzzer vcz_text_fuzzer)
set(TZ_FUZZ_SEEDER_codec_fuzzer make_fuzz_seeds)
set(TZ_FUZZ_SEEDER_zip_fuzzer make_zip_seeds)
set(TZ_FUZZ_SEEDER_shard_index_fuzzer make_shard_seeds)
set(TZ_FUZZ_SEED_DIR ${PROJECT_BINARY_DIR}/fuzz/seeds)

# An executable of fuzz/ sources. The fuzz targets reach into src/ (they
# fuzz internal code, which the layering check allows for fuzz/). The
# caller's TZ_FUZZ_COMPILE_OPTIONS and TZ_FUZZ_LINK_OPTIONS are added: the
# libFuzzer build instruments everything, the replay adds nothing.
function(turbozarr_fuzz_executable name)
  add_executable(${name} ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${TZ_FUZZ_DIR})
  # libdeflate for the zip seed generator's archives (testing/zip_test_archive.h).
  target_link_libraries(${name} PRIVATE turbozarr PkgConfig::DEFLATE)
  target_compile_options(${name} PRIVATE ${TURBOZARR_WARNINGS} ${TZ_FUZZ_COMPILE_OPTIONS})
  target_link_options(${name} PRIVATE ${TZ_FUZZ_LINK_OPTIONS})
endfunction()

# The seed generators and the rules that run them: target <target>_seeds
# writes ${TZ_FUZZ_SEED_DIR}/<target>/ afresh whenever its generator changes.
function(turbozarr_fuzz_seeds)
  foreach(target IN LISTS TZ_FUZZ_TARGETS)
    set(seeder ${TZ_FUZZ_SEEDER_${target}})
    if(NOT seeder OR TARGET ${target}_seeds)
      continue()
    endif()
    turbozarr_fuzz_executable(${seeder} ${TZ_FUZZ_DIR}/${seeder}.cc)
    set(dir ${TZ_FUZZ_SEED_DIR}/${target})
    add_custom_command(
      OUTPUT ${TZ_FUZZ_SEED_DIR}/${target}.stamp
      COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
      COMMAND ${seeder} ${dir}
      COMMAND ${CMAKE_COMMAND} -E touch ${TZ_FUZZ_SEED_DIR}/${target}.stamp
      DEPENDS ${seeder}
      COMMENT "Writing the ${target} seeds")
    add_custom_target(${target}_seeds DEPENDS ${TZ_FUZZ_SEED_DIR}/${target}.stamp)
  endforeach()
endfunction()

# The directories of seeds of `target`, committed and generated, into `out`.
function(turbozarr_fuzz_seed_dirs target out)
  set(dirs ${TZ_FUZZ_DIR}/corpus/${target})
  if(TZ_FUZZ_SEEDER_${target})
    list(APPEND dirs ${TZ_FUZZ_SEED_DIR}/${target})
  endif()
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()
