/* Stream-ordered allocation (clsMallocAsync, clsFreeAsync): the front
 * validates and keeps the allocation table; the backend owns the pool (on
 * the CUDA build, the runtime's default memory pool). */
#include "graph.h"
#include "internal.h"
#include "stream_resolve.h"

clsError_t clsMallocAsync(void **devPtr, size_t size, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  if (!devPtr) CLS__RETURN(cls__reason(clsErrorInvalidValue, "devPtr is NULL"));
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(s, &dev, &b, NULL, NULL);
  if (e != clsSuccess) CLS__RETURN(e);
  if (CLS__CAPTURING() && cls__cap_refuse(s, b, "clsMallocAsync", &e))
    CLS__RETURN(e);
  if (size == 0) {
    *devPtr = NULL;
    CLS__RETURN(clsSuccess);
  }
  void *p = NULL;
  e = cls__b_malloc_async(b, size, &p);
  if (e != clsSuccess) CLS__RETURN(e);
  e = cls__mem_add(p, size, CLS__MEM_POOL, dev);
  if (e != clsSuccess) {
    /* No work has been given the memory yet: it goes straight back. */
    cls__b_pool_free_now(dev, p, size);
    CLS__RETURN(e);
  }
  *devPtr = p;
  CLS__RETURN(clsSuccess);
}

clsError_t clsFreeAsync(void *devPtr, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(s, &dev, &b, NULL, NULL);
  if (e != clsSuccess) CLS__RETURN(e);
  /* CUDA 13 frees NULL as a no-op (measured on the H200), as free does. */
  if (!devPtr) CLS__RETURN(clsSuccess);
  if (CLS__CAPTURING() && cls__cap_refuse(s, b, "clsFreeAsync", &e))
    CLS__RETURN(e);
  int adev;
  size_t size;
  int kind = cls__mem_remove(
      devPtr, CLS__MEM_BIT(CLS__MEM_POOL) | CLS__MEM_BIT(CLS__MEM_DEVICE),
      &adev, &size);
  if (kind == CLS__MEM_NONE)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "%p is not the start of a clsMallocAsync or "
                            "clsMalloc allocation",
                            devPtr));
  if (adev != dev && !cls__b_shares_memory(adev, dev)) {
    /* Memory of another OpenCL platform's device: its pool cannot follow
     * this stream's position, so the free waits here for the stream's
     * earlier work (CUDA's returns at once), then gives the memory back. */
    e = cls__b_stream_sync(b);
    if (e == clsSuccess) e = cls__mem_release(kind, adev, devPtr, size);
    if (e == clsSuccess) CLS__RETURN(clsSuccess);
  } else {
    e = cls__b_free_async(b, adev, devPtr, size, kind);
  }
  if (e != clsSuccess) {
    /* Not freed: the allocation is still the caller's. */
    (void)cls__mem_add(devPtr, size, kind, adev);
  }
  CLS__RETURN(e);
}
