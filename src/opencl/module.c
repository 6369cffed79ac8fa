/*
 * OpenCL backend: modules (cl_program): building one from source, and
 * letting one go once the device work pending at its unload is done.
 *
 * The types of a module's functions come from the driver
 * (clGetKernelArgInfo), for which a module is built with
 * -cl-kernel-arg-info.  Where that build fails and one without the option
 * succeeds (NVIDIA's driver 580 cannot build a program holding an empty or
 * dead kernel with it), the module keeps its source and the types are
 * read from there (function.c, kernel_sig.c), as they are where the
 * driver answers CL_KERNEL_ARG_INFO_NOT_AVAILABLE (so every module keeps
 * its source).  CLSTREAM_KERNEL_ARG_INFO=source forces that path, so that
 * CI runs it.
 *
 * Owns module.lock (the module's function list), taken also by
 * function.c to add a function.
 */
#include "function.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Modules ----------------------------------------------------------- */

static void cls__module_free(cls__bmodule *m);

/* Whether CLSTREAM_KERNEL_ARG_INFO=source asks for parameter types from
 * the source even where the driver would give them. */
static int cls__arg_info_from_source(void) {
  const char *v = cls__setting(CLS__SET_KERNEL_ARG_INFO);
  return v && strcmp(v, "source") == 0;
}

clsError_t cls__b_module_load(int dev, const char *source, const char *options,
                              cls__bmodule **out, char **log) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  *out = NULL;
  *log = NULL;

  /* The dialect forms OpenCL C cannot spell as macros (kernel_rw.c). */
  cls__rw rw;
  char why[200];
  if (cls__rewrite(source, options, d->predef, d->facts.buffers, &rw, why,
                   sizeof why) != 0) {
    *log = strdup(why);
    return cls__reason(
        strstr(why, "out of host memory") ? clsErrorMemoryAllocation
                                          : clsErrorInvalidSource,
        "the kernel source cannot be prepared for %s: %s", d->name, why);
  }
  const char *plain_src = source;
  if (rw.source) source = rw.source;

  int from_source = cls__arg_info_from_source();
  cl_int err;
  cl_program p = cls__ocl_build(
      d, source, from_source ? NULL : "-cl-kernel-arg-info", options, &err);
  if (err == CL_BUILD_PROGRAM_FAILURE && !from_source) {
    /* Perhaps only the argument info breaks the build (NVIDIA, with an
     * empty kernel); a program that fails without it too is reported
     * with the log of that build. */
    cl_int err2;
    cl_program p2 = cls__ocl_build(d, source, NULL, options, &err2);
    if (err2 == CL_SUCCESS || err2 == CL_BUILD_PROGRAM_FAILURE) {
      if (p) clReleaseProgram(p);
      p = p2;
      err = err2;
      from_source = err2 == CL_SUCCESS;
    } else if (p2) {
      clReleaseProgram(p2);
    }
  }
  if (err != CL_SUCCESS && !p) {
    cls__rw_free(&rw);
    return cls__ocl_error(err, "clCreateProgramWithSource");
  }
  *log = cls__ocl_build_log(p, d->id, err != CL_SUCCESS);
  if (err != CL_SUCCESS) {
    clsError_t code = cls__ocl_code(err);
    if (code == clsErrorInvalidSource)
      cls__reason(code,
                  "the kernel source failed to compile for %s "
                  "(clBuildProgram: %d); see clsGetLastBuildLog()",
                  d->name, (int)err);
    else if (code == clsErrorInvalidValue)
      cls__reason(code,
                  "invalid compiler options \"%s\" (clBuildProgram: %d); "
                  "see clsGetLastBuildLog()",
                  options ? options : "", (int)err);
    else
      cls__ocl_error(err, "clBuildProgram");
    clReleaseProgram(p);
    cls__rw_free(&rw);
    return code;
  }

  cls__bmodule *m = calloc(1, sizeof *m);
  if (m) {
    m->arg_info = !from_source;
    m->source = strdup(source);
    m->options = strdup(options ? options : "");
  }
  /* On SVM memory, what the offset variant is built from. */
  const int plain = !d->facts.buffers;
  if (m && plain) {
    m->off.plain = strdup(plain_src);
    m->off.plain_opts = strdup(options ? options : "");
  }
  if (!m || !m->source || !m->options ||
      (plain && (!m->off.plain || !m->off.plain_opts))) {
    if (m) {
      free(m->source);
      free(m->options);
      free(m->off.plain);
      free(m->off.plain_opts);
    }
    free(m);
    clReleaseProgram(p);
    cls__rw_free(&rw);
    return cls__reason(clsErrorMemoryAllocation,
                       "out of host memory for a module");
  }
  m->dev = d;
  m->prog = p;
  free(rw.source);
  rw.source = NULL;
  m->rw = rw;
  pthread_mutex_init(&m->lock, NULL);
  clsError_t merr = cls__ocl_module_meta(m);
  if (merr != clsSuccess) {
    cls__module_free(m);
    return merr;
  }
  *out = m;
  return clsSuccess;
}

