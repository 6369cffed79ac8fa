/*
 * Every object, host functions included, through calls that need no
 * second thread: the cases CI runs first under Oclgrind (label
 * "simulator"), where a flush runs the queue on the calling thread and
 * host functions run inline (hostFuncsInline: on the calling thread,
 * before clsLaunchHostFunc returns; docs/drivers.md), and which every
 * other run includes as a unit test.  The host-function cases hold on
 * both ways of running them: nothing here waits for a host function to
 * start while the test thread goes on.  Small sizes: the simulator runs
 * each work-item in software, and checks each memory access.
 */
#include "support.h"

#include <pthread.h>
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

/* Whether the current device runs host functions inline. */
static int host_inline(void) {
  int dev = -1;
  CK_OK(clsGetDevice(&dev));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  return p.hostFuncsInline;
}

/* What a host function saw in pinned memory, and what it left there. */
typedef struct seen {
  int *pin;       /* pinned host memory the stream's copies use */
  int n;          /* its ints */
  int value;      /* pin[i] when the function ran (all equal), or -1 */
  int write;      /* written to every pin[i] by the function */
  hf_probe probe; /* runs, thread, order */
} seen;

static void hf_seen(void *p) {
  seen *x = p;
  x->value = x->pin[0];
  for (int i = 1; i < x->n; ++i)
    if (x->pin[i] != x->value) x->value = -1;
  for (int i = 0; i < x->n; ++i) x->pin[i] = x->write;
  hf_probe_fn(&x->probe);
}

/* Host functions order against device work: one reads through pinned
 * memory what a kernel and a copy before it wrote, and writes what a copy
 * after it carries back to the device; each runs once, in stream order
 * with the others; where they run inline, on the caller's thread before
 * clsLaunchHostFunc returns, else on a library thread. */
START_TEST(sim_host_order) {
  arith a;
  arith_load(&a);
  int inl = host_inline();
  int *d = dev_ints(N), *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, N * sizeof(int)));
  for (int i = 0; i < N; ++i) pin[i] = 0;
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  atomic_int clock = 0;
  seen x1, x2;
  memset(&x1, 0, sizeof x1);
  memset(&x2, 0, sizeof x2);
  x1.pin = x2.pin = pin;
  x1.n = x2.n = N;
  x1.write = 21;
  x2.write = 0;
  x1.probe.clock = x2.probe.clock = &clock;
  CK_OK(launch_fill(&a, s, d, 6, N));
  CK_OK(launch_scale(&a, s, d, 7, N));
  CK_OK(clsMemcpyAsync(pin, d, N * sizeof(int), clsMemcpyDeviceToHost, s));
  CK_OK(clsLaunchHostFunc(s, hf_seen, &x1));
  if (inl) CK_ATOMIC_EQ(x1.probe.runs, 1); /* it has run already */
  /* Later work sees what the function wrote. */
  CK_OK(clsMemcpyAsync(d, pin, N * sizeof(int), clsMemcpyHostToDevice, s));
  CK_OK(launch_scale(&a, s, d, 2, N));
  CK_OK(clsMemcpyAsync(pin, d, N * sizeof(int), clsMemcpyDeviceToHost, s));
  CK_OK(clsLaunchHostFunc(s, hf_seen, &x2));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamQuery(s));
  CK_ATOMIC_EQ(x1.probe.runs, 1);
  CK_ATOMIC_EQ(x2.probe.runs, 1);
  CK_ATOMIC_EQ(x1.probe.order, 1);
  CK_ATOMIC_EQ(x2.probe.order, 2);
  ck_assert_int_eq(x1.value, 42);
  ck_assert_int_eq(x2.value, 42);
  host_expect(pin, 0, N, "pin");
  dev_expect(d, 42, N, "d");
  int caller = pthread_equal(x1.probe.thread, pthread_self()) &&
               pthread_equal(x2.probe.thread, pthread_self());
  int other = !pthread_equal(x1.probe.thread, pthread_self()) &&
              !pthread_equal(x2.probe.thread, pthread_self());
  ck_assert_msg(inl ? caller : other, "host functions ran on %s",
                inl ? "another thread (inline expected)"
                    : "the caller's thread");
  /* Host jobs of the library's own: an asynchronous fill and host-to-host
   * copy of pinned memory on a stream (on a device without SVM, host
   * jobs). */
  int *pin2 = NULL;
  CK_OK(clsMallocHost((void **)&pin2, N * sizeof(int)));
  CK_OK(clsMemsetAsync(pin, 0x02, N * sizeof(int), s));
  CK_OK(clsMemcpyAsync(pin2, pin, N * sizeof(int), clsMemcpyHostToHost, s));
  CK_OK(clsStreamSynchronize(s));
  host_expect(pin2, 0x02020202, N, "pin2");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFreeHost(pin2));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* An event recorded after a host function completes after it, and work
 * another stream makes wait for that event sees what the function wrote;
 * the event's time does not come before the function's stream position. */
