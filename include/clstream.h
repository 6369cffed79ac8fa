/*
 * clstream: the CUDA runtime's stream and event model on any OpenCL device
 * (and, in the optional CUDA build, on NVIDIA GPUs through the CUDA runtime).
 *
 * Every function returns a clsError_t unless another return type is shown.
 * Where a function has a CUDA runtime twin (clsX <-> cudaX) it behaves as
 * the twin does, edge cases and error codes included.  A failed call stores
 * its code as the calling thread's last error (clsGetLastError), except
 * clsErrorNotReady, which is a state and not an error.
 *
 * Threads: every function may be called from any thread.  Functions that
 * block say so; nothing blocks while holding a lock that another clstream
 * call needs.  Host functions and stream callbacks run on a library-owned
 * thread and must not call clstream (clsErrorNotPermitted).
 *
 * First use of a device: the first call in the process that uses a device
 * (clsSetDevice, or any call that acts on the current device, naming a
 * default stream included; not clsGetDevice, clsGetDeviceCount or
 * clsGetDeviceProperties) blocks once while the device is opened: its
 * context is created and, on OpenCL, a start-up check of its marker
 * timestamps waits for a few device commands.  "Never blocks" below means
 * apart from that one time.
 *
 * Environment: CLSTREAM_DEVICE picks the default device (an index, or a
 * case-insensitive substring of the device or platform name); CLSTREAM_LOG=1
 * prints one line on stderr for every error a function returns.
 * clsGetSetting lists every CLSTREAM_* variable the library reads.
 *
 * No OpenCL or CUDA header is included here.
 */
#ifndef CLSTREAM_H
#define CLSTREAM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CLS_API
#elif defined(__GNUC__)
#define CLS_API __attribute__((visibility("default")))
#else
#define CLS_API
#endif

/* The version of this header and of the library built with it. */
#define CLSTREAM_VERSION_MAJOR 0
#define CLSTREAM_VERSION_MINOR 1
#define CLSTREAM_VERSION_PATCH 0

/* Error codes: the one list.  CLS_ERROR_LIST(X) calls X(NAME, NUMBER,
 * DESCRIPTION) once for every code, where clsNAME is the enumerator,
 * NUMBER its value (cudaError_t's for cudaNAME, CUDA 13) and DESCRIPTION
 * what clsGetErrorString returns for it (cudaGetErrorString's text in
 * CUDA 13.0).  The clsError_t enum below, clsGetErrorName,
 * clsGetErrorNameCuda, clsGetErrorString and clstream_cuda.h's cuda names
 * all come from this list; user code may expand it too (for a table of
 * its own, say).  The OpenCL build returns only some of the codes; the
 * others are here so that code testing for them compiles, and the CUDA
 * build passes them on. */
