# Embedding text files into the binaries, so that kernel sources are part
# of them and never looked up on disk at run time.

# cls_embed(OUT_C SYMBOL FILE): at build time, turn FILE into a C source
# defining `const char SYMBOL[]` (NUL-terminated).
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

# cls_embed_kernels(TARGET FILE...): a static library TARGET holding each
# kernel file NAME.cl as `const char cls_kernel_NAME[]`, declared in the
# generated header <TARGET.h> that the library puts on its users' include
# path.  The names come from the file names alone, so two files of one
# name are refused.
function(cls_embed_kernels target)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/embed)
  set(sources "")
  set(decls "")
  set(seen "")
  foreach(f ${ARGN})
    get_filename_component(n ${f} NAME_WE)
    if(n IN_LIST seen)
      message(FATAL_ERROR "cls_embed_kernels: two kernel files named ${n}.cl")
    endif()
    list(APPEND seen ${n})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${f})
    cls_embed(${dir}/kernel_${n}.c cls_kernel_${n} ${f})
    list(APPEND sources ${dir}/kernel_${n}.c)
    string(APPEND decls "extern const char cls_kernel_${n}[]; /* ${rel} */\n")
  endforeach()
  string(TOUPPER ${target} guard)
  file(WRITE ${dir}/${target}.h.in
    "/* Generated: the kernel sources of ${target}, embedded at build time. */\n"
    "#ifndef ${guard}_H\n#define ${guard}_H\n${decls}#endif\n")
  configure_file(${dir}/${target}.h.in ${dir}/${target}.h COPYONLY)
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC ${dir})
endfunction()
