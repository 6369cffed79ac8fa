/*
 * elapsed_time: time a kernel between two events (cudaEventElapsedTime)
 * and compare with the host's own clock over the same span.
 */
#include "common.h"

#include <clstream_kernels.h> /* cls_kernel_arith: examples/arith.cl */

#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
  enum { GROUPS = 4, ITEMS = 64 };
  unsigned iters = 1u << 14; /* a few milliseconds on a CPU device */
  unsigned *d_out;
  clsModule_t mod;
  clsFunction_t spin;
  clsEvent_t start, stop;
  float ms;

  print_device();
  CHECK(clsModuleLoadData(&mod, cls_kernel_arith, NULL));
  CHECK(clsModuleGetFunction(&spin, mod, "spin"));
  CHECK(clsMalloc((void **)&d_out, GROUPS * ITEMS * sizeof *d_out));
  CHECK(clsEventCreate(&start));
  CHECK(clsEventCreate(&stop));

  void *args[] = {&d_out, &iters};
  clsDim3 grid = {GROUPS, 1, 1}, block = {ITEMS, 1, 1};

  /* Warm up: the first launch of a kernel may include its compilation. */
  CHECK(clsLaunchKernel(spin, grid, block, args, 0, NULL));
  CHECK(clsDeviceSynchronize());

  double host_start = now_ms();
  CHECK(clsEventRecord(start, NULL));
  CHECK(clsLaunchKernel(spin, grid, block, args, 0, NULL));
  CHECK(clsEventRecord(stop, NULL));
  CHECK(clsEventSynchronize(stop));
  double host_ms = now_ms() - host_start;

  /* A device whose timestamps cannot time work (rusticl) says so with
   * clsErrorNotSupported rather than report 0 ms. */
  clsError_t e = clsEventElapsedTime(&ms, start, stop);
  if (e == clsErrorNotSupported)
    printf("events: no timing on this device (%s), host: %.3f ms\n",
           clsGetErrorName(e), host_ms);
  else {
    CHECK(e);
    printf("events: %.3f ms, host: %.3f ms\n", ms, host_ms);
  }

  CHECK(clsEventDestroy(start));
  CHECK(clsEventDestroy(stop));
  CHECK(clsFree(d_out));
  CHECK(clsModuleUnload(mod));
  return 0;
}
