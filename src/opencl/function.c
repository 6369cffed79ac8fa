/*
 * OpenCL backend: a module's functions (cl_kernel): reading each kernel's
 * parameter types once, when the function is created, and turning each
 * parameter into a precomputed way of setting it: a pointer (__global
 * and __constant pointers; on the buffer path with a hidden offset
 * argument), a value of a known size (scalars and vectors, and structs,
 * unions and typedefs whose size the module measured on the device), or
 * "unsupported" (a __local pointer, an image, a sampler, a type it cannot
 * size), which makes every launch of the function fail with a message
 * naming the parameter (launch.c).  The parameters the source rewrite
 * added (kernel_rw.c) come after the caller's and are known from its
 * record.  The types come from the driver, or from the source where the
 * module was built without -cl-kernel-arg-info (module.c, kernel_sig.c).
 * Takes module.lock (module.c) to add a function to the module's list.
 */
#include "function.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cls__ocl_function_free(cls__bfunction *f) {
  if (f->alt) cls__ocl_function_free(f->alt);
  if (f->k) clReleaseKernel(f->k);
  if (f->other.k) clReleaseKernel(f->other.k);
  free(f->other.held);
  cls__lock_destroy(&f->lock);
  free(f->bad_msg);
  free(f->name);
  free(f);
}

/* ---- Parameter types --------------------------------------------------- */

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

/* The size the module measured on the device for by-value parameter i of
 * kernel `kname` (a type the library cannot size itself), or 0. */
static size_t cls__measured(const cls__bmodule *m, const char *kname,
                            cl_uint i) {
  for (int k = 0; k < m->rw.nsizes; k++)
    if (m->rw.sizes[k].index == (int)i &&
        strcmp(m->rw.sizes[k].kernel, kname) == 0)
      return m->rw.sizes[k].size;
  return 0;
}

/* The size the driver takes for measured struct parameter i of f, whose
 * sizeof is `size`, in *got: that, or (rusticl, which counts a struct to
 * the end of its last member) that less its tail padding, found by
 * setting a zero value at each size down to size - 15.  Only padding is
 * dropped: every member lies below the driver's size.  *got is 0 when
 * none is taken.  Returns the driver's error other than a size refusal. */
static cl_int cls__struct_size(cls__bfunction *f, cl_uint i, size_t size,
                               size_t *got) {
  *got = 0;
  unsigned char *zero = calloc(1, size);
  if (!zero) return CL_OUT_OF_HOST_MEMORY;
  cl_int err = CL_INVALID_ARG_SIZE;
  for (size_t s = size; s > 0 && s + 16 > size && !*got; s--) {
    err = clSetKernelArg(f->k, i, s, zero);
    if (err == CL_SUCCESS) *got = s;
    if (err != CL_SUCCESS && err != CL_INVALID_ARG_SIZE) break;
  }
  free(zero);
  return err == CL_INVALID_ARG_SIZE ? CL_SUCCESS : err;
}

/* Why struct parameter i of kernel `kname` cannot be passed (malloc'd). */
static char *cls__struct_msg(const char *kname, cl_uint i, size_t size) {
  const char *fmt = "kernel '%s': parameter %u is a struct of %zu bytes "
                    "(sizeof on the device), a size the driver refuses";
  int n = snprintf(NULL, 0, fmt, kname, (unsigned)i, size);
  char *m = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (m) snprintf(m, (size_t)n + 1, fmt, kname, (unsigned)i, size);
  return m;
}

/* Sets argument i of k to the globals' base of module m. */
static cl_int cls__set_gbase(const cls__bmodule *m, cl_kernel k, cl_uint i) {
  cl_mem mem;
  size_t off;
  if (cls__ocl_buffer_at(m->gstore, &mem, &off, NULL))
    return clSetKernelArg(k, i, sizeof mem, &mem);
  return clSetKernelArgSVMPointer(k, i, m->gstore);
}

/* Sets up f's use of the hidden parameters the rewrite `rw` (m's, or its
 * offset variant's) gave kernel `kname` (kernel_rw.c), which follow its
 * own: f->nuser, f->dyn, the pointers' offset arguments, and the globals'
 * base (set once here: the module's globals never move).  Returns
 * CL_SUCCESS or the driver's error. */
static cl_int cls__hidden(cls__bmodule *m, const cls__rw *rw, cls__bfunction *f,
                          const char *kname) {
  const cls__rw_kernel *rk = NULL;
  for (int i = 0; i < rw->nkernels && !rk; i++)
    if (strcmp(rw->kernels[i].name, kname) == 0) rk = &rw->kernels[i];
  if (!rk || rk->nuser + rk->nhidden != (int)f->nargs) return CL_SUCCESS;
  f->nuser = (cl_uint)rk->nuser;
  for (int j = 0; j < rk->nhidden; j++) {
    cl_uint i = f->nuser + (cl_uint)j;
    f->args[i].kind = CLS__ARG_HIDDEN;
    if (rk->role[j] == CLS__RW_ROLE_DYN) {
      f->dyn = (int)i;
    } else if (rk->role[j] == CLS__RW_ROLE_GBASE) {
      f->gbase = (int)i;
      cl_int err = cls__set_gbase(m, f->k, i);
      if (err != CL_SUCCESS) return err;
    } else {
      f->args[rk->role[j]].off_arg = i;
    }
  }
  return CL_SUCCESS;
}

