/* Managed memory's advice, prefetches and range attributes (clsMemAdvise,
 * clsMemPrefetchAsync, clsMemRangeGetAttribute).  The front checks every
 * argument and keeps, per managed allocation, what it was told: the
 * advice and the last prefetch's location.  Those records answer
 * clsMemRangeGetAttribute on OpenCL, where the driver keeps nothing; the
 * CUDA build asks the runtime.  Owns the advice table and its lock (a
 * range table, rangetab.h). */
#include "internal.h"
#include "device.h"
#include "managed.h"
#include "stream_resolve.h"

#include <stdint.h>
#include <string.h>

/* What one managed allocation was told.  A location of type Invalid is
 * none. */
typedef struct cls__advice {
  cls__range r;
  int read_mostly;
  clsMemLocation preferred, last_prefetch;
  uint64_t accessed_by; /* bit d: device d (d < 63); bit 63: the host */
} cls__advice;

#define CLS__HOST_BIT 63

static cls__rangetab cls__advices = CLS__RANGETAB_INIT(cls__advice);

void cls__advice_forget(void *p) {
  cls__rangetab_remove(&cls__advices, (uintptr_t)p, NULL, NULL, NULL);
}

/* Checks that [p, p+count) lies inside one managed allocation: *dev, *base
 * and *size get the allocation's. */
static clsError_t cls__managed_range(const void *p, size_t count, int *dev,
                                     void **base, size_t *size) {
  if (!p) return cls__reason(clsErrorInvalidValue, "devPtr is NULL");
  if (count == 0) return cls__reason(clsErrorInvalidValue, "count is 0");
  clsError_t e = cls__init();
  if (e != clsSuccess) return e;
  int kind = cls__mem_lookup(p, base, size, dev);
  if (kind != CLS__MEM_MANAGED)
    return cls__reason(clsErrorInvalidValue,
                       "%p is not in memory from clsMallocManaged", p);
  uintptr_t off = (uintptr_t)p - (uintptr_t)*base;
  if (count > *size - off)
    return cls__reason(clsErrorInvalidValue,
                       "[%p, +%zu) runs past the end of its managed "
                       "allocation (%zu bytes from %p)",
                       p, count, *size, *base);
  return clsSuccess;
}

/* Checks a location: the host (any of its forms) or a valid device. */
static clsError_t cls__location_ok(clsMemLocation loc) {
  switch (loc.type) {
  case clsMemLocationTypeHost:
  case clsMemLocationTypeHostNuma:
  case clsMemLocationTypeHostNumaCurrent:
    return clsSuccess;
  case clsMemLocationTypeDevice: {
    int n = cls__b_device_count();
    if (loc.id < 0 || loc.id >= n)
      return cls__reason(clsErrorInvalidDevice,
                         "location device %d is not in 0..%d", loc.id, n - 1);
    return clsSuccess;
  }
  default:
    return cls__reason(clsErrorInvalidValue,
                       "location type %d: it must be a device (1) or the "
                       "host (2, 3 or 4)",
                       (int)loc.type);
  }
}

/* The host's forms are one for the records. */
static clsMemLocation cls__location_kept(clsMemLocation loc) {
  if (loc.type != clsMemLocationTypeDevice)
    loc = (clsMemLocation){clsMemLocationTypeHost, 0};
  return loc;
}

/* Applies fn(record, arg) to the record of the allocation [base, +size),
 * made if there is none (a record left from an earlier allocation in the
 * way goes). */
