/* Stream capture: the rows of docs/semantics.md, "Stream capture and
 * graphs", that are about capturing (what a capture refuses, what
 * invalidates it, fork and join, events in a capture, the three modes). */
#include "support.h"

#include <stdlib.h>

#define N 256

static size_t node_count(clsGraph_t g) {
  size_t n = 12345;
  CK_OK(clsGraphGetNodes(g, NULL, &n));
  return n;
}

static clsStreamCaptureStatus status_of(clsStream_t s) {
  clsStreamCaptureStatus st = (clsStreamCaptureStatus)77;
  CK_OK(clsStreamIsCapturing(s, &st));
  return st;
}

/* Row: IsCapturing before / during / after; GetCaptureInfo ids differ. */
START_TEST(capture_status_and_ids) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  ck_assert_int_eq(status_of(s), clsStreamCaptureStatusNone);
  unsigned long long id1 = 0, id2 = 0;
  clsStreamCaptureStatus st;
  CK_OK(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal));
  ck_assert_int_eq(status_of(s), clsStreamCaptureStatusActive);
  CK_OK(clsStreamGetCaptureInfo(s, &st, &id1));
  ck_assert_int_eq(st, clsStreamCaptureStatusActive);
  CK_OK(clsStreamGetCaptureInfo(s, &st, NULL));
  clsGraph_t g;
  CK_OK(clsStreamEndCapture(s, &g));
  ck_assert_int_eq(status_of(s), clsStreamCaptureStatusNone);
  CK_OK(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal));
  CK_OK(clsStreamGetCaptureInfo(s, &st, &id2));
  ck_assert_uint_ne(id1, id2);
  ck_assert_uint_ne(id1, 0);
  clsGraph_t g2;
  CK_OK(clsStreamEndCapture(s, &g2));
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsGraphDestroy(g2));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Row: captured work does not run; it runs once per launch, in order. */
START_TEST(capture_runs_per_launch) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 1, N);
  clsStream_t s =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeGlobal);
  CK_OK(launch_scale(&a, s, d, 2, N));
  CK_OK(launch_scale(&a, s, d, 3, N));
  clsGraphExec_t x = end_and_instantiate(s);
  dev_expect(d, 1, N, "after capture");
  for (int i = 0; i < 3; ++i) CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 216, N, "after three launches");
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: kernel arguments are read at capture time. */
START_TEST(capture_reads_arguments_at_capture) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  int v = 7;
  unsigned n = N;
  void *args[] = {&d, &v, &n};
  CK_OK(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal));
  CK_OK(clsLaunchKernel(a.fill, (clsDim3){N / 64, 1, 1}, (clsDim3){64, 1, 1},
                        args, 0, s));
  v = 9;
  clsGraphExec_t x = end_and_instantiate(s);
  v = 11;
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 7, N, "fill");
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: an async copy from pinned memory reads the host memory at replay. */
START_TEST(capture_pinned_copy_reads_at_replay) {
  int *h, *d = dev_ints(N);
  CK_OK(clsMallocHost((void **)&h, N * sizeof(int)));
  for (int i = 0; i < N; ++i) h[i] = 1;
  clsStream_t s =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeGlobal);
  CK_OK(clsMemcpyAsync(d, h, N * sizeof(int), clsMemcpyHostToDevice, s));
  clsGraphExec_t x = end_and_instantiate(s);
  for (int i = 0; i < N; ++i) h[i] = 2;
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 2, N, "first launch");
  for (int i = 0; i < N; ++i) h[i] = 3;
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 3, N, "second launch");
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(h));
  CK_OK(clsFree(d));
}
END_TEST

/* A replayed kernel works on pinned and registered memory in place: what
 * the host wrote before a launch is what the kernel reads, and what it
 * wrote is the host's after the synchronize (host buffers are unmapped
 * and mapped again around each launch on devices where they are
 * buffers). */
