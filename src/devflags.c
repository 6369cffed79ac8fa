/* Device flags (clsSetDeviceFlags, clsGetDeviceFlags): the front keeps
 * the flags last set on each device; the backend applies them. */
#include "internal.h"
#include "device.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_once_t cls__flags_once = PTHREAD_ONCE_INIT;
static _Atomic unsigned *cls__flags; /* one per device; NULL if no memory */

static void cls__flags_init(void) {
  int n = cls__b_device_count();
  cls__flags = calloc(n > 0 ? (size_t)n : 1, sizeof *cls__flags);
}

/* The flags slot of `dev`, or NULL (with a reason) when out of memory. */
static _Atomic unsigned *cls__flags_of(int dev) {
  pthread_once(&cls__flags_once, cls__flags_init);
  if (!cls__flags) {
    cls__reason(clsErrorMemoryAllocation, "out of host memory");
    return NULL;
  }
  return &cls__flags[dev];
}

clsError_t clsSetDeviceFlags(unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (flags & ~clsDeviceMask)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "flags 0x%x has bits outside clsDeviceMask (0xff)",
                            flags));
  unsigned sched = flags & clsDeviceScheduleMask;
  if (sched & (sched - 1))
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "flags 0x%x names more than one schedule flag "
                            "(Spin 0x1, Yield 0x2, BlockingSync 0x4)",
                            flags));
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  _Atomic unsigned *slot = cls__flags_of(dev);
  if (!slot) CLS__RETURN(clsErrorMemoryAllocation);
  /* As in CUDA 13, flags set on a device already in use replace the old
   * ones. */
  e = cls__b_device_set_flags(dev, flags);
  if (e == clsSuccess) atomic_store(slot, flags);
  CLS__RETURN(e);
}

clsError_t clsGetDeviceFlags(unsigned *flags) {
  CLS__NOT_IN_HOST_FN();
  if (!flags) CLS__RETURN(cls__reason(clsErrorInvalidValue, "flags is NULL"));
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  _Atomic unsigned *slot = cls__flags_of(dev);
  if (!slot) CLS__RETURN(clsErrorMemoryAllocation);
  CLS__RETURN(cls__b_device_get_flags(dev, atomic_load(slot), flags));
}
