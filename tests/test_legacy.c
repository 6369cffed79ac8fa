/* The legacy default stream (NULL, clsStreamLegacy) and the per-thread
 * default stream (clsStreamPerThread): implicit synchronization. */
#include "support.h"

#include <stdio.h>
#include <string.h>

/* Row: work or an event record on the legacy stream first waits for all
 * earlier work in every blocking stream of the device (record e on 0 ->
 * NotReady; StreamQuery(0) -> NotReady). */
START_TEST(legacy_record_waits_for_blocking_streams) {
  clsStream_t s1, s2;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamDefault));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  gate *g1 = gate_new(), *g2 = gate_new();
  gate_hold(g1, s1);
  gate_hold(g2, s2);
  CK_OK(clsEventRecord(e, NULL));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  CK_CLS(clsStreamQuery(clsStreamLegacy), clsErrorNotReady);
  gate_release(g1);
  CK_OK(clsStreamSynchronize(s1));
  sleep_ms(SETTLE_MS);
  /* Still waiting for the other blocking stream. */
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  gate_release(g2);
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsStreamQuery(NULL));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
}
END_TEST

/* Same row, with data: a kernel on the legacy stream runs after a held
 * kernel of a blocking stream (the last writer wins). */
START_TEST(legacy_kernel_after_blocking_kernel) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(512);
  dev_set(d, 0, 512);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, d, 1, 512));
  CK_OK(launch_fill(&a, NULL, d, 2, 512));
  CK_OK(launch_fill(&a, clsStreamLegacy, d + 256, 3, 256));
  sleep_ms(SETTLE_MS);
  gate_release(g);
  CK_OK(clsStreamSynchronize(NULL));
  int h[512];
  dev_get(h, d, 512);
  for (int i = 0; i < 512; ++i)
    ck_assert_msg(h[i] == (i < 256 ? 2 : 3), "h[%d] = %d", i, h[i]);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: later work on a blocking stream waits for earlier work on the
 * legacy stream. */
START_TEST(blocking_stream_waits_for_legacy) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(512);
  dev_set(d, 0, 512);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  gate_hold(g, NULL);
  CK_OK(launch_fill(&a, NULL, d, 1, 512));
  CK_OK(launch_fill(&a, s, d, 2, 512));
  CK_OK(clsEventRecord(e, s));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsEventSynchronize(e));
  dev_expect(d, 2, 512, "d");
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Only work issued earlier counts: a blocking stream's work issued after
 * the legacy record does not delay it. */
START_TEST(legacy_ignores_later_blocking_work) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, NULL));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(poll_event(e, 20000));
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Row: NonBlocking streams are exempt, both ways (s busy, record e3 on
 * non-blocking nb: query e3 -> Success). */
START_TEST(nonblocking_exempt_both_ways) {
  clsStream_t s, nb;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamCreateWithFlags(&nb, clsStreamNonBlocking));
  clsEvent_t e0, e3;
  CK_OK(clsEventCreate(&e0));
  CK_OK(clsEventCreate(&e3));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(clsEventRecord(e0, NULL)); /* legacy: waits for s */
  CK_OK(clsEventRecord(e3, nb));   /* non-blocking: does not */
  CK_OK(poll_event(e3, 20000));
  CK_CLS(clsEventQuery(e0), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsEventSynchronize(e0));

  /* A held non-blocking stream does not delay the legacy stream. */
  gate *g2 = gate_new();
  gate_hold(g2, nb);
  CK_OK(clsEventRecord(e0, NULL));
  clsError_t r = poll_event(e0, 20000);
  gate_release(g2);
  ck_assert_msg(r == clsSuccess,
                "legacy record waited for a non-blocking "
                "stream: %s",
                clsGetErrorName(r));

  /* A held legacy stream does not delay a non-blocking stream. */
  gate *g3 = gate_new();
  gate_hold(g3, NULL);
  CK_OK(clsEventRecord(e3, nb));
  r = poll_event(e3, 20000);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  gate_release(g3);
  ck_assert_msg(r == clsSuccess,
                "non-blocking stream waited for the legacy "
                "stream: %s",
                clsGetErrorName(r));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventDestroy(e0));
  CK_OK(clsEventDestroy(e3));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(nb));
}
END_TEST

/* Blocking streams do not synchronize with each other (only through the
 * legacy stream). */
START_TEST(blocking_streams_independent) {
  clsStream_t s1, s2;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreate(&s2));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  gate_hold(g, s1);
  CK_OK(clsEventRecord(e, s2));
  clsError_t r = poll_event(e, 20000);
  gate_release(g);
  ck_assert_msg(r == clsSuccess,
                "blocking stream waited for another "
                "blocking stream: %s",
                clsGetErrorName(r));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
}
END_TEST

