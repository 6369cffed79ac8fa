/*
 * Failed device commands: when OpenCL reports a command as failed (a
 * negative execution status), the next event query, event synchronize,
 * stream query and stream synchronize return clsErrorLaunchFailure, every
 * time they are asked; a callback behind the failure is called with an
 * error status (cudaStreamAddCallback), a host function is not called
 * (cudaLaunchHostFunc: "the function will not be called in the event of
 * an error"), and nothing hangs.
 *
 * The failure is produced with libclsfault.so (LD_PRELOAD, set by CTest)
 * in its simulated-failure mode (clsfault_fail_commands): the shim makes
 * the next enqueued command (a kernel) end with a negative status, and
 * every command that depends on it (wait lists, later commands of the
 * same in-order queue) end with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
 * as a conformant driver reports them.  It cannot be produced for real on
 * PoCL 3.1: a user event set to an error status with dependent commands
 * aborts PoCL (PTHREAD ERROR in pocl_update_event_failed), and PoCL kernels
 * have no way to fail at run time short of crashing the process.  Each
 * test runs twice (Check loop index): CL_COMPLETE callbacks of failed
 * commands are called with the error (0: the OpenCL specification) or
 * never (1: what PoCL does).
 */
#include "support.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL_STATUS (-9999)
#define SOON_MS 5000

static void (*fault_config)(long, int, const char *, int, int);
static void (*fail_commands)(long, int, int);
static int g_cb_mode; /* the loop index */

static void shim(void) {
  if (!fault_config) {
    fault_config = (void (*)(long, int, const char *, int, int))dlsym(
        RTLD_DEFAULT, "clsfault_config");
    fail_commands =
        (void (*)(long, int, int))dlsym(RTLD_DEFAULT, "clsfault_fail_commands");
  }
  ck_assert_msg(fault_config && fail_commands,
                "run under LD_PRELOAD=libclsfault.so (CTest does)");
}

/* The next enqueued command fails (and whatever depends on it). */
static void fail_next_command(void) {
  shim();
  fail_commands(1, FAIL_STATUS, g_cb_mode);
}

/* The end of the next host function fails (its user event is set to an
 * error status), and whatever depends on it. */
static void fail_next_host_function(void) {
  shim();
  fail_commands(0, FAIL_STATUS, g_cb_mode);
  fault_config(1, 0, "clSetUserEventStatus", 1, FAIL_STATUS);
}

/* A stream whose work fails from a kernel on: a host function (which runs
 * and counts), then the failing kernel, then a record of `e`. */
typedef struct failed {
  clsStream_t s;
  clsEvent_t e;
  int *buf;
  arith a;
  atomic_int ran;
} failed;

static void make_failed(failed *f, unsigned sflags) {
  atomic_init(&f->ran, 0);
  arith_load(&f->a);
  f->buf = dev_ints(256);
  CK_OK(clsStreamCreateWithFlags(&f->s, sflags));
  CK_OK(clsEventCreate(&f->e));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsLaunchHostFunc(f->s, hf_count, &f->ran));
  fail_next_command();
  CK_OK(launch_fill(&f->a, f->s, f->buf, 7, 256));
  CK_OK(clsEventRecord(f->e, f->s));
}

/* Polls the event until it is not NotReady. */
static clsError_t settle(clsEvent_t e) { return poll_event(e, SOON_MS); }

START_TEST(event_and_stream_report_launch_failure) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamDefault);
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  ck_assert_int_eq(atomic_load(&f.ran), 1); /* before the failure */
  for (int i = 0; i < 3; ++i) {             /* consistently, every time */
    CK_CLS(clsEventQuery(f.e), clsErrorLaunchFailure);
    CK_CLS(bg_call_within(bg_event_sync, f.e, SOON_MS, "clsEventSynchronize"),
           clsErrorLaunchFailure);
    CK_CLS(clsStreamQuery(f.s), clsErrorLaunchFailure);
    CK_CLS(bg_call_within(bg_stream_sync, f.s, SOON_MS, "clsStreamSynchronize"),
           clsErrorLaunchFailure);
  }
  /* The failure is stored as the last error, like CUDA's. */
  CK_CLS(clsEventQuery(f.e), clsErrorLaunchFailure);
  CK_LAST(clsErrorLaunchFailure);
}
END_TEST

