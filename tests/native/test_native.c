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

/* Row: a record after the program's command covers it. */
START_TEST(record_covers_foreign_kernel) {
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  cl_event g = user_event();
  raw_fill(q, d, 7, g, NULL);
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, s));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  release_gate(g);
  CK_OK(clsEventSynchronize(e));
  dev_expect(d, 7, N, "after the record");
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* Row: a stream query sees the program's command. */
START_TEST(query_sees_foreign_kernel) {
  int *d = dev_ints(N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  /* Idle: a poll sees it so (a query does not see only the barrier it
   * enqueued itself: docs/interop.md). */
  for (int i = 0; i < 20; ++i) CK_OK(poll_stream(s, 1000));
  CK_OK(poll_stream(NULL, 1000));
  cl_event g = user_event();
  raw_fill(q, d, 3, g, NULL);
  sleep_ms(SETTLE_MS);
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady); /* s is a blocking stream */
  release_gate(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(poll_stream(s, 1000));
  CK_OK(poll_stream(NULL, 1000));
  dev_expect(d, 3, N, "after the query");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* Row: synchronizing the stream waits for the program's copy. */
START_TEST(synchronize_waits_for_foreign_copy) {
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  cl_event g = user_event();
  raw_write(q, d, 5, g);
  bg_call c;
  bg_start(&c, bg_stream_sync, s);
  sleep_ms(SETTLE_MS);
  int returned = bg_done(&c);
  release_gate(g);
  ck_assert_msg(!returned, "clsStreamSynchronize returned before the copy");
  CK_OK(bg_join(&c));
  dev_expect(d, 5, N, "after the synchronize");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* Row: another stream waiting for an event recorded after the program's
 * command reads what it wrote. */
START_TEST(stream_wait_covers_foreign_kernel) {
  int *d = dev_ints(N), *d2 = dev_ints(N);
  dev_set(d, 0, N);
  dev_set(d2, 0, N);
  clsStream_t s, s2;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  cl_event g = user_event();
  raw_fill(q, d, 9, g, NULL);
  clsEvent_t e;
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  CK_OK(clsEventRecord(e, s));
  CK_OK(clsStreamWaitEvent(s2, e, 0));
  CK_OK(clsMemcpyAsync(d2, d, N * sizeof(int), clsMemcpyDeviceToDevice, s2));
  sleep_ms(SETTLE_MS);
  release_gate(g);
  CK_OK(clsStreamSynchronize(s2));
  dev_expect(d2, 9, N, "copied after the wait");
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFree(d));
  CK_OK(clsFree(d2));
}
END_TEST

/* Row: legacy-stream work waits for the program's command on a blocking
 * stream's queue. */
START_TEST(legacy_waits_for_foreign_kernel) {
  int *d = dev_ints(N), *d2 = dev_ints(N);
  dev_set(d, 0, N);
  dev_set(d2, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  CK_OK(clsStreamSynchronize(s)); /* known idle, as far as clstream saw */
  cl_event g = user_event();
  raw_fill(q, d, 4, g, NULL);
  CK_OK(clsMemcpyAsync(d2, d, N * sizeof(int), clsMemcpyDeviceToDevice, NULL));
  sleep_ms(SETTLE_MS);
  release_gate(g);
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d2, 4, N, "copied on the legacy stream");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  CK_OK(clsFree(d2));
}
END_TEST

/* Row: a blocking stream's work waits for the program's command on the
 * legacy stream's queue. */
START_TEST(blocking_waits_for_foreign_on_legacy) {
  int *d = dev_ints(N), *d2 = dev_ints(N);
  dev_set(d, 0, N);
  dev_set(d2, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(NULL, &q));
  cl_event g = user_event();
  raw_fill(q, d, 6, g, NULL);
  CK_OK(clsMemcpyAsync(d2, d, N * sizeof(int), clsMemcpyDeviceToDevice, s));
  sleep_ms(SETTLE_MS);
  release_gate(g);
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d2, 6, N, "copied on the blocking stream");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  CK_OK(clsFree(d2));
}
END_TEST

/* Row: clsDeviceSynchronize waits for the program's command. */
START_TEST(device_sync_waits_for_foreign_kernel) {
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  cl_event g = user_event();
  raw_fill(q, d, 8, g, NULL);
  bg_call c;
  bg_start(&c, bg_device_sync, NULL);
  sleep_ms(SETTLE_MS);
  int returned = bg_done(&c);
  release_gate(g);
  ck_assert_msg(!returned, "clsDeviceSynchronize returned before the kernel");
  CK_OK(bg_join(&c));
  dev_expect(d, 8, N, "after the device synchronize");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* Row: the program's command waits for a clsStreamWaitEvent made before
 * it, whether the queue was handed out before or after the wait. */
static void held_by_wait(int queue_first) {
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cl_command_queue q = NULL;
  if (queue_first) CK_OK(clsOpenCLGetQueue(s, &q));
  cl_event g = user_event();
  clsEvent_t eg;
  CK_OK(clsOpenCLEventCreateFromEvent(&eg, g, 0));
  CK_OK(clsStreamWaitEvent(s, eg, 0));
  if (!queue_first) CK_OK(clsOpenCLGetQueue(s, &q));
  cl_event k;
  raw_fill(q, d, 2, NULL, &k);
  sleep_ms(SETTLE_MS);
  ck_assert_msg(status_of(k) != CL_COMPLETE,
                "the program's kernel ran before the awaited event");
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  release_gate(g);
  ck_assert_int_eq(clWaitForEvents(1, &k), CL_SUCCESS);
  clReleaseEvent(k);
  dev_expect(d, 2, N, "after the wait");
  CK_OK(clsEventDestroy(eg));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
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
