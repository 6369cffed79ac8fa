/* CUDA backend: native error codes, device enumeration, properties and
 * opening. */
#include "cuda_be.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cls__cuda_device *cls__cuda_devices;
static int cls__cuda_ndevices;

cls__cuda_device *cls__cuda_device_get(int dev) {
  return &cls__cuda_devices[dev];
}

/* ---- Native codes ----------------------------------------------------- */

/* clsError_t copies cudaError_t's numbers; this folds the codes clstream
 * does not distinguish. */
static clsError_t cls__cuda_map(int code) {
  switch (code) {
  case 0:
    return clsSuccess;
  case 1:  /* InvalidValue */
  case 12: /* InvalidPitchValue */
  case 13: /* InvalidSymbol */
  case 16: /* InvalidHostPointer */
    return clsErrorInvalidValue;
  case 2:
    return clsErrorMemoryAllocation;
  case 3:  /* InitializationError */
  case 4:  /* CudartUnloading / CUDA_ERROR_DEINITIALIZED */
  case 34: /* StubLibrary */
  case 35: /* InsufficientDriver */
  case 36: /* CallRequiresNewerDriver */
    return clsErrorInitializationError;
  case 9:
    return clsErrorInvalidConfiguration;
  case 17:
    return clsErrorInvalidDevicePointer;
  case 21:
    return clsErrorInvalidMemcpyDirection;
  case 100:
    return clsErrorNoDevice;
  case 101:
    return clsErrorInvalidDevice;
  case 46:  /* DevicesUnavailable (compute mode prohibited, busy) */
  case 216: /* DeviceNotLicensed / CUDA_ERROR_CONTEXT_ALREADY_IN_USE */
    return clsErrorNotSupported;
  case 98:  /* InvalidDeviceFunction */
  case 201: /* DeviceUninitialized / CUDA_ERROR_INVALID_CONTEXT */
  case 400: /* InvalidResourceHandle */
  case 709: /* ContextIsDestroyed */
    return clsErrorInvalidResourceHandle;
  case 200: /* InvalidKernelImage */
  case 209: /* NoKernelImageForDevice */
  case 218: /* InvalidPtx */
  case 221: /* JitCompilerNotFound */
  case 222: /* UnsupportedPtxVersion */
  case 223: /* JitCompilationDisabled */
  case 302: /* SharedObjectSymbolNotFound */
  case 303: /* SharedObjectInitFailed */
    return clsErrorInvalidKernelImage;
  case 300:
    return clsErrorInvalidSource;
  case 401:
    return clsErrorIllegalState;
  case 500:
    return clsErrorSymbolNotFound;
  case 600:
    return clsErrorNotReady;
  case 701:
    return clsErrorLaunchOutOfResources;
  case 214: /* ECCUncorrectable */
  case 700: /* IllegalAddress */
  case 702: /* LaunchTimeout */
  case 710: /* Assert */
  case 714: /* HardwareStackError */
  case 715: /* IllegalInstruction */
  case 716: /* MisalignedAddress */
  case 717: /* InvalidAddressSpace */
  case 718: /* InvalidPc */
  case 719: /* LaunchFailure */
    return clsErrorLaunchFailure;
  case 800:
    return clsErrorNotPermitted;
  case 801:
    return clsErrorNotSupported;
  default:
    return clsErrorUnknown;
  }
}

static clsError_t cls__nvrtc_map(nvrtcResult r) {
  switch (r) {
  case NVRTC_SUCCESS:
    return clsSuccess;
  case NVRTC_ERROR_OUT_OF_MEMORY:
    return clsErrorMemoryAllocation;
  case NVRTC_ERROR_COMPILATION:
    return clsErrorInvalidSource;
  case NVRTC_ERROR_INVALID_INPUT:
  case NVRTC_ERROR_INVALID_PROGRAM:
  case NVRTC_ERROR_INVALID_OPTION:
    return clsErrorInvalidValue;
  default:
    return clsErrorUnknown;
  }
}

