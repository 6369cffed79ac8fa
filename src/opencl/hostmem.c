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
 * pageableMemoryAccess) say so in advance. */
#include "ocl.h"

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