static clsError_t cls__advice_update(void *base, size_t size,
                                     void (*fn)(cls__advice *, const void *),
                                     const void *arg) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    cls__rangetab_wrlock(&cls__advices);
    cls__advice *a = cls__rangetab_find(&cls__advices, (uintptr_t)base);
    if (a && a->r.base == (uintptr_t)base && a->r.size == size) {
      fn(a, arg);
      cls__rangetab_unlock(&cls__advices);
      return clsSuccess;
    }
    cls__rangetab_unlock(&cls__advices);
    cls__advice fresh = {{(uintptr_t)base, size}, 0, {0, 0}, {0, 0}, 0};
    cls__advice clash;
    int r = cls__rangetab_insert(&cls__advices, &fresh, &clash);
    if (r == CLS__RANGETAB_NOMEM)
      return cls__reason(clsErrorMemoryAllocation, "out of host memory");
    if (r == CLS__RANGETAB_OVERLAP)
      cls__rangetab_remove(&cls__advices, clash.r.base, NULL, NULL, NULL);
  }
  return cls__reason(clsErrorMemoryAllocation, "advice table in flux");
}

/* What one clsMemAdvise does to a record. */
typedef struct cls__advice_op {
  int advice;
  clsMemLocation loc;
} cls__advice_op;

static int cls__location_bit(clsMemLocation loc) {
  return loc.type == clsMemLocationTypeDevice && loc.id < CLS__HOST_BIT
             ? loc.id
             : CLS__HOST_BIT;
}

static void cls__advice_apply(cls__advice *a, const void *arg) {
  const cls__advice_op *op = arg;
  switch (op->advice) {
  case clsMemAdviseSetReadMostly:
  case clsMemAdviseUnsetReadMostly:
    a->read_mostly = op->advice == clsMemAdviseSetReadMostly;
    break;
  case clsMemAdviseSetPreferredLocation:
    a->preferred = cls__location_kept(op->loc);
    break;
  case clsMemAdviseUnsetPreferredLocation:
    a->preferred = (clsMemLocation){clsMemLocationTypeInvalid, 0};
    break;
  case clsMemAdviseSetAccessedBy:
    a->accessed_by |= UINT64_C(1) << cls__location_bit(op->loc);
    break;
  default: /* clsMemAdviseUnsetAccessedBy */
    a->accessed_by &= ~(UINT64_C(1) << cls__location_bit(op->loc));
    break;
  }
}

static void cls__prefetch_note(cls__advice *a, const void *arg) {
  a->last_prefetch = cls__location_kept(*(const clsMemLocation *)arg);
}

clsError_t clsMemAdvise(const void *devPtr, size_t count,
                        clsMemoryAdvise advice, clsMemLocation location) {
  CLS__NOT_IN_HOST_FN();
  if (advice < clsMemAdviseSetReadMostly ||
      advice > clsMemAdviseUnsetAccessedBy)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "advice %d: it must be 1..6 (clsMemAdvise*)",
                            (int)advice));
  int dev;
  void *base;
  size_t size;
  clsError_t e = cls__managed_range(devPtr, count, &dev, &base, &size);
  /* ReadMostly and UnsetPreferredLocation ignore the location. */
  int located = advice == clsMemAdviseSetPreferredLocation ||
                advice == clsMemAdviseSetAccessedBy ||
                advice == clsMemAdviseUnsetAccessedBy;
  if (e == clsSuccess && located) e = cls__location_ok(location);
  if (e == clsSuccess)
    e = cls__b_mem_advise(dev, devPtr, count, (int)advice, location);
  if (e == clsSuccess) {
    cls__advice_op op = {(int)advice, location};
    e = cls__advice_update(base, size, cls__advice_apply, &op);
  }
  CLS__RETURN(e);
}

clsError_t clsMemPrefetchAsync(const void *devPtr, size_t count,
                               clsMemLocation location, unsigned flags,
                               clsStream_t stream) {
  CLS__NOT_IN_HOST_FN();
  if (flags != 0)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "flags is 0x%x; it must be 0",
                            flags));
  int dev, sdev;
  void *base;
  size_t size;
  cls__bstream *s;
  clsError_t e = cls__managed_range(devPtr, count, &dev, &base, &size);
  if (e == clsSuccess) e = cls__location_ok(location);
  if (e == clsSuccess) e = cls__stream_resolve(stream, &sdev, &s, NULL, NULL);
  if (e == clsSuccess)
    e = cls__b_mem_prefetch(s, devPtr, count, cls__location_kept(location));
  if (e == clsSuccess)
    e = cls__advice_update(base, size, cls__prefetch_note, &location);
  CLS__RETURN(e);
}