clsError_t cls__cuda_error(enum cls__cuda_api api, int code, const char *what) {
  clsError_t e = api == CLS__NVRTC ? cls__nvrtc_map((nvrtcResult)code)
                                   : cls__cuda_map(code);
  if (e == clsSuccess || e == clsErrorNotReady || !what) return e;
  if (api == CLS__NVRTC)
    return cls__reason(e, "%s: %s", what,
                       nvrtcGetErrorString((nvrtcResult)code));
  return cls__reason(e, "%s: %s (%s)", what,
                     cudaGetErrorName((cudaError_t)code),
                     cudaGetErrorString((cudaError_t)code));
}

/* ---- Enumeration ------------------------------------------------------ */

static void cls__cuda_fill_props(cls__cuda_device *d,
                                 const struct cudaDeviceProp *cp) {
  clsDeviceProp *p = &d->prop;
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", cp->name);
  p->totalGlobalMem = cp->totalGlobalMem;
  p->sharedMemPerBlock = cp->sharedMemPerBlock;
  p->multiProcessorCount = cp->multiProcessorCount;
  p->maxThreadsPerBlock = cp->maxThreadsPerBlock;
  memcpy(p->maxThreadsDim, cp->maxThreadsDim, sizeof p->maxThreadsDim);
  memcpy(p->maxGridSize, cp->maxGridSize, sizeof p->maxGridSize);
  p->warpSize = cp->warpSize;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d->index) ==
      cudaSuccess)
    p->clockRate = khz;
  p->major = cp->major;
  p->minor = cp->minor;
  p->concurrentKernels = cp->concurrentKernels;
  p->unifiedAddressing = cp->unifiedAddressing;

  snprintf(p->platformName, sizeof p->platformName, "CUDA");
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess)
    snprintf(p->driverVersion, sizeof p->driverVersion, "%d.%d", v / 1000,
             (v % 1000) / 10);
  p->isCpu = 0;
  p->svmCoarseGrain = 1;
  p->selectable = 1;
  p->streamPriorities = cp->streamPrioritiesSupported ? 1 : 0;
  p->timerResolutionNs = 500.0; /* cudaEventElapsedTime: ~0.5 us */
  p->timingFallback = 0;
  p->bufferArgAlign = 1;
  d->arch = cp->major * 10 + cp->minor;
}

clsError_t cls__b_init(void) {
  /* With lazy module loading (CUDA's default), a kernel's first launch
   * loads it and that load synchronizes the context: behind a host
   * function that waits for the caller, it deadlocks, and it turns any
   * first launch into a device-wide wait.  Load eagerly unless the user
   * chose otherwise (this must precede the first CUDA call). */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  int n = 0;
  cudaError_t r = cudaGetDeviceCount(&n);
  if (r != cudaSuccess) {
    /* No driver, a stub driver or no device: zero devices (the front
     * reports clsErrorNoDevice).  Anything else is a real failure. */
    clsError_t e = cls__cuda_map((int)r);
    (void)cudaGetLastError();
    if (r == cudaErrorNoDevice || e == clsErrorInitializationError) {
      cls__cuda_ndevices = 0;
      return clsSuccess;
    }
    return cls__cuda_error(CLS__CUDART, (int)r, "cudaGetDeviceCount");
  }
  if (n <= 0) return clsSuccess;
  cls__cuda_devices = calloc((size_t)n, sizeof *cls__cuda_devices);
  if (!cls__cuda_devices)
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  for (int i = 0; i < n; ++i) {
    cls__cuda_device *d = &cls__cuda_devices[i];
    d->index = i;
    pthread_mutex_init(&d->open_lock, NULL);
    pthread_mutex_init(&d->zombie_lock, NULL);
    atomic_init(&d->opened, 0);
    d->prio_once = (pthread_once_t)PTHREAD_ONCE_INIT;
    d->legacy.dev = i;
    d->legacy.s = cudaStreamLegacy;
    d->per_thread.dev = i;
    d->per_thread.s = cudaStreamPerThread;
    struct cudaDeviceProp cp;
    /* Reads the device's attributes; creates no context. */
    r = cudaGetDeviceProperties(&cp, i);
    if (r != cudaSuccess) {
      clsError_t e =
          cls__cuda_error(CLS__CUDART, (int)r, "cudaGetDeviceProperties");
      for (int j = 0; j <= i; ++j) {
        pthread_mutex_destroy(&cls__cuda_devices[j].open_lock);
        pthread_mutex_destroy(&cls__cuda_devices[j].zombie_lock);
      }
      free(cls__cuda_devices);
      cls__cuda_devices = NULL;
      return e;
    }
    cls__cuda_fill_props(d, &cp);
  }
  cls__cuda_ndevices = n;
  return clsSuccess;
}