#define CLS_ERROR_LIST(X)                                                      \
  X(Success, 0, "no error")                                                    \
  X(ErrorInvalidValue, 1, "invalid argument")                                  \
  X(ErrorMemoryAllocation, 2, "out of memory")                                 \
  X(ErrorInitializationError, 3, "initialization error")                       \
  X(ErrorCudartUnloading, 4, "driver shutting down")                           \
  X(ErrorInvalidConfiguration, 9, "invalid configuration argument")            \
  X(ErrorInvalidPitchValue, 12, "invalid pitch argument")                      \
  X(ErrorInvalidSymbol, 13, "invalid device symbol")                           \
  X(ErrorInvalidHostPointer, 16, "invalid host pointer")                       \
  X(ErrorInvalidDevicePointer, 17, "invalid device pointer")                   \
  X(ErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy")      \
  X(ErrorStubLibrary, 34, "CUDA driver is a stub library")                     \
  X(ErrorInsufficientDriver, 35,                                               \
    "CUDA driver version is insufficient for CUDA runtime version")            \
  X(ErrorCallRequiresNewerDriver, 36,                                          \
    "API call is not supported in the installed CUDA driver")                  \
  X(ErrorDevicesUnavailable, 46,                                               \
    "CUDA-capable device(s) is/are busy or unavailable")                       \
  X(ErrorMissingConfiguration, 52,                                             \
    "__global__ function call is not configured")                              \
  X(ErrorInvalidDeviceFunction, 98, "invalid device function")                 \
  X(ErrorNoDevice, 100, "no CUDA-capable device is detected")                  \
  X(ErrorInvalidDevice, 101, "invalid device ordinal")                         \
  X(ErrorInvalidKernelImage, 200, "device kernel image is invalid")            \
  X(ErrorDeviceUninitialized, 201, "invalid device context")                   \
  X(ErrorNoKernelImageForDevice, 209,                                          \
    "no kernel image is available for execution on the device")                \
  X(ErrorECCUncorrectable, 214, "uncorrectable ECC error encountered")         \
  X(ErrorUnsupportedLimit, 215, "limit is not supported on this architecture") \
  X(ErrorDeviceAlreadyInUse, 216,                                              \
    "exclusive-thread device already in use by a different thread")            \
  X(ErrorPeerAccessUnsupported, 217,                                           \
    "peer access is not supported between these two devices")                  \
  X(ErrorInvalidPtx, 218, "a PTX JIT compilation failed")                      \
  X(ErrorJitCompilerNotFound, 221, "PTX JIT compiler library not found")       \
  X(ErrorUnsupportedPtxVersion, 222,                                           \
    "the provided PTX was compiled with an unsupported toolchain.")            \
  X(ErrorJitCompilationDisabled, 223, "PTX JIT compilation was disabled")      \
  X(ErrorInvalidSource, 300, "device kernel image is invalid")                 \
  X(ErrorSharedObjectSymbolNotFound, 302, "shared object symbol not found")    \
  X(ErrorSharedObjectInitFailed, 303, "shared object initialization failed")   \
  X(ErrorInvalidResourceHandle, 400, "invalid resource handle")                \
  X(ErrorIllegalState, 401,                                                    \
    "the operation cannot be performed in the present state")                  \
  X(ErrorSymbolNotFound, 500, "named symbol not found")                        \
  X(ErrorNotReady, 600, "device not ready")                                    \
  X(ErrorIllegalAddress, 700, "an illegal memory access was encountered")      \
  X(ErrorLaunchOutOfResources, 701, "too many resources requested for launch") \
  X(ErrorLaunchTimeout, 702, "the launch timed out and was terminated")        \
  X(ErrorPeerAccessAlreadyEnabled, 704, "peer access is already enabled")      \
  X(ErrorPeerAccessNotEnabled, 705, "peer access has not been enabled")        \
  X(ErrorContextIsDestroyed, 709, "context is destroyed")                      \
  X(ErrorAssert, 710, "device-side assert triggered")                          \
  X(ErrorHostMemoryAlreadyRegistered, 712,                                     \
    "part or all of the requested memory range is already mapped")             \
  X(ErrorHostMemoryNotRegistered, 713,                                         \
    "pointer does not correspond to a registered memory region")               \
  X(ErrorHardwareStackError, 714, "hardware stack error")                      \
  X(ErrorIllegalInstruction, 715, "an illegal instruction was encountered")    \
  X(ErrorMisalignedAddress, 716, "misaligned address")                         \
  X(ErrorInvalidAddressSpace, 717,                                             \
    "operation not supported on global/shared address space")                  \
  X(ErrorInvalidPc, 718, "invalid program counter")                            \
  X(ErrorLaunchFailure, 719, "unspecified launch failure")                     \
  X(ErrorCooperativeLaunchTooLarge, 720,                                       \
    "too many blocks in cooperative launch")                                   \
  X(ErrorNotPermitted, 800, "operation not permitted")                         \
  X(ErrorNotSupported, 801, "operation not supported")                         \
  X(ErrorSystemNotReady, 802, "system not yet initialized")                    \
  X(ErrorSystemDriverMismatch, 803,                                            \
    "system has unsupported display driver / cuda driver combination")         \
  X(ErrorStreamCaptureUnsupported, 900,                                        \
    "operation not permitted when stream is capturing")                        \
  X(ErrorStreamCaptureInvalidated, 901,                                        \
    "operation failed due to a previous error during capture")                 \
  X(ErrorStreamCaptureMerge, 902,                                              \
    "operation would result in a merge of separate capture sequences")         \
  X(ErrorStreamCaptureUnmatched, 903,                                          \
    "capture was not ended in the same stream as it began")                    \
  X(ErrorStreamCaptureUnjoined, 904, "capturing stream has unjoined work")     \
  X(ErrorStreamCaptureIsolation, 905,                                          \
    "dependency created on uncaptured work in another stream")                 \
  X(ErrorStreamCaptureImplicit, 906,                                           \
    "operation would make the legacy stream depend on a capturing blocking "   \
    "stream")                                                                  \
  X(ErrorCapturedEvent, 907,                                                   \
    "operation not permitted on an event last recorded in a capturing stream") \
  X(ErrorStreamCaptureWrongThread, 908,                                        \
    "attempt to terminate a thread-local capture sequence from another "       \
    "thread")                                                                  \
  X(ErrorTimeout, 909, "wait operation timed out")                             \
  X(ErrorUnknown, 999, "unknown error")

/* The error codes: clsNAME = NUMBER for every entry of CLS_ERROR_LIST. */
typedef enum clsError {
#define CLS_ERROR_ENUMERATOR(name, number, description) cls##name = number,
  CLS_ERROR_LIST(CLS_ERROR_ENUMERATOR) /* clsSuccess = 0, and so on */
#undef CLS_ERROR_ENUMERATOR
} clsError_t;

/* Opaque handles.  A handle is validated on every call: a destroyed,
 * never-created or wrong-kind handle returns clsErrorInvalidResourceHandle
 * and is never dereferenced. */
typedef struct clsStream_st *clsStream_t;
typedef struct clsEvent_st *clsEvent_t;
typedef struct clsModule_st *clsModule_t;
typedef struct clsFunction_st *clsFunction_t;

/* The legacy default stream (NULL means the same) and the per-thread
 * default stream. */
#define clsStreamLegacy ((clsStream_t)0x1)
#define clsStreamPerThread ((clsStream_t)0x2)

/* Stream flags. */
#define clsStreamDefault 0x0u
#define clsStreamNonBlocking 0x1u

/* Event flags. */
#define clsEventDefault 0x0u
#define clsEventBlockingSync 0x1u
#define clsEventDisableTiming 0x2u
#define clsEventInterprocess 0x4u

/* Copy directions for clsMemcpy and clsMemcpyAsync, with cudaMemcpyKind's
 * values. */
typedef enum clsMemcpyKind {
  clsMemcpyHostToHost = 0,
  clsMemcpyHostToDevice = 1,
  clsMemcpyDeviceToHost = 2,
  clsMemcpyDeviceToDevice = 3,
  clsMemcpyDefault = 4
} clsMemcpyKind;

/* Grid and block sizes for clsLaunchKernel (CUDA's dim3); a dimension
 * that is not used is 1. */
typedef struct clsDim3 {
  unsigned x, y, z; /* Sizes in dimensions 0, 1 and 2. */
} clsDim3;

/* A host function for clsLaunchHostFunc (cudaHostFn_t). */
typedef void (*clsHostFn_t)(void *userData);
/* A stream callback for clsStreamAddCallback (cudaStreamCallback_t). */
typedef void (*clsStreamCallback_t)(clsStream_t stream, clsError_t status,
                                    void *userData);

/* A device's UUID (cudaUUID_t). */
typedef struct clsUUID_st {
  char bytes[16];
} clsUUID_t;

/* Device properties.  The first fields mirror cudaDeviceProp's; the
 * cls-specific ones follow, then the rest of CUDA 13's fields. */
typedef struct clsDeviceProp {
  char name[256];           /* Device name. */
  size_t totalGlobalMem;    /* Device memory, bytes. */
  size_t sharedMemPerBlock; /* Local (shared) memory per block, bytes. */
  int multiProcessorCount;  /* Compute units. */
  int maxThreadsPerBlock;   /* Largest block (work-group). */
  int maxThreadsDim[3];     /* Largest block in each dimension. */
  int maxGridSize[3];       /* Largest grid in each dimension, blocks. */
  int warpSize;             /* SIMD width where known, else 1. */
  int clockRate;            /* kHz */
  /* Compute capability.  On the CUDA build and for NVIDIA devices under
   * OpenCL (cl_nv_device_attribute_query), the hardware's own.  For any
   * other OpenCL device, 7.5: the oldest compute capability CUDA 13
   * supports, whose runtime semantics clstream follows, so that the usual
   * "requires SM x.y" gates of host code pass; what a device can really do
   * is in the feature fields (concurrentKernels, canMapHostMemory,
   * managedMemory, streamPrioritiesSupported, ...), never in major.minor.
   * computeCapabilityNative says which case applies; the OpenCL version is
   * in clVersionMajor and clVersionMinor. */
  int major, minor;
  int concurrentKernels; /* 1 when kernels may run concurrently. */
  int unifiedAddressing; /* 1 when device pointers are host-sized addresses. */
  /* More of cudaDeviceProp's fields, with the same meaning.  deviceOverlap
   * and computeMode were dropped from cudaDeviceProp in CUDA 13 (they are
   * device attributes there) and are kept here for older host code. */
  int integrated;       /* 1 when the device shares the host's memory. */
  int canMapHostMemory; /* 1 when kernels can use clsHostAllocMapped
                           memory (clsHostGetDevicePointer works). */
  int asyncEngineCount; /* Copy engines that overlap kernels (0: none). */
  int deviceOverlap;    /* 1 when copies may overlap kernels. */
  int computeMode;      /* A clsComputeMode value. */
  int managedMemory;    /* 1 when clsMallocManaged works. */
  int concurrentManagedAccess;   /* 1 when host and device may touch managed
                                    memory at the same time. */
  int pageableMemoryAccess;      /* 1 when kernels can use any host memory. */
  int hostRegisterSupported;     /* 1 when clsHostRegister works. */
  int memoryPoolsSupported;      /* 1 when clsMallocAsync works. */
  int streamPrioritiesSupported; /* As streamPriorities below. */
  /* clstream's own fields. */
  char platformName[256];   /* OpenCL platform (or "CUDA"). */
  char driverVersion[64];   /* Driver version string. */
  int isCpu;                /* 1 for a CPU device (PoCL). */
  int svmCoarseGrain;       /* 1 when the device has coarse-grained
                               SVM (device memory unless bufferMemory). */
  int selectable;           /* 1 when clsSetDevice accepts the device. */
  int streamPriorities;     /* 1 when stream priorities take effect. */
  double timerResolutionNs; /* Profiling timer resolution. */
  int timingFallback;       /* Where the driver's marker timestamps
                               were found wrong at start-up, timed
                               records there are a 4-byte copy: 1 for
                               every timed record, 2 only for those
                               behind a host function or a wait (as on
                               NVIDIA's OpenCL); 0 for none. */
  int clVersionMajor, clVersionMinor; /* The device's OpenCL version
                                         (CL_DEVICE_VERSION); 0, 0 on the
                                         CUDA build. */
  int computeCapabilityNative;        /* 1 when major.minor are the hardware's
                                         compute capability, 0 when they are
                                         clstream's nominal 7.5. */
  int bufferMemory;                   /* 1 when device memory is OpenCL buffers
                                         behind addresses clstream reserves (no
                                         coarse-grained SVM, or
                                         CLSTREAM_MEMORY=buffers); 0 for SVM. */
  int simulator;                      /* 1 for a simulator (Oclgrind): listed
                                         after every other device. */
  size_t bufferArgAlign;              /* With bufferMemory: the bytes of
                                         CL_DEVICE_MEM_BASE_ADDR_ALIGN, which a
                                         pointer's offset must be a multiple of
                                         only beyond a kernel's 62nd pointer
                                         parameter (any offset works
                                         elsewhere).  1 otherwise. */
  int timerIsHostClock;               /* 1 when the device's profiling clock
                                         was found at start-up to be a host
                                         clock (PoCL): a timed record on an
                                         idle stream then reads it and
                                         enqueues nothing.  0 until the device
                                         is first used, and on CUDA. */
  int hostFuncsInline;                /* 1 where the driver runs queued work
                                         inside clFlush on the calling thread
                                         (Oclgrind; or CLSTREAM_HOST_INLINE=1):
                                         clsLaunchHostFunc and
                                         clsStreamAddCallback run the function
                                         on the calling thread, once the
                                         stream's earlier work is done, and
                                         return after it has run.  0 elsewhere
                                         (a library thread, asynchronously). */
  /* ---- The rest of CUDA 13's cudaDeviceProp (kernel clocks and device
   * queries), with CUDA's names and meaning.  On OpenCL a field takes the
   * driver's answer where OpenCL or an extension gives one; a value no
   * driver query gives is 0 (docs/api.md lists each field's source), and
   * the fields of features clstream does not offer (textures, surfaces,
   * clusters, cooperative launches, IPC, GPUDirect, NUMA) are 0 too, as
   * CUDA reports a feature a device lacks.  memoryClockRate and
   * kernelExecTimeoutEnabled left cudaDeviceProp in CUDA 13 (they are
   * attributes there) and are kept for older host code. */
  clsUUID_t uuid;                  /* cl_khr_device_uuid's device UUID */
  char luid[8];                    /* cl_khr_device_uuid's LUID, if valid */
  unsigned int luidDeviceNodeMask; /* its node mask */
  int regsPerBlock;             /* NVIDIA: CL_DEVICE_REGISTERS_PER_BLOCK_NV */
  size_t memPitch;              /* INT_MAX, as CUDA 13 (or less where
                                   CL_DEVICE_MAX_MEM_ALLOC_SIZE is less) */
  size_t totalConstMem;         /* CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE */
  size_t textureAlignment;      /* 0: no textures */
  size_t texturePitchAlignment; /* 0 */
  int kernelExecTimeoutEnabled; /* NVIDIA: CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV */
  int maxTexture1D, maxTexture1DMipmap, maxTexture2D[2], maxTexture2DMipmap[2],
      maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3],
      maxTexture3DAlt[3], maxTextureCubemap, maxTexture1DLayered[2],
      maxTexture2DLayered[3], maxTextureCubemapLayered[2]; /* 0 */
  int maxSurface1D, maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2],
      maxSurface2DLayered[3], maxSurfaceCubemap,
      maxSurfaceCubemapLayered[2]; /* 0 */
  size_t surfaceAlignment;         /* 0 */
  int ECCEnabled;                  /* CL_DEVICE_ERROR_CORRECTION_SUPPORT */
  int pciBusID, pciDeviceID, pciDomainID; /* cl_khr_pci_bus_info, or
                                             NVIDIA's PCI queries; else 0 */
  int tccDriver;                          /* 0 */
  int memoryClockRate;                    /* 0: no driver gives it */
  int memoryBusWidth;                     /* 0: no driver gives it */
  int l2CacheSize;                        /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
  int persistingL2CacheMaxSize;           /* 0 */
  int maxThreadsPerMultiProcessor;        /* OpenCL: the largest work-group, the
                                             most a compute unit is known to hold */
  int globalL1CacheSupported;             /* 1 where global memory is cached
                                             (CL_DEVICE_GLOBAL_MEM_CACHE_TYPE) */
  int localL1CacheSupported;              /* 0: no driver says */
  size_t sharedMemPerMultiprocessor;      /* CL_DEVICE_LOCAL_MEM_SIZE */
  int regsPerMultiprocessor;              /* 0: no driver says */
  int isMultiGpuBoard, multiGpuBoardGroupID; /* 0 */
  int hostNativeAtomicSupported;             /* fine-grained SVM with atomics */
  int computePreemptionSupported;            /* 0 */
  int canUseHostPointerForRegisteredMem;     /* as pageableMemoryAccess */
  int cooperativeLaunch;                     /* 0: not offered */
  size_t sharedMemPerBlockOptin;             /* as sharedMemPerBlock */
  int pageableMemoryAccessUsesHostPageTables; /* as pageableMemoryAccess */
  int directManagedMemAccessFromHost;         /* as managedMemory */
  int maxBlocksPerMultiProcessor;    /* OpenCL: maxThreadsPerMultiProcessor /
                                        warpSize (blocks of one warp each) */
  int accessPolicyMaxWindowSize;     /* 0 */
  size_t reservedSharedMemPerBlock;  /* 0 */
  int sparseCudaArraySupported;      /* 0 */
  int hostRegisterReadOnlySupported; /* as hostRegisterSupported */
  int timelineSemaphoreInteropSupported, gpuDirectRDMASupported; /* 0 */
  unsigned int gpuDirectRDMAFlushWritesOptions;                  /* 0 */
  int gpuDirectRDMAWritesOrdering;                               /* 0 */
  unsigned int memoryPoolSupportedHandleTypes;                   /* 0 */
  int deferredMappingCudaArraySupported, ipcEventSupported;      /* 0 */
  int clusterLaunch, unifiedFunctionPointers;                    /* 0 */
  int deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;    /* 0 */
  unsigned int gpuPciDeviceID, gpuPciSubsystemID;                /* 0 */
  int hostNumaMultinodeIpcSupported;                             /* 0 */
  /* clstream's own (kernel clocks and event timing). */
  int kernelClock;     /* What cls_clock64() reads in kernels: a
                          clsKernelClock value (clsKernelClockNone: using it
                          is a build error).  Decided by a probe build when
                          the device is first used: 0 until then on
                          OpenCL. */
  int eventHostStamps; /* 1 where the device's profiling timestamps cannot
                          time work (rusticl on llvmpipe): timed events are
                          stamped with the host's CLOCK_MONOTONIC when a
                          library thread sees the recorded work complete,
                          and timerResolutionNs is that clock's resolution;
                          the stamp trails the completion by the time the
                          library takes to see it (docs/semantics.md).  0
                          until the device is first used. */
  int svmArgsStick;    /* Whether the driver takes a buffer on a kernel
                          argument that once held an SVM pointer, found by
                          a probe the first time a launch needs to know:
                          2 refused (NVIDIA's OpenCL; such launches use a
                          second kernel object), 1 taken, 0 not probed (no
                          launch has passed host memory as a buffer after
                          device memory; always on the CUDA build;
                          docs/drivers.md). */
} clsDeviceProp;