START_TEST(capture_kernel_on_host_memory) {
  arith a;
  arith_load(&a);
  int *pin;
  CK_OK(clsMallocHost((void **)&pin, N * sizeof(int)));
  int *reg = aligned_alloc(4096, 4096 * ((N * sizeof(int) + 4095) / 4096));
  ck_assert_ptr_nonnull(reg);
  CK_OK(clsHostRegister(reg, N * sizeof(int), clsHostRegisterDefault));
  clsStream_t s =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeGlobal);
  CK_OK(launch_scale(&a, s, pin, 2, N));
  CK_OK(launch_scale(&a, s, reg, 3, N));
  clsGraphExec_t x = end_and_instantiate(s);
  for (int round = 1; round <= 3; ++round) {
    for (int i = 0; i < N; ++i) pin[i] = reg[i] = round;
    CK_OK(clsGraphLaunch(x, s));
    CK_OK(clsStreamSynchronize(s));
    host_expect(pin, 2 * round, N, "pinned");
    host_expect(reg, 3 * round, N, "registered");
  }
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsHostUnregister(reg));
  free(reg);
  CK_OK(clsFreeHost(pin));
  arith_unload(&a);
}
END_TEST

/* A host function that checks the device value a kernel before it wrote. */
typedef struct seen {
  int *host; /* pinned, filled by a copy just before */
  atomic_int runs;
  atomic_int good;
} seen;
static void hf_seen(void *p) {
  seen *s = p;
  atomic_fetch_add(&s->runs, 1);
  if (s->host[0] == 5 + atomic_load(&s->runs) - 1)
    atomic_fetch_add(&s->good, 1);
}

static void cb_count(clsStream_t s, clsError_t status, void *p) {
  (void)s;
  if (status == clsSuccess) atomic_fetch_add((atomic_int *)p, 1);
}

/* Row: a host function runs once per launch, in order, never at capture;
 * so does a callback. */
START_TEST(capture_host_function_per_launch) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(1), *h;
  dev_set(d, 4, 1);
  CK_OK(clsMallocHost((void **)&h, sizeof(int)));
  seen sn = {h, 0, 0};
  atomic_int cb = 0;
  clsStream_t s =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeGlobal);
  int *ones = NULL;
  CK_CLS(clsMalloc((void **)&ones, sizeof(int)),
         clsErrorStreamCaptureUnsupported);
  clsGraph_t g;
  CK_CLS(clsStreamEndCapture(s, &g), clsErrorStreamCaptureInvalidated);
  ck_assert_ptr_null(g);
  /* Again, without the refused allocation. */
  ones = dev_ints(1);
  dev_set(ones, 1, 1);
  CK_OK(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal));
  CK_OK(launch_add(&a, s, d, ones, d, 1));
  CK_OK(clsMemcpyAsync(h, d, sizeof(int), clsMemcpyDeviceToHost, s));
  CK_OK(clsLaunchHostFunc(s, hf_seen, &sn));
  CK_OK(clsStreamAddCallback(s, cb_count, &cb, 0));
  clsGraphExec_t x = end_and_instantiate(s);
  sleep_ms(20);
  CK_ATOMIC_EQ(sn.runs, 0);
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  CK_ATOMIC_EQ(sn.runs, 2);
  CK_ATOMIC_EQ(sn.good, 2);
  CK_ATOMIC_EQ(cb, 2);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(h));
  CK_OK(clsFree(d));
  CK_OK(clsFree(ones));
  arith_unload(&a);
}
END_TEST

/* Row: an empty capture is a graph of 0 nodes that instantiates and
 * launches. */
START_TEST(capture_empty) {
  clsStream_t s =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeRelaxed);
  clsGraph_t g;
  CK_OK(clsStreamEndCapture(s, &g));
  ck_assert_uint_eq(node_count(g), 0);
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Rows: GetNodes counts (3 kernels; fork/join of 4 kernels over two
 * streams, whose records and waits make no nodes); fork/join membership;
 * one event serving both fork and join. */