int cls__b_device_count(void) { return cls__cuda_ndevices; }


clsError_t cls__b_device_open(int dev) {
  cls__cuda_device *d = &cls__cuda_devices[dev];
  int st = atomic_load_explicit(&d->opened, memory_order_acquire);
  if (CLS__LIKELY(st == 1)) return clsSuccess;
  pthread_mutex_lock(&d->open_lock);
  st = atomic_load_explicit(&d->opened, memory_order_relaxed);
  if (st == 0) {
    /* Makes the device current on this thread and creates (retains) its
     * primary context, where every stream, event, allocation and module
     * of the device lives. */
    cudaError_t r = cudaSetDevice(dev);
    if (r == cudaSuccess) r = cudaFree(NULL);
    if (r == cudaSuccess) {
      st = 1;
    } else {
      d->open_err = cls__cuda_map((int)r);
      if (d->open_err != clsErrorMemoryAllocation)
        d->open_err = clsErrorNotSupported;
      (void)cudaGetLastError();
      st = -1;
    }
    atomic_store_explicit(&d->opened, st, memory_order_release);
    if (st < 0) {
      pthread_mutex_unlock(&d->open_lock);
      return cls__reason(d->open_err, "device %d (%s) cannot be used: %s (%s)",
                         dev, d->prop.name, cudaGetErrorName(r),
                         cudaGetErrorString(r));
    }
  }
  pthread_mutex_unlock(&d->open_lock);
  if (st < 0)
    return cls__reason(d->open_err, "device %d (%s) cannot be used", dev,
                       d->prop.name);
  return clsSuccess;
}

int cls__b_shares_memory(int a, int b) {
  (void)a;
  (void)b;
  return 1; /* unified addressing: the runtime copies between devices */
}

clsError_t cls__b_device_props(int dev, clsDeviceProp *p) {
  *p = cls__cuda_devices[dev].prop;
  return clsSuccess;
}

static _Thread_local cls__cuda_device *cls__cuda_prio_dev;

static void cls__cuda_prio_once(void) {
  cls__cuda_device *d = cls__cuda_prio_dev;
  int least = 0, greatest = 0;
  if (cudaSetDevice(d->index) != cudaSuccess ||
      cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) {
    (void)cudaGetLastError();
    least = greatest = 0;
  }
  d->prio_least = least;
  d->prio_greatest = greatest;
}

void cls__b_priority_range(int dev, int *least, int *greatest) {
  cls__cuda_device *d = &cls__cuda_devices[dev];
  /* pthread_once takes no argument: hand the device over in a
   * thread-local, which only this thread's call reads. */
  cls__cuda_prio_dev = d;
  pthread_once(&d->prio_once, cls__cuda_prio_once);
  *least = d->prio_least;
  *greatest = d->prio_greatest;
}

clsError_t cls__b_device_sync(int dev) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  /* Modules released before the wait had their last launch enqueued
   * before it, so they are safe to unload once it returns. */
  cls__cuda_device *d = &cls__cuda_devices[dev];
  pthread_mutex_lock(&d->zombie_lock);
  struct cls__bmodule *z = d->zombies;
  d->zombies = NULL;
  pthread_mutex_unlock(&d->zombie_lock);
  e = cls__cuda_rt(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (e != clsSuccess) {
    /* Keep them for the next synchronization. */
    if (z) {
      struct cls__bmodule *last = z;
      while (last->next_zombie) last = last->next_zombie;
      pthread_mutex_lock(&d->zombie_lock);
      last->next_zombie = d->zombies;
      d->zombies = z;
      pthread_mutex_unlock(&d->zombie_lock);
    }
    return e;
  }
  while (z) {
    struct cls__bmodule *next = z->next_zombie;
    cls__cuda_module_free(z);
    z = next;
  }
  return clsSuccess;
}
