/*
 * clstream_cuda.h: the CUDA runtime's names for clstream (opt-in).
 *
 * Include this header instead of <cuda_runtime.h> (never both) and CUDA
 * host code that uses streams, events, memory, devices and errors compiles
 * unchanged against clstream:
 *
 *   cudaStream_t s;  cudaEvent_t e;
 *   cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
 *   cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s);
 *   cudaEventRecord(e, s);
 *   if (cudaEventQuery(e) == cudaErrorNotReady) ...
 *
 * Every name maps to the clstream name with `cls` for `cuda`, with the same
 * values (error codes are numerically equal to CUDA's) and the same
 * behaviour; cudaGetErrorName maps to clsGetErrorNameCuda, which gives
 * CUDA's names ("cudaErrorNotReady") where clsGetErrorName gives
 * clstream's.  The names are macros and typedefs, plus a few static inline
 * wrappers (cudaLaunchKernel, for its `const void *` parameter, and the
 * graph calls whose CUDA 13 signatures differ from clstream's): no extra
 * symbol, nothing to link.  The allocation calls (cudaMalloc,
 * cudaMallocHost, cudaHostAlloc, cudaMallocManaged, cudaMallocAsync,
 * cudaHostGetDevicePointer) are function-like macros that accept a typed
 * pointer's address (`int *d; cudaMalloc(&d, n)`) from C without a
 * warning, as CUDA's C++ templates do; an argument that is not the address
 * of a pointer still draws a diagnostic.  In C++, cudaMallocHost takes
 * CUDA's optional third argument (flags, as cudaHostAlloc) and
 * cudaMallocManaged its optional flags.  Type names that CUDA declares as
 * struct or enum tags (`struct cudaDeviceProp`, `enum cudaMemcpyKind`, `enum
 * cudaError`, `dim3`) are macros, so that both the tag spelling C code uses and
 * the plain type name work.
 *
 * What has no counterpart here:
 *  - Kernels: `__global__` functions and `<<<...>>>` launches.  Kernels are
 *    written in the clstream dialect (cl/clstream_kernel.h), loaded with
 *    clsModuleLoadData and launched with clsLaunchKernel or cudaLaunchKernel
 *    (which takes the clsFunction_t where CUDA takes the kernel's address).
 *  - CUDA runtime calls clstream does not implement (cudaDeviceReset,
 *    cudaMemPoolCreate, CUDA arrays, ...): they stay undeclared, so the
 *    compiler names each one.
 *
 * CUDART_VERSION is 13000: the CUDA runtime version whose semantics
 * clstream follows (docs/semantics.md was measured with CUDA 13.0), so version
 * gates in host code take their CUDA 13 paths.  CLSTREAM_CUDA_NAMES tells
 * code that it is built against clstream.  __CUDA_RUNTIME_H__ and
 * __DRIVER_TYPES_H__ are defined as the CUDA runtime headers define them,
 * so that helpers that test them (NVIDIA's helper_cuda.h: checkCudaErrors,
 * findCudaDevice) compile their runtime parts, and a cuda_runtime.h
 * included later is skipped.
 *
 * docs/porting-from-cuda.md lists what maps one to one and what differs.
 */
#ifndef CLSTREAM_CUDA_H
#define CLSTREAM_CUDA_H

#if defined(__CUDA_RUNTIME_H__) || defined(__DRIVER_TYPES_H__) ||              \
    defined(__CUDA_RUNTIME_API_H__)
#error                                                                         \
    "clstream_cuda.h: include it instead of the CUDA runtime headers, not with them"
#endif

#include "clstream.h"

/* Defined so that code can tell it is built against clstream's names. */
#define CLSTREAM_CUDA_NAMES 1
/* The CUDA runtime version whose behaviour clstream reproduces (13.0). */
#define CUDART_VERSION 13000
/* The include guards of cuda_runtime.h and driver_types.h (see above). */
#define __CUDA_RUNTIME_H__
#define __DRIVER_TYPES_H__

