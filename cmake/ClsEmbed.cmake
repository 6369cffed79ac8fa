# cls_embed(OUT_C SYMBOL FILE): at build time, turn FILE into a C source
# defining `const char SYMBOL[]` (NUL-terminated) so that kernel sources are
# part of the binaries and never looked up on disk at run time.
set(CLS_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/ClsEmbedRun.cmake)
function(cls_embed out_c symbol file)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out_c} -DSYMBOL=${symbol}
            -P ${CLS_EMBED_SCRIPT}
    DEPENDS ${file} ${CLS_EMBED_SCRIPT}
    COMMENT "Embedding ${file}"
    VERBATIM)
endfunction()