/* What cls_clock64() reads (clsDeviceProp's kernelClock, the kernel
 * dialect's CLS_CLOCK64_KIND). */
typedef enum clsKernelClock {
  clsKernelClockNone = 0,      /* no clock: cls_clock64() is a build error */
  clsKernelClockSmCycles = 1,  /* the multiprocessor's cycle counter (CUDA;
                                  NVIDIA's OpenCL through inline PTX) */
  clsKernelClockDevice = 2,    /* cl_khr_kernel_clock's device clock */
  clsKernelClockHostCycles = 3 /* the host CPU's time-stamp counter (PoCL) */
} clsKernelClock;

/* Compute modes (cudaComputeMode), as computeMode and
 * clsDevAttrComputeMode report them.  OpenCL devices are always
 * clsComputeModeDefault. */
typedef enum clsComputeMode {
  clsComputeModeDefault = 0,
  clsComputeModeExclusive = 1,
  clsComputeModeProhibited = 2,
  clsComputeModeExclusiveProcess = 3
} clsComputeMode;

/* Device attributes for clsDeviceGetAttribute, with cudaDeviceAttr's
 * values.  Every attribute of CUDA 13's enum is accepted; the ones listed
 * here are those host code commonly reads.  On OpenCL, an attribute of a
 * feature clstream does not offer (textures, surfaces, cooperative or
 * cluster launches, ...) reads 0. */
typedef enum clsDeviceAttr {
  clsDevAttrMaxThreadsPerBlock = 1,
  clsDevAttrMaxBlockDimX = 2,
  clsDevAttrMaxBlockDimY = 3,
  clsDevAttrMaxBlockDimZ = 4,
  clsDevAttrMaxGridDimX = 5,
  clsDevAttrMaxGridDimY = 6,
  clsDevAttrMaxGridDimZ = 7,
  clsDevAttrMaxSharedMemoryPerBlock = 8,
  clsDevAttrTotalConstantMemory = 9,
  clsDevAttrWarpSize = 10,
  clsDevAttrMaxPitch = 11,
  clsDevAttrMaxRegistersPerBlock = 12,
  clsDevAttrClockRate = 13,
  clsDevAttrTextureAlignment = 14,
  clsDevAttrGpuOverlap = 15,
  clsDevAttrMultiProcessorCount = 16,
  clsDevAttrKernelExecTimeout = 17,
  clsDevAttrIntegrated = 18,
  clsDevAttrCanMapHostMemory = 19,
  clsDevAttrComputeMode = 20,
  clsDevAttrConcurrentKernels = 31,
  clsDevAttrEccEnabled = 32,
  clsDevAttrPciBusId = 33,
  clsDevAttrPciDeviceId = 34,
  clsDevAttrTccDriver = 35,
  clsDevAttrMemoryClockRate = 36,
  clsDevAttrGlobalMemoryBusWidth = 37,
  clsDevAttrL2CacheSize = 38,
  clsDevAttrMaxThreadsPerMultiProcessor = 39,
  clsDevAttrAsyncEngineCount = 40,
  clsDevAttrUnifiedAddressing = 41,
  clsDevAttrPciDomainId = 50,
  clsDevAttrComputeCapabilityMajor = 75,
  clsDevAttrComputeCapabilityMinor = 76,
  clsDevAttrStreamPrioritiesSupported = 78,
  clsDevAttrGlobalL1CacheSupported = 79,
  clsDevAttrLocalL1CacheSupported = 80,
  clsDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  clsDevAttrMaxRegistersPerMultiprocessor = 82,
  clsDevAttrManagedMemory = 83,
  clsDevAttrIsMultiGpuBoard = 84,
  clsDevAttrMultiGpuBoardGroupID = 85,
  clsDevAttrHostNativeAtomicSupported = 86,
  clsDevAttrSingleToDoublePrecisionPerfRatio = 87,
  clsDevAttrPageableMemoryAccess = 88,
  clsDevAttrConcurrentManagedAccess = 89,
  clsDevAttrComputePreemptionSupported = 90,
  clsDevAttrCanUseHostPointerForRegisteredMem = 91,
  clsDevAttrCooperativeLaunch = 95,
  clsDevAttrMaxSharedMemoryPerBlockOptin = 97,
  clsDevAttrHostRegisterSupported = 99,
  clsDevAttrMaxBlocksPerMultiprocessor = 106,
  clsDevAttrMemoryPoolsSupported = 115,
  /* The rest of CUDA 13's enum (device queries).  Of the numbers it
   * leaves out, 44 (the driver's deprecated CAN_TEX2D_GATHER) and 96
   * (cudaDevAttrCooperativeMultiDeviceLaunch, which CUDA 13 dropped) give
   * clsSuccess and 1, and 122 clsSuccess and 0, as CUDA 13's runtime
   * answers them; the others (92-94, 102-105, 107, 110, 123, 124,
   * 127-129, 132, 136, 137, 141, 145, 146: reserved or removed) are
   * clsErrorInvalidValue, as in CUDA 13. */
  clsDevAttrMaxTexture1DWidth = 21,
  clsDevAttrMaxTexture2DWidth = 22,
  clsDevAttrMaxTexture2DHeight = 23,
  clsDevAttrMaxTexture3DWidth = 24,
  clsDevAttrMaxTexture3DHeight = 25,
  clsDevAttrMaxTexture3DDepth = 26,
  clsDevAttrMaxTexture2DLayeredWidth = 27,
  clsDevAttrMaxTexture2DLayeredHeight = 28,
  clsDevAttrMaxTexture2DLayeredLayers = 29,
  clsDevAttrSurfaceAlignment = 30,
  clsDevAttrMaxTexture1DLayeredWidth = 42,
  clsDevAttrMaxTexture1DLayeredLayers = 43,
  clsDevAttrMaxTexture2DGatherWidth = 45,
  clsDevAttrMaxTexture2DGatherHeight = 46,
  clsDevAttrMaxTexture3DWidthAlt = 47,
  clsDevAttrMaxTexture3DHeightAlt = 48,
  clsDevAttrMaxTexture3DDepthAlt = 49,
  clsDevAttrTexturePitchAlignment = 51,
  clsDevAttrMaxTextureCubemapWidth = 52,
  clsDevAttrMaxTextureCubemapLayeredWidth = 53,
  clsDevAttrMaxTextureCubemapLayeredLayers = 54,
  clsDevAttrMaxSurface1DWidth = 55,
  clsDevAttrMaxSurface2DWidth = 56,
  clsDevAttrMaxSurface2DHeight = 57,
  clsDevAttrMaxSurface3DWidth = 58,
  clsDevAttrMaxSurface3DHeight = 59,
  clsDevAttrMaxSurface3DDepth = 60,
  clsDevAttrMaxSurface1DLayeredWidth = 61,
  clsDevAttrMaxSurface1DLayeredLayers = 62,
  clsDevAttrMaxSurface2DLayeredWidth = 63,
  clsDevAttrMaxSurface2DLayeredHeight = 64,
  clsDevAttrMaxSurface2DLayeredLayers = 65,
  clsDevAttrMaxSurfaceCubemapWidth = 66,
  clsDevAttrMaxSurfaceCubemapLayeredWidth = 67,
  clsDevAttrMaxSurfaceCubemapLayeredLayers = 68,
  clsDevAttrMaxTexture1DLinearWidth = 69,
  clsDevAttrMaxTexture2DLinearWidth = 70,
  clsDevAttrMaxTexture2DLinearHeight = 71,
  clsDevAttrMaxTexture2DLinearPitch = 72,
  clsDevAttrMaxTexture2DMipmappedWidth = 73,
  clsDevAttrMaxTexture2DMipmappedHeight = 74,
  clsDevAttrMaxTexture1DMipmappedWidth = 77,
  clsDevAttrCanFlushRemoteWrites = 98,
  clsDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  clsDevAttrDirectManagedMemAccessFromHost = 101,
  clsDevAttrMaxPersistingL2CacheSize = 108,
  clsDevAttrMaxAccessPolicyWindowSize = 109,
  clsDevAttrSparseCudaArraySupported = 112,
  clsDevAttrHostRegisterReadOnlySupported = 113,
  clsDevAttrTimelineSemaphoreInteropSupported = 114,
  clsDevAttrGPUDirectRDMASupported = 116,
  clsDevAttrGPUDirectRDMAFlushWritesOptions = 117,
  clsDevAttrGPUDirectRDMAWritesOrdering = 118,
  clsDevAttrMemoryPoolSupportedHandleTypes = 119,
  clsDevAttrClusterLaunch = 120,
  clsDevAttrDeferredMappingCudaArraySupported = 121,
  clsDevAttrIpcEventSupport = 125,
  clsDevAttrMemSyncDomainCount = 126,
  clsDevAttrNumaConfig = 130,
  clsDevAttrNumaId = 131,
  clsDevAttrMpsEnabled = 133,
  clsDevAttrHostNumaId = 134,
  clsDevAttrD3D12CigSupported = 135,
  clsDevAttrVulkanCigSupported = 138,
  clsDevAttrGpuPciDeviceId = 139,
  clsDevAttrGpuPciSubsystemId = 140,
  clsDevAttrHostNumaMemoryPoolsSupported = 142,
  clsDevAttrHostNumaMultinodeIpcSupported = 143,
  clsDevAttrHostMemoryPoolsSupported = 144,
  clsDevAttrOnlyPartialHostNativeAtomicSupported = 147,
  clsDevAttrMax
} clsDeviceAttr;