/* The calling-convention marker CUDA puts on stream callbacks. */
#ifndef CUDART_CB
#define CUDART_CB
#endif

/* ---- Types ------------------------------------------------------------ */

typedef clsError_t cudaError_t;
typedef clsStream_t cudaStream_t;
typedef clsEvent_t cudaEvent_t;
typedef clsHostFn_t cudaHostFn_t;
typedef clsStreamCallback_t cudaStreamCallback_t;
/* Tags in CUDA (`enum cudaError`, `enum cudaMemcpyKind`,
 * `struct cudaDeviceProp`, `struct dim3`): macros, so that both spellings
 * work. */
#define cudaError clsError
#define cudaMemcpyKind clsMemcpyKind
#define cudaDeviceProp clsDeviceProp
#define cudaDeviceAttr clsDeviceAttr
#define cudaComputeMode clsComputeMode
#ifdef __cplusplus
/* In C++, CUDA's dim3 has constructors (dim3 grid(64), dim3 block(16,
 * 16)); this one is a clsDim3 with the same constructors, so it passes
 * wherever a clsDim3 is taken. */
struct dim3 : clsDim3 {
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1)
      : clsDim3{vx, vy, vz} {}
  constexpr dim3(clsDim3 d) : clsDim3(d) {}
};
#else
#define dim3 clsDim3
#endif

/* ---- Error codes (numerically equal to CUDA's) ------------------------ */

/* One name for every entry of clstream.h's CLS_ERROR_LIST, in its order:
 * cudaNAME is clsNAME.  They are macros, as the other names here are, and
 * not the enumerators of a second enum, which would be a type of its own:
 * C compilers warn where its values meet a cudaError_t, and C++ does not
 * convert them to one.  The preprocessor cannot write #define lines, so
 * they are spelled out; tests/test_error.c checks that these names and
 * the list agree both ways (every entry has its name here, every name here
 * an entry). */
