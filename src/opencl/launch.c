/*
 * OpenCL backend: launches (clEnqueueNDRangeKernel): the launch path
 * allocates nothing and makes only the clSetKernelArg* calls its
 * arguments need (a cl_kernel keeps its arguments between enqueues) and
 * the enqueue.  The hidden arguments of the source rewrite (kernel_rw.c)
 * follow the caller's: a pointer's offset is set with its pointer (the
 * buffer path), the dynamic shared array when sharedMem changes.
 *
 * Launches leave the block size to the driver: CL_KERNEL_WORK_GROUP_SIZE
 * is a hint some drivers set far below what they run (NVIDIA reports 256
 * and runs 1024, rusticl reports 32 and runs 64), so the launch goes to
 * the driver and its refusal (CL_INVALID_WORK_GROUP_SIZE,
 * CL_OUT_OF_RESOURCES) becomes CUDA's clsErrorLaunchOutOfResources.
 *
 * One rule for the forms of a pointer argument: where the driver refuses
 * a buffer on an argument that once held an SVM pointer (facts.c,
 * svm_args_stick: NVIDIA's), a launch whose buffer meets such an
 * argument swaps the function's kernel object for its other one
 * (cls__ocl_function_swap, function.c) and sets its arguments there.
 * cls__form_seen decides it, for every way a pointer is set here: the
 * argument cache's, the offset variant's and the buffer-and-offset form.
 *
 * A cl_kernel's arguments are shared state, so each function has a lock
 * (function.lock, owned here) held from the first clSetKernelArg to the
 * enqueue.  In the lock order it comes after stream.lock, which
 * cls__ocl_begin_cmd takes.
 */
#include "function.h"

#include <stdio.h>
#include <string.h>

/* ---- Launches ---------------------------------------------------------- */

/* Not an OpenCL code: a pointer argument went as a buffer where the kernel
 * object once held an SVM pointer, on a driver that refuses it there; the
 * arguments go to the function's other kernel object instead. */
#define CLS__OCL_FORM_SWITCH (-1998)

/* Whether the buffer just set on an argument that held an SVM pointer
 * may stay there (CL_SUCCESS), or the arguments go to the other object;
 * a failed probe's code with *what naming it. */
static CLS__NOINLINE cl_int cls__form_rule(cls__ocl_device *d,
                                           const char **what) {
  int stick;
  cl_int err = cls__ocl_svm_args_stick(d, &stick); /* formprobe.c */
  if (err != CL_SUCCESS) *what = "the kernel argument form probe";
  return err != CL_SUCCESS ? err : stick ? CLS__OCL_FORM_SWITCH : CL_SUCCESS;
}

/* After a pointer argument of a kernel object went to the driver as an
 * SVM pointer (svm) or a buffer (!svm), with h its cache entry: records
 * the form, and says whether the object may be enqueued with it. */
static inline cl_int cls__form_seen(cls__ocl_device *d, cls__argcache *h,
                                    int svm, const char **what) {
  if (svm) {
    h->svm_ever = 1;
    return CL_SUCCESS;
  }
  return h->svm_ever ? cls__form_rule(d, what) : CL_SUCCESS;
}

/* Sets value argument i of f (one the cache keeps: v0, v1 is its value,
 * zero-padded) to the caller's a, which differs from what the kernel
 * object holds (under f->lock). */
static cl_int cls__set_kept(cls__bfunction *f, cl_uint i, const void *a,
                            uint64_t v0, uint64_t v1, const char **what) {
  CLS__ASSERT_HELD(&f->lock);
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

/* The launch's arguments move to f's other kernel object (under f->lock),
 * the object's own having refused a buffer on argument i
 * (CLS__OCL_FORM_SWITCH); *swapped counts the moves of this launch.  A
 * second move finds the other object's arguments of both forms too, and
 * makes it again, on which no third is needed. */
static CLS__NOINLINE cl_int cls__swap(cls__bfunction *f, cl_uint i,
                                      int *swapped, const char **what) {
  cl_int err = cls__ocl_function_swap(f, i, (*swapped)++ > 0);
  if (err != CL_SUCCESS) *what = "clCreateKernel (the other kernel object)";
  return err;
}

/* Sets pointer argument i of f to ptr (under f->lock), the argument
 * cache told that it changed: NULL in the form of the parameter's last
 * pointer, anything else as memory.c decides.  *what names the call or
 * the rule that refused it. */
static cl_int cls__set_pointer(cls__ocl_device *d, cls__bfunction *f, cl_uint i,
                               void *ptr, size_t gen, const char **what) {
  CLS__ASSERT_HELD(&f->lock);
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
    if (err == CL_SUCCESS &&
        (err = cls__form_seen(d, h, svm, what)) == CL_SUCCESS)
      h->svm = svm;
  }
  if (svm && err == CL_SUCCESS) h->svm_ever = 1;
  if (err == CL_SUCCESS && f->keep_args && (!ptr || svm)) {
    h->last[0] = (uint64_t)(uintptr_t)ptr;
    h->gen = gen;
    h->held = 1;
  }
  return err;
}

