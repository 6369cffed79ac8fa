# The Python package's CTest tests (docs/python.md): pytest on
# python/tests (label "python") and each example of examples/python
# (labels "example;python"), against this build's libclstream and the
# source tree's package (python/tests/ctest_run.sh).  Each is skipped
# (exit 77) where the interpreter lacks pytest or the examples' array
# library.  CLSTREAM_PYTHON picks the interpreter: Debian's /usr/bin/python3
# by default, where apt's python3-pyopencl, python3-numpy and
# python3-pytest are.
#
# Under ASan (CLSTREAM_SANITIZE with address) the interpreter, which is
# not built with ASan, gets the runtime preloaded (LD_PRELOAD) and no leak
# check (the interpreter keeps its memory at exit by design).  Not under
# TSan: an uninstrumented interpreter's own threads make TSan report races
# in CPython, not in clstream.

if("thread" IN_LIST CLSTREAM_SANITIZE)
  message(STATUS "Python tests: not under TSan")
  return()
endif()
if(EXISTS /usr/bin/python3)
  set(_cls_py_default /usr/bin/python3)
else()
  find_program(_cls_py_default NAMES python3)
endif()
set(CLSTREAM_PYTHON "${_cls_py_default}" CACHE FILEPATH
    "Python interpreter for the Python package's tests")
if(NOT CLSTREAM_PYTHON)
  message(STATUS "Python tests: no python3 found")
  return()
endif()

set(_cls_py_run ${CMAKE_CURRENT_SOURCE_DIR}/python/tests/ctest_run.sh
    ${CLSTREAM_PYTHON} $<TARGET_FILE:clstream> ${CMAKE_CURRENT_SOURCE_DIR})
set(_cls_py_env "")
if("address" IN_LIST CLSTREAM_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE _cls_asan OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_cls_py_env "LD_PRELOAD=${_cls_asan}")
endif()

# Appends the ASan options to those the sanitizer set-up gives every test
# (cmake/ClsSanitize.cmake), keeping its suppressions.
function(cls_python_test_env name)
  if("address" IN_LIST CLSTREAM_SANITIZE)
    set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT_MODIFICATION
                 "ASAN_OPTIONS=string_append::detect_leaks=0:verify_asan_link_order=0")
  endif()
endfunction()

if(CLSTREAM_BUILD_TESTS)
  add_test(NAME python_pytest COMMAND ${_cls_py_run} pytest)
  set_tests_properties(python_pytest PROPERTIES
    TIMEOUT 600 LABELS python SKIP_RETURN_CODE 77 ENVIRONMENT "${_cls_py_env}")
  cls_python_test_env(python_pytest)
endif()

if(CLSTREAM_BUILD_EXAMPLES)
  set(_cls_py_examples
    "event_synchronize|\\[ 2  4  6  8 10\\]\n$"
    "stream_add|\\[6 6 6 6 6\\]\n$"
    "event_query|False\nTrue\n\\[ 3  6  9 12 15\\]\n$"
    "timing|copy \\(events\\): +[0-9.]+ ms[^\n]*\ncompute \\(events\\): +[0-9.]+ ms[^\n]*\nboth \\(host clock\\): *[0-9.]+ ms\noverlap: +[0-9.]+ ms")
  foreach(row IN LISTS _cls_py_examples)
    string(FIND "${row}" "|" bar)
    string(SUBSTRING "${row}" 0 ${bar} name)
    math(EXPR rest "${bar} + 1")
    string(SUBSTRING "${row}" ${rest} -1 regex)
    add_test(NAME example_python_${name} COMMAND ${_cls_py_run} example ${name})
    # A skip (77) prints "skipped: ..." and must not fail on the regex.
    set_tests_properties(example_python_${name} PROPERTIES
      TIMEOUT 300 LABELS "example;python" SKIP_RETURN_CODE 77
      ENVIRONMENT "${_cls_py_env}" FAIL_REGULAR_EXPRESSION "Traceback"
      PASS_REGULAR_EXPRESSION "${regex}|^skipped: ")
    cls_python_test_env(example_python_${name})
  endforeach()
endif()
