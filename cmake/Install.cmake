# `cmake --install` puts the library, headers, CLI and a package config in
# place, so that C++ users can find_package(turbozarr).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS turbozarr EXPORT turbozarrTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/turbozarr DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT turbozarrTargets NAMESPACE turbozarr::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/turbozarr)
configure_package_config_file(cmake/turbozarrConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/turbozarrConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/turbozarr)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/turbozarrConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/turbozarrConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/turbozarrConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/turbozarr)
