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
 * Locks: cls__cuda_device.open_lock (device opening, once),
 * cls__bmodule.lock (its function list) and zombie_lock.  None is held
 * while waiting on the device.
 */
#ifndef CLSTREAM_CUDA_BE_H
#define CLSTREAM_CUDA_BE_H

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "../internal.h"

#include <pthread.h>
#include <stdatomic.h>

/* Backend streams: the runtime's stream handle and its device.  The
 * default streams wrap cudaStreamLegacy and cudaStreamPerThread, which
 * the runtime resolves against the current device (and, for the
 * per-thread stream, the calling thread). */
struct cls__bstream {
  int dev;
  cudaStream_t s;
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

  /* Modules released by cls__b_module_unload whose library is not yet
   * unloaded: launches enqueued before the release may still be pending,
   * and the runtime does not promise that cudaLibraryUnload lets them run
   * (nor that it returns without waiting for them, which would deadlock
   * behind a host function that waits for the caller).  cls__b_device_sync
   * unloads them once the device is idle. */
  pthread_mutex_t zombie_lock;
  struct cls__bmodule *zombies;
} cls__cuda_device;

/* Events.  `state` caches completion so that a query of a completed event
 * makes no runtime call: bit 0 is "the newest record is known complete",
 * the rest counts records.  A record stores a new count with bit 0 clear
 * after cudaEventRecord returns; a query or synchronize that sees the
 * runtime report completion sets bit 0 only if no record came between
 * (compare-and-swap on the value it read first). */
struct cls__bevent {
  int dev;
  unsigned flags;
  cudaEvent_t ev;
  _Atomic unsigned long state;
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
  struct cls__bmodule *next_zombie; /* cls__cuda_device.zombies */
};

/* Device `dev` (index checked by the front). */
cls__cuda_device *cls__cuda_device_get(int dev);

/* Unloads the module's library and frees it (module.c). */
void cls__cuda_module_free(struct cls__bmodule *m);

/* Which API a native code comes from. */
enum cls__cuda_api {
  CLS__CUDART = 0, /* cudaError_t */
  CLS__NVRTC = 1   /* nvrtcResult */
};

/* The one map from native codes to clsError_t (error.c).  Unless `what` is NULL or
 * the code maps to clsSuccess or clsErrorNotReady (a state, not a
 * failure), it records "what: native name (description)" as the reason
 * with cls__reason.  Pass what = NULL where no API call is failing (a
 * stream callback's status). */
clsError_t cls__cuda_error(enum cls__cuda_api api, int code, const char *what);

/* cudaError_t shorthand: clsSuccess, or the mapped code with a reason. */
static inline clsError_t cls__cuda_rt(cudaError_t e, const char *what) {
  if (CLS__LIKELY(e == cudaSuccess)) return clsSuccess;
  return cls__cuda_error(CLS__CUDART, (int)e, what);
}

/* Makes `dev` the calling thread's current CUDA device. */
static inline clsError_t cls__cuda_use(int dev) {
  /* Reading the current device is a thread-local lookup; setting it is
   * not free, and it is usually already right. */
  int cur;
  if (CLS__LIKELY(cudaGetDevice(&cur) == cudaSuccess && cur == dev))
    return clsSuccess;
  return cls__cuda_rt(cudaSetDevice(dev), "cudaSetDevice");
}

#endif /* CLSTREAM_CUDA_BE_H */