/* Device flags for clsSetDeviceFlags (cudaDeviceSchedule*, ...), with
 * CUDA's values.  At most one of the schedule flags (the three low bits). */
#define clsDeviceScheduleAuto 0x00u
#define clsDeviceScheduleSpin 0x01u
#define clsDeviceScheduleYield 0x02u
#define clsDeviceScheduleBlockingSync 0x04u
#define clsDeviceBlockingSync 0x04u /* The deprecated name. */
#define clsDeviceScheduleMask 0x07u
#define clsDeviceMapHost 0x08u
#define clsDeviceLmemResizeToMax 0x10u
#define clsDeviceSyncMemops 0x80u
#define clsDeviceMask 0xffu

/* Flags for clsHostAlloc (cudaHostAlloc*) and clsHostRegister
 * (cudaHostRegister*), with CUDA's values. */
#define clsHostAllocDefault 0x00u
#define clsHostAllocPortable 0x01u
#define clsHostAllocMapped 0x02u
#define clsHostAllocWriteCombined 0x04u
#define clsHostRegisterDefault 0x00u
#define clsHostRegisterPortable 0x01u
#define clsHostRegisterMapped 0x02u
#define clsHostRegisterIoMemory 0x04u
#define clsHostRegisterReadOnly 0x08u

/* Flags for clsMallocManaged (cudaMemAttach*). */
#define clsMemAttachGlobal 0x01u
#define clsMemAttachHost 0x02u
#define clsMemAttachSingle 0x04u

/* ---- Errors ---------------------------------------------------------- */

/* Returns the calling thread's last error and resets it to clsSuccess.
 * Never blocks. */
CLS_API clsError_t clsGetLastError(void);
/* Returns the calling thread's last error without resetting it.  Never
 * blocks. */
CLS_API clsError_t clsPeekAtLastError(void);
/* The enum's name ("clsErrorNotReady"), or "unrecognized error code".
 * The string is static; the caller must not free it.  Never blocks. */
CLS_API const char *clsGetErrorName(clsError_t error);
/* The CUDA runtime's name for the code ("cudaErrorNotReady"), as
 * cudaGetErrorName gives it, or "unrecognized error code"; clstream_cuda.h
 * maps cudaGetErrorName here.  The string is static; the caller must not
 * free it.  Never blocks. */
CLS_API const char *clsGetErrorNameCuda(clsError_t error);
/* A description ("device not ready"), or "unrecognized error code".
 * The string is static; the caller must not free it.  Never blocks. */
CLS_API const char *clsGetErrorString(clsError_t error);
/* The reason the calling thread's last failed call gave, as CLSTREAM_LOG=1
 * prints it after the code ("stream was destroyed", say), or "" when it
 * gave none or reasons were not kept.  Reasons are kept while
 * CLSTREAM_LOG=1 is set or after clsKeepErrorReasons(1).  It stays until
 * the thread's next failed call (or a call that gave a reason and then
 * recovered); clsGetLastError does not reset it.  The string is the
 * thread's own.  No CUDA twin.  Never blocks. */
CLS_API const char *clsGetLastErrorReason(void);
/* keep != 0: from now on every failed call keeps its reason for
 * clsGetLastErrorReason, without printing it (the Python package turns
 * this on); keep == 0: reasons are kept only under CLSTREAM_LOG=1.
 * Costs a function call on each successful call while on.  Always
 * clsSuccess.  No CUDA twin.  Never blocks. */
CLS_API clsError_t clsKeepErrorReasons(int keep);

/* ---- Devices --------------------------------------------------------- */

/* Stores the number of devices (every device of every OpenCL platform,
 * GPUs first; on the CUDA build, CUDA's count).  Returns
 * clsErrorNoDevice (and 0) when there is none.  Never blocks on the
 * device. */
CLS_API clsError_t clsGetDeviceCount(int *count);
/* Makes `device` the calling thread's current device.  A device that
 * cannot be used (older than OpenCL 1.2) returns clsErrorNotSupported;
 * an index out of range returns clsErrorInvalidDevice.  Blocks the first
 * time a device is used (context creation and a start-up timestamp
 * check), otherwise never. */
CLS_API clsError_t clsSetDevice(int device);
/* Stores the calling thread's current device (CLSTREAM_DEVICE's choice
 * until clsSetDevice is called).  Never blocks on the device: it does not
 * open the device. */
CLS_API clsError_t clsGetDevice(int *device);
/* Fills *prop for `device`.  The caller owns *prop.  Never blocks on the
 * device: it does not open the device (timingFallback stays 0 until the
 * device is first used). */
CLS_API clsError_t clsGetDeviceProperties(clsDeviceProp *prop, int device);
/* Blocks until all work in every stream of the current device, host
 * functions included, is done. */
CLS_API clsError_t clsDeviceSynchronize(void);
/* Stores the range of stream priorities: `least` (numerically greatest)
 * and `greatest` (numerically least).  0, 0 when the device has none.
 * Never blocks. */
CLS_API clsError_t clsDeviceGetStreamPriorityRange(int *least, int *greatest);
/* Stores attribute `attr` of `device` in *value (cudaDeviceGetAttribute).
 * clsErrorInvalidValue for a NULL value or an attribute that is not in
 * CUDA 13's enum, clsErrorInvalidDevice for a device out of range.  Never
 * blocks on the device: it does not open the device. */
CLS_API clsError_t clsDeviceGetAttribute(int *value, clsDeviceAttr attr,
                                         int device);
/* Records `flags` (clsDeviceSchedule*, clsDeviceMapHost, ...) for the
 * calling thread's current device, replacing earlier flags even when the
 * device is already in use (CUDA 13's rule).  The schedule flag chooses how
 * this library's waits for that device behave: Spin polls, Yield polls and
 * yields the CPU, BlockingSync sleeps, Auto leaves it to the driver.
 * clsErrorInvalidValue for bits outside clsDeviceMask or more than one
 * schedule flag.  Never blocks on the device. */
CLS_API clsError_t clsSetDeviceFlags(unsigned flags);
/* Stores the current device's flags: those last set, with
 * clsDeviceMapHost added where the device can map host memory (implicit in
 * CUDA's runtime).  Never blocks on the device. */
CLS_API clsError_t clsGetDeviceFlags(unsigned *flags);

/* ---- Streams --------------------------------------------------------- */

/* Creates a blocking stream on the current device; the caller owns *s and
 * destroys it with clsStreamDestroy.  Blocks the first time a device is
 * used (context creation and a start-up timestamp check), otherwise
 * never. */
CLS_API clsError_t clsStreamCreate(clsStream_t *s);
/* As clsStreamCreate, with flags clsStreamDefault or clsStreamNonBlocking
 * (a non-blocking stream does not synchronize with the legacy stream).
 * Blocks only as clsStreamCreate does. */
CLS_API clsError_t clsStreamCreateWithFlags(clsStream_t *s, unsigned flags);
/* As clsStreamCreateWithFlags, with a priority clamped into
 * clsDeviceGetStreamPriorityRange's range.  Blocks only as
 * clsStreamCreate does. */
CLS_API clsError_t clsStreamCreateWithPriority(clsStream_t *s, unsigned flags,
                                               int priority);
/* Destroys a created stream and returns at once; work already in it,
 * host functions included, still runs.  The default streams cannot be
 * destroyed (clsErrorInvalidResourceHandle). */
CLS_API clsError_t clsStreamDestroy(clsStream_t s);
/* Blocks until all work in the stream is done.  For the legacy stream
 * (NULL, clsStreamLegacy) that includes the work of the blocking streams
 * that legacy work issued now would wait for, as in CUDA; the per-thread
 * stream waits for its own work only. */
CLS_API clsError_t clsStreamSynchronize(clsStream_t s);
/* clsSuccess if all work in the stream is done, else clsErrorNotReady.
 * For the legacy stream that includes the blocking streams' work it would
 * wait for (NotReady while one is busy).  Never blocks. */
CLS_API clsError_t clsStreamQuery(clsStream_t s);
/* Makes all later work in `s` wait for the work `e` captured at its most
 * recent record, as of this call.  flags must be 0.  Never blocks. */
CLS_API clsError_t clsStreamWaitEvent(clsStream_t s, clsEvent_t e,
                                      unsigned flags);
/* Stores the flags the stream was created with.  Never blocks. */
CLS_API clsError_t clsStreamGetFlags(clsStream_t s, unsigned *flags);
/* Stores the stream's (clamped) priority.  Never blocks. */
CLS_API clsError_t clsStreamGetPriority(clsStream_t s, int *priority);
/* Runs cb(s, status, userData) once, on a library thread, after all
 * earlier work in `s`; later work in `s` waits until it returns.
 * flags must be 0.  Never blocks, except on a device whose
 * hostFuncsInline is 1 (Oclgrind): there cb runs on the calling thread
 * once the earlier work is done, and the call returns after it (a
 * callback that waits for its caller deadlocks there). */
CLS_API clsError_t clsStreamAddCallback(clsStream_t s, clsStreamCallback_t cb,
                                        void *userData, unsigned flags);
/* Runs fn(userData) once, on a library thread, after all earlier work in
 * `s`; later work in `s` waits until it returns.  Never blocks, except
 * on a device whose hostFuncsInline is 1 (Oclgrind), as for
 * clsStreamAddCallback: fn runs on the calling thread, which it must not
 * wait for. */
CLS_API clsError_t clsLaunchHostFunc(clsStream_t s, clsHostFn_t fn,
                                     void *userData);

/* ---- Events ---------------------------------------------------------- */

