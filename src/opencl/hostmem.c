/* OpenCL backend: host memory kernels can reach, and managed memory.
 *
 * Every kind of host memory the library knows reaches kernels on every
 * device, as on CUDA with unified addressing:
 * - pinned memory (clsMallocHost, clsHostAlloc) is a buffer the driver
 *   allocates in host memory (CL_MEM_ALLOC_HOST_PTR), mapped for the host
 *   once and kept mapped until it is freed; with clsHostAllocMapped on a
 *   device with fine-grained SVM (and SVM memory) it is a fine-grained SVM
 *   buffer instead, used at the same address by host and kernels;
 * - registered memory (clsHostRegister) is a buffer over the caller's
 *   pages (CL_MEM_USE_HOST_PTR), mapped the same way, whose map gives back
 *   the caller's address (OpenCL promises it); with fine-grained system
 *   SVM kernels take the address itself;
 * - managed memory (clsMallocManaged) is fine-grained SVM where the
 *   device has it and SVM memory is in use (concurrentManagedAccess 1),
 *   and elsewhere pinned memory as above (concurrentManagedAccess 0: the
 *   host leaves it alone while kernels that use it run, as on CUDA devices
 *   without concurrent managed access).
 * A buffer-backed range is a host buffer of the buffer table (memory.h):
 * a kernel argument inside it becomes the buffer or a sub-buffer, copies
 * and fills still treat it as host memory.  A kernel thus uses a buffer
 * that stays mapped: zero-copy where the mapped pointer is the buffer's
 * memory, which the drivers that give CL_MEM_ALLOC_HOST_PTR or
 * CL_MEM_USE_HOST_PTR memory to a CPU device or over PCIe do; coherence
 * with the host is CUDA's, at synchronization points.
 *
 * Kernels of devices of other contexts (another platform) reach the same
 * memory through views (hostview.c), which a free drops first, after the
 * work of the devices holding them.
 *
 * Owns nothing but what it enters in the buffer table. */
#include "command.h"
#include "hostview.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ---- Host buffers ------------------------------------------------------ */

/* Waits until d's map queue is done (an unmap before its memory is the
 * caller's again), retrying a failed wait (out of resources: transient). */
static void cls__mapq_drain(cls__ocl_device *d) {
  for (int i = 0; i < 100 && clFinish(d->mapq) != CL_SUCCESS; ++i) {
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
}

/* A buffer of `size` bytes over host memory, mapped for the host: the
 * driver's (host NULL) or the caller's at `host`.  *out gets the host
 * address and the buffer table gets the entry. */
static clsError_t cls__hostbuf_new(cls__ocl_device *d, size_t size, void *host,
                                   void **out) {
  if (d->ident.max_alloc && size > d->ident.max_alloc) /* as cls__buf_alloc */
    return cls__reason(clsErrorMemoryAllocation,
                       "%zu bytes exceed device %d's largest allocation "
                       "(CL_DEVICE_MAX_MEM_ALLOC_SIZE, %llu bytes)",
                       size, d->index, (unsigned long long)d->ident.max_alloc);
  cl_int err;
  cl_mem_flags fl =
      CL_MEM_READ_WRITE | (host ? CL_MEM_USE_HOST_PTR : CL_MEM_ALLOC_HOST_PTR);
  cl_mem buf = clCreateBuffer(d->ctx, fl, size, host, &err);
  void *p = NULL;
  if (err == CL_SUCCESS) {
    p = clEnqueueMapBuffer(d->mapq, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                           size, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) clReleaseMemObject(buf);
  }
  if (err != CL_SUCCESS)
    return cls__reason(clsErrorMemoryAllocation,
                       "a buffer over %zu bytes of host memory failed on "
                       "device %d (OpenCL error %d)",
                       size, d->index, (int)err);
  clsError_t e = clsSuccess;
  if (host && p != host)
    e = cls__reason(clsErrorNotSupported,
                    "device %d (%s) mapped registered memory at %p to %p, "
                    "not in place",
                    d->index, d->name, host, p);
  if (e == clsSuccess) e = cls__ocl_hostbuf_add(p, size, buf);
  if (e != clsSuccess) {
    if (clEnqueueUnmapMemObject(d->mapq, buf, p, 0, NULL, NULL) == CL_SUCCESS)
      cls__mapq_drain(d);
    clReleaseMemObject(buf);
    return e;
  }
  *out = p;
  return clsSuccess;
}

/* Drops the views of the host memory at p (hostview.c), once the work of
 * the devices holding them is done (the owner's the front waited for). */
static void cls__views_free(void *p) {
  int devs[8];
  unsigned n = cls__ocl_hostview_devices(p, devs, 8);
  for (unsigned k = 0; k < n; ++k) (void)cls__b_free_wait(devs[k]);
  if (n) cls__ocl_hostviews_drop(p);
}

/* Frees the host buffer starting at p, if there is one (0: none).  The
 * buffer goes once the unmap is done (OpenCL defers a released object's
 * deletion until the commands that use it finish).  A buffer released
 * while still mapped keeps its host memory (PoCL), so a failed unmap (out
 * of resources: transient) is retried.  Registered memory (`wait`) is the
 * caller's again only once the unmap is done: that wait's failure is
 * returned (CL_SUCCESS otherwise). */
static cl_int cls__hostbuf_free(cls__ocl_device *d, void *p, int wait,
                                int *found) {
  cls__views_free(p);
  cl_mem buf;
  *found = cls__ocl_hostbuf_remove(p, &buf);
  if (!*found) return CL_SUCCESS;
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 100; ++i) {
    if (clEnqueueUnmapMemObject(d->mapq, buf, p, 0, NULL, NULL) == CL_SUCCESS) {
      if (wait)
        err = clFinish(d->mapq);
      else
        cls__ocl_flush(d->mapq);
      break;
    }
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  clReleaseMemObject(buf);
  return err;
}

/* Whether memory for host and kernels at one address is fine-grained SVM
 * on d: only where the device has it and its memory is SVM. */
static int cls__fine_svm(const cls__ocl_device *d) {
  return d->ident.fine_grain && !d->facts.buffers;
}

static clsError_t cls__fine_alloc(cls__ocl_device *d, size_t size, void **out) {
  void *p = clSVMAlloc(d->ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                       size, 0);
  if (!p)
    return cls__reason(clsErrorMemoryAllocation,
                       "clSVMAlloc of %zu bytes of fine-grained SVM failed on "
                       "device %d",
                       size, d->index);
  *out = p;
  return clsSuccess;
}

/* ---- Pinned and mapped memory ------------------------------------------ */

clsError_t cls__b_host_alloc(int dev, size_t size, unsigned flags, void **out,
                             int *kind) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  /* Portable needs nothing: a platform's devices share one context.
   * WriteCombined has no OpenCL counterpart and is a hint. */
  if (!(flags & clsHostAllocMapped)) {
    *kind = CLS__MEM_HOST;
    return cls__b_malloc_host(dev, size, out);
  }
  *kind = CLS__MEM_HOST_MAPPED;
  if (cls__fine_svm(d)) return cls__fine_alloc(d, size, out);
  return cls__hostbuf_new(d, size, NULL, out);
}