/* The failure comes from the end of a host function (its user event). */
START_TEST(blocking_sync_event_reports_launch_failure) {
  g_cb_mode = _i;
  failed f;
  atomic_init(&f.ran, 0);
  arith_load(&f.a);
  f.buf = dev_ints(256);
  CK_OK(clsStreamCreate(&f.s));
  CK_OK(clsEventCreateWithFlags(&f.e, clsEventBlockingSync));
  CK_OK(clsDeviceSynchronize());
  fail_next_host_function();
  CK_OK(clsLaunchHostFunc(f.s, hf_count, &f.ran));
  CK_OK(launch_fill(&f.a, f.s, f.buf, 7, 256));
  CK_OK(clsEventRecord(f.e, f.s));
  CK_CLS(bg_call_within(bg_event_sync, f.e, SOON_MS,
                        "clsEventSynchronize (BlockingSync)"),
         clsErrorLaunchFailure);
  CK_CLS(clsEventQuery(f.e), clsErrorLaunchFailure);
  ck_assert_int_eq(atomic_load(&f.ran), 1);
  CK_CLS(bg_call_within(bg_stream_sync, f.s, SOON_MS, "clsStreamSynchronize"),
         clsErrorLaunchFailure);
}
END_TEST

START_TEST(device_synchronize_reports_launch_failure) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamNonBlocking);
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  CK_CLS(bg_call_within(bg_device_sync, NULL, SOON_MS, "clsDeviceSynchronize"),
         clsErrorLaunchFailure);
}
END_TEST

/* cudaStreamAddCallback: "the callback will be passed cudaSuccess or an
 * error code indicating if a device error has occurred". */
typedef struct cb_probe {
  atomic_int calls;
  atomic_int status;
} cb_probe;
static void cb_record(clsStream_t s, clsError_t st, void *p) {
  (void)s;
  cb_probe *c = p;
  atomic_store(&c->status, (int)st);
  atomic_fetch_add(&c->calls, 1);
}

START_TEST(callback_behind_failure_gets_error_status) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamDefault);
  cb_probe c;
  atomic_init(&c.calls, 0);
  atomic_init(&c.status, -1);
  CK_OK(clsStreamAddCallback(f.s, cb_record, &c, 0));
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  int calls = wait_atomic_ge(&c.calls, 1, SOON_MS);
  ck_assert_msg(calls == 1,
                "a callback behind a failed command must still be called, "
                "once, with an error status (cudaStreamAddCallback); it was "
                "called %d times",
                calls);
  ck_assert_msg(atomic_load(&c.status) != clsSuccess,
                "the callback got clsSuccess behind a failed command");
  CK_CLS(bg_call_within(bg_stream_sync, f.s, SOON_MS, "clsStreamSynchronize"),
         clsErrorLaunchFailure);
}
END_TEST

/* cudaLaunchHostFunc: "the function will not be called in the event of
 * an error"; the stream must not hang either way. */
START_TEST(host_function_behind_failure_is_skipped_without_hang) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamDefault);
  atomic_int later;
  atomic_init(&later, 0);
  CK_OK(clsLaunchHostFunc(f.s, hf_count, &later));
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  CK_CLS(bg_call_within(bg_stream_sync, f.s, SOON_MS, "clsStreamSynchronize"),
         clsErrorLaunchFailure);
  sleep_ms(50); /* give a wrong implementation the chance to call it */
  ck_assert_int_eq(atomic_load(&later), 0);
  CK_CLS(clsStreamQuery(f.s), clsErrorLaunchFailure);
}
END_TEST

/* A stream that waits on an event whose work failed fails too. */
START_TEST(wait_on_failed_event_propagates) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamNonBlocking);
  clsStream_t t;
  clsEvent_t e2;
  CK_OK(clsStreamCreateWithFlags(&t, clsStreamNonBlocking));
  CK_OK(clsEventCreate(&e2));
  CK_OK(clsStreamWaitEvent(t, f.e, 0));
  int *other = dev_ints(256);
  CK_OK(launch_fill(&f.a, t, other, 9, 256));
  CK_OK(clsEventRecord(e2, t));
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  CK_CLS(settle(e2), clsErrorLaunchFailure);
  CK_CLS(clsStreamQuery(t), clsErrorLaunchFailure);
  CK_CLS(bg_call_within(bg_stream_sync, t, SOON_MS, "clsStreamSynchronize"),
         clsErrorLaunchFailure);
}
END_TEST

