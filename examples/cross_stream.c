/*
 * cross_stream: run a kernel in a stream of our own, record an event in
 * that stream, and wait for the event from the host.
 */
#include "common.h"

#include <clstream_kernels.h> /* cls_kernel_arith: examples/arith.cl */

int main(void) {
  int t1[5] = {1, 2, 3, 4, 5};
  int t2[5] = {5, 4, 3, 2, 1};
  int sum[5];
  unsigned n = 5;
  int *d_t1, *d_t2, *d_sum;
  clsModule_t mod;
  clsFunction_t add;
  clsStream_t stream;
  clsEvent_t done;

  print_device();
  CHECK(clsModuleLoadData(&mod, cls_kernel_arith, NULL));
  CHECK(clsModuleGetFunction(&add, mod, "add"));
  CHECK(clsMalloc((void **)&d_t1, sizeof t1));
  CHECK(clsMalloc((void **)&d_t2, sizeof t2));
  CHECK(clsMalloc((void **)&d_sum, sizeof sum));
  CHECK(clsMemcpy(d_t1, t1, sizeof t1, clsMemcpyHostToDevice));
  CHECK(clsMemcpy(d_t2, t2, sizeof t2, clsMemcpyHostToDevice));

  /* sum = t1 + t2 in a created stream, then an event in the same stream. */
  CHECK(clsStreamCreate(&stream));
  CHECK(clsEventCreate(&done));
  void *args[] = {&d_t1, &d_t2, &d_sum, &n};
  CHECK(clsLaunchKernel(add, (clsDim3){1, 1, 1}, (clsDim3){n, 1, 1}, args, 0,
                        stream));
  CHECK(clsEventRecord(done, stream));
  CHECK(clsEventSynchronize(done)); /* blocks until the addition is done */

  CHECK(clsMemcpy(sum, d_sum, sizeof sum, clsMemcpyDeviceToHost));
  print_ints(sum, 5);

  CHECK(clsEventDestroy(done));
  CHECK(clsStreamDestroy(stream));
  CHECK(clsFree(d_t1));
  CHECK(clsFree(d_t2));
  CHECK(clsFree(d_sum));
  CHECK(clsModuleUnload(mod));
  return 0;
}
