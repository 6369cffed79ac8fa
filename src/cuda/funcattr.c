/* CUDA backend: kernel attributes and occupancy, forwarded to the CUDA
 * runtime (which takes the library's cudaKernel_t where it takes a
 * kernel's address). */
#include "cuda_be.h"

clsError_t cls__b_func_attributes(int dev, cls__bfunction *f,
                                  clsFuncAttributes *a) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  struct cudaFuncAttributes c;
  e = cls__cuda_rt(cudaFuncGetAttributes(&c, (const void *)f->kernel),
                   "cudaFuncGetAttributes");
  if (e != clsSuccess) return e;
  a->sharedSizeBytes = c.sharedSizeBytes;
  a->constSizeBytes = c.constSizeBytes;
  a->localSizeBytes = c.localSizeBytes;
  a->maxThreadsPerBlock = c.maxThreadsPerBlock;
  a->numRegs = c.numRegs;
  a->ptxVersion = c.ptxVersion;
  a->binaryVersion = c.binaryVersion;
  a->cacheModeCA = c.cacheModeCA;
  a->maxDynamicSharedSizeBytes = c.maxDynamicSharedSizeBytes;
  a->preferredShmemCarveout = c.preferredShmemCarveout;
  a->clusterDimMustBeSet = c.clusterDimMustBeSet;
  a->requiredClusterWidth = c.requiredClusterWidth;
  a->requiredClusterHeight = c.requiredClusterHeight;
  a->requiredClusterDepth = c.requiredClusterDepth;
  a->clusterSchedulingPolicyPreference = c.clusterSchedulingPolicyPreference;
  a->nonPortableClusterSizeAllowed = c.nonPortableClusterSizeAllowed;
  return clsSuccess;
}

clsError_t cls__b_func_set_attribute(int dev, cls__bfunction *f, int attr,
                                     int value) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaFuncSetAttribute((const void *)f->kernel,
                                           (enum cudaFuncAttribute)attr, value),
                      "cudaFuncSetAttribute");
}

clsError_t cls__b_occupancy(int dev, cls__bfunction *f, int block, size_t dyn,
                            int *blocks) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                          blocks, (const void *)f->kernel, block, dyn),
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}