#define cudaSuccess clsSuccess
#define cudaErrorInvalidValue clsErrorInvalidValue
#define cudaErrorMemoryAllocation clsErrorMemoryAllocation
#define cudaErrorInitializationError clsErrorInitializationError
#define cudaErrorCudartUnloading clsErrorCudartUnloading
#define cudaErrorInvalidConfiguration clsErrorInvalidConfiguration
#define cudaErrorInvalidPitchValue clsErrorInvalidPitchValue
#define cudaErrorInvalidSymbol clsErrorInvalidSymbol
#define cudaErrorInvalidHostPointer clsErrorInvalidHostPointer
#define cudaErrorInvalidDevicePointer clsErrorInvalidDevicePointer
#define cudaErrorInvalidMemcpyDirection clsErrorInvalidMemcpyDirection
#define cudaErrorStubLibrary clsErrorStubLibrary
#define cudaErrorInsufficientDriver clsErrorInsufficientDriver
#define cudaErrorCallRequiresNewerDriver clsErrorCallRequiresNewerDriver
#define cudaErrorDevicesUnavailable clsErrorDevicesUnavailable
#define cudaErrorMissingConfiguration clsErrorMissingConfiguration
#define cudaErrorInvalidDeviceFunction clsErrorInvalidDeviceFunction
#define cudaErrorNoDevice clsErrorNoDevice
#define cudaErrorInvalidDevice clsErrorInvalidDevice
#define cudaErrorInvalidKernelImage clsErrorInvalidKernelImage
#define cudaErrorDeviceUninitialized clsErrorDeviceUninitialized
#define cudaErrorNoKernelImageForDevice clsErrorNoKernelImageForDevice
#define cudaErrorECCUncorrectable clsErrorECCUncorrectable
#define cudaErrorUnsupportedLimit clsErrorUnsupportedLimit
#define cudaErrorDeviceAlreadyInUse clsErrorDeviceAlreadyInUse
#define cudaErrorPeerAccessUnsupported clsErrorPeerAccessUnsupported
#define cudaErrorInvalidPtx clsErrorInvalidPtx
#define cudaErrorJitCompilerNotFound clsErrorJitCompilerNotFound
#define cudaErrorUnsupportedPtxVersion clsErrorUnsupportedPtxVersion
#define cudaErrorJitCompilationDisabled clsErrorJitCompilationDisabled
#define cudaErrorInvalidSource clsErrorInvalidSource
#define cudaErrorSharedObjectSymbolNotFound clsErrorSharedObjectSymbolNotFound
#define cudaErrorSharedObjectInitFailed clsErrorSharedObjectInitFailed
#define cudaErrorInvalidResourceHandle clsErrorInvalidResourceHandle
#define cudaErrorIllegalState clsErrorIllegalState
#define cudaErrorSymbolNotFound clsErrorSymbolNotFound
#define cudaErrorNotReady clsErrorNotReady
#define cudaErrorIllegalAddress clsErrorIllegalAddress
#define cudaErrorLaunchOutOfResources clsErrorLaunchOutOfResources
#define cudaErrorLaunchTimeout clsErrorLaunchTimeout
#define cudaErrorPeerAccessAlreadyEnabled clsErrorPeerAccessAlreadyEnabled
#define cudaErrorPeerAccessNotEnabled clsErrorPeerAccessNotEnabled
#define cudaErrorContextIsDestroyed clsErrorContextIsDestroyed
#define cudaErrorAssert clsErrorAssert
#define cudaErrorHostMemoryAlreadyRegistered clsErrorHostMemoryAlreadyRegistered
#define cudaErrorHostMemoryNotRegistered clsErrorHostMemoryNotRegistered
#define cudaErrorHardwareStackError clsErrorHardwareStackError
#define cudaErrorIllegalInstruction clsErrorIllegalInstruction
#define cudaErrorMisalignedAddress clsErrorMisalignedAddress
#define cudaErrorInvalidAddressSpace clsErrorInvalidAddressSpace
#define cudaErrorInvalidPc clsErrorInvalidPc
#define cudaErrorLaunchFailure clsErrorLaunchFailure
#define cudaErrorCooperativeLaunchTooLarge clsErrorCooperativeLaunchTooLarge
#define cudaErrorNotPermitted clsErrorNotPermitted
#define cudaErrorNotSupported clsErrorNotSupported
#define cudaErrorSystemNotReady clsErrorSystemNotReady
#define cudaErrorSystemDriverMismatch clsErrorSystemDriverMismatch
#define cudaErrorStreamCaptureUnsupported clsErrorStreamCaptureUnsupported
#define cudaErrorStreamCaptureInvalidated clsErrorStreamCaptureInvalidated
#define cudaErrorStreamCaptureMerge clsErrorStreamCaptureMerge
#define cudaErrorStreamCaptureUnmatched clsErrorStreamCaptureUnmatched
#define cudaErrorStreamCaptureUnjoined clsErrorStreamCaptureUnjoined
#define cudaErrorStreamCaptureIsolation clsErrorStreamCaptureIsolation
#define cudaErrorStreamCaptureImplicit clsErrorStreamCaptureImplicit
#define cudaErrorCapturedEvent clsErrorCapturedEvent
#define cudaErrorStreamCaptureWrongThread clsErrorStreamCaptureWrongThread
#define cudaErrorTimeout clsErrorTimeout
#define cudaErrorUnknown clsErrorUnknown

/* ---- Streams, events, copies: constants ------------------------------- */

#define cudaStreamLegacy clsStreamLegacy
#define cudaStreamPerThread clsStreamPerThread
#define cudaStreamDefault clsStreamDefault
#define cudaStreamNonBlocking clsStreamNonBlocking

#define cudaEventDefault clsEventDefault
#define cudaEventBlockingSync clsEventBlockingSync
#define cudaEventDisableTiming clsEventDisableTiming
#define cudaEventInterprocess clsEventInterprocess

