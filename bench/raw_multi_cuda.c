/*
 * The raw CUDA side of clstream-bench's two-device rows (multi.h): the
 * CUDA runtime on both devices, cudaSetDevice before each device's work,
 * non-blocking streams, DisableTiming events, peer access enabled both
 * ways where cudaDeviceCanAccessPeer allows, 16 MiB on each device.  The
 * kernel is raw_cuda.c's fill (a cudaKernel_t, loaded on each device at
 * its first launch there).
 */
#include <cuda_runtime_api.h>

#include "multi.h"

#include <stdio.h>
#include <string.h>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t ck_err_ = (call);                                              \
    if (ck_err_ != cudaSuccess)                                                \
      return raw_fail("%s:%d: %s -> %s", __FILE__, __LINE__, #call,            \
                      cudaGetErrorName(ck_err_));                              \
  } while (0)

#define BYTES ((size_t)16 << 20)

static int dev[2] = {-1, -1};
static void *mem[2];
static cudaStream_t s[2];
static cudaEvent_t ev[2];
static int counter;

/* The nth CUDA device named `name`, or -1. */
static int find(const char *name, int nth) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return -1;
  for (int i = 0; i < n; ++i) {
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess &&
        strcmp(p.name, name) == 0 && nth-- == 0)
      return i;
  }
  return -1;
}

int raw_multi_open(const char *platform, const char *name_a, int nth_a,
                   const char *name_b, int nth_b, const char *source, char *err,
                   size_t errlen) {
  (void)platform;
  (void)source;
  dev[0] = find(name_a, nth_a);
  dev[1] = find(name_b, nth_b);
  if (dev[0] < 0 || dev[1] < 0) {
    snprintf(err, errlen, "raw CUDA: no '%s' (%d) and '%s' (%d)", name_a, nth_a,
             name_b, nth_b);
    return -1;
  }
  for (int i = 0; i < 2; ++i) {
    int can = 0;
    if (cudaSetDevice(dev[i]) != cudaSuccess ||
        cudaMalloc(&mem[i], BYTES) != cudaSuccess) {
      snprintf(err, errlen, "raw CUDA: 16 MiB on device %d failed", dev[i]);
      return -1;
    }
    if (cudaDeviceCanAccessPeer(&can, dev[i], dev[!i]) == cudaSuccess && can)
      cudaDeviceEnablePeerAccess(dev[!i], 0); /* already enabled is fine */
    cudaGetLastError();
  }
  return 0;
}

void raw_multi_close(void) {
  for (int i = 0; i < 2; ++i)
    if (mem[i]) {
      cudaSetDevice(dev[i]);
      cudaFree(mem[i]);
      mem[i] = NULL;
    }
}

int raw_multi_setup(int sc) {
  (void)sc;
  for (int i = 0; i < 2; ++i) {
    CK(cudaSetDevice(dev[i]));
    CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
  }
  return 0;
}

int raw_multi_reset(int sc) {
  (void)sc;
  return 0;
}

static int launch_fill(int i) {
  int v = ++counter;
  unsigned n = 1;
  void *t = mem[i];
  void *args[] = {&t, &v, &n};
  dim3 one = {1, 1, 1};
  CK(cudaLaunchKernel(raw_cuda_fill_kernel(), one, one, args, 0, s[i]));
  return 0;
}

int raw_multi_run(int sc, unsigned inner) {
  if (sc == SC_XDEV_WAIT) {
    for (unsigned i = 0; i < inner; ++i) {
      CK(cudaSetDevice(dev[0]));
      if (launch_fill(0)) return -1;
      CK(cudaEventRecord(ev[0], s[0]));
      CK(cudaSetDevice(dev[1]));
      CK(cudaStreamWaitEvent(s[1], ev[0], 0));
      if (launch_fill(1)) return -1;
      CK(cudaEventRecord(ev[1], s[1]));
      CK(cudaEventSynchronize(ev[1]));
    }
    return 0;
  }
  size_t n = bench_multi_bytes(sc);
  CK(cudaSetDevice(dev[1]));
  for (unsigned i = 0; i < inner; ++i) {
    CK(cudaMemcpyPeerAsync(mem[1], dev[1], mem[0], dev[0], n, s[1]));
    CK(cudaStreamSynchronize(s[1]));
  }
  return 0;
}

void raw_multi_teardown(int sc) {
  (void)sc;
  for (int i = 0; i < 2; ++i) {
    cudaSetDevice(dev[i]);
    if (s[i]) cudaStreamSynchronize(s[i]), cudaStreamDestroy(s[i]);
    if (ev[i]) cudaEventDestroy(ev[i]);
    s[i] = NULL;
    ev[i] = NULL;
  }
  cudaGetLastError();
}
