/*
 * OpenCL backend: kernel parameter lists read from the preprocessed
 * source (kernel_sig.c), the pieces kernel_rw.c's rewrite reads with.
 * Internal to the device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_SIG_H
#define CLSTREAM_OPENCL_KERNEL_SIG_H

#include "kernel_tok.h"

struct cls__kernel_param;
/* Skips __attribute__((...)) at pp->toks[i]; returns the index after it. */
size_t cls__skip_attr(const cls__pp *pp, size_t i);
/* Reads one parameter from pp->toks[a, b) into *out; -1 with `why`. */
int cls__param(const cls__pp *pp, size_t a, size_t b,
               struct cls__kernel_param *out, char *why, size_t nwhy);

#endif /* CLSTREAM_OPENCL_KERNEL_SIG_H */
