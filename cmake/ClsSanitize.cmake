# CLSTREAM_SANITIZE: build everything (library, tests, examples, bench) with
# compiler sanitizers.  A list: "address;undefined" (ASan + UBSan; LSan
# comes with ASan) or "thread" (TSan).  Empty (the default) builds without.
#
#   cmake -S . -B build-asan -DCLSTREAM_SANITIZE="address;undefined"
#   cmake -S . -B build-tsan -DCLSTREAM_SANITIZE=thread
#
# Tests run under ctest get the sanitizers' runtime options and the
# suppression files in tests/sanitizers/ through the environment: a file
# that ctest includes (the top-level directory's TEST_INCLUDE_FILES) sets
# ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS and TSAN_OPTIONS before any test
# starts, so that every test of the build (Check programs, examples,
# CUDA-name tests) runs with them.  Options already in the environment come
# last and win.  CLS_SANITIZE_TEST_ENVIRONMENT holds the same settings as a
# list of NAME=VALUE for an ENVIRONMENT test property, should a directory
# prefer that.
#
# Suppressions are only for findings whose frames are inside PoCL, LLVM or
# the ICD loader; each entry names its frame (tests/sanitizers/*.supp).

set(CLSTREAM_SANITIZE "" CACHE STRING
    "Sanitizers to build with: address;undefined, or thread (empty: none)")

set(CLS_SANITIZE_TEST_ENVIRONMENT "")
if(NOT CLSTREAM_SANITIZE)
  return()
endif()

set(_cls_san_known address undefined thread leak)
foreach(_s IN LISTS CLSTREAM_SANITIZE)
  if(NOT _s IN_LIST _cls_san_known)
    message(FATAL_ERROR "CLSTREAM_SANITIZE: unknown sanitizer '${_s}' "
                        "(use address;undefined, or thread)")
  endif()
endforeach()
if("thread" IN_LIST CLSTREAM_SANITIZE AND
   ("address" IN_LIST CLSTREAM_SANITIZE OR "leak" IN_LIST CLSTREAM_SANITIZE))
  message(FATAL_ERROR "CLSTREAM_SANITIZE: thread cannot be combined with "
                      "address or leak")
endif()

string(REPLACE ";" "," _cls_san_flag "${CLSTREAM_SANITIZE}")
add_compile_options(-fsanitize=${_cls_san_flag} -fno-omit-frame-pointer -g)
add_link_options(-fsanitize=${_cls_san_flag})
if("address" IN_LIST CLSTREAM_SANITIZE)
  # The ASan build also runs the library's debug assertions (assert, and
  # CLS__ASSERT_HELD / CLS__ASSERT_MUTEX_HELD wherever a comment says a
  # function runs under a lock: src/lock.h), which the default build type
  # compiles out with NDEBUG; -UNDEBUG comes after the build type's flags.
  # Not under TSan: the mutex check's trylock would add synchronization
  # that could hide a race.
  add_compile_options(-UNDEBUG)
endif()
if("undefined" IN_LIST CLSTREAM_SANITIZE)
  # A UBSan finding fails the test instead of printing and going on.
  add_compile_options(-fno-sanitize-recover=undefined)
endif()
message(STATUS "clstream: sanitizers ${_cls_san_flag}")

