/* Kernel attributes and occupancy: clsFuncGetAttributes,
 * clsFuncSetAttribute, clsOccupancyMaxActiveBlocksPerMultiprocessor and
 * clsOccupancyMaxPotentialBlockSize.  The function's settable attributes
 * are kept with it (module.c's cls__fattr); what the driver knows comes
 * from the backend.  The block-size search is CUDA's rule, made here once
 * over the backend's per-multiprocessor count, so it is the same on both
 * builds. */
#include "internal.h"

#include <string.h>

clsError_t clsFuncGetAttributes(clsFuncAttributes *attr, clsFunction_t f) {
  CLS__NOT_IN_HOST_FN();
  if (!attr) CLS__RETURN(cls__reason(clsErrorInvalidValue, "attr is NULL"));
  int dev;
  cls__bfunction *bf;
  cls__fattr *fa;
  clsError_t e = cls__function_current(f, &dev, &bf, &fa);
  if (e != clsSuccess) CLS__RETURN(e);
  clsFuncAttributes a;
  memset(&a, 0, sizeof a);
  e = cls__b_func_attributes(dev, bf, &a);
  if (e != clsSuccess) CLS__RETURN(e);
  if (atomic_load(&fa->dyn_set))
    a.maxDynamicSharedSizeBytes = atomic_load(&fa->dyn_smem);
  if (atomic_load(&fa->carve_set))
    a.preferredShmemCarveout = atomic_load(&fa->carveout);
  *attr = a;
  CLS__RETURN(clsSuccess);
}

clsError_t clsFuncSetAttribute(clsFunction_t f, clsFuncAttribute attr,
                               int value) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  cls__bfunction *bf;
  cls__fattr *fa;
  clsError_t e = cls__function_current(f, &dev, &bf, &fa);
  if (e != clsSuccess) CLS__RETURN(e);
  if ((int)attr < clsFuncAttributeMaxDynamicSharedMemorySize ||
      (int)attr >= clsFuncAttributeMax)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "attribute %d is not a cudaFuncAttribute",
                            (int)attr));
  if (attr == clsFuncAttributeMaxDynamicSharedMemorySize) {
    clsFuncAttributes a;
    clsDeviceProp p;
    memset(&a, 0, sizeof a);
    if ((e = cls__b_func_attributes(dev, bf, &a)) != clsSuccess ||
        (e = cls__b_device_props(dev, &p)) != clsSuccess)
      CLS__RETURN(e);
    size_t room = p.sharedMemPerBlockOptin > a.sharedSizeBytes
                      ? p.sharedMemPerBlockOptin - a.sharedSizeBytes
                      : 0;
    if (value < 0 || (size_t)value > room)
      CLS__RETURN(cls__reason(clsErrorInvalidValue,
                              "dynamic shared memory of %d bytes: the "
                              "kernel may have 0 to %zu on device %d",
                              value, room, dev));
  } else if (attr == clsFuncAttributePreferredSharedMemoryCarveout &&
             (value < -1 || value > 100)) {
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "shared memory carveout %d is not -1 to 100",
                            value));
  }
  e = cls__b_func_set_attribute(dev, bf, (int)attr, value);
  if (e != clsSuccess) CLS__RETURN(e);
  if (attr == clsFuncAttributeMaxDynamicSharedMemorySize) {
    atomic_store(&fa->dyn_smem, value);
    atomic_store(&fa->dyn_set, 1);
  } else if (attr == clsFuncAttributePreferredSharedMemoryCarveout) {
    atomic_store(&fa->carveout, value);
    atomic_store(&fa->carve_set, 1);
  }
  CLS__RETURN(clsSuccess);
}

clsError_t clsOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, clsFunction_t f, int blockSize, size_t dynamicSMemSize) {
  CLS__NOT_IN_HOST_FN();
  if (!numBlocks)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "numBlocks is NULL"));
  int dev;
  cls__bfunction *bf;
  cls__fattr *fa;
  clsError_t e = cls__function_current(f, &dev, &bf, &fa);
  if (e != clsSuccess) CLS__RETURN(e);
  if (blockSize <= 0)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "blockSize %d is not positive", blockSize));
  CLS__RETURN(cls__b_occupancy(dev, bf, blockSize, dynamicSMemSize, numBlocks));
}

clsError_t clsOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                             clsFunction_t f,
                                             size_t dynamicSMemSize,
                                             int blockSizeLimit) {
  CLS__NOT_IN_HOST_FN();
  if (!minGridSize || !blockSize)
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "minGridSize or blockSize is NULL"));
  int dev;
  cls__bfunction *bf;
  cls__fattr *fa;
  clsError_t e = cls__function_current(f, &dev, &bf, &fa);
  if (e != clsSuccess) CLS__RETURN(e);
  if (blockSizeLimit < 0)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "blockSizeLimit %d is negative", blockSizeLimit));
  clsFuncAttributes a;
  clsDeviceProp p;
  memset(&a, 0, sizeof a);
  if ((e = cls__b_func_attributes(dev, bf, &a)) != clsSuccess ||
      (e = cls__b_device_props(dev, &p)) != clsSuccess)
    CLS__RETURN(e);
  int most = a.maxThreadsPerBlock;
  if (blockSizeLimit > 0 && blockSizeLimit < most) most = blockSizeLimit;
  int gran = p.warpSize > 0 ? p.warpSize : 32;
  int full = p.maxThreadsPerMultiProcessor;
  int best = 0, best_blocks = 0, best_threads = 0;
  /* From the largest block down, a warp at a time; the first size that
   * fills the multiprocessor ends the search (CUDA's rule). */
  for (int aligned = (most + gran - 1) / gran * gran; aligned > 0;
       aligned -= gran) {
    int size = aligned < most ? aligned : most;
    int blocks = 0;
    e = cls__b_occupancy(dev, bf, size, dynamicSMemSize, &blocks);
    if (e != clsSuccess) CLS__RETURN(e);
    if (blocks * size > best_threads) {
      best_threads = blocks * size;
      best = size;
      best_blocks = blocks;
    }
    if (full > 0 && best_threads >= full) break;
  }
  *blockSize = best;
  *minGridSize = best_blocks * p.multiProcessorCount;
  CLS__RETURN(clsSuccess);
}
