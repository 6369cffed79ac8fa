/*
 * Helpers shared by the Check test programs (tests/test_*.c).
 *
 * Rules the helpers encode (docs/testing.md, "Adding a test"):
 * - Device objects are created inside each test, never in main(): Check
 *   forks every test and the library must initialize in the child.
 * - "Not ready" states are made deterministic with a gate: a host function
 *   enqueued on a stream that blocks until the test releases it.  Nothing
 *   sleeps in the hope that the device is still busy.
 * - No wall-clock duration of device work is ever asserted.
 */
#ifndef CLS_TEST_SUPPORT_H
#define CLS_TEST_SUPPORT_H

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clstream.h"
#include "clstream_kernels.h"

/* ---- Assertions ------------------------------------------------------ */

/* Asserts that `call` returns `expected`, naming both codes on failure. */
#define CK_CLS(call, expected)                                                 \
  do {                                                                         \
    clsError_t ck_got_ = (call);                                               \
    clsError_t ck_exp_ = (expected);                                           \
    ck_assert_msg(ck_got_ == ck_exp_, "%s: expected %s, got %s (%d)", #call,   \
                  clsGetErrorName(ck_exp_), clsGetErrorName(ck_got_),          \
                  (int)ck_got_);                                               \
  } while (0)
#define CK_OK(call) CK_CLS(call, clsSuccess)

/* Asserts that `call` returns one of two codes. */
#define CK_CLS2(call, exp1, exp2)                                              \
  do {                                                                         \
    clsError_t ck_got_ = (call);                                               \
    ck_assert_msg(ck_got_ == (exp1) || ck_got_ == (exp2),                      \
                  "%s: expected %s or %s, got %s (%d)", #call,                 \
                  clsGetErrorName(exp1), clsGetErrorName(exp2),                \
                  clsGetErrorName(ck_got_), (int)ck_got_);                     \
  } while (0)

/* Asserts that an atomic_int holds `expected`. */
#define CK_ATOMIC_EQ(a, expected)                                              \
  do {                                                                         \
    int ck_v_ = atomic_load(&(a));                                             \
    int ck_w_ = (expected);                                                    \
    ck_assert_msg(ck_v_ == ck_w_, "%s is %d, expected %d", #a, ck_v_, ck_w_);  \
  } while (0)

/* Asserts the thread's last error (and clears it). */
#define CK_LAST(expected) CK_CLS(clsGetLastError(), expected)

/* ---- Time ------------------------------------------------------------ */

/* Time given to a wrong implementation to run ahead before a test checks
 * that something has NOT happened yet.  A correct implementation passes
 * whatever this is (the state is held by a gate); it only makes a broken
 * one fail reliably instead of by chance. */
#define SETTLE_MS 100

/* CLOCK_MONOTONIC in milliseconds. */
double now_ms(void);
/* Sleeps the calling thread (used only to give a wrong implementation the
 * chance to show itself, never to wait for device work). */
void sleep_ms(int ms);
/* CPU time consumed by the calling thread, in milliseconds. */
double thread_cpu_ms(void);
/* Spins the calling thread for `ms` of wall time and returns the share of
 * a CPU it got (CPU time / wall time): how much a spinning waiter would
 * burn on this (possibly loaded) machine. */
double spin_share(int ms);

/* Polls until the event (stream) query is not clsErrorNotReady or
 * `timeout_ms` passes; returns the last result. */
clsError_t poll_event(clsEvent_t e, int timeout_ms);
clsError_t poll_stream(clsStream_t s, int timeout_ms);
/* Polls until *a >= v or the timeout passes; returns *a. */
int wait_atomic_ge(atomic_int *a, int v, int timeout_ms);

/* ---- Gates ----------------------------------------------------------- */

/* A gate holds a stream: gate_hold enqueues a host function that blocks
 * (on a mutex and condition variable, no clstream call) until
 * gate_release.  Gates are heap-allocated and never freed, so a host
 * function can never outlive its gate; all gates are released at exit so
 * that a failing test does not leave the library's thread blocked. */
typedef struct gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int released;
  int entered;   /* the host function has started */
  int finished;  /* the host function has returned */
  int runs;      /* how many times it ran (must end at 1) */
  int timed_out; /* it gave up waiting (a test that never released) */
  pthread_t thread;
  struct gate *next;
} gate;