/* A blocking stream destroyed with pending work still holds back the
 * legacy stream until that work is done. */
START_TEST(legacy_waits_for_destroyed_blocking_stream) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsEventRecord(e, NULL));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Row: clsStreamPerThread does not synchronize with other created
 * streams. */
START_TEST(per_thread_ignores_created_streams) {
  clsStream_t s, nb;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamCreateWithFlags(&nb, clsStreamNonBlocking));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new(), *g2 = gate_new();
  gate_hold(g, s);
  gate_hold(g2, nb);
  CK_OK(clsEventRecord(e, clsStreamPerThread));
  clsError_t r = poll_event(e, 20000);
  /* And the other way: the created stream does not wait for it. */
  gate *g3 = gate_new();
  gate_hold(g3, clsStreamPerThread);
  clsStream_t s3;
  clsEvent_t e3;
  CK_OK(clsStreamCreate(&s3));
  CK_OK(clsEventCreate(&e3));
  CK_OK(clsEventRecord(e3, s3));
  clsError_t r3 = poll_event(e3, 20000);
  gate_release(g);
  gate_release(g2);
  gate_release(g3);
  ck_assert_msg(r == clsSuccess,
                "per-thread stream waited for a created "
                "stream: %s",
                clsGetErrorName(r));
  ck_assert_msg(r3 == clsSuccess,
                "created stream waited for the per-thread "
                "stream: %s",
                clsGetErrorName(r3));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventDestroy(e));
  CK_OK(clsEventDestroy(e3));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(s3));
  CK_OK(clsStreamDestroy(nb));
}
END_TEST

/* Row: clsStreamPerThread synchronizes with the legacy stream (both
 * ways). */
START_TEST(per_thread_syncs_with_legacy) {
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  gate_hold(g, NULL);
  CK_OK(clsEventRecord(e, clsStreamPerThread));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_CLS(clsStreamQuery(clsStreamPerThread), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsStreamQuery(clsStreamPerThread));

  gate *g2 = gate_new();
  gate_hold(g2, clsStreamPerThread);
  CK_OK(clsEventRecord(e, NULL));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  gate_release(g2);
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Row: one implicit stream per host thread. */
typedef struct pt_arg {
  gate *hold;             /* if set: hold this thread's per-thread stream */
  atomic_int held;        /* the hold is in place */
  atomic_int go;          /* may finish */
  clsError_t query_other; /* result of polling a record on its stream */
  clsError_t rc;
} pt_arg;

static void *per_thread_holder(void *p) {
  pt_arg *a = p;
  a->rc = gate_try_hold(a->hold, clsStreamPerThread);
  atomic_store(&a->held, 1);
  wait_atomic_ge(&a->go, 1, 30000);
  return NULL;
}

/* Starts a thread that holds its per-thread stream with a new gate
 * (h->hold); returns once the hold is in place. */
static pthread_t per_thread_hold(pt_arg *h) {
  memset(h, 0, sizeof *h);
  h->hold = gate_new();
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, per_thread_holder, h), 0);
  ck_assert_int_eq(wait_atomic_ge(&h->held, 1, 20000), 1);
  ck_assert_int_eq(h->rc, clsSuccess);
  return th;
}

/* Releases the hold and joins the thread. */
static void per_thread_release(pt_arg *h, pthread_t th) {
  gate_release(h->hold);
  atomic_store(&h->go, 1);
  pthread_join(th, NULL);
}

static void *per_thread_recorder(void *p) {
  pt_arg *a = p;
  clsEvent_t e;
  a->rc = clsEventCreate(&e);
  if (a->rc != clsSuccess) return NULL;
  a->rc = clsEventRecord(e, clsStreamPerThread);
  if (a->rc == clsSuccess) a->query_other = poll_event(e, 20000);
  clsEventDestroy(e);
  return NULL;
}

START_TEST(per_thread_stream_per_thread) {
  pt_arg h;
  pthread_t th = per_thread_hold(&h);

  /* This thread's per-thread stream is a different stream. */
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, clsStreamPerThread));
  clsError_t mine = poll_event(e, 20000);
  /* And a third thread's too. */
  pt_arg r;
  memset(&r, 0, sizeof r);
  r.query_other = clsErrorUnknown;
  pthread_t th2;
  ck_assert_int_eq(pthread_create(&th2, NULL, per_thread_recorder, &r), 0);
  pthread_join(th2, NULL);

  per_thread_release(&h, th);
  ck_assert_msg(mine == clsSuccess,
                "per-thread streams of two threads are "
                "the same: %s",
                clsGetErrorName(mine));
  ck_assert_int_eq(r.rc, clsSuccess);
  ck_assert_msg(r.query_other == clsSuccess,
                "another thread's per-thread stream was held: %s",
                clsGetErrorName(r.query_other));
  CK_OK(clsDeviceSynchronize());
  ck_assert_int_eq(gate_runs(h.hold), 1);
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* A held per-thread stream of another thread holds back this thread's
 * legacy work (it is a blocking stream). */
