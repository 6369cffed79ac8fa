/*
 * OpenCL backend: modules (cl_program), functions (cl_kernel) and
 * launches (clEnqueueNDRangeKernel).
 *
 * A function reads its kernel's argument info once, when it is created,
 * and turns each parameter into a precomputed way of setting it: an SVM
 * pointer (__global and __constant pointers), a value of a known size
 * (scalars and vectors), or "unsupported" (a __local pointer, an image, a
 * sampler, a struct or a type it cannot size), which makes every launch of
 * the function fail with a message naming the parameter.  The launch path
 * then allocates nothing and makes only the clSetKernelArg* calls and the
 * enqueue.
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

typedef struct cls__oarg {
  size_t size; /* bytes passed to clSetKernelArg */
  size_t copy; /* bytes read from args[i], for CLS__ARG_VEC3 */
  int kind;
} cls__oarg;

struct cls__bfunction {
  cl_kernel k;
  pthread_mutex_t lock; /* held while the kernel's arguments are set */
  cl_uint nargs;
  int bad;           /* index of the first unsupported parameter, or -1 */
  char *bad_msg;     /* why it is unsupported (when bad >= 0) */
  size_t max_wg;     /* CL_KERNEL_WORK_GROUP_SIZE on the module's device */
  char *name;
  struct cls__bfunction *next; /* the module's list */
  cls__oarg args[];
};

