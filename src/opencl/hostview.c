/* OpenCL backend: host memory in kernels of other contexts (layer 3).
 *
 * Pinned, mapped, registered and managed memory is made for the device
 * current at the call (hostmem.c): a buffer over host memory, or
 * fine-grained SVM, of that device's context.  A cl_mem or an SVM pointer
 * belongs to one context, and devices of two platforms (or with
 * CLSTREAM_CONTEXT_PER_DEVICE=1) have two: a kernel on a device of
 * another context was given the owner's buffer, which its driver refused
 * (CL_INVALID_MEM_OBJECT at clSetKernelArg, CL_INVALID_CONTEXT at the
 * unmap before the kernel), or the SVM pointer was refused as another
 * platform's memory.  CUDA's host memory reaches every device.
 *
 * So a kernel argument into host memory owned by a device of another
 * context goes as a view: a buffer of the launching device's context over
 * the same host range (CL_MEM_USE_HOST_PTR, mapped for the host at the
 * same address as every host buffer), made on first need and kept until
 * the memory is freed (hostmem.c drops the views first).  Launches give it
 * to the device and back as any host buffer (hostargs.c, one state per
 * buffer of a range).  Only once a second context exists is anything
 * looked up: one atomic load per pointer argument before.
 *
 * Owns the views (a list under its own lock, a leaf but for the driver
 * calls that make a view, as the buffer table's sub-buffers are made). */
#include "hostview.h"

#include "hostargs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define CLS__VIEW_SUBS 8
typedef struct cls__view {
  uintptr_t base;
  size_t size;
  cls__ocl_device *dev; /* the device whose context it is of */
  cl_mem mem;
  struct {
    size_t off;
    cl_mem mem;
  } subs[CLS__VIEW_SUBS]; /* sub-buffers at aligned offsets */
  unsigned nsubs;
  struct cls__view *next;
} cls__view;

static pthread_mutex_t cls__views_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__view *cls__views;
static cl_context cls__first_ctx;
static atomic_int cls__views_on;

void cls__ocl_hostviews_context(cls__ocl_device *d) {
  pthread_mutex_lock(&cls__views_lock);
  if (!cls__first_ctx) cls__first_ctx = d->ctx;
  if (d->ctx != cls__first_ctx)
    atomic_store_explicit(&cls__views_on, 1, memory_order_release);
  pthread_mutex_unlock(&cls__views_lock);
}

/* Whether kind is host memory kernels of every device must reach. */
static int cls__host_kind(int kind) {
  return kind == CLS__MEM_HOST || kind == CLS__MEM_HOST_MAPPED ||
         kind == CLS__MEM_REGISTERED || kind == CLS__MEM_MANAGED;
}

/* A view of [base, +size) for d (under the lock), made on first need;
 * NULL if it cannot be made. */
static cls__view *cls__view_get(cls__ocl_device *d, uintptr_t base,
                                size_t size) {
  for (cls__view *v = cls__views; v; v = v->next)
    if (v->base == base && v->dev->ctx == d->ctx) return v;
  cls__view *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  cl_int err;
  v->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size,
                          (void *)base, &err);
  void *at = NULL;
  if (v->mem && err == CL_SUCCESS)
    at =
        clEnqueueMapBuffer(d->mapq, v->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                           0, size, 0, NULL, NULL, &err);
  if (at != (void *)base || err != CL_SUCCESS) {
    if (cls__log_enabled())
      fprintf(stderr,
              "clstream: host memory [%p, +%zu) could not be given to "
              "device %d (%s) (OpenCL error %d%s)\n",
              (void *)base, size, d->index, d->name, (int)err,
              at && at != (void *)base ? ", mapped elsewhere" : "");
    if (at && clEnqueueUnmapMemObject(d->mapq, v->mem, at, 0, NULL, NULL) ==
                  CL_SUCCESS)
      clFinish(d->mapq);
    if (v->mem) clReleaseMemObject(v->mem);
    free(v);
    return NULL;
  }
  v->base = base;
  v->size = size;
  v->dev = d;
  v->next = cls__views;
  cls__views = v;
  return v;
}

/* The sub-buffer of v from off to its end (under the lock), or NULL. */
static cl_mem cls__view_sub(cls__view *v, size_t off) {
  for (unsigned k = 0; k < v->nsubs; ++k)
    if (v->subs[k].off == off) return v->subs[k].mem;
  if (v->nsubs == CLS__VIEW_SUBS) return NULL;
  cl_buffer_region r = {off, v->size - off};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(v->mem, CL_MEM_READ_WRITE,
                                 CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  if (!sub || err != CL_SUCCESS) return NULL;
  v->subs[v->nsubs].off = off;
  v->subs[v->nsubs++].mem = sub;
  return sub;
}

int cls__ocl_hostview_at(cls__ocl_device *d, const void *p, cl_mem *mem,
                         size_t *off) {
  if (CLS__LIKELY(!atomic_load_explicit(&cls__views_on, memory_order_acquire)))
    return 0;
  void *base = NULL;
  size_t size = 0;
  int owner = -1;
  int kind = cls__mem_lookup(p, &base, &size, &owner);
  if (!cls__host_kind(kind) || owner < 0 ||
      cls__ocl_device_get(owner)->ctx == d->ctx)
    return 0;
  pthread_mutex_lock(&cls__views_lock);
  cls__view *v = cls__view_get(d, (uintptr_t)base, size);
  cl_mem m = v ? v->mem : NULL;
  size_t o = (uintptr_t)p - (uintptr_t)base;
  /* An aligned interior pointer as a sub-buffer (what the buffer table
   * does for its own), any other offset with the whole buffer. */
  if (m && o && o % d->facts.base_align == 0) {
    cl_mem sub = cls__view_sub(v, o);
    if (sub) {
      m = sub;
      o = 0;
    }
  }
  pthread_mutex_unlock(&cls__views_lock);
  if (!v) return 0;
  cls__ocl_harg_note(v->mem, base, size);
  *mem = m;
  *off = o;
  return 1;
}

unsigned cls__ocl_hostview_devices(const void *base, int *devs, unsigned max) {
  if (!atomic_load_explicit(&cls__views_on, memory_order_acquire)) return 0;
  unsigned n = 0;
  pthread_mutex_lock(&cls__views_lock);
  for (cls__view *v = cls__views; v && n < max; v = v->next)
    if (v->base == (uintptr_t)base) devs[n++] = v->dev->index;
  pthread_mutex_unlock(&cls__views_lock);
  return n;
}

void cls__ocl_hostviews_drop(const void *base) {
  if (!atomic_load_explicit(&cls__views_on, memory_order_acquire)) return;
  pthread_mutex_lock(&cls__views_lock);
  cls__view **at = &cls__views;
  int any = 0;
  while (*at) {
    cls__view *v = *at;
    if (v->base != (uintptr_t)base) {
      at = &v->next;
      continue;
    }
    *at = v->next;
    any = 1;
    for (unsigned k = 0; k < v->nsubs; ++k) clReleaseMemObject(v->subs[k].mem);
    /* Unmapped before the host has the memory alone again. */
    if (clEnqueueUnmapMemObject(v->dev->mapq, v->mem, (void *)v->base, 0, NULL,
                                NULL) == CL_SUCCESS)
      clFinish(v->dev->mapq);
    clReleaseMemObject(v->mem);
    free(v);
  }
  pthread_mutex_unlock(&cls__views_lock);
  if (any) cls__ocl_hargs_forget((void *)base);
}
