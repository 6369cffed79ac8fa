/* Pitched memory and 2-D and 3-D copies and sets (clsMallocPitch,
 * clsMalloc3D, clsMemcpy2D, clsMemset2D, clsMemcpy3D and their async
 * forms).  The front checks the rows against the allocation table and
 * picks how the call returns, as memory.c does for 1-D copies; a 3-D copy
 * is one 2-D copy per slice. */
#include "internal.h"
#include "device.h"
#include "stream_resolve.h"

/* CUDA's pitch alignment on current GPUs (cudaDevAttrTexturePitchAlignment
 * is 32 there, but cudaMallocPitch rows start 512 bytes apart). */
#define CLS__PITCH_ALIGN ((size_t)512)

/* ---- Allocation ---------------------------------------------------------- */

static clsError_t cls__pitched_alloc(void **p, size_t *pitch, size_t width,
                                     size_t rows) {
  if (width == 0 || rows == 0) {
    *p = NULL;
    *pitch = 0;
    return clsSuccess;
  }
  if (width > SIZE_MAX - (CLS__PITCH_ALIGN - 1))
    return cls__reason(clsErrorMemoryAllocation, "width %zu is too large",
                       width);
  size_t pt = (width + CLS__PITCH_ALIGN - 1) & ~(CLS__PITCH_ALIGN - 1);
  if (rows > SIZE_MAX / pt)
    return cls__reason(clsErrorMemoryAllocation,
                       "%zu rows of %zu bytes overflow", rows, pt);
  clsError_t e = clsMalloc(p, pt * rows);
  if (e == clsSuccess) *pitch = pt;
  return e;
}

clsError_t clsMallocPitch(void **devPtr, size_t *pitch, size_t width,
                          size_t height) {
  CLS__NOT_IN_HOST_FN();
  if (!devPtr || !pitch)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "%s is NULL",
                            devPtr ? "pitch" : "devPtr"));
  CLS__RETURN(cls__pitched_alloc(devPtr, pitch, width, height));
}

clsError_t clsMalloc3D(clsPitchedPtr *pitchedDevPtr, clsExtent extent) {
  CLS__NOT_IN_HOST_FN();
  if (!pitchedDevPtr)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "pitchedDevPtr is NULL"));
  size_t rows = extent.height;
  if (extent.depth && rows > SIZE_MAX / extent.depth)
    CLS__RETURN(cls__reason(clsErrorMemoryAllocation, "extent overflows"));
  rows *= extent.depth;
  void *p = NULL;
  size_t pitch = 0;
  clsError_t e = cls__pitched_alloc(&p, &pitch, extent.width, rows);
  if (e == clsSuccess)
    *pitchedDevPtr = make_clsPitchedPtr(p, pitch, extent.width, extent.height);
  CLS__RETURN(e);
}

/* ---- Checks -------------------------------------------------------------- */

/* One side of a 2-D command: its pointer's allocation. */
typedef struct cls__side {
  int kind; /* enum cls__mem_kind */
  int dev;
} cls__side;

/* Checks the rows [p, p + (height-1)*pitch + width): device memory (dev
 * set) must lie in an allocation; host memory in a known allocation must
 * stay in it.  The caller checked width <= pitch and width, height > 0. */
static clsError_t cls__rows_check(const void *p, size_t pitch, size_t width,
                                  size_t height, int dev, const char *what,
                                  cls__side *side) {
  void *base = NULL;
  size_t size = 0;
  side->kind = cls__mem_lookup(p, &base, &size, &side->dev);
  if (height - 1 > (SIZE_MAX - width) / pitch)
    return cls__reason(clsErrorInvalidValue, "%s: the rows overflow", what);
  size_t span = (height - 1) * pitch + width;
  if (dev && side->kind == CLS__MEM_NONE)
    return cls__reason(clsErrorInvalidValue,
                       "%s %p is not in a clstream allocation", what, p);
  if (side->kind != CLS__MEM_NONE &&
      span > size - (size_t)((uintptr_t)p - (uintptr_t)base))
    return cls__reason(clsErrorInvalidValue,
                       "%s: %zu rows of %zu bytes, %zu apart, run past the "
                       "end of the allocation",
                       what, height, width, pitch);
  return clsSuccess;
}

