/*
 * event_synchronize: run a kernel on the default stream, record an event
 * behind it and wait for that event, as with cudaEventSynchronize.
 */
#include "common.h"

#include <clstream_kernels.h> /* cls_kernel_arith: examples/arith.cl */

int main(void) {
  int t[5] = {1, 2, 3, 4, 5};
  int k = 2;
  unsigned n = 5;
  int *d_t;
  clsModule_t mod;
  clsFunction_t scale;
  clsEvent_t done;

  print_device();
  CHECK(clsModuleLoadData(&mod, cls_kernel_arith, NULL));
  CHECK(clsModuleGetFunction(&scale, mod, "scale"));
  CHECK(clsMalloc((void **)&d_t, sizeof t));
  CHECK(clsMemcpy(d_t, t, sizeof t, clsMemcpyHostToDevice));

  /* t *= 2 on the default stream (NULL), then an event behind it. */
  void *args[] = {&d_t, &k, &n};
  CHECK(clsLaunchKernel(scale, (clsDim3){1, 1, 1}, (clsDim3){n, 1, 1}, args, 0,
                        NULL));
  CHECK(clsEventCreate(&done));
  CHECK(clsEventRecord(done, NULL));
  CHECK(clsEventSynchronize(done)); /* blocks until the kernel is done */

  CHECK(clsMemcpy(t, d_t, sizeof t, clsMemcpyDeviceToHost));
  print_ints(t, 5);

  CHECK(clsEventDestroy(done));
  CHECK(clsFree(d_t));
  CHECK(clsModuleUnload(mod));
  return 0;
}
