/* OpenCL backend: device enumeration (the platforms, the device table
 * and what each device is, read once by cls__b_init) and device
 * properties.  Opening a device is open.c's. */
#include "driver.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cls__ocl_platform *cls__plats;
static cl_uint cls__nplats;
static cls__ocl_device *cls__devs;
static int cls__ndevs;

cls__ocl_device *cls__ocl_device_get(int dev) { return &cls__devs[dev]; }

int cls__b_shares_memory(int a, int b) {
  return a == b || cls__devs[a].ctx == cls__devs[b].ctx;
}

/* ---- Enumeration ------------------------------------------------------ */

static int cls__type_rank(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return 0;
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return 1;
  if (t & CL_DEVICE_TYPE_CPU) return 3;
  return 2;
}

/* The macros the device's OpenCL C compiler predefines that kernels may
 * test (for reading parameter types from the source, kernel_sig.c):
 * versions, CL_VERSION_x_y, endianness, image support and one per
 * extension.  Kept in d->predef, a NULL-terminated array in one block. */
static void cls__predefine(cls__ocl_device *d, const char *ext) {
  char cver[128] = "";
  cl_bool little = CL_TRUE, images = CL_FALSE;
  clGetDeviceInfo(d->id, CL_DEVICE_OPENCL_C_VERSION, sizeof cver, cver, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
  /* The device's OpenCL version as identity.c read it (1.2 if unknown). */
  int vmaj = d->ident.cl_major ? d->ident.cl_major : 1;
  int vmin = d->ident.cl_major ? d->ident.cl_minor : 2;
  int cmaj = 1, cmin = 2;
  sscanf(cver, "OpenCL C %d.%d", &cmaj, &cmin);
  char fixed[512];
  int len = snprintf(fixed, sizeof fixed,
                     "__OPENCL_VERSION__=%d __OPENCL_C_VERSION__=%d "
                     "CL_VERSION_1_0=100 CL_VERSION_1_1=110 "
                     "CL_VERSION_1_2=120 CL_VERSION_2_0=200 "
                     "CL_VERSION_2_1=210 CL_VERSION_2_2=220 "
                     "CL_VERSION_3_0=300%s%s ",
                     vmaj * 100 + vmin * 10, cmaj * 100 + cmin * 10,
                     little ? " __ENDIAN_LITTLE__" : "",
                     images ? " __IMAGE_SUPPORT__" : "");
  if (len < 0 || (size_t)len >= sizeof fixed) len = 0;
  size_t elen = strlen(ext), words = 1;
  for (size_t i = 0; fixed[i]; i++) words += fixed[i] == ' ';
  for (size_t i = 0; i < elen; i++) words += ext[i] == ' ';
  /* The strings follow the pointer array in the same block. */
  size_t bytes = (words + 2) * sizeof(char *) + (size_t)len + elen + 2;
  char **v = malloc(bytes);
  if (!v) return;
  char *text = (char *)(v + words + 2);
  memcpy(text, fixed, (size_t)len);
  memcpy(text + len, ext, elen);
  text[(size_t)len + elen] = '\0';
  size_t n = 0;
  char *save = NULL;
  for (char *t = strtok_r(text, " ", &save); t && n < words + 1;
       t = strtok_r(NULL, " ", &save))
    v[n++] = t;
  v[n] = NULL;
  d->predef = (const char *const *)v;
}

static void cls__describe(cls__ocl_device *d) {
  cl_device_id id = d->id;
  clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
  clGetDeviceInfo(id, CL_DRIVER_VERSION, sizeof d->driver, d->driver, NULL);
  clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
  /* Only what the device's version defines: a 1.2 driver may flag the
   * query as an error (Oclgrind --check-api does). */
  if (cls__facts_version(d->plat->id, id) < 20 ||
      clGetDeviceInfo(id, CL_DEVICE_SVM_CAPABILITIES, sizeof d->svm, &d->svm,
                      NULL) != CL_SUCCESS)
    d->svm = 0;
  clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units,
                  &d->compute_units, NULL);
  clGetDeviceInfo(id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof d->clock_mhz,
                  &d->clock_mhz, NULL);
  clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg,
                  &d->max_wg, NULL);
  clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof d->max_item,
                  d->max_item, NULL);
  clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem,
                  &d->global_mem, NULL);
  clGetDeviceInfo(id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem,
                  &d->local_mem, NULL);
  clGetDeviceInfo(id, CL_DEVICE_PROFILING_TIMER_RESOLUTION,
                  sizeof d->timer_res_ns, &d->timer_res_ns, NULL);
  size_t n = 0;
  clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &n);
  char *ext = n ? malloc(n + 1) : NULL;
  if (ext &&
      clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, n, ext, NULL) == CL_SUCCESS) {
    ext[n] = '\0';
    d->priority_hints = strstr(ext, "cl_khr_priority_hints") != NULL;
  } else if (ext) {
    ext[0] = '\0';
  }
  cls__facts_read(d);
  cls__ocl_identify(d);
  cls__predefine(d, ext ? ext : "");
  free(ext);
  pthread_mutex_init(&d->open_lock, NULL);
  pthread_mutex_init(&d->streams_lock, NULL);
  pthread_mutex_init(&d->busy_lock, NULL);
}