struct cls__bmodule {
  cls__ocl_device *dev;
  cl_program prog;
  pthread_mutex_t lock; /* guards fns */
  struct cls__bfunction *fns;
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

clsError_t cls__b_module_load(int dev, const char *source,
                              const char *options, cls__bmodule **out,
                              char **log) {
  static const char base_opts[] = "-cl-kernel-arg-info";
  cls__ocl_device *d = cls__ocl_device_get(dev);
  *out = NULL;
  *log = NULL;

  size_t olen = options ? strlen(options) : 0;
  char *opts = malloc(sizeof base_opts + 1 + olen);
  if (!opts)
    return cls__reason(clsErrorMemoryAllocation,
                       "out of host memory for the build options");
  memcpy(opts, base_opts, sizeof base_opts - 1);
  opts[sizeof base_opts - 1] = ' ';
  memcpy(opts + sizeof base_opts, options ? options : "", olen);
  opts[sizeof base_opts + olen] = '\0';

  cl_int err;
  cl_program p = clCreateProgramWithSource(d->ctx, 1, &source, NULL, &err);
  if (!p || err != CL_SUCCESS) {
    free(opts);
    return cls__ocl_error(err, "clCreateProgramWithSource");
  }
  err = clBuildProgram(p, 1, &d->id, opts, NULL, NULL);
  free(opts);
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
  if (!m) {
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
  pthread_mutex_destroy(&f->lock);
  free(f->bad_msg);
  free(f->name);
  free(f);
}

void cls__b_module_unload(cls__bmodule *m) {
  if (!m) return;
  /* Commands already enqueued hold their own references to the kernels
   * and the program, so they still run. */
  pthread_mutex_lock(&m->lock);
  cls__bfunction *f = m->fns;
  m->fns = NULL;
  pthread_mutex_unlock(&m->lock);
  while (f) {
    cls__bfunction *next = f->next;
    cls__function_free(f);
    f = next;
  }
  clReleaseProgram(m->prog);
  pthread_mutex_destroy(&m->lock);
  free(m);
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
static size_t cls__value_size(const char *tn, size_t *elem,
                              size_t *lanes_out) {
  static const struct {
    const char *name;
    size_t size;
    int is_signed_int; /* may follow "unsigned" */
  } base[] = {
      {"char", 1, 1},  {"uchar", 1, 0}, {"short", 2, 1},  {"ushort", 2, 0},
      {"int", 4, 1},   {"uint", 4, 0},  {"long", 8, 1},   {"ulong", 8, 0},
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

/* Reads parameter i's argument info and decides how launches set it.
 * Returns 0, or -1 with *msg (malloc'd) saying why it is unsupported. */
static int cls__classify(cl_kernel k, const char *kname, cl_uint i,
                         cls__oarg *a, char **msg) {
  cl_kernel_arg_address_qualifier aq = 0;
  cl_kernel_arg_access_qualifier acq = CL_KERNEL_ARG_ACCESS_NONE;
  char type[256] = "", pname[128] = "";
  cl_int err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                  sizeof aq, &aq, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                             sizeof acq, &acq, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type,
                             type, NULL);
  if (err == CL_SUCCESS &&
      clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof pname, pname,
                         NULL) != CL_SUCCESS)
    pname[0] = '\0';
  type[sizeof type - 1] = '\0';
  pname[sizeof pname - 1] = '\0';

  const char *why = NULL;
  const char *space = "";
  size_t elem = 0, lanes = 0;
  a->kind = CLS__ARG_UNSUPPORTED;
  a->size = a->copy = 0;
  if (err != CL_SUCCESS) {
    /* A failed query (out of resources, say) is not a property of the
     * kernel: the caller fails this lookup instead of caching it. */
    *msg = NULL;
    a->size = (size_t)(-(long)err);
    return -2;
  } else {
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
  }
  if (a->kind != CLS__ARG_UNSUPPORTED) return 0;

  const char *fmt = "kernel '%s': parameter %u ('%s') of type '%s%s' "
                    "cannot be set by clsLaunchKernel: %s";
  int n = snprintf(NULL, 0, fmt, kname, (unsigned)i, pname, space, type, why);
  *msg = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (*msg) snprintf(*msg, (size_t)n + 1, fmt, kname, (unsigned)i, pname,
                     space, type, why);
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
  pthread_mutex_init(&f->lock, NULL);
  f->max_wg = SIZE_MAX;
  size_t wg = 0;
  if (clGetKernelWorkGroupInfo(k, m->dev->id, CL_KERNEL_WORK_GROUP_SIZE,
                               sizeof wg, &wg, NULL) == CL_SUCCESS &&
      wg > 0)
    f->max_wg = wg;
  for (cl_uint i = 0; i < nargs; i++) {
    char *msg = NULL;
    int r = cls__classify(k, name, i, &f->args[i], &msg);
    if (r == -2) {
      cl_int qerr = -(cl_int)f->args[i].size;
      cls__function_free(f);
      return cls__ocl_error(qerr, "clGetKernelArgInfo");
    }
    if (r != 0 && f->bad < 0) {
      f->bad = (int)i;
      f->bad_msg = msg;
    } else {
      free(msg);
    }
  }

  pthread_mutex_lock(&m->lock);
  f->next = m->fns;
  m->fns = f;
  pthread_mutex_unlock(&m->lock);
  *out = f;
  return clsSuccess;
}

/* ---- Launches ---------------------------------------------------------- */

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
  const size_t global[3] = {(size_t)grid.x * block.x,
                            (size_t)grid.y * block.y,
                            (size_t)grid.z * block.z};

  cls__ocl_batch b;
  cl_event ev = NULL;
  cl_int err = CL_SUCCESS;
  cl_uint i = 0;
  const char *what = "clEnqueueNDRangeKernel";
  const char *ptr_what = "clSetKernelArg";

  cls__ocl_begin(s, &b);
  b.what = f->name;
  b.cat = "kernel";
  b.work = 1;
  pthread_mutex_lock(&f->lock);
  for (; i < f->nargs; i++) {
    const void *a = args[i];
    if (CLS__UNLIKELY(!a)) {
      what = NULL;
      break;
    }
    const cls__oarg *p = &f->args[i];
    if (p->kind == CLS__ARG_POINTER) {
      /* SVM, a buffer, a sub-buffer or NULL: memory.c decides. */
      err = cls__ocl_set_pointer_arg(s->dev, f->k, i, *(void *const *)a,
                                     &ptr_what);
    } else if (CLS__LIKELY(p->kind == CLS__ARG_VALUE)) {
      err = clSetKernelArg(f->k, i, p->size, a);
    } else {
      unsigned char v3[CLS__VEC3_MAX] = {0};
      memcpy(v3, a, p->copy);
      err = clSetKernelArg(f->k, i, p->size, v3);
    }
    if (CLS__UNLIKELY(err != CL_SUCCESS)) {
      what = f->args[i].kind == CLS__ARG_POINTER ? ptr_what : "clSetKernelArg";
      break;
    }
  }
  if (CLS__LIKELY(i == f->nargs))
    err = clEnqueueNDRangeKernel(s->q, f->k, 3, NULL, global, local, b.n,
                                 b.list, &ev);
  pthread_mutex_unlock(&f->lock);
  int ok = i == f->nargs && err == CL_SUCCESS;
  cls__ocl_end(s, &b, ok ? ev : NULL);
  if (CLS__LIKELY(ok)) return clsSuccess;

  if (ev) clReleaseEvent(ev);
  if (!what)
    return cls__reason(clsErrorInvalidValue,
                       "args[%u] is NULL (kernel '%s' parameter %u)",
                       (unsigned)i, f->name, (unsigned)i);
  if (i < f->nargs) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s (kernel '%s' parameter %u)", what, f->name,
             (unsigned)i);
    return cls__ocl_error(err, buf);
  }
  return cls__ocl_error(err, what);
}