/* The same when the failure has already happened when the wait is made:
 * work ordered after a failed command fails, whatever the timing. */
START_TEST(wait_on_already_failed_event_propagates) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamNonBlocking);
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  clsStream_t t;
  clsEvent_t e2;
  CK_OK(clsStreamCreateWithFlags(&t, clsStreamNonBlocking));
  CK_OK(clsEventCreate(&e2));
  CK_OK(clsStreamWaitEvent(t, f.e, 0));
  /* The wait alone is work of t: it fails t already. */
  CK_CLS(clsStreamQuery(t), clsErrorLaunchFailure);
  int *other = dev_ints(256);
  clsError_t r = launch_fill(&f.a, t, other, 9, 256);
  ck_assert_msg(r == clsSuccess || r == clsErrorLaunchFailure,
                "a launch behind a failed wait returned %s",
                clsGetErrorName(r));
  CK_CLS(clsEventRecord(e2, t), r);
  if (r == clsSuccess) CK_CLS(settle(e2), clsErrorLaunchFailure);
  CK_CLS(bg_call_within(bg_stream_sync, t, SOON_MS, "clsStreamSynchronize"),
         clsErrorLaunchFailure);
  /* A host function behind the failed wait is skipped, a callback gets
   * the error, and neither hangs the stream. */
  atomic_int later;
  atomic_init(&later, 0);
  cb_probe c;
  atomic_init(&c.calls, 0);
  atomic_init(&c.status, clsSuccess);
  /* Either enqueued (then handled as below) or refused at once with the
   * stream's failure; nothing else. */
  clsError_t h = clsLaunchHostFunc(t, hf_count, &later);
  ck_assert_msg(h == clsSuccess || h == clsErrorLaunchFailure,
                "a host function behind a failed wait returned %s",
                clsGetErrorName(h));
  clsError_t cb = clsStreamAddCallback(t, cb_record, &c, 0);
  ck_assert_msg(cb == clsSuccess || cb == clsErrorLaunchFailure,
                "a callback behind a failed wait returned %s",
                clsGetErrorName(cb));
  CK_CLS(bg_call_within(bg_stream_sync, t, SOON_MS, "clsStreamSynchronize"),
         clsErrorLaunchFailure);
  if (cb == clsSuccess) {
    double end = now_ms() + SOON_MS;
    while (atomic_load(&c.calls) == 0 && now_ms() < end) sleep_ms(2);
    ck_assert_int_eq(atomic_load(&c.calls), 1);
    ck_assert_int_ne(atomic_load(&c.status), clsSuccess);
  }
  if (h == clsSuccess) {
    sleep_ms(50);
    ck_assert_int_eq(atomic_load(&later), 0);
  }
  /* A stream that never waited is not affected. */
  clsStream_t u;
  CK_OK(clsStreamCreateWithFlags(&u, clsStreamNonBlocking));
  CK_OK(launch_fill(&f.a, u, other, 10, 256));
  CK_OK(clsStreamSynchronize(u));
  dev_expect(other, 10, 256, "an unrelated stream's buffer");
}
END_TEST

/* The legacy stream waits for the failed blocking stream: its work fails.
 * Loop index 0 and 2: the legacy record is made while the failing command
 * may still be pending; 1 and 3: after the failure is reported.  Both give
 * the same answer (the order of the two no longer decides it). */
START_TEST(legacy_after_failed_blocking_stream_fails) {
  g_cb_mode = _i / 2;
  failed f;
  make_failed(&f, clsStreamDefault);
  if (_i % 2) CK_CLS(settle(f.e), clsErrorLaunchFailure);
  clsEvent_t e2;
  CK_OK(clsEventCreate(&e2));
  CK_OK(clsEventRecord(e2, NULL));
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  CK_CLS(settle(e2), clsErrorLaunchFailure);
  CK_CLS(bg_call_within(bg_stream_sync, NULL, SOON_MS,
                        "clsStreamSynchronize(NULL)"),
         clsErrorLaunchFailure);
}
END_TEST

/* A destroyed blocking stream's failure still reaches legacy work and
 * clsDeviceSynchronize; streams that do not wait for it keep working. */
