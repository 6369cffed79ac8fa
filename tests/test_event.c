/* Events: creation flags, record, query, synchronize, destroy, elapsed
 * time, BlockingSync. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row: create with flags 0, BlockingSync, DisableTiming or any OR. */
START_TEST(create_valid_flags) {
  const unsigned ok[] = {0u, clsEventDefault, clsEventBlockingSync,
                         clsEventDisableTiming,
                         clsEventBlockingSync | clsEventDisableTiming};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i) {
    clsEvent_t e = NULL;
    CK_OK(clsEventCreateWithFlags(&e, ok[i]));
    ck_assert_ptr_nonnull(e);
    CK_OK(clsEventRecord(e, NULL));
    CK_OK(clsEventSynchronize(e));
    CK_OK(clsEventQuery(e));
    CK_OK(clsEventDestroy(e));
  }
  clsEvent_t e1, e2;
  CK_OK(clsEventCreate(&e1));
  CK_OK(clsEventCreate(&e2));
  ck_assert_ptr_ne(e1, e2);
  CK_OK(clsEventDestroy(e1));
  CK_OK(clsEventDestroy(e2));
}
END_TEST

/* Rows: Interprocess alone -> InvalidValue; unknown bit -> InvalidValue;
 * NULL out pointer -> InvalidValue. */
START_TEST(create_invalid_flags) {
  clsEvent_t e = NULL;
  CK_CLS(clsEventCreateWithFlags(&e, clsEventInterprocess),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_CLS(
      clsEventCreateWithFlags(&e, clsEventInterprocess | clsEventBlockingSync),
      clsErrorInvalidValue);
  CK_CLS(clsEventCreateWithFlags(&e, 0x80), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_CLS(clsEventCreateWithFlags(&e, 0x8), clsErrorInvalidValue);
  CK_CLS(clsEventCreateWithFlags(&e, 0x80 | clsEventDisableTiming),
         clsErrorInvalidValue);
  CK_CLS(clsEventCreate(NULL), clsErrorInvalidValue);
  CK_CLS(clsEventCreateWithFlags(NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsEventCreateWithFlags(NULL, clsEventDisableTiming),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
}
END_TEST

/* Row: Interprocess | DisableTiming -> Success, as on CUDA 13 (on
 * OpenCL the event works within the process). */
START_TEST(create_interprocess_disable_timing) {
  clsEvent_t e = NULL;
  CK_OK(clsEventCreateWithFlags(&e,
                                clsEventInterprocess | clsEventDisableTiming));
  CK_OK(clsEventRecord(e, NULL));
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Row: query / synchronize an event never recorded -> Success, at once. */
START_TEST(never_recorded) {
  clsEvent_t e, bs;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventCreateWithFlags(&bs, clsEventBlockingSync));
  /* Even while the device is busy. */
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(clsEventQuery(e));
  CK_OK(clsEventQuery(bs));
  /* "At once": synchronize must not wait for the held stream (nor for the
   * device).  On a background thread, so that a wrong wait fails here. */
  clsEvent_t evs[] = {e, bs};
  for (int i = 0; i < 2; ++i) {
    bg_call c;
    bg_start(&c, bg_event_sync, evs[i]);
    int returned = bg_wait_done(&c, 2000);
    if (!returned) gate_release(g);
    ck_assert_msg(returned,
                  "clsEventSynchronize(%s) of a never-recorded event "
                  "waited for the busy device",
                  i ? "bs" : "e");
    CK_OK(bg_join(&c));
  }
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsEventDestroy(bs));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Rows: query while the captured work runs -> NotReady (not stored as the
 * last error); query / synchronize after it completed -> Success. */
START_TEST(query_pending_then_complete) {
  arith a;
  arith_load(&a);
  int *buf = dev_ints(128);
  dev_set(buf, 3, 128);
  clsStream_t s;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_scale(&a, s, buf, 7, 128));
  CK_OK(clsEventRecord(e, s));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_LAST(clsSuccess);
  CK_CLS(clsPeekAtLastError(), clsSuccess);
  gate_release(g);
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventQuery(e));
  CK_OK(clsEventSynchronize(e));
  /* The event covered the kernel. */
  dev_expect(buf, 21, 128, "buf");
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(buf));
  arith_unload(&a);
}
END_TEST

/* Row: record captures the stream's work at the time of the call; later
 * work in that stream does not delay the event. */
START_TEST(record_captures_at_call_time) {
  clsStream_t s;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e));
  atomic_int before = 0;
  CK_OK(clsLaunchHostFunc(s, hf_count, &before));
  CK_OK(clsEventRecord(e, s));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(poll_event(e, 20000));
  CK_ATOMIC_EQ(before, 1);
  /* Synchronize does not wait for the held gate either. */
  bg_call c;
  bg_start(&c, bg_event_sync, e);
  int returned = bg_wait_done(&c, 20000);
  if (!returned) gate_release(g);
  ck_assert_msg(returned, "clsEventSynchronize waited for later work");
  CK_OK(bg_join(&c));
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Row: re-record: query / synchronize / elapsed use only the newest
 * record (recorded on a busy stream, then on an idle one). */
