/* CUDA backend: stream-ordered allocation is the runtime's own
 * (cudaMallocAsync and cudaFreeAsync on the device's default pool). */
#include "cuda_be.h"

clsError_t cls__b_malloc_async(cls__bstream *s, size_t size, void **out) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaMallocAsync(out, size, s->s), "cudaMallocAsync");
}

clsError_t cls__b_free_async(cls__bstream *s, int dev, void *p, size_t size,
                             int kind) {
  (void)dev;
  (void)size;
  (void)kind; /* cudaFreeAsync takes cudaMalloc memory too */
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaFreeAsync(p, s->s), "cudaFreeAsync");
}

void cls__b_pool_free_now(int dev, void *p, size_t size) {
  (void)size;
  /* cudaFree takes stream-ordered allocations too. */
  if (cls__cuda_use(dev) == clsSuccess) (void)cudaFree(p);
}
