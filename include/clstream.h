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

/* Error codes.  Numeric values equal cudaError_t's for the same names. */
typedef enum clsError {
  clsSuccess = 0,
  clsErrorInvalidValue = 1,
  clsErrorMemoryAllocation = 2,
  clsErrorInitializationError = 3,
  clsErrorInvalidConfiguration = 9,
  clsErrorInvalidDevicePointer = 17,
  clsErrorInvalidMemcpyDirection = 21,
  clsErrorNoDevice = 100,
  clsErrorInvalidDevice = 101,
  clsErrorInvalidKernelImage = 200,
  clsErrorInvalidSource = 300,
  clsErrorInvalidResourceHandle = 400,
  clsErrorIllegalState = 401,
  clsErrorSymbolNotFound = 500,
  clsErrorNotReady = 600,
  clsErrorLaunchOutOfResources = 701,
  clsErrorLaunchFailure = 719,
  clsErrorNotPermitted = 800,
  clsErrorNotSupported = 801,
  clsErrorUnknown = 999
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
  char name[256]; /* Device name. */
  size_t totalGlobalMem; /* Device memory, bytes. */
  size_t sharedMemPerBlock; /* Local (shared) memory per block, bytes. */
  int multiProcessorCount; /* Compute units. */
  int maxThreadsPerBlock; /* Largest block (work-group). */
  int maxThreadsDim[3]; /* Largest block in each dimension. */
  int maxGridSize[3]; /* Largest grid in each dimension, blocks. */
  int warpSize; /* SIMD width where known, else 1. */
  int clockRate; /* kHz */
  int major, minor; /* Compute capability (CUDA) or OpenCL version. */
  int concurrentKernels; /* 1 when kernels may run concurrently. */
  int unifiedAddressing; /* 1 when device pointers are host-sized addresses. */
  /* clstream's own fields. */
  char platformName[256]; /* OpenCL platform (or "CUDA"). */
  char driverVersion[64]; /* Driver version string. */
  int isCpu;                   /* 1 for a CPU device (PoCL). */
  int svmCoarseGrain;          /* 1 when the device has coarse-grained
                                  SVM (device memory unless bufferMemory). */
  int selectable;              /* 1 when clsSetDevice accepts the device. */
  int streamPriorities;        /* 1 when stream priorities take effect. */
  double timerResolutionNs;    /* Profiling timer resolution. */
  int timingFallback;          /* 1 when timed events use a fill command
                                  because the driver's marker timestamps
                                  were found wrong at start-up. */
  int bufferMemory;            /* 1 when device memory is OpenCL buffers
                                  behind addresses clstream reserves (no
                                  coarse-grained SVM, or
                                  CLSTREAM_MEMORY=buffers); 0 for SVM. */
  int simulator;               /* 1 for a simulator (Oclgrind): listed
                                  after every other device. */
  size_t bufferArgAlign;       /* With bufferMemory: a kernel pointer
                                  argument inside an allocation must lie at
                                  an offset that is a multiple of this many
                                  bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN);
                                  other offsets give clsErrorInvalidValue.
                                  1 otherwise. */
} clsDeviceProp;

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
CLS_API clsError_t clsDeviceGetStreamPriorityRange(int *least,
                                                   int *greatest);

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
/* Blocks until all work in the stream is done. */
CLS_API clsError_t clsStreamSynchronize(clsStream_t s);
/* clsSuccess if all work in the stream is done, else clsErrorNotReady.
 * Never blocks. */
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
 * flags must be 0.  Never blocks. */
CLS_API clsError_t clsStreamAddCallback(clsStream_t s, clsStreamCallback_t cb,
                                        void *userData, unsigned flags);
/* Runs fn(userData) once, on a library thread, after all earlier work in
 * `s`; later work in `s` waits until it returns.  Never blocks. */
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
/* Frees device memory after the device's pending work is done (blocks).
 * NULL is a no-op. */
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
/* Copies `count` bytes on the legacy default stream and blocks until the
 * copy is done. */
CLS_API clsError_t clsMemcpy(void *dst, const void *src, size_t count,
                             clsMemcpyKind kind);
/* Enqueues a copy on `s`.  With pinned (clsMallocHost) or device memory
 * it returns at once; with pageable host memory it returns once the host
 * buffer may be reused. */
CLS_API clsError_t clsMemcpyAsync(void *dst, const void *src, size_t count,
                                  clsMemcpyKind kind, clsStream_t s);
/* Sets `count` bytes to (unsigned char)value on the legacy default
 * stream and blocks until done. */
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
 * be 0.  Never blocks. */
CLS_API clsError_t clsLaunchKernel(clsFunction_t f, clsDim3 grid,
                                   clsDim3 block, void **args,
                                   size_t sharedMem, clsStream_t s);
/* The calling thread's last build log ("" if none).  Owned by the library
 * and valid until the thread's next clsModuleLoadData.  Never blocks. */
CLS_API const char *clsGetLastBuildLog(void);

#ifdef __cplusplus
}
#endif

#endif /* CLSTREAM_H */
