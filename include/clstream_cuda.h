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
 * clstream's.  The names are macros and typedefs, plus one static inline
 * wrapper (cudaLaunchKernel, for its `const void *` parameter): no extra
 * symbol, nothing to link.  Type names that CUDA declares as struct
 * or enum tags (`struct cudaDeviceProp`, `enum cudaMemcpyKind`,
 * `enum cudaError`, `dim3`) are macros, so that both the tag spelling C code
 * uses and the plain type name work.
 *
 * What has no counterpart here:
 *  - Kernels: `__global__` functions and `<<<...>>>` launches.  Kernels are
 *    written in the clstream dialect (cl/clstream_kernel.h), loaded with
 *    clsModuleLoadData and launched with clsLaunchKernel or cudaLaunchKernel
 *    (which takes the clsFunction_t where CUDA takes the kernel's address).
 *  - CUDA runtime calls clstream does not implement (cudaDeviceReset,
 *    cudaHostAlloc, cudaHostRegister, cudaSetDeviceFlags, graphs, managed
 *    memory, ...): they stay undeclared, so the compiler names each one.
 *  - CUDART_VERSION is not defined: code that tests it takes its
 *    "not the CUDA runtime" path.  CLSTREAM_CUDA_NAMES is defined instead.
 *
 * docs/porting-from-cuda.md lists what maps one to one and what differs.
 */
#ifndef CLSTREAM_CUDA_H
#define CLSTREAM_CUDA_H

#if defined(__CUDA_RUNTIME_H__) || defined(__DRIVER_TYPES_H__) ||             \
    defined(__CUDA_RUNTIME_API_H__)
#error "clstream_cuda.h: include it instead of the CUDA runtime headers, not with them"
#endif

#include "clstream.h"

/* Defined so that code can tell it is built against clstream's names. */
#define CLSTREAM_CUDA_NAMES 1

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
#define cudaErrorStreamCaptureImplicit clsErrorStreamCaptureImplicit
#define cudaErrorCapturedEvent clsErrorCapturedEvent
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

/* Memory. */
#define cudaMalloc clsMalloc
#define cudaFree clsFree
#define cudaMallocHost clsMallocHost
#define cudaFreeHost clsFreeHost
#define cudaMemcpy clsMemcpy
#define cudaMemcpyAsync clsMemcpyAsync
#define cudaMemset clsMemset
#define cudaMemsetAsync clsMemsetAsync

/* Launches.  CUDA's cudaLaunchKernel takes the kernel's host address; here
 * `func` is a clsFunction_t from clsModuleGetFunction (passed as it is, or
 * cast to const void * as CUDA code does).  Otherwise as clsLaunchKernel:
 * args[i] points to parameter i's value, sharedMem must be 0. */
static inline cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim,
                                           dim3 blockDim, void **args,
                                           size_t sharedMem,
                                           cudaStream_t stream) {
  return clsLaunchKernel((clsFunction_t)func, gridDim, blockDim, args,
                         sharedMem, stream);
}

#endif /* CLSTREAM_CUDA_H */
