/*
 * OpenCL backend: modules (cl_program), functions (cl_kernel) and
 * launches (clEnqueueNDRangeKernel).
 *
 * A function reads its kernel's parameter types once, when it is created,
 * and turns each parameter into a precomputed way of setting it: an SVM
 * pointer (__global and __constant pointers), a value of a known size
 * (scalars and vectors), or "unsupported" (a __local pointer, an image, a
 * sampler, a struct or a type it cannot size), which makes every launch of
 * the function fail with a message naming the parameter.  The launch path
 * then allocates nothing and makes only the clSetKernelArg* calls and the
 * enqueue.
 *
 * The types come from the driver (clGetKernelArgInfo), for which a module
 * is built with -cl-kernel-arg-info.  Where that build fails and one
 * without the option succeeds (NVIDIA's driver 580 cannot build a program
 * holding an empty or dead kernel with it), the module keeps its source
 * and the types are read from there (kernel_sig.c).
 * CLSTREAM_KERNEL_ARG_INFO=source forces that path, so that CI runs it.
 *
 * Launches leave the block size to the driver: CL_KERNEL_WORK_GROUP_SIZE
 * is a hint some drivers set far below what they run (NVIDIA reports 256
 * and runs 1024, rusticl reports 32 and runs 64), so the launch goes to
 * the driver and its refusal (CL_INVALID_WORK_GROUP_SIZE,
 * CL_OUT_OF_RESOURCES) becomes CUDA's clsErrorLaunchOutOfResources.
 *
 * A cl_kernel's arguments are shared state, so each function has a lock
 * held from the first clSetKernelArg to the enqueue.  Lock order (ocl.h):
 * stream.lock (taken by cls__ocl_begin) -> function.lock.
 */
#include "ocl.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cls__arg_kind {
  CLS__ARG_POINTER = 1, /* cls__ocl_set_pointer_arg(*(void **)args[i]) */
  CLS__ARG_VALUE = 2,   /* clSetKernelArg(size, args[i]) */
  CLS__ARG_VEC3 = 3,    /* a 3-element vector: see below */
  CLS__ARG_UNSUPPORTED = 4
};

/* An OpenCL 3-element vector occupies 4 elements, but the host value the
 * caller points to may hold only 3 (a CUDA-style int3 is 12 bytes), so a
 * launch copies the 3 elements into a zeroed 4-element buffer rather than
 * read past the caller's object. */
#define CLS__VEC3_MAX 32 /* double3, long3 and ulong3 */

/* What the kernel object holds for an argument since the last launch
 * set it (under the function's lock): a launch that passes the same value
 * again makes no clSetKernelArg call, since a cl_kernel keeps its
 * arguments between enqueues.  A pointer is trusted only while the
 * allocation table's generation is unchanged (no free since it was
 * checked), and only when it went to the driver as an SVM pointer or as
 * NULL: a buffer or sub-buffer argument is a cl_mem that a free or the
 * sub-buffer cache may release.  Values of 1, 2, 4, 8 or 16 bytes (every
 * scalar and vector of up to CLS__ARG_KEEP bytes), kept zero-padded in
 * `last` so that a compare is two integer compares. */
#define CLS__ARG_KEEP 16
typedef struct cls__argcache {
  int held; /* `last` is what the kernel object holds */
  int svm;  /* the last pointer set went as an SVM pointer (see below) */
  size_t gen;
  uint64_t last[2]; /* the value, or the pointer in last[0] */
} cls__argcache;

/* How a launch sets an argument, decided when the function is created:
 * the kind, and for a value the cache may skip (with the function's
 * keep_args) its size, so that the launch path makes one dispatch. */
enum cls__arg_op {
  CLS__OP_POINTER,
  CLS__OP_KEEP1,
  CLS__OP_KEEP2,
  CLS__OP_KEEP4,
  CLS__OP_KEEP8,
  CLS__OP_KEEP16,
  CLS__OP_VALUE, /* a value the cache does not keep */
  CLS__OP_VEC3
};

typedef struct cls__oarg {
  size_t size; /* bytes passed to clSetKernelArg */
  size_t copy; /* bytes read from args[i], for CLS__ARG_VEC3 */
  int kind;
  int op; /* enum cls__arg_op (for a supported kind) */
  cls__argcache held;
} cls__oarg;