/* Creates an event on the current device; the caller owns *e and
 * destroys it with clsEventDestroy.  Blocks the first time a device is
 * used (context creation and a start-up timestamp check), otherwise
 * never. */
CLS_API clsError_t clsEventCreate(clsEvent_t *e);
/* As clsEventCreate with flags (clsEventBlockingSync,
 * clsEventDisableTiming, clsEventInterprocess with DisableTiming).
 * Blocks only as clsEventCreate does. */
CLS_API clsError_t clsEventCreateWithFlags(clsEvent_t *e, unsigned flags);
/* Destroys the event and returns at once; work it captured still runs. */
CLS_API clsError_t clsEventDestroy(clsEvent_t e);
/* Captures the work issued to `s` so far; a later record replaces it.
 * `s` must belong to the event's device.  Never blocks. */
CLS_API clsError_t clsEventRecord(clsEvent_t e, clsStream_t s);
/* clsSuccess if the captured work is done (or the event was never
 * recorded), else clsErrorNotReady.  Never blocks. */
CLS_API clsError_t clsEventQuery(clsEvent_t e);
/* Blocks until the captured work is done (sleeping, for an event created
 * with clsEventBlockingSync). */
CLS_API clsError_t clsEventSynchronize(clsEvent_t e);
/* Stores the milliseconds between the two events' completions.  Never
 * blocks: clsErrorNotReady if either is not yet complete. */
CLS_API clsError_t clsEventElapsedTime(float *ms, clsEvent_t start,
                                       clsEvent_t end);

/* ---- Memory ---------------------------------------------------------- */

/* Allocates device memory on the current device; *devPtr is a real
 * address the host must not dereference.  The caller owns it and frees it
 * with clsFree.  Does not wait for device work; blocks only the first time
 * a device is used. */
CLS_API clsError_t clsMalloc(void **devPtr, size_t size);
/* Frees device memory after the pending work of every stream of its
 * device is done (blocks, as cudaFree does).  NULL is a no-op. */
CLS_API clsError_t clsFree(void *devPtr);
/* Allocates page-locked host memory that async copies may use without
 * blocking: on OpenCL a buffer the driver allocates in host memory
 * (CL_MEM_ALLOC_HOST_PTR) in the current device's context, kept mapped
 * until clsFreeHost; on the CUDA build, cudaMallocHost.  Kernels cannot
 * access it on OpenCL.  The caller owns it and frees it with clsFreeHost.
 * Waits for its own map command, not for other device work; blocks the
 * first time a device is used. */
CLS_API clsError_t clsMallocHost(void **ptr, size_t size);
/* Frees memory from clsMallocHost (on OpenCL unmapping and releasing its
 * buffer) after the pending work of the device it was allocated on is done
 * (blocks).  NULL is a no-op. */
CLS_API clsError_t clsFreeHost(void *ptr);
/* Allocates page-locked host memory as clsMallocHost does, with flags
 * (clsHostAllocPortable, clsHostAllocMapped, clsHostAllocWriteCombined, or
 * an OR of them; clsErrorInvalidValue for any other bit).  Kernels may use
 * the memory, with or without clsHostAllocMapped, at its host address or
 * through clsHostGetDevicePointer's pointer (the same address), as with
 * CUDA's unified addressing (OpenCL: a buffer over the memory, or
 * fine-grained SVM with Mapped where the device has it).  WriteCombined is a
 * hint OpenCL cannot take and is ignored there.  The caller owns *ptr and frees
 * it with clsFreeHost.  Blocks only as clsMallocHost does. */
CLS_API clsError_t clsHostAlloc(void **ptr, size_t size, unsigned flags);
/* Stores in *devPtr the device pointer of host memory from clsMallocHost,
 * clsHostAlloc or clsHostRegister: the host address itself; pointers
 * inside the allocation map to the same offset.  flags must be 0.
 * clsErrorInvalidValue for other memory; clsErrorNotSupported (with a
 * logged reason) for a registered range no buffer could cover (OpenCL:
 * larger than the device's largest allocation).  Never blocks. */
CLS_API clsError_t clsHostGetDevicePointer(void **devPtr, void *hostPtr,
                                           unsigned flags);
/* Registers [ptr, ptr+size) of ordinary host memory as page-locked
 * (cudaHostRegister): async copies then use it in place, without staging,
 * and the caller must keep it unchanged until they are done, as with
 * clsMallocHost memory.  Flags: clsHostRegisterPortable, Mapped, ReadOnly
 * (OR of them); IoMemory is clsErrorNotSupported on OpenCL.  Kernels may
 * use the range at its host address (OpenCL: through a CL_MEM_USE_HOST_PTR
 * buffer over it).  clsErrorInvalidValue for a range that is not all
 * mapped memory of the process, as CUDA;
 * clsErrorHostMemoryAlreadyRegistered for a range that overlaps memory
 * already registered or allocated with clsMallocHost.  Never blocks. */
CLS_API clsError_t clsHostRegister(void *ptr, size_t size, unsigned flags);
/* Unregisters memory registered with clsHostRegister (ptr must be the
 * base given there; clsErrorHostMemoryNotRegistered otherwise).  Blocks
 * until the device's work that may use the range is done; the memory is
 * then the caller's, with what kernels wrote in it. */
CLS_API clsError_t clsHostUnregister(void *ptr);
/* Allocates managed memory (cudaMallocManaged): one pointer that the host
 * and kernels of the current device both use.  flags: clsMemAttachGlobal
 * or clsMemAttachHost (clsErrorInvalidValue otherwise).  Every device has
 * it: on OpenCL a fine-grained SVM buffer where the device has them and
 * its memory is SVM (concurrentManagedAccess 1), else host memory that
 * kernels reach as pinned memory (concurrentManagedAccess 0: the host may
 * touch it only while no device work that uses it is running, as on CUDA
 * devices without concurrent managed access).  The caller owns it and frees it
 * with clsFree.  Does not wait for device work. */
CLS_API clsError_t clsMallocManaged(void **devPtr, size_t size, unsigned flags);
/* Allocates device memory in stream order (cudaMallocAsync) from a pool
 * the library owns for the stream's device: work in `s` enqueued after
 * this call, and work in other streams ordered after it by an event, may
 * use it.  The pool reuses memory freed with clsFreeAsync at once in the
 * stream that freed it, and in another stream only once the free's point
 * in its stream has been reached (it never adds a hidden wait between
 * streams).  size 0 gives NULL.  The caller frees it with clsFreeAsync or
 * clsFree.  Never blocks. */
CLS_API clsError_t clsMallocAsync(void **devPtr, size_t size, clsStream_t s);
/* Frees memory in stream order (cudaFreeAsync): the memory goes back to
 * the pool once the work enqueued before this call in `s` (for the legacy
 * stream, including the blocking streams' work it waits for) is done;
 * work enqueued later must not use it.  Memory from clsMalloc is freed on
 * the device once that point is reached.  NULL is a no-op (clsSuccess, as
 * on CUDA 13); clsErrorInvalidValue for a pointer that is not the start
 * of a device allocation.  Never blocks. */
CLS_API clsError_t clsFreeAsync(void *devPtr, clsStream_t s);
/* Copies `count` bytes on the legacy default stream, so after earlier
 * work in the blocking streams.  A copy that touches host memory blocks
 * until it is done; a copy between two device allocations returns at once
 * (as cudaMemcpy does), and later legacy and blocking-stream work waits
 * for it. */
CLS_API clsError_t clsMemcpy(void *dst, const void *src, size_t count,
                             clsMemcpyKind kind);
/* Enqueues a copy on `s`.  With pinned (clsMallocHost) or device memory
 * it returns at once; from pageable host memory it returns at once too,
 * the source having been copied aside (it may be reused on return); into
 * pageable host memory it returns once the copy is done (so it waits for
 * the stream's earlier work).  A host-to-host copy on the legacy stream
 * returns once the stream's earlier work and the copy are done, whichever
 * side is pinned, as on CUDA 13. */
CLS_API clsError_t clsMemcpyAsync(void *dst, const void *src, size_t count,
                                  clsMemcpyKind kind, clsStream_t s);
/* Sets `count` bytes to (unsigned char)value on the legacy default
 * stream, so after earlier work in the blocking streams.  Returns at once
 * for device memory (as cudaMemset does; later legacy and blocking-stream
 * work waits for it), and blocks until the earlier work and the set are
 * done for pinned (either kind), registered and managed memory, as CUDA 13
 * does. */
CLS_API clsError_t clsMemset(void *devPtr, int value, size_t count);
/* Enqueues a memset on `s`.  Never blocks. */
CLS_API clsError_t clsMemsetAsync(void *devPtr, int value, size_t count,
                                  clsStream_t s);

/* ---- Managed memory: advice, prefetch, range attributes (issue 26) ----
 * CUDA 13's forms: a location is a clsMemLocation (cudaMemLocation), and
 * values are CUDA's.  On OpenCL the advice is kept and answered by
 * clsMemRangeGetAttribute for the allocation holding the range (not per
 * page); a prefetch migrates fine-grained SVM with clEnqueueSVMMigrateMem
 * where the driver has it (OpenCL 2.1), and is otherwise accepted and
 * ordered with nothing to move (host-mapped managed memory is already
 * where both sides reach it). */
typedef enum clsMemLocationType {
  clsMemLocationTypeInvalid = 0,
  clsMemLocationTypeDevice = 1, /* id: a device ordinal */
  clsMemLocationTypeHost = 2,   /* id ignored */
  clsMemLocationTypeHostNuma = 3,
  clsMemLocationTypeHostNumaCurrent = 4
} clsMemLocationType;
typedef struct clsMemLocation {
  clsMemLocationType type;
  int id;
} clsMemLocation;
typedef enum clsMemoryAdvise {
  clsMemAdviseSetReadMostly = 1,
  clsMemAdviseUnsetReadMostly = 2,
  clsMemAdviseSetPreferredLocation = 3,
  clsMemAdviseUnsetPreferredLocation = 4,
  clsMemAdviseSetAccessedBy = 5,
  clsMemAdviseUnsetAccessedBy = 6
} clsMemoryAdvise;
typedef enum clsMemRangeAttribute {
  clsMemRangeAttributeReadMostly = 1,           /* int: 1 or 0 */
  clsMemRangeAttributePreferredLocation = 2,    /* int: device, -1 host */
  clsMemRangeAttributeAccessedBy = 3,           /* int array */
  clsMemRangeAttributeLastPrefetchLocation = 4, /* int: device, -1 host */
  clsMemRangeAttributePreferredLocationType = 5,
  clsMemRangeAttributePreferredLocationId = 6,
  clsMemRangeAttributeLastPrefetchLocationType = 7,
  clsMemRangeAttributeLastPrefetchLocationId = 8
} clsMemRangeAttribute;
/* The device id that stands for the host (cudaCpuDeviceId), and for no
 * location (cudaInvalidDeviceId), in the attributes' int answers. */
