/*
 * OpenCL backend: the source rewrite a module goes through before its
 * build (kernel_rw.c): the dialect forms that OpenCL C cannot spell as
 * macros (dynamic shared memory, module globals, pointer offsets on the
 * buffer path) and the helper kernels that measure what the library must
 * know from the device (struct sizes, global sizes).  Internal to the
 * device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_RW_H
#define CLSTREAM_OPENCL_KERNEL_RW_H

#include <stddef.h>

/* Names the rewrite gives hidden parameters and helper kernels; launches
 * and functions recognise them by these names. */
#define CLS__RW_DYN "cls__dyn_smem" /* __local ulong16 *: the dynamic array */
#define CLS__RW_OFF "cls__off"      /* ulong cls__off<i>: pointer i's offset */
#define CLS__RW_META "cls__meta"    /* writes the measured sizes */
#define CLS__RW_GINIT "cls__ginit"  /* sets the globals' initial values */
#define CLS__RW_GBASE "cls__gbase"  /* __global uchar *: the globals */

/* A by-value parameter of a type the library cannot size itself (a
 * struct, a union, a typedef): its size is measured on the device. */
typedef struct cls__rw_size {
  char *kernel;
  int index;
  size_t size; /* filled by the measurement */
} cls__rw_size;

/* A module global (CLS_DEVICE_GLOBAL, CLS_CONSTANT). */
typedef struct cls__rw_global {
  char *name;
  size_t size; /* measured */
  size_t off;  /* in the module's global storage */
} cls__rw_global;

/* A kernel the rewrite gave hidden parameters: they follow its `nuser`
 * own, and role[j] says what hidden parameter nuser + j is: a pointer
 * parameter's offset (that parameter's index), or one of the below. */
#define CLS__RW_ROLE_GBASE (-1)
#define CLS__RW_ROLE_DYN (-2)
typedef struct cls__rw_kernel {
  char *name;
  int nuser, nhidden;
  int *role;
} cls__rw_kernel;

typedef struct cls__rw {
  char *source; /* the source to build (malloc'd); NULL: the original */
  cls__rw_size *sizes;
  int nsizes;
  cls__rw_global *globals;
  int nglobals;
  cls__rw_kernel *kernels;
  int nkernels;
} cls__rw;

/* Rewrites `source` (built with `options`, on a compiler predefining
 * `predef`) into *out.  `offsets`: pass each pointer parameter as a
 * buffer and an offset (the buffer path).  Returns 0, or
 * -1 with `why` (out of host memory, or a form it cannot rewrite). */
int cls__rewrite(const char *source, const char *options,
                 const char *const *predef, int offsets, cls__rw *out,
                 char *why, size_t nwhy);

void cls__rw_free(cls__rw *rw);

#endif /* CLSTREAM_OPENCL_KERNEL_RW_H */
