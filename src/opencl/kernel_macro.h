/*
 * OpenCL backend: the kernel source preprocessor's macros (kernel_macro.c,
 * for kernel_pp.c): the macro table, and expansion as C's preprocessor
 * does it.  Internal to the device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_MACRO_H
#define CLSTREAM_OPENCL_KERNEL_MACRO_H

#include "kernel_tok.h"

/* The macro named `name`, or NULL. */
cls__macro *cls__find_macro(cls__pp *pp, cls__tok name);
/* Removes the macro named `name`, if any. */
void cls__undef(cls__pp *pp, cls__tok name);
/* Defines a macro from the tokens of its directive after the name: the
 * parameters (when `function_like`) and the replacement. */
void cls__define_toks(cls__pp *pp, cls__tok name, int function_like,
                      const cls__wt *t, size_t n);
/* Expands in[0, n) into out, macros rescanned until none is left. */
void cls__expand(cls__pp *pp, const cls__wt *in, size_t n, cls__wtv *out);

#endif /* CLSTREAM_OPENCL_KERNEL_MACRO_H */