void cls__b_free_host_mapped(int dev, void *p) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  int found;
  (void)cls__hostbuf_free(d, p, 0, &found);
  if (!found) clSVMFree(d->ctx, p);
}

clsError_t cls__b_host_device_pointer(int dev, int kind, void *host,
                                      void **out) {
  const cls__ocl_device *d = cls__ocl_device_get(dev);
  /* The same address on the host and the device: the launch path finds
   * the host buffer behind it, or passes it as an SVM pointer. */
  if (kind != CLS__MEM_REGISTERED || d->ident.system_svm ||
      cls__ocl_hostbuf_at(host)) {
    *out = host;
    return clsSuccess;
  }
  return cls__reason(clsErrorNotSupported,
                     "device %d (%s) cannot reach the registered range "
                     "holding %p: no buffer could be made over it (see the "
                     "reason clsHostRegister logged)",
                     dev, d->name, host);
}

clsError_t cls__b_malloc_host(int dev, size_t size, void **out) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  /* Fine-grained SVM where the device's memory is SVM: kernels take it at
   * any offset, with no map or unmap around them. */
  if (cls__fine_svm(d)) return cls__fine_alloc(d, size, out);
  return cls__hostbuf_new(d, size, NULL, out);
}

clsError_t cls__b_free_host(int dev, void *p) {
  cls__b_free_host_mapped(dev, p);
  return clsSuccess;
}

/* ---- Registered memory ------------------------------------------------- */

clsError_t cls__b_host_register(int dev, void *p, size_t size, unsigned flags) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (flags & clsHostRegisterIoMemory)
    return cls__reason(clsErrorNotSupported,
                       "clsHostRegisterIoMemory: OpenCL cannot register "
                       "memory-mapped I/O on device %d",
                       dev);
  /* Copies treat registered memory as pinned (no staging, no wait) and
   * the caller keeps it alive until they are done, as CUDA requires; the
   * pages are not locked with the operating system.  Kernels reach it
   * through a buffer over it, or as it is with fine-grained system SVM.
   * A range no buffer can cover (larger than the device's largest
   * allocation) is still registered for copies; clsHostGetDevicePointer
   * then refuses it. */
  if (d->ident.system_svm && !d->facts.buffers) return clsSuccess;
  void *at = NULL;
  clsError_t e = cls__hostbuf_new(d, size, p, &at);
  /* A driver's refusal (out of resources) fails the call, to be retried;
   * a range too large for one buffer, or one the driver would not use in
   * place, is registered for copies only. */
  if (e == clsSuccess || (e == clsErrorMemoryAllocation &&
                          !(d->ident.max_alloc && size > d->ident.max_alloc)))
    return e;
  if (cls__log_enabled())
    fprintf(stderr,
            "clstream: clsHostRegister: kernels cannot reach [%p, +%zu) on "
            "device %d\n",
            p, size, dev);
  return clsSuccess;
}

clsError_t cls__b_host_unregister(int dev, void *p) {
  int found;
  cl_int err = cls__hostbuf_free(cls__ocl_device_get(dev), p, 1, &found);
  if (err != CL_SUCCESS)
    return cls__ocl_error(err, "waiting for the unmap of registered memory");
  return clsSuccess;
}

/* ---- Managed memory ---------------------------------------------------- */

clsError_t cls__b_malloc_managed(int dev, size_t size, unsigned flags,
                                 void **out) {
  (void)flags; /* one device per context queue: Global and Host alike */
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (cls__fine_svm(d)) return cls__fine_alloc(d, size, out);
  return cls__hostbuf_new(d, size, NULL, out);
}

void cls__b_free_managed(int dev, void *p) { cls__b_free_host_mapped(dev, p); }
