/* OpenCL backend: free device memory (clsMemGetInfo) and which devices
 * reach each other's memory (clsDeviceCanAccessPeer).
 *
 * Free memory is the driver's where it says (cl_amd_device_attribute_query:
 * CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, in KiB); no other driver clstream
 * runs on has such a query (NVIDIA's cl_nv_device_attribute_query has
 * none), and there it is the device's total less what clstream holds on
 * it: the front's allocations and the pool's cache. */
#include "command.h"

#include <string.h>

#ifndef CL_DEVICE_GLOBAL_FREE_MEMORY_AMD
#define CL_DEVICE_GLOBAL_FREE_MEMORY_AMD 0x4039
#endif

clsError_t cls__b_mem_info(int dev, size_t held, size_t *free, size_t *total) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  size_t t = (size_t)d->global_mem;
  size_t kib[2] = {0, 0}, got = 0;
  /* The driver's figure, where it has one (AMD: total free, largest
   * free block, both in KiB). */
  if (cls__ocl_has_extension(d->id, "cl_amd_device_attribute_query") &&
      clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, sizeof kib, kib,
                      &got) == CL_SUCCESS &&
      got >= sizeof kib[0] && kib[0] > 0) {
    size_t f = kib[0] > t / 1024 ? t : kib[0] * 1024;
    *free = f;
    *total = t;
    return clsSuccess;
  }
  size_t used = held + cls__ocl_pool_cached(dev);
  *free = used < t ? t - used : 0;
  *total = t;
  return clsSuccess;
}

/* Devices reach each other's memory where they share a context: one
 * per platform, unless CLSTREAM_CONTEXT_PER_DEVICE=1 gives each its own
 * (open.c).  Decided without opening either. */
int cls__b_can_access_peer(int dev, int peer) {
  const char *own = cls__setting(CLS__SET_CONTEXT_PER_DEVICE);
  if (own && strcmp(own, "1") == 0) return 0;
  return cls__ocl_device_get(dev)->plat == cls__ocl_device_get(peer)->plat;
}

/* Devices of one context need nothing enabled. */
clsError_t cls__b_peer_access(int dev, int peer, int on) {
  (void)dev;
  (void)peer;
  (void)on;
  return clsSuccess;
}