START_TEST(destroyed_failed_stream_still_fails_legacy_work) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamDefault);
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  CK_OK(clsStreamDestroy(f.s));
  clsEvent_t e2;
  CK_OK(clsEventCreate(&e2));
  CK_OK(clsEventRecord(e2, NULL));
  CK_CLS(settle(e2), clsErrorLaunchFailure);
  CK_CLS(bg_call_within(bg_device_sync, NULL, SOON_MS, "clsDeviceSynchronize"),
         clsErrorLaunchFailure);
  clsStream_t t;
  CK_OK(clsStreamCreateWithFlags(&t, clsStreamNonBlocking));
  int *other = dev_ints(256);
  CK_OK(launch_fill(&f.a, t, other, 13, 256));
  int host[256];
  CK_OK(clsMemcpyAsync(host, other, sizeof host, clsMemcpyDeviceToHost, t));
  CK_OK(clsStreamSynchronize(t));
  for (int i = 0; i < 256; ++i) ck_assert_int_eq(host[i], 13);
}
END_TEST

/* A failed async copy from pageable memory (staged by the library): the
 * stream reports the failure, and the staging copy is freed even when the
 * driver never calls the failed copy's CL_COMPLETE callback (loop index
 * 1; under CLSTREAM_SANITIZE=address LeakSanitizer checks the free). */
START_TEST(failed_pageable_copy_reports_launch_failure) {
  g_cb_mode = _i;
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  int *d = dev_ints(256);
  CK_OK(clsDeviceSynchronize());
  int *h = malloc(256 * sizeof *h);
  for (int i = 0; i < 256; ++i) h[i] = i;
  fail_next_command();
  CK_OK(clsMemcpyAsync(d, h, 256 * sizeof *h, clsMemcpyHostToDevice, s));
  free(h); /* the caller may reuse pageable memory at once */
  CK_CLS(bg_call_within(bg_stream_sync, s, SOON_MS, "clsStreamSynchronize"),
         clsErrorLaunchFailure);
  CK_CLS(clsStreamQuery(s), clsErrorLaunchFailure);
}
END_TEST

/* Whether the error is sticky.  CUDA (13.0 on an H200, measured with a
 * kernel that calls __trap()): yes, for the whole context: afterwards every
 * call returns cudaErrorLaunchFailure, including a query of an event that
 * completed before the failure, a query of another idle stream, creating a
 * stream or an event, a launch, cudaMalloc and cudaDeviceSynchronize; the
 * host function behind the failure did not run, the callback ran once with
 * cudaErrorLaunchFailure.  clstream on OpenCL keeps no error state of its
 * own: the error belongs to the failed command and to the commands
 * ordered after it (through waits and the legacy stream's implicit
 * synchronization, whenever they were enqueued, and, as the driver reports
 * it, later commands of the same in-order queue: the shim fails those too);
 * other streams, new streams and an event re-recorded after the failure
 * work normally.  This test pins that behaviour, a deviation from CUDA. */
START_TEST(error_is_not_sticky) {
  g_cb_mode = _i;
  failed f;
  make_failed(&f, clsStreamNonBlocking);
  CK_CLS(settle(f.e), clsErrorLaunchFailure);
  clsStream_t t;
  CK_OK(clsStreamCreate(&t));
  int *other = dev_ints(256);
  CK_OK(launch_fill(&f.a, t, other, 11, 256));
  CK_OK(clsStreamSynchronize(t));
  dev_expect(other, 11, 256, "a new stream's buffer");
  /* Work enqueued on the failed stream after the failure: the driver
   * (here the shim) fails later commands of the same in-order queue. */
  CK_OK(launch_fill(&f.a, f.s, other, 12, 256));
  CK_CLS(clsStreamSynchronize(f.s), clsErrorLaunchFailure);
  /* Re-recording the event elsewhere replaces the failed record. */
  CK_OK(clsEventRecord(f.e, t));
  CK_OK(clsEventSynchronize(f.e));
  CK_OK(clsEventQuery(f.e));
}
END_TEST

/* A flush that fails leaves commands that may never be submitted: the
 * library flushes the queue again (its monitor thread; on a driver whose
 * flush runs the queue, as Oclgrind's, the calling thread first) until a
 * flush succeeds, with no further call from the program, and the work is
 * done. */