START_TEST(rerecord_uses_newest) {
  clsStream_t busy, idle;
  clsEvent_t e, start;
  CK_OK(clsStreamCreateWithFlags(&busy, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&idle, clsStreamNonBlocking));
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventCreate(&start));
  gate *g = gate_new();
  gate_hold(g, busy);
  CK_OK(clsEventRecord(e, busy));
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_OK(clsEventRecord(start, idle));
  CK_OK(clsEventRecord(e, idle));
  CK_OK(poll_event(e, 20000));
  bg_call c;
  bg_start(&c, bg_event_sync, e);
  int returned = bg_wait_done(&c, 20000);
  if (!returned) gate_release(g);
  ck_assert_msg(returned, "clsEventSynchronize waited for an old record");
  CK_OK(bg_join(&c));
  float ms = -1.0f;
  if (elapsed_or_untimed(&ms, start, e))
    ck_assert_msg(ms >= 0.0f, "elapsed %f", (double)ms);
  /* And the other way: complete record replaced by a pending one. */
  CK_OK(clsEventRecord(e, busy));
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_CLS(clsEventElapsedTime(&ms, start, e), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsEventSynchronize(e));
  if (elapsed_or_untimed(&ms, start, e))
    ck_assert_msg(ms >= 0.0f, "elapsed %f", (double)ms);
  CK_OK(clsEventDestroy(e));
  CK_OK(clsEventDestroy(start));
  CK_OK(clsStreamDestroy(busy));
  CK_OK(clsStreamDestroy(idle));
}
END_TEST

/* Row: destroy an event whose work is pending -> Success at once; the
 * work still runs. */
START_TEST(destroy_pending) {
  arith a;
  arith_load(&a);
  int *buf = dev_ints(64);
  dev_set(buf, 0, 64);
  clsStream_t s;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  atomic_int after = 0;
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, buf, 4, 64));
  CK_OK(clsEventRecord(e, s));
  CK_OK(clsLaunchHostFunc(s, hf_count, &after));
  /* Returns while the gate holds the work. */
  bg_call c;
  bg_start(&c, bg_event_destroy, e);
  int returned = bg_wait_done(&c, 20000);
  if (!returned) gate_release(g);
  ck_assert_msg(returned, "clsEventDestroy waited for pending work");
  CK_OK(bg_join(&c));
  CK_CLS(clsEventQuery(e), clsErrorInvalidResourceHandle);
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_ATOMIC_EQ(after, 1);
  dev_expect(buf, 4, 64, "buf");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(buf));
  arith_unload(&a);
}
END_TEST

/* Row: record / query / synchronize / destroy with a NULL event ->
 * InvalidResourceHandle. */
START_TEST(null_event) {
  CK_CLS(clsEventRecord(NULL, NULL), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsEventQuery(NULL), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsEventSynchronize(NULL), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsEventDestroy(NULL), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_CLS(clsEventRecord(NULL, s), clsErrorInvalidResourceHandle);
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Destroyed, never-created and wrong-kind event handles. */
START_TEST(destroyed_event_handle) {
  clsEvent_t e, ok;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventCreate(&ok));
  CK_OK(clsEventRecord(ok, NULL));
  CK_OK(clsEventSynchronize(ok));
  CK_OK(clsEventDestroy(e));
  float ms;
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_CLS(clsEventDestroy(e), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventRecord(e, NULL), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventRecord(e, s), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventQuery(e), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventSynchronize(e), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, e, ok), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, ok, e), clsErrorInvalidResourceHandle);
  CK_CLS(clsStreamWaitEvent(s, e, 0), clsErrorInvalidResourceHandle);
  clsEvent_t junk = (clsEvent_t)(uintptr_t)0xfeedface0ull;
  CK_CLS(clsEventQuery(junk), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventRecord(junk, s), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventDestroy(junk), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventQuery((clsEvent_t)s), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventDestroy((clsEvent_t)s), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventQuery((clsEvent_t)clsStreamLegacy),
         clsErrorInvalidResourceHandle);
  CK_OK(clsStreamQuery(s));
  CK_OK(clsEventQuery(ok));
  CK_OK(clsEventDestroy(ok));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Row: record on a stream of another device -> InvalidResourceHandle. */
