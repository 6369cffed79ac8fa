/*
 * OpenCL backend: the preprocessor of kernel sources, for kernel_sig.c and
 * kernel_rw.c (kernel_pp.c reads directives and #if expressions; the
 * tokens, state and lexer are kernel_tok.h's, macro expansion
 * kernel_macro.c's).  Internal to the device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_PP_H
#define CLSTREAM_OPENCL_KERNEL_PP_H

#include "kernel_tok.h"

/* Defines the macro "NAME" or "NAME=VALUE" given as s[0..n). */
void cls__define_option(cls__pp *pp, const char *s, size_t n);
/* Applies build options o's -D and -U (NULL: none). */
void cls__options(cls__pp *pp, const char *o);
/* Preprocesses src into pp->toks: the active code, macros expanded
 * (pp->oom when out of host memory). */
void cls__preprocess(cls__pp *pp, const char *src);

#endif /* CLSTREAM_OPENCL_KERNEL_PP_H */