START_TEST(legacy_waits_for_other_threads_per_thread_stream) {
  pt_arg h;
  pthread_t th = per_thread_hold(&h);
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, NULL));
  sleep_ms(SETTLE_MS);
  clsError_t q = clsEventQuery(e);
  per_thread_release(&h, th);
  ck_assert_msg(q == clsErrorNotReady, "legacy record did not wait: %s",
                clsGetErrorName(q));
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Row: each device has its own legacy stream. */
START_TEST(legacy_stream_per_device) {
  int da, db;
  if (!two_devices("legacy_stream_per_device", &da, &db)) return;
  CK_OK(clsSetDevice(da));
  gate *g = gate_new();
  gate_hold(g, NULL); /* device a's legacy stream */
  clsStream_t sa;
  CK_OK(clsStreamCreate(&sa));
  gate *g2 = gate_new();
  gate_hold(g2, sa); /* and a blocking stream of device a */
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);

  CK_OK(clsSetDevice(db));
  clsEvent_t eb;
  CK_OK(clsEventCreate(&eb));
  CK_OK(clsStreamQuery(NULL)); /* device b's legacy stream is idle */
  CK_OK(clsEventRecord(eb, NULL));
  clsError_t r = poll_event(eb, 20000);
  /* Device b's blocking stream is not held back by device a's legacy. */
  clsStream_t sb;
  clsEvent_t eb2;
  CK_OK(clsStreamCreate(&sb));
  CK_OK(clsEventCreate(&eb2));
  CK_OK(clsEventRecord(eb2, sb));
  clsError_t r2 = poll_event(eb2, 20000);
  gate_release(g);
  gate_release(g2);
  ck_assert_msg(r == clsSuccess,
                "device b's legacy stream waited for device "
                "a: %s",
                clsGetErrorName(r));
  ck_assert_msg(r2 == clsSuccess,
                "device b's stream waited for device a's "
                "legacy stream: %s",
                clsGetErrorName(r2));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventDestroy(eb));
  CK_OK(clsEventDestroy(eb2));
  CK_OK(clsStreamDestroy(sb));
  CK_OK(clsSetDevice(da));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsStreamQuery(NULL));
  CK_OK(clsStreamDestroy(sa));
}
END_TEST

/* NULL and clsStreamLegacy are the same stream. */
START_TEST(null_is_legacy) {
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  gate *g = gate_new();
  gate_hold(g, NULL);
  CK_OK(clsEventRecord(e, clsStreamLegacy));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_CLS(clsStreamQuery(clsStreamLegacy), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(clsStreamLegacy));
  CK_OK(clsEventQuery(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Work left on a thread's per-thread stream when the thread exits still
 * runs, and the legacy stream still waits for it. */
typedef struct pt_exit {
  gate *g;
  atomic_int *after;
  clsError_t rc1, rc2;
} pt_exit;

static void *per_thread_exit_worker(void *p) {
  pt_exit *x = p;
  x->rc1 = gate_try_hold(x->g, clsStreamPerThread);
  x->rc2 = clsLaunchHostFunc(clsStreamPerThread, hf_count, x->after);
  return NULL;
}

START_TEST(per_thread_work_survives_thread_exit) {
  atomic_int after = 0;
  pt_exit x = {gate_new(), &after, clsErrorUnknown, clsErrorUnknown};
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, per_thread_exit_worker, &x), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(x.rc1, clsSuccess);
  ck_assert_int_eq(x.rc2, clsSuccess);
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, NULL));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_ATOMIC_EQ(after, 0);
  gate_release(x.g);
  CK_OK(clsEventSynchronize(e));
  CK_ATOMIC_EQ(after, 1);
  CK_OK(clsDeviceSynchronize());
  ck_assert_int_eq(gate_runs(x.g), 1);
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Row: clsStreamQuery(NULL) with no legacy work of its own but a blocking
 * stream busy -> NotReady: the legacy stream's state includes the blocking
 * streams' work that it would wait for (as HIP's own stream tests check).
 * A busy non-blocking stream does not count. */