#define cudaMemcpyHostToHost clsMemcpyHostToHost
#define cudaMemcpyHostToDevice clsMemcpyHostToDevice
#define cudaMemcpyDeviceToHost clsMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice clsMemcpyDeviceToDevice
#define cudaMemcpyDefault clsMemcpyDefault

/* ---- Devices, host memory, managed memory: constants ------------------ */

#define cudaDevAttrMaxThreadsPerBlock clsDevAttrMaxThreadsPerBlock
#define cudaDevAttrMaxBlockDimX clsDevAttrMaxBlockDimX
#define cudaDevAttrMaxBlockDimY clsDevAttrMaxBlockDimY
#define cudaDevAttrMaxBlockDimZ clsDevAttrMaxBlockDimZ
#define cudaDevAttrMaxGridDimX clsDevAttrMaxGridDimX
#define cudaDevAttrMaxGridDimY clsDevAttrMaxGridDimY
#define cudaDevAttrMaxGridDimZ clsDevAttrMaxGridDimZ
#define cudaDevAttrMaxSharedMemoryPerBlock clsDevAttrMaxSharedMemoryPerBlock
#define cudaDevAttrTotalConstantMemory clsDevAttrTotalConstantMemory
#define cudaDevAttrWarpSize clsDevAttrWarpSize
#define cudaDevAttrMaxPitch clsDevAttrMaxPitch
#define cudaDevAttrMaxRegistersPerBlock clsDevAttrMaxRegistersPerBlock
#define cudaDevAttrClockRate clsDevAttrClockRate
#define cudaDevAttrTextureAlignment clsDevAttrTextureAlignment
#define cudaDevAttrGpuOverlap clsDevAttrGpuOverlap
#define cudaDevAttrMultiProcessorCount clsDevAttrMultiProcessorCount
#define cudaDevAttrKernelExecTimeout clsDevAttrKernelExecTimeout
#define cudaDevAttrIntegrated clsDevAttrIntegrated
#define cudaDevAttrCanMapHostMemory clsDevAttrCanMapHostMemory
#define cudaDevAttrComputeMode clsDevAttrComputeMode
#define cudaDevAttrConcurrentKernels clsDevAttrConcurrentKernels
#define cudaDevAttrEccEnabled clsDevAttrEccEnabled
#define cudaDevAttrPciBusId clsDevAttrPciBusId
#define cudaDevAttrPciDeviceId clsDevAttrPciDeviceId
#define cudaDevAttrTccDriver clsDevAttrTccDriver
#define cudaDevAttrMemoryClockRate clsDevAttrMemoryClockRate
#define cudaDevAttrGlobalMemoryBusWidth clsDevAttrGlobalMemoryBusWidth
#define cudaDevAttrL2CacheSize clsDevAttrL2CacheSize
#define cudaDevAttrMaxThreadsPerMultiProcessor                                 \
  clsDevAttrMaxThreadsPerMultiProcessor
#define cudaDevAttrAsyncEngineCount clsDevAttrAsyncEngineCount
#define cudaDevAttrUnifiedAddressing clsDevAttrUnifiedAddressing
#define cudaDevAttrPciDomainId clsDevAttrPciDomainId
#define cudaDevAttrComputeCapabilityMajor clsDevAttrComputeCapabilityMajor
#define cudaDevAttrComputeCapabilityMinor clsDevAttrComputeCapabilityMinor
#define cudaDevAttrStreamPrioritiesSupported clsDevAttrStreamPrioritiesSupported
#define cudaDevAttrGlobalL1CacheSupported clsDevAttrGlobalL1CacheSupported
#define cudaDevAttrLocalL1CacheSupported clsDevAttrLocalL1CacheSupported
#define cudaDevAttrMaxSharedMemoryPerMultiprocessor                            \
  clsDevAttrMaxSharedMemoryPerMultiprocessor
#define cudaDevAttrMaxRegistersPerMultiprocessor                               \
  clsDevAttrMaxRegistersPerMultiprocessor
