# Checks of the sanitizer set-up itself, included by cmake/ClsSanitize.cmake
# at the end of the top-level directory in TSan builds: tsan_tls_guess
# fails (exit 66) if the TSan options the tests run with let the runtime
# guess a dynamic-TLS block's bounds (tls_guess.c, docs/testing.md).
add_library(cls_tls_block MODULE ${CMAKE_CURRENT_LIST_DIR}/tls_block.c)
add_executable(tls_guess ${CMAKE_CURRENT_LIST_DIR}/tls_guess.c)
target_compile_definitions(tls_guess PRIVATE
  TLS_BLOCK_LIBRARY="$<TARGET_FILE:cls_tls_block>")
target_link_libraries(tls_guess PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
add_dependencies(tls_guess cls_tls_block)
# Defined after the top-level directory gave its targets their warning
# flags, so given them here.
foreach(t cls_tls_block tls_guess)
  target_compile_options(${t} PRIVATE ${CLS_WARNING_FLAGS})
endforeach()
add_test(NAME tsan_tls_guess COMMAND tls_guess)
set_tests_properties(tsan_tls_guess PROPERTIES TIMEOUT 60 LABELS sanitizer
  SKIP_RETURN_CODE 77)