START_TEST(sim_host_event_wait) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N), *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, N * sizeof(int)));
  for (int i = 0; i < N; ++i) pin[i] = 1;
  clsStream_t s1, s2;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  clsEvent_t before, after;
  CK_OK(clsEventCreate(&before));
  CK_OK(clsEventCreate(&after));
  seen x;
  memset(&x, 0, sizeof x);
  x.pin = pin;
  x.n = N;
  x.write = 5;
  CK_OK(clsEventRecord(before, s1));
  CK_OK(clsLaunchHostFunc(s1, hf_seen, &x));
  CK_OK(clsEventRecord(after, s1));
  CK_OK(clsStreamWaitEvent(s2, after, 0));
  CK_OK(clsMemcpyAsync(d, pin, N * sizeof(int), clsMemcpyHostToDevice, s2));
  CK_OK(launch_scale(&a, s2, d, 3, N));
  CK_OK(clsEventSynchronize(after));
  CK_ATOMIC_EQ(x.probe.runs, 1);
  CK_OK(clsEventQuery(after));
  CK_OK(clsStreamSynchronize(s2));
  ck_assert_int_eq(x.value, 1);
  dev_expect(d, 15, N, "d");
  float ms = -1.0f;
  if (elapsed_or_untimed(&ms, before, after))
    ck_assert_msg(ms >= 0.0f, "elapsed %g across a host function", (double)ms);
  CK_OK(clsEventDestroy(before));
  CK_OK(clsEventDestroy(after));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* The legacy stream's implicit synchronization around host functions: one
 * on the legacy stream runs after a blocking stream's earlier work (and
 * not only the legacy stream's own), and a blocking stream's work after
 * it waits for it. */
START_TEST(sim_host_legacy) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N), *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, N * sizeof(int)));
  for (int i = 0; i < N; ++i) pin[i] = 0;
  clsStream_t s;
  CK_OK(clsStreamCreate(&s)); /* blocking */
  CK_OK(launch_fill(&a, s, d, 8, N));
  CK_OK(clsMemcpyAsync(pin, d, N * sizeof(int), clsMemcpyDeviceToHost, s));
  seen x;
  memset(&x, 0, sizeof x);
  x.pin = pin;
  x.n = N;
  x.write = 4;
  CK_OK(clsLaunchHostFunc(NULL, hf_seen, &x)); /* waits for s */
  CK_OK(clsMemcpyAsync(d, pin, N * sizeof(int), clsMemcpyHostToDevice, s));
  CK_OK(launch_scale(&a, s, d, 5, N)); /* after the legacy host function */
  CK_OK(clsStreamSynchronize(s));
  CK_ATOMIC_EQ(x.probe.runs, 1);
  ck_assert_int_eq(x.value, 8);
  /* On the CUDA build the copy read 8, not the function's 4 (H200,
   * CUDA 13): CUDA's driver takes a small copy from pinned memory into
   * its command stream when the copy is issued, so the host function's
   * later write is not what it carries.  CUDA's behaviour is the CUDA
   * build's; the OpenCL backend copies when the stream gets there. */
  clsDeviceProp prop;
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&prop, dev));
  if (strcmp(prop.platformName, "CUDA") != 0) dev_expect(d, 20, N, "d");
  /* The per-thread default stream is a blocking stream too. */
  seen y;
  memset(&y, 0, sizeof y);
  y.pin = pin;
  y.n = N;
  y.write = 9;
  CK_OK(launch_fill(&a, NULL, d, 3, N));
  CK_OK(clsMemcpyAsync(pin, d, N * sizeof(int), clsMemcpyDeviceToHost, NULL));
  CK_OK(clsLaunchHostFunc(clsStreamPerThread, hf_seen, &y));
  CK_OK(clsDeviceSynchronize());
  CK_ATOMIC_EQ(y.probe.runs, 1);
  ck_assert_int_eq(y.value, 3);
  host_expect(pin, 9, N, "pin");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Stream callbacks: the stream as the caller named it and clsSuccess,
 * once each, in order with host functions. */
