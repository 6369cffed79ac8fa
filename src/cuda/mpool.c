/* CUDA backend: pool attributes and trim on the device's default pool,
 * free memory, peer access and 2-D copies and fills: each a forward to
 * its CUDA twin. */
#include "cuda_be.h"

_Static_assert((int)clsMemPoolAttrUsedMemHigh ==
                       (int)cudaMemPoolAttrUsedMemHigh &&
                   (int)clsMemPoolAttrReleaseThreshold ==
                       (int)cudaMemPoolAttrReleaseThreshold &&
                   (int)clsMemPoolReuseFollowEventDependencies ==
                       (int)cudaMemPoolReuseFollowEventDependencies,
               "clsMemPoolAttr must equal cudaMemPoolAttr");

clsError_t cls__b_pool_attr(int dev, int attr, int set,
                            unsigned long long *value) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  cudaMemPool_t pool;
  e = cls__cuda_rt(cudaDeviceGetDefaultMemPool(&pool, dev),
                   "cudaDeviceGetDefaultMemPool");
  if (e != clsSuccess) return e;
  /* The Reuse attributes are ints, the others cuuint64_t. */
  int small = attr <= (int)cudaMemPoolReuseAllowInternalDependencies;
  int iv = (int)*value;
  unsigned long long lv = *value; /* cuuint64_t */
  void *p = small ? (void *)&iv : (void *)&lv;
  if (set)
    return cls__cuda_rt(
        cudaMemPoolSetAttribute(pool, (enum cudaMemPoolAttr)attr, p),
        "cudaMemPoolSetAttribute");
  e = cls__cuda_rt(cudaMemPoolGetAttribute(pool, (enum cudaMemPoolAttr)attr, p),
                   "cudaMemPoolGetAttribute");
  if (e == clsSuccess) *value = small ? (unsigned long long)iv : lv;
  return e;
}

clsError_t cls__b_pool_trim(int dev, size_t keep) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  cudaMemPool_t pool;
  e = cls__cuda_rt(cudaDeviceGetDefaultMemPool(&pool, dev),
                   "cudaDeviceGetDefaultMemPool");
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaMemPoolTrimTo(pool, keep), "cudaMemPoolTrimTo");
}

clsError_t cls__b_mem_info(int dev, size_t held, size_t *free, size_t *total) {
  (void)held; /* the driver knows */
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaMemGetInfo(free, total), "cudaMemGetInfo");
}

int cls__b_can_access_peer(int dev, int peer) {
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, dev, peer) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return can;
}

clsError_t cls__b_peer_access(int dev, int peer, int on) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return on ? cls__cuda_rt(cudaDeviceEnablePeerAccess(peer, 0),
                           "cudaDeviceEnablePeerAccess")
            : cls__cuda_rt(cudaDeviceDisablePeerAccess(peer),
                           "cudaDeviceDisablePeerAccess");
}

/* As cls__b_memcpy: the synchronous call forwards to cudaMemcpy2D, which
 * decides what to wait for, the others to cudaMemcpy2DAsync. */
clsError_t cls__b_memcpy2d(cls__bstream *s, void *dst, size_t dpitch,
                           const void *src, size_t spitch, size_t width,
                           size_t height, clsMemcpyKind kind, int mode) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  if (mode & CLS__COPY_SYNC_CALL)
    return cls__cuda_rt(cudaMemcpy2D(dst, dpitch, src, spitch, width, height,
                                     (enum cudaMemcpyKind)kind),
                        "cudaMemcpy2D");
  e = cls__cuda_rt(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                     (enum cudaMemcpyKind)kind, s->s),
                   "cudaMemcpy2DAsync");
  /* A host-to-host copy on the legacy stream returns when done, as the
   * runtime makes it (the front asks for BLOCKING there). */
  if (e == clsSuccess && (mode & CLS__COPY_HOW) == CLS__COPY_BLOCKING &&
      kind == clsMemcpyHostToHost)
    e = cls__cuda_rt(cudaStreamSynchronize(s->s), "cudaStreamSynchronize");
  return e;
}

clsError_t cls__b_memset2d(cls__bstream *s, void *dst, size_t pitch, int value,
                           size_t width, size_t height, int mode) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  if (mode & CLS__COPY_SYNC_CALL)
    return cls__cuda_rt(cudaMemset2D(dst, pitch, value, width, height),
                        "cudaMemset2D");
  return cls__cuda_rt(cudaMemset2DAsync(dst, pitch, value, width, height, s->s),
                      "cudaMemset2DAsync");
}
