/*
 * device_query: how CUDA programs look at their devices before using one,
 * written against CUDA names only.  It checks the runtime version, walks
 * the devices with cudaDeviceGetAttribute the way device-selection helpers
 * do (skip compute-mode-prohibited devices, rank the rest by
 * multiprocessors x cores per multiprocessor x clock), gates on a minimum
 * compute capability, reads the feature fields of cudaDeviceProp that
 * programs branch on, and brackets the work it profiles with
 * cudaProfilerStart/Stop.  Errors stop it through a checkCudaErrors-style
 * macro.
 */
#include "cuda_check.h"

#include <string.h>

/* The usual table from compute capability to cores per multiprocessor,
 * with the last entry for anything newer. */
static int cores_per_sm(int major, int minor) {
  static const struct {
    int sm, cores;
  } table[] = {{0x35, 192}, {0x50, 128}, {0x60, 64},  {0x61, 128}, {0x70, 64},
               {0x75, 64},  {0x80, 64},  {0x86, 128}, {0x89, 128}, {0x90, 128}};
  int sm = (major << 4) + minor, n = (int)(sizeof table / sizeof table[0]);
  for (int i = 0; i < n; ++i)
    if (table[i].sm == sm) return table[i].cores;
  return table[n - 1].cores;
}

/* Picks the device with the highest estimated throughput. */
static int best_device(void) {
  int count = 0, best = -1;
  unsigned long long best_perf = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  for (int d = 0; d < count; ++d) {
    int mode = -1, major = 0, minor = 0, sms = 0, khz = 0;
    checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d));
    checkCudaErrors(
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d));
    checkCudaErrors(
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d));
    checkCudaErrors(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    cudaError_t e = cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d);
    if (e == cudaErrorInvalidValue)
      khz = 1; /* as helpers do */
    else
      checkCudaErrors(e);
    if (mode == cudaComputeModeProhibited) {
      printf("device %d: compute mode prohibited, skipped\n", d);
      continue;
    }
    cudaDeviceProp p;
    checkCudaErrors(cudaGetDeviceProperties(&p, d));
    if (!p.selectable) continue; /* clstream's own field */
    unsigned long long perf =
        (unsigned long long)sms * cores_per_sm(major, minor) * (unsigned)khz;
    printf("device %d: %s, SM %d.%d, %d multiprocessors, %d kHz\n", d, p.name,
           major, minor, sms, khz);
    if (best < 0 || perf > best_perf) {
      best = d;
      best_perf = perf;
    }
  }
  return best;
}

int main(void) {
#if CUDART_VERSION < 11020
#error "this program needs the CUDA 11.2 runtime API (cudaMallocAsync)"
#endif
  printf("runtime API version %d\n", CUDART_VERSION);
  EXPECT(CUDART_VERSION == 13000, "CUDART_VERSION %d", CUDART_VERSION);
  int dev = best_device();
  EXPECT(dev >= 0, "no usable device");
  checkCudaErrors(cudaSetDevice(dev));

  /* A minimum-capability gate as samples have it (SM 3.5: HyperQ, stream
   * priorities); the device passes it. */
  int major = 0, minor = 0;
  checkCudaErrors(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  checkCudaErrors(
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  if (major < 3 || (major == 3 && minor < 5)) {
    printf("device_query: requires SM 3.5, found %d.%d\n", major, minor);
    return 1;
  }

  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  printf("canMapHostMemory %d, asyncEngineCount %d, concurrentKernels %d, "
         "deviceOverlap %d, integrated %d, managedMemory %d\n",
         prop.canMapHostMemory, prop.asyncEngineCount, prop.concurrentKernels,
         prop.deviceOverlap, prop.integrated, prop.managedMemory);
  /* Old samples refuse devices that cannot overlap copies and kernels
   * only as an optimisation: both answers are fine, but they must agree. */
  int overlap = -1, engines = -1, concurrent = -1, can_map = -1, pools = -1;
  checkCudaErrors(cudaDeviceGetAttribute(&overlap, cudaDevAttrGpuOverlap, dev));
  checkCudaErrors(
      cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, dev));
  checkCudaErrors(
      cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentKernels, dev));
  checkCudaErrors(
      cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, dev));
  checkCudaErrors(
      cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev));
  EXPECT(overlap == prop.deviceOverlap && engines == prop.asyncEngineCount &&
             concurrent == prop.concurrentKernels &&
             can_map == prop.canMapHostMemory &&
             pools == prop.memoryPoolsSupported,
         "attributes and properties disagree");
  EXPECT(prop.concurrentKernels, "no concurrent kernels");

  /* An attribute that does not exist is an error the program sees. */
  int v;
  cudaError_t e = cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)100000, dev);
  EXPECT(e == cudaErrorInvalidValue, "bad attribute: %s", cudaGetErrorName(e));
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "last error");

  /* The profiled region: a kernel between cudaProfilerStart and Stop. */
  const void *increment = load_kernel("increment");
  int *d_data; /* typed: cudaMalloc takes its address from C */
  unsigned n = 4096;
  int inc = 3;
  checkCudaErrors(cudaMalloc(&d_data, n * sizeof(int)));
  checkCudaErrors(cudaMemset(d_data, 0, n * sizeof(int)));
  checkCudaErrors(cudaProfilerStart());
  void *args[] = {&d_data, &inc, &n};
  dim3 grid = {n / 256, 1, 1}, block = {256, 1, 1};
  checkCudaErrors(cudaLaunchKernel(increment, grid, block, args, 0, 0));
  checkCudaErrors(cudaDeviceSynchronize());
  checkCudaErrors(cudaProfilerStop());
  int h[4];
  checkCudaErrors(
      cudaMemcpy(h, d_data + 100, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT(h[0] == 3 && h[3] == 3, "kernel result %d %d", h[0], h[3]);
  checkCudaErrors(cudaFree(d_data));
  printf("device_query: PASSED\n");
  return 0;
}
