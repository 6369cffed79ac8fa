/* Native handles on the OpenCL build (include/clstream_opencl.h,
 * docs/interop.md): the handles both ways (a stream over the program's
 * queue, an imported cl_event, clsOpenCLGetEvent, a registered buffer)
 * and the bad input that needs raw OpenCL objects (an out-of-order queue,
 * another context's queue, event and buffer).  The ordering of the
 * program's own commands is test_native.c's. */
#include "raw.h"

/* The CUDA calls (clstream_cuda_interop.h, which needs cuda_runtime.h),
 * declared with the runtime's struct tags: on this build they refuse. */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
clsError_t clsCUDAGetStream(clsStream_t stream, cudaStream_t *out);
clsError_t clsCUDAGetEvent(clsEvent_t event, cudaEvent_t *out);
clsError_t clsCUDAStreamCreateFromStream(clsStream_t *stream,
                                         cudaStream_t cuStream, unsigned flags);
clsError_t clsCUDAEventCreateFromEvent(clsEvent_t *event, cudaEvent_t cuEvent,
                                       unsigned flags);

/* A stream over the program's queue: ordered the same, and destroying it
 * leaves the queue to the program. */
START_TEST(stream_from_program_queue) {
  cl_int err;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                 0};
  cl_command_queue q =
      clCreateCommandQueueWithProperties(ctx, did, props, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  clsStream_t s;
  CK_OK(clsOpenCLStreamCreateFromQueue(&s, q, 0));
  cl_command_queue back;
  CK_OK(clsOpenCLGetQueue(s, &back));
  ck_assert_ptr_eq(back, q);
  int *d = dev_ints(N);
  cl_event g = user_event();
  raw_fill(q, d, 11, g, NULL);
  clsEvent_t a, b;
  CK_OK(clsEventCreate(&a));
  CK_OK(clsEventCreate(&b));
  CK_OK(clsEventRecord(a, s));
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  release_gate(g);
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 11, N, "on the program's queue");
  CK_OK(clsEventRecord(b, s));
  CK_OK(clsEventSynchronize(b));
  float ms = -1;
  /* Devices without usable timestamps (rusticl on llvmpipe) time
   * nothing. */
  clsError_t te = clsEventElapsedTime(&ms, a, b);
  ck_assert_msg(te == clsSuccess || te == clsErrorNotSupported, "%s",
                clsGetErrorName(te));
  ck_assert(te != clsSuccess || ms >= 0);
  CK_OK(clsEventDestroy(a));
  CK_OK(clsEventDestroy(b));
  CK_OK(clsStreamDestroy(s));
  ck_assert_int_eq(clFinish(q), CL_SUCCESS); /* still the program's */
  clReleaseCommandQueue(q);
  CK_OK(clsFree(d));
}
END_TEST

/* An imported user event that never completes: queried with a timeout,
 * waited on by a stream, destroyed while pending. */
START_TEST(imported_user_event_never_completed) {
  cl_event g = user_event();
  clsEvent_t e;
  CK_OK(clsOpenCLEventCreateFromEvent(&e, g, 0));
  CK_CLS(poll_event(e, SETTLE_MS), clsErrorNotReady);
  float ms;
  CK_CLS(clsEventElapsedTime(&ms, e, e), clsErrorNotReady); /* as CUDA */
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  CK_OK(clsStreamWaitEvent(s, e, 0));
  CK_CLS(poll_stream(s, SETTLE_MS), clsErrorNotReady);
  CK_OK(clsEventDestroy(e)); /* while it is pending */
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  release_gate(g); /* only so that the stream can be torn down */
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* clsOpenCLGetEvent: a new reference that completes with the record. */
START_TEST(get_event_follows_record) {
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  cl_event ev;
  CK_OK(clsOpenCLGetEvent(e, &ev)); /* never recorded: complete */
  ck_assert_int_eq(status_of(ev), CL_COMPLETE);
  clReleaseEvent(ev);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *gt = gate_new();
  gate_hold(gt, s);
  CK_OK(clsEventRecord(e, s));
  CK_OK(clsOpenCLGetEvent(e, &ev));
  sleep_ms(SETTLE_MS);
  ck_assert_int_ne(status_of(ev), CL_COMPLETE);
  gate_release(gt);
  ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
  CK_OK(clsEventDestroy(e));
  ck_assert_int_eq(status_of(ev), CL_COMPLETE); /* still the caller's */
  clReleaseEvent(ev);
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* clsOpenCLMemRegister: the program's buffer as device memory. */
START_TEST(register_program_buffer) {
  cl_int err;
  cl_mem m =
      clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(int), NULL, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  int *p;
  CK_OK(clsOpenCLMemRegister((void **)&p, m));
  cl_mem back;
  size_t off;
  CK_OK(clsOpenCLGetMem(p + 16, &back, &off));
  ck_assert_ptr_eq(back, m);
  ck_assert_uint_eq(off, 16 * sizeof(int));
  dev_set(p, 12, N);
  int host[N];
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(NULL, &q));
  ck_assert_int_eq(
      clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL),
      CL_SUCCESS);
  for (int i = 0; i < N; ++i) ck_assert_int_eq(host[i], 12);
  CK_OK(clsOpenCLMemUnregister(p));
  CK_CLS(clsOpenCLMemUnregister(p), clsErrorInvalidValue);
  ck_assert_int_eq(clReleaseMemObject(m), CL_SUCCESS); /* still ours */
}
END_TEST

