/* Native handles on the OpenCL build (include/clstream_opencl.h,
 * docs/interop.md): the program's own commands on a handed-out queue are
 * ordered like clstream's (record, query, synchronize, stream wait, the
 * legacy stream's implicit synchronization, device synchronization, and
 * waits made before the command was enqueued); the handles themselves are
 * test_native_handles.c's.
 * The program's commands are raw OpenCL (clEnqueueNDRangeKernel, and
 * clEnqueueSVMMemcpy or clEnqueueWriteBuffer by memory path), held by a
 * user event so that each case is deterministic. */
#include "raw.h"

/* What a case sets up: device ints d (and d2, where asked), a created
 * stream s, and q, the queue the program enqueues on: s's, the legacy
 * stream's, or none yet. */
typedef struct foreign {
  int *d, *d2;
  clsStream_t s;
  cl_command_queue q;
} foreign;

enum { QUEUE_NONE, QUEUE_OF_S, QUEUE_OF_LEGACY };
enum { ONE_BUF = 0, ZEROED = 1, TWO_BUFS = 2 };

/* Sets a case up: `bufs` ORs ZEROED (d, and d2, set to 0) and TWO_BUFS;
 * s is created with `flags`; `queue` says whose queue q is. */
static void foreign_begin(foreign *f, int bufs, unsigned flags, int queue) {
  f->d = dev_ints(N);
  f->d2 = (bufs & TWO_BUFS) ? dev_ints(N) : NULL;
  if (bufs & ZEROED) dev_set(f->d, 0, N);
  if ((bufs & ZEROED) && f->d2) dev_set(f->d2, 0, N);
  CK_OK(clsStreamCreateWithFlags(&f->s, flags));
  f->q = NULL;
  if (queue != QUEUE_NONE)
    CK_OK(clsOpenCLGetQueue(queue == QUEUE_OF_S ? f->s : NULL, &f->q));
}

static void foreign_end(foreign *f) {
  CK_OK(clsStreamDestroy(f->s));
  CK_OK(clsFree(f->d));
  if (f->d2) CK_OK(clsFree(f->d2));
}

/* The program's kernel d[0..N) = v on q, held by the user event returned. */
static cl_event gated_fill(cl_command_queue q, int *d, int v) {
  cl_event g = user_event();
  raw_fill(q, d, v, g, NULL);
  return g;
}

/* The check that fn(arg) waits for the program's command held by g: it
 * has not returned after SETTLE_MS (else the test fails with `msg`), g is
 * released, and it returns clsSuccess. */
static void expect_held_by(clsError_t (*fn)(void *), void *arg, cl_event g,
                           const char *msg) {
  bg_call c;
  bg_start(&c, fn, arg);
  sleep_ms(SETTLE_MS);
  int returned = bg_done(&c);
  release_gate(g);
  ck_assert_msg(!returned, "%s", msg);
  CK_OK(bg_join(&c));
}

/* Copies f->d to f->d2 on `on`, which must wait for the program's fill of
 * f->d with v held by g: releases g once settled, synchronizes `on` and
 * checks d2 (`what` names it in the message). */
static void copy_after_gate(const foreign *f, clsStream_t on, cl_event g, int v,
                            const char *what) {
  CK_OK(clsMemcpyAsync(f->d2, f->d, N * sizeof(int), clsMemcpyDeviceToDevice,
                       on));
  sleep_ms(SETTLE_MS);
  release_gate(g);
  CK_OK(clsStreamSynchronize(on));
  dev_expect(f->d2, v, N, what);
}

/* Row: a record after the program's command covers it. */
START_TEST(record_covers_foreign_kernel) {
  foreign f;
  foreign_begin(&f, ZEROED, clsStreamDefault, QUEUE_OF_S);
  cl_event g = gated_fill(f.q, f.d, 7);
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, f.s));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  release_gate(g);
  CK_OK(clsEventSynchronize(e));
  dev_expect(f.d, 7, N, "after the record");
  CK_OK(clsEventDestroy(e));
  foreign_end(&f);
}
END_TEST

/* Row: a stream query sees the program's command. */
START_TEST(query_sees_foreign_kernel) {
  foreign f;
  foreign_begin(&f, ONE_BUF, clsStreamDefault, QUEUE_OF_S);
  /* Idle: a poll sees it so (a query does not see only the barrier it
   * enqueued itself: docs/interop.md). */
  for (int i = 0; i < 20; ++i) CK_OK(poll_stream(f.s, 1000));
  CK_OK(poll_stream(NULL, 1000));
  cl_event g = gated_fill(f.q, f.d, 3);
  sleep_ms(SETTLE_MS);
  CK_CLS(clsStreamQuery(f.s), clsErrorNotReady);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady); /* s is a blocking stream */
  release_gate(g);
  CK_OK(clsStreamSynchronize(f.s));
  CK_OK(poll_stream(f.s, 1000));
  CK_OK(poll_stream(NULL, 1000));
  dev_expect(f.d, 3, N, "after the query");
  foreign_end(&f);
}
END_TEST