/* An int answer for a location: a device ordinal, clsCpuDeviceId for the
 * host, clsInvalidDeviceId for none. */
static int cls__location_int(clsMemLocation loc) {
  if (loc.type == clsMemLocationTypeDevice) return loc.id;
  return loc.type == clsMemLocationTypeInvalid ? clsInvalidDeviceId
                                               : clsCpuDeviceId;
}

/* Answers from the record (all zero where there is none). */
static void cls__advice_answer(int *out, size_t n, int attr,
                               const cls__advice *a) {
  switch (attr) {
  case clsMemRangeAttributeReadMostly:
    out[0] = a->read_mostly;
    break;
  case clsMemRangeAttributePreferredLocation:
    out[0] = cls__location_int(a->preferred);
    break;
  case clsMemRangeAttributeLastPrefetchLocation:
    out[0] = cls__location_int(a->last_prefetch);
    break;
  case clsMemRangeAttributePreferredLocationType:
    out[0] = (int)a->preferred.type;
    break;
  case clsMemRangeAttributePreferredLocationId:
    out[0] = a->preferred.id;
    break;
  case clsMemRangeAttributeLastPrefetchLocationType:
    out[0] = (int)a->last_prefetch.type;
    break;
  case clsMemRangeAttributeLastPrefetchLocationId:
    out[0] = a->last_prefetch.id;
    break;
  default: { /* AccessedBy: the devices, then the host, then none */
    size_t k = 0;
    for (int b = 0; b <= CLS__HOST_BIT && k < n; ++b)
      if (a->accessed_by & (UINT64_C(1) << b))
        out[k++] = b == CLS__HOST_BIT ? clsCpuDeviceId : b;
    while (k < n) out[k++] = clsInvalidDeviceId;
    break;
  }
  }
}

clsError_t clsMemRangeGetAttribute(void *data, size_t dataSize,
                                   clsMemRangeAttribute attribute,
                                   const void *devPtr, size_t count) {
  CLS__NOT_IN_HOST_FN();
  if (!data) CLS__RETURN(cls__reason(clsErrorInvalidValue, "data is NULL"));
  if (attribute < clsMemRangeAttributeReadMostly ||
      attribute > clsMemRangeAttributeLastPrefetchLocationId)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "attribute %d: it must be 1..8 "
                            "(clsMemRangeAttribute*)",
                            (int)attribute));
  int list = attribute == clsMemRangeAttributeAccessedBy;
  if (list ? dataSize == 0 || dataSize % 4 != 0 : dataSize != 4)
    CLS__RETURN(cls__reason(
        clsErrorInvalidValue, "dataSize %zu: attribute %d needs %s", dataSize,
        (int)attribute, list ? "a non-zero multiple of 4" : "4"));
  int dev;
  void *base;
  size_t size;
  clsError_t e = cls__managed_range(devPtr, count, &dev, &base, &size);
  if (e != clsSuccess) CLS__RETURN(e);
  if (cls__b_mem_range_attribute(data, dataSize, (int)attribute, devPtr, count,
                                 &e))
    CLS__RETURN(e);
  cls__advice a = {{0, 0}, 0, {0, 0}, {0, 0}, 0};
  cls__rangetab_rdlock(&cls__advices);
  const cls__advice *r = cls__rangetab_find(&cls__advices, (uintptr_t)base);
  if (r && r->r.base == (uintptr_t)base && r->r.size == size) a = *r;
  cls__rangetab_unlock(&cls__advices);
  int out[64];
  size_t n = dataSize / 4;
  cls__advice_answer(out, n < 64 ? n : 64, (int)attribute, &a);
  memcpy(data, out, (n < 64 ? n : 64) * 4);
  for (size_t k = 64; k < n; ++k) /* a longer list: none after 64 */
    memcpy((char *)data + 4 * k, &(int){clsInvalidDeviceId}, 4);
  CLS__RETURN(clsSuccess);
}
