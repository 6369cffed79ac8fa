/* OpenCL backend: host memory kernels can reach, and managed memory.
 *
 * OpenCL gives kernels host memory in one portable way that needs no
 * per-pointer bookkeeping at launch: fine-grained SVM.  A fine-grained SVM
 * buffer (CL_DEVICE_SVM_FINE_GRAIN_BUFFER) is memory the host and the
 * device use at the same address without maps, which is what
 * clsHostAllocMapped and clsMallocManaged ask for; fine-grained system SVM
 * (CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) lets kernels use any host memory,
 * which registered memory needs.  A device without them cannot give
 * kernels such memory here: the calls say so with clsErrorNotSupported and
 * a reason, and the device's properties (canMapHostMemory, managedMemory,
 * pageableMemoryAccess) say so in advance.
 *
 * Also pinned host memory (clsMallocHost): owns pinned_lock and the
 * list it guards. */
#include "command.h"

#include <stdlib.h>
#include <time.h>

clsError_t cls__b_host_alloc(int dev, size_t size, unsigned flags, void **out,
                             int *kind) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if ((flags & clsHostAllocMapped) && d->ident.fine_grain) {
    void *p = clSVMAlloc(
        d->ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 0);
    if (!p)
      return cls__reason(clsErrorMemoryAllocation,
                         "clSVMAlloc of %zu bytes of fine-grained SVM failed "
                         "on device %d",
                         size, dev);
    *out = p;
    *kind = CLS__MEM_HOST_MAPPED;
    return clsSuccess;
  }
  /* Without fine-grained SVM, mapped memory is ordinary pinned memory, and
   * clsHostGetDevicePointer reports that kernels cannot reach it (CUDA
   * defers the failure to that call too).  Portable needs nothing: a
   * platform's devices share one context.  WriteCombined has no OpenCL
   * counterpart and is a hint. */
  *kind = CLS__MEM_HOST;
  return cls__b_malloc_host(dev, size, out);
}

void cls__b_free_host_mapped(int dev, void *p) {
  clSVMFree(cls__ocl_device_get(dev)->ctx, p);
}

clsError_t cls__b_host_device_pointer(int dev, int kind, void *host,
                                      void **out) {
  const cls__ocl_device *d = cls__ocl_device_get(dev);
  if (kind == CLS__MEM_HOST_MAPPED ||
      (kind == CLS__MEM_REGISTERED && d->ident.system_svm)) {
    *out = host; /* the same address on the host and the device */
    return clsSuccess;
  }
  if (kind == CLS__MEM_REGISTERED)
    return cls__reason(clsErrorNotSupported,
                       "device %d (%s) cannot reach registered host memory: "
                       "it has no fine-grained system SVM "
                       "(pageableMemoryAccess 0); allocate with "
                       "clsHostAlloc(clsHostAllocMapped) instead",
                       dev, d->name);
  if (!d->ident.fine_grain)
    return cls__reason(clsErrorNotSupported,
                       "device %d (%s) cannot map host memory: it has no "
                       "fine-grained SVM (canMapHostMemory 0)",
                       dev, d->name);
  return cls__reason(clsErrorNotSupported,
                     "%p is pinned host memory allocated without "
                     "clsHostAllocMapped, which kernels cannot reach on "
                     "OpenCL; allocate it with clsHostAllocMapped",
                     host);
}

clsError_t cls__b_host_register(int dev, void *p, size_t size, unsigned flags) {
  (void)p;
  (void)size;
  if (flags & clsHostRegisterIoMemory)
    return cls__reason(clsErrorNotSupported,
                       "clsHostRegisterIoMemory: OpenCL cannot register "
                       "memory-mapped I/O on device %d",
                       dev);
  /* SVM copies read and write host memory in place, so registered memory
   * needs nothing from the driver: copies treat it as pinned (no staging,
   * no wait) and the caller keeps it alive until they are done, as CUDA
   * requires.  The pages are not locked with the operating system. */
  return clsSuccess;
}

