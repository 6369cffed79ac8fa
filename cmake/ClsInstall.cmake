# Install and export: included at the end of the top-level CMakeLists.txt,
# after the clstream target exists.
#
# `cmake --install` puts in place:
#   include/clstream.h, include/clstream_cuda.h, include/clstream_opencl.h,
#   include/clstream_cuda_interop.h
#   lib/libclstream.so.X.Y.Z (+ SONAME and development symlinks)
#   lib/libclstream.a                       (target clstream_static)
#   lib/cmake/clstream/                     (find_package(clstream CONFIG))
#   lib/pkgconfig/clstream.pc               (pkg-config)
#   bin/clstream-info                       (tools/, added separately)
# ("lib" is CMAKE_INSTALL_LIBDIR: lib/<multiarch> under /usr on Debian.)
#
# Both the CMake package and clstream.pc are relocatable: they find the
# prefix from their own location, so `cmake --install build --prefix DIR`
# into any DIR gives a usable tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# ---- the static library ----------------------------------------------------
# The same sources as the shared library, compiled a second time so that each
# library gets the flags it needs.  Position-independent so that users may
# link it into their own shared libraries; hidden visibility keeps the
# library's private cls__ symbols out of such a library's dynamic symbol
# table.  It depends on clstream so that the custom command producing
# embed/prelude.c runs once, in that target, rather than racing itself in a
# parallel build.
add_library(clstream_static STATIC ${CLS_FRONT_SOURCES} ${CLS_BACKEND_SOURCES}
            ${CMAKE_CURRENT_BINARY_DIR}/embed/prelude.c)
add_dependencies(clstream_static clstream)
target_include_directories(clstream_static
  PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_compile_definitions(clstream_static PRIVATE ${CLS_BACKEND_DEFS})
# PRIVATE: a static library's private link dependencies still reach whoever
# links it (as $<LINK_ONLY:...>), which is what the export below carries.
target_link_libraries(clstream_static PRIVATE ${CLS_BACKEND_LIBS}
                      Threads::Threads)
set_target_properties(clstream_static PROPERTIES
  OUTPUT_NAME clstream
  POSITION_INDEPENDENT_CODE ON
  EXPORT_NAME clstream_static)
add_library(clstream::clstream_static ALIAS clstream_static)

# ---- headers and libraries -------------------------------------------------
set(CLS_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/clstream)
set(CLS_PUBLIC_HEADERS ${CMAKE_CURRENT_SOURCE_DIR}/include/clstream.h)
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include/clstream_cuda.h)
  list(APPEND CLS_PUBLIC_HEADERS ${CMAKE_CURRENT_SOURCE_DIR}/include/clstream_cuda.h)
  list(APPEND CLS_PUBLIC_HEADERS
       ${CMAKE_CURRENT_SOURCE_DIR}/include/clstream_cuda_query.h
       ${CMAKE_CURRENT_SOURCE_DIR}/include/clstream_cuda_graph.h)
endif()
# Native handles (docs/interop.md): both headers in both builds, as every
# function exists in both.
list(APPEND CLS_PUBLIC_HEADERS
     ${CMAKE_CURRENT_SOURCE_DIR}/include/clstream_opencl.h
     ${CMAKE_CURRENT_SOURCE_DIR}/include/clstream_cuda_interop.h)
install(FILES ${CLS_PUBLIC_HEADERS}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT Development)

install(TARGETS clstream EXPORT clstreamTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT Runtime NAMELINK_COMPONENT Development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS clstream_static EXPORT clstreamStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# ---- the CMake package -----------------------------------------------------
install(EXPORT clstreamTargets NAMESPACE clstream::
        DESTINATION ${CLS_INSTALL_CMAKEDIR} COMPONENT Development)
install(EXPORT clstreamStaticTargets NAMESPACE clstream::
        DESTINATION ${CLS_INSTALL_CMAKEDIR} COMPONENT Development)
configure_package_config_file(
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/clstreamConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/clstreamConfig.cmake
  INSTALL_DESTINATION ${CLS_INSTALL_CMAKEDIR})
# The SONAME carries the major version, so a package of the same major
# version is a drop-in replacement.
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/clstreamConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clstreamConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/clstreamConfigVersion.cmake
        DESTINATION ${CLS_INSTALL_CMAKEDIR} COMPONENT Development)