START_TEST(failed_flush_is_retried) {
  shim();
  long (*flushes)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "clsfault_count");
  ck_assert_ptr_nonnull(flushes);
  arith a;
  arith_load(&a);
  int *d = dev_ints(256);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsDeviceSynchronize());
  /* Count only clFlush calls from here; the first fails (-5 is
   * CL_OUT_OF_RESOURCES). */
  fault_config(1, -5, "clFlush", 0, 0);
  CK_OK(launch_fill(&a, s, d, 5, 256));
  /* A record is flushed (others may wait on it) also where launches are
   * not (CLSTREAM_COMMAND_EVENTS=0); the first flush fails. */
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, s));
  const char *fw = getenv("CLSTREAM_FLUSH_WAITED");
  if (fw && !strcmp(fw, "0")) {
    /* NVIDIA's path (facts.c, flush_waited): the driver submits at
     * enqueue, so not even a record is flushed; the work is done all the
     * same, with no flush at all. */
    ck_assert_int_eq(flushes(), 0);
    CK_OK(clsStreamSynchronize(s));
    dev_expect(d, 5, 256, "the buffer of the unflushed commands");
    ck_assert_int_eq(flushes(), 0);
  } else {
    ck_assert_int_ge(flushes(), 1);
    double t0 = now_ms();
    while (flushes() < 2 && now_ms() - t0 < SOON_MS) sleep_ms(1);
    ck_assert_msg(flushes() >= 2, "the failed flush was never retried");
    CK_OK(clsStreamSynchronize(s));
    dev_expect(d, 5, 256, "the buffer behind the failed flush");
  }
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* CL_INVALID_OPERATION: what PoCL 5.0 returns for clEnqueueSVMMemFill
 * on clsMallocHost memory, which is not clSVMAlloc memory. */
#define REFUSED (-59)

/* Whether the current device takes SVM commands for host memory (not a
 * buffer-memory device, where the host does those copies and fills from
 * the start and the refused call is never made). */
static int svm_device(void) {
  int dev;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  return !p.bufferMemory;
}

/* From now on, the first call of `func` is refused as PoCL 5.0 refuses a
 * fill of pinned memory; returns the counter of that function's calls. */
static long (*refuse_first(const char *func))(void) {
  shim();
  long (*count)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "clsfault_count");
  ck_assert_ptr_nonnull(count);
  fault_config(1, REFUSED, func, 0, 0);
  return count;
}

/* An asynchronous fill and copy of pinned memory that the driver refuses
 * (clEnqueueSVMMemFill and clEnqueueSVMMemcpy return CL_INVALID_OPERATION)
 * still succeed, done by the host in stream order: not before the stream's
 * earlier work (a gate, then a device-to-pinned copy that the fill must
 * overwrite), and before its later work. */
START_TEST(refused_host_fill_and_copy_run_on_host_in_order) {
  arith a;
  arith_load(&a);
  enum { n = 256 };
  int *d = dev_ints(n), *pin = NULL, *pin2 = NULL;
  CK_OK(clsMallocHost((void **)&pin, n * sizeof(int)));
  CK_OK(clsMallocHost((void **)&pin2, n * sizeof(int)));
  for (int i = 0; i < n; ++i) pin[i] = pin2[i] = 1;
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsDeviceSynchronize());
  int svm = svm_device();

  /* The fill. */
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, d, 5, n));
  CK_OK(clsMemcpyAsync(pin, d, n * sizeof(int), clsMemcpyDeviceToHost, s));
  long (*calls)(void) = refuse_first("clEnqueueSVMMemFill");
  CK_OK(clsMemsetAsync(pin, 0x02, n * sizeof(int), s));
  if (svm) ck_assert_int_eq(calls(), 1); /* the driver was asked, refused */
  CK_OK(launch_fill(&a, s, d, 6, n));    /* later work of the stream */
  CK_OK(clsMemcpyAsync(pin2, d, n * sizeof(int), clsMemcpyDeviceToHost, s));
  sleep_ms(SETTLE_MS);
  host_expect(pin, 1, n, "pin while the gate holds the stream");
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  host_expect(pin, 0x02020202, n, "pin after the refused fill");
  host_expect(pin2, 6, n, "pin2 after the work behind the fill");

  /* The copy, pinned to pinned. */
  g = gate_new();
  gate_hold(g, s);
  CK_OK(clsMemsetAsync(pin, 0x03, n * sizeof(int), s));
  calls = refuse_first("clEnqueueSVMMemcpy");
  CK_OK(clsMemcpyAsync(pin2, pin, n * sizeof(int), clsMemcpyHostToHost, s));
  if (svm) ck_assert_int_eq(calls(), 1);
  CK_OK(clsMemsetAsync(pin, 0x04, n * sizeof(int), s)); /* after the copy */
  sleep_ms(SETTLE_MS);
  host_expect(pin2, 6, n, "pin2 while the gate holds the stream");
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  host_expect(pin2, 0x03030303, n, "pin2 after the refused copy");
  host_expect(pin, 0x04040404, n, "pin after the fill behind the copy");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFreeHost(pin2));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* The same refused commands from the blocking calls (clsMemset of pinned
 * memory, clsMemcpy host to host): done on the caller's thread after the
 * legacy stream's earlier work, complete when the call returns, with no
 * reason logged (CLSTREAM_LOG=1), since nothing failed. */