/* Sets pointer argument i of kernel object k to ptr as a buffer and, in
 * hidden argument off_arg, the pointer's offset in it (the buffer path's
 * rewrite, kernel_rw.c), so that any offset works.  A pointer that is not
 * a buffer's (mapped host memory, NULL) goes as before, at offset 0.
 * *svm says which form the pointer took. */
cl_int cls__ocl_set_ptr_off_arg(cls__ocl_device *d, cl_kernel k, cl_uint i,
                                cl_uint off_arg, void *ptr, const char **what,
                                int *svm) {
  cl_mem mem;
  size_t off = 0;
  cl_int err;
  *svm = 0;
  *what = "clSetKernelArg";
  if (ptr && cls__ocl_arg_buffer_at(d, ptr, &mem, &off)) /* host memory too */
    err = clSetKernelArg(k, i, sizeof mem, &mem);
  else
    err = cls__ocl_set_pointer_arg(d, k, i, ptr, what, svm);
  if (err == CL_SUCCESS) {
    const cl_ulong o = off;
    *what = "clSetKernelArg";
    err = clSetKernelArg(k, off_arg, sizeof o, &o);
  }
  return err;
}

/* cls__ocl_set_ptr_off_arg on f's kernel object (under f->lock), the
 * form it took told to cls__form_seen.  Never cached: a buffer is a
 * cl_mem a free may release. */
static cl_int cls__set_ptr_off(cls__ocl_device *d, cls__bfunction *f, cl_uint i,
                               void *ptr, const char **what) {
  CLS__ASSERT_HELD(&f->lock);
  cls__oarg *p = &f->args[i];
  int svm;
  p->held.held = 0;
  cl_int err =
      cls__ocl_set_ptr_off_arg(d, f->k, i, p->off_arg, ptr, what, &svm);
  return err == CL_SUCCESS ? cls__form_seen(d, &p->held, svm, what) : err;
}

/* Sets the hidden __local argument of CLS_DYNAMIC_SHARED to `bytes`
 * (under f->lock); a kernel object keeps it, so only a change is set.
 * OpenCL refuses a __local argument of 0 bytes: 0 sets 1. */
static cl_int cls__set_dyn(cls__bfunction *f, size_t bytes, const char **what) {
  CLS__ASSERT_HELD(&f->lock);
  bytes += !bytes;
  if (f->dyn_held == bytes) return CL_SUCCESS;
  f->dyn_held = 0;
  *what = "clSetKernelArg (the dynamic shared memory)";
  cl_int err = clSetKernelArg(f->k, (cl_uint)f->dyn, bytes, NULL);
  if (err == CL_SUCCESS) f->dyn_held = bytes;
  return err;
}

/* Sets f's arguments from args (under f->lock), skipping those the
 * kernel object holds already (cls__argcache).  Stops at the first that
 * fails: *i is its index (f->nargs when all were set) and *what names the
 * call or the rule that refused it (NULL: args[*i] is NULL). */
static cl_int cls__set_args(cls__ocl_device *d, cls__bfunction *f, void **args,
                            cl_uint *i, const char **what) {
  CLS__ASSERT_HELD(&f->lock);
  /* Read once, before memory.c's lookups: a free after it makes every
   * pointer cached now stale. */
  const size_t gen = cls__mem_gen();
  const cl_uint nargs = f->nuser;
  cl_int err = CL_SUCCESS;
  cl_uint n = 0;
  int swapped = 0;
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
    case CLS__OP_PTR_OFF:
      err = cls__set_ptr_off(d, f, n, *(void *const *)a, what);
      break;
    default: { /* CLS__OP_VEC3 */
      unsigned char v3[CLS__VEC3_MAX] = {0};
      memcpy(v3, a, p->copy);
      *what = "clSetKernelArg";
      err = clSetKernelArg(f->k, n, p->size, v3);
      break;
    }
    }
    if (CLS__UNLIKELY(err != CL_SUCCESS)) {
      /* The other kernel object, then every argument again (its cache
       * skips those it holds). */
      if (err == CLS__OCL_FORM_SWITCH &&
          (err = cls__swap(f, n, &swapped, what)) == CL_SUCCESS) {
        n = (cl_uint)-1;
        continue;
      }
      break;
    }
  }
  *i = n;
  return err;
}