#define cudaDevAttrManagedMemory clsDevAttrManagedMemory
#define cudaDevAttrIsMultiGpuBoard clsDevAttrIsMultiGpuBoard
#define cudaDevAttrMultiGpuBoardGroupID clsDevAttrMultiGpuBoardGroupID
#define cudaDevAttrHostNativeAtomicSupported clsDevAttrHostNativeAtomicSupported
#define cudaDevAttrSingleToDoublePrecisionPerfRatio                            \
  clsDevAttrSingleToDoublePrecisionPerfRatio
#define cudaDevAttrPageableMemoryAccess clsDevAttrPageableMemoryAccess
#define cudaDevAttrConcurrentManagedAccess clsDevAttrConcurrentManagedAccess
#define cudaDevAttrComputePreemptionSupported                                  \
  clsDevAttrComputePreemptionSupported
#define cudaDevAttrCanUseHostPointerForRegisteredMem                           \
  clsDevAttrCanUseHostPointerForRegisteredMem
#define cudaDevAttrCooperativeLaunch clsDevAttrCooperativeLaunch
#define cudaDevAttrMaxSharedMemoryPerBlockOptin                                \
  clsDevAttrMaxSharedMemoryPerBlockOptin
#define cudaDevAttrHostRegisterSupported clsDevAttrHostRegisterSupported
#define cudaDevAttrMaxBlocksPerMultiprocessor                                  \
  clsDevAttrMaxBlocksPerMultiprocessor
#define cudaDevAttrMemoryPoolsSupported clsDevAttrMemoryPoolsSupported

#define cudaComputeModeDefault clsComputeModeDefault
#define cudaComputeModeExclusive clsComputeModeExclusive
#define cudaComputeModeProhibited clsComputeModeProhibited
#define cudaComputeModeExclusiveProcess clsComputeModeExclusiveProcess

#define cudaDeviceScheduleAuto clsDeviceScheduleAuto
#define cudaDeviceScheduleSpin clsDeviceScheduleSpin
#define cudaDeviceScheduleYield clsDeviceScheduleYield
#define cudaDeviceScheduleBlockingSync clsDeviceScheduleBlockingSync
#define cudaDeviceBlockingSync clsDeviceBlockingSync
#define cudaDeviceScheduleMask clsDeviceScheduleMask
#define cudaDeviceMapHost clsDeviceMapHost
#define cudaDeviceLmemResizeToMax clsDeviceLmemResizeToMax
#define cudaDeviceSyncMemops clsDeviceSyncMemops
#define cudaDeviceMask clsDeviceMask

#define cudaHostAllocDefault clsHostAllocDefault
#define cudaHostAllocPortable clsHostAllocPortable
#define cudaHostAllocMapped clsHostAllocMapped
#define cudaHostAllocWriteCombined clsHostAllocWriteCombined
#define cudaHostRegisterDefault clsHostRegisterDefault
#define cudaHostRegisterPortable clsHostRegisterPortable
#define cudaHostRegisterMapped clsHostRegisterMapped
#define cudaHostRegisterIoMemory clsHostRegisterIoMemory
#define cudaHostRegisterReadOnly clsHostRegisterReadOnly

#define cudaMemAttachGlobal clsMemAttachGlobal
#define cudaMemAttachHost clsMemAttachHost
#define cudaMemAttachSingle clsMemAttachSingle

/* ---- Functions -------------------------------------------------------- */

/* Errors. */
#define cudaGetLastError clsGetLastError
#define cudaPeekAtLastError clsPeekAtLastError
/* CUDA's names ("cudaErrorNotReady"), so that a ported program prints
 * what it prints on CUDA; clsGetErrorName gives clstream's. */
#define cudaGetErrorName clsGetErrorNameCuda
#define cudaGetErrorString clsGetErrorString

