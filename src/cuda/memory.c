/* CUDA backend: device and pinned host memory, copies and fills. */
#include "cuda_be.h"

clsError_t cls__b_malloc(int dev, size_t size, void **out) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaMalloc(out, size), "cudaMalloc");
}

/* cudaFree and cudaFreeHost wait for the device themselves. */
clsError_t cls__b_free_wait(int dev) {
  (void)dev;
  return clsSuccess;
}

clsError_t cls__b_free(int dev, void *p) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaFree(p), "cudaFree");
}

clsError_t cls__b_malloc_host(int dev, size_t size, void **out) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  /* With unified addressing, pinned memory serves every device. */
  return cls__cuda_rt(cudaMallocHost(out, size), "cudaMallocHost");
}

clsError_t cls__b_free_host(int dev, void *p) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaFreeHost(p), "cudaFreeHost");
}

/* clsMemcpyKind's values equal cudaMemcpyKind's. */
_Static_assert(clsMemcpyHostToHost == (int)cudaMemcpyHostToHost &&
                   clsMemcpyHostToDevice == (int)cudaMemcpyHostToDevice &&
                   clsMemcpyDeviceToHost == (int)cudaMemcpyDeviceToHost &&
                   clsMemcpyDeviceToDevice == (int)cudaMemcpyDeviceToDevice &&
                   clsMemcpyDefault == (int)cudaMemcpyDefault,
               "clsMemcpyKind must equal cudaMemcpyKind");

/* Each call forwards to its CUDA twin, which decides what the host waits
 * for: cudaMemcpy and cudaMemset for the synchronous calls (on the legacy
 * stream), cudaMemcpyAsync and cudaMemsetAsync (which stages pageable
 * sources and completes copies into pageable memory itself) for the
 * others.  The low bits of `mode`, the front's reading of CUDA's rules,
 * are what the runtime does anyway. */
clsError_t cls__b_memcpy(cls__bstream *s, void *dst, const void *src, size_t n,
                         clsMemcpyKind kind, int mode) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  if (mode & CLS__COPY_SYNC_CALL)
    return cls__cuda_rt(cudaMemcpy(dst, src, n, (enum cudaMemcpyKind)kind),
                        "cudaMemcpy");
  return cls__cuda_rt(
      cudaMemcpyAsync(dst, src, n, (enum cudaMemcpyKind)kind, s->s),
      "cudaMemcpyAsync");
}

/* Every device reaches every other's memory through unified addressing,
 * so the front never needs this; it is the plain copy. */
clsError_t cls__b_memcpy_across(cls__bstream *s, void *dst, int dst_dev,
                                const void *src, int src_dev, size_t n,
                                int mode) {
  (void)dst_dev;
  (void)src_dev;
  return cls__b_memcpy(s, dst, src, n, clsMemcpyDefault, mode);
}

clsError_t cls__b_memset(cls__bstream *s, void *dst, int value, size_t n,
                         int mode) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  if (mode & CLS__COPY_SYNC_CALL)
    return cls__cuda_rt(cudaMemset(dst, value, n), "cudaMemset");
  return cls__cuda_rt(cudaMemsetAsync(dst, value, n, s->s), "cudaMemsetAsync");
}