START_TEST(capture_fork_join) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N), *e2 = dev_ints(N);
  dev_set(d, 1, N);
  dev_set(e2, 1, N);
  clsStream_t s1, s2;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  clsEvent_t ev;
  CK_OK(clsEventCreateWithFlags(&ev, clsEventDisableTiming));

  CK_OK(clsStreamBeginCapture(s1, clsStreamCaptureModeGlobal));
  for (int i = 0; i < 3; ++i) CK_OK(launch_scale(&a, s1, d, 2, N));
  clsGraph_t g;
  CK_OK(clsStreamEndCapture(s1, &g));
  ck_assert_uint_eq(node_count(g), 3);
  CK_OK(clsGraphDestroy(g));

  CK_OK(clsStreamBeginCapture(s1, clsStreamCaptureModeGlobal));
  CK_OK(launch_scale(&a, s1, d, 2, N));
  CK_OK(clsEventRecord(ev, s1));
  ck_assert_int_eq(status_of(s2), clsStreamCaptureStatusNone);
  CK_OK(clsStreamWaitEvent(s2, ev, 0)); /* fork */
  ck_assert_int_eq(status_of(s2), clsStreamCaptureStatusActive);
  unsigned long long i1, i2;
  clsStreamCaptureStatus st;
  CK_OK(clsStreamGetCaptureInfo(s1, &st, &i1));
  CK_OK(clsStreamGetCaptureInfo(s2, &st, &i2));
  ck_assert_uint_eq(i1, i2);
  CK_OK(launch_scale(&a, s2, e2, 3, N));
  CK_OK(launch_scale(&a, s1, d, 5, N));
  CK_OK(launch_add(&a, s2, e2, d, e2, N)); /* after the fork point only */
  CK_OK(clsEventRecord(ev, s2));           /* the same event joins */
  CK_OK(clsStreamWaitEvent(s1, ev, 0));
  CK_OK(clsStreamEndCapture(s1, &g));
  ck_assert_int_eq(status_of(s2), clsStreamCaptureStatusNone);
  ck_assert_uint_eq(node_count(g), 4);
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  dev_expect(d, 1, N, "after capture");
  CK_OK(clsGraphLaunch(x, s1));
  CK_OK(clsStreamSynchronize(s1));
  dev_expect(d, 10, N, "d");
  /* e2 = 3 + d-after-the-first-kernel (2) or after both (10): the add ran
   * after the fork only, and the graph orders nothing else. */
  int h[N];
  dev_get(h, e2, N);
  ck_assert_msg(h[0] == 5 || h[0] == 13, "e2 = %d", h[0]);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsEventDestroy(ev));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFree(d));
  CK_OK(clsFree(e2));
  arith_unload(&a);
}
END_TEST

/* Row: the legacy stream cannot begin a capture. */
START_TEST(capture_legacy_refused) {
  CK_CLS(clsStreamBeginCapture(NULL, clsStreamCaptureModeGlobal),
         clsErrorStreamCaptureUnsupported);
  CK_CLS(clsStreamBeginCapture(clsStreamLegacy, clsStreamCaptureModeGlobal),
         clsErrorStreamCaptureUnsupported);
}
END_TEST

/* Begins a capture on a new stream with one kernel in it. */
static clsStream_t begin_with_work(const arith *a, int *d,
                                   clsStreamCaptureMode mode) {
  clsStream_t s = capturing_stream(clsStreamDefault, mode);
  CK_OK(launch_fill(a, s, d, 1, N));
  return s;
}

/* Asserts s's capture is invalidated and ends with Invalidated, NULL. */
static void expect_invalidated(clsStream_t s) {
  ck_assert_int_eq(status_of(s), clsStreamCaptureStatusInvalidated);
  clsGraph_t g = (clsGraph_t)0x1234;
  CK_CLS(clsStreamEndCapture(s, &g), clsErrorStreamCaptureInvalidated);
  ck_assert_ptr_null(g);
  ck_assert_int_eq(status_of(s), clsStreamCaptureStatusNone);
  CK_OK(clsStreamDestroy(s));
}