/* Row: synchronizing the stream waits for the program's copy. */
START_TEST(synchronize_waits_for_foreign_copy) {
  foreign f;
  foreign_begin(&f, ZEROED, clsStreamDefault, QUEUE_OF_S);
  cl_event g = user_event();
  raw_write(f.q, f.d, 5, g);
  expect_held_by(bg_stream_sync, f.s, g,
                 "clsStreamSynchronize returned before the copy");
  dev_expect(f.d, 5, N, "after the synchronize");
  foreign_end(&f);
}
END_TEST

/* Row: another stream waiting for an event recorded after the program's
 * command reads what it wrote. */
START_TEST(stream_wait_covers_foreign_kernel) {
  foreign f;
  foreign_begin(&f, ZEROED | TWO_BUFS, clsStreamDefault, QUEUE_OF_S);
  clsStream_t s2;
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  cl_event g = gated_fill(f.q, f.d, 9);
  clsEvent_t e;
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  CK_OK(clsEventRecord(e, f.s));
  CK_OK(clsStreamWaitEvent(s2, e, 0));
  copy_after_gate(&f, s2, g, 9, "copied after the wait");
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s2));
  foreign_end(&f);
}
END_TEST

/* Row: legacy-stream work waits for the program's command on a blocking
 * stream's queue. */
START_TEST(legacy_waits_for_foreign_kernel) {
  foreign f;
  foreign_begin(&f, ZEROED | TWO_BUFS, clsStreamDefault, QUEUE_OF_S);
  CK_OK(clsStreamSynchronize(f.s)); /* known idle, as far as clstream saw */
  cl_event g = gated_fill(f.q, f.d, 4);
  copy_after_gate(&f, NULL, g, 4, "copied on the legacy stream");
  foreign_end(&f);
}
END_TEST

/* Row: a blocking stream's work waits for the program's command on the
 * legacy stream's queue. */
START_TEST(blocking_waits_for_foreign_on_legacy) {
  foreign f;
  foreign_begin(&f, ZEROED | TWO_BUFS, clsStreamDefault, QUEUE_OF_LEGACY);
  cl_event g = gated_fill(f.q, f.d, 6);
  copy_after_gate(&f, f.s, g, 6, "copied on the blocking stream");
  foreign_end(&f);
}
END_TEST

/* Row: clsDeviceSynchronize waits for the program's command. */
START_TEST(device_sync_waits_for_foreign_kernel) {
  foreign f;
  foreign_begin(&f, ZEROED, clsStreamNonBlocking, QUEUE_OF_S);
  cl_event g = gated_fill(f.q, f.d, 8);
  expect_held_by(bg_device_sync, NULL, g,
                 "clsDeviceSynchronize returned before the kernel");
  dev_expect(f.d, 8, N, "after the device synchronize");
  foreign_end(&f);
}
END_TEST

/* Row: the program's command waits for a clsStreamWaitEvent made before
 * it, whether the queue was handed out before or after the wait. */
static void held_by_wait(int queue_first) {
  foreign f;
  foreign_begin(&f, ZEROED, clsStreamDefault,
                queue_first ? QUEUE_OF_S : QUEUE_NONE);
  cl_event g = user_event();
  clsEvent_t eg;
  CK_OK(clsOpenCLEventCreateFromEvent(&eg, g, 0));
  CK_OK(clsStreamWaitEvent(f.s, eg, 0));
  if (!queue_first) CK_OK(clsOpenCLGetQueue(f.s, &f.q));
  cl_event k;
  raw_fill(f.q, f.d, 2, NULL, &k);
  sleep_ms(SETTLE_MS);
  ck_assert_msg(status_of(k) != CL_COMPLETE,
                "the program's kernel ran before the awaited event");
  CK_CLS(clsStreamQuery(f.s), clsErrorNotReady);
  release_gate(g);
  ck_assert_int_eq(clWaitForEvents(1, &k), CL_SUCCESS);
  clReleaseEvent(k);
  dev_expect(f.d, 2, N, "after the wait");
  CK_OK(clsEventDestroy(eg));
  foreign_end(&f);
}

START_TEST(held_by_earlier_wait) { held_by_wait(0); }
END_TEST

START_TEST(held_by_wait_after_handout) { held_by_wait(1); }
END_TEST

int main(void) {
  Suite *s = suite_create("native");
  TCase *tc = tcase_tagged(s, "native_gate_threads", 60, "gate threads");
  tcase_add_checked_fixture(tc, raw_setup, raw_teardown);
  tcase_add_test(tc, record_covers_foreign_kernel);
  tcase_add_test(tc, query_sees_foreign_kernel);
  tcase_add_test(tc, synchronize_waits_for_foreign_copy);
  tcase_add_test(tc, stream_wait_covers_foreign_kernel);
  tcase_add_test(tc, legacy_waits_for_foreign_kernel);
  tcase_add_test(tc, blocking_waits_for_foreign_on_legacy);
  tcase_add_test(tc, device_sync_waits_for_foreign_kernel);
  tcase_add_test(tc, held_by_earlier_wait);
  tcase_add_test(tc, held_by_wait_after_handout);
  return run_suite(s);
}
