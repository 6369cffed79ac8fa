/* OpenCL backend: kernel attributes (clsFuncGetAttributes,
 * clsFuncSetAttribute) from the driver's CL_KERNEL_* answers, and
 * occupancy (clsOccupancyMaxActiveBlocksPerMultiprocessor) from the
 * device's work-group limits.  OpenCL tells nothing of registers,
 * constant memory or binary versions: those fields stay 0
 * (docs/api.md).  Reads the function's cl_kernel (function.h) and nothing
 * else of it. */
#include "function.h"

#include <limits.h>

static int cls__to_int(size_t v) { return v > INT_MAX ? INT_MAX : (int)v; }

clsError_t cls__b_func_attributes(int dev, cls__bfunction *f,
                                  clsFuncAttributes *a) {
  const cls__ocl_device *d = cls__ocl_device_get(dev);
  size_t wg = 0;
  cl_ulong local = 0, priv = 0;
  cl_int err = clGetKernelWorkGroupInfo(f->k, d->id, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof wg, &wg, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelWorkGroupInfo(f->k, d->id, CL_KERNEL_LOCAL_MEM_SIZE,
                                   sizeof local, &local, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelWorkGroupInfo(f->k, d->id, CL_KERNEL_PRIVATE_MEM_SIZE,
                                   sizeof priv, &priv, NULL);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clGetKernelWorkGroupInfo");
  /* Never above the device's own limit, nor 0 where a driver says so. */
  if (wg == 0 || wg > d->max_wg) wg = d->max_wg;
  a->sharedSizeBytes = (size_t)local;
  a->localSizeBytes = (size_t)priv;
  a->maxThreadsPerBlock = cls__to_int(wg);
  a->maxDynamicSharedSizeBytes =
      d->local_mem > local ? cls__to_int((size_t)(d->local_mem - local)) : 0;
  a->preferredShmemCarveout = -1;
  return clsSuccess;
}

clsError_t cls__b_func_set_attribute(int dev, cls__bfunction *f, int attr,
                                     int value) {
  (void)dev;
  (void)f;
  (void)value;
  if (attr == clsFuncAttributeMaxDynamicSharedMemorySize ||
      attr == clsFuncAttributePreferredSharedMemoryCarveout)
    return clsSuccess; /* kept by the front; a carveout is only a hint */
  return cls__reason(clsErrorNotSupported,
                     "function attribute %d: thread-block clusters are not "
                     "offered on OpenCL",
                     attr);
}

clsError_t cls__b_occupancy(int dev, cls__bfunction *f, int block, size_t dyn,
                            int *blocks) {
  clsFuncAttributes a = {0};
  clsError_t e = cls__b_func_attributes(dev, f, &a);
  if (e != clsSuccess) return e;
  clsDeviceProp p;
  if ((e = cls__b_device_props(dev, &p)) != clsSuccess) return e;
  *blocks = 0;
  size_t smem = a.sharedSizeBytes + dyn;
  if (block > a.maxThreadsPerBlock || smem > p.sharedMemPerMultiprocessor)
    return clsSuccess; /* such a block cannot run at all */
  /* Threads are held a warp at a time, as CUDA counts them. */
  int warp = p.warpSize > 0 ? p.warpSize : 32;
  int rounded = (block + warp - 1) / warp * warp;
  int n = p.maxThreadsPerMultiProcessor / rounded;
  if (smem > 0 && (size_t)n > p.sharedMemPerMultiprocessor / smem)
    n = (int)(p.sharedMemPerMultiprocessor / smem);
  if (n > p.maxBlocksPerMultiProcessor) n = p.maxBlocksPerMultiProcessor;
  /* A block the kernel may run with always fits once. */
  *blocks = n > 0 ? n : 1;
  return clsSuccess;
}