struct cls__bfunction {
  cl_kernel k;
  cls__lock lock; /* held while the kernel's arguments are set */
  cl_uint nargs;
  int bad;        /* index of the first unsupported parameter, or -1 */
  char *bad_msg;  /* why it is unsupported (when bad >= 0) */
  size_t hint_wg; /* CL_KERNEL_WORK_GROUP_SIZE (for messages only) */
  int keep_args;  /* skip arguments the kernel holds (CLSTREAM_ARG_CACHE=0:
                     never, to rule the cache out when a driver misbehaves) */
  char *name;
  struct cls__bfunction *next; /* the module's list */
  cls__oarg args[];
};

struct cls__bmodule {
  cls__ocl_device *dev;
  cl_program prog;
  pthread_mutex_t lock; /* guards fns */
  struct cls__bfunction *fns;
  /* Built without -cl-kernel-arg-info: the source and options, from which
   * parameter types are read (NULL when the driver gives them). */
  char *source;
  char *options;
};

/* ---- Modules ----------------------------------------------------------- */

/* The program's build log for d (malloc'd), or NULL when it cannot be
 * read.  With `keep_empty` an empty log is returned as "". */
static char *cls__build_log(cl_program p, cl_device_id d, int keep_empty) {
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

/* Whether CLSTREAM_KERNEL_ARG_INFO=source asks for parameter types from
 * the source even where the driver would give them. */
static int cls__arg_info_from_source(void) {
  const char *v = getenv("CLSTREAM_KERNEL_ARG_INFO");
  return v && strcmp(v, "source") == 0;
}

/* Builds `source` for d with `extra` (may be NULL) before the user's
 * options.  Returns the program (built or not) and the build's code. */
static cl_program cls__build(cls__ocl_device *d, const char *source,
                             const char *extra, const char *options,
                             cl_int *err) {
  size_t elen = extra ? strlen(extra) : 0;
  size_t olen = options ? strlen(options) : 0;
  char *opts = malloc(elen + 1 + olen + 1);
  if (!opts) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  memcpy(opts, extra ? extra : "", elen);
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

clsError_t cls__b_module_load(int dev, const char *source, const char *options,
                              cls__bmodule **out, char **log) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  *out = NULL;
  *log = NULL;

  int from_source = cls__arg_info_from_source();
  cl_int err;
  cl_program p = cls__build(
      d, source, from_source ? NULL : "-cl-kernel-arg-info", options, &err);
  if (err == CL_BUILD_PROGRAM_FAILURE && !from_source) {
    /* Perhaps only the argument info breaks the build (NVIDIA, with an
     * empty kernel); a program that fails without it too is reported
     * with the log of that build. */
    cl_int err2;
    cl_program p2 = cls__build(d, source, NULL, options, &err2);
    if (err2 == CL_SUCCESS || err2 == CL_BUILD_PROGRAM_FAILURE) {
      if (p) clReleaseProgram(p);
      p = p2;
      err = err2;
      from_source = err2 == CL_SUCCESS;
    } else if (p2) {
      clReleaseProgram(p2);
    }
  }
  if (err != CL_SUCCESS && !p)
    return cls__ocl_error(err, "clCreateProgramWithSource");
  *log = cls__build_log(p, d->id, err != CL_SUCCESS);
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
    return code;
  }

  cls__bmodule *m = calloc(1, sizeof *m);
  if (m && from_source) {
    m->source = strdup(source);
    m->options = strdup(options ? options : "");
  }
  if (!m || (from_source && (!m->source || !m->options))) {
    if (m) {
      free(m->source);
      free(m->options);
    }
    free(m);
    clReleaseProgram(p);
    return cls__reason(clsErrorMemoryAllocation,
                       "out of host memory for a module");
  }
  m->dev = d;
  m->prog = p;
  pthread_mutex_init(&m->lock, NULL);
  *out = m;
  return clsSuccess;
}

static void cls__function_free(cls__bfunction *f) {
  if (f->k) clReleaseKernel(f->k);
  cls__lock_destroy(&f->lock);
  free(f->bad_msg);
  free(f->name);
  free(f);
}

/* ---- Module lifetime --------------------------------------------------- */