gate *gate_new(void);
/* Enqueues the gate's host function on s (asserts clsSuccess). */
void gate_hold(gate *g, clsStream_t s);
/* As gate_hold, returning the code instead of asserting. */
clsError_t gate_try_hold(gate *g, clsStream_t s);
/* Waits until the host function has started; 1 if it did. */
int gate_wait_entered(gate *g, int timeout_ms);
/* Lets the host function return.  Fails the test if the host function
 * gave up waiting first (GATE_SAFETY_MS): whatever the test did while the
 * gate was held waited on it. */
void gate_release(gate *g);
/* Waits until the host function has returned; 1 if it did. */
int gate_wait_finished(gate *g, int timeout_ms);
int gate_runs(gate *g);
/* Whether the host function has started (no waiting). */
int gate_entered(gate *g);

/* ---- Host functions -------------------------------------------------- */

/* Host function: atomically increments the atomic_int at p. */
void hf_count(void *p);

/* Host function that records where and how it ran. */
typedef struct hf_probe {
  atomic_int runs;
  pthread_t thread;
  atomic_int order;  /* filled from *clock */
  atomic_int *clock; /* shared sequence counter, may be NULL */
} hf_probe;
void hf_probe_fn(void *p);

/* ---- Background calls ------------------------------------------------ */

/* Runs fn(arg) on a new thread, so that a test can check that a blocking
 * call has not returned while a gate holds the work it waits for. */
typedef struct bg_call {
  pthread_t t;
  clsError_t (*fn)(void *);
  void *arg;
  atomic_int started;
  atomic_int done;
  clsError_t rc;
  double wall_ms; /* duration of fn */
  double cpu_ms;  /* CPU time of the thread during fn */
} bg_call;
void bg_start(bg_call *c, clsError_t (*fn)(void *), void *arg);
int bg_done(bg_call *c);
/* Waits up to timeout_ms for fn to return; 1 if it did. */
int bg_wait_done(bg_call *c, int timeout_ms);
/* Joins the thread and returns fn's result. */
clsError_t bg_join(bg_call *c);
/* Runs fn(arg) on a helper thread and returns its result; fails the test
 * if it has not returned within `ms` (a hang; the thread is left). */
clsError_t bg_call_within(clsError_t (*fn)(void *), void *arg, int ms,
                          const char *what);

/* The check that a blocking call waits for held work: starts fn(arg) in
 * c, sleeps hold_ms, releases g and fails the test if fn had returned
 * before the release; then joins and returns fn's result (c keeps its
 * timings).  `what` names the call in the failure message. */
clsError_t expect_blocked_until_release(bg_call *c, clsError_t (*fn)(void *),
                                        void *arg, gate *g, int hold_ms,
                                        const char *what);

/* Adapters for bg_start. */
clsError_t bg_stream_sync(void *s);      /* clsStreamSynchronize(s) */
clsError_t bg_event_sync(void *e);       /* clsEventSynchronize(e) */
clsError_t bg_device_sync(void *unused); /* clsDeviceSynchronize() */
clsError_t bg_stream_destroy(void *s);   /* clsStreamDestroy(s) */
clsError_t bg_event_destroy(void *e);    /* clsEventDestroy(e) */
clsError_t bg_free(void *p);             /* clsFree(p) */
clsError_t bg_free_host(void *p);        /* clsFreeHost(p) */

/* ---- Kernels --------------------------------------------------------- */

/* Kernel source src (an embedded kernel file, named `what` in the
 * failure) loaded on the current device; the test fails with the build
 * log when it does not build. */
clsModule_t load_source(const char *src, const char *what);
/* Function `name` of m; the test fails when m has none. */
clsFunction_t source_fn(clsModule_t m, const char *name);

/* examples/arith.cl loaded on the current device. */
typedef struct arith {
  clsModule_t mod;
  clsFunction_t scale, add, fill, spin;
} arith;
void arith_load(arith *a);
void arith_unload(arith *a);

/* 1-D launches with blocks of 64 work-items (enough blocks for n). */
clsError_t launch_fill(const arith *a, clsStream_t s, int *t, int v,
                       unsigned n);
clsError_t launch_scale(const arith *a, clsStream_t s, int *t, int k,
                        unsigned n);
clsError_t launch_add(const arith *a, clsStream_t s, const int *x, const int *y,
                      int *out, unsigned n);
