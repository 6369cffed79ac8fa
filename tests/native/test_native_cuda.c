/* Native handles on the CUDA build (include/clstream_cuda_interop.h,
 * docs/interop.md): the program's own work on a clstream stream's
 * cudaStream_t, its own records of a clstream event's cudaEvent_t, and
 * streams and events made over the program's handles.  A CUDA stream is
 * held by a host function that waits for the test (a gate), so that each
 * case is deterministic. */
#include "clstream_cuda_interop.h"
#include "support.h"

#include <stdatomic.h>

#define N 4096

static atomic_int gate_open;
static void CUDART_CB hold(void *p) {
  (void)p;
  while (!atomic_load(&gate_open)) sleep_ms(1);
}

static void hold_stream(cudaStream_t cs) {
  atomic_store(&gate_open, 0);
  ck_assert_int_eq(cudaLaunchHostFunc(cs, hold, NULL), cudaSuccess);
}

/* The program's memset on a clstream stream is covered by a record, a
 * query and a synchronize. */
START_TEST(program_work_on_clstream_stream) {
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cudaStream_t cs;
  CK_OK(clsCUDAGetStream(s, &cs));
  hold_stream(cs);
  ck_assert_int_eq(cudaMemsetAsync(d, 1, N * sizeof(int), cs), cudaSuccess);
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, s));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  atomic_store(&gate_open, 1);
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 0x01010101, N, "after the program's memset");
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* The program records a handed-out cudaEvent_t itself: clstream's view
 * follows it. */
START_TEST(program_records_handed_out_event) {
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  cudaEvent_t ce;
  CK_OK(clsCUDAGetEvent(e, &ce));
  CK_OK(clsEventQuery(e));
  cudaStream_t cs;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking),
                   cudaSuccess);
  hold_stream(cs);
  ck_assert_int_eq(cudaEventRecord(ce, cs), cudaSuccess);
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  atomic_store(&gate_open, 1);
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventQuery(e));
  hold_stream(cs); /* again, after clstream saw it complete */
  ck_assert_int_eq(cudaEventRecord(ce, cs), cudaSuccess);
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  atomic_store(&gate_open, 1);
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventDestroy(e));
  ck_assert_int_eq(cudaStreamDestroy(cs), cudaSuccess);
}
END_TEST

/* A stream and an event over the program's handles; destroying them
 * leaves the handles to the program. */
START_TEST(streams_and_events_over_program_handles) {
  cudaStream_t cs;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking),
                   cudaSuccess);
  clsStream_t s;
  CK_CLS(clsCUDAStreamCreateFromStream(&s, cs, 0), clsErrorInvalidValue);
  CK_OK(clsCUDAStreamCreateFromStream(&s, cs, clsStreamNonBlocking));
  cudaStream_t back;
  CK_OK(clsCUDAGetStream(s, &back));
  ck_assert_ptr_eq(back, cs);
  cudaEvent_t ce;
  ck_assert_int_eq(cudaEventCreate(&ce), cudaSuccess);
  hold_stream(cs);
  ck_assert_int_eq(cudaEventRecord(ce, cs), cudaSuccess);
  clsEvent_t e;
  CK_OK(clsCUDAEventCreateFromEvent(&e, ce, 0));
  clsStream_t other;
  CK_OK(clsStreamCreateWithFlags(&other, clsStreamNonBlocking));
  CK_OK(clsStreamWaitEvent(other, e, 0));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsStreamQuery(other), clsErrorNotReady);
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  atomic_store(&gate_open, 1);
  CK_OK(clsStreamSynchronize(other));
  CK_OK(clsEventQuery(e));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(other));
  ck_assert_int_eq(cudaEventQuery(ce), cudaSuccess); /* still the program's */
  ck_assert_int_eq(cudaStreamSynchronize(cs), cudaSuccess);
  ck_assert_int_eq(cudaEventDestroy(ce), cudaSuccess);
  ck_assert_int_eq(cudaStreamDestroy(cs), cudaSuccess);
}
END_TEST

START_TEST(bad_input) {
  clsStream_t s;
  clsEvent_t e;
  CK_CLS(clsCUDAGetStream(NULL, NULL), clsErrorInvalidValue);
  CK_CLS(clsCUDAGetEvent(NULL, NULL), clsErrorInvalidValue);
  CK_CLS(clsCUDAStreamCreateFromStream(NULL, NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsCUDAStreamCreateFromStream(&s, NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsCUDAEventCreateFromEvent(&e, NULL, 0), clsErrorInvalidValue);
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsEventDestroy(e));
  cudaStream_t cs;
  cudaEvent_t ce;
  CK_CLS(clsCUDAGetStream(s, &cs), clsErrorInvalidResourceHandle);
  CK_CLS(clsCUDAGetEvent(e, &ce), clsErrorInvalidResourceHandle);
}
END_TEST

int main(void) {
  Suite *s = suite_create("native_cuda");
  TCase *tc = tcase_tagged(s, "native_cuda_gate", 60, "gate threads");
  tcase_add_test(tc, program_work_on_clstream_stream);
  tcase_add_test(tc, program_records_handed_out_event);
  tcase_add_test(tc, streams_and_events_over_program_handles);
  tcase_add_test(tc, bad_input);
  return run_suite(s);
}
