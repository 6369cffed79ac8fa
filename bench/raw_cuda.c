/*
 * The raw CUDA side of clstream-bench (the CUDA build): each scenario
 * written directly against the CUDA runtime, on the same device as
 * clstream.  Kernels are the same dialect source, compiled with NVRTC to a
 * cubin for the device and loaded with cudaLibraryLoadData; launches go
 * through cudaLaunchKernel.  The legacy-stream scenarios rely on the
 * runtime's own implicit synchronization (cudaStreamLegacy).
 */
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "multi.h"
#include "raw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t ck_err_ = (call);                                              \
    if (ck_err_ != cudaSuccess)                                                \
      return raw_fail("%s:%d: %s -> %s", __FILE__, __LINE__, #call,            \
                      cudaGetErrorName(ck_err_));                              \
  } while (0)

static int dev = -1;
static cudaLibrary_t lib;
static cudaKernel_t k_fill, k_spin;
static int *buf; /* 4 KiB of device memory */
static int *pin; /* 4 KiB of pinned host memory: the copies' source */

static cudaStream_t sA, sB;
static cudaStream_t sx[64];
static unsigned nsx;
static cudaEvent_t eA, eB, e0;
static unsigned spin_iters;
static double last_elapsed_ms;
static int counter;
static volatile unsigned hf_calls;

int raw_open(const char *device, const char *platform, int nth,
             const char *source, raw_info *info, char *err, size_t errlen) {
  int n = 0, seen = 0, rt = 0, drv = 0;
  struct cudaDeviceProp p;
  nvrtcProgram prog;
  char opt[64];
  const char *opts[1] = {opt};
  size_t cubin_size = 0;
  char *cubin;
  cudaError_t ce;

  (void)platform;
  memset(info, 0, sizeof *info);
  snprintf(info->api, sizeof info->api, "CUDA runtime");
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    snprintf(err, errlen, "no CUDA device");
    return -1;
  }
  dev = -1;
  for (int i = 0; i < n && dev < 0; ++i)
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess &&
        strcmp(p.name, device) == 0 && seen++ == nth)
      dev = i;
  if (dev < 0) {
    snprintf(err, errlen, "raw CUDA: no device named '%s' (match %d)", device,
             nth);
    return -1;
  }
  cudaGetDeviceProperties(&p, dev);
  cudaSetDevice(dev);
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  snprintf(info->device, sizeof info->device, "%s", p.name);
  snprintf(info->platform, sizeof info->platform, "CUDA");
  snprintf(info->driver, sizeof info->driver, "CUDA driver API %d.%d",
           drv / 1000, (drv % 1000) / 10);
  snprintf(info->version, sizeof info->version, "CUDA runtime %d.%d", rt / 1000,
           (rt % 1000) / 10);

  snprintf(opt, sizeof opt, "--gpu-architecture=sm_%d%d", p.major, p.minor);
  if (nvrtcCreateProgram(&prog, source, "clstream_bench.cu", 0, NULL, NULL) !=
      NVRTC_SUCCESS) {
    snprintf(err, errlen, "nvrtcCreateProgram failed");
    return -1;
  }
  if (nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS) {
    size_t ls = 0;
    char *log;
    nvrtcGetProgramLogSize(prog, &ls);
    log = malloc(ls + 1);
    if (log) {
      nvrtcGetProgramLog(prog, log);
      log[ls] = 0;
    }
    snprintf(err, errlen, "raw CUDA: NVRTC failed: %s", log ? log : "");
    free(log);
    nvrtcDestroyProgram(&prog);
    return -1;
  }
  nvrtcGetCUBINSize(prog, &cubin_size);
  cubin = malloc(cubin_size);
  if (!cubin) return -1;
  nvrtcGetCUBIN(prog, cubin);
  nvrtcDestroyProgram(&prog);
  ce = cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
  free(cubin);
  if (ce != cudaSuccess ||
      cudaLibraryGetKernel(&k_fill, lib, "fill") != cudaSuccess ||
      cudaLibraryGetKernel(&k_spin, lib, "spin") != cudaSuccess ||
      cudaMalloc((void **)&buf, 4096) != cudaSuccess ||
      cudaMallocHost((void **)&pin, 4096) != cudaSuccess) {
    snprintf(err, errlen, "raw CUDA: module load or cudaMalloc failed");
    return -1;
  }
  return 0;
}

