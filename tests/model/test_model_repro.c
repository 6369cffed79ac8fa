/*
 * Deterministic repros of what clstream-model found (tests/model/model.c),
 * kept as regression tests.
 */
#include "support.h"

#include <stdlib.h>

/* A blocking call on a helper thread: fails the test if it has not
 * returned within `ms`. */
static clsError_t within(clsError_t (*fn)(void *), void *arg, int ms,
                         const char *what) {
  bg_call *c = calloc(1, sizeof *c); /* leaked if it hangs */
  bg_start(c, fn, arg);
  double end = now_ms() + ms;
  while (!bg_done(c) && now_ms() < end) sleep_ms(2);
  ck_assert_msg(bg_done(c), "%s did not return within %d ms", what, ms);
  clsError_t r = bg_join(c);
  free(c);
  return r;
}

/* Seeds 374, 440, 684 (and ~1 in 250 seeds): clsStreamSynchronize(s) on a
 * blocking stream whose newest operation is a clsStreamWaitEvent that no
 * command has consumed yet also waited for legacy-stream work issued AFTER
 * the wait.  CUDA: s's work (the wait included) depends only on what was
 * issued before it, so the synchronize returns once the event's work is
 * done.  clstream turned the pending wait into a marker at synchronize
 * time, and that marker gathered the legacy stream's current tail. */
START_TEST(sync_after_pending_wait_ignores_later_legacy_work) {
  clsStream_t s, t;
  clsEvent_t e, x;
  CK_OK(clsStreamCreate(&s));                              /* blocking */
  CK_OK(clsStreamCreateWithFlags(&t, clsStreamNonBlocking));
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  CK_OK(clsEventCreateWithFlags(&x, clsEventDisableTiming));
  gate *a = gate_new(), *b = gate_new();
  gate_hold(a, t);
  CK_OK(clsEventRecord(e, t));      /* held by gate a */
  CK_OK(clsStreamWaitEvent(s, e, 0)); /* s's newest operation */
  gate_hold(b, clsStreamPerThread);   /* a blocking stream, held */
  CK_OK(clsEventRecord(x, NULL));     /* legacy: waits for gate b */
  CK_CLS(clsEventQuery(x), clsErrorNotReady);
  gate_release(a);
  CK_OK(within(bg_stream_sync, s, 5000, "clsStreamSynchronize(s)"));
  CK_CLS(clsEventQuery(x), clsErrorNotReady); /* b still holds it */
  gate_release(b);
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsEventQuery(x));
}
END_TEST

int main(void) {
  Suite *su = suite_create("model_repro");
  TCase *tc = tcase_timed("repro", 30);
  tcase_add_test(tc, sync_after_pending_wait_ignores_later_legacy_work);
  suite_add_tcase(su, tc);
  return run_suite(su);
}