/* Row: StreamQuery, StreamSynchronize of the capturing stream and
 * DeviceSynchronize are refused and invalidate the capture. */
START_TEST(capture_sync_refused) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_CLS(clsStreamQuery(s), clsErrorStreamCaptureUnsupported);
  expect_invalidated(s);
  s = begin_with_work(&a, d, clsStreamCaptureModeRelaxed);
  CK_CLS(clsStreamSynchronize(s), clsErrorStreamCaptureUnsupported);
  /* Work issued to an invalidated capture is refused too. */
  CK_CLS(launch_fill(&a, s, d, 1, N), clsErrorStreamCaptureInvalidated);
  expect_invalidated(s);
  s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_CLS(clsDeviceSynchronize(), clsErrorStreamCaptureUnsupported);
  expect_invalidated(s);
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

static clsError_t malloc_free(void *unused) {
  (void)unused;
  void *p = NULL;
  clsError_t e = clsMalloc(&p, 64);
  if (e == clsSuccess) e = clsFree(p);
  return e;
}

static clsError_t malloc_free_relaxed(void *unused) {
  clsStreamCaptureMode m = clsStreamCaptureModeRelaxed;
  clsError_t e = clsThreadExchangeStreamCaptureMode(&m);
  if (e != clsSuccess) return e;
  if (m != clsStreamCaptureModeGlobal) return clsErrorUnknown;
  return malloc_free(unused);
}

/* Row: clsMalloc during a Global capture, on the capturing thread or on
 * another thread in Global mode: refused, the capture invalidated. */
START_TEST(capture_global_refuses_malloc) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_CLS(malloc_free(NULL), clsErrorStreamCaptureUnsupported);
  expect_invalidated(s);
  s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_CLS(bg_call_within(malloc_free, NULL, 10000, "clsMalloc"),
         clsErrorStreamCaptureUnsupported);
  expect_invalidated(s);
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: clsMalloc during a Relaxed capture, on another thread during a
 * ThreadLocal capture, or on a thread switched to Relaxed: success. */
START_TEST(capture_modes_allow_malloc) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t s = begin_with_work(&a, d, clsStreamCaptureModeRelaxed);
  CK_OK(malloc_free(NULL));
  clsGraphExec_t x = end_and_instantiate(s);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  s = begin_with_work(&a, d, clsStreamCaptureModeThreadLocal);
  CK_OK(bg_call_within(malloc_free, NULL, 10000, "clsMalloc"));
  CK_CLS(malloc_free(NULL), clsErrorStreamCaptureUnsupported); /* own */
  expect_invalidated(s);
  s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_OK(bg_call_within(malloc_free_relaxed, NULL, 10000, "clsMalloc"));
  x = end_and_instantiate(s);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  /* The exchange gives the previous mode back. */
  clsStreamCaptureMode m = clsStreamCaptureModeThreadLocal;
  CK_OK(clsThreadExchangeStreamCaptureMode(&m));
  ck_assert_int_eq(m, clsStreamCaptureModeGlobal);
  CK_OK(clsThreadExchangeStreamCaptureMode(&m));
  ck_assert_int_eq(m, clsStreamCaptureModeThreadLocal);
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: a legacy-stream launch while a blocking stream captures is
 * Implicit and invalidates; while only non-blocking streams capture it
 * succeeds. */
START_TEST(capture_legacy_launch_implicit) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t s = begin_with_work(&a, d, clsStreamCaptureModeRelaxed);
  CK_CLS(launch_fill(&a, NULL, d, 2, N), clsErrorStreamCaptureImplicit);
  expect_invalidated(s);
  s = capturing_stream(clsStreamNonBlocking, clsStreamCaptureModeRelaxed);
  CK_OK(launch_fill(&a, s, d, 1, N));
  CK_OK(launch_fill(&a, NULL, d, 2, N));
  clsGraphExec_t x = end_and_instantiate(s);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d, 2, N, "legacy fill");
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: EndCapture on a stream not capturing, BeginCapture twice:
 * IllegalState. */