#define clsCpuDeviceId (-1)
#define clsInvalidDeviceId (-2)

/* Advises about managed memory [devPtr, devPtr+count) (cudaMemAdvise):
 * ReadMostly ignores `location`; the others take a device location (a
 * valid ordinal, clsErrorInvalidDevice otherwise) or the host.
 * clsErrorInvalidValue for NULL, count 0, a range not inside one
 * clsMallocManaged allocation, or an unknown advice or location type.
 * Never blocks. */
CLS_API clsError_t clsMemAdvise(const void *devPtr, size_t count,
                                clsMemoryAdvise advice,
                                clsMemLocation location);
/* Enqueues on `stream` a migration of managed memory [devPtr,
 * devPtr+count) to `location` (cudaMemPrefetchAsync): a device or the
 * host; flags must be 0.  Later work in the stream runs after it.  Errors
 * as clsMemAdvise.  Never blocks. */
CLS_API clsError_t clsMemPrefetchAsync(const void *devPtr, size_t count,
                                       clsMemLocation location, unsigned flags,
                                       clsStream_t stream);
/* Stores in data (dataSize bytes) what the allocation knows about the
 * range [devPtr, devPtr+count) of managed memory
 * (cudaMemRangeGetAttribute): dataSize must be 4, or a non-zero multiple
 * of 4 for AccessedBy (filled with device ids, then clsInvalidDeviceId).
 * clsErrorInvalidValue otherwise, and as clsMemAdvise.  Never blocks. */
CLS_API clsError_t clsMemRangeGetAttribute(void *data, size_t dataSize,
                                           clsMemRangeAttribute attribute,
                                           const void *devPtr, size_t count);

/* ---- Memory pools, free memory, peers, pitched memory (issue 26) ----- */

/* A memory pool (cudaMemPool_t).  Each device has one, its default pool,
 * which serves clsMallocAsync; clstream creates no other. */
typedef struct clsMemPool_st *clsMemPool_t;

/* Pool attributes, with cudaMemPoolAttr's values.  The three Reuse ones
 * take an int (0 or 1), the others an unsigned long long (cuuint64_t). */
typedef enum clsMemPoolAttr {
  clsMemPoolReuseFollowEventDependencies = 0x1,
  clsMemPoolReuseAllowOpportunistic = 0x2,
  clsMemPoolReuseAllowInternalDependencies = 0x3,
  clsMemPoolAttrReleaseThreshold = 0x4,
  clsMemPoolAttrReservedMemCurrent = 0x5,
  clsMemPoolAttrReservedMemHigh = 0x6,
  clsMemPoolAttrUsedMemCurrent = 0x7,
  clsMemPoolAttrUsedMemHigh = 0x8
} clsMemPoolAttr;

/* Stores the default pool of `device` (clsErrorInvalidDevice for a
 * device out of range).  Never blocks. */
CLS_API clsError_t clsDeviceGetDefaultMemPool(clsMemPool_t *memPool,
                                              int device);
/* Makes memPool the pool clsMallocAsync uses on `device`: only the
 * device's own default pool is accepted (clsErrorInvalidValue for
 * another device's).  Never blocks. */
CLS_API clsError_t clsDeviceSetMemPool(int device, clsMemPool_t memPool);
/* Stores the pool clsMallocAsync uses on `device`.  Never blocks. */
CLS_API clsError_t clsDeviceGetMemPool(clsMemPool_t *memPool, int device);
/* Sets a pool attribute from *value.  ReleaseThreshold: free memory the
 * pool keeps cached rather than give back to the driver (on OpenCL 64 MiB
 * until set; CUDA starts at 0 and gives memory back at synchronizations).
 * Setting ReservedMemHigh or UsedMemHigh resets it to the current value
 * (CUDA documents 0; CUDA 13 takes any value the same way); the Current
 * ones are read-only (clsErrorInvalidValue).
 * On OpenCL the Reuse flags are stored and ReuseAllowOpportunistic 0 stops
 * a stream from taking memory freed in another stream.  Never blocks. */
CLS_API clsError_t clsMemPoolSetAttribute(clsMemPool_t memPool,
                                          clsMemPoolAttr attr, void *value);
/* Stores a pool attribute in *value (an int or an unsigned long long, as
 * above): ReservedMemCurrent is the device memory the pool holds (in use
 * and cached), UsedMemCurrent what clsMallocAsync has handed out and not
 * yet got back; the High ones their peaks since the last reset.  Never
 * blocks. */
CLS_API clsError_t clsMemPoolGetAttribute(clsMemPool_t memPool,
                                          clsMemPoolAttr attr, void *value);
/* Gives back to the driver cached memory of the pool whose frees have
 * been reached, until it holds no more than minBytesToKeep (in use
 * included, as CUDA counts).  Never blocks. */
CLS_API clsError_t clsMemPoolTrimTo(clsMemPool_t memPool,
                                    size_t minBytesToKeep);
/* Stores the current device's free and total memory in bytes.  The CUDA
 * build and OpenCL drivers with cl_amd_device_attribute_query give the
 * driver's free figure; elsewhere (NVIDIA's OpenCL, PoCL, rusticl) free
 * is the total minus the device memory clstream itself holds (device,
 * managed and pool allocations, and the pool's cache), which does not
 * see other processes.  A NULL pointer is left out (clsSuccess, as CUDA
 * 13).  Never blocks. */
CLS_API clsError_t clsMemGetInfo(size_t *free, size_t *total);

/* Stores 1 in *canAccessPeer where kernels of `device` can use memory of
 * `peerDevice` (OpenCL: the two share a context, so one pointer names one
 * allocation on both; CUDA: as cudaDeviceCanAccessPeer), else 0 (always 0
 * for a device and itself).  Never blocks. */
CLS_API clsError_t clsDeviceCanAccessPeer(int *canAccessPeer, int device,
                                          int peerDevice);
/* Enables the current device's access to peerDevice's memory (flags must
 * be 0).  clsErrorInvalidDevice for a device out of range,
 * clsErrorPeerAccessUnsupported for the current device itself or where
 * clsDeviceCanAccessPeer says 0, clsErrorPeerAccessAlreadyEnabled the
 * second time (CUDA 13's codes, measured).  On OpenCL access needs no enabling;
 * the call keeps CUDA's bookkeeping.  Never blocks. */
CLS_API clsError_t clsDeviceEnablePeerAccess(int peerDevice, unsigned flags);
/* Disables it again: clsErrorPeerAccessNotEnabled where it is not
 * enabled (the current device itself included).  Never blocks. */
CLS_API clsError_t clsDeviceDisablePeerAccess(int peerDevice);
/* Copies `count` bytes of device memory of srcDevice to device memory of
 * dstDevice, whichever contexts or platforms they are in (through host
 * memory where they share none).  Returns once the copy is done, after
 * the earlier work of both devices (CUDA returns at once but orders the
 * copy after and before all their work).  Blocks. */
CLS_API clsError_t clsMemcpyPeer(void *dst, int dstDevice, const void *src,
                                 int srcDevice, size_t count);
/* Enqueues the same copy on `s` (any device's stream), in its order;
 * staged through host memory, still in order, where a side is memory a
 * device of the stream's context cannot reach.  Never blocks. */
CLS_API clsError_t clsMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                      int srcDevice, size_t count,
                                      clsStream_t s);

/* Pitched memory and 2-D and 3-D copies, with CUDA's types. */
typedef struct clsPitchedPtr {
  void *ptr;    /* the memory */
  size_t pitch; /* bytes from one row to the next */
  size_t xsize; /* logical width, bytes */
  size_t ysize; /* logical height, rows: a slice is pitch * ysize bytes */
} clsPitchedPtr;
typedef struct clsExtent {
  size_t width;  /* bytes (linear memory) */
  size_t height; /* rows */
  size_t depth;  /* slices */
} clsExtent;
typedef struct clsPos {
  size_t x, y, z; /* x in bytes, y in rows, z in slices */
} clsPos;
/* cudaMemcpy3DParms: the array fields must be NULL (CUDA arrays are not
 * in clstream); the fields are in CUDA's order. */
typedef struct clsMemcpy3DParms {
  void *srcArray;
  clsPos srcPos;
  clsPitchedPtr srcPtr;
  void *dstArray;
  clsPos dstPos;
  clsPitchedPtr dstPtr;
  clsExtent extent;
  clsMemcpyKind kind;
} clsMemcpy3DParms;
static inline clsPitchedPtr make_clsPitchedPtr(void *d, size_t p, size_t xsz,
                                               size_t ysz) {
  clsPitchedPtr r = {d, p, xsz, ysz};
  return r;
}
static inline clsExtent make_clsExtent(size_t w, size_t h, size_t d) {
  clsExtent r = {w, h, d};
  return r;
}
static inline clsPos make_clsPos(size_t x, size_t y, size_t z) {
  clsPos r = {x, y, z};
  return r;
}

/* Allocates height rows of width bytes on the current device, each row
 * starting at a multiple of 512 bytes: *pitch gets the row stride.  Freed
 * with clsFree.  A zero width or height gives NULL and pitch 0. */
CLS_API clsError_t clsMallocPitch(void **devPtr, size_t *pitch, size_t width,
                                  size_t height);
/* Allocates a 3-D block (extent.width bytes by height rows by depth
 * slices) as clsMallocPitch would for height * depth rows. */
CLS_API clsError_t clsMalloc3D(clsPitchedPtr *pitchedDevPtr, clsExtent extent);
/* Copies `height` rows of `width` bytes from rows spitch apart to rows
 * dpitch apart, on the legacy stream; returns as clsMemcpy does.  Host
 * memory on either side (pageable or pinned) and device memory, in any
 * pairing.  clsErrorInvalidPitchValue where width exceeds a pitch. */
CLS_API clsError_t clsMemcpy2D(void *dst, size_t dpitch, const void *src,
                               size_t spitch, size_t width, size_t height,
                               clsMemcpyKind kind);
