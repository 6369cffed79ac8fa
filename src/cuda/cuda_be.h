/*
 * Private to the CUDA backend: its objects and the helpers its files share.
 *
 * The backend forwards to the CUDA runtime, which is thread-safe and does
 * the legacy default stream's implicit synchronization itself.  The
 * runtime's current device is per host thread, so every call that touches
 * a device first makes the object's device current (cls__cuda_use).
 * Kernels compile with NVRTC and load through the runtime's library API
 * (cudaLibraryLoadData), so no driver API call is needed.
 *
 * Files: device.c (enumeration, opening, device-wide synchronize),
 * stream.c (streams, host jobs), event.c, memory.c, hostmem.c, pool.c,
 * attribute.c, module.c (NVRTC, libraries, launches), retired.c (released
 * libraries until a device-wide synchronize lets them go), error.c (the
 * native-code map).  Of the front, the backend uses only backend.h (its
 * front services); backend.h names which of these files implements each
 * of its sections.
 *
 * Lock order.  Every mutex of the backend is a leaf: none is taken while
 * another of them is held, none is held while waiting on the device, and
 * none is held across a call into the front except cls__reason (which
 * writes a thread-local and takes no lock).
 *
 *   mutex                         guards                     file
 *   cls__cuda_device.open_lock    opening the device, once   device.c
 *   cls__bmodule.lock             the module's function list module.c
 *   cls__retired_lock             released modules not yet   retired.c
 *                                 unloaded (all devices)
 *
 * Held across runtime calls: open_lock across cudaSetDevice and
 * cudaFree(NULL) (the primary context's creation), cls__bmodule.lock
 * across cudaLibraryGetKernel and cudaFuncGetAttributes (which load the
 * kernel; under eager loading, see cls__b_init, that does not synchronize
 * the context).  cls__retired_lock is never held across a runtime
 * call.  The pthread_once controls (cls__cuda_device.prio_once, NVRTC's
 * architectures in module.c) run one runtime or NVRTC query each.  The
 * runtime's callback thread, which runs host jobs (stream.c), takes none
 * of these; the front's job function it calls takes no lock (it hands its
 * record back with one atomic exchange, src/stream.c), and the host
 * functions passed to the runtime as they are (cls__b_stream_host_fn)
 * run with nothing of ours around them.
 */
#ifndef CLSTREAM_CUDA_BE_H
#define CLSTREAM_CUDA_BE_H

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "../backend.h"

#include <pthread.h>
#include <stdatomic.h>

/* Backend streams: the runtime's stream handle and its device.  The
 * default streams wrap cudaStreamLegacy and cudaStreamPerThread, which
 * the runtime resolves against the current device (and, for the
 * per-thread stream, the calling thread). */
struct cls__bstream {
  int dev;
  cudaStream_t s;
  int foreign; /* the program's (clsCUDAStreamCreateFromStream): kept */
};

typedef struct cls__cuda_device {
  int index;
  clsDeviceProp prop; /* read once by cls__b_init */
  int arch;           /* major * 10 + minor */

  /* cls__b_device_open: 0 not yet, 1 opened, -1 failed (open_err). */
  pthread_mutex_t open_lock;
  _Atomic int opened;
  clsError_t open_err;

  /* cudaDeviceGetStreamPriorityRange, read on first use. */
  pthread_once_t prio_once;
  int prio_least, prio_greatest;

  struct cls__bstream legacy;     /* wraps cudaStreamLegacy */
  struct cls__bstream per_thread; /* wraps cudaStreamPerThread */
} cls__cuda_device;

/* Events.  The front (src/event.c) owns an event's state; the backend
 * keeps only the runtime's event.  Its token is the event itself (the
 * token functions in event.c cast): every record of the event goes to
 * the same cudaEvent_t, so a token follows the newest record, and the
 * front's record generation keeps a completion seen before a newer
 * record from marking that one complete.  Tokens hold no reference: the
 * front releases its token before it destroys the event.  The front holds
 * the event's lock (a bit of its state word, src/event.c) around
 * cls__b_token_status only, which is cudaEventQuery: it never waits. */
struct cls__bevent {
  int dev;
  unsigned flags;
  cudaEvent_t ev;
  int foreign; /* the program's (clsCUDAEventCreateFromEvent): kept */
};

struct cls__bfunction {
  struct cls__bmodule *mod;
  cudaKernel_t kernel;
  struct cls__bfunction *next;
  char name[]; /* NUL-terminated */
};

struct cls__bmodule {
  int dev;
  cudaLibrary_t lib;
  pthread_mutex_t lock; /* guards fns */
  struct cls__bfunction *fns;
  struct cls__bmodule *next_retired; /* retired.c's list */
};

/* Device `dev` (index checked by the front). */
cls__cuda_device *cls__cuda_device_get(int dev);

/* Module lifetime (retired.c), for cls__b_device_sync: before its
 * device-wide wait it takes the modules of `dev` released so far
 * (cls__cuda_retired_take); after the wait it hands them back with
 * idle = 1 if the wait succeeded, and retired.c unloads them, or idle = 0,
 * and retired.c keeps them for a later synchronization
 * (cls__cuda_retired_settle).  Neither call waits on the device. */
struct cls__bmodule *cls__cuda_retired_take(int dev);
void cls__cuda_retired_settle(struct cls__bmodule *taken, int idle);

/* Which API a native code comes from. */
enum cls__cuda_api {
  CLS__CUDART = 0, /* cudaError_t */
  CLS__NVRTC = 1   /* nvrtcResult */
};

/* The one map from native codes to clsError_t (error.c).  Unless `what`
 * is NULL or the code maps to clsSuccess or clsErrorNotReady (a state,
 * not a failure), it records "what: native name (description)" as the reason
 * with cls__reason.  Pass what = NULL where no API call is failing (a
 * stream callback's status). */
clsError_t cls__cuda_error(enum cls__cuda_api api, int code, const char *what);

/* cudaError_t shorthand: clsSuccess, or the mapped code with a reason. */
static inline clsError_t cls__cuda_rt(cudaError_t e, const char *what) {
  if (CLS__LIKELY(e == cudaSuccess)) return clsSuccess;
  return cls__cuda_error(CLS__CUDART, (int)e, what);
}

/* 1 when the runtime lists exactly one device (device.c, written once by
 * cls__b_init, before any object exists).  Every thread's current device
 * is then device 0, the only one that can be made current, so
 * cls__cuda_use has nothing to do. */
extern int cls__cuda_one_device;

/* Makes `dev` the calling thread's current CUDA device. */
static inline clsError_t cls__cuda_use(int dev) {
  /* With one device this costs nothing: the bench's record_idle paid a
   * cudaGetDevice (tens of nanoseconds) on every record otherwise.  With
   * several, reading the current device is cheaper than setting it, and
   * it is usually already right. */
  if (CLS__LIKELY(cls__cuda_one_device)) return clsSuccess;
  int cur;
  if (CLS__LIKELY(cudaGetDevice(&cur) == cudaSuccess && cur == dev))
    return clsSuccess;
  return cls__cuda_rt(cudaSetDevice(dev), "cudaSetDevice");
}

#endif /* CLSTREAM_CUDA_BE_H */