START_TEST(capture_illegal_state) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  clsGraph_t g;
  CK_CLS(clsStreamEndCapture(s, &g), clsErrorIllegalState);
  CK_OK(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal));
  CK_CLS(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal),
         clsErrorIllegalState);
  CK_OK(clsStreamEndCapture(s, &g));
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Two streams with s2 forked off a capture begun on s1 (one kernel on
 * each), over the arith kernels and N device ints. */
typedef struct forked {
  arith a;
  int *d;
  clsStream_t s1, s2;
  clsEvent_t ev;
} forked;

static void fork_two(forked *f) {
  arith_load(&f->a);
  f->d = dev_ints(N);
  CK_OK(clsStreamCreate(&f->s1));
  CK_OK(clsStreamCreate(&f->s2));
  CK_OK(clsEventCreate(&f->ev));
  CK_OK(clsStreamBeginCapture(f->s1, clsStreamCaptureModeGlobal));
  CK_OK(launch_fill(&f->a, f->s1, f->d, 1, N));
  CK_OK(clsEventRecord(f->ev, f->s1));
  CK_OK(clsStreamWaitEvent(f->s2, f->ev, 0));
  CK_OK(launch_fill(&f->a, f->s2, f->d + N / 2, 2, N / 2));
}

/* Checks that neither stream captures any more, then frees it all. */
static void fork_done(forked *f) {
  ck_assert_int_eq(status_of(f->s1), clsStreamCaptureStatusNone);
  ck_assert_int_eq(status_of(f->s2), clsStreamCaptureStatusNone);
  CK_OK(clsEventDestroy(f->ev));
  CK_OK(clsStreamDestroy(f->s1));
  CK_OK(clsStreamDestroy(f->s2));
  CK_OK(clsFree(f->d));
  arith_unload(&f->a);
}

/* Row: a forked stream that never joined: Unjoined, and it leaves. */
START_TEST(capture_unjoined) {
  forked f;
  fork_two(&f);
  clsGraph_t g = (clsGraph_t)0x1234;
  CK_CLS(clsStreamEndCapture(f.s1, &g), clsErrorStreamCaptureUnjoined);
  ck_assert_ptr_null(g);
  fork_done(&f);
}
END_TEST

/* Row: EndCapture on the forked stream: Unmatched; then the origin's
 * EndCapture fails. */
START_TEST(capture_unmatched) {
  forked f;
  fork_two(&f);
  clsGraph_t g;
  CK_CLS(clsStreamEndCapture(f.s2, &g), clsErrorStreamCaptureUnmatched);
  CK_CLS2(clsStreamEndCapture(f.s1, &g), clsErrorStreamCaptureInvalidated,
          clsErrorStreamCaptureUnjoined);
  fork_done(&f);
}
END_TEST

/* Row: waiting on an event recorded outside the capture: Isolation. */
START_TEST(capture_isolation) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t other;
  CK_OK(clsStreamCreate(&other));
  clsEvent_t ev;
  CK_OK(clsEventCreate(&ev));
  CK_OK(clsEventRecord(ev, other));
  clsStream_t s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_CLS(clsStreamWaitEvent(s, ev, 0), clsErrorStreamCaptureIsolation);
  expect_invalidated(s);
  CK_OK(clsEventDestroy(ev));
  CK_OK(clsStreamDestroy(other));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Rows: EventQuery of an event recorded in the capture, during it:
 * CapturedEvent, invalidated.  After the capture: query, synchronize and
 * waits are InvalidValue until the event is recorded again. */
