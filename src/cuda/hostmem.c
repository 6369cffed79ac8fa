/* CUDA backend: pinned, mapped, registered and managed memory, forwarded
 * to the CUDA runtime. */
#include "cuda_be.h"

clsError_t cls__b_host_alloc(int dev, size_t size, unsigned flags, void **out,
                             int *kind) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  *kind = (flags & cudaHostAllocMapped) ? CLS__MEM_HOST_MAPPED : CLS__MEM_HOST;
  return cls__cuda_rt(cudaHostAlloc(out, size, flags), "cudaHostAlloc");
}

void cls__b_free_host_mapped(int dev, void *p) {
  if (cls__cuda_use(dev) == clsSuccess) (void)cudaFreeHost(p);
}

clsError_t cls__b_host_device_pointer(int dev, int kind, void *host,
                                      void **out) {
  (void)kind; /* the runtime decides, for every kind of pinned memory */
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaHostGetDevicePointer(out, host, 0),
                      "cudaHostGetDevicePointer");
}

clsError_t cls__b_host_register(int dev, void *p, size_t size, unsigned flags) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaHostRegister(p, size, flags), "cudaHostRegister");
}

clsError_t cls__b_host_unregister(int dev, void *p) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaHostUnregister(p), "cudaHostUnregister");
}

clsError_t cls__b_malloc_managed(int dev, size_t size, unsigned flags,
                                 void **out) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaMallocManaged(out, size, flags), "cudaMallocManaged");
}

void cls__b_free_managed(int dev, void *p) {
  if (cls__cuda_use(dev) == clsSuccess) (void)cudaFree(p);
}
