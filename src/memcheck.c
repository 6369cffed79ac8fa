/* Memory: where a pointer lies in the allocation table (memtab.c) and
 * whether a copy's sides are what its kind says, as clsMemcpy checks them
 * (memory.c's copies, graph.c's copy nodes). */
#include "memcheck.h"

#include <stdint.h>

cls__where cls__locate(const void *p) {
  cls__where w = {CLS__MEM_NONE, 0, -1};
  void *base;
  size_t size;
  int dev;
  int kind = cls__mem_lookup(p, &base, &size, &dev);
  if (kind != CLS__MEM_NONE) {
    w.kind = (enum cls__mem_kind)kind;
    w.avail = size - (size_t)((uintptr_t)p - (uintptr_t)base);
    w.dev = dev;
  }
  return w;
}

/* Checks that [p, p+n), located at w, lies in a device-accessible
 * allocation (device memory, or pinned host memory which the copy engine
 * can reach). */
clsError_t cls__check_dev_range(const cls__where *w, const void *p, size_t n,
                                const char *what) {
  if (w->kind == CLS__MEM_NONE)
    return cls__reason(clsErrorInvalidValue,
                       "%s %p is not in a clstream allocation", what, p);
  if (n > w->avail)
    return cls__reason(clsErrorInvalidValue,
                       "%s: %zu bytes run past the end of the allocation "
                       "(%zu bytes left)",
                       what, n, w->avail);
  return clsSuccess;
}

/* Whether memory of device `owner` can be used by a command of `dev`. */
int cls__reaches(int owner, int dev) {
  return owner == dev || cls__b_shares_memory(owner, dev);
}

/* Checks that device memory at w can be used by a command of `dev`. */
clsError_t cls__check_reach(const cls__where *w, const void *p, int dev,
                            const char *what) {
  if (!CLS__MEM_ON_DEVICE(w->kind) || cls__reaches(w->dev, dev))
    return clsSuccess;
  return cls__reason(clsErrorNotSupported,
                     "%s %p is memory of device %d, which does not share "
                     "memory with the stream's device %d (another OpenCL "
                     "platform)",
                     what, p, w->dev, dev);
}

/* Validates a copy and resolves clsMemcpyDefault.  *pageable_src and
 * *pageable_dst are set for host sides in ordinary (pageable) memory. */
clsError_t cls__copy_check(void *dst, const void *src, size_t n,
                           clsMemcpyKind kind, clsMemcpyKind *out,
                           cls__where *dw, cls__where *sw, int *pageable_dst,
                           int *pageable_src) {
  if ((unsigned)kind > clsMemcpyDefault)
    return cls__reason(clsErrorInvalidMemcpyDirection,
                       "kind %d is not a clsMemcpyKind", (int)kind);
  if (!dst || !src)
    return cls__reason(clsErrorInvalidValue, "%s is NULL", dst ? "src" : "dst");
  *dw = cls__locate(dst);
  *sw = cls__locate(src);
  if (kind == clsMemcpyDefault)
    kind = (clsMemcpyKind)((CLS__MEM_ON_DEVICE(sw->kind) ? 2 : 0) |
                           (CLS__MEM_ON_DEVICE(dw->kind) ? 1 : 0));
  int dst_dev =
      kind == clsMemcpyHostToDevice || kind == clsMemcpyDeviceToDevice;
  int src_dev =
      kind == clsMemcpyDeviceToHost || kind == clsMemcpyDeviceToDevice;
  clsError_t e = clsSuccess;
  if (dst_dev) e = cls__check_dev_range(dw, dst, n, "dst");
  if (e == clsSuccess && src_dev) e = cls__check_dev_range(sw, src, n, "src");
  /* Host sides inside a known allocation are range-checked too. */
  if (e == clsSuccess && !dst_dev && dw->kind != CLS__MEM_NONE && n > dw->avail)
    e = cls__reason(clsErrorInvalidValue,
                    "dst: %zu bytes run past the end "
                    "of the allocation",
                    n);
  if (e == clsSuccess && !src_dev && sw->kind != CLS__MEM_NONE && n > sw->avail)
    e = cls__reason(clsErrorInvalidValue,
                    "src: %zu bytes run past the end "
                    "of the allocation",
                    n);
  *out = kind;
  *pageable_dst = !dst_dev && dw->kind == CLS__MEM_NONE;
  *pageable_src = !src_dev && sw->kind == CLS__MEM_NONE;
  return e;
}