/* Sets every argument of offset variant v from args (under v->lock),
 * none skipped (its launches are rare).  A pointer goes as its buffer and
 * offset where the variant has its offset argument, as on the buffer
 * path.  Returns as cls__set_args. */
static cl_int cls__set_variant_args(cls__ocl_device *d, cls__bfunction *v,
                                    void **args, cl_uint *i,
                                    const char **what) {
  CLS__ASSERT_HELD(&v->lock);
  cl_int err = CL_SUCCESS;
  cl_uint n = 0;
  int swapped = 0;
  for (; n < v->nuser && err == CL_SUCCESS; ++n) {
    const cls__oarg *p = &v->args[n];
    const void *a = args[n];
    if (!a) {
      *i = n;
      *what = NULL;
      return CL_INVALID_ARG_VALUE;
    }
    *what = "clSetKernelArg";
    if (p->kind == CLS__ARG_POINTER) {
      void *ptr = *(void *const *)a;
      int svm = 0;
      if (p->op == CLS__OP_PTR_OFF) {
        err = cls__set_ptr_off(d, v, n, ptr, what);
      } else if (!ptr && v->args[n].held.svm_ever) { /* the SVM NULL */
        err = clSetKernelArgSVMPointer(v->k, n, NULL);
      } else {
        err = cls__ocl_set_pointer_arg(d, v->k, n, ptr, what, &svm);
        if (err == CL_SUCCESS)
          err = cls__form_seen(d, &v->args[n].held, svm, what);
      }
      if (err == CLS__OCL_FORM_SWITCH &&
          (err = cls__swap(v, n, &swapped, what)) == CL_SUCCESS) {
        n = (cl_uint)-1;
        continue;
      }
    } else if (p->kind == CLS__ARG_VEC3) {
      unsigned char v3[CLS__VEC3_MAX] = {0};
      memcpy(v3, a, p->copy);
      err = clSetKernelArg(v->k, n, p->size, v3);
    } else {
      err = clSetKernelArg(v->k, n, p->size, a);
    }
    if (err != CL_SUCCESS) break;
  }
  *i = n;
  return err;
}

/* The launch's arguments set on f's offset variant instead (under
 * f->lock), after setting them on f stopped at argument *i, a host buffer
 * at an offset no sub-buffer takes (CLS__OCL_NEEDS_OFFSET, memory.c).
 * The variant is made on first need; its lock is taken and *run set to it
 * (the caller gives it back), else *run stays f.  Returns as
 * cls__set_args. */
static CLS__NOINLINE cl_int
cls__set_args_offsets(cls__ocl_device *d, cls__bfunction *f, void **args,
                      cls__bfunction **run, cl_uint *i, const char **what) {
  CLS__ASSERT_HELD(&f->lock);
  const cl_uint at = *i;
  void *ptr = *(void *const *)args[at];
  char why[240];
  cls__bfunction *v;
  cl_int err = cls__ocl_function_offsets(f, &v, why, sizeof why);
  if (err != CL_SUCCESS) {
    char clause[300];
    snprintf(clause, sizeof clause,
             "the kernel's offset variant could not be made (%s)", why);
    *what = cls__ocl_offset_refusal(d, ptr, clause);
    /* A fact of the source is InvalidValue; the driver's other failures
     * (out of resources: transient) keep their codes. */
    return err == CL_INVALID_VALUE || err == CL_BUILD_PROGRAM_FAILURE
               ? CL_INVALID_ARG_VALUE
               : err;
  }
  cls__lock_take(&v->lock);
  *run = v;
  err = cls__set_variant_args(d, v, args, i, what);
  if (err == CLS__OCL_NEEDS_OFFSET) {
    /* A parameter the rewrite gave no offset argument. */
    *what = cls__ocl_offset_refusal(
        d, *(void *const *)args[*i],
        "the parameter has no offset argument (the kernel has more "
        "pointer parameters than the rewrite gives offset arguments)");
    err = CL_INVALID_ARG_VALUE;
  }
  return err;
}

/* The rest of a launch of f on s whose arguments did not all go to f's
 * kernel object (CLS__OCL_NEEDS_OFFSET at argument *i): it sets them on
 * the offset variant and enqueues that, as cls__b_launch does with f
 * (under f->lock, taking the variant's lock around it).  Such a launch
 * passes a host buffer, so the kernel gets its event *ev and the buffers
 * go back to the host after it (*tail: the map's event, or NULL).
 * Returns the error, *i and *what as cls__b_launch reads them. */