/* Devices. */
#define cudaGetDeviceCount clsGetDeviceCount
#define cudaSetDevice clsSetDevice
#define cudaGetDevice clsGetDevice
#define cudaGetDeviceProperties clsGetDeviceProperties
#define cudaDeviceSynchronize clsDeviceSynchronize
#define cudaDeviceGetStreamPriorityRange clsDeviceGetStreamPriorityRange
/* Deprecated in CUDA; still found in older host code. */
#define cudaThreadSynchronize clsDeviceSynchronize
#define cudaDeviceGetAttribute clsDeviceGetAttribute
#define cudaSetDeviceFlags clsSetDeviceFlags
#define cudaGetDeviceFlags clsGetDeviceFlags

/* Streams. */
#define cudaStreamCreate clsStreamCreate
#define cudaStreamCreateWithFlags clsStreamCreateWithFlags
#define cudaStreamCreateWithPriority clsStreamCreateWithPriority
#define cudaStreamDestroy clsStreamDestroy
#define cudaStreamSynchronize clsStreamSynchronize
#define cudaStreamQuery clsStreamQuery
#define cudaStreamWaitEvent clsStreamWaitEvent
#define cudaStreamGetFlags clsStreamGetFlags
#define cudaStreamGetPriority clsStreamGetPriority
#define cudaStreamAddCallback clsStreamAddCallback
#define cudaLaunchHostFunc clsLaunchHostFunc

/* Events. */
#define cudaEventCreate clsEventCreate
#define cudaEventCreateWithFlags clsEventCreateWithFlags
#define cudaEventDestroy clsEventDestroy
#define cudaEventRecord clsEventRecord
#define cudaEventQuery clsEventQuery
#define cudaEventSynchronize clsEventSynchronize
#define cudaEventElapsedTime clsEventElapsedTime

/* Memory.  CLSTREAM_VOIDPP(p) converts the address of any pointer to the
 * void ** the cls functions take; the unevaluated comparison makes the
 * compiler complain, as CUDA's own declarations would, when `p` is not the
 * address of a pointer (`cudaMalloc(d, n)` for `int *d`). */
#define CLSTREAM_VOIDPP(p) ((void **)(p) + 0 * sizeof(*(p) == (void *)0))
/* The third or fourth argument picks between the forms with and without
 * the optional one. */
#define CLSTREAM_PICK3_(a, b, c, name, ...) name
#define cudaMalloc(devPtr, size) clsMalloc(CLSTREAM_VOIDPP(devPtr), (size))
#define cudaFree clsFree
#define cudaMallocHost(...)                                                    \
  CLSTREAM_PICK3_(__VA_ARGS__, CLSTREAM_MALLOC_HOST3_,                         \
                  CLSTREAM_MALLOC_HOST2_, )                                    \
  (__VA_ARGS__)
#define CLSTREAM_MALLOC_HOST2_(ptr, size)                                      \
  clsMallocHost(CLSTREAM_VOIDPP(ptr), (size))
#define CLSTREAM_MALLOC_HOST3_(ptr, size, flags)                               \
  clsHostAlloc(CLSTREAM_VOIDPP(ptr), (size), (flags))
#define cudaFreeHost clsFreeHost
#define cudaHostAlloc(ptr, size, flags)                                        \
  clsHostAlloc(CLSTREAM_VOIDPP(ptr), (size), (flags))
#define cudaHostGetDevicePointer(devPtr, hostPtr, flags)                       \
  clsHostGetDevicePointer(CLSTREAM_VOIDPP(devPtr), (hostPtr), (flags))
#define cudaHostRegister clsHostRegister
#define cudaHostUnregister clsHostUnregister
#define cudaMallocManaged(...)                                                 \
  CLSTREAM_PICK3_(__VA_ARGS__, CLSTREAM_MALLOC_MANAGED3_,                      \
                  CLSTREAM_MALLOC_MANAGED2_, )                                 \
  (__VA_ARGS__)
#define CLSTREAM_MALLOC_MANAGED2_(devPtr, size)                                \
  clsMallocManaged(CLSTREAM_VOIDPP(devPtr), (size), clsMemAttachGlobal)