START_TEST(capture_captured_event) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsEvent_t ev;
  CK_OK(clsEventCreate(&ev));
  clsStream_t s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_OK(clsEventRecord(ev, s));
  CK_CLS(clsEventQuery(ev), clsErrorCapturedEvent);
  expect_invalidated(s);

  s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_OK(clsEventRecord(ev, s));
  clsGraphExec_t x = end_and_instantiate(s);
  clsStream_t s2;
  CK_OK(clsStreamCreate(&s2));
  CK_CLS(clsEventQuery(ev), clsErrorInvalidValue);
  CK_CLS(clsEventSynchronize(ev), clsErrorInvalidValue);
  CK_CLS(clsStreamWaitEvent(s2, ev, 0), clsErrorInvalidValue);
  CK_OK(clsEventRecord(ev, s));
  CK_OK(clsEventSynchronize(ev));
  CK_OK(clsEventQuery(ev));
  CK_OK(clsStreamWaitEvent(s2, ev, 0));
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsEventDestroy(ev));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

static clsError_t end_elsewhere(void *s) {
  clsGraph_t g;
  return clsStreamEndCapture((clsStream_t)s, &g);
}

/* A Global capture ends only on its own thread (WrongThread); the per-thread
 * stream captures; stream-ordered allocation is refused in a capture. */
START_TEST(capture_wrong_thread_per_thread_alloc) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t s = begin_with_work(&a, d, clsStreamCaptureModeGlobal);
  CK_CLS(bg_call_within(end_elsewhere, s, 10000, "EndCapture"),
         clsErrorStreamCaptureWrongThread);
  ck_assert_int_eq(status_of(s), clsStreamCaptureStatusActive);
  clsGraphExec_t x = end_and_instantiate(s);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));

  dev_set(d, 0, N);
  CK_OK(clsStreamBeginCapture(clsStreamPerThread, clsStreamCaptureModeGlobal));
  ck_assert_int_eq(status_of(clsStreamPerThread), clsStreamCaptureStatusActive);
  CK_OK(launch_fill(&a, clsStreamPerThread, d, 4, N));
  x = end_and_instantiate(clsStreamPerThread);
  dev_expect(d, 0, N, "after capture");
  CK_OK(clsGraphLaunch(x, clsStreamPerThread));
  CK_OK(clsStreamSynchronize(clsStreamPerThread));
  dev_expect(d, 4, N, "per-thread replay");
  CK_OK(clsGraphExecDestroy(x));

  s = begin_with_work(&a, d, clsStreamCaptureModeRelaxed);
  void *p = NULL;
  CK_CLS(clsMallocAsync(&p, 64, s), clsErrorStreamCaptureUnsupported);
  expect_invalidated(s);
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Captures on several threads at once, each on its own stream and in
 * ThreadLocal mode, while another thread issues plain work: each graph
 * holds its own thread's nodes only (for TSan too). */
typedef struct cap_job {
  const arith *a;
  int *d;
  int k;
  clsError_t rc;
} cap_job;

static void *cap_thread(void *p) {
  cap_job *j = p;
  clsStream_t s;
  clsGraph_t g = NULL;
  clsGraphExec_t x = NULL;
  size_t n = 0;
  j->rc = clsStreamCreate(&s);
  for (int round = 0; round < 5 && j->rc == clsSuccess; ++round) {
    j->rc = clsStreamBeginCapture(s, clsStreamCaptureModeThreadLocal);
    for (int i = 0; i < 3 && j->rc == clsSuccess; ++i)
      j->rc = launch_fill(j->a, s, j->d, j->k, N);
    if (j->rc == clsSuccess) j->rc = clsStreamEndCapture(s, &g);
    if (j->rc == clsSuccess) j->rc = clsGraphGetNodes(g, NULL, &n);
    if (j->rc == clsSuccess && n != 3) j->rc = clsErrorUnknown;
    if (j->rc == clsSuccess) j->rc = clsGraphInstantiate(&x, g, 0);
    if (j->rc == clsSuccess) j->rc = clsGraphLaunch(x, s);
    if (j->rc == clsSuccess) j->rc = clsStreamSynchronize(s);
    if (x) clsGraphExecDestroy(x);
    if (g) clsGraphDestroy(g);
    x = NULL;
    g = NULL;
  }
  clsStreamDestroy(s);
  return NULL;
}

