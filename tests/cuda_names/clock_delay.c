/*
 * clock_delay: the delay kernel of CUDA's samples and HIP's tests
 * (clock_block: spin on clock64() for a number of cycles worked out from
 * the device's clock rate), written against CUDA names only.  Each launch
 * is timed twice, by the ticks the kernel saw on clock64() and by two
 * events around it, and the block size comes from
 * cudaOccupancyMaxPotentialBlockSize, bounded by cudaFuncGetAttributes.
 * Where the device has no kernel clock (clsDeviceProp's kernelClock 0:
 * rusticl, Oclgrind) the delay kernel's module must fail to build, naming
 * cls_clock64, and the events still time a plain kernel.  Kernels:
 * tests/kernels/kclock_delay.cl (and cuda_samples.cl's add_factor).
 */
#include "cuda_check.h"

#include <string.h>

enum { DELAY_MS = 20, LAUNCHES = 3 };

int main(void) {
  int dev = print_cuda_device();
  /* kernelClock is known once the device is in use (its probe build). */
  CUDA_CHECK(cudaDeviceSynchronize());
  struct cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  int khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  unsigned long long *d_out;
  CUDA_CHECK(cudaMalloc((void **)&d_out, 2 * sizeof *d_out));

  clsModule_t mod;
  cudaError_t built = clsModuleLoadData(&mod, cls_kernel_kclock_delay, NULL);
  if (prop.kernelClock == clsKernelClockNone) {
    EXPECT(built == cudaErrorInvalidSource, "%s", cudaGetErrorName(built));
    EXPECT(strstr(clsGetLastBuildLog(), "cls_clock64") != NULL,
           "the build log names cls_clock64:\n%s", clsGetLastBuildLog());
    (void)cudaGetLastError();
    /* The events still time work there (host stamps on rusticl). */
    const void *add_factor = load_kernel("add_factor");
    int *d, *d_factor, factor = 2;
    unsigned n = 1 << 16, iters = 100;
    CUDA_CHECK(cudaMalloc((void **)&d, n * sizeof *d));
    CUDA_CHECK(cudaMalloc((void **)&d_factor, sizeof *d_factor));
    CUDA_CHECK(cudaMemset(d, 0, n * sizeof *d));
    CUDA_CHECK(
        cudaMemcpy(d_factor, &factor, sizeof factor, cudaMemcpyHostToDevice));
    void *args[] = {&d, &d_factor, &iters, &n};
    CUDA_CHECK(cudaEventRecord(start, 0));
    CUDA_CHECK(cudaLaunchKernel(add_factor, (dim3){n / 256, 1, 1},
                                (dim3){256, 1, 1}, args, 0, 0));
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms > 0.0f, "elapsed %g ms", (double)ms);
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFree(d_factor));
    printf("clock_delay: no kernel clock on this device (build error as "
           "documented); a kernel took %.3f ms by events: PASSED\n",
           (double)ms);
    return 0;
  }
  CUDA_CHECK(built);
  clsFunction_t f;
  CUDA_CHECK(clsModuleGetFunction(&f, mod, "clock_block"));
  const void *clock_block = (const void *)f;

  struct cudaFuncAttributes attr;
  CUDA_CHECK(cudaFuncGetAttributes(&attr, clock_block));
  int min_grid = 0, block = 0;
  CUDA_CHECK(
      cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, clock_block));
  EXPECT(block >= 1 && block <= attr.maxThreadsPerBlock, "block %d", block);
  /* The delay itself runs in one thread, as the samples launch it: on a
   * CPU device (PoCL) the work-items of a block run one after another, so
   * a block of N threads would wait N times as long. */
  printf("clock_delay: cudaOccupancyMaxPotentialBlockSize: block %d, grid "
         "%d\n",
         block, min_grid);
  block = 1;

  /* Cycles for DELAY_MS at the device's clock rate (kHz: cycles per ms),
   * as the samples work it out. */
  unsigned long long ticks = (unsigned long long)khz * DELAY_MS;
  if (ticks == 0) ticks = 1000000;
  void *args[] = {&d_out, &ticks};
  CUDA_CHECK(cudaLaunchKernel(clock_block, (dim3){1, 1, 1},
                              (dim3){(unsigned)block, 1, 1}, args, 0, 0));
  CUDA_CHECK(cudaDeviceSynchronize()); /* warm-up */
  for (int i = 0; i < LAUNCHES; ++i) {
    CUDA_CHECK(cudaEventRecord(start, 0));
    CUDA_CHECK(cudaLaunchKernel(clock_block, (dim3){1, 1, 1},
                                (dim3){(unsigned)block, 1, 1}, args, 0, 0));
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    unsigned long long seen[2];
    CUDA_CHECK(cudaMemcpy(seen, d_out, sizeof seen, cudaMemcpyDeviceToHost));
    printf("clock_delay: waited %llu ticks (clock %d kHz, kernelClock %d), "
           "saw %llu, %.3f ms by events (%.0f ticks per ms)\n",
           ticks, khz, prop.kernelClock, seen[0], (double)ms,
           ms > 0.0f ? (double)seen[0] / (double)ms : 0.0);
    EXPECT(seen[0] >= ticks, "clock64 advanced %llu < %llu", seen[0], ticks);
    EXPECT(seen[1] == 0, "clock64 went back %llu times", seen[1]);
    EXPECT(ms > 0.0f, "elapsed %g ms", (double)ms);
  }
  CUDA_CHECK(clsModuleUnload(mod));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  printf("clock_delay: PASSED\n");
  return 0;
}