void cls__b_host_unregister(int dev, void *p) {
  (void)dev;
  (void)p;
}

clsError_t cls__b_malloc_managed(int dev, size_t size, unsigned flags,
                                 void **out) {
  (void)flags; /* one device per context queue: Global and Host alike */
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (!d->ident.fine_grain)
    return cls__reason(clsErrorNotSupported,
                       "device %d (%s) has no fine-grained SVM, which managed "
                       "memory needs on OpenCL (managedMemory 0)",
                       dev, d->name);
  void *p = clSVMAlloc(d->ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                       size, 0);
  if (!p)
    return cls__reason(clsErrorMemoryAllocation,
                       "clSVMAlloc of %zu bytes of fine-grained SVM failed on "
                       "device %d",
                       size, dev);
  *out = p;
  return clsSuccess;
}

void cls__b_free_managed(int dev, void *p) {
  clSVMFree(cls__ocl_device_get(dev)->ctx, p);
}

/* ---- Pinned host memory (clsMallocHost) ------------------------------- */

/* Host memory for async copies: page-locked where the driver can give it,
 * through OpenCL's one portable way, a buffer allocated by the driver in
 * host memory (CL_MEM_ALLOC_HOST_PTR) and kept mapped until it is freed.
 * Copies read and write it in place, as host memory. */
typedef struct cls__pinned {
  void *p;
  cl_mem buf;
  cls__ocl_device *dev;
  struct cls__pinned *next;
} cls__pinned;

static pthread_mutex_t cls__pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__pinned *cls__pinned_list;

clsError_t cls__b_malloc_host(int dev, size_t size, void **out) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (d->ident.max_alloc && size > d->ident.max_alloc) /* as cls__buf_alloc */
    return cls__reason(clsErrorMemoryAllocation,
                       "%zu bytes exceed device %d's largest allocation "
                       "(CL_DEVICE_MAX_MEM_ALLOC_SIZE, %llu bytes)",
                       size, d->index, (unsigned long long)d->ident.max_alloc);
  cls__pinned *pn = malloc(sizeof *pn);
  if (!pn) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  cl_int err;
  pn->buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                           size, NULL, &err);
  if (err == CL_SUCCESS) {
    pn->p = clEnqueueMapBuffer(d->mapq, pn->buf, CL_TRUE,
                               CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL,
                               NULL, &err);
    if (err != CL_SUCCESS) clReleaseMemObject(pn->buf);
  }
  if (err != CL_SUCCESS) {
    free(pn);
    return cls__reason(clsErrorMemoryAllocation,
                       "allocating %zu bytes of host memory failed "
                       "(OpenCL error %d)",
                       size, (int)err);
  }
  pn->dev = d;
  pthread_mutex_lock(&cls__pinned_lock);
  pn->next = cls__pinned_list;
  cls__pinned_list = pn;
  pthread_mutex_unlock(&cls__pinned_lock);
  *out = pn->p;
  return clsSuccess;
}

clsError_t cls__b_free_host(int dev, void *p) {
  (void)dev;
  pthread_mutex_lock(&cls__pinned_lock);
  cls__pinned **at = &cls__pinned_list;
  while (*at && (*at)->p != p) at = &(*at)->next;
  cls__pinned *pn = *at;
  if (pn) *at = pn->next;
  pthread_mutex_unlock(&cls__pinned_lock);
  if (!pn) return clsSuccess;
  /* The buffer goes once the unmap is done (OpenCL defers a released
   * object's deletion until the commands that use it finish).  A buffer
   * released while still mapped keeps its host memory (PoCL), so a failed
   * unmap (out of resources: transient) is retried. */
  for (int i = 0; i < 100; ++i) {
    if (clEnqueueUnmapMemObject(pn->dev->mapq, pn->buf, p, 0, NULL, NULL) ==
        CL_SUCCESS) {
      cls__ocl_flush(pn->dev->mapq);
      break;
    }
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  clReleaseMemObject(pn->buf);
  free(pn);
  return clsSuccess;
}