START_TEST(record_on_other_device_stream) {
  int da, db;
  if (!two_devices("record_on_other_device_stream", &da, &db)) return;
  CK_OK(clsSetDevice(da));
  clsEvent_t ea;
  clsStream_t sa;
  CK_OK(clsEventCreate(&ea));
  CK_OK(clsStreamCreate(&sa));
  CK_OK(clsSetDevice(db));
  clsStream_t sb;
  clsEvent_t eb;
  CK_OK(clsStreamCreate(&sb));
  CK_OK(clsEventCreate(&eb));
  CK_CLS(clsEventRecord(ea, sb), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsEventRecord(eb, sa), clsErrorInvalidResourceHandle);
  /* Same-device records still work, whatever the current device. */
  CK_OK(clsEventRecord(eb, sb));
  CK_OK(clsEventRecord(ea, sa));
  CK_OK(clsEventSynchronize(ea));
  CK_OK(clsEventSynchronize(eb));
  CK_OK(clsEventDestroy(ea));
  CK_OK(clsEventDestroy(eb));
  CK_OK(clsStreamDestroy(sa));
  CK_OK(clsStreamDestroy(sb));
}
END_TEST

/* Rows: elapsed time with an event never recorded or created with
 * DisableTiming -> InvalidResourceHandle; NULL ms -> InvalidValue. */
START_TEST(elapsed_invalid) {
  clsEvent_t a, b, never, nt;
  CK_OK(clsEventCreate(&a));
  CK_OK(clsEventCreate(&b));
  CK_OK(clsEventCreate(&never));
  CK_OK(clsEventCreateWithFlags(&nt, clsEventDisableTiming));
  CK_OK(clsEventRecord(a, NULL));
  CK_OK(clsEventRecord(b, NULL));
  CK_OK(clsEventRecord(nt, NULL));
  CK_OK(clsEventSynchronize(b));
  CK_OK(clsEventSynchronize(nt));
  float ms = 123.0f;
  CK_CLS(clsEventElapsedTime(&ms, a, never), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, never, b), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, never, never), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, a, nt), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, nt, b), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, nt, nt), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, NULL, b), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, a, NULL), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(NULL, a, b), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  if (elapsed_or_untimed(&ms, a, b))
    ck_assert_msg(ms >= 0.0f, "elapsed %f", (double)ms);
  /* BlockingSync events are timed. */
  clsEvent_t bs;
  CK_OK(clsEventCreateWithFlags(&bs, clsEventBlockingSync));
  CK_OK(clsEventRecord(bs, NULL));
  CK_OK(clsEventSynchronize(bs));
  elapsed_or_untimed(&ms, a, bs);
  CK_OK(clsEventDestroy(a));
  CK_OK(clsEventDestroy(b));
  CK_OK(clsEventDestroy(never));
  CK_OK(clsEventDestroy(nt));
  CK_OK(clsEventDestroy(bs));
}
END_TEST

/* Row: elapsed time with either event recorded but not complete ->
 * NotReady (never stored). */
START_TEST(elapsed_not_ready) {
  clsStream_t s;
  clsEvent_t done, pending;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&done));
  CK_OK(clsEventCreate(&pending));
  CK_OK(clsEventRecord(done, s));
  CK_OK(clsEventSynchronize(done));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(clsEventRecord(pending, s));
  float ms = 0.0f;
  CK_CLS(clsEventElapsedTime(&ms, done, pending), clsErrorNotReady);
  CK_CLS(clsEventElapsedTime(&ms, pending, done), clsErrorNotReady);
  CK_CLS(clsEventElapsedTime(&ms, pending, pending), clsErrorNotReady);
  CK_LAST(clsSuccess);
  gate_release(g);
  CK_OK(clsEventSynchronize(pending));
  if (elapsed_or_untimed(&ms, done, pending))
    ck_assert_msg(ms >= 0.0f, "elapsed %f", (double)ms);
  CK_OK(clsEventDestroy(done));
  CK_OK(clsEventDestroy(pending));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Rows: elapsed (e, e) -> 0.0; (later, earlier) -> minus the forward
 * value. */
