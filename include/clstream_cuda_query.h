/*
 * clstream_cuda_query.h: CUDA's device-query names for clstream, included
 * by clstream_cuda.h (include that one, never this alone): the rest of
 * CUDA 13's cudaDeviceAttr names, cudaFuncAttributes and cudaFuncAttribute,
 * cudaFuncGetAttributes, cudaFuncSetAttribute and the occupancy calls.
 * Macros and a typedef, as in clstream_cuda.h.
 */
#ifndef CLSTREAM_CUDA_QUERY_H
#define CLSTREAM_CUDA_QUERY_H

#include "clstream.h"

/* The rest of CUDA 13's cudaDeviceAttr names (device queries). */
#define cudaDevAttrMaxTexture1DWidth clsDevAttrMaxTexture1DWidth
#define cudaDevAttrMaxTexture2DWidth clsDevAttrMaxTexture2DWidth
#define cudaDevAttrMaxTexture2DHeight clsDevAttrMaxTexture2DHeight
#define cudaDevAttrMaxTexture3DWidth clsDevAttrMaxTexture3DWidth
#define cudaDevAttrMaxTexture3DHeight clsDevAttrMaxTexture3DHeight
#define cudaDevAttrMaxTexture3DDepth clsDevAttrMaxTexture3DDepth
#define cudaDevAttrMaxTexture2DLayeredWidth clsDevAttrMaxTexture2DLayeredWidth
#define cudaDevAttrMaxTexture2DLayeredHeight clsDevAttrMaxTexture2DLayeredHeight
#define cudaDevAttrMaxTexture2DLayeredLayers clsDevAttrMaxTexture2DLayeredLayers
#define cudaDevAttrSurfaceAlignment clsDevAttrSurfaceAlignment
#define cudaDevAttrMaxTexture1DLayeredWidth clsDevAttrMaxTexture1DLayeredWidth
#define cudaDevAttrMaxTexture1DLayeredLayers clsDevAttrMaxTexture1DLayeredLayers
#define cudaDevAttrMaxTexture2DGatherWidth clsDevAttrMaxTexture2DGatherWidth
#define cudaDevAttrMaxTexture2DGatherHeight clsDevAttrMaxTexture2DGatherHeight
#define cudaDevAttrMaxTexture3DWidthAlt clsDevAttrMaxTexture3DWidthAlt
#define cudaDevAttrMaxTexture3DHeightAlt clsDevAttrMaxTexture3DHeightAlt
#define cudaDevAttrMaxTexture3DDepthAlt clsDevAttrMaxTexture3DDepthAlt
#define cudaDevAttrTexturePitchAlignment clsDevAttrTexturePitchAlignment
#define cudaDevAttrMaxTextureCubemapWidth clsDevAttrMaxTextureCubemapWidth
#define cudaDevAttrMaxTextureCubemapLayeredWidth                               \
  clsDevAttrMaxTextureCubemapLayeredWidth
#define cudaDevAttrMaxTextureCubemapLayeredLayers                              \
  clsDevAttrMaxTextureCubemapLayeredLayers
#define cudaDevAttrMaxSurface1DWidth clsDevAttrMaxSurface1DWidth
#define cudaDevAttrMaxSurface2DWidth clsDevAttrMaxSurface2DWidth
#define cudaDevAttrMaxSurface2DHeight clsDevAttrMaxSurface2DHeight
#define cudaDevAttrMaxSurface3DWidth clsDevAttrMaxSurface3DWidth
#define cudaDevAttrMaxSurface3DHeight clsDevAttrMaxSurface3DHeight
#define cudaDevAttrMaxSurface3DDepth clsDevAttrMaxSurface3DDepth
#define cudaDevAttrMaxSurface1DLayeredWidth clsDevAttrMaxSurface1DLayeredWidth
#define cudaDevAttrMaxSurface1DLayeredLayers clsDevAttrMaxSurface1DLayeredLayers
#define cudaDevAttrMaxSurface2DLayeredWidth clsDevAttrMaxSurface2DLayeredWidth
#define cudaDevAttrMaxSurface2DLayeredHeight clsDevAttrMaxSurface2DLayeredHeight
#define cudaDevAttrMaxSurface2DLayeredLayers clsDevAttrMaxSurface2DLayeredLayers
#define cudaDevAttrMaxSurfaceCubemapWidth clsDevAttrMaxSurfaceCubemapWidth
#define cudaDevAttrMaxSurfaceCubemapLayeredWidth                               \
  clsDevAttrMaxSurfaceCubemapLayeredWidth