/* A 2-D copy, checked: kind resolved into *k, both sides looked up. */
static clsError_t cls__2d_check(void *dst, size_t dpitch, const void *src,
                                size_t spitch, size_t width, size_t height,
                                clsMemcpyKind kind, clsMemcpyKind *k,
                                cls__side *ds, cls__side *ss) {
  if ((unsigned)kind > clsMemcpyDefault)
    return cls__reason(clsErrorInvalidMemcpyDirection,
                       "kind %d is not a clsMemcpyKind", (int)kind);
  if (width > dpitch || width > spitch)
    return cls__reason(clsErrorInvalidPitchValue, "width %zu exceeds %s %zu",
                       width, width > dpitch ? "dpitch" : "spitch",
                       width > dpitch ? dpitch : spitch);
  if (!dst || !src)
    return cls__reason(clsErrorInvalidValue, "%s is NULL", dst ? "src" : "dst");
  ds->kind = ss->kind = CLS__MEM_NONE;
  ds->dev = ss->dev = -1;
  if (width == 0 || height == 0) return clsSuccess;
  if (kind == clsMemcpyDefault) {
    int dk = cls__mem_lookup(dst, NULL, NULL, NULL);
    int sk = cls__mem_lookup(src, NULL, NULL, NULL);
    kind = (clsMemcpyKind)((CLS__MEM_ON_DEVICE(sk) ? 2 : 0) |
                           (CLS__MEM_ON_DEVICE(dk) ? 1 : 0));
  }
  *k = kind;
  int dd = kind == clsMemcpyHostToDevice || kind == clsMemcpyDeviceToDevice;
  int sd = kind == clsMemcpyDeviceToHost || kind == clsMemcpyDeviceToDevice;
  clsError_t e = cls__rows_check(dst, dpitch, width, height, dd, "dst", ds);
  if (e == clsSuccess)
    e = cls__rows_check(src, spitch, width, height, sd, "src", ss);
  return e;
}

/* How the copy returns (memory.c's rules for 1-D copies, row by row). */
static int cls__2d_mode(const cls__side *ds, const cls__side *ss,
                        clsStream_t sh, int sync) {
  int ddev = CLS__MEM_ON_DEVICE(ds->kind), sdev = CLS__MEM_ON_DEVICE(ss->kind);
  if (sync)
    return (ds->kind == CLS__MEM_DEVICE && ss->kind == CLS__MEM_DEVICE
                ? CLS__COPY_ASYNC
                : CLS__COPY_BLOCKING) |
           CLS__COPY_SYNC_CALL;
  if (!ddev && !sdev && (sh == NULL || sh == clsStreamLegacy))
    return CLS__COPY_BLOCKING; /* host to host on the legacy stream */
  if (ds->kind == CLS__MEM_NONE) return CLS__COPY_BLOCKING;
  if (ss->kind == CLS__MEM_NONE) return CLS__COPY_STAGE;
  return CLS__COPY_ASYNC;
}

/* The mode of a piece before the last: it need not block (the last one,
 * in the same stream, waits for it). */
static int cls__early_mode(int mode) {
  int how = mode & CLS__COPY_HOW;
  return (mode & ~CLS__COPY_HOW) |
         (how == CLS__COPY_BLOCKING ? CLS__COPY_ASYNC : how);
}

/* Enqueues a checked 2-D copy on the resolved stream b of device dev. */
static clsError_t cls__2d_enqueue(cls__bstream *b, int dev, void *dst,
                                  size_t dpitch, const void *src, size_t spitch,
                                  size_t width, size_t height, clsMemcpyKind k,
                                  const cls__side *ds, const cls__side *ss,
                                  int mode) {
  int ddev = CLS__MEM_ON_DEVICE(ds->kind) ? ds->dev : -1;
  int sdev = CLS__MEM_ON_DEVICE(ss->kind) ? ss->dev : -1;
  int far = (ddev >= 0 && ddev != dev && !cls__b_shares_memory(ddev, dev)) ||
            (sdev >= 0 && sdev != dev && !cls__b_shares_memory(sdev, dev));
  if (!far)
    return cls__b_memcpy2d(b, dst, dpitch, src, spitch, width, height, k, mode);
  /* Memory of another platform's device: row by row through the host. */
  clsError_t e = clsSuccess;
  for (size_t r = 0; r < height && e == clsSuccess; ++r)
    e = cls__b_memcpy_across(b, (char *)dst + r * dpitch, ddev,
                             (const char *)src + r * spitch, sdev, width,
                             r + 1 == height ? mode : cls__early_mode(mode));
  return e;
}

static clsError_t cls__copy2d(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              clsMemcpyKind kind, clsStream_t sh, int sync) {
  clsMemcpyKind k = kind;
  cls__side ds, ss;
  clsError_t e = cls__2d_check(dst, dpitch, src, spitch, width, height, kind,
                               &k, &ds, &ss);
  if (e != clsSuccess || width == 0 || height == 0) return e;
  int dev;
  cls__bstream *b;
  e = cls__stream_resolve(sh, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  return cls__2d_enqueue(b, dev, dst, dpitch, src, spitch, width, height, k,
                         &ds, &ss, cls__2d_mode(&ds, &ss, sh, sync));
}

clsError_t clsMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t height, clsMemcpyKind kind) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__copy2d(dst, dpitch, src, spitch, width, height, kind,
                          clsStreamLegacy, 1));
}

clsError_t clsMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height,
                            clsMemcpyKind kind, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__copy2d(dst, dpitch, src, spitch, width, height, kind, s, 0));
}

/* ---- 2-D sets ------------------------------------------------------------ */