START_TEST(elapsed_same_and_reverse) {
  arith a;
  arith_load(&a);
  unsigned *out;
  CK_OK(clsMalloc((void **)&out, 4096 * sizeof(unsigned)));
  clsStream_t s;
  clsEvent_t e1, e2;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e1));
  CK_OK(clsEventCreate(&e2));
  CK_OK(launch_spin(&a, s, out, 4096, 10)); /* warm-up (compilation) */
  CK_OK(clsEventRecord(e1, s));
  CK_OK(launch_spin(&a, s, out, 4096, 1000));
  CK_OK(clsEventRecord(e2, s));
  CK_OK(clsEventSynchronize(e2));
  float same = -1.0f, fwd = -1.0f, back = 1.0f;
  CK_OK(clsEventElapsedTime(&same, e1, e1));
  ck_assert_msg(same == 0.0f, "elapsed(e, e) = %g", (double)same);
  CK_OK(clsEventElapsedTime(&same, e2, e2));
  ck_assert_msg(same == 0.0f, "elapsed(e, e) = %g", (double)same);
  if (elapsed_or_untimed(&fwd, e1, e2)) {
    CK_OK(clsEventElapsedTime(&back, e2, e1));
    ck_assert_msg(fwd > 0.0f, "forward elapsed %g over a kernel", (double)fwd);
    ck_assert_msg(back == -fwd, "reverse %g, forward %g", (double)back,
                  (double)fwd);
  } else {
    CK_CLS(clsEventElapsedTime(&back, e2, e1), clsErrorNotSupported);
  }
  CK_OK(clsEventDestroy(e1));
  CK_OK(clsEventDestroy(e2));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(out));
  arith_unload(&a);
}
END_TEST

/* Row: elapsed time resolution.  The value is in milliseconds and covers
 * the interval between the completions: at least the time the host held
 * the stream between the two records, at most the host time around both
 * records.  Bounds only; no device work is timed. */
START_TEST(elapsed_units_and_resolution) {
  int d = 0;
  CK_OK(clsGetDevice(&d));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, d));
  if (!events_time_work()) {
    /* No timestamps at all: an error over real work, never 0.000. */
    clsEvent_t a, b;
    CK_OK(clsEventCreate(&a));
    CK_OK(clsEventCreate(&b));
    void *buf;
    CK_OK(clsMalloc(&buf, 1 << 20));
    CK_OK(clsEventRecord(a, NULL));
    CK_OK(clsMemsetAsync(buf, 1, 1 << 20, NULL)); /* real work between */
    CK_OK(clsEventRecord(b, NULL));
    CK_OK(clsEventSynchronize(b));
    float ms = -1.0f;
    CK_CLS(clsEventElapsedTime(&ms, a, b), clsErrorNotSupported);
    ck_assert_msg(ms == -1.0f, "elapsed %g written", (double)ms);
    CK_OK(clsEventElapsedTime(&ms, a, a));
    ck_assert_msg(ms == 0.0f, "elapsed(e, e) %g", (double)ms);
    CK_OK(clsEventDestroy(a));
    CK_OK(clsEventDestroy(b));
    CK_OK(clsFree(buf));
    return;
  }
  CK_OK(clsGetDeviceProperties(&p, d));
  ck_assert_msg(p.timerResolutionNs > 0.0 && p.timerResolutionNs <= 1000.0,
                "timerResolutionNs %g", p.timerResolutionNs);

  clsStream_t s;
  clsEvent_t e1, e2;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e1));
  CK_OK(clsEventCreate(&e2));
  CK_OK(clsStreamSynchronize(s));
  gate *g = gate_new();
  double outer0 = now_ms();
  CK_OK(clsEventRecord(e1, s));
  gate_hold(g, s);
  CK_OK(clsEventRecord(e2, s));
  ck_assert_int_eq(gate_wait_entered(g, 20000), 1);
  double held0 = now_ms();
  sleep_ms(120);
  double held1 = now_ms();
  gate_release(g);
  CK_OK(clsEventSynchronize(e2));
  double outer1 = now_ms();
  float ms = 0.0f;
  CK_OK(clsEventElapsedTime(&ms, e1, e2));
  ck_assert_msg((double)ms >= held1 - held0 - 1.0,
                "elapsed %.3f ms < %.3f ms the host held the stream",
                (double)ms, held1 - held0);
  ck_assert_msg((double)ms <= outer1 - outer0 + 1.0,
                "elapsed %.3f ms > %.3f ms around both records", (double)ms,
                outer1 - outer0);

  /* Two records around one host function: a positive value below the
   * interval the host saw (sub-millisecond values are representable). */
  atomic_int n = 0;
  double t0 = now_ms();
  CK_OK(clsEventRecord(e1, s));
  CK_OK(clsLaunchHostFunc(s, hf_count, &n));
  CK_OK(clsEventRecord(e2, s));
  CK_OK(clsEventSynchronize(e2));
  double t1 = now_ms();
  CK_OK(clsEventElapsedTime(&ms, e1, e2));
  ck_assert_msg(ms > 0.0f, "elapsed %g around a host function", (double)ms);
  /* No whole-millisecond rounding: at most the host's interval, plus one
   * tick of the device's timer. */
  ck_assert_msg((double)ms <= t1 - t0 + p.timerResolutionNs / 1e6 + 1e-3,
                "elapsed %.4f ms > host %.4f ms", (double)ms, t1 - t0);
  CK_ATOMIC_EQ(n, 1);
  CK_OK(clsEventDestroy(e1));
  CK_OK(clsEventDestroy(e2));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Issue 11, timed records: records on an idle stream, back to back (the
 * second stands on the first's marker), then one after a kernel.  Each
 * interval is at least 0, the kernel's is positive, and all lie within
 * the host's span around them, on every timing path (CTest reruns this
 * with CLSTREAM_TIMING_FALLBACK=1 and =gate). */