/* The same on `s`, returning as clsMemcpyAsync does. */
CLS_API clsError_t clsMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                    size_t spitch, size_t width, size_t height,
                                    clsMemcpyKind kind, clsStream_t s);
/* Sets `height` rows of `width` bytes, `pitch` apart, to
 * (unsigned char)value, on the legacy stream (as clsMemset returns).
 * clsErrorInvalidValue where width exceeds the pitch (as CUDA 13). */
CLS_API clsError_t clsMemset2D(void *devPtr, size_t pitch, int value,
                               size_t width, size_t height);
/* The same on `s`.  Never blocks. */
CLS_API clsError_t clsMemset2DAsync(void *devPtr, size_t pitch, int value,
                                    size_t width, size_t height, clsStream_t s);
/* Copies extent (width bytes, height rows, depth slices) from srcPtr at
 * srcPos to dstPtr at dstPos, on the legacy stream (as clsMemcpy2D). */
CLS_API clsError_t clsMemcpy3D(const clsMemcpy3DParms *p);
/* The same on `s` (as clsMemcpy2DAsync). */
CLS_API clsError_t clsMemcpy3DAsync(const clsMemcpy3DParms *p, clsStream_t s);

/* ---- Kernels --------------------------------------------------------- */

/* Compiles `source` (the clstream kernel dialect; the prelude is
 * prepended) for the current device with the compiler options `options`
 * (may be NULL).  Blocks while compiling.  On a compile error returns
 * clsErrorInvalidSource; the log is in clsGetLastBuildLog().  The caller
 * owns *m and unloads it with clsModuleUnload. */
CLS_API clsError_t clsModuleLoadData(clsModule_t *m, const char *source,
                                     const char *options);
/* Unloads the module; functions taken from it become invalid.  Launches
 * already enqueued still run.  Never waits for the device (nor for those
 * launches); it waits only for a clsModuleGetFunction on the same module
 * that another thread has in progress. */
CLS_API clsError_t clsModuleUnload(clsModule_t m);
/* Looks up kernel `name` in `m` (clsErrorSymbolNotFound if absent).  The
 * function is owned by the module: the caller never frees it, and it is
 * invalid once the module is unloaded.  Never blocks on the device (on the
 * CUDA build with CUDA_MODULE_LOADING=LAZY, loading the kernel into the
 * context may wait for the device). */
CLS_API clsError_t clsModuleGetFunction(clsFunction_t *f, clsModule_t m,
                                        const char *name);
/* Enqueues f on `s` with grid x block work-items; args[i] points to the
 * value of parameter i (device pointers and structs passed by value).
 * sharedMem sizes the kernel's CLS_DYNAMIC_SHARED array (CUDA's
 * `extern __shared__`).  A zero dimension, a block or grid above the
 * device's limits, or sharedMem above sharedMemPerBlock (or above the
 * device's local memory less what the kernel declares itself) returns
 * clsErrorInvalidValue (as CUDA 13 does), which, as any argument error, is
 * not sticky.  Never blocks. */
CLS_API clsError_t clsLaunchKernel(clsFunction_t f, clsDim3 grid, clsDim3 block,
                                   void **args, size_t sharedMem,
                                   clsStream_t s);
/* The calling thread's last build log ("" if none).  Owned by the library
 * and valid until the thread's next clsModuleLoadData.  Never blocks. */
CLS_API const char *clsGetLastBuildLog(void);

/* ---- Module globals (kparams) -------------------------------------------
 * A module's CLS_DEVICE_GLOBAL and CLS_CONSTANT variables (CUDA's
 * __device__ and __constant__).  The symbol the calls below take is the
 * device address clsModuleGetGlobal returns (CUDA's runtime takes the
 * host shadow variable, which a module loaded at run time does not have);
 * it is device memory: kernels, clsMemcpy and clsMemset reach it too.  It
 * lives as long as its module. */

/* Stores the device address and size of global `name` of module m, on
 * the current device (as cuModuleGetGlobal; dptr or bytes may be NULL).
 * clsErrorSymbolNotFound when m has no such global.  Builds the module
 * for the current device first if it is not built there. */
CLS_API clsError_t clsModuleGetGlobal(void **dptr, size_t *bytes, clsModule_t m,
                                      const char *name);
/* Copies count bytes from src to symbol + offset (kind HostToDevice,
 * DeviceToDevice or Default), as clsMemcpy does.  A symbol that is not
 * from clsModuleGetGlobal is clsErrorInvalidSymbol; a range past its end
 * clsErrorInvalidValue; another kind clsErrorInvalidMemcpyDirection. */
CLS_API clsError_t clsMemcpyToSymbol(const void *symbol, const void *src,
                                     size_t count, size_t offset,
                                     clsMemcpyKind kind);
/* As clsMemcpyToSymbol, in stream order on `stream` (as clsMemcpyAsync). */
CLS_API clsError_t clsMemcpyToSymbolAsync(const void *symbol, const void *src,
                                          size_t count, size_t offset,
                                          clsMemcpyKind kind,
                                          clsStream_t stream);
/* Copies count bytes from symbol + offset to dst (kind DeviceToHost,
 * DeviceToDevice or Default); errors as clsMemcpyToSymbol. */
CLS_API clsError_t clsMemcpyFromSymbol(void *dst, const void *symbol,
                                       size_t count, size_t offset,
                                       clsMemcpyKind kind);
/* As clsMemcpyFromSymbol, in stream order on `stream`. */
CLS_API clsError_t clsMemcpyFromSymbolAsync(void *dst, const void *symbol,
                                            size_t count, size_t offset,
                                            clsMemcpyKind kind,
                                            clsStream_t stream);
/* Stores the symbol's device address (the symbol itself). */
CLS_API clsError_t clsGetSymbolAddress(void **devPtr, const void *symbol);
/* Stores the symbol's size in bytes. */
CLS_API clsError_t clsGetSymbolSize(size_t *size, const void *symbol);

/* ---- Kernel attributes and occupancy (device queries) ------------------ */

/* A kernel's attributes (cudaFuncAttributes: CUDA 13's fields in its
 * order).  On OpenCL they are the driver's answers for the current
 * device (CL_KERNEL_* queries); a value no driver gives is 0, as said. */
typedef struct clsFuncAttributes {
  size_t sharedSizeBytes; /* Static local (shared) memory, bytes
                             (CL_KERNEL_LOCAL_MEM_SIZE). */
  size_t constSizeBytes;  /* OpenCL: 0 (no driver says). */
  size_t localSizeBytes;  /* Private memory per work-item, bytes
                             (CL_KERNEL_PRIVATE_MEM_SIZE). */
  int maxThreadsPerBlock; /* The largest block this kernel may be launched
                             with (CL_KERNEL_WORK_GROUP_SIZE; NVIDIA's
                             driver 580 says 256 for every kernel). */
  int numRegs;            /* OpenCL: 0 (no driver says). */
  int ptxVersion;         /* OpenCL: 0. */
  int binaryVersion;      /* OpenCL: 0. */
  int cacheModeCA;        /* OpenCL: 0. */
  int maxDynamicSharedSizeBytes; /* As clsFuncSetAttribute last set it; by
                                    default the device's local memory less
                                    sharedSizeBytes on OpenCL. */
  int preferredShmemCarveout;    /* As last set; -1 (no preference) by
                                    default.  A hint OpenCL cannot take. */
  int clusterDimMustBeSet;       /* Clusters: 0 on OpenCL. */
  int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
} clsFuncAttributes;

/* The settable kernel attributes (cudaFuncAttribute), with CUDA's
 * values. */
typedef enum clsFuncAttribute {
  clsFuncAttributeMaxDynamicSharedMemorySize = 8,
  clsFuncAttributePreferredSharedMemoryCarveout = 9,
  clsFuncAttributeClusterDimMustBeSet = 10,
  clsFuncAttributeRequiredClusterWidth = 11,
  clsFuncAttributeRequiredClusterHeight = 12,
  clsFuncAttributeRequiredClusterDepth = 13,
  clsFuncAttributeNonPortableClusterSizeAllowed = 14,
  clsFuncAttributeClusterSchedulingPolicyPreference = 15,
  clsFuncAttributeMax = 16
} clsFuncAttribute;

/* Fills *attr with f's attributes on the current device
 * (cudaFuncGetAttributes), building f's module for that device first if
 * it is not built there yet (blocks while compiling).  InvalidValue for a
 * NULL attr, InvalidDeviceFunction for a handle that is not a live
 * function. */
CLS_API clsError_t clsFuncGetAttributes(clsFuncAttributes *attr,
                                        clsFunction_t f);
/* Sets attribute `attr` of f (cudaFuncSetAttribute):
 * MaxDynamicSharedMemorySize (0 up to sharedMemPerBlockOptin less the
 * kernel's static shared memory) and PreferredSharedMemoryCarveout (-1 up
 * to 100) are kept and read back by clsFuncGetAttributes; on OpenCL the
 * cluster attributes return clsErrorNotSupported (no clusters).
 * InvalidValue for a value out of range or an attribute not in the enum.
 * Never blocks on the device. */
CLS_API clsError_t clsFuncSetAttribute(clsFunction_t f, clsFuncAttribute attr,
                                       int value);
/* Stores in *numBlocks how many blocks of `blockSize` threads of f, each
 * with `dynamicSMemSize` bytes of dynamic shared memory, a multiprocessor
 * holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor).  On
 * OpenCL, from the device's limits: threads (maxThreadsPerMultiProcessor,
 * blocks rounded up to whole warps), local memory
 * (sharedMemPerMultiprocessor) and maxBlocksPerMultiProcessor; 0 for a
 * block larger than the kernel's maxThreadsPerBlock.  InvalidValue for a
 * NULL numBlocks or blockSize <= 0.  Never blocks on the device. */
CLS_API clsError_t clsOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, clsFunction_t f, int blockSize, size_t dynamicSMemSize);
/* Stores the block size that gives f the most resident threads per
 * multiprocessor (*blockSize, a multiple of the warp size up to
 * blockSizeLimit, 0 meaning the kernel's own limit) and the smallest grid
 * that fills the device with it (*minGridSize), by the rule of
 * clsOccupancyMaxActiveBlocksPerMultiprocessor, as CUDA's
 * cudaOccupancyMaxPotentialBlockSize does (its C++ defaults are 0 and
 * 0).  InvalidValue for NULL outputs or a negative limit. */