# ---- pkg-config ------------------------------------------------------------
# Libs.private lists what a static link needs beyond libclstream.a: the
# backend's libraries, found where CMake found them.
set(CLS_PC_LIBS_PRIVATE "")
set(CLS_PC_LDIRS "")
foreach(t ${CLS_BACKEND_LIBS})
  set(loc "")
  if(TARGET ${t})
    get_target_property(loc ${t} IMPORTED_LOCATION)
    if(NOT loc)
      string(TOUPPER "${CMAKE_BUILD_TYPE}" cfg)
      get_target_property(loc ${t} IMPORTED_LOCATION_${cfg})
    endif()
  endif()
  if(NOT loc AND t MATCHES "^CUDA::(.*)$" AND CUDA_${CMAKE_MATCH_1}_LIBRARY)
    set(loc "${CUDA_${CMAKE_MATCH_1}_LIBRARY}")
  endif()
  if(NOT loc)
    # An imported target without a file: link it by name.
    set(lname "")
    if(TARGET ${t})
      get_target_property(lname ${t} IMPORTED_LIBNAME)
    endif()
    if(lname)
      string(APPEND CLS_PC_LIBS_PRIVATE "-l${lname} ")
    else()
      message(WARNING "clstream.pc: no library file for ${t}; Libs.private may be incomplete")
    endif()
    continue()
  endif()
  get_filename_component(dir ${loc} DIRECTORY)
  get_filename_component(file ${loc} NAME)
  string(REGEX REPLACE "^lib" "" lname "${file}")
  string(REGEX REPLACE "\\.(so|a|dylib)(\\..*)?$" "" lname "${lname}")
  if(dir AND NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES
     AND NOT dir IN_LIST CLS_PC_LDIRS)
    list(APPEND CLS_PC_LDIRS ${dir})
    string(APPEND CLS_PC_LIBS_PRIVATE "-L${dir} ")
  endif()
  string(APPEND CLS_PC_LIBS_PRIVATE "-l${lname} ")
endforeach()
string(APPEND CLS_PC_LIBS_PRIVATE "-pthread")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CLS_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  set(CLS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  # ${pcfiledir} is LIBDIR/pkgconfig; climb back to the prefix.
  file(RELATIVE_PATH CLS_PC_UP "/clsroot/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/clsroot")
  string(REGEX REPLACE "/$" "" CLS_PC_UP "${CLS_PC_UP}")
  set(CLS_PC_PREFIX "\${pcfiledir}/${CLS_PC_UP}")
  set(CLS_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(CLS_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(CLS_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/clstream.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/clstream.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clstream.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT Development)

# ---- the install test (label "install") ------------------------------------
# Installs this build tree into <build>/install-test/prefix, then builds and
# runs tests/install/ against it with find_package (shared and static) and
# with pkg-config (shared and static).
# The consumer finds the backend's libraries as this build did.
if(CLSTREAM_BUILD_TESTS)
  set(CLS_CONSUMER_ARGS "")
  if(CMAKE_PREFIX_PATH)
    string(REPLACE ";" "|" pp "${CMAKE_PREFIX_PATH}")
    list(APPEND CLS_CONSUMER_ARGS "--prefix-path=${pp}")
  endif()
  foreach(v OpenCL_INCLUDE_DIR OpenCL_LIBRARY CUDAToolkit_ROOT)
    if(${v})
      list(APPEND CLS_CONSUMER_ARGS "-D${v}=${${v}}")
    endif()
  endforeach()
  find_program(CLS_BASH bash)
  if(NOT CLS_BASH)
    set(CLS_BASH bash)
  endif()
  add_test(NAME install
    COMMAND ${CLS_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/tests/install/run.sh
            ${CMAKE_CURRENT_BINARY_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/tests/install
            ${CMAKE_CURRENT_BINARY_DIR}/install-test
            ${CMAKE_COMMAND} ${CMAKE_C_COMPILER} "${CMAKE_GENERATOR}" $<CONFIG>
            ${CLS_CONSUMER_ARGS})
  set_tests_properties(install PROPERTIES TIMEOUT 600 LABELS install)
endif()
