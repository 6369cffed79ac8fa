/* CUDA backend: device and pinned host memory, copies and fills. */
#include "cuda_be.h"

clsError_t cls__b_malloc(int dev, size_t size, void **out) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaMalloc(out, size), "cudaMalloc");
}

void cls__b_free(int dev, void *p) {
  if (cls__cuda_use(dev) == clsSuccess) (void)cudaFree(p);
}

clsError_t cls__b_malloc_host(int dev, size_t size, void **out) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  /* With unified addressing, pinned memory serves every device. */
  return cls__cuda_rt(cudaMallocHost(out, size), "cudaMallocHost");
}

void cls__b_free_host(int dev, void *p) {
  if (cls__cuda_use(dev) == clsSuccess) (void)cudaFreeHost(p);
}

/* clsMemcpyKind's values equal cudaMemcpyKind's. */
_Static_assert(clsMemcpyHostToHost == (int)cudaMemcpyHostToHost &&
                   clsMemcpyHostToDevice == (int)cudaMemcpyHostToDevice &&
                   clsMemcpyDeviceToHost == (int)cudaMemcpyDeviceToHost &&
                   clsMemcpyDeviceToDevice == (int)cudaMemcpyDeviceToDevice &&
                   clsMemcpyDefault == (int)cudaMemcpyDefault,
               "clsMemcpyKind must equal cudaMemcpyKind");

clsError_t cls__b_memcpy(cls__bstream *s, void *dst, const void *src, size_t n,
                         clsMemcpyKind kind, int mode) {
  /* CLS__COPY_STAGE: the CUDA runtime stages pageable memory itself. */
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  e = cls__cuda_rt(
      cudaMemcpyAsync(dst, src, n, (enum cudaMemcpyKind)kind, s->s),
      "cudaMemcpyAsync");
  if (e == clsSuccess && mode == CLS__COPY_BLOCKING)
    e = cls__cuda_rt(cudaStreamSynchronize(s->s), "cudaStreamSynchronize");
  return e;
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
                         int blocking) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  e = cls__cuda_rt(cudaMemsetAsync(dst, value, n, s->s), "cudaMemsetAsync");
  if (e == clsSuccess && blocking)
    e = cls__cuda_rt(cudaStreamSynchronize(s->s), "cudaStreamSynchronize");
  return e;
}
