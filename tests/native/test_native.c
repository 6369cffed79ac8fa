/* Native handles on the OpenCL build (include/clstream_opencl.h,
 * docs/interop.md): the program's own commands on a handed-out queue are
 * ordered like clstream's (record, query, synchronize, stream wait, the
 * legacy stream's implicit synchronization, device synchronization, and
 * waits made before the command was enqueued), and the handles both ways.
 * The program's commands are raw OpenCL (clEnqueueNDRangeKernel, and
 * clEnqueueSVMMemcpy or clEnqueueWriteBuffer by memory path), held by a
 * user event so that each case is deterministic. */
#include "clstream_opencl.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

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

#define N 1024

/* The program's side: clstream's context and a raw kernel of its own. */
static cl_context ctx;
static cl_device_id did;
static cl_program prog;
static cl_kernel fill;
static const char *fill_src =
    "__kernel void fill(__global int *p, int v, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) p[i] = v;\n"
    "}\n";

static void raw_setup(void) {
  int dev;
  CK_OK(clsGetDevice(&dev)); /* CLSTREAM_DEVICE's choice */
  CK_OK(clsSetDevice(dev));
  CK_OK(clsOpenCLGetDevice(dev, NULL, &did, &ctx));
  cl_int err;
  prog = clCreateProgramWithSource(ctx, 1, &fill_src, NULL, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  ck_assert_int_eq(clBuildProgram(prog, 1, &did, "", NULL, NULL), CL_SUCCESS);
  fill = clCreateKernel(prog, "fill", &err);
  ck_assert_int_eq(err, CL_SUCCESS);
}

static void raw_teardown(void) {
  clReleaseKernel(fill);
  clReleaseProgram(prog);
}

static cl_event user_event(void) {
  cl_int err;
  cl_event u = clCreateUserEvent(ctx, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  return u;
}

static void release_gate(cl_event u) {
  ck_assert_int_eq(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(u);
}

/* The program's kernel on q: d[0..N) = v, after `gate` (may be NULL). */
static void raw_fill(cl_command_queue q, int *d, int v, cl_event gate,
                     cl_event *ev) {
  cl_mem m;
  size_t off;
  CK_OK(clsOpenCLGetMem(d, &m, &off));
  ck_assert_uint_eq(off, 0);
  cl_uint n = N;
  ck_assert_int_eq(clSetKernelArg(fill, 0, sizeof m, &m), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(fill, 1, sizeof v, &v), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(fill, 2, sizeof n, &n), CL_SUCCESS);
  size_t gsz = N;
  ck_assert_int_eq(clEnqueueNDRangeKernel(q, fill, 1, NULL, &gsz, NULL,
                                          gate ? 1 : 0, gate ? &gate : NULL,
                                          ev),
                   CL_SUCCESS);
  clFlush(q);
}

/* The program's copy of v to d on q after `gate`: clEnqueueSVMMemcpy on
 * the SVM path, clEnqueueWriteBuffer on the buffer path. */
static int host_src[N];
static void raw_write(cl_command_queue q, int *d, int v, cl_event gate) {
  for (int i = 0; i < N; ++i) host_src[i] = v;
  cl_mem m;
  size_t off;
  CK_OK(clsOpenCLGetMem(d, &m, &off));
  /* The SVM path's view is a buffer over the SVM pointer itself. */
  void *host_ptr = NULL;
  ck_assert_int_eq(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof host_ptr,
                                      &host_ptr, NULL),
                   CL_SUCCESS);
  cl_int err;
  if (host_ptr != (void *)d)
    err = clEnqueueWriteBuffer(q, m, CL_FALSE, off, sizeof host_src, host_src,
                               1, &gate, NULL);
  else
    err = clEnqueueSVMMemcpy(q, CL_FALSE, d, host_src, sizeof host_src, 1,
                             &gate, NULL);
  ck_assert_int_eq(err, CL_SUCCESS);
  clFlush(q);
}

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

static cl_int status_of(cl_event ev) {
  cl_int st = CL_QUEUED;
  ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof st, &st, NULL),
                   CL_SUCCESS);
  return st;
}

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

/* A stream over the program's queue: ordered the same, and destroying it
 * leaves the queue to the program. */
START_TEST(stream_from_program_queue) {
  cl_int err;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_PROFILING_ENABLE, 0};
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
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(int), NULL,
                            &err);
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
  ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof host, host, 0,
                                       NULL, NULL),
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
  cl_command_queue oq = clCreateCommandQueueWithProperties(other, did, NULL,
                                                           &err);
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
  tcase_add_test(tc, stream_from_program_queue);
  tcase_add_test(tc, imported_user_event_never_completed);
  tcase_add_test(tc, get_event_follows_record);
  tcase_add_test(tc, register_program_buffer);
  tcase_add_test(tc, bad_input);
  return run_suite(s);
}