START_TEST(legacy_query_includes_blocking_streams) {
  /* One gate at a time: CUDA runs all host functions on one thread. */
  clsStream_t s, nb;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamCreateWithFlags(&nb, clsStreamNonBlocking));
  CK_OK(clsStreamQuery(NULL));
  gate *gn = gate_new();
  gate_hold(gn, nb);
  CK_OK(clsStreamQuery(NULL)); /* a non-blocking stream is exempt */
  CK_OK(clsStreamQuery(clsStreamLegacy));
  gate_release(gn);
  CK_OK(clsStreamSynchronize(nb));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  CK_CLS(clsStreamQuery(clsStreamLegacy), clsErrorNotReady);
  CK_LAST(clsSuccess); /* NotReady is not stored */
  /* The per-thread stream's own state does not include them. */
  CK_OK(clsStreamQuery(clsStreamPerThread));
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamQuery(NULL));
  /* A pending clsStreamWaitEvent of a blocking stream is its work too. */
  clsEvent_t e;
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  gate *gw = gate_new();
  gate_hold(gw, nb);
  CK_OK(clsEventRecord(e, nb)); /* held by gw */
  CK_OK(clsStreamWaitEvent(s, e, 0));
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  gate_release(gw);
  CK_OK(poll_stream(NULL, 20000));
  CK_OK(clsStreamQuery(s));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(nb));
}
END_TEST

/* Row: clsStreamSynchronize(NULL) with no legacy work but a blocking
 * stream busy blocks until that work is done; with only a non-blocking
 * stream busy it returns. */
START_TEST(legacy_sync_waits_for_blocking_streams) {
  clsStream_t s, nb;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamCreateWithFlags(&nb, clsStreamNonBlocking));
  for (int k = 0; k < 2; ++k) {
    gate *g = gate_new();
    gate_hold(g, s);
    bg_call c;
    CK_OK(expect_blocked_until_release(&c, bg_stream_sync,
                                       k ? clsStreamLegacy : NULL, g, SETTLE_MS,
                                       "clsStreamSynchronize(legacy)"));
    CK_OK(clsStreamQuery(s));
    /* Nothing busy now: this query drops s from the device's busy list
     * and clears the flag that lets a legacy synchronize skip the list,
     * so the next round's work must set it again. */
    CK_OK(clsStreamQuery(NULL));
  }
  /* A destroyed blocking stream's pending work counts too. */
  clsStream_t t;
  CK_OK(clsStreamCreate(&t));
  gate *gt = gate_new();
  gate_hold(gt, t);
  CK_OK(clsStreamDestroy(t));
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, bg_stream_sync, NULL, gt, SETTLE_MS,
                                     "clsStreamSynchronize(NULL) (a "
                                     "destroyed blocking stream)"));
  gate *gn = gate_new();
  gate_hold(gn, nb);
  clsError_t r =
      bg_call_within(bg_stream_sync, NULL, 20000, "clsStreamSynchronize(NULL)");
  gate_release(gn);
  CK_OK(r);
  CK_OK(clsStreamSynchronize(nb));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(nb));
}
END_TEST

/* Row: clsStreamSynchronize(clsStreamPerThread) with the per-thread stream
 * idle and a blocking stream busy returns at once. */
START_TEST(per_thread_sync_ignores_blocking_streams) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  clsError_t r = bg_call_within(bg_stream_sync, clsStreamPerThread, 20000,
                                "clsStreamSynchronize(clsStreamPerThread)");
  CK_OK(clsStreamSynchronize(clsStreamPerThread));
  CK_OK(clsStreamQuery(clsStreamPerThread));
  gate_release(g);
  CK_OK(r);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

int main(void) {
  Suite *s = suite_create("legacy");
  TCase *tc = tcase_timed("legacy", 60);
  TCase *tc_gate = tcase_tagged(s, "legacy_gate", 60, "gate");
  TCase *tc_gate_threads =
      tcase_tagged(s, "legacy_gate_threads", 60, "gate threads");
  tcase_add_test(tc_gate, legacy_record_waits_for_blocking_streams);
  tcase_add_test(tc_gate, legacy_kernel_after_blocking_kernel);
  tcase_add_test(tc_gate, blocking_stream_waits_for_legacy);
  tcase_add_test(tc_gate, legacy_ignores_later_blocking_work);
  tcase_add_test(tc_gate, nonblocking_exempt_both_ways);
  tcase_add_test(tc_gate, blocking_streams_independent);
  tcase_add_test(tc_gate, legacy_waits_for_destroyed_blocking_stream);
  tcase_add_test(tc_gate, per_thread_ignores_created_streams);
  tcase_add_test(tc_gate, per_thread_syncs_with_legacy);
  tcase_add_test(tc_gate_threads, per_thread_stream_per_thread);
  tcase_add_test(tc_gate_threads,
                 legacy_waits_for_other_threads_per_thread_stream);
  tcase_add_test(tc_gate, legacy_stream_per_device);
  tcase_add_test(tc_gate, null_is_legacy);
  tcase_add_test(tc_gate_threads, per_thread_work_survives_thread_exit);
  tcase_add_test(tc_gate, legacy_query_includes_blocking_streams);
  tcase_add_test(tc_gate_threads, legacy_sync_waits_for_blocking_streams);
  tcase_add_test(tc_gate_threads, per_thread_sync_ignores_blocking_streams);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