START_TEST(refused_blocking_host_fill_and_copy) {
  if (!forked_or_skip("refused_blocking_host_fill_and_copy")) return;
  setenv("CLSTREAM_LOG", "1", 1);
  arith a;
  arith_load(&a);
  enum { n = 256 };
  int *d = dev_ints(n), *pin = NULL, *pin2 = NULL;
  CK_OK(clsMallocHost((void **)&pin, n * sizeof(int)));
  CK_OK(clsMallocHost((void **)&pin2, n * sizeof(int)));
  CK_OK(clsDeviceSynchronize());
  int svm = svm_device();
  capture c;
  capture_begin(&c);
  CK_OK(launch_fill(&a, NULL, d, 5, n));
  CK_OK(clsMemcpyAsync(pin, d, n * sizeof(int), clsMemcpyDeviceToHost, NULL));
  long (*calls)(void) = refuse_first("clEnqueueSVMMemFill");
  CK_OK(clsMemset(pin, 0x07, n * sizeof(int)));
  long fills = calls();
  host_expect(pin, 0x07070707, n, "pin after the refused clsMemset");
  calls = refuse_first("clEnqueueSVMMemcpy");
  CK_OK(clsMemcpy(pin2, pin, n * sizeof(int), clsMemcpyHostToHost));
  long copies = calls();
  host_expect(pin2, 0x07070707, n, "pin2 after the refused clsMemcpy");
  char *log = capture_end(&c);
  ck_assert_msg(!strstr(log, "clstream:"), "a reason was logged: %s", log);
  free(log);
  if (svm) {
    ck_assert_int_eq(fills, 1);
    ck_assert_int_eq(copies, 1);
  }
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFreeHost(pin2));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

int main(void) {
  Suite *s = suite_create("failure");
  TCase *tc = tcase_timed("failed_commands", 30);
  tcase_add_loop_test(tc, event_and_stream_report_launch_failure, 0, 2);
  tcase_add_loop_test(tc, blocking_sync_event_reports_launch_failure, 0, 2);
  tcase_add_loop_test(tc, device_synchronize_reports_launch_failure, 0, 2);
  tcase_add_loop_test(tc, callback_behind_failure_gets_error_status, 0, 2);
  tcase_add_loop_test(tc, host_function_behind_failure_is_skipped_without_hang,
                      0, 2);
  tcase_add_loop_test(tc, wait_on_failed_event_propagates, 0, 2);
  tcase_add_loop_test(tc, wait_on_already_failed_event_propagates, 0, 2);
  tcase_add_loop_test(tc, legacy_after_failed_blocking_stream_fails, 0, 4);
  tcase_add_loop_test(tc, destroyed_failed_stream_still_fails_legacy_work, 0,
                      2);
  tcase_add_loop_test(tc, failed_pageable_copy_reports_launch_failure, 0, 2);
  tcase_add_loop_test(tc, error_is_not_sticky, 0, 2);
  tcase_add_test(tc, failed_flush_is_retried);
  tcase_add_test(tc, refused_blocking_host_fill_and_copy);
  suite_add_tcase(s, tc);
  TCase *tc_gate = tcase_tagged(s, "refused_gate", 30, "gate");
  tcase_add_test(tc_gate, refused_host_fill_and_copy_run_on_host_in_order);
  return run_suite(s);
}