START_TEST(elapsed_idle_records_and_kernel) {
  if (!events_time_work()) return; /* elapsed_units_and_resolution */
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsDeviceSynchronize()); /* opens the device: the facts are known */
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  int host_clock = p.timerIsHostClock;
  printf("NOTE elapsed_idle_records_and_kernel: timer is a host clock: %d, "
         "timing fallback %d\n",
         host_clock, p.timingFallback);
  arith a;
  arith_load(&a);
  unsigned *out = NULL;
  CK_OK(clsMalloc((void **)&out, 64 * sizeof *out));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  clsEvent_t e[4];
  for (int i = 0; i < 4; ++i) CK_OK(clsEventCreate(&e[i]));
  for (int round = 0; round < 3; ++round) {
    CK_OK(clsStreamSynchronize(s));
    double t0 = now_ms();
    CK_OK(clsEventRecord(e[0], s));
    /* Where the profiling clock is the host's (PoCL), an idle stream's
     * record is complete at once, and so are the two after it. */
    if (host_clock) CK_OK(clsEventQuery(e[0]));
    CK_OK(clsEventRecord(e[1], s));
    CK_OK(clsEventRecord(e[2], s));
    if (host_clock) CK_OK(clsEventQuery(e[2]));
    /* A simulator runs each work-item in software: fewer iterations. */
    CK_OK(launch_spin(&a, s, out, 64, p.simulator ? 2000 : 200000));
    CK_OK(clsEventRecord(e[3], s));
    CK_OK(clsEventSynchronize(e[3]));
    double span = now_ms() - t0;
    float ms[3];
    for (int i = 0; i < 3; ++i) {
      CK_OK(clsEventElapsedTime(&ms[i], e[i], e[i + 1]));
      ck_assert_msg(ms[i] >= 0.0f && (double)ms[i] <= span + 1e-3,
                    "round %d: elapsed(e%d, e%d) %.4f ms, host span %.4f ms",
                    round, i, i + 1, (double)ms[i], span);
    }
    ck_assert_msg(ms[2] > 0.0f, "round %d: the kernel took %g ms", round,
                  (double)ms[2]);
    float all = 0.0f;
    CK_OK(clsEventElapsedTime(&all, e[0], e[3]));
    ck_assert_msg((double)all <= span + 1e-3 && all >= ms[2],
                  "round %d: elapsed(e0, e3) %.4f ms (kernel %.4f, span "
                  "%.4f)",
                  round, (double)all, (double)ms[2], span);
  }
  for (int i = 0; i < 4; ++i) CK_OK(clsEventDestroy(e[i]));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(out));
  arith_unload(&a);
}
END_TEST

/* Row: BlockingSync event: synchronize sleeps instead of spinning.  The
 * waiting thread's CPU time over a ~300 ms hold (released by this thread)
 * must stay below half of the wall time. */