# ---- runtime options for the tests -----------------------------------------
set(_cls_supp ${CMAKE_CURRENT_SOURCE_DIR}/tests/sanitizers)
# Check forks each test; ASan and TSan work across that fork (the parent is
# single-threaded when it forks).  ASan:
# - use_sigaltstack=0: LLVM (inside PoCL's kernel compiler, frame
#   llvm::sys::... CreateSigAltStack in Signals.inc, reached from
#   clBuildProgram) installs a malloc'd alternate signal stack on the thread
#   that compiles; at that thread's exit ASan's UnsetAlternateSignalStack
#   tries to munmap it and dies with "failed to deallocate ... unable to
#   unmap".  Without ASan's own alternate stack nothing is unmapped.
# - allocator_may_return_null=1: the bad-input tests ask for SIZE_MAX bytes
#   and expect clsErrorMemoryAllocation, not an ASan abort.
# - verify_asan_link_order=0: tests that LD_PRELOAD the fault-injection
#   shim (tests/fault) put it ahead of the ASan runtime in the library
#   list; the shim is instrumented and defines no allocator, so the
#   runtime's interceptors still come before libc's.
# - fast_unwind_on_malloc=0, malloc_context_size=12: PoCL and LLVM have no
#   frame pointers, so the fast unwinder stops at their first frame; the
#   slow one reaches the PoCL frame that tests/sanitizers/lsan.supp names
#   (kernel compilation leaks, seen whenever PoCL's kernel cache misses).
# - intercept_tls_get_addr=0: with it, LSan's tracer sometimes dies with
#   "Tracer caught signal 11" reading a stale dynamic-TLS block (a DTV
#   entry of a library PoCL dlopens for kernels and LLVM), failing a test
#   at exit.  Our code's TLS is static and still scanned.  Most likely
#   the hook's guess of a block's bounds that breaks TSan (below, and
#   docs/testing.md), here handing the tracer a range that is not
#   memory.
set(_cls_asan "detect_leaks=1:use_sigaltstack=0:allocator_may_return_null=1:verify_asan_link_order=0:fast_unwind_on_malloc=0:malloc_context_size=12:intercept_tls_get_addr=0:detect_stack_use_after_return=1:strict_string_checks=1")
set(_cls_lsan "suppressions=${_cls_supp}/lsan.supp:print_suppressions=0")
set(_cls_ubsan "suppressions=${_cls_supp}/ubsan.supp:print_stacktrace=1:halt_on_error=1")
# TSan: allocator_may_return_null=1 as for ASan; exitcode 66 fails the test
# (Check's forked child) after all its reports are printed.
# atexit_sleep_ms=0: TSan sleeps 1 s in every exiting process by default
# (for threads still running to report); Check forks a process per test
# and the fault test runs ~850, which made the TSan suite run for hours.
# Our tests join or quiesce their threads before returning.
# intercept_tls_get_addr=0: on a thread's first use of a dlopened library's
# thread-locals (libpocl, libLLVM) glibc mallocs a dynamic-TLS block, and
# the runtime's hook guesses the block's bounds.  When the block's address
# is 16 bytes past a 4 KiB boundary (about 1 in 256 blocks; refs_stress
# makes some 18 per run) it takes the 16 bytes before it for a glibc 2.19
# header (size, start): bytes of the neighbouring heap block.  A heap
# pointer read as the size and a small number as the start pass its range
# check, and resetting the shadow of that range (4 bytes per byte) asks
# for ~0x1ef1... bytes: "ThreadSanitizer failed to allocate ... (errno:
# 12)" and exit 66 in the middle of a test, by chance.  glibc mallocs those
# blocks through the runtime's own malloc, which already resets their
# shadow, so the hook adds nothing here and turning it off hides no race.
# The test tsan_tls_guess (tests/sanitizers/tls_guess.c) fails if it is on.
set(_cls_tsan "suppressions=${_cls_supp}/tsan.supp:halt_on_error=0:exitcode=66:second_deadlock_stack=1:history_size=4:report_signal_unsafe=0:allocator_may_return_null=1:atexit_sleep_ms=0:intercept_tls_get_addr=0")

set(CLS_SANITIZE_TEST_ENVIRONMENT
    "ASAN_OPTIONS=${_cls_asan}"
    "LSAN_OPTIONS=${_cls_lsan}"
    "UBSAN_OPTIONS=${_cls_ubsan}"
    "TSAN_OPTIONS=${_cls_tsan}")

set(_cls_env_file ${CMAKE_CURRENT_BINARY_DIR}/ClsSanitizeEnv.cmake)
file(WRITE ${_cls_env_file}
"# Generated by cmake/ClsSanitize.cmake: sanitizer options for every test.
set(ENV{ASAN_OPTIONS} \"${_cls_asan}:\$ENV{ASAN_OPTIONS}\")
set(ENV{LSAN_OPTIONS} \"${_cls_lsan}:\$ENV{LSAN_OPTIONS}\")
set(ENV{UBSAN_OPTIONS} \"${_cls_ubsan}:\$ENV{UBSAN_OPTIONS}\")
set(ENV{TSAN_OPTIONS} \"${_cls_tsan}:\$ENV{TSAN_OPTIONS}\")
")
set_property(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} APPEND PROPERTY
             TEST_INCLUDE_FILES ${_cls_env_file})

# The "install" test (cmake/ClsInstall.cmake) builds a consumer without the
# sanitizers against the installed, instrumented library, statically too,
# which cannot link (undefined __asan_*/__tsan_* symbols): it checks the
# packaging, not the code, and the normal build runs it.  Disable it here,
# once the top-level directory has defined it.
function(_cls_sanitize_disable_install_test)
  if(TEST install)
    set_tests_properties(install PROPERTIES DISABLED TRUE)
  endif()
endfunction()
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  cmake_language(DEFER CALL _cls_sanitize_disable_install_test)
endif()

# TSan builds also check the options above: tests/sanitizers/tls_guess.c
# makes the runtime's dynamic-TLS guess certain and fails if it is on.
# Added once the top-level directory has enabled testing.
function(_cls_sanitize_add_checks)
  if(CLSTREAM_BUILD_TESTS AND "thread" IN_LIST CLSTREAM_SANITIZE)
    include(${PROJECT_SOURCE_DIR}/tests/sanitizers/checks.cmake)
  endif()
endfunction()
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  cmake_language(DEFER CALL _cls_sanitize_add_checks)
endif()