#define cudaDevAttrMaxSurfaceCubemapLayeredLayers                              \
  clsDevAttrMaxSurfaceCubemapLayeredLayers
#define cudaDevAttrMaxTexture1DLinearWidth clsDevAttrMaxTexture1DLinearWidth
#define cudaDevAttrMaxTexture2DLinearWidth clsDevAttrMaxTexture2DLinearWidth
#define cudaDevAttrMaxTexture2DLinearHeight clsDevAttrMaxTexture2DLinearHeight
#define cudaDevAttrMaxTexture2DLinearPitch clsDevAttrMaxTexture2DLinearPitch
#define cudaDevAttrMaxTexture2DMipmappedWidth                                  \
  clsDevAttrMaxTexture2DMipmappedWidth
#define cudaDevAttrMaxTexture2DMipmappedHeight                                 \
  clsDevAttrMaxTexture2DMipmappedHeight
#define cudaDevAttrMaxTexture1DMipmappedWidth                                  \
  clsDevAttrMaxTexture1DMipmappedWidth
#define cudaDevAttrCanFlushRemoteWrites clsDevAttrCanFlushRemoteWrites
#define cudaDevAttrPageableMemoryAccessUsesHostPageTables                      \
  clsDevAttrPageableMemoryAccessUsesHostPageTables
#define cudaDevAttrDirectManagedMemAccessFromHost                              \
  clsDevAttrDirectManagedMemAccessFromHost
#define cudaDevAttrMaxPersistingL2CacheSize clsDevAttrMaxPersistingL2CacheSize
#define cudaDevAttrMaxAccessPolicyWindowSize clsDevAttrMaxAccessPolicyWindowSize
#define cudaDevAttrSparseCudaArraySupported clsDevAttrSparseCudaArraySupported
#define cudaDevAttrHostRegisterReadOnlySupported                               \
  clsDevAttrHostRegisterReadOnlySupported
#define cudaDevAttrTimelineSemaphoreInteropSupported                           \
  clsDevAttrTimelineSemaphoreInteropSupported
#define cudaDevAttrGPUDirectRDMASupported clsDevAttrGPUDirectRDMASupported
#define cudaDevAttrGPUDirectRDMAFlushWritesOptions                             \
  clsDevAttrGPUDirectRDMAFlushWritesOptions
#define cudaDevAttrGPUDirectRDMAWritesOrdering                                 \
  clsDevAttrGPUDirectRDMAWritesOrdering
#define cudaDevAttrMemoryPoolSupportedHandleTypes                              \
  clsDevAttrMemoryPoolSupportedHandleTypes
#define cudaDevAttrClusterLaunch clsDevAttrClusterLaunch
#define cudaDevAttrDeferredMappingCudaArraySupported                           \
  clsDevAttrDeferredMappingCudaArraySupported