START_TEST(blocking_sync_sleeps) {
  clsStream_t s;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreateWithFlags(&e, clsEventBlockingSync));
  gate *g = gate_new();
  atomic_int after = 0;
  gate_hold(g, s);
  CK_OK(clsLaunchHostFunc(s, hf_count, &after));
  CK_OK(clsEventRecord(e, s));
  ck_assert_int_eq(gate_wait_entered(g, 20000), 1);
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, bg_event_sync, e, g, 300,
                                     "clsEventSynchronize (BlockingSync)"));
  CK_ATOMIC_EQ(after, 1);
  ck_assert_msg(c.wall_ms >= 250.0, "waited only %.1f ms", c.wall_ms);
  ck_assert_msg(c.cpu_ms < c.wall_ms / 2,
                "BlockingSync wait used %.1f ms CPU in %.1f ms", c.cpu_ms,
                c.wall_ms);
  /* On a loaded machine a spinning waiter gets only a share of a CPU:
   * compare with what a spinning thread gets here and now. */
  double share = spin_share(200);
  if (share > 0.05)
    ck_assert_msg(c.cpu_ms < share * c.wall_ms / 4,
                  "BlockingSync wait used %.1f ms CPU in %.1f ms; a spinning "
                  "thread gets %.0f%% of a CPU here",
                  c.cpu_ms, c.wall_ms, share * 100);
  CK_OK(clsEventQuery(e));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Synchronize of a default event also blocks until the work is done. */
START_TEST(synchronize_blocks_until_done) {
  clsStream_t s;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  atomic_int after = 0;
  gate_hold(g, s);
  CK_OK(clsLaunchHostFunc(s, hf_count, &after));
  CK_OK(clsEventRecord(e, s));
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, bg_event_sync, e, g, 150,
                                     "clsEventSynchronize"));
  CK_ATOMIC_EQ(after, 1);
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Records on the default streams. */
START_TEST(record_on_default_streams) {
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, NULL));
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventRecord(e, clsStreamLegacy));
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventRecord(e, clsStreamPerThread));
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventQuery(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* An event recorded on a stream that is then destroyed still completes
 * when the stream's work does. */
START_TEST(record_then_destroy_stream) {
  clsStream_t s;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  atomic_int after = 0;
  gate_hold(g, s);
  CK_OK(clsLaunchHostFunc(s, hf_count, &after));
  CK_OK(clsEventRecord(e, s));
  CK_OK(clsStreamDestroy(s));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsEventSynchronize(e));
  CK_ATOMIC_EQ(after, 1);
  CK_OK(clsEventQuery(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Many events at once, then all destroyed: handles stay valid and
 * distinct, and destroyed ones are rejected. */
START_TEST(event_churn) {
  enum { N = 3000 };
  clsEvent_t *e = malloc(N * sizeof *e);
  for (int i = 0; i < N; ++i)
    CK_OK(clsEventCreateWithFlags(&e[i], i % 2 ? clsEventDisableTiming : 0));
  for (int i = 0; i < N; i += 97) CK_OK(clsEventRecord(e[i], NULL));
  CK_OK(clsStreamSynchronize(NULL));
  for (int i = 0; i < N; ++i) CK_OK(clsEventQuery(e[i]));
  for (int i = 0; i < N; ++i) CK_OK(clsEventDestroy(e[i]));
  for (int i = 0; i < N; i += 13)
    CK_CLS(clsEventQuery(e[i]), clsErrorInvalidResourceHandle);
  clsEvent_t again;
  CK_OK(clsEventCreate(&again));
  for (int i = 0; i < N; ++i) ck_assert_ptr_ne(again, e[i]);
  CK_OK(clsEventDestroy(again));
  free(e);
}
END_TEST

/* ---- One owner of event state: "never recorded", "recorded and complete
 * at once" and "recorded, pending" stay distinct in every call. -------- */

/* An untimed record on an idle stream is complete at record time (the
 * backend captures nothing): query and synchronize succeed at once, an
 * elapsed time is InvalidResourceHandle for the DisableTiming flag (not
 * "never recorded"), a stream wait has no effect; a re-record of the same
 * event behind a gate is pending again and held streams wait for it. */
START_TEST(untimed_idle_record) {
  clsStream_t s, w;
  clsEvent_t nt, t;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&w, clsStreamNonBlocking));
  CK_OK(clsEventCreateWithFlags(&nt, clsEventDisableTiming));
  CK_OK(clsEventCreate(&t));
  CK_OK(clsEventRecord(t, s));
  CK_OK(clsEventSynchronize(t));
  CK_OK(clsEventRecord(nt, s)); /* s is idle */
  CK_OK(clsEventQuery(nt));
  CK_OK(clsEventSynchronize(nt));
  float ms = 123.0f;
  CK_CLS(clsEventElapsedTime(&ms, nt, t), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, t, nt), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, nt, nt), clsErrorInvalidResourceHandle);
  ck_assert_msg(ms == 123.0f, "elapsed time written on failure");
  /* A wait for it holds nothing back. */
  atomic_int ran = 0;
  CK_OK(clsStreamWaitEvent(w, nt, 0));
  CK_OK(clsLaunchHostFunc(w, hf_count, &ran));
  CK_OK(poll_stream(w, 20000));
  CK_ATOMIC_EQ(ran, 1);
  /* Re-recorded behind a gate: pending, and a wait for it holds w. */
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(clsEventRecord(nt, s));
  CK_CLS(clsEventQuery(nt), clsErrorNotReady);
  CK_OK(clsStreamWaitEvent(w, nt, 0));
  CK_OK(clsLaunchHostFunc(w, hf_count, &ran));
  sleep_ms(SETTLE_MS);
  CK_ATOMIC_EQ(ran, 1);
  CK_CLS(clsStreamQuery(w), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(w));
  CK_ATOMIC_EQ(ran, 2);
  CK_OK(clsEventQuery(nt));
  CK_OK(clsEventDestroy(nt));
  CK_OK(clsEventDestroy(t));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(w));
}
END_TEST