clsError_t launch_spin(const arith *a, clsStream_t s, unsigned *out, unsigned n,
                       unsigned iters);

/* ---- Memory ---------------------------------------------------------- */

/* clsMalloc of n ints (asserts). */
int *dev_ints(size_t n);
/* Copies host ints to / from the device with clsMemcpy (asserts). */
void dev_put(int *dev, const int *host, size_t n);
void dev_get(int *host, const int *dev, size_t n);
/* Sets n device ints to v with clsMemcpy from a host array (asserts). */
void dev_set(int *dev, int v, size_t n);
/* Reads n device ints and asserts each equals v, naming the first
 * index that does not (`what` names the buffer in the message). */
void dev_expect(const int *dev, int v, size_t n, const char *what);
/* Asserts host[i] == v for i < n. */
void host_expect(const int *host, int v, size_t n, const char *what);

/* ---- Devices and the environment -------------------------------------- */

/* For tests that need two devices: sets CLSTREAM_SPLIT_DEVICES=2 (must be
 * the first thing in the test, before any clstream call), then picks two
 * selectable devices, the first two CLSTREAM_DEVICE names where it names
 * two.  Returns 0 (after printing a skip note) when there are fewer than
 * two; fails the test instead under CLS_TEST_REQUIRE_TWO_DEVICES=1. */
int two_devices(const char *test, int *a, int *b);

/* 1 when the current device's own profiling timestamps can time work; 0
 * where they cannot (rusticl), where timed events are host-stamped
 * instead (clsDeviceProp's eventHostStamps) and the driver's timestamps
 * (the trace's) mean nothing.  Opens the current device. */
int device_times_work(void);
/* 1 when clsEventElapsedTime times work on the current device: from the
 * device's timestamps or from host stamps (every device since issue 25;
 * 0 only where neither is available).  Opens the current device. */
int events_time_work(void);
/* clsEventElapsedTime(ms, a, b) on completed events: asserts clsSuccess
 * and returns 1 where events time work, else asserts
 * clsErrorNotSupported and returns 0 (*ms untouched). */
int elapsed_or_untimed(float *ms, clsEvent_t a, clsEvent_t b);

/* 1 when Check runs tests in forked children (environment tests need a
 * fresh process); otherwise prints a skip note and returns 0. */
int forked_or_skip(const char *test);

/* Runs fn in a child process (fork) with a pipe for its output; returns
 * the child's exit status, or -1 if it did not exit normally.  `out`
 * receives what the child wrote (NUL-terminated, truncated to outsz). */
int run_child(int (*fn)(int fd, void *arg), void *arg, char *out, size_t outsz);

/* Redirects stderr into a temporary file until capture_end, which returns
 * what was written (malloc'd, NUL-terminated). */
typedef struct capture {
  int saved;
  int fd;
} capture;
void capture_begin(capture *c);
char *capture_end(capture *c);

/* ---- Stream capture (test_capture, test_graph) ------------------------ */

/* A new stream created with `flags`, capturing in `mode` (asserts). */
clsStream_t capturing_stream(unsigned flags, clsStreamCaptureMode mode);
/* Ends the capture on s, checks that it gave a graph, instantiates it,
 * destroys the graph and returns the exec (asserts). */
clsGraphExec_t end_and_instantiate(clsStream_t s);

/* ---- Runner ---------------------------------------------------------- */

/* A test case with a timeout in seconds. */
TCase *tcase_timed(const char *name, double timeout_s);
/* A test case as tcase_timed makes, with Check tags (space-separated),
 * added to s.  The tags name what the cases need that some devices lack,
 * so that a run there leaves them out (CK_EXCLUDE_TAGS):
 *   "gate"     a host function that runs while the test thread goes on
 *              (a gate, or a check that it runs on another thread): not
 *              where host functions run inline (hostFuncsInline: Oclgrind,
 *              CLSTREAM_HOST_INLINE=1);
 *   "threads"  clstream called from several threads at once: not under
 *              Oclgrind, whose runtime is not thread-safe.
 * Cases without a tag run everywhere. */
TCase *tcase_tagged(Suite *s, const char *name, double timeout_s,
                    const char *tags);
/* Runs the suite (CK_NORMAL) and returns the process exit code. */
int run_suite(Suite *s);

#endif /* CLS_TEST_SUPPORT_H */