#define CLSTREAM_MALLOC_MANAGED3_(devPtr, size, flags)                         \
  clsMallocManaged(CLSTREAM_VOIDPP(devPtr), (size), (flags))
#define cudaMallocAsync(devPtr, size, stream)                                  \
  clsMallocAsync(CLSTREAM_VOIDPP(devPtr), (size), (stream))
#define cudaFreeAsync clsFreeAsync
#define cudaMemcpy clsMemcpy
#define cudaMemcpyAsync clsMemcpyAsync
#define cudaMemset clsMemset
#define cudaMemsetAsync clsMemsetAsync

/* Managed memory: advice, prefetch, range attributes (CUDA 13 forms). */
#define cudaMemLocation clsMemLocation
#define cudaMemLocationType clsMemLocationType
#define cudaMemLocationTypeInvalid clsMemLocationTypeInvalid
#define cudaMemLocationTypeDevice clsMemLocationTypeDevice
#define cudaMemLocationTypeHost clsMemLocationTypeHost
#define cudaMemLocationTypeHostNuma clsMemLocationTypeHostNuma
#define cudaMemLocationTypeHostNumaCurrent clsMemLocationTypeHostNumaCurrent
#define cudaMemoryAdvise clsMemoryAdvise
#define cudaMemAdviseSetReadMostly clsMemAdviseSetReadMostly
#define cudaMemAdviseUnsetReadMostly clsMemAdviseUnsetReadMostly
#define cudaMemAdviseSetPreferredLocation clsMemAdviseSetPreferredLocation
#define cudaMemAdviseUnsetPreferredLocation clsMemAdviseUnsetPreferredLocation
#define cudaMemAdviseSetAccessedBy clsMemAdviseSetAccessedBy
#define cudaMemAdviseUnsetAccessedBy clsMemAdviseUnsetAccessedBy
#define cudaMemRangeAttribute clsMemRangeAttribute
#define cudaMemRangeAttributeReadMostly clsMemRangeAttributeReadMostly
#define cudaMemRangeAttributePreferredLocation                                 \
  clsMemRangeAttributePreferredLocation
#define cudaMemRangeAttributeAccessedBy clsMemRangeAttributeAccessedBy
#define cudaMemRangeAttributeLastPrefetchLocation                              \
  clsMemRangeAttributeLastPrefetchLocation
#define cudaMemRangeAttributePreferredLocationType                             \
  clsMemRangeAttributePreferredLocationType
#define cudaMemRangeAttributePreferredLocationId                               \
  clsMemRangeAttributePreferredLocationId
#define cudaMemRangeAttributeLastPrefetchLocationType                          \
  clsMemRangeAttributeLastPrefetchLocationType
#define cudaMemRangeAttributeLastPrefetchLocationId                            \
  clsMemRangeAttributeLastPrefetchLocationId
#define cudaCpuDeviceId clsCpuDeviceId
#define cudaInvalidDeviceId clsInvalidDeviceId
#define cudaMemAdvise clsMemAdvise
#define cudaMemPrefetchAsync clsMemPrefetchAsync
#define cudaMemRangeGetAttribute clsMemRangeGetAttribute

/* Memory pools, free memory, peers, pitched memory (issue 26). */
typedef clsMemPool_t cudaMemPool_t;
#define cudaMemPoolAttr clsMemPoolAttr
#define cudaMemPoolReuseFollowEventDependencies                                \
  clsMemPoolReuseFollowEventDependencies
#define cudaMemPoolReuseAllowOpportunistic clsMemPoolReuseAllowOpportunistic
#define cudaMemPoolReuseAllowInternalDependencies                              \
  clsMemPoolReuseAllowInternalDependencies
