/*
 * Every object through the calls that need no host function and no second
 * thread: the suite CI runs under Oclgrind (label "simulator"), where a
 * flush runs the queue on the calling thread (docs/devices.md), and which
 * every other run includes as a unit test.  Small sizes: the simulator
 * runs each work-item in software, and checks each memory access.
 */
#include "support.h"

#include <stdio.h>
#include <string.h>

enum { N = 256 };

/* Device: count, current device, properties of the one in use. */
START_TEST(sim_device) {
  int n = 0, d = -1;
  CK_OK(clsGetDeviceCount(&n));
  ck_assert_int_gt(n, 0);
  CK_OK(clsGetDevice(&d));
  CK_OK(clsSetDevice(d));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, d));
  ck_assert_int_eq(p.selectable, 1);
  ck_assert_int_eq(p.svmCoarseGrain || p.bufferMemory, 1);
  printf("NOTE sim_device: device %d (%s, %s), %s memory\n", d, p.name,
         p.platformName, p.bufferMemory ? "buffer" : "SVM");
  CK_OK(clsDeviceSynchronize());
  CK_CLS(clsSetDevice(n), clsErrorInvalidDevice);
  CK_LAST(clsErrorInvalidDevice);
}
END_TEST

/* Memory: every copy kind, sets, offsets inside an allocation, the
 * default kind inferred from the pointers, bad ranges refused. */
START_TEST(sim_memory) {
  int *d = dev_ints(N), *d2 = dev_ints(N);
  int h[N], back[N];
  for (int i = 0; i < N; ++i) h[i] = i * 3 + 1;
  CK_OK(clsMemcpy(d, h, sizeof h, clsMemcpyHostToDevice));
  CK_OK(clsMemcpy(d2, d, sizeof h, clsMemcpyDeviceToDevice));
  memset(back, 0, sizeof back);
  CK_OK(clsMemcpy(back, d2, sizeof back, clsMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) ck_assert_int_eq(back[i], i * 3 + 1);
  /* Any offset for copies and sets; the kind inferred. */
  CK_OK(clsMemset(d2 + 5, 0, 7 * sizeof(int)));
  CK_OK(clsMemcpy(back, d2 + 3, 10 * sizeof(int), clsMemcpyDefault));
  for (int i = 0; i < 10; ++i)
    ck_assert_int_eq(back[i], (i >= 2 && i < 9) ? 0 : (i + 3) * 3 + 1);
  int x = -1, y = 0;
  CK_OK(clsMemcpy(&y, &x, sizeof x, clsMemcpyHostToHost));
  ck_assert_int_eq(y, -1);
  /* Pinned host memory, asynchronously on a stream. */
  int *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, sizeof h));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsMemsetAsync(d, 0x01, sizeof h, s));
  CK_OK(clsMemcpyAsync(pin, d, sizeof h, clsMemcpyDeviceToHost, s));
  CK_OK(clsStreamSynchronize(s));
  for (int i = 0; i < N; ++i) ck_assert_int_eq(pin[i], 0x01010101);
  CK_CLS(clsMemcpy(d + N - 1, h, 2 * sizeof(int), clsMemcpyHostToDevice),
         clsErrorInvalidValue);
  CK_CLS(clsMemcpy(d, h, 4, (clsMemcpyKind)7), clsErrorInvalidMemcpyDirection);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFree(d));
  CK_OK(clsFree(d2));
  CK_OK(clsFree(NULL));
}
END_TEST

/* Modules: load, look up, launch with a pointer at the start and inside an
 * allocation (at an offset the device accepts) and a NULL pointer. */
START_TEST(sim_module) {
  arith a;
  arith_load(&a);
  int dev = -1;
  CK_OK(clsGetDevice(&dev));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  int u = p.bufferMemory ? (int)(p.bufferArgAlign / sizeof(int)) : 16;
  if (u < 1) u = 1;
  ck_assert_int_le(u + 16, N);
  int *d = dev_ints(N);
  dev_set(d, 2, N);
  CK_OK(launch_scale(&a, NULL, d, 5, N));
  CK_OK(launch_fill(&a, NULL, d + u, 9, 16));
  CK_OK(clsStreamSynchronize(NULL));
  int h[N];
  dev_get(h, d, N);
  for (int i = 0; i < N; ++i)
    ck_assert_int_eq(h[i], (i >= u && i < u + 16) ? 9 : 10);
  /* (Bad names and sources are test_module's: Oclgrind reports every
   * failed call, and this run treats any report as a failure.) */
  CK_CLS(launch_fill(&a, NULL, NULL, 1, 0), clsSuccess); /* a NULL pointer */
  CK_OK(clsStreamSynchronize(NULL));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Streams and events: record, query, synchronize, elapsed time, a wait
 * across streams, destroy with work done. */
START_TEST(sim_stream_event) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t s1, s2;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  clsEvent_t e0, e1, never;
  CK_OK(clsEventCreate(&e0));
  CK_OK(clsEventCreate(&e1));
  CK_OK(clsEventCreate(&never));
  CK_OK(clsEventQuery(never));
  CK_OK(clsEventRecord(e0, s1));
  CK_OK(launch_fill(&a, s1, d, 4, N));
  CK_OK(clsEventRecord(e1, s1));
  CK_OK(clsStreamWaitEvent(s2, e1, 0));
  CK_OK(launch_scale(&a, s2, d, 3, N));
  CK_OK(clsStreamSynchronize(s2));
  CK_OK(clsStreamQuery(s2));
  CK_OK(clsEventSynchronize(e1));
  CK_OK(clsEventQuery(e1));
  dev_expect(d, 12, N, "d");
  float ms = -1.0f;
  if (elapsed_or_untimed(&ms, e0, e1))
    ck_assert_msg(ms >= 0.0f, "elapsed %g", (double)ms);
  CK_CLS(clsEventElapsedTime(&ms, e0, never), clsErrorInvalidResourceHandle);
  CK_CLS(clsStreamWaitEvent(s2, e1, 5), clsErrorInvalidValue);
  CK_CLS(clsStreamDestroy(NULL), clsErrorInvalidResourceHandle);
  CK_OK(clsEventDestroy(e0));
  CK_OK(clsEventDestroy(e1));
  CK_OK(clsEventDestroy(never));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Errors: the last-error model on this device. */
START_TEST(sim_errors) {
  CK_LAST(clsSuccess);
  CK_CLS(clsEventCreate(NULL), clsErrorInvalidValue);
  ck_assert_int_eq(clsPeekAtLastError(), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_LAST(clsSuccess);
  ck_assert_str_eq(clsGetErrorName(clsErrorNotReady), "clsErrorNotReady");
}
END_TEST

int main(void) {
  Suite *s = suite_create("simulator");
  TCase *tc = tcase_timed("simulator", 300);
  tcase_add_test(tc, sim_device);
  tcase_add_test(tc, sim_memory);
  tcase_add_test(tc, sim_module);
  tcase_add_test(tc, sim_stream_event);
  tcase_add_test(tc, sim_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