/* CLSTREAM_SPLIT_DEVICES=N splits each device that can be partitioned
 * equally into N sub-devices, listed after the root devices.  It gives CI
 * on a single CPU several devices to test cross-device rules with. */
static cl_uint cls__split(cl_platform_id plat, cl_device_id root,
                          cl_device_id *out, cl_uint max) {
  const char *v = cls__setting(CLS__SET_SPLIT_DEVICES);
  int parts = v ? atoi(v) : 0;
  if (parts < 2 || !cls__facts_can_split(plat, root)) return 0;
  cl_uint cu = 0;
  clGetDeviceInfo(root, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
  cl_uint per = cu / (cl_uint)parts;
  if (per == 0) per = 1;
  cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY,
                                          (cl_device_partition_property)per, 0};
  cl_uint got = 0;
  if (clCreateSubDevices(root, props, max, out, &got) != CL_SUCCESS) return 0;
  return got < max ? got : max;
}

clsError_t cls__b_init(void) {
  cls__trace_init();
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &np);
  if (err != CL_SUCCESS || np == 0) return clsSuccess; /* no device */
  cl_platform_id *ids = calloc(np, sizeof *ids);
  cls__plats = calloc(np, sizeof *cls__plats);
  if (!ids || !cls__plats) {
    free(ids);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  clGetPlatformIDs(np, ids, NULL);
  int total = 0;
  for (cl_uint p = 0; p < np; ++p) {
    cls__ocl_platform *pl = &cls__plats[cls__nplats];
    pl->id = ids[p];
    clGetPlatformInfo(pl->id, CL_PLATFORM_NAME, sizeof pl->name, pl->name,
                      NULL);
    clGetPlatformInfo(pl->id, CL_PLATFORM_VERSION, sizeof pl->version,
                      pl->version, NULL);
    cl_uint nd = 0;
    if (clGetDeviceIDs(pl->id, CL_DEVICE_TYPE_ALL, 0, NULL, &nd) !=
            CL_SUCCESS ||
        nd == 0)
      continue;
    cl_uint cap = nd * 9; /* room for up to 8 sub-devices each */
    pl->devices = calloc(cap, sizeof *pl->devices);
    if (!pl->devices) continue;
    clGetDeviceIDs(pl->id, CL_DEVICE_TYPE_ALL, nd, pl->devices, NULL);
    cl_uint n = nd;
    for (cl_uint i = 0; i < nd; ++i)
      n += cls__split(pl->id, pl->devices[i], pl->devices + n,
                      (cap - n) < 8 ? cap - n : 8);
    pl->ndevices = n;
    pthread_mutex_init(&pl->lock, NULL);
    total += (int)n;
    cls__nplats++;
  }
  free(ids);
  cls__devs = calloc(total ? (size_t)total : 1, sizeof *cls__devs);
  if (!cls__devs)
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  /* GPUs first, then accelerators, others, CPUs, and simulators last
   * (Oclgrind's type has every bit set: it would rank as a GPU); stable
   * otherwise.  Each device's rank is read once, so that every device
   * lands exactly once even if a query fails (it then ranks as "other"). */
  int *ranks = calloc(total ? (size_t)total : 1, sizeof *ranks);
  if (!ranks)
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  for (cl_uint p = 0, k = 0; p < cls__nplats; ++p)
    for (cl_uint i = 0; i < cls__plats[p].ndevices; ++i, ++k) {
      cl_device_id id = cls__plats[p].devices[i];
      cl_device_type t = 0;
      char name[256] = "";
      ranks[k] =
          clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof t, &t, NULL) == CL_SUCCESS
              ? cls__type_rank(t)
              : 2;
      if (clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof name - 1, name, NULL) !=
          CL_SUCCESS)
        name[0] = '\0';
      if (cls__facts_simulator(cls__plats[p].name, name)) ranks[k] = 4;
    }
  for (int rank = 0; rank < 5; ++rank)
    for (cl_uint p = 0, k = 0; p < cls__nplats; ++p)
      for (cl_uint i = 0; i < cls__plats[p].ndevices; ++i, ++k) {
        if (ranks[k] != rank) continue;
        cls__ocl_device *d = &cls__devs[cls__ndevs];
        d->index = cls__ndevs++;
        d->id = cls__plats[p].devices[i];
        d->plat = &cls__plats[p];
        cls__describe(d);
      }
  free(ranks);
  return clsSuccess;
}