static CLS__NOINLINE cl_int cls__launch_variant(
    cls__bstream *s, cls__bfunction *f, void **args, size_t sharedMem,
    const size_t *global, const size_t *local, const cls__ocl_batch *b,
    cl_event *ev, cl_event *tail, cl_uint *i, const char **what) {
  cls__bfunction *v = f;
  cl_int err = cls__set_args_offsets(s->dev, f, args, &v, i, what);
  if (v->dyn >= 0 && *i == f->nuser &&
      (err = cls__set_dyn(v, sharedMem, what)) != CL_SUCCESS)
    *i = (cl_uint)v->dyn;
  if (*i == f->nuser) {
    *what = "clEnqueueNDRangeKernel";
    err = cls__ocl_host_args_unmap(s->q, what); /* hostargs.c */
    if (err == CL_SUCCESS)
      err = clEnqueueNDRangeKernel(s->q, v->k, 3, NULL, global, local, b->n,
                                   b->list, ev);
  }
  *tail = cls__ocl_host_args_remap(s->q, err == CL_SUCCESS ? *ev : NULL);
  if (v != f) cls__lock_give(&v->lock);
  return err;
}

clsError_t cls__b_launch(cls__bfunction *f, clsDim3 grid, clsDim3 block,
                         void **args, size_t sharedMem, cls__bstream *s) {
  if (CLS__UNLIKELY(f->bad >= 0))
    return cls__reason(clsErrorInvalidValue, "%s",
                       f->bad_msg ? f->bad_msg : "unsupported parameter");
  if (CLS__UNLIKELY(f->nuser && !args))
    return cls__reason(clsErrorInvalidValue,
                       "kernel '%s' has %u parameters but args is NULL",
                       f->name, (unsigned)f->nuser);
  if (CLS__UNLIKELY(sharedMem != 0) &&
      (f->static_local > s->dev->local_mem ||
       sharedMem > s->dev->local_mem - f->static_local))
    return cls__ocl_shared_error(f, sharedMem, s->dev->local_mem);
  const size_t local[3] = {block.x, block.y, block.z};
  const size_t global[3] = {(size_t)grid.x * block.x, (size_t)grid.y * block.y,
                            (size_t)grid.z * block.z};

  cls__ocl_batch b;
  cl_event ev = NULL;
  cl_int err = CL_SUCCESS;
  cl_uint i = 0;
  const char *what = NULL;

  cls__ocl_begin_cmd(s, &b);
  /* PoCL 4 and 5's kernel cache (kcguard.c): the launch needs its event. */
  const int guard = s->dev->facts.kc_guard;
  void *kc = guard ? cls__kc_enter(s, f->name, global, local, &b) : NULL;
  cls__lock_take(&f->lock);
  cl_event tail = NULL;
  err = cls__set_args(s->dev, f, args, &i, &what);
  if (CLS__LIKELY(err != CLS__OCL_NEEDS_OFFSET)) {
    if (CLS__UNLIKELY(f->dyn >= 0) && i == f->nuser &&
        (err = cls__set_dyn(f, sharedMem, &what)) != CL_SUCCESS)
      i = (cl_uint)f->dyn;
    /* Host buffers (hostargs.c) are given back after the kernel, and the
     * launch's event is then the last map's: the kernel needs an event. */
    const unsigned hargs = cls__ocl_host_args_noted();
    if (CLS__LIKELY(i == f->nuser)) {
      what = "clEnqueueNDRangeKernel";
      err = cls__ocl_host_args_unmap(s->q, &what); /* hostargs.c */
      if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(
            s->q, f->k, 3, NULL, global, local, b.n, b.list,
            guard || hargs ? &ev : cls__ocl_event_slot(s, &ev));
    }
    if (CLS__UNLIKELY(hargs))
      tail = cls__ocl_host_args_remap(s->q, err == CL_SUCCESS ? ev : NULL);
  } else {
    err = cls__launch_variant(s, f, args, sharedMem, global, local, &b, &ev,
                              &tail, &i, &what);
  }
  cls__lock_give(&f->lock);
  int ok = i == f->nuser && err == CL_SUCCESS;
  if (CLS__UNLIKELY(guard)) cls__kc_leave(kc, s, ok ? ev : NULL);
  if (CLS__UNLIKELY(tail)) {
    if (ok && ev) {
      clReleaseEvent(ev);
      ev = tail;
    } else {
      clReleaseEvent(tail);
    }
  }
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
  return cls__ocl_launch_error(f, err, i, what, local[0] * local[1] * local[2]);
}