#define cudaMemPoolAttrReleaseThreshold clsMemPoolAttrReleaseThreshold
#define cudaMemPoolAttrReservedMemCurrent clsMemPoolAttrReservedMemCurrent
#define cudaMemPoolAttrReservedMemHigh clsMemPoolAttrReservedMemHigh
#define cudaMemPoolAttrUsedMemCurrent clsMemPoolAttrUsedMemCurrent
#define cudaMemPoolAttrUsedMemHigh clsMemPoolAttrUsedMemHigh
#define cudaDeviceGetDefaultMemPool clsDeviceGetDefaultMemPool
#define cudaDeviceSetMemPool clsDeviceSetMemPool
#define cudaDeviceGetMemPool clsDeviceGetMemPool
#define cudaMemPoolSetAttribute clsMemPoolSetAttribute
#define cudaMemPoolGetAttribute clsMemPoolGetAttribute
#define cudaMemPoolTrimTo clsMemPoolTrimTo
#define cudaMemGetInfo clsMemGetInfo
#define cudaDeviceCanAccessPeer clsDeviceCanAccessPeer
#define cudaDeviceEnablePeerAccess clsDeviceEnablePeerAccess
#define cudaDeviceDisablePeerAccess clsDeviceDisablePeerAccess
#define cudaMemcpyPeer clsMemcpyPeer
#define cudaMemcpyPeerAsync clsMemcpyPeerAsync
#define cudaPitchedPtr clsPitchedPtr
#define cudaExtent clsExtent
#define cudaPos clsPos
#define cudaMemcpy3DParms clsMemcpy3DParms
#define make_cudaPitchedPtr make_clsPitchedPtr
#define make_cudaExtent make_clsExtent
#define make_cudaPos make_clsPos
#define cudaMallocPitch(devPtr, pitch, width, height)                          \
  clsMallocPitch(CLSTREAM_VOIDPP(devPtr), (pitch), (width), (height))
#define cudaMalloc3D clsMalloc3D
#define cudaMemcpy2D clsMemcpy2D
#define cudaMemcpy2DAsync clsMemcpy2DAsync
#define cudaMemset2D clsMemset2D
#define cudaMemset2DAsync clsMemset2DAsync
#define cudaMemcpy3D clsMemcpy3D
#define cudaMemcpy3DAsync clsMemcpy3DAsync

/* Profiler (cuda_profiler_api.h). */
#define cudaProfilerStart clsProfilerStart
#define cudaProfilerStop clsProfilerStop

/* Launches.  CUDA's cudaLaunchKernel takes the kernel's host address; here
 * `func` is a clsFunction_t from clsModuleGetFunction (passed as it is, or
 * cast to const void * as CUDA code does).  Otherwise as clsLaunchKernel:
 * args[i] points to parameter i's value, sharedMem sizes the kernel's
 * CLS_DYNAMIC_SHARED array. */
static inline cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim,
                                           dim3 blockDim, void **args,
                                           size_t sharedMem,
                                           cudaStream_t stream) {
  return clsLaunchKernel((clsFunction_t)func, gridDim, blockDim, args,
                         sharedMem, stream);
}

/* Module globals (kparams).  `symbol` is the device address that
 * clsModuleGetGlobal returns for a CLS_DEVICE_GLOBAL or CLS_CONSTANT
 * (CUDA's __device__ or __constant__) of a module, where CUDA code passes
 * the variable itself. */
#define cudaMemcpyToSymbol clsMemcpyToSymbol
#define cudaMemcpyToSymbolAsync clsMemcpyToSymbolAsync
#define cudaMemcpyFromSymbol clsMemcpyFromSymbol
#define cudaMemcpyFromSymbolAsync clsMemcpyFromSymbolAsync
#define cudaGetSymbolAddress(devPtr, symbol)                                   \
  clsGetSymbolAddress(CLSTREAM_VOIDPP(devPtr), (symbol))
#define cudaGetSymbolSize clsGetSymbolSize

/* The device-query names (the rest of cudaDeviceAttr, kernel attributes,
 * occupancy): a header of their own, part of this one. */
#include "clstream_cuda_query.h"
/* Stream capture and graphs: a header of their own, part of this one. */
#include "clstream_cuda_graph.h"

#endif /* CLSTREAM_CUDA_H */
