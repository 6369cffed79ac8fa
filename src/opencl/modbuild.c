/*
 * OpenCL backend: building a module's programs (below module.c and
 * function.c, which both call it): a source built for one device with
 * the options clstream adds, its build log, and the program of a module's
 * offset variant, made on first need for a launch (function.c).
 */
#include "modbuild.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The program's build log for d (malloc'd), or NULL when it cannot be
 * read.  With `keep_empty` an empty log is returned as "". */
char *cls__ocl_build_log(cl_program p, cl_device_id d, int keep_empty) {
  size_t n = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) !=
      CL_SUCCESS)
    return keep_empty ? strdup("") : NULL;
  char *log = malloc(n + 1);
  if (!log) return NULL;
  if (n && clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log, NULL) !=
               CL_SUCCESS)
    n = 0;
  log[n] = '\0';
  n = strlen(log); /* the size the driver reports counts the NUL */
  /* Drop trailing white space; a log of nothing but that is no log. */
  while (n && isspace((unsigned char)log[n - 1])) log[--n] = '\0';
  if (!n && !keep_empty) {
    free(log);
    return NULL;
  }
  return log;
}

/* Builds `source` for d with `extra` (may be NULL) before the user's
 * options.  Returns the program (built or not) and the build's code. */
cl_program cls__ocl_build(cls__ocl_device *d, const char *source,
                          const char *extra, const char *options, cl_int *err) {
  /* The kernel clock's -D where the device's probe asked for it
   * (facts.c: the compiler takes inline PTX), and the constant warp size
   * where the driver miscompiles loops bounded by the sub-group size
   * (facts.c, warp_const). */
  const char *clock = d->facts.clock_ptx && d->facts.warp_const
                          ? "-DCLS__CLOCK_PTX=1 -DCLS__WARP_CONST=1 "
                      : d->facts.clock_ptx  ? "-DCLS__CLOCK_PTX=1 "
                      : d->facts.warp_const ? "-DCLS__WARP_CONST=1 "
                                            : "";
  size_t clen = strlen(clock);
  size_t elen = extra ? strlen(extra) : 0;
  size_t olen = options ? strlen(options) : 0;
  char *opts = malloc(clen + elen + 1 + olen + 1);
  if (!opts) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  memcpy(opts, clock, clen);
  memcpy(opts + clen, extra ? extra : "", elen);
  elen += clen;
  opts[elen] = ' ';
  memcpy(opts + elen + 1, options ? options : "", olen);
  opts[elen + 1 + olen] = '\0';
  cl_program p = clCreateProgramWithSource(d->ctx, 1, &source, NULL, err);
  if (p && *err == CL_SUCCESS)
    *err = clBuildProgram(p, 1, &d->id, opts, NULL, NULL);
  else if (*err == CL_SUCCESS)
    *err = CL_OUT_OF_HOST_MEMORY;
  free(opts);
  return p;
}

/* ---- The offset variant ------------------------------------------------ */

/* Builds v's source as the buffer path would (every pointer parameter
 * with an offset argument) into v->prog.  The variant shares the module's
 * globals (its kernels take the module's store), so neither of the
 * rewrite's helper kernels is run again. */
static cl_int cls__offvar_build(cls__ocl_device *d, cls__offvar *v, char *why,
                                size_t nwhy) {
  cls__rw rw;
  if (cls__rewrite(v->plain, v->plain_opts, d->predef, 1, &rw, why, nwhy) != 0)
    return strstr(why, "out of host memory") ? CL_OUT_OF_HOST_MEMORY
                                             : CL_INVALID_VALUE;
  cl_int err;
  cl_program p = cls__ocl_build(d, rw.source ? rw.source : v->plain, NULL,
                                v->plain_opts, &err);
  if (err != CL_SUCCESS) {
    if (err == CL_BUILD_PROGRAM_FAILURE) {
      char *log = p ? cls__ocl_build_log(p, d->id, 0) : NULL;
      snprintf(why, nwhy, "the rewritten source failed to build: %s",
               log ? log : "(no log)");
      free(log);
    } else {
      snprintf(why, nwhy, "clBuildProgram failed (%d)", (int)err);
    }
    if (p) clReleaseProgram(p);
    cls__rw_free(&rw);
    return err;
  }
  free(rw.source);
  rw.source = NULL;
  v->rw = rw;
  v->prog = p;
  return CL_SUCCESS;
}

cl_int cls__ocl_offvar_get(cls__ocl_device *d, cls__offvar *v,
                           pthread_mutex_t *lock, cl_program *prog,
                           const cls__rw **rw, char *why, size_t nwhy) {
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(lock);
  if (!v->plain) {
    snprintf(why, nwhy, "the module keeps no source to rewrite");
    err = CL_INVALID_VALUE;
  } else if (v->failed) {
    snprintf(why, nwhy, "%s", v->why);
    err = CL_INVALID_VALUE;
  } else if (!v->prog) {
    /* A compile, not a device wait, under the locks of the launch that
     * first needs it (stream.lock, function.lock). */
    err = cls__offvar_build(d, v, why, nwhy);
    if (err == CL_INVALID_VALUE || err == CL_BUILD_PROGRAM_FAILURE) {
      v->failed = 1; /* a fact of the source: not tried again */
      snprintf(v->why, sizeof v->why, "%s", why);
    }
  }
  *prog = v->prog;
  *rw = &v->rw;
  pthread_mutex_unlock(lock);
  return err;
}

void cls__ocl_offvar_free(cls__offvar *v) {
  if (v->prog) clReleaseProgram(v->prog);
  cls__rw_free(&v->rw);
  free(v->plain);
  free(v->plain_opts);
}