int cls__b_device_count(void) { return cls__ndevs; }

clsError_t cls__b_device_props(int dev, clsDeviceProp *p) {
  cls__ocl_device *d = &cls__devs[dev];
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", d->name);
  snprintf(p->platformName, sizeof p->platformName, "%s", d->plat->name);
  snprintf(p->driverVersion, sizeof p->driverVersion, "%s", d->driver);
  p->totalGlobalMem = (size_t)d->global_mem;
  p->sharedMemPerBlock = (size_t)d->local_mem;
  p->multiProcessorCount = (int)d->compute_units;
  p->maxThreadsPerBlock = d->max_wg > INT_MAX ? INT_MAX : (int)d->max_wg;
  for (int i = 0; i < 3; ++i) {
    p->maxThreadsDim[i] =
        d->max_item[i] > INT_MAX ? INT_MAX : (int)d->max_item[i];
  }
  /* CUDA's grid limits (compute capability 3.0 and later), enforced on
   * every device so that a launch fails or works alike on both builds;
   * OpenCL's own limit, a size_t global size, is never the tighter one. */
  p->maxGridSize[0] = INT_MAX;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->clockRate = (int)d->clock_mhz * 1000;
  p->concurrentKernels = 1;
  p->isCpu = (d->type & CL_DEVICE_TYPE_CPU) != 0;
  p->svmCoarseGrain = (d->svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
  p->unifiedAddressing = !d->facts.buffers;
  p->selectable = d->facts.version >= 12;
  p->bufferMemory = d->facts.buffers;
  p->simulator = d->facts.simulator;
  p->hostFuncsInline = d->facts.host_inline;
  p->bufferArgAlign = d->facts.buffers ? d->facts.base_align : 1;
  p->streamPriorities = d->priority_hints;
  p->timerResolutionNs = (double)d->timer_res_ns;
  /* Decided when the device is opened (published by `opened`). */
  int opened = atomic_load_explicit(&d->opened, memory_order_acquire) == 1;
  if (opened && d->facts.no_timestamps) {
    /* Timed events are host-stamped (event.c): the host clock's
     * resolution. */
    struct timespec res = {0, 1};
    clock_getres(CLOCK_MONOTONIC, &res);
    p->timerResolutionNs = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;
    p->eventHostStamps = 1;
  }
  p->kernelClock = opened ? d->facts.kernel_clock : 0;
  p->timingFallback = opened ? d->timing_fallback : 0; /* 0, 1 or 2 */
  p->timerIsHostClock = opened && d->facts.host_clock != 0;
  /* 0 until a launch needed the probe (formprobe.c). */
  p->svmArgsStick =
      !atomic_load_explicit(&d->forms_probed, memory_order_acquire) ? 0
      : d->facts.svm_args_stick                                     ? 2
                                                                    : 1;
  /* Compute capability, OpenCL version, memory features: identity.c. */
  cls__ocl_identity_props(d, p);
  return clsSuccess;
}

void cls__b_priority_range(int dev, int *least, int *greatest) {
  *least = 0;
  *greatest = cls__devs[dev].priority_hints ? -1 : 0;
}
