/* Memory pools as objects (clsDeviceGetDefaultMemPool and the pool
 * attributes) and free memory (clsMemGetInfo).  Each device has one pool,
 * its default, which is the backend's stream-ordered pool (pool.c's
 * clsMallocAsync); a clsMemPool_t is the address of that device's entry
 * in a table this file owns, so a handle is checked by its address alone,
 * never dereferenced first. */
#include "internal.h"
#include "device.h"

#include <pthread.h>
#include <stdlib.h>

struct clsMemPool_st {
  int dev;
};

static pthread_once_t cls__mp_once = PTHREAD_ONCE_INIT;
static struct clsMemPool_st *cls__mp_table;
static int cls__mp_count;

static void cls__mp_init(void) {
  int n = cls__b_device_count();
  cls__mp_table = calloc(n > 0 ? (size_t)n : 1, sizeof *cls__mp_table);
  if (!cls__mp_table) return;
  for (int i = 0; i < n; ++i) cls__mp_table[i].dev = i;
  cls__mp_count = n;
}

/* Initializes the library and the table; checks `device`. */
static clsError_t cls__mp_device(int device) {
  clsError_t e = cls__init();
  if (e != clsSuccess) return e;
  pthread_once(&cls__mp_once, cls__mp_init);
  if (!cls__mp_table)
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  if (device < 0 || device >= cls__mp_count)
    return cls__reason(clsErrorInvalidDevice, "device %d is not in 0..%d",
                       device, cls__mp_count - 1);
  return clsSuccess;
}

/* The device of pool handle `pool`, or -1 with a reason. */
static int cls__mp_dev(clsMemPool_t pool, clsError_t *e) {
  *e = cls__init();
  if (*e != clsSuccess) return -1;
  pthread_once(&cls__mp_once, cls__mp_init);
  if (!pool) {
    *e = cls__reason(clsErrorInvalidValue, "memPool is NULL");
    return -1;
  }
  uintptr_t p = (uintptr_t)pool, t = (uintptr_t)cls__mp_table;
  if (!cls__mp_table || p < t ||
      p >= t + (size_t)cls__mp_count * sizeof *cls__mp_table ||
      (p - t) % sizeof *cls__mp_table) {
    *e = cls__reason(clsErrorInvalidValue,
                     "memPool %p is not a pool of clstream's (only the "
                     "devices' default pools exist)",
                     (void *)pool);
    return -1;
  }
  int dev = (int)((p - t) / sizeof *cls__mp_table);
  *e = cls__b_device_open(dev);
  return *e == clsSuccess ? dev : -1;
}

clsError_t clsDeviceGetDefaultMemPool(clsMemPool_t *memPool, int device) {
  CLS__NOT_IN_HOST_FN();
  if (!memPool)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "memPool is NULL"));
  clsError_t e = cls__mp_device(device);
  if (e == clsSuccess) *memPool = &cls__mp_table[device];
  CLS__RETURN(e);
}

clsError_t clsDeviceGetMemPool(clsMemPool_t *memPool, int device) {
  CLS__NOT_IN_HOST_FN();
  if (!memPool)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "memPool is NULL"));
  clsError_t e = cls__mp_device(device);
  if (e == clsSuccess) *memPool = &cls__mp_table[device];
  CLS__RETURN(e);
}

clsError_t clsDeviceSetMemPool(int device, clsMemPool_t memPool) {
  CLS__NOT_IN_HOST_FN();
  clsError_t e = cls__mp_device(device);
  if (e != clsSuccess) CLS__RETURN(e);
  int dev = cls__mp_dev(memPool, &e);
  if (dev < 0) CLS__RETURN(e);
  if (dev != device)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "memPool is device %d's pool, not device %d's", dev,
                            device));
  CLS__RETURN(clsSuccess); /* the default pool is the only one */
}

/* Whether attr takes an int (the Reuse flags) rather than a 64-bit. */
static int cls__mp_int_attr(clsMemPoolAttr attr) {
  return attr >= clsMemPoolReuseFollowEventDependencies &&
         attr <= clsMemPoolReuseAllowInternalDependencies;
}

static clsError_t cls__mp_check(clsMemPool_t pool, clsMemPoolAttr attr,
                                void *value, int *dev) {
  clsError_t e;
  *dev = cls__mp_dev(pool, &e);
  if (*dev < 0) return e;
  if ((int)attr < clsMemPoolReuseFollowEventDependencies ||
      attr > clsMemPoolAttrUsedMemHigh)
    return cls__reason(clsErrorInvalidValue, "attr %d is not a clsMemPoolAttr",
                       (int)attr);
  if (!value) return cls__reason(clsErrorInvalidValue, "value is NULL");
  return clsSuccess;
}

clsError_t clsMemPoolSetAttribute(clsMemPool_t memPool, clsMemPoolAttr attr,
                                  void *value) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  clsError_t e = cls__mp_check(memPool, attr, value, &dev);
  if (e != clsSuccess) CLS__RETURN(e);
  unsigned long long v;
  if (cls__mp_int_attr(attr)) {
    v = *(const int *)value != 0;
  } else {
    v = *(const unsigned long long *)value;
  }
  if (attr == clsMemPoolAttrReservedMemCurrent ||
      attr == clsMemPoolAttrUsedMemCurrent)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "attribute %d is read-only",
                            (int)attr));
  /* A High attribute can only be reset, by setting 0, to the current
   * value: the H200's CUDA 13 runtime refused 5 (InvalidValue) through
   * the CUDA build at 2026-12-04. */
  if ((attr == clsMemPoolAttrReservedMemHigh ||
       attr == clsMemPoolAttrUsedMemHigh) &&
      v != 0)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "attribute %d can only be reset, to 0, not set "
                            "to %llu",
                            (int)attr, v));
  CLS__RETURN(cls__b_pool_attr(dev, (int)attr, 1, &v));
}

clsError_t clsMemPoolGetAttribute(clsMemPool_t memPool, clsMemPoolAttr attr,
                                  void *value) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  clsError_t e = cls__mp_check(memPool, attr, value, &dev);
  if (e != clsSuccess) CLS__RETURN(e);
  unsigned long long v = 0;
  e = cls__b_pool_attr(dev, (int)attr, 0, &v);
  if (e != clsSuccess) CLS__RETURN(e);
  if (cls__mp_int_attr(attr))
    *(int *)value = (int)v;
  else
    *(unsigned long long *)value = v;
  CLS__RETURN(clsSuccess);
}

clsError_t clsMemPoolTrimTo(clsMemPool_t memPool, size_t minBytesToKeep) {
  CLS__NOT_IN_HOST_FN();
  clsError_t e;
  int dev = cls__mp_dev(memPool, &e);
  if (dev < 0) CLS__RETURN(e);
  CLS__RETURN(cls__b_pool_trim(dev, minBytesToKeep));
}

clsError_t clsMemGetInfo(size_t *free, size_t *total) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  /* A NULL pointer is left out, as CUDA 13 does (H200: Success). */
  size_t f = 0, t = 0;
  e = cls__b_mem_info(dev, cls__mem_bytes_on(dev), &f, &t);
  if (e == clsSuccess && free) *free = f;
  if (e == clsSuccess && total) *total = t;
  CLS__RETURN(e);
}
