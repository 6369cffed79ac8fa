/* OpenCL backend: device attributes (clsDeviceGetAttribute), answered from
 * the device's properties and identity (identity.c).  Every attribute of
 * CUDA 13's cudaDeviceAttr enum is accepted; one for a feature clstream
 * does not offer on OpenCL (textures, surfaces, cooperative and cluster
 * launches, IPC, NUMA, ...) reads 0, which is what CUDA reports for a
 * feature a device lacks. */
#include "command.h"

#include <limits.h>

/* Whether CUDA 13's runtime answers attribute `a`: the values of its
 * cudaDeviceAttr, and the numbers it has no name for but answers all the
 * same (measured on the H200 and the H100): 44 (the driver's deprecated
 * CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER), 96 (the dropped
 * cudaDevAttrCooperativeMultiDeviceLaunch), both 1, and 122 (0 here). */
static int cls__cuda13_attribute(int a) {
  if (a >= 1 && a <= 91) return 1;
  switch (a) {
  case 95:
  case 96:
  case 97:
  case 98:
  case 99:
  case 100:
  case 101:
  case 106:
  case 108:
  case 109:
  case 111:
  case 112:
  case 113:
  case 114:
  case 115:
  case 116:
  case 117:
  case 118:
  case 119:
  case 120:
  case 121:
  case 122:
  case 125:
  case 126:
  case 130:
  case 131:
  case 133:
  case 134:
  case 135:
  case 138:
  case 139:
  case 140:
  case 142:
  case 143:
  case 144:
  case 147:
    return 1;
  default:
    return 0;
  }
}

static int cls__clamp(cl_ulong v) { return v > INT_MAX ? INT_MAX : (int)v; }

clsError_t cls__b_device_attribute(int dev, int attr, int *value) {
  if (!cls__cuda13_attribute(attr))
    return cls__reason(clsErrorInvalidValue,
                       "attribute %d is not a cudaDeviceAttr of CUDA 13", attr);
  /* 44 and 96 have no name in CUDA 13's enum; its runtime answers 1 for
   * both (H100, 2026-12-06), and so does clstream. */
  if (attr == 44 || attr == 96) {
    *value = 1;
    return clsSuccess;
  }
  const cls__ocl_device *d = cls__ocl_device_get(dev);
  clsDeviceProp p;
  clsError_t e = cls__b_device_props(dev, &p);
  if (e != clsSuccess) return e;
  int v = 0;
  switch ((clsDeviceAttr)attr) {
  case clsDevAttrMaxThreadsPerBlock:
    v = p.maxThreadsPerBlock;
    break;
  case clsDevAttrMaxBlockDimX:
    v = p.maxThreadsDim[0];
    break;
  case clsDevAttrMaxBlockDimY:
    v = p.maxThreadsDim[1];
    break;
  case clsDevAttrMaxBlockDimZ:
    v = p.maxThreadsDim[2];
    break;
  case clsDevAttrMaxGridDimX:
    v = p.maxGridSize[0];
    break;
  case clsDevAttrMaxGridDimY:
    v = p.maxGridSize[1];
    break;
  case clsDevAttrMaxGridDimZ:
    v = p.maxGridSize[2];
    break;
  case clsDevAttrMaxSharedMemoryPerBlock:
  case clsDevAttrMaxSharedMemoryPerMultiprocessor:
  case clsDevAttrMaxSharedMemoryPerBlockOptin:
    v = cls__clamp(p.sharedMemPerBlock);
    break;
  case clsDevAttrTotalConstantMemory:
    v = cls__clamp(d->ident.const_mem);
    break;
  case clsDevAttrWarpSize:
    v = p.warpSize;
    break;
  case clsDevAttrMaxPitch:
    v = cls__clamp(p.memPitch);
    break;
  case clsDevAttrMaxRegistersPerBlock:
    v = d->ident.regs_per_block;
    break;
  case clsDevAttrClockRate:
    v = p.clockRate;
    break;
  case clsDevAttrGpuOverlap:
    v = p.deviceOverlap;
    break;
  case clsDevAttrMultiProcessorCount:
    v = p.multiProcessorCount;
    break;
  case clsDevAttrKernelExecTimeout:
    v = d->ident.exec_timeout;
    break;
  case clsDevAttrIntegrated:
    v = p.integrated;
    break;
  case clsDevAttrCanMapHostMemory:
    v = p.canMapHostMemory;
    break;
  case clsDevAttrComputeMode:
    v = p.computeMode;
    break;
  case clsDevAttrConcurrentKernels:
    v = p.concurrentKernels;
    break;
  case clsDevAttrEccEnabled:
    v = d->ident.ecc;
    break;
  case clsDevAttrL2CacheSize:
    v = cls__clamp(d->ident.l2);
    break;
  /* A compute unit runs at least one work-group of the largest size. */
  case clsDevAttrMaxThreadsPerMultiProcessor:
    v = p.maxThreadsPerMultiProcessor;
    break;
  case clsDevAttrAsyncEngineCount:
    v = p.asyncEngineCount;
    break;
  case clsDevAttrUnifiedAddressing:
    v = p.unifiedAddressing;
    break;
  case clsDevAttrComputeCapabilityMajor:
    v = p.major;
    break;
  case clsDevAttrComputeCapabilityMinor:
    v = p.minor;
    break;
  case clsDevAttrStreamPrioritiesSupported:
    v = p.streamPrioritiesSupported;
    break;
  case clsDevAttrManagedMemory:
    v = p.managedMemory;
    break;
  case clsDevAttrPageableMemoryAccess:
    v = p.pageableMemoryAccess;
    break;
  case clsDevAttrConcurrentManagedAccess:
    v = p.concurrentManagedAccess;
    break;
  case clsDevAttrCanUseHostPointerForRegisteredMem:
    v = p.pageableMemoryAccess;
    break;
  case clsDevAttrHostNativeAtomicSupported:
    v = d->ident.fine_grain && (d->svm & CL_DEVICE_SVM_ATOMICS) != 0;
    break;
  case clsDevAttrHostRegisterSupported:
    v = p.hostRegisterSupported;
    break;
  case clsDevAttrMemoryPoolsSupported:
    v = p.memoryPoolsSupported;
    break;
  /* The fields clsDeviceProp gained with CUDA 13's whole struct. */
  case clsDevAttrPciBusId:
    v = p.pciBusID;
    break;
  case clsDevAttrPciDeviceId:
    v = p.pciDeviceID;
    break;
  case clsDevAttrPciDomainId:
    v = p.pciDomainID;
    break;
  case clsDevAttrGlobalL1CacheSupported:
    v = p.globalL1CacheSupported;
    break;
  case clsDevAttrMaxBlocksPerMultiprocessor:
    v = p.maxBlocksPerMultiProcessor;
    break;
  case clsDevAttrDirectManagedMemAccessFromHost:
    v = p.directManagedMemAccessFromHost;
    break;
  case clsDevAttrPageableMemoryAccessUsesHostPageTables:
    v = p.pageableMemoryAccessUsesHostPageTables;
    break;
  case clsDevAttrHostRegisterReadOnlySupported:
    v = p.hostRegisterReadOnlySupported;
    break;
  default:
    v = 0;
    break;
  }
  *value = v;
  return clsSuccess;
}