CLS_API clsError_t clsOccupancyMaxPotentialBlockSize(int *minGridSize,
                                                     int *blockSize,
                                                     clsFunction_t f,
                                                     size_t dynamicSMemSize,
                                                     int blockSizeLimit);

/* ---- Settings and device names ----------------------------------------- */

/* One of the library's settings: a CLSTREAM_* environment variable.  The
 * strings are the library's and live as long as it; the caller must not
 * free them. */
typedef struct clsSetting {
  const char *name;      /* "CLSTREAM_DEVICE" */
  const char *value;     /* the value in force, NULL when unset */
  const char *meaning;   /* what it does, in one sentence */
  const char *whenUnset; /* what holds when it is unset */
} clsSetting;
/* Fills *setting with the library's setting number `index`, counting
 * from 0, and returns clsErrorInvalidValue past the last one (stored as
 * the last error, as every failure is), so that a loop lists them all.
 * A setting is read from the environment once, at its first use by the
 * library or by this call, and that value stays in force: a later change
 * to the environment is not seen.  Needs no device; never blocks. */
CLS_API clsError_t clsGetSetting(clsSetting *setting, int index);
/* Stores in *match whether CLSTREAM_DEVICE=value names `device`: a value
 * of decimal digits names the device of that index; any other non-empty
 * value names every device whose name or platform name contains it,
 * ignoring case.  CLSTREAM_DEVICE selects the first device it names.
 * Never blocks on the device: it does not open it. */
CLS_API clsError_t clsDeviceMatchesName(int *match, int device,
                                        const char *value);

/* ---- Profiler -------------------------------------------------------- */

/* Start and stop collection by an attached profiler (cudaProfilerStart,
 * cudaProfilerStop).  On the CUDA build they forward to the runtime; on
 * OpenCL they return clsSuccess and do nothing (CLSTREAM_TRACE records
 * every command).  Never block. */
CLS_API clsError_t clsProfilerStart(void);
CLS_API clsError_t clsProfilerStop(void);

/* ---- Stream capture and graphs ----------------------------------------
 * CUDA's stream capture and graphs (cudaStreamBeginCapture, cudaGraph_t,
 * cudaGraphExec_t).  Work issued to a capturing stream does not run: it
 * becomes a node of the capture's graph, which clsStreamEndCapture hands
 * over.  An executable graph made from a graph (clsGraphInstantiate) runs
 * every node once per clsGraphLaunch, in the order of the graph's
 * dependencies, after the earlier work of the stream it is launched on.
 * docs/semantics.md lists the capture rules (which calls a capture
 * refuses, which invalidate it, fork and join through events); every
 * graph handle is validated like the others. */
typedef struct clsGraph_st *clsGraph_t;
typedef struct clsGraphExec_st *clsGraphExec_t;
typedef struct clsGraphNode_st *clsGraphNode_t;

/* Which calls a capture forbids on other threads (cudaStreamCaptureMode):
 * Global, a capture that forbids unsafe calls (clsMalloc, clsFree, ...)
 * on its own thread and on every thread in Global mode; ThreadLocal, on
 * its own thread only; Relaxed, on none. */
typedef enum clsStreamCaptureMode {
  clsStreamCaptureModeGlobal = 0,
  clsStreamCaptureModeThreadLocal = 1,
  clsStreamCaptureModeRelaxed = 2
} clsStreamCaptureMode;

/* A stream's capture status (cudaStreamCaptureStatus). */
typedef enum clsStreamCaptureStatus {
  clsStreamCaptureStatusNone = 0,
  clsStreamCaptureStatusActive = 1,
  clsStreamCaptureStatusInvalidated = 2
} clsStreamCaptureStatus;

/* A kernel node (cudaKernelNodeParams): kernelParams as clsLaunchKernel's
 * args (the values are copied when the node is made); extra must be
 * NULL and sharedMemBytes 0. */
typedef struct clsKernelNodeParams {
  clsFunction_t func;
  clsDim3 gridDim, blockDim;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
} clsKernelNodeParams;

/* A memset node (cudaMemsetParams): height rows of width elements of
 * elementSize bytes (1, 2 or 4), pitch bytes apart, set to value. */
typedef struct clsMemsetParams {
  void *dst;
  size_t pitch;
  unsigned value;
  unsigned elementSize;
  size_t width;
  size_t height;
} clsMemsetParams;

/* A host node (cudaHostNodeParams). */
typedef struct clsHostNodeParams {
  clsHostFn_t fn;
  void *userData;
} clsHostNodeParams;

/* Starts capturing `s` (a created stream or clsStreamPerThread; the legacy
 * stream gives clsErrorStreamCaptureUnsupported) in `mode`.  A stream
 * already capturing gives clsErrorIllegalState.  Never blocks. */
CLS_API clsError_t clsStreamBeginCapture(clsStream_t s,
                                         clsStreamCaptureMode mode);
/* Ends the capture begun on `s` and stores its graph (the caller owns it
 * and destroys it with clsGraphDestroy).  An invalidated capture gives
 * clsErrorStreamCaptureInvalidated and *graph = NULL; a stream that
 * joined the capture but is not its origin gives
 * clsErrorStreamCaptureUnmatched; a forked stream that never joined back
 * gives clsErrorStreamCaptureUnjoined; a stream that is not capturing
 * gives clsErrorIllegalState; a ThreadLocal or Global capture ended on
 * another thread gives clsErrorStreamCaptureWrongThread.  Never blocks. */
CLS_API clsError_t clsStreamEndCapture(clsStream_t s, clsGraph_t *graph);
/* Stores whether `s` is capturing.  Never blocks. */
CLS_API clsError_t clsStreamIsCapturing(clsStream_t s,
                                        clsStreamCaptureStatus *status);
/* As clsStreamIsCapturing, and stores the capture's id (unique in the
 * process) in *id where id is not NULL and a capture is on.  Never
 * blocks. */
CLS_API clsError_t clsStreamGetCaptureInfo(clsStream_t s,
                                           clsStreamCaptureStatus *status,
                                           unsigned long long *id);
/* Swaps the calling thread's capture mode with *mode (the thread's mode
 * starts as Global).  Never blocks. */
CLS_API clsError_t
clsThreadExchangeStreamCaptureMode(clsStreamCaptureMode *mode);

/* Creates an empty graph (flags must be 0). */
CLS_API clsError_t clsGraphCreate(clsGraph_t *g, unsigned flags);
/* Destroys a graph and its nodes; executable graphs made from it live on. */
CLS_API clsError_t clsGraphDestroy(clsGraph_t g);
/* With nodes NULL, stores the node count in *numNodes; else stores up to
 * *numNodes nodes (in the order they were added) and the number stored. */
CLS_API clsError_t clsGraphGetNodes(clsGraph_t g, clsGraphNode_t *nodes,
                                    size_t *numNodes);
/* Adds a node to g that runs after the nodes deps[0..numDeps) and stores
 * it in *node.  The kind: empty (orders only), kernel, 1-D copy, memset,
 * host function.  A copy node's host side may be pageable memory (the
 * stack, malloc), as on CUDA 13: a pageable source is read when each
 * clsGraphLaunch is called, a pageable destination written when the node
 * runs. */
CLS_API clsError_t clsGraphAddEmptyNode(clsGraphNode_t *node, clsGraph_t g,
                                        const clsGraphNode_t *deps,
                                        size_t numDeps);
CLS_API clsError_t clsGraphAddKernelNode(clsGraphNode_t *node, clsGraph_t g,
                                         const clsGraphNode_t *deps,
                                         size_t numDeps,
                                         const clsKernelNodeParams *p);
CLS_API clsError_t clsGraphAddMemcpyNode1D(clsGraphNode_t *node, clsGraph_t g,
                                           const clsGraphNode_t *deps,
                                           size_t numDeps, void *dst,
                                           const void *src, size_t count,
                                           clsMemcpyKind kind);
CLS_API clsError_t clsGraphAddMemsetNode(clsGraphNode_t *node, clsGraph_t g,
                                         const clsGraphNode_t *deps,
                                         size_t numDeps,
                                         const clsMemsetParams *p);
CLS_API clsError_t clsGraphAddHostNode(clsGraphNode_t *node, clsGraph_t g,
                                       const clsGraphNode_t *deps,
                                       size_t numDeps,
                                       const clsHostNodeParams *p);
/* Makes to[i] run after from[i] for i < n (nodes of g). */
CLS_API clsError_t clsGraphAddDependencies(clsGraph_t g,
                                           const clsGraphNode_t *from,
                                           const clsGraphNode_t *to, size_t n);

/* Makes an executable graph of g's nodes as they are now (flags must be
 * 0); it does not depend on g afterwards.  The caller destroys it with
 * clsGraphExecDestroy.  Never blocks on the device. */
CLS_API clsError_t clsGraphInstantiate(clsGraphExec_t *exec, clsGraph_t g,
                                       unsigned long long flags);
/* Runs the executable graph once on `s`, after the work issued to `s`
 * before; work issued after waits for the whole graph.  Two launches of
 * one exec never overlap, even on two streams.  Never blocks, but on the
 * legacy stream for a graph with a copy node over pageable memory, whose
 * launch returns once the graph is done (as CUDA 13's). */
CLS_API clsError_t clsGraphLaunch(clsGraphExec_t exec, clsStream_t s);
/* Prepares the exec for its launches on `s` ahead of the first one (on
 * the CUDA build cudaGraphUpload; on OpenCL the exec is prepared when it
 * is made, so this only checks its arguments).  Never blocks. */
CLS_API clsError_t clsGraphUpload(clsGraphExec_t exec, clsStream_t s);
/* Destroys the exec; launches already made still run.  Returns at once,
 * except for an exec with host nodes, whose destruction waits until its
 * last launch is over (the host nodes' records are the exec's). */
CLS_API clsError_t clsGraphExecDestroy(clsGraphExec_t exec);
/* Gives kernel node `node` (of the graph the exec was made from, which
 * must still exist) new parameters for the exec's later launches; the
 * function must stay the same. */
CLS_API clsError_t clsGraphExecKernelNodeSetParams(
    clsGraphExec_t exec, clsGraphNode_t node, const clsKernelNodeParams *p);

#ifdef __cplusplus
}
#endif

#endif /* CLSTREAM_H */