/* Commands already enqueued hold their own references to the kernels and
 * the program, so OpenCL lets a module go while its launches are pending.
 * NVIDIA's driver (580, on the H200) does not keep that promise: where
 * threads release programs whose launches are pending in a queue they
 * share, a thread of the driver's later frees memory twice or reads freed
 * memory (docs/devices.md, "A driver bug behind test_stress").  So a
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
    cls__function_free(f);
    f = next;
  }
  clReleaseProgram(m->prog);
  pthread_mutex_destroy(&m->lock);
  free(m->source);
  free(m->options);
  free(m);
}

/* A module waiting for the work pending at its unload. */
typedef struct cls__retired {
  atomic_uint left; /* watches whose job has not run */
  cls__bmodule *m;
} cls__retired;

typedef struct cls__retire_watch {
  cls__ocl_watch watch; /* first: cls__ocl_watch_done frees the struct */
  cls__retired *r;
} cls__retire_watch;

/* A watched event ended (completed or failed: either way the work before
 * it is over); the last one frees the module. */
static void cls__retire_run(cls__ocl_job *j) {
  cls__retired *r = ((cls__retire_watch *)j)->r;
  cls__ocl_watch_done((cls__ocl_watch *)j);
  if (atomic_fetch_sub(&r->left, 1) == 1) {
    cls__module_free(r->m);
    free(r);
  }
}

/* Watches every event of b for m; 0, with nothing watched, when out of
 * host memory. */
static int cls__retire_watch_all(cls__bmodule *m, cls__ocl_batch *b) {
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
  r->m = m;
  atomic_init(&r->left, b->n);
  for (cl_uint i = 0; i < b->n; ++i) {
    w[i]->r = r;
    w[i]->watch.job.run = cls__retire_run;
    cls__ocl_watch_event(&w[i]->watch, b->list[i]);
  }
  free(w);
  return 1;
}

void cls__b_module_unload(cls__bmodule *m) {
  if (!m) return;
  /* The front has retired m's functions: no launch of them can follow. */
  cls__ocl_batch b;
  cls__ocl_batch_init(&b);
  cls__ocl_gather_device(m->dev, &b);
  if (b.n && !m->dev->facts.host_inline && !cls__ocl_batch_stalled(&b) &&
      cls__retire_watch_all(m, &b)) {
    cls__ocl_batch_release(&b); /* the watches hold the events */
    return;
  }
  (void)cls__ocl_batch_wait(&b); /* a failure: the work is over too */
  cls__module_free(m);
}

/* ---- Parameter types --------------------------------------------------- */

static int cls__tok_is(const char *t, size_t n, const char *word) {
  return strlen(word) == n && memcmp(t, word, n) == 0;
}

/* The size in bytes of an OpenCL C scalar or vector type named `tn` (as
 * CL_KERNEL_ARG_TYPE_NAME gives it: "int", "uint", "float4", possibly
 * "unsigned int" or with qualifiers such as "const"), or 0 when it is not
 * one.  A 3-element vector takes the size of 4 elements; *elem gets the
 * size of one element and *lanes_out the number of elements (3 for a
 * 3-element vector). */
static size_t cls__value_size(const char *tn, size_t *elem, size_t *lanes_out) {
  static const struct {
    const char *name;
    size_t size;
    int is_signed_int; /* may follow "unsigned" */
  } base[] = {
      {"char", 1, 1},  {"uchar", 1, 0},  {"short", 2, 1}, {"ushort", 2, 0},
      {"int", 4, 1},   {"uint", 4, 0},   {"long", 8, 1},  {"ulong", 8, 0},
      {"float", 4, 0}, {"double", 8, 0}, {"half", 2, 0},
  };
  char word[32];
  size_t wlen = 0;
  int uns = 0, sgn = 0;
  const char *p = tn;
  for (;;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) break;
    const char *t = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    size_t n = (size_t)(p - t);
    if (cls__tok_is(t, n, "const") || cls__tok_is(t, n, "__const") ||
        cls__tok_is(t, n, "volatile") || cls__tok_is(t, n, "__volatile") ||
        cls__tok_is(t, n, "restrict") || cls__tok_is(t, n, "__restrict") ||
        cls__tok_is(t, n, "__private") || cls__tok_is(t, n, "private"))
      continue;
    if (cls__tok_is(t, n, "unsigned")) {
      uns = 1;
      continue;
    }
    if (cls__tok_is(t, n, "signed")) {
      sgn = 1;
      continue;
    }
    if (wlen || n >= sizeof word) return 0; /* two type words: unknown */
    memcpy(word, t, n);
    word[n] = '\0';
    wlen = n;
  }
  if (!wlen) {
    if (!uns && !sgn) return 0;
    memcpy(word, "int", 4); /* "unsigned" alone */
    wlen = 3;
  }
  size_t b = wlen;
  while (b && isdigit((unsigned char)word[b - 1])) b--;
  size_t lanes = 1;
  if (b < wlen) {
    if (b == 0) return 0;
    lanes = (size_t)strtoul(word + b, NULL, 10);
    if (lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16)
      return 0;
    word[b] = '\0';
  }
  for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
    if (strcmp(word, base[i].name) != 0) continue;
    if ((uns || sgn) && (!base[i].is_signed_int || lanes != 1)) return 0;
    *elem = base[i].size;
    *lanes_out = lanes;
    return base[i].size * (lanes == 3 ? 4 : lanes);
  }
  return 0;
}