/* Never recorded against recorded and complete, side by side in query,
 * synchronize, elapsed time and stream waits, with the device busy. */
START_TEST(never_vs_recorded_complete) {
  clsStream_t s, busy, w;
  clsEvent_t never, done;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&busy, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&w, clsStreamNonBlocking));
  CK_OK(clsEventCreate(&never));
  CK_OK(clsEventCreate(&done));
  atomic_int before = 0;
  CK_OK(clsLaunchHostFunc(s, hf_count, &before));
  CK_OK(clsEventRecord(done, s));
  CK_OK(clsEventSynchronize(done));
  CK_ATOMIC_EQ(before, 1);
  void *buf = NULL;
  CK_OK(clsMalloc(&buf, 64));
  gate *g = gate_new();
  gate_hold(g, busy);
  clsEvent_t both[] = {never, done};
  for (int i = 0; i < 2; ++i) {
    CK_OK(clsEventQuery(both[i]));
    CK_OK(clsEventSynchronize(both[i]));
    /* Device work behind the wait, not a host function: CUDA runs every
     * host function on one thread, which the gate on `busy` holds (seen
     * on the H200's CUDA build). */
    CK_OK(clsStreamWaitEvent(w, both[i], 0));
    CK_OK(clsMemsetAsync(buf, i + 1, 64, w));
    CK_OK(poll_stream(w, 20000));
  }
  float ms = 5.0f;
  CK_CLS(clsEventElapsedTime(&ms, never, done), clsErrorInvalidResourceHandle);
  CK_CLS(clsEventElapsedTime(&ms, done, never), clsErrorInvalidResourceHandle);
  ck_assert_msg(ms == 5.0f, "elapsed time written on failure");
  /* (e, e) is 0 on every device, one without usable timestamps
   * (rusticl) included. */
  CK_OK(clsEventElapsedTime(&ms, done, done));
  ck_assert_msg(ms == 0.0f, "elapsed (e, e) %f", (double)ms);
  /* Recorded and pending is neither. */
  CK_OK(clsEventRecord(done, busy));
  CK_CLS(clsEventQuery(done), clsErrorNotReady);
  CK_CLS(clsEventElapsedTime(&ms, done, done), clsErrorNotReady);
  CK_OK(clsEventQuery(never));
  gate_release(g);
  CK_OK(clsEventSynchronize(done));
  CK_OK(clsEventQuery(done));
  CK_OK(clsEventDestroy(never));
  CK_OK(clsEventDestroy(done));
  CK_OK(clsFree(buf));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(busy));
  CK_OK(clsStreamDestroy(w));
}
END_TEST

/* A synchronize waiting on an older record returns once that record is
 * done; the event, re-recorded meanwhile behind a second gate, must stay
 * not ready: the old record's completion must not mark the newer one done.
 * Likewise a stream synchronize that returns must not mark work enqueued
 * after it began as done.  (If the background call starts only after the
 * re-record, it waits for the newer record and the checks still hold.) */
