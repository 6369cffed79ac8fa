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

/* Device properties.  The first fields mirror cudaDeviceProp's; the
 * cls-specific ones follow. */
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
  size_t bufferArgAlign;              /* With bufferMemory: a kernel pointer
                                         argument inside an allocation must lie at
                                         an offset that is a multiple of this many
                                         bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN);
                                         other offsets give clsErrorInvalidValue.
                                         1 otherwise. */
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
} clsDeviceProp;

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
  clsDevAttrMemoryPoolsSupported = 115
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
 * an OR of them; clsErrorInvalidValue for any other bit).  With
 * clsHostAllocMapped, on a device whose canMapHostMemory is 1 (OpenCL:
 * fine-grained SVM buffers; CUDA), kernels may use the memory through the
 * pointer clsHostGetDevicePointer gives; on another device the allocation
 * succeeds and clsHostGetDevicePointer fails (CUDA defers the failure the
 * same way).  WriteCombined is a hint OpenCL cannot take and is ignored
 * there.  The caller owns *ptr and frees it with clsFreeHost.  Blocks only
 * as clsMallocHost does. */
CLS_API clsError_t clsHostAlloc(void **ptr, size_t size, unsigned flags);
/* Stores in *devPtr the device pointer of mapped host memory (from
 * clsHostAlloc with clsHostAllocMapped, or clsHostRegister with
 * clsHostRegisterMapped); pointers inside the allocation map to the same
 * offset.  flags must be 0.  clsErrorInvalidValue for memory that is not
 * mapped host memory; clsErrorNotSupported (with a logged reason) where the
 * current device cannot give kernels access to it.  Never blocks. */
CLS_API clsError_t clsHostGetDevicePointer(void **devPtr, void *hostPtr,
                                           unsigned flags);
/* Registers [ptr, ptr+size) of ordinary host memory as page-locked
 * (cudaHostRegister): async copies then use it in place, without staging,
 * and the caller must keep it unchanged until they are done, as with
 * clsMallocHost memory.  Flags: clsHostRegisterPortable, Mapped, ReadOnly
 * (OR of them); IoMemory is clsErrorNotSupported on OpenCL.  Mapped
 * memory is usable by kernels only where the device can reach any host
 * memory (pageableMemoryAccess); elsewhere clsHostGetDevicePointer fails.
 * clsErrorHostMemoryAlreadyRegistered for a range that overlaps memory
 * already registered or allocated with clsMallocHost.  Never blocks. */
CLS_API clsError_t clsHostRegister(void *ptr, size_t size, unsigned flags);
/* Unregisters memory registered with clsHostRegister (ptr must be the
 * base given there; clsErrorHostMemoryNotRegistered otherwise).  The
 * memory stays the caller's.  Never blocks. */
CLS_API clsError_t clsHostUnregister(void *ptr);
/* Allocates managed memory (cudaMallocManaged): one pointer that the host
 * and kernels of the current device both use.  flags: clsMemAttachGlobal
 * or clsMemAttachHost (clsErrorInvalidValue otherwise).  On OpenCL it is a
 * fine-grained SVM buffer; a device without fine-grained SVM returns
 * clsErrorNotSupported (managedMemory says which).  The host may touch it
 * only while no device work that uses it is running, as on CUDA devices
 * without concurrentManagedAccess.  The caller owns it and frees it with
 * clsFree.  Does not wait for device work. */
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
 * the device once that point is reached.  clsErrorInvalidValue for NULL or
 * a pointer that is not the start of a device allocation.  Never
 * blocks. */
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
 * the stream's earlier work). */
CLS_API clsError_t clsMemcpyAsync(void *dst, const void *src, size_t count,
                                  clsMemcpyKind kind, clsStream_t s);
/* Sets `count` bytes to (unsigned char)value on the legacy default
 * stream, so after earlier work in the blocking streams.  Returns at once
 * for device memory (as cudaMemset does; later legacy and blocking-stream
 * work waits for it), and blocks until done for pinned host memory (either
 * kind) and managed memory, which CUDA documents as fully synchronous. */
CLS_API clsError_t clsMemset(void *devPtr, int value, size_t count);
/* Enqueues a memset on `s`.  Never blocks. */
CLS_API clsError_t clsMemsetAsync(void *devPtr, int value, size_t count,
                                  clsStream_t s);

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
 * value of parameter i (device pointers passed by value).  sharedMem must
 * be 0.  A zero dimension, a block or grid above the device's limits, or
 * sharedMem above sharedMemPerBlock returns clsErrorInvalidValue (as CUDA
 * 13 does), which, as any argument error, is not sticky.  Never blocks. */
CLS_API clsError_t clsLaunchKernel(clsFunction_t f, clsDim3 grid, clsDim3 block,
                                   void **args, size_t sharedMem,
                                   clsStream_t s);
/* The calling thread's last build log ("" if none).  Owned by the library
 * and valid until the thread's next clsModuleLoadData.  Never blocks. */
CLS_API const char *clsGetLastBuildLog(void);

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
 * host function. */
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
 * one exec never overlap, even on two streams.  Never blocks. */
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
