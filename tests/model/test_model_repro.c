/*
 * Deterministic repros of what clstream-model found (tests/model/model.c),
 * kept as regression tests.
 */
#include "support.h"

#include <stdlib.h>

/* Seeds 374, 440, 684 (and ~1 in 200 seeds): clsStreamSynchronize(s) on a
 * blocking stream whose newest operation is a clsStreamWaitEvent that no
 * command has consumed yet also waited for legacy-stream work issued AFTER
 * the wait.  CUDA (13.0, H200, measured): s completes once the event's work
 * is done, while the later legacy work is still held.  clstream turned the
 * pending wait into a marker at synchronize time, and that marker gathered the
 * legacy stream's current tail. */
START_TEST(sync_after_pending_wait_ignores_later_legacy_work) {
  clsStream_t s, t;
  clsEvent_t e, x;
  CK_OK(clsStreamCreate(&s)); /* blocking */
  CK_OK(clsStreamCreateWithFlags(&t, clsStreamNonBlocking));
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  CK_OK(clsEventCreateWithFlags(&x, clsEventDisableTiming));
  gate *a = gate_new(), *b = gate_new();
  gate_hold(a, t);
  CK_OK(clsEventRecord(e, t));        /* held by gate a */
  CK_OK(clsStreamWaitEvent(s, e, 0)); /* s's newest operation */
  gate_hold(b, clsStreamPerThread);   /* a blocking stream, held */
  CK_OK(clsEventRecord(x, NULL));     /* legacy: waits for gate b */
  CK_CLS(clsEventQuery(x), clsErrorNotReady);
  gate_release(a);
  CK_OK(bg_call_within(bg_stream_sync, s, 5000, "clsStreamSynchronize(s)"));
  CK_CLS(clsEventQuery(x), clsErrorNotReady); /* b still holds it */
  gate_release(b);
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventQuery(x));
}
END_TEST

/* CUDA 13.0 on an H200: legacy-stream work waits for a blocking stream's
 * pending cudaStreamWaitEvent (a record on stream 0 after s waits on a
 * held event stays NotReady).  clstream's legacy stream gathered only each
 * blocking stream's newest command, not its unconsumed waits.  Found by
 * clstream-model (many seeds; it now models the measured rule). */
START_TEST(legacy_waits_for_pending_wait_of_blocking_stream) {
  clsStream_t s, t;
  clsEvent_t e, x;
  CK_OK(clsStreamCreate(&s)); /* blocking */
  CK_OK(clsStreamCreateWithFlags(&t, clsStreamNonBlocking));
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  CK_OK(clsEventCreateWithFlags(&x, clsEventDisableTiming));
  gate *a = gate_new();
  gate_hold(a, t);
  CK_OK(clsEventRecord(e, t));
  CK_OK(clsStreamWaitEvent(s, e, 0));
  CK_OK(clsEventRecord(x, NULL));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(x), clsErrorNotReady);
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(a);
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventQuery(x));
}
END_TEST

/* CUDA 13.0 on an H200: a cudaStreamWaitEvent issued on the legacy stream
 * is legacy work: it waits for the blocking streams (cudaStreamQuery(0)
 * NotReady while a blocking stream is held, even for a completed event).
 * clstream kept the wait pending and answered clsSuccess. */
START_TEST(wait_on_legacy_stream_waits_for_blocking_streams) {
  clsStream_t b, idle;
  clsEvent_t done;
  CK_OK(clsStreamCreate(&b)); /* blocking */
  CK_OK(clsStreamCreateWithFlags(&idle, clsStreamNonBlocking));
  CK_OK(clsEventCreate(&done));
  CK_OK(clsEventRecord(done, idle));
  CK_OK(clsEventSynchronize(done));
  gate *g = gate_new();
  gate_hold(g, b);
  CK_OK(clsStreamWaitEvent(NULL, done, 0));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(NULL));
  CK_OK(clsStreamQuery(NULL));
}
END_TEST

/* Long-run seed 1075140 (library with the on-demand worker pool, a4c4aea):
 * with a host function held on a non-blocking stream, a host function on
 * the legacy stream that became ready at about the same time never ran,
 * so clsStreamSynchronize(NULL) hung after its gate was released.  In
 * cls__ocl_post a job that finds cls__widle > 0 only signals, even when
 * that idle worker was already signalled for an earlier job; the worker
 * then takes the earlier job (which blocks) and clears cls__wstarved, so
 * the monitor never starts a worker for the queued one.  Host functions
 * of different streams must not wait for each other. */
START_TEST(host_functions_of_two_streams_both_run) {
  for (int round = 0; round < 20; ++round) {
    clsStream_t a, b;
    CK_OK(clsStreamCreateWithFlags(&a, clsStreamNonBlocking));
    CK_OK(clsStreamCreateWithFlags(&b, clsStreamNonBlocking));
    CK_OK(clsDeviceSynchronize());
    gate *ga = gate_new(), *gb = gate_new();
    gate_hold(ga, a);
    gate_hold(gb, b);
    int ea = gate_wait_entered(ga, 3000), eb = gate_wait_entered(gb, 3000);
    ck_assert_msg(ea && eb,
                  "round %d: with one host function held, the other one "
                  "(another stream) never started (a: %d, b: %d)",
                  round, ea, eb);
    gate_release(ga);
    gate_release(gb);
    CK_OK(clsDeviceSynchronize());
    CK_OK(clsStreamDestroy(a));
    CK_OK(clsStreamDestroy(b));
  }
}
END_TEST

/* Seed 1001631: a blocking stream destroyed while a clsStreamWaitEvent of
 * it was still unconsumed: the legacy stream must still wait for the
 * awaited work (a destroyed stream's pending work still counts). */
START_TEST(destroyed_stream_pending_wait_still_holds_legacy) {
  clsStream_t s, held;
  clsEvent_t e, x;
  CK_OK(clsStreamCreate(&s)); /* blocking */
  CK_OK(clsStreamCreateWithFlags(&held, clsStreamNonBlocking));
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  CK_OK(clsEventCreateWithFlags(&x, clsEventDisableTiming));
  gate *a = gate_new();
  gate_hold(a, held);
  CK_OK(clsEventRecord(e, held));
  CK_OK(clsStreamWaitEvent(s, e, 0));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsEventRecord(x, NULL));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(x), clsErrorNotReady);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  gate_release(a);
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventQuery(x));
}
END_TEST

int main(void) {
  Suite *su = suite_create("model_repro");
  TCase *tc = tcase_timed("repro", 90);
  tcase_add_test(tc, sync_after_pending_wait_ignores_later_legacy_work);
  tcase_add_test(tc, legacy_waits_for_pending_wait_of_blocking_stream);
  tcase_add_test(tc, wait_on_legacy_stream_waits_for_blocking_streams);
  tcase_add_test(tc, destroyed_stream_pending_wait_still_holds_legacy);
  tcase_add_test(tc, host_functions_of_two_streams_both_run);
  suite_add_tcase(su, tc);
  return run_suite(su);
}