typedef struct cb_seen {
  clsStream_t stream;
  clsError_t status;
  hf_probe probe;
} cb_seen;

static void cb_record(clsStream_t s, clsError_t status, void *p) {
  cb_seen *c = p;
  c->stream = s;
  c->status = status;
  hf_probe_fn(&c->probe);
}

START_TEST(sim_host_callback) {
  int inl = host_inline();
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  atomic_int clock = 0;
  cb_seen c1, c2;
  hf_probe p;
  memset(&c1, 0, sizeof c1);
  memset(&c2, 0, sizeof c2);
  memset(&p, 0, sizeof p);
  c1.status = c2.status = clsErrorUnknown;
  c1.probe.clock = c2.probe.clock = p.clock = &clock;
  CK_OK(clsStreamAddCallback(s, cb_record, &c1, 0));
  if (inl) CK_ATOMIC_EQ(c1.probe.runs, 1);
  CK_OK(clsLaunchHostFunc(s, hf_probe_fn, &p));
  CK_OK(clsStreamAddCallback(NULL, cb_record, &c2, 0));
  CK_OK(clsDeviceSynchronize());
  CK_ATOMIC_EQ(c1.probe.runs, 1);
  CK_ATOMIC_EQ(c2.probe.runs, 1);
  CK_ATOMIC_EQ(p.runs, 1);
  CK_ATOMIC_EQ(c1.probe.order, 1);
  CK_ATOMIC_EQ(p.order, 2);
  CK_ATOMIC_EQ(c2.probe.order, 3);
  ck_assert_ptr_eq(c1.stream, s);
  ck_assert_ptr_eq(c2.stream, NULL);
  ck_assert_int_eq(c1.status, clsSuccess);
  ck_assert_int_eq(c2.status, clsSuccess);
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Errors around host functions: bad arguments are refused with nothing
 * run; a host function may not call clstream (NotPermitted), and the
 * caller's thread is unaffected afterwards, inline or not. */
typedef struct reenter {
  clsStream_t s;
  clsError_t query, launch, sync;
  atomic_int done;
} reenter;

static void hf_reenter(void *p) {
  reenter *r = p;
  r->query = clsStreamQuery(r->s);
  r->launch = clsLaunchHostFunc(r->s, hf_count, &r->done);
  r->sync = clsStreamSynchronize(r->s);
  atomic_fetch_add(&r->done, 1);
}

START_TEST(sim_host_errors) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  atomic_int n = 0;
  CK_CLS(clsLaunchHostFunc(s, NULL, &n), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_CLS(clsStreamAddCallback(s, NULL, &n, 0), clsErrorInvalidValue);
  CK_CLS(clsStreamAddCallback(s, cb_record, &n, 1), clsErrorInvalidValue);
  reenter r = {s, clsErrorUnknown, clsErrorUnknown, clsErrorUnknown, 0};
  CK_OK(clsLaunchHostFunc(s, hf_reenter, &r));
  CK_OK(clsStreamSynchronize(s));
  CK_ATOMIC_EQ(r.done, 1); /* the refused launch never ran */
  ck_assert_int_eq(r.query, clsErrorNotPermitted);
  ck_assert_int_eq(r.launch, clsErrorNotPermitted);
  ck_assert_int_eq(r.sync, clsErrorNotPermitted);
  CK_OK(clsStreamQuery(s));
  CK_OK(clsLaunchHostFunc(s, hf_count, &n));
  CK_OK(clsStreamSynchronize(s));
  CK_ATOMIC_EQ(n, 1);
  CK_OK(clsStreamDestroy(s));
  CK_CLS(clsLaunchHostFunc(s, hf_count, &n), clsErrorInvalidResourceHandle);
  CK_ATOMIC_EQ(n, 1);
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
  tcase_add_test(tc, sim_host_order);
  tcase_add_test(tc, sim_host_event_wait);
  tcase_add_test(tc, sim_host_legacy);
  tcase_add_test(tc, sim_host_callback);
  tcase_add_test(tc, sim_host_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