START_TEST(stale_completion_after_rerecord) {
  const unsigned flags[] = {clsEventDefault, clsEventDisableTiming,
                            clsEventBlockingSync};
  for (unsigned f = 0; f < sizeof flags / sizeof flags[0]; ++f) {
    clsStream_t s1, s2;
    clsEvent_t e;
    CK_OK(clsStreamCreateWithFlags(&s1, clsStreamNonBlocking));
    CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
    CK_OK(clsEventCreateWithFlags(&e, flags[f]));
    gate *g1 = gate_new(), *g2 = gate_new();
    gate_hold(g1, s1);
    CK_OK(clsEventRecord(e, s1));
    bg_call c;
    bg_start(&c, bg_event_sync, e);
    sleep_ms(SETTLE_MS); /* let it wait on the first record */
    gate_hold(g2, s2);
    CK_OK(clsEventRecord(e, s2));
    gate_release(g1);
    int returned = bg_wait_done(&c, 2000);
    CK_CLS(clsEventQuery(e), clsErrorNotReady);
    CK_CLS(clsEventQuery(e), clsErrorNotReady);
    /* Another synchronize waits for the newer record. */
    bg_call c2;
    bg_start(&c2, bg_event_sync, e);
    int early = bg_wait_done(&c2, SETTLE_MS);
    gate_release(g2);
    ck_assert_msg(!early,
                  "synchronize returned before the newer record "
                  "(flags 0x%x)",
                  flags[f]);
    CK_OK(bg_join(&c2));
    if (!returned) ck_assert(bg_wait_done(&c, 20000));
    CK_OK(bg_join(&c));
    CK_OK(clsEventQuery(e));
    CK_OK(clsEventDestroy(e));
    CK_OK(clsStreamDestroy(s1));
    CK_OK(clsStreamDestroy(s2));
  }
  /* The stream's own position: a synchronize that saw its command
   * complete must not mark later work done. */
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  gate *g1 = gate_new(), *g2 = gate_new();
  gate_hold(g1, s);
  bg_call c;
  bg_start(&c, bg_stream_sync, s);
  sleep_ms(SETTLE_MS);
  gate_hold(g2, s);
  gate_release(g1);
  ck_assert(gate_wait_finished(g1, 20000));
  int returned = bg_wait_done(&c, 2000);
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g2);
  if (!returned) ck_assert(bg_wait_done(&c, 20000));
  CK_OK(bg_join(&c));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamQuery(s));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

int main(void) {
  Suite *s = suite_create("event");
  TCase *tc = tcase_timed("event", 60);
  TCase *tc_gate = tcase_tagged(s, "event_gate", 60, "gate");
  TCase *tc_gate_threads =
      tcase_tagged(s, "event_gate_threads", 60, "gate threads");
  tcase_add_test(tc, create_valid_flags);
  tcase_add_test(tc, create_invalid_flags);
  tcase_add_test(tc, create_interprocess_disable_timing);
  tcase_add_test(tc_gate_threads, never_recorded);
  tcase_add_test(tc_gate, query_pending_then_complete);
  tcase_add_test(tc_gate_threads, record_captures_at_call_time);
  tcase_add_test(tc_gate_threads, rerecord_uses_newest);
  tcase_add_test(tc_gate_threads, destroy_pending);
  tcase_add_test(tc, null_event);
  tcase_add_test(tc, destroyed_event_handle);
  tcase_add_test(tc, record_on_other_device_stream);
  tcase_add_test(tc, elapsed_invalid);
  tcase_add_test(tc_gate, elapsed_not_ready);
  tcase_add_test(tc, elapsed_same_and_reverse);
  tcase_add_test(tc_gate, elapsed_units_and_resolution);
  tcase_add_test(tc, elapsed_idle_records_and_kernel);
  tcase_add_test(tc_gate_threads, blocking_sync_sleeps);
  tcase_add_test(tc_gate_threads, synchronize_blocks_until_done);
  tcase_add_test(tc, record_on_default_streams);
  tcase_add_test(tc_gate, record_then_destroy_stream);
  tcase_add_test(tc, event_churn);
  tcase_add_test(tc_gate, untimed_idle_record);
  tcase_add_test(tc_gate, never_vs_recorded_complete);
  tcase_add_test(tc_gate_threads, stale_completion_after_rerecord);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