#define cudaDevAttrIpcEventSupport clsDevAttrIpcEventSupport
#define cudaDevAttrMemSyncDomainCount clsDevAttrMemSyncDomainCount
#define cudaDevAttrNumaConfig clsDevAttrNumaConfig
#define cudaDevAttrNumaId clsDevAttrNumaId
#define cudaDevAttrMpsEnabled clsDevAttrMpsEnabled
#define cudaDevAttrHostNumaId clsDevAttrHostNumaId
#define cudaDevAttrD3D12CigSupported clsDevAttrD3D12CigSupported
#define cudaDevAttrVulkanCigSupported clsDevAttrVulkanCigSupported
#define cudaDevAttrGpuPciDeviceId clsDevAttrGpuPciDeviceId
#define cudaDevAttrGpuPciSubsystemId clsDevAttrGpuPciSubsystemId
#define cudaDevAttrHostNumaMemoryPoolsSupported                                \
  clsDevAttrHostNumaMemoryPoolsSupported
#define cudaDevAttrHostNumaMultinodeIpcSupported                               \
  clsDevAttrHostNumaMultinodeIpcSupported
#define cudaDevAttrHostMemoryPoolsSupported clsDevAttrHostMemoryPoolsSupported
#define cudaDevAttrOnlyPartialHostNativeAtomicSupported                        \
  clsDevAttrOnlyPartialHostNativeAtomicSupported
#define cudaDevAttrMax clsDevAttrMax

/* ---- Kernel attributes and occupancy (device queries) ------------------ */

typedef clsUUID_t cudaUUID_t;
#define cudaFuncAttributes clsFuncAttributes
#define cudaFuncAttribute clsFuncAttribute
#define cudaFuncAttributeMaxDynamicSharedMemorySize                            \
  clsFuncAttributeMaxDynamicSharedMemorySize
#define cudaFuncAttributePreferredSharedMemoryCarveout                         \
  clsFuncAttributePreferredSharedMemoryCarveout
#define cudaFuncAttributeClusterDimMustBeSet clsFuncAttributeClusterDimMustBeSet
#define cudaFuncAttributeRequiredClusterWidth                                  \
  clsFuncAttributeRequiredClusterWidth
#define cudaFuncAttributeRequiredClusterHeight                                 \
  clsFuncAttributeRequiredClusterHeight
#define cudaFuncAttributeRequiredClusterDepth                                  \
  clsFuncAttributeRequiredClusterDepth
#define cudaFuncAttributeNonPortableClusterSizeAllowed                         \
  clsFuncAttributeNonPortableClusterSizeAllowed
#define cudaFuncAttributeClusterSchedulingPolicyPreference                     \
  clsFuncAttributeClusterSchedulingPolicyPreference
#define cudaFuncAttributeMax clsFuncAttributeMax
/* CUDA takes the kernel's address (`const void *`); here the clsFunction_t
 * from clsModuleGetFunction, passed as it is or cast as CUDA code casts
 * it. */
#define cudaFuncGetAttributes(attr, func)                                      \
  clsFuncGetAttributes((attr), (clsFunction_t)(func))
#define cudaFuncSetAttribute(func, attr, value)                                \
  clsFuncSetAttribute((clsFunction_t)(func), (clsFuncAttribute)(attr), (value))
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, func, block, smem)    \
  clsOccupancyMaxActiveBlocksPerMultiprocessor((n), (clsFunction_t)(func),     \
                                               (block), (smem))
/* CUDA's is a C++ template whose last two parameters default to 0; this
 * macro takes 3, 4 or 5 arguments, in C too. */
#define cudaOccupancyMaxPotentialBlockSize(...)                                \
  CLS__OCC_PICK(__VA_ARGS__, CLS__OCC5, CLS__OCC4, CLS__OCC3, , )(__VA_ARGS__)
#define CLS__OCC_PICK(a, b, c, d, e, name, ...) name
#define CLS__OCC5(grid, block, func, smem, limit)                              \
  clsOccupancyMaxPotentialBlockSize((grid), (block), (clsFunction_t)(func),    \
                                    (smem), (limit))
#define CLS__OCC4(grid, block, func, smem) CLS__OCC5(grid, block, func, smem, 0)
#define CLS__OCC3(grid, block, func) CLS__OCC5(grid, block, func, 0, 0)

#endif /* CLSTREAM_CUDA_QUERY_H */