/* ---- Module lifetime --------------------------------------------------- */

/* Commands already enqueued hold their own references to the kernels and
 * the program, so OpenCL lets a module go while its launches are pending.
 * NVIDIA's driver (580, on the H200) does not keep that promise: where
 * threads release programs whose launches are pending in a queue they
 * share, a thread of the driver's later frees memory twice or reads freed
 * memory (docs/drivers.md, "A driver bug behind test_stress").  So a
 * module keeps its program and kernels until the device work that was
 * pending when it was unloaded is done: its unload gathers that work as
 * clsDeviceSynchronize does (without waiting) and watches each event
 * gathered; the last watch's job releases them, and with nothing pending
 * the unload releases them itself.  Whether the module's functions were
 * launched at all is not tracked: that would cost a store on every
 * launch, only to release a module never launched sooner while unrelated
 * work is pending.  Unloads are rare and cost a compile to undo, so the
 * gather's barriers (one per stream with unnamed commands) cost nothing
 * that matters.  The unload
 * waits for that work instead where no library thread may call the
 * driver (facts.host_inline: Oclgrind's runtime is not thread-safe, and
 * there the work is nearly always done, run by its flush), where the
 * gather set work aside, or where the watches cannot be allocated. */

static void cls__module_free(cls__bmodule *m) {
  cls__bfunction *f = m->fns;
  while (f) {
    cls__bfunction *next = f->next;
    cls__ocl_function_free(f);
    f = next;
  }
  clReleaseProgram(m->prog);
  pthread_mutex_destroy(&m->lock);
  if (m->gstore) (void)cls__b_free(m->dev->index, m->gstore);
  cls__rw_free(&m->rw);
  cls__ocl_offvar_free(&m->off);
  free(m->source);
  free(m->options);
  free(m);
}

/* An object waiting for the work pending when it was let go (a module at
 * its unload, an executable graph's kernels at its destruction). */
typedef struct cls__retired {
  atomic_uint left; /* watches whose job has not run */
  void (*free_fn)(void *);
  void *obj;
} cls__retired;

typedef struct cls__retire_watch {
  cls__ocl_watch watch; /* first: cls__ocl_watch_done frees the struct */
  cls__retired *r;
} cls__retire_watch;

/* A watched event ended (completed or failed: either way the work before
 * it is over); the last one frees the object. */
static void cls__retire_run(cls__ocl_job *j) {
  cls__retired *r = ((cls__retire_watch *)j)->r;
  cls__ocl_watch_done((cls__ocl_watch *)j);
  if (atomic_fetch_sub(&r->left, 1) == 1) {
    r->free_fn(r->obj);
    free(r);
  }
}

/* Watches every event of b for the object; 0, with nothing watched, when
 * out of host memory. */
static int cls__retire_watch_all(void (*free_fn)(void *), void *obj,
                                 cls__ocl_batch *b) {
  cls__retired *r = malloc(sizeof *r);
  cls__retire_watch **w = calloc(b->n, sizeof *w);
  int ok = r && w;
  for (cl_uint i = 0; ok && i < b->n; ++i)
    ok = (w[i] = calloc(1, sizeof **w)) != NULL;
  if (!ok) {
    for (cl_uint i = 0; w && i < b->n; ++i) free(w[i]);
    free(w);
    free(r);
    return 0;
  }
  r->free_fn = free_fn;
  r->obj = obj;
  atomic_init(&r->left, b->n);
  for (cl_uint i = 0; i < b->n; ++i) {
    w[i]->r = r;
    w[i]->watch.job.run = cls__retire_run;
    cls__ocl_watch_event(&w[i]->watch, b->list[i]);
  }
  free(w);
  return 1;
}

void cls__ocl_free_after_pending(cls__ocl_device *d, void (*free_fn)(void *),
                                 void *obj) {
  cls__ocl_batch b;
  cls__ocl_batch_init(&b);
  cls__ocl_gather_device(d, &b);
  if (b.n && !d->facts.host_inline && !cls__ocl_batch_stalled(&b) &&
      cls__retire_watch_all(free_fn, obj, &b)) {
    cls__ocl_batch_release(&b); /* the watches hold the events */
    return;
  }
  (void)cls__ocl_batch_wait(&b); /* a failure: the work is over too */
  free_fn(obj);
}

static void cls__module_free_any(void *m) { cls__module_free(m); }

void cls__b_module_unload(cls__bmodule *m) {
  if (!m) return;
  /* The front has retired m's functions: no launch of them can follow. */
  cls__ocl_free_after_pending(m->dev, cls__module_free_any, m);
}