/* Decides how launches set parameter i, described by *pi.  Returns 0, or
 * -1 with *msg (malloc'd) saying why it is unsupported. */
static int cls__classify(const cls__bmodule *m, const cls__kernel_param *pi,
                         const char *kname, cl_uint i, cls__oarg *a,
                         char **msg) {
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
    } else if ((a->size = cls__ocl_value_size(type, &elem, &lanes)) != 0) {
      a->kind = lanes == 3 ? CLS__ARG_VEC3 : CLS__ARG_VALUE;
      a->copy = elem * lanes;
    } else if ((a->size = cls__measured(m, kname, i)) != 0) {
      a->kind = CLS__ARG_VALUE; /* a struct, union or typedef, measured */
    } else {
      why = "only device pointers, scalars, vectors and the structs, "
            "unions and typedefs of the kernel source can be passed (not "
            "samplers); this type's size could not be measured";
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
  f->prog = m->prog;
  f->mod = m;
  f->name = fname;
  f->nargs = nargs;
  f->nuser = nargs;
  f->dyn = -1;
  f->gbase = -1;
  f->bad = -1;
  const char *keep = cls__setting(CLS__SET_ARG_CACHE);
  f->keep_args = !(keep && strcmp(keep, "0") == 0);
  cls__lock_init(&f->lock);
  size_t wg = 0;
  if (clGetKernelWorkGroupInfo(k, m->dev->id, CL_KERNEL_WORK_GROUP_SIZE,
                               sizeof wg, &wg, NULL) == CL_SUCCESS)
    f->hint_wg = wg;
  cl_ulong lm = 0;
  if (clGetKernelWorkGroupInfo(k, m->dev->id, CL_KERNEL_LOCAL_MEM_SIZE,
                               sizeof lm, &lm, NULL) == CL_SUCCESS)
    f->static_local = lm;
  cls__kernel_param *src = NULL;
  char why[160] = "";
  /* The driver's answer where it gives one (kernel_sig.c reads the source
   * otherwise). */
  int from_src = !m->arg_info;
  cls__kernel_param probe;
  if (!from_src && nargs &&
      cls__driver_param(k, 0, &probe) == CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    from_src = 2;
  if (from_src && nargs) {
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
                        "for this module (%s) and they could not be read "
                        "from the source: %s";
      const char *cause = from_src == 2
                              ? "it answers CL_KERNEL_ARG_INFO_NOT_AVAILABLE"
                              : "it was built without -cl-kernel-arg-info";
      int n = snprintf(NULL, 0, fmt, name, cause, why);
      f->bad_msg = n > 0 ? malloc((size_t)n + 1) : NULL;
      if (f->bad_msg)
        snprintf(f->bad_msg, (size_t)n + 1, fmt, name, cause, why);
    }
  }
  cl_int herr = cls__hidden(m, &m->rw, f, name);
  if (herr != CL_SUCCESS) {
    cls__ocl_function_free(f);
    free(src);
    return cls__ocl_error(herr, "clSetKernelArg (the module's globals)");
  }
  for (cl_uint i = 0; i < f->nuser && (src || !from_src); i++) {
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
    int bad = cls__classify(m, pi, name, i, a, &msg) != 0;
    size_t took = a->size;
    if (!bad && a->kind == CLS__ARG_VALUE && cls__measured(m, name, i)) {
      cl_int serr = cls__struct_size(f, i, a->size, &took);
      if (serr != CL_SUCCESS) {
        cls__ocl_function_free(f);
        free(src);
        return cls__ocl_error(serr, "clSetKernelArg (sizing a struct)");
      }
      if (!took) {
        bad = 1;
        msg = cls__struct_msg(name, i, a->size);
      }
      a->size = took;
    }
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
  for (cl_uint i = 0; i < f->nuser; i++)
    if (f->args[i].off_arg && f->args[i].kind == CLS__ARG_POINTER)
      f->args[i].op = CLS__OP_PTR_OFF;

  pthread_mutex_lock(&m->lock);
  f->next = m->fns;
  m->fns = f;
  pthread_mutex_unlock(&m->lock);
  *out = f;
  return clsSuccess;
}

/* ---- The offset variant ------------------------------------------------ */

cl_int cls__ocl_function_offsets(cls__bfunction *f, cls__bfunction **out,
                                 char *why, size_t nwhy) {
  CLS__ASSERT_HELD(&f->lock);
  *out = f->alt;
  if (f->alt) return CL_SUCCESS;
  cl_program prog;
  const cls__rw *rw;
  cl_int err = cls__ocl_offvar_get(f->mod->dev, &f->mod->off, &f->mod->lock,
                                   &prog, &rw, why, nwhy);
  if (err != CL_SUCCESS) return err;
  cl_kernel k = clCreateKernel(prog, f->name, &err);
  if (!k || err != CL_SUCCESS) {
    snprintf(why, nwhy, "clCreateKernel of the variant failed (%d)", (int)err);
    return err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES;
  }
  cl_uint nargs = 0;
  err = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
  cls__bfunction *v = NULL;
  if (err == CL_SUCCESS && nargs >= f->nuser)
    v = calloc(1, sizeof *v + (size_t)nargs * sizeof v->args[0]);
  char *name = v ? strdup(f->name) : NULL;
  if (!name) {
    free(v);
    clReleaseKernel(k);
    snprintf(why, nwhy, "%s",
             err != CL_SUCCESS  ? "clGetKernelInfo of the variant failed"
             : nargs < f->nuser ? "the variant has fewer parameters"
                                : "out of host memory");
    return err != CL_SUCCESS  ? err
           : nargs < f->nuser ? CL_INVALID_VALUE
                              : CL_OUT_OF_HOST_MEMORY;
  }
  /* What the function found about its parameters holds for the variant's
   * (the same kernel): their kinds, sizes and ways of being set. */
  *v = (cls__bfunction){.k = k,
                        .prog = prog,
                        .nargs = nargs,
                        .nuser = nargs,
                        .dyn = -1,
                        .gbase = -1,
                        .static_local = f->static_local,
                        .bad = -1,
                        .hint_wg = f->hint_wg,
                        .keep_args = f->keep_args,
                        .name = name,
                        .mod = f->mod};
  cls__lock_init(&v->lock);
  for (cl_uint i = 0; i < f->nuser; i++) {
    v->args[i] = f->args[i];
    v->args[i].off_arg = 0;
    v->args[i].held = (cls__argcache){0};
  }
  err = cls__hidden(f->mod, rw, v, f->name);
  if (err == CL_SUCCESS && v->nuser != f->nuser) err = CL_INVALID_VALUE;
  if (err != CL_SUCCESS) {
    snprintf(why, nwhy, "%s",
             err == CL_INVALID_VALUE ? "the variant's parameters differ"
                                     : "clSetKernelArg (the module's globals)");
    cls__ocl_function_free(v);
    return err;
  }
  for (cl_uint i = 0; i < v->nuser; i++)
    if (v->args[i].off_arg && v->args[i].kind == CLS__ARG_POINTER)
      v->args[i].op = CLS__OP_PTR_OFF;
  f->alt = v;
  *out = v;
  return CL_SUCCESS;
}

/* ---- The other kernel object ------------------------------------------- */

cl_kernel cls__ocl_function_kernel(const cls__bfunction *f, cl_int *err) {
  cl_kernel k = clCreateKernel(f->prog, f->name, err);
  if (k && *err == CL_SUCCESS && f->gbase >= 0)
    *err = cls__set_gbase(f->mod, k, (cl_uint)f->gbase);
  if (k && *err != CL_SUCCESS) {
    clReleaseKernel(k);
    k = NULL;
  }
  return k;
}

cl_int cls__ocl_function_swap(cls__bfunction *f, cl_uint i, int again) {
  CLS__ASSERT_HELD(&f->lock);
  cls__kobj *o = &f->other;
  cl_int err = CL_SUCCESS;
  if (!o->held) {
    o->held = calloc(f->nargs ? f->nargs : 1, sizeof *o->held);
    if (!o->held) return CL_OUT_OF_HOST_MEMORY;
  }
  if (!o->k && !(o->k = cls__ocl_function_kernel(f, &err))) return err;
  /* The other object's argument i has held an SVM pointer too, or this
   * launch moved already: it is made again (commands enqueued with the
   * old one keep it alive). */
  if (again || o->held[i].svm_ever) {
    cl_kernel k = cls__ocl_function_kernel(f, &err);
    if (!k) return err;
    clReleaseKernel(o->k);
    o->k = k;
    o->dyn_held = 0;
    memset(o->held, 0, f->nargs * sizeof *o->held);
  }
  cl_kernel k = f->k;
  f->k = o->k;
  o->k = k;
  size_t dyn = f->dyn_held;
  f->dyn_held = o->dyn_held;
  o->dyn_held = dyn;
  for (cl_uint n = 0; n < f->nargs; ++n) {
    cls__argcache h = f->args[n].held;
    f->args[n].held = o->held[n];
    o->held[n] = h;
  }
  return CL_SUCCESS;
}