/* Parameter i's description from the driver's argument info. */
static cl_int cls__driver_param(cl_kernel k, cl_uint i, cls__kernel_param *p) {
  memset(p, 0, sizeof *p);
  p->acq = CL_KERNEL_ARG_ACCESS_NONE;
  cl_int err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                  sizeof p->aq, &p->aq, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                             sizeof p->acq, &p->acq, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof p->type,
                             p->type, NULL);
  if (err == CL_SUCCESS &&
      clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof p->name, p->name,
                         NULL) != CL_SUCCESS)
    p->name[0] = '\0';
  p->type[sizeof p->type - 1] = '\0';
  p->name[sizeof p->name - 1] = '\0';
  return err;
}

/* Decides how launches set parameter i, described by *pi.  Returns 0, or
 * -1 with *msg (malloc'd) saying why it is unsupported. */
static int cls__classify(const cls__kernel_param *pi, const char *kname,
                         cl_uint i, cls__oarg *a, char **msg) {
  const char *type = pi->type, *pname = pi->name;
  cl_kernel_arg_address_qualifier aq = pi->aq;
  cl_kernel_arg_access_qualifier acq = pi->acq;
  const char *why = NULL;
  const char *space = "";
  size_t elem = 0, lanes = 0;
  a->kind = CLS__ARG_UNSUPPORTED;
  a->size = a->copy = 0;
  int is_ptr = strchr(type, '*') != NULL;
  switch (aq) {
  case CL_KERNEL_ARG_ADDRESS_GLOBAL:
  case CL_KERNEL_ARG_ADDRESS_CONSTANT:
    space = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL ? "__global " : "__constant ";
    if (is_ptr && acq == CL_KERNEL_ARG_ACCESS_NONE)
      a->kind = CLS__ARG_POINTER;
    else
      why = "images and pipes are not supported";
    break;
  case CL_KERNEL_ARG_ADDRESS_LOCAL:
    space = "__local ";
    why = "__local pointer parameters are not supported; declare "
          "CLS_LOCAL arrays in the kernel";
    break;
  default:
    if (acq != CL_KERNEL_ARG_ACCESS_NONE) {
      why = "images are not supported";
    } else if (is_ptr) {
      why = "a pointer parameter must be CLS_GLOBAL";
    } else if ((a->size = cls__value_size(type, &elem, &lanes)) != 0) {
      a->kind = lanes == 3 ? CLS__ARG_VEC3 : CLS__ARG_VALUE;
      a->copy = elem * lanes;
    } else {
      why = "only device pointers, scalars and vectors of the built-in "
            "types can be passed (not samplers, structs or typedefs)";
    }
    break;
  }
  if (a->kind != CLS__ARG_UNSUPPORTED) return 0;

  const char *fmt = "kernel '%s': parameter %u ('%s') of type '%s%s' "
                    "cannot be set by clsLaunchKernel: %s";
  int n = snprintf(NULL, 0, fmt, kname, (unsigned)i, pname, space, type, why);
  *msg = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (*msg)
    snprintf(*msg, (size_t)n + 1, fmt, kname, (unsigned)i, pname, space, type,
             why);
  return -1;
}

