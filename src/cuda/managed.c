/* CUDA backend: managed memory's advice, prefetches and range attributes,
 * forwarded to the runtime (CUDA 13's forms, which take a cudaMemLocation;
 * CUDA 12's headers name them cudaMemAdvise_v2 and
 * cudaMemPrefetchAsync_v2). */
#include "cuda_be.h"

static struct cudaMemLocation cls__cuda_location(clsMemLocation loc) {
  struct cudaMemLocation l;
  l.type = (enum cudaMemLocationType)loc.type;
  l.id = loc.id;
  return l;
}

clsError_t cls__b_mem_advise(int dev, const void *p, size_t count, int advice,
                             clsMemLocation loc) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
#if CUDART_VERSION >= 13000
  return cls__cuda_rt(cudaMemAdvise(p, count, (enum cudaMemoryAdvise)advice,
                                    cls__cuda_location(loc)),
                      "cudaMemAdvise");
#else
  return cls__cuda_rt(cudaMemAdvise_v2(p, count, (enum cudaMemoryAdvise)advice,
                                       cls__cuda_location(loc)),
                      "cudaMemAdvise_v2");
#endif
}

clsError_t cls__b_mem_prefetch(cls__bstream *s, const void *p, size_t count,
                               clsMemLocation loc) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
#if CUDART_VERSION >= 13000
  return cls__cuda_rt(
      cudaMemPrefetchAsync(p, count, cls__cuda_location(loc), 0, s->s),
      "cudaMemPrefetchAsync");
#else
  return cls__cuda_rt(
      cudaMemPrefetchAsync_v2(p, count, cls__cuda_location(loc), 0, s->s),
      "cudaMemPrefetchAsync_v2");
#endif
}

int cls__b_mem_range_attribute(void *data, size_t size, int attr, const void *p,
                               size_t count, clsError_t *err) {
  *err =
      cls__cuda_rt(cudaMemRangeGetAttribute(
                       data, size, (enum cudaMemRangeAttribute)attr, p, count),
                   "cudaMemRangeGetAttribute");
  return 1;
}
