/*
 * OpenCL backend: a module's functions (cl_kernel): reading each kernel's
 * parameter types once, when the function is created, and turning each
 * parameter into a precomputed way of setting it: an SVM pointer
 * (__global and __constant pointers), a value of a known size (scalars
 * and vectors), or "unsupported" (a __local pointer, an image, a sampler,
 * a struct or a type it cannot size), which makes every launch of the
 * function fail with a message naming the parameter (launch.c).  The
 * types come from the driver, or from the source where the module was
 * built without -cl-kernel-arg-info (module.c, kernel_sig.c).  Takes
 * module.lock (module.c) to add a function to the module's list.
 */
#include "function.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cls__ocl_function_free(cls__bfunction *f) {
  if (f->k) clReleaseKernel(f->k);
  cls__lock_destroy(&f->lock);
  free(f->bad_msg);
  free(f->name);
  free(f);
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
  const char *keep = cls__setting(CLS__SET_ARG_CACHE);
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
      cls__ocl_function_free(f);
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
        cls__ocl_function_free(f);
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
