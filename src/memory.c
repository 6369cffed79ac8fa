/* Memory: allocations, copies and sets (the allocation table they keep
 * is memtab.c). */
#include "internal.h"
#include "device.h"
#include "graph.h"
#include "memcheck.h"
#include "stream_resolve.h"

/* ---- Allocation ------------------------------------------------------- */

static clsError_t cls__alloc_common(void **out, size_t size, int kind) {
  if (!out) return cls__reason(clsErrorInvalidValue, "pointer is NULL");
  if (size == 0) {
    *out = NULL;
    return clsSuccess;
  }
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) return e;
  void *p = NULL;
  e = kind == CLS__MEM_DEVICE ? cls__b_malloc(dev, size, &p)
                              : cls__b_malloc_host(dev, size, &p);
  if (e != clsSuccess) return e;
  e = cls__mem_add(p, size, kind, dev);
  if (e != clsSuccess) {
    if (kind == CLS__MEM_DEVICE)
      (void)cls__b_free(dev, p);
    else
      (void)cls__b_free_host(dev, p);
    return e;
  }
  *out = p;
  return clsSuccess;
}

clsError_t cls__mem_release(int kind, int dev, void *p, size_t size) {
  switch (kind) {
  case CLS__MEM_DEVICE:
    return cls__b_free(dev, p);
  case CLS__MEM_HOST:
    return cls__b_free_host(dev, p);
  case CLS__MEM_POOL:
    cls__b_pool_free_now(dev, p, size);
    break;
  case CLS__MEM_MANAGED:
    cls__b_free_managed(dev, p);
    break;
  case CLS__MEM_HOST_MAPPED:
    cls__b_free_host_mapped(dev, p);
    break;
  default: /* registered memory is the caller's */
    break;
  }
  return clsSuccess;
}

/* Frees after the owning device's work is done, as cudaFree and
 * cudaFreeHost do (the backend waits, or its runtime does): clsFree
 * takes every kind of device memory (clsMalloc, clsMallocAsync,
 * clsMallocManaged), clsFreeHost both kinds of clsHostAlloc memory. */
static clsError_t cls__free_common(void *p, int kind) {
  if (!p) return clsSuccess;
  clsError_t e = cls__init();
  if (e != clsSuccess) return e;
  int dev;
  size_t size = 0;
  unsigned kinds =
      kind == CLS__MEM_DEVICE
          ? CLS__MEM_BIT(CLS__MEM_DEVICE) | CLS__MEM_BIT(CLS__MEM_POOL) |
                CLS__MEM_BIT(CLS__MEM_MANAGED)
          : CLS__MEM_BIT(CLS__MEM_HOST) | CLS__MEM_BIT(CLS__MEM_HOST_MAPPED);
  int k = cls__mem_remove(p, kinds, &dev, &size);
  if (k == CLS__MEM_NONE)
    return cls__reason(clsErrorInvalidValue, "%p is not the start of a %s", p,
                       kind == CLS__MEM_DEVICE
                           ? "device allocation"
                           : "clsMallocHost or clsHostAlloc allocation");
  e = cls__b_free_wait(dev);
  if (e != clsSuccess) {
    /* The device may still be using the memory: keep it (leaked) rather
     * than free it under running work. */
    return e;
  }
  return cls__mem_release(k, dev, p, size);
}

clsError_t clsMalloc(void **devPtr, size_t size) {
  CLS__NOT_IN_HOST_FN();
  if (CLS__CAPTURING()) CLS__CAP_UNSAFE("clsMalloc");
  CLS__RETURN(cls__alloc_common(devPtr, size, CLS__MEM_DEVICE));
}

clsError_t clsFree(void *devPtr) {
  CLS__NOT_IN_HOST_FN();
  if (CLS__CAPTURING()) CLS__CAP_UNSAFE("clsFree");
  CLS__RETURN(cls__free_common(devPtr, CLS__MEM_DEVICE));
}

clsError_t clsMallocHost(void **ptr, size_t size) {
  CLS__NOT_IN_HOST_FN();
  if (CLS__CAPTURING()) CLS__CAP_UNSAFE("clsMallocHost");
  CLS__RETURN(cls__alloc_common(ptr, size, CLS__MEM_HOST));
}

clsError_t clsFreeHost(void *ptr) {
  CLS__NOT_IN_HOST_FN();
  if (CLS__CAPTURING()) CLS__CAP_UNSAFE("clsFreeHost");
  CLS__RETURN(cls__free_common(ptr, CLS__MEM_HOST));
}

/* ---- Copies and sets --------------------------------------------------- */