void raw_close(void) {
  if (buf) cudaFree(buf);
  if (pin) cudaFreeHost(pin);
  if (lib) cudaLibraryUnload(lib);
  buf = NULL;
  pin = NULL;
  lib = NULL;
}

/* For the two-device rows (raw_multi_cuda.c). */
const void *raw_cuda_fill_kernel(void) { return (const void *)k_fill; }

static int launch_fill(cudaStream_t s, int *t) {
  int v = ++counter;
  unsigned n = 1;
  void *args[] = {&t, &v, &n};
  dim3 one = {1, 1, 1};
  CK(cudaLaunchKernel((const void *)k_fill, one, one, args, 0, s));
  return 0;
}

/* For raw_graph_cuda.c (the graph rows): the device buffer. */
int *raw_cuda_buf(void);
int *raw_cuda_buf(void) { return buf; }

static unsigned legacy_streams(int sc) {
  return sc == SC_LEGACY_1 ? 1 : sc == SC_LEGACY_8 ? 8 : 64;
}

static void host_fn(void *arg) { ++*(volatile unsigned *)arg; }

int raw_setup(int sc, unsigned param) {
  if (bench_multi_sc(sc)) return raw_multi_setup(sc);
  unsigned flags =
      sc == SC_PINGPONG ? cudaEventDisableTiming : cudaEventDefault;
  CK(cudaSetDevice(dev));
  switch (sc) {
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    nsx = 0;
    for (unsigned i = 0; i < legacy_streams(sc); ++i) {
      CK(cudaStreamCreate(&sx[i]));
      nsx = i + 1;
      if (launch_fill(sx[i], buf + OFF_IDLE)) return -1;
      CK(cudaStreamSynchronize(sx[i]));
    }
    return 0;
  case SC_PINGPONG:
  case SC_PINGPONG_TIMED:
    CK(cudaStreamCreate(&sB));
    CK(cudaEventCreateWithFlags(&eB, flags));
    /* fall through */
  default:
    CK(cudaStreamCreate(&sA));
    CK(cudaEventCreateWithFlags(&eA, flags));
    break;
  }
  if (sc == SC_ELAPSED) {
    spin_iters = param;
    CK(cudaEventCreate(&e0));
  }
  if (sc == SC_QUERY_DONE || sc == SC_SYNC_DONE) {
    CK(cudaEventRecord(eA, sA));
    CK(cudaEventSynchronize(eA));
  }
  return 0;
}

int raw_reset(int sc) {
  if (bench_multi_sc(sc)) return raw_multi_reset(sc);
  switch (sc) {
  case SC_RECORD_IDLE:
    CK(cudaEventSynchronize(eA));
    return 0;
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    CK(cudaStreamSynchronize(cudaStreamLegacy));
    return 0;
  default:
    return 0;
  }
}

