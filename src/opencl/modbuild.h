/* OpenCL backend: building a module's programs (modbuild.c), below
 * module.c and function.c, which both call it. */
#ifndef CLSTREAM_OPENCL_MODBUILD_H
#define CLSTREAM_OPENCL_MODBUILD_H

#include "kernel_rw.h"
#include "ocl.h"

#include <pthread.h>

/* Builds `source` for d with `extra` (may be NULL) before the user's
 * options.  Returns the program (built or not) and the build's code. */
cl_program cls__ocl_build(cls__ocl_device *d, const char *source,
                          const char *extra, const char *options, cl_int *err);
/* The program's build log for d (malloc'd), or NULL when it cannot be
 * read.  With `keep_empty` an empty log is returned as "". */
char *cls__ocl_build_log(cl_program p, cl_device_id d, int keep_empty);

/* A module's offset variant on an SVM-memory device: the source and
 * options as loaded (before the rewrite), from which the variant's
 * program is built on first need (`prog`, with its rewrite's record `rw`;
 * `failed`: that build failed, with the reason in `why`). */
typedef struct cls__offvar {
  char *plain;
  char *plain_opts;
  cl_program prog;
  cls__rw rw;
  int failed;
  char why[240];
} cls__offvar;

/* The program of v (built once for d, under `lock`, the module's; the
 * caller holds a function's lock) in *prog, with its rewrite's record in
 * *rw, both v's.  On failure the driver's code (or CL_INVALID_VALUE where
 * the source cannot be rewritten) with `why`. */
cl_int cls__ocl_offvar_get(cls__ocl_device *d, cls__offvar *v,
                           pthread_mutex_t *lock, cl_program *prog,
                           const cls__rw **rw, char *why, size_t nwhy);
/* Lets go of everything v holds. */
void cls__ocl_offvar_free(cls__offvar *v);

#endif /* CLSTREAM_OPENCL_MODBUILD_H */