static clsError_t cls__set2d(void *p, size_t pitch, int value, size_t width,
                             size_t height, clsStream_t sh, int sync) {
  /* InvalidValue, not InvalidPitchValue as for copies (CUDA 13, H200). */
  if (width > pitch)
    return cls__reason(clsErrorInvalidValue, "width %zu exceeds pitch %zu",
                       width, pitch);
  if (!p) return cls__reason(clsErrorInvalidValue, "devPtr is NULL");
  if (width == 0 || height == 0) return clsSuccess;
  cls__side side;
  clsError_t e = cls__rows_check(p, pitch, width, height, 1, "devPtr", &side);
  if (e != clsSuccess) return e;
  int dev;
  cls__bstream *b;
  e = cls__stream_resolve(sh, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  if (CLS__MEM_ON_DEVICE(side.kind) && side.dev != dev &&
      !cls__b_shares_memory(side.dev, dev))
    return cls__reason(clsErrorNotSupported,
                       "devPtr %p is memory of device %d, which does not "
                       "share memory with the stream's device %d",
                       p, side.dev, dev);
  return cls__b_memset2d(b, p, pitch, value, width, height,
                         cls__set_mode(side.kind, sync));
}

clsError_t clsMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                       size_t height) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(
      cls__set2d(devPtr, pitch, value, width, height, clsStreamLegacy, 1));
}

clsError_t clsMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                            size_t height, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__set2d(devPtr, pitch, value, width, height, s, 0));
}

/* ---- 3-D copies ---------------------------------------------------------- */

/* Checks one side of a 3-D copy: the box must fit in its rows and, with
 * more than one slice, in its slice height. */
static clsError_t cls__3d_side(const clsPitchedPtr *pp, const clsPos *pos,
                               const clsExtent *ex, const char *what) {
  if (!pp->ptr)
    return cls__reason(clsErrorInvalidValue, "%s.ptr is NULL", what);
  if (pos->x > pp->pitch || ex->width > pp->pitch - pos->x)
    return cls__reason(clsErrorInvalidValue,
                       "%sPos.x %zu + extent.width %zu exceed the pitch %zu",
                       what, pos->x, ex->width, pp->pitch);
  if (ex->depth > 1 && (pos->y > pp->ysize || ex->height > pp->ysize - pos->y))
    return cls__reason(clsErrorInvalidValue,
                       "%sPos.y %zu + extent.height %zu exceed the slice "
                       "height %zu",
                       what, pos->y, ex->height, pp->ysize);
  return clsSuccess;
}

/* The first byte of slice z of the box. */
static char *cls__3d_at(const clsPitchedPtr *pp, const clsPos *pos, size_t z) {
  return (char *)pp->ptr + (pos->z + z) * pp->pitch * pp->ysize +
         pos->y * pp->pitch + pos->x;
}

static clsError_t cls__copy3d(const clsMemcpy3DParms *p, clsStream_t sh,
                              int sync) {
  if (!p) return cls__reason(clsErrorInvalidValue, "p is NULL");
  if (p->srcArray || p->dstArray)
    return cls__reason(clsErrorNotSupported,
                       "CUDA arrays are not in clstream (srcArray and "
                       "dstArray must be NULL)");
  if ((unsigned)p->kind > clsMemcpyDefault)
    return cls__reason(clsErrorInvalidMemcpyDirection,
                       "kind %d is not a clsMemcpyKind", (int)p->kind);
  const clsExtent *ex = &p->extent;
  clsError_t e = cls__3d_side(&p->dstPtr, &p->dstPos, ex, "dstPtr");
  if (e == clsSuccess) e = cls__3d_side(&p->srcPtr, &p->srcPos, ex, "srcPtr");
  if (e != clsSuccess || !ex->width || !ex->height || !ex->depth) return e;
  /* Each slice is checked as a 2-D copy; the first and last slices bound
   * the whole box, so checking them checks every slice between. */
  clsMemcpyKind k = p->kind;
  cls__side ds, ss;
  for (size_t z = 0; z < ex->depth; z += ex->depth - 1 ? ex->depth - 1 : 1) {
    e = cls__2d_check(cls__3d_at(&p->dstPtr, &p->dstPos, z), p->dstPtr.pitch,
                      cls__3d_at(&p->srcPtr, &p->srcPos, z), p->srcPtr.pitch,
                      ex->width, ex->height, p->kind, &k, &ds, &ss);
    if (e != clsSuccess) return e;
  }
  int dev;
  cls__bstream *b;
  e = cls__stream_resolve(sh, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  int mode = cls__2d_mode(&ds, &ss, sh, sync);
  for (size_t z = 0; z < ex->depth && e == clsSuccess; ++z)
    e = cls__2d_enqueue(b, dev, cls__3d_at(&p->dstPtr, &p->dstPos, z),
                        p->dstPtr.pitch, cls__3d_at(&p->srcPtr, &p->srcPos, z),
                        p->srcPtr.pitch, ex->width, ex->height, k, &ds, &ss,
                        z + 1 == ex->depth ? mode : cls__early_mode(mode));
  return e;
}

clsError_t clsMemcpy3D(const clsMemcpy3DParms *p) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__copy3d(p, clsStreamLegacy, 1));
}

clsError_t clsMemcpy3DAsync(const clsMemcpy3DParms *p, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__copy3d(p, s, 0));
}