static clsError_t cls__copy(void *dst, const void *src, size_t n,
                            clsMemcpyKind kind, clsStream_t sh, int sync) {
  clsMemcpyKind k = kind;
  int pdst = 1, psrc = 1;
  cls__where dw = {CLS__MEM_NONE, 0, -1}, sw = dw;
  clsError_t e = cls__copy_check(dst, src, n, kind, &k, &dw, &sw, &pdst, &psrc);
  if (e != clsSuccess || n == 0) return e;
  int dev;
  cls__bstream *s;
  e = cls__stream_resolve(sh, &dev, &s, NULL, NULL);
  if (e != clsSuccess) return e;
  /* What the host waits for, as CUDA 13 does (docs/semantics.md,
   * Memory and launches): clsMemcpy
   * between two device allocations returns at once (the legacy stream
   * orders it), and every other clsMemcpy, which touches host memory,
   * returns once the copy is done.  clsMemcpyAsync returns at once, except
   * that a copy into pageable memory completes first and a pageable
   * source is staged, so that the caller may reuse it on return. */
  int mode;
  if (sync)
    mode = (dw.kind == CLS__MEM_DEVICE && sw.kind == CLS__MEM_DEVICE
                ? CLS__COPY_ASYNC
                : CLS__COPY_BLOCKING) |
           CLS__COPY_SYNC_CALL;
  else
    mode = pdst ? CLS__COPY_BLOCKING : psrc ? CLS__COPY_STAGE : CLS__COPY_ASYNC;
  /* CUDA 13 runs a host-to-host clsMemcpyAsync on the legacy stream as
   * the synchronous call would: it returns once the stream's earlier work
   * and the copy are done, whichever side is pinned (measured on the
   * H200; docs/semantics.md, Rows confirmed later). */
  if (!sync && (sh == NULL || sh == clsStreamLegacy) &&
      !CLS__MEM_ON_DEVICE(dw.kind) && !CLS__MEM_ON_DEVICE(sw.kind))
    mode = CLS__COPY_BLOCKING;
  /* Device memory the stream's device cannot reach (another OpenCL
   * platform's) is staged through the host, as CUDA's copy would work. */
  int ddev = CLS__MEM_ON_DEVICE(dw.kind) ? dw.dev : -1;
  int sdev = CLS__MEM_ON_DEVICE(sw.kind) ? sw.dev : -1;
  int across = (ddev >= 0 && !cls__reaches(ddev, dev)) ||
               (sdev >= 0 && !cls__reaches(sdev, dev));
  if (CLS__CAPTURING() &&
      cls__cap_copy(sh, s, dst, src, n, k, pdst, psrc, across, &e))
    return e;
  if (across) return cls__b_memcpy_across(s, dst, ddev, src, sdev, n, mode);
  return cls__b_memcpy(s, dst, src, n, k, mode);
}

clsError_t clsMemcpy(void *dst, const void *src, size_t count,
                     clsMemcpyKind kind) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__copy(dst, src, count, kind, clsStreamLegacy, 1));
}

clsError_t clsMemcpyAsync(void *dst, const void *src, size_t count,
                          clsMemcpyKind kind, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__copy(dst, src, count, kind, s, 0));
}

int cls__set_mode(int kind, int sync) {
  if (!sync) return CLS__COPY_ASYNC;
  /* cudaMemset of device memory returns at once; of pinned (either kind),
   * registered or managed memory it returns only once the legacy stream's
   * earlier work and the set are done (CUDA 13: 200.2-200.4 ms behind a
   * 200 ms host function; docs/semantics.md, Memory and launches). */
  int host_sees = kind == CLS__MEM_HOST || kind == CLS__MEM_HOST_MAPPED ||
                  kind == CLS__MEM_REGISTERED || kind == CLS__MEM_MANAGED;
  return (host_sees ? CLS__COPY_BLOCKING : CLS__COPY_ASYNC) |
         CLS__COPY_SYNC_CALL;
}

static clsError_t cls__set(void *p, int value, size_t n, clsStream_t sh,
                           int sync) {
  if (!p) return cls__reason(clsErrorInvalidValue, "devPtr is NULL");
  cls__where w = cls__locate(p);
  clsError_t e = cls__check_dev_range(&w, p, n, "devPtr");
  if (e != clsSuccess || n == 0) return e;
  int dev;
  cls__bstream *s;
  e = cls__stream_resolve(sh, &dev, &s, NULL, NULL);
  if (e == clsSuccess) e = cls__check_reach(&w, p, dev, "devPtr");
  if (e != clsSuccess) return e;
  int mode = cls__set_mode(w.kind, sync);
  if (CLS__CAPTURING() && cls__cap_set(sh, s, p, value, n, &e)) return e;
  return cls__b_memset(s, p, value, n, mode);
}

clsError_t clsMemset(void *devPtr, int value, size_t count) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__set(devPtr, value, count, clsStreamLegacy, 1));
}

clsError_t clsMemsetAsync(void *devPtr, int value, size_t count,
                          clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__set(devPtr, value, count, s, 0));
}