/* ---- Functions --------------------------------------------------------- */

clsError_t cls__b_module_function(cls__bmodule *m, const char *name,
                                  cls__bfunction **out) {
  cl_int err;
  *out = NULL;
  cl_kernel k = clCreateKernel(m->prog, name, &err);
  if (!k || err != CL_SUCCESS) {
    if (cls__ocl_code(err) == clsErrorSymbolNotFound)
      return cls__reason(clsErrorSymbolNotFound,
                         "no kernel named '%s' in the module", name);
    return cls__ocl_error(err, "clCreateKernel");
  }
  cl_uint nargs = 0;
  err = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
  if (err != CL_SUCCESS) {
    clReleaseKernel(k);
    return cls__ocl_error(err, "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
  }
  cls__bfunction *f = calloc(1, sizeof *f + (size_t)nargs * sizeof f->args[0]);
  char *fname = strdup(name);
  if (!f || !fname) {
    free(f);
    free(fname);
    clReleaseKernel(k);
    return cls__reason(clsErrorMemoryAllocation,
                       "out of host memory for a function");
  }
  f->k = k;
  f->name = fname;
  f->nargs = nargs;
  f->bad = -1;
  const char *keep = getenv("CLSTREAM_ARG_CACHE");
  f->keep_args = !(keep && strcmp(keep, "0") == 0);
  cls__lock_init(&f->lock);
  size_t wg = 0;
  if (clGetKernelWorkGroupInfo(k, m->dev->id, CL_KERNEL_WORK_GROUP_SIZE,
                               sizeof wg, &wg, NULL) == CL_SUCCESS)
    f->hint_wg = wg;
  cls__kernel_param *src = NULL;
  char why[160] = "";
  if (m->source && nargs) {
    src = calloc(nargs, sizeof *src);
    if (!src) {
      cls__function_free(f);
      return cls__reason(clsErrorMemoryAllocation,
                         "out of host memory for a function");
    }
    const char *const *pre = m->dev->predef;
    int got = cls__kernel_params(m->source, m->options, pre, name, src,
                                 (int)nargs, why, sizeof why);
    if (got != (int)nargs) {
      if (got >= 0)
        snprintf(why, sizeof why,
                 "the source shows %d parameters, the driver %u", got,
                 (unsigned)nargs);
      free(src);
      src = NULL;
      f->bad = 0;
      const char *fmt = "kernel '%s': the driver gives no parameter types "
                        "for this module (it was built without "
                        "-cl-kernel-arg-info) and they could not be read "
                        "from the source: %s";
      int n = snprintf(NULL, 0, fmt, name, why);
      f->bad_msg = n > 0 ? malloc((size_t)n + 1) : NULL;
      if (f->bad_msg) snprintf(f->bad_msg, (size_t)n + 1, fmt, name, why);
    }
  }
  for (cl_uint i = 0; i < nargs && (src || !m->source); i++) {
    cls__kernel_param driver;
    const cls__kernel_param *pi = src ? &src[i] : &driver;
    if (!src) {
      cl_int qerr = cls__driver_param(k, i, &driver);
      if (qerr != CL_SUCCESS) {
        /* A failed query (out of resources, say) is not a property of
         * the kernel: this lookup fails instead of caching it. */
        cls__function_free(f);
        return cls__ocl_error(qerr, "clGetKernelArgInfo");
      }
    }
    char *msg = NULL;
    cls__oarg *a = &f->args[i];
    int bad = cls__classify(pi, name, i, a, &msg) != 0;
    a->op = a->kind == CLS__ARG_POINTER ? CLS__OP_POINTER
            : a->kind == CLS__ARG_VEC3  ? CLS__OP_VEC3
                                        : CLS__OP_VALUE;
    if (a->kind == CLS__ARG_VALUE && f->keep_args)
      a->op = a->size == 1               ? CLS__OP_KEEP1
              : a->size == 2             ? CLS__OP_KEEP2
              : a->size == 4             ? CLS__OP_KEEP4
              : a->size == 8             ? CLS__OP_KEEP8
              : a->size == CLS__ARG_KEEP ? CLS__OP_KEEP16
                                         : CLS__OP_VALUE;
    if (bad && f->bad < 0) {
      f->bad = (int)i;
      f->bad_msg = msg;
    } else {
      free(msg);
    }
  }
  free(src);

  pthread_mutex_lock(&m->lock);
  f->next = m->fns;
  m->fns = f;
  pthread_mutex_unlock(&m->lock);
  *out = f;
  return clsSuccess;
}

/* ---- Launches ---------------------------------------------------------- */

/* Sets value argument i of f (one the cache keeps: v0, v1 is its value,
 * zero-padded) to the caller's a, which differs from what the kernel
 * object holds (under f->lock). */
static cl_int cls__set_kept(cls__bfunction *f, cl_uint i, const void *a,
                            uint64_t v0, uint64_t v1, const char **what) {
  cls__oarg *p = &f->args[i];
  p->held.held = 0;
  *what = "clSetKernelArg";
  cl_int err = clSetKernelArg(f->k, i, p->size, a);
  if (CLS__LIKELY(err == CL_SUCCESS)) {
    p->held.last[0] = v0;
    p->held.last[1] = v1;
    p->held.held = 1;
  }
  return err;
}

/* Sets pointer argument i of f to ptr (under f->lock), the argument
 * cache told that it changed: NULL in the form of the parameter's last
 * pointer, anything else as memory.c decides.  *what names the call or
 * the rule that refused it. */
static cl_int cls__set_pointer(cls__ocl_device *d, cls__bfunction *f, cl_uint i,
                               void *ptr, size_t gen, const char **what) {
  cls__argcache *h = &f->args[i].held;
  cl_int err;
  int svm = h->svm;
  h->held = 0;
  if (!ptr) {
    /* NULL in the form of the parameter's last pointer: NVIDIA's driver
     * takes either form on a new kernel object, but after an SVM pointer
     * only the SVM NULL, and after a buffer (or on a new object) only the
     * buffer NULL; the other form is accepted by clSetKernelArg* and
     * refused by the enqueue with CL_INVALID_KERNEL_ARGS (probed on the
     * H200). */
    *what = svm ? "clSetKernelArgSVMPointer" : "clSetKernelArg";
    err = svm ? clSetKernelArgSVMPointer(f->k, i, NULL)
              : clSetKernelArg(f->k, i, sizeof(cl_mem), NULL);
  } else {
    err = cls__ocl_set_pointer_arg(d, f->k, i, ptr, what, &svm);
    if (err == CL_SUCCESS) h->svm = svm;
  }
  if (err == CL_SUCCESS && f->keep_args && (!ptr || svm)) {
    h->last[0] = (uint64_t)(uintptr_t)ptr;
    h->gen = gen;
    h->held = 1;
  }
  return err;
}

/* Sets f's arguments from args (under f->lock), skipping those the
 * kernel object holds already (cls__argcache).  Stops at the first that
 * fails: *i is its index (f->nargs when all were set) and *what names the
 * call or the rule that refused it (NULL: args[*i] is NULL). */
static cl_int cls__set_args(cls__ocl_device *d, cls__bfunction *f, void **args,
                            cl_uint *i, const char **what) {
  /* Read once, before memory.c's lookups: a free after it makes every
   * pointer cached now stale. */
  const size_t gen = cls__mem_gen();
  const cl_uint nargs = f->nargs;
  cl_int err = CL_SUCCESS;
  cl_uint n = 0;
  for (; n < nargs; ++n) {
    const void *a = args[n];
    if (CLS__UNLIKELY(!a)) {
      *i = n;
      *what = NULL;
      return CL_INVALID_ARG_VALUE;
    }
    cls__oarg *p = &f->args[n];
    cls__argcache *h = &p->held;
    /* A kept value, loaded with its size's fixed-size copy (one plain
     * load), zero-padded to two words. */
    uint64_t v0 = 0, v1 = 0;
    switch (p->op) {
    case CLS__OP_POINTER: {
      void *ptr = *(void *const *)a;
      if (h->held && h->gen == gen && h->last[0] == (uint64_t)(uintptr_t)ptr)
        continue;
      err = cls__set_pointer(d, f, n, ptr, gen, what);
      break;
    }
    case CLS__OP_KEEP1: {
      uint8_t x;
      memcpy(&x, a, sizeof x);
      v0 = x;
      goto kept;
    }
    case CLS__OP_KEEP2: {
      uint16_t x;
      memcpy(&x, a, sizeof x);
      v0 = x;
      goto kept;
    }
    case CLS__OP_KEEP4: {
      uint32_t x;
      memcpy(&x, a, sizeof x);
      v0 = x;
      goto kept;
    }
    case CLS__OP_KEEP8:
      memcpy(&v0, a, sizeof v0);
      goto kept;
    case CLS__OP_KEEP16:
      memcpy(&v0, a, sizeof v0);
      memcpy(&v1, (const unsigned char *)a + sizeof v0, sizeof v1);
    kept:
      if (h->held && h->last[0] == v0 && h->last[1] == v1) continue;
      err = cls__set_kept(f, n, a, v0, v1, what);
      break;
    case CLS__OP_VALUE:
      *what = "clSetKernelArg";
      err = clSetKernelArg(f->k, n, p->size, a);
      break;
    default: { /* CLS__OP_VEC3 */
      unsigned char v3[CLS__VEC3_MAX] = {0};
      memcpy(v3, a, p->copy);
      *what = "clSetKernelArg";
      err = clSetKernelArg(f->k, n, p->size, v3);
      break;
    }
    }
    if (CLS__UNLIKELY(err != CL_SUCCESS)) break;
  }
  *i = n;
  return err;
}

clsError_t cls__b_launch(cls__bfunction *f, clsDim3 grid, clsDim3 block,
                         void **args, size_t sharedMem, cls__bstream *s) {
  (void)sharedMem; /* the front allows only 0 */
  if (CLS__UNLIKELY(f->bad >= 0))
    return cls__reason(clsErrorInvalidValue, "%s",
                       f->bad_msg ? f->bad_msg : "unsupported parameter");
  if (CLS__UNLIKELY(f->nargs && !args))
    return cls__reason(clsErrorInvalidValue,
                       "kernel '%s' has %u parameters but args is NULL",
                       f->name, (unsigned)f->nargs);
  const size_t local[3] = {block.x, block.y, block.z};
  const size_t global[3] = {(size_t)grid.x * block.x, (size_t)grid.y * block.y,
                            (size_t)grid.z * block.z};

  cls__ocl_batch b;
  cl_event ev = NULL;
  cl_int err = CL_SUCCESS;
  cl_uint i = 0;
  const char *what = NULL;

  cls__ocl_begin_cmd(s, &b);
  cls__lock_take(&f->lock);
  err = cls__set_args(s->dev, f, args, &i, &what);
  if (CLS__LIKELY(i == f->nargs)) {
    what = "clEnqueueNDRangeKernel";
    err = clEnqueueNDRangeKernel(s->q, f->k, 3, NULL, global, local, b.n,
                                 b.list, cls__ocl_event_slot(s, &ev));
  }
  cls__lock_give(&f->lock);
  int ok = i == f->nargs && err == CL_SUCCESS;
  if (CLS__LIKELY(ok && !ev)) {
    cls__ocl_end_unnamed(s, &b);
    return clsSuccess;
  }
  /* What a command with an event keeps (and the trace draws). */
  b.what = f->name;
  b.cat = "kernel";
  b.work = 1;
  cls__ocl_end_cmd(s, &b, ok, ev);
  if (ok) return clsSuccess;

  if (ev) clReleaseEvent(ev);
  if (!what)
    return cls__reason(clsErrorInvalidValue,
                       "args[%u] is NULL (kernel '%s' parameter %u)",
                       (unsigned)i, f->name, (unsigned)i);
  if (i == f->nargs &&
      (err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES))
    return cls__reason(clsErrorLaunchOutOfResources,
                       "the driver refused kernel '%s' with a block of %zu "
                       "threads (%s; the kernel's CL_KERNEL_WORK_GROUP_SIZE "
                       "hint is %zu)",
                       f->name, local[0] * local[1] * local[2],
                       err == CL_OUT_OF_RESOURCES
                           ? "CL_OUT_OF_RESOURCES"
                           : "CL_INVALID_WORK_GROUP_SIZE",
                       f->hint_wg);
  if (i < f->nargs) {
    char buf[320];
    snprintf(buf, sizeof buf, "%s (kernel '%s' parameter %u)", what, f->name,
             (unsigned)i);
    return cls__ocl_error(err, buf);
  }
  return cls__ocl_error(err, what);
}