/* Bad input: CUDA-style codes, each with a CLSTREAM_LOG reason. */
START_TEST(bad_input) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  /* NULL outputs. */
  CK_CLS(clsOpenCLGetQueue(s, NULL), clsErrorInvalidValue);
  CK_CLS(clsOpenCLGetEvent(e, NULL), clsErrorInvalidValue);
  int *d = dev_ints(16);
  cl_mem m;
  size_t off;
  CK_CLS(clsOpenCLGetMem(d, NULL, &off), clsErrorInvalidValue);
  CK_CLS(clsOpenCLGetMem(d, &m, NULL), clsErrorInvalidValue);
  CK_CLS(clsOpenCLStreamCreateFromQueue(NULL, NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsOpenCLEventCreateFromEvent(NULL, NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsOpenCLMemRegister(NULL, NULL), clsErrorInvalidValue);
  CK_CLS(clsOpenCLGetDevice(-1, NULL, NULL, NULL), clsErrorInvalidDevice);
  /* An out-of-order queue, and unknown flags. */
  cl_int err;
  cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES,
                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, did, ooo, &err);
  clsStream_t t;
  if (err == CL_SUCCESS) {
    CK_CLS(clsOpenCLStreamCreateFromQueue(&t, q, 0), clsErrorInvalidValue);
    clReleaseCommandQueue(q);
  }
  cl_command_queue qin;
  CK_OK(clsOpenCLGetQueue(NULL, &qin));
  CK_CLS(clsOpenCLStreamCreateFromQueue(&t, qin, 0x80), clsErrorInvalidValue);
  /* A queue, event and buffer of a context clstream does not know. */
  cl_context other = clCreateContext(NULL, 1, &did, NULL, NULL, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  cl_command_queue oq =
      clCreateCommandQueueWithProperties(other, did, NULL, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  CK_CLS(clsOpenCLStreamCreateFromQueue(&t, oq, 0), clsErrorInvalidValue);
  cl_event oe = clCreateUserEvent(other, &err);
  clsEvent_t te;
  CK_CLS(clsOpenCLEventCreateFromEvent(&te, oe, 0), clsErrorInvalidValue);
  cl_mem om = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, NULL, &err);
  void *p;
  CK_CLS(clsOpenCLMemRegister(&p, om), clsErrorInvalidValue);
  clReleaseMemObject(om);
  clSetUserEventStatus(oe, CL_COMPLETE);
  clReleaseEvent(oe);
  clReleaseCommandQueue(oq);
  clReleaseContext(other);
  /* A pointer that is not clstream device memory. */
  int host[4];
  CK_CLS(clsOpenCLGetMem(host, &m, &off), clsErrorInvalidValue);
  CK_CLS(clsOpenCLMemUnregister(host), clsErrorInvalidValue);
  CK_CLS(clsOpenCLMemUnregister(d), clsErrorInvalidValue); /* clsMalloc's */
  CK_CLS(clsOpenCLMemUnregister(NULL), clsErrorInvalidValue);
  /* Destroyed stream and event. */
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsEventDestroy(e));
  CK_CLS(clsOpenCLGetQueue(s, &q), clsErrorInvalidResourceHandle);
  cl_event ev;
  CK_CLS(clsOpenCLGetEvent(e, &ev), clsErrorInvalidResourceHandle);
  /* The CUDA calls on the OpenCL build. */
  CK_CLS(clsCUDAGetStream(NULL, NULL), clsErrorNotSupported);
  CK_CLS(clsCUDAGetEvent(NULL, NULL), clsErrorNotSupported);
  CK_CLS(clsCUDAStreamCreateFromStream(NULL, NULL, 0), clsErrorNotSupported);
  CK_CLS(clsCUDAEventCreateFromEvent(NULL, NULL, 0), clsErrorNotSupported);
  CK_OK(clsFree(d));
}
END_TEST

/* clsOpenCLGetMem on clsMalloc and clsMallocAsync memory: the program's
 * raw command through the buffer it gives reads what clstream wrote. */
START_TEST(get_mem_of_device_and_pool_memory) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  int *d, *p;
  CK_OK(clsMalloc((void **)&d, 64 * sizeof(int)));
  CK_OK(clsMallocAsync((void **)&p, 64 * sizeof(int), s));
  CK_OK(clsMemsetAsync(d, 1, 64 * sizeof(int), s));
  CK_OK(clsMemsetAsync(p, 2, 64 * sizeof(int), s));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  int *ptrs[2] = {d, p};
  for (int k = 0; k < 2; ++k) {
    cl_mem m;
    size_t off;
    CK_OK(clsOpenCLGetMem(ptrs[k] + 8, &m, &off));
    int host[8];
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, off, sizeof host, host,
                                         0, NULL, NULL),
                     CL_SUCCESS);
    for (int i = 0; i < 8; ++i)
      ck_assert_int_eq(host[i], k ? 0x02020202 : 0x01010101);
  }
  CK_OK(clsFreeAsync(p, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsFree(d));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

int main(void) {
  Suite *s = suite_create("native_handles");
  TCase *tc = tcase_tagged(s, "native_handles_gate", 60, "gate");
  tcase_add_checked_fixture(tc, raw_setup, raw_teardown);
  tcase_add_test(tc, stream_from_program_queue);
  tcase_add_test(tc, imported_user_event_never_completed);
  tcase_add_test(tc, get_event_follows_record);
  tcase_add_test(tc, register_program_buffer);
  tcase_add_test(tc, get_mem_of_device_and_pool_memory);
  tcase_add_test(tc, bad_input);
  return run_suite(s);
}
