/* CUDA backend: device enumeration, properties, opening and device-wide
 * synchronization. */
#include "cuda_be.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cls__cuda_device *cls__cuda_devices;
static int cls__cuda_ndevices;
int cls__cuda_one_device;

cls__cuda_device *cls__cuda_device_get(int dev) {
  return &cls__cuda_devices[dev];
}

/* ---- Enumeration ------------------------------------------------------ */

/* The rest of CUDA 13's cudaDeviceProp, copied from the runtime's (the
 * fields CUDA 13 dropped from the struct read as attributes). */
static void cls__cuda_fill_props13(int dev, clsDeviceProp *p,
                                   const struct cudaDeviceProp *cp) {
  memcpy(p->uuid.bytes, cp->uuid.bytes, sizeof p->uuid.bytes);
  memcpy(p->luid, cp->luid, sizeof p->luid);
  p->luidDeviceNodeMask = cp->luidDeviceNodeMask;
  p->regsPerBlock = cp->regsPerBlock;
  p->memPitch = cp->memPitch;
  p->totalConstMem = cp->totalConstMem;
  p->textureAlignment = cp->textureAlignment;
  p->texturePitchAlignment = cp->texturePitchAlignment;
  p->maxTexture1D = cp->maxTexture1D;
  p->maxTexture1DMipmap = cp->maxTexture1DMipmap;
  memcpy(p->maxTexture2D, cp->maxTexture2D, sizeof p->maxTexture2D);
  memcpy(p->maxTexture2DMipmap, cp->maxTexture2DMipmap,
         sizeof p->maxTexture2DMipmap);
  memcpy(p->maxTexture2DLinear, cp->maxTexture2DLinear,
         sizeof p->maxTexture2DLinear);
  memcpy(p->maxTexture2DGather, cp->maxTexture2DGather,
         sizeof p->maxTexture2DGather);
  memcpy(p->maxTexture3D, cp->maxTexture3D, sizeof p->maxTexture3D);
  memcpy(p->maxTexture3DAlt, cp->maxTexture3DAlt, sizeof p->maxTexture3DAlt);
  p->maxTextureCubemap = cp->maxTextureCubemap;
  memcpy(p->maxTexture1DLayered, cp->maxTexture1DLayered,
         sizeof p->maxTexture1DLayered);
  memcpy(p->maxTexture2DLayered, cp->maxTexture2DLayered,
         sizeof p->maxTexture2DLayered);
  memcpy(p->maxTextureCubemapLayered, cp->maxTextureCubemapLayered,
         sizeof p->maxTextureCubemapLayered);
  p->maxSurface1D = cp->maxSurface1D;
  memcpy(p->maxSurface2D, cp->maxSurface2D, sizeof p->maxSurface2D);
  memcpy(p->maxSurface3D, cp->maxSurface3D, sizeof p->maxSurface3D);
  memcpy(p->maxSurface1DLayered, cp->maxSurface1DLayered,
         sizeof p->maxSurface1DLayered);
  memcpy(p->maxSurface2DLayered, cp->maxSurface2DLayered,
         sizeof p->maxSurface2DLayered);
  p->maxSurfaceCubemap = cp->maxSurfaceCubemap;
  memcpy(p->maxSurfaceCubemapLayered, cp->maxSurfaceCubemapLayered,
         sizeof p->maxSurfaceCubemapLayered);
  p->surfaceAlignment = cp->surfaceAlignment;
  p->ECCEnabled = cp->ECCEnabled;
  p->pciBusID = cp->pciBusID;
  p->pciDeviceID = cp->pciDeviceID;
  p->pciDomainID = cp->pciDomainID;
  p->tccDriver = cp->tccDriver;
  p->memoryBusWidth = cp->memoryBusWidth;
  p->l2CacheSize = cp->l2CacheSize;
  p->persistingL2CacheMaxSize = cp->persistingL2CacheMaxSize;
  p->maxThreadsPerMultiProcessor = cp->maxThreadsPerMultiProcessor;
  p->globalL1CacheSupported = cp->globalL1CacheSupported;
  p->localL1CacheSupported = cp->localL1CacheSupported;
  p->sharedMemPerMultiprocessor = cp->sharedMemPerMultiprocessor;
  p->regsPerMultiprocessor = cp->regsPerMultiprocessor;
  p->isMultiGpuBoard = cp->isMultiGpuBoard;
  p->multiGpuBoardGroupID = cp->multiGpuBoardGroupID;
  p->hostNativeAtomicSupported = cp->hostNativeAtomicSupported;
  p->computePreemptionSupported = cp->computePreemptionSupported;
  p->canUseHostPointerForRegisteredMem = cp->canUseHostPointerForRegisteredMem;
  p->cooperativeLaunch = cp->cooperativeLaunch;
  p->sharedMemPerBlockOptin = cp->sharedMemPerBlockOptin;
  p->pageableMemoryAccessUsesHostPageTables =
      cp->pageableMemoryAccessUsesHostPageTables;
  p->directManagedMemAccessFromHost = cp->directManagedMemAccessFromHost;
  p->maxBlocksPerMultiProcessor = cp->maxBlocksPerMultiProcessor;
  p->accessPolicyMaxWindowSize = cp->accessPolicyMaxWindowSize;
  p->reservedSharedMemPerBlock = cp->reservedSharedMemPerBlock;
  p->sparseCudaArraySupported = cp->sparseCudaArraySupported;
  p->hostRegisterReadOnlySupported = cp->hostRegisterReadOnlySupported;
  p->timelineSemaphoreInteropSupported = cp->timelineSemaphoreInteropSupported;
  p->gpuDirectRDMASupported = cp->gpuDirectRDMASupported;
  p->gpuDirectRDMAFlushWritesOptions = cp->gpuDirectRDMAFlushWritesOptions;
  p->gpuDirectRDMAWritesOrdering = cp->gpuDirectRDMAWritesOrdering;
  p->memoryPoolSupportedHandleTypes = cp->memoryPoolSupportedHandleTypes;
  p->deferredMappingCudaArraySupported = cp->deferredMappingCudaArraySupported;
  p->ipcEventSupported = cp->ipcEventSupported;
  p->clusterLaunch = cp->clusterLaunch;
  p->unifiedFunctionPointers = cp->unifiedFunctionPointers;
#if CUDART_VERSION >= 13000
  p->deviceNumaConfig = cp->deviceNumaConfig;
  p->deviceNumaId = cp->deviceNumaId;
  p->mpsEnabled = cp->mpsEnabled;
  p->hostNumaId = cp->hostNumaId;
  p->gpuPciDeviceID = cp->gpuPciDeviceID;
  p->gpuPciSubsystemID = cp->gpuPciSubsystemID;
  p->hostNumaMultinodeIpcSupported = cp->hostNumaMultinodeIpcSupported;
#endif
  /* Dropped from the struct in CUDA 13: attributes there. */
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev) ==
      cudaSuccess)
    p->memoryClockRate = v;
  v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, dev) ==
      cudaSuccess)
    p->kernelExecTimeoutEnabled = v;
  (void)cudaGetLastError();
  p->kernelClock = clsKernelClockSmCycles; /* clock64() */
  p->eventHostStamps = 0;
}

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
  p->integrated = cp->integrated;
  p->canMapHostMemory = cp->canMapHostMemory;
  p->asyncEngineCount = cp->asyncEngineCount;
  /* Dropped from cudaDeviceProp in CUDA 13: attributes there. */
  int v = 0;
  p->deviceOverlap =
      cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, d->index) == cudaSuccess
          ? v
          : cp->asyncEngineCount > 0;
  v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, d->index) ==
      cudaSuccess)
    p->computeMode = v;
  p->managedMemory = cp->managedMemory;
  p->concurrentManagedAccess = cp->concurrentManagedAccess;
  p->pageableMemoryAccess = cp->pageableMemoryAccess;
  p->hostRegisterSupported = cp->hostRegisterSupported;
  p->memoryPoolsSupported = cp->memoryPoolsSupported;
  p->streamPrioritiesSupported = cp->streamPrioritiesSupported;
  p->computeCapabilityNative = 1;
  (void)cudaGetLastError(); /* an attribute query must not leave an error */

  snprintf(p->platformName, sizeof p->platformName, "CUDA");
  v = 0;
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
  p->timerIsHostClock = 0;
  p->hostFuncsInline = 0; /* CUDA's callback thread */
  cls__cuda_fill_props13(d->index, p, cp);
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
    clsError_t e = cls__cuda_error(CLS__CUDART, (int)r, NULL);
    (void)cudaGetLastError();
    if (e == clsErrorNoDevice || e == clsErrorInitializationError ||
        e == clsErrorCudartUnloading || e == clsErrorStubLibrary ||
        e == clsErrorInsufficientDriver ||
        e == clsErrorCallRequiresNewerDriver) {
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
      for (int j = 0; j <= i; ++j)
        pthread_mutex_destroy(&cls__cuda_devices[j].open_lock);
      free(cls__cuda_devices);
      cls__cuda_devices = NULL;
      return e;
    }
    cls__cuda_fill_props(d, &cp);
  }
  cls__cuda_ndevices = n;
  cls__cuda_one_device = n == 1;
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
      d->open_err = cls__cuda_error(CLS__CUDART, (int)r, NULL);
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
  /* Modules released before the wait may be unloaded once it succeeds
   * (retired.c owns them; see cls__cuda_retired_take). */
  cls__bmodule *retired = cls__cuda_retired_take(dev);
  e = cls__cuda_rt(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cls__cuda_retired_settle(retired, e == clsSuccess);
  return e;
}