int raw_run(int sc, unsigned inner) {
  if (bench_multi_sc(sc)) return raw_multi_run(sc, inner);
  switch (sc) {
  case SC_RECORD_IDLE:
    for (unsigned i = 0; i < inner; ++i) CK(cudaEventRecord(eA, sA));
    return 0;
  case SC_QUERY_DONE:
    for (unsigned i = 0; i < inner; ++i) CK(cudaEventQuery(eA));
    return 0;
  case SC_SYNC_DONE:
    for (unsigned i = 0; i < inner; ++i) CK(cudaEventSynchronize(eA));
    return 0;
  case SC_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i) {
      CK(cudaEventRecord(eA, sA));
      CK(cudaEventSynchronize(eA));
    }
    return 0;
  case SC_KERNEL_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i) {
      if (launch_fill(sA, buf)) return -1;
      CK(cudaEventRecord(eA, sA));
      CK(cudaEventSynchronize(eA));
    }
    return 0;
  case SC_ALLOC_ASYNC:
    /* The runtime has stream-ordered allocation of its own, so the raw
     * calls doing the same work are those: cudaMallocAsync, the kernel,
     * cudaFreeAsync, 16 per synchronize, as on our side.  (Until
     * 2026-12-01 this side was cudaMalloc + kernel + cudaFree, what a raw
     * OpenCL program must do; that measured the runtime's two allocators
     * against each other more than our front.) */
    for (unsigned i = 0; i < inner; ++i) {
      int *p = NULL;
      CK(cudaMallocAsync((void **)&p, 64u << 10, sA));
      if (launch_fill(sA, p)) return -1;
      CK(cudaFreeAsync(p, sA));
    }
    CK(cudaStreamSynchronize(sA));
    return 0;
  case SC_COPY_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i) {
      CK(cudaMemcpyAsync(buf, pin, 4, cudaMemcpyHostToDevice, sA));
      CK(cudaEventRecord(eA, sA));
      CK(cudaEventSynchronize(eA));
    }
    return 0;
  case SC_PINGPONG:
  case SC_PINGPONG_TIMED:
    for (unsigned i = 0; i < inner; ++i) {
      if (launch_fill(sA, buf)) return -1;
      CK(cudaEventRecord(eA, sA));
      CK(cudaStreamWaitEvent(sB, eA, 0));
      if (launch_fill(sB, buf + OFF_B)) return -1;
      CK(cudaEventRecord(eB, sB));
      CK(cudaEventSynchronize(eB));
    }
    return 0;
  case SC_HOSTFN:
    for (unsigned i = 0; i < inner; ++i) {
      unsigned before = hf_calls;
      CK(cudaLaunchHostFunc(sA, host_fn, (void *)&hf_calls));
      CK(cudaStreamSynchronize(sA));
      if (hf_calls != before + 1) return raw_fail("hostfn: did not run");
    }
    return 0;
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    for (unsigned i = 0; i < inner; ++i)
      if (launch_fill(cudaStreamLegacy, buf)) return -1;
    return 0;
  case SC_ELAPSED: {
    unsigned iters = spin_iters;
    int *out = buf + OFF_SPIN;
    void *args[] = {&out, &iters};
    dim3 one = {1, 1, 1};
    float ms = 0;
    CK(cudaEventRecord(e0, sA));
    CK(cudaLaunchKernel((const void *)k_spin, one, one, args, 0, sA));
    CK(cudaEventRecord(eA, sA));
    CK(cudaEventSynchronize(eA));
    CK(cudaEventElapsedTime(&ms, e0, eA));
    last_elapsed_ms = ms;
    return 0;
  }
  case SC_FLAT_MEMORY:
    for (unsigned i = 0; i < inner; ++i) {
      cudaError_t q;
      CK(cudaEventRecord(eA, sA));
      q = cudaEventQuery(eA);
      if (q != cudaSuccess && q != cudaErrorNotReady)
        return raw_fail("cudaEventQuery -> %s", cudaGetErrorName(q));
      if ((i & 1023) == 1023) CK(cudaEventSynchronize(eA));
    }
    return 0;
  default:
    return raw_fail("unknown scenario %d", sc);
  }
}

void raw_teardown(int sc) {
  if (bench_multi_sc(sc)) {
    raw_multi_teardown(sc);
    return;
  }
  (void)sc;
  cudaDeviceSynchronize();
  if (eA) cudaEventDestroy(eA);
  if (eB) cudaEventDestroy(eB);
  if (e0) cudaEventDestroy(e0);
  eA = eB = e0 = NULL;
  if (sA) cudaStreamDestroy(sA);
  if (sB) cudaStreamDestroy(sB);
  sA = sB = NULL;
  for (unsigned i = 0; i < nsx; ++i) cudaStreamDestroy(sx[i]);
  nsx = 0;
}

double raw_elapsed_ms(void) { return last_elapsed_ms; }