START_TEST(capture_threads_concurrent) {
  arith a;
  arith_load(&a);
  enum { T = 3 };
  cap_job jobs[T];
  pthread_t th[T];
  int *plain = dev_ints(N);
  for (int i = 0; i < T; ++i) {
    jobs[i] = (cap_job){&a, dev_ints(N), 10 + i, clsSuccess};
    ck_assert_int_eq(pthread_create(&th[i], NULL, cap_thread, &jobs[i]), 0);
  }
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  for (int i = 0; i < 20; ++i) CK_OK(launch_fill(&a, s, plain, 7, N));
  CK_OK(clsStreamSynchronize(s));
  /* Every capture over first: the checks copy on the legacy stream, which
   * a capturing blocking stream would refuse (Implicit). */
  for (int i = 0; i < T; ++i) pthread_join(th[i], NULL);
  for (int i = 0; i < T; ++i) {
    CK_OK(jobs[i].rc);
    dev_expect(jobs[i].d, 10 + i, N, "the thread's buffer");
    CK_OK(clsFree(jobs[i].d));
  }
  dev_expect(plain, 7, N, "plain work");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(plain));
  arith_unload(&a);
}
END_TEST

/* Row (bad input): a mode outside the enum, a NULL status pointer. */
START_TEST(capture_bad_input) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_CLS(clsStreamBeginCapture(s, (clsStreamCaptureMode)3),
         clsErrorInvalidValue);
  CK_CLS(clsStreamIsCapturing(s, NULL), clsErrorInvalidValue);
  CK_CLS(clsStreamGetCaptureInfo(s, NULL, NULL), clsErrorInvalidValue);
  CK_CLS(clsThreadExchangeStreamCaptureMode(NULL), clsErrorInvalidValue);
  clsStreamCaptureMode m = (clsStreamCaptureMode)9;
  CK_CLS(clsThreadExchangeStreamCaptureMode(&m), clsErrorInvalidValue);
  CK_CLS(clsStreamEndCapture(s, NULL), clsErrorInvalidValue);
  clsStreamCaptureStatus st;
  CK_CLS(clsStreamIsCapturing((clsStream_t)0x7777, &st),
         clsErrorInvalidResourceHandle);
  CK_OK(clsStreamDestroy(s));
  /* A destroyed capturing stream takes its capture with it. */
  s = capturing_stream(clsStreamDefault, clsStreamCaptureModeGlobal);
  CK_OK(clsStreamDestroy(s));
  void *p;
  CK_OK(clsMalloc(&p, 16));
  CK_OK(clsFree(p));
}
END_TEST

int main(void) {
  Suite *s = suite_create("capture");
  TCase *tc = tcase_timed("capture", 60);
  TCase *tc_threads = tcase_tagged(s, "capture_threads", 60, "gate threads");
  tcase_add_test(tc, capture_status_and_ids);
  tcase_add_test(tc, capture_runs_per_launch);
  tcase_add_test(tc, capture_reads_arguments_at_capture);
  tcase_add_test(tc, capture_pinned_copy_reads_at_replay);
  tcase_add_test(tc, capture_kernel_on_host_memory);
  tcase_add_test(tc_threads, capture_host_function_per_launch);
  tcase_add_test(tc, capture_empty);
  tcase_add_test(tc, capture_fork_join);
  tcase_add_test(tc, capture_legacy_refused);
  tcase_add_test(tc, capture_sync_refused);
  tcase_add_test(tc_threads, capture_global_refuses_malloc);
  tcase_add_test(tc_threads, capture_modes_allow_malloc);
  tcase_add_test(tc, capture_legacy_launch_implicit);
  tcase_add_test(tc, capture_illegal_state);
  tcase_add_test(tc, capture_unjoined);
  tcase_add_test(tc, capture_unmatched);
  tcase_add_test(tc, capture_isolation);
  tcase_add_test(tc, capture_captured_event);
  tcase_add_test(tc_threads, capture_wrong_thread_per_thread_alloc);
  tcase_add_test(tc, capture_bad_input);
  tcase_add_test(tc_threads, capture_threads_concurrent);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
