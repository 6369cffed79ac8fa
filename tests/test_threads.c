/* Many host threads at once: own streams, shared streams, events across
 * threads, concurrent synchronization, object churn.  Checks buffer
 * contents and that every host function runs exactly once. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NTHREADS = 6, ITERS = 25, LEN = 512 };

static arith g_arith; /* loaded by each test on its main thread */

/* ---- Each thread on its own stream ------------------------------------ */

typedef struct own_arg {
  int id;
  atomic_int slots[ITERS];
  int fail_iter; /* first iteration that went wrong, or -1 */
  char why[160];
} own_arg;

static void *own_stream_worker(void *p) {
  own_arg *a = p;
  a->fail_iter = -1;
  clsStream_t s = NULL;
  clsEvent_t e = NULL;
  int *d = NULL, *pin = NULL;
  clsError_t r;
#define OWN_TRY(call)                                                          \
  do {                                                                         \
    if ((r = (call)) != clsSuccess) {                                          \
      snprintf(a->why, sizeof a->why, "%s: %s", #call, clsGetErrorName(r));    \
      goto out;                                                                \
    }                                                                          \
  } while (0)
  OWN_TRY(clsStreamCreateWithFlags(&s, a->id % 2 ? clsStreamNonBlocking : 0));
  OWN_TRY(clsEventCreate(&e));
  OWN_TRY(clsMalloc((void **)&d, LEN * sizeof(int)));
  OWN_TRY(clsMallocHost((void **)&pin, LEN * sizeof(int)));
  for (int it = 0; it < ITERS; ++it) {
    a->fail_iter = it;
    int v = a->id * 1000 + it;
    OWN_TRY(clsMemsetAsync(d, 0, LEN * sizeof(int), s));
    OWN_TRY(launch_fill(&g_arith, s, d, v, LEN));
    OWN_TRY(launch_scale(&g_arith, s, d, 2, LEN));
    OWN_TRY(clsLaunchHostFunc(s, hf_count, &a->slots[it]));
    OWN_TRY(
        clsMemcpyAsync(pin, d, LEN * sizeof(int), clsMemcpyDeviceToHost, s));
    OWN_TRY(clsEventRecord(e, s));
    r = clsEventQuery(e);
    if (r != clsSuccess && r != clsErrorNotReady) {
      snprintf(a->why, sizeof a->why, "query: %s", clsGetErrorName(r));
      goto out;
    }
    if (it % 3 == 0)
      OWN_TRY(clsEventSynchronize(e));
    else if (it % 3 == 1)
      OWN_TRY(clsStreamSynchronize(s));
    else {
      r = poll_event(e, 20000);
      if (r != clsSuccess) {
        snprintf(a->why, sizeof a->why, "poll: %s", clsGetErrorName(r));
        goto out;
      }
    }
    if (atomic_load(&a->slots[it]) != 1) {
      snprintf(a->why, sizeof a->why, "host function ran %d times",
               atomic_load(&a->slots[it]));
      goto out;
    }
    for (int i = 0; i < LEN; ++i)
      if (pin[i] != 2 * v) {
        snprintf(a->why, sizeof a->why, "pin[%d] = %d, expected %d", i, pin[i],
                 2 * v);
        goto out;
      }
  }
  a->fail_iter = -1;
out:
  if (pin) clsFreeHost(pin);
  if (d) clsFree(d);
  if (e) clsEventDestroy(e);
  if (s) clsStreamDestroy(s);
  return NULL;
#undef OWN_TRY
}

START_TEST(threads_own_streams) {
  arith_load(&g_arith);
  own_arg *args = calloc(NTHREADS, sizeof *args);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; ++t) {
    args[t].id = t + 1;
    ck_assert_int_eq(pthread_create(&th[t], NULL, own_stream_worker, &args[t]),
                     0);
  }
  for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
  CK_OK(clsDeviceSynchronize());
  for (int t = 0; t < NTHREADS; ++t) {
    ck_assert_msg(args[t].fail_iter == -1, "thread %d iteration %d: %s", t,
                  args[t].fail_iter, args[t].why);
    for (int it = 0; it < ITERS; ++it)
      ck_assert_msg(atomic_load(&args[t].slots[it]) == 1,
                    "thread %d host function %d ran %d times", t, it,
                    atomic_load(&args[t].slots[it]));
  }
  free(args);
  arith_unload(&g_arith);
}
END_TEST

/* ---- One function, many threads --------------------------------------- */

/* Threads that launch the same function as fast as they can, each into
 * its own stream with its own buffer and values, meet on the function's
 * lock (a cl_kernel holds one set of arguments) and on its argument cache:
 * a launch that ran with another thread's pointer or value, or with an
 * argument the cache wrongly kept, leaves a wrong value in some buffer.
 * Each launch writes the thread's id and the launch's number, so every
 * launch's arguments differ from the last one's but for the pointer. */
enum { FN_THREADS = 4, FN_LAUNCHES = 300 };

typedef struct fn_arg {
  int id;
  int *d;
  atomic_int *errors;
} fn_arg;

static void *one_function_worker(void *p) {
  fn_arg *a = p;
  clsStream_t s;
  if (clsStreamCreate(&s) != clsSuccess) {
    atomic_fetch_add(a->errors, 1);
    return NULL;
  }
  for (int k = 0; k < FN_LAUNCHES; ++k)
    if (launch_fill(&g_arith, s, a->d, a->id * 100000 + k, LEN) != clsSuccess)
      atomic_fetch_add(a->errors, 1);
  if (clsStreamSynchronize(s) != clsSuccess) atomic_fetch_add(a->errors, 1);
  clsStreamDestroy(s);
  return NULL;
}

START_TEST(threads_one_function_many_streams) {
  arith_load(&g_arith);
  atomic_int errors = 0;
  fn_arg args[FN_THREADS];
  pthread_t th[FN_THREADS];
  for (int t = 0; t < FN_THREADS; ++t) {
    args[t] = (fn_arg){t + 1, dev_ints(LEN), &errors};
    dev_set(args[t].d, -1, LEN);
  }
  for (int t = 0; t < FN_THREADS; ++t)
    ck_assert_int_eq(
        pthread_create(&th[t], NULL, one_function_worker, &args[t]), 0);
  for (int t = 0; t < FN_THREADS; ++t) pthread_join(th[t], NULL);
  CK_ATOMIC_EQ(errors, 0);
  int h[LEN];
  for (int t = 0; t < FN_THREADS; ++t) {
    dev_get(h, args[t].d, LEN);
    host_expect(h, (t + 1) * 100000 + FN_LAUNCHES - 1, LEN, "thread buffer");
    CK_OK(clsFree(args[t].d));
  }
  arith_unload(&g_arith);
}
END_TEST

/* ---- Threads sharing streams ------------------------------------------ */

enum { PER_THREAD_FNS = 40 };

typedef struct shared_state {
  clsStream_t s[2];
  atomic_int runs[NTHREADS][PER_THREAD_FNS];
  atomic_int last_seq[NTHREADS][2]; /* per thread and stream */
  atomic_int order_errors;
  atomic_int inside[2];
  atomic_int overlap_errors;
  atomic_int submit_errors;
} shared_state;

typedef struct shared_job {
  shared_state *st;
  int thread, seq, stream;
} shared_job;

static void hf_shared(void *p) {
  shared_job *j = p;
  shared_state *st = j->st;
  if (atomic_fetch_add(&st->inside[j->stream], 1) != 0)
    atomic_fetch_add(&st->overlap_errors, 1);
  /* One thread's functions on one stream run in submission order. */
  int prev = atomic_exchange(&st->last_seq[j->thread][j->stream], j->seq);
  if (prev >= j->seq) atomic_fetch_add(&st->order_errors, 1);
  atomic_fetch_add(&st->runs[j->thread][j->seq], 1);
  atomic_fetch_sub(&st->inside[j->stream], 1);
}

typedef struct shared_arg {
  shared_state *st;
  int thread;
  shared_job jobs[PER_THREAD_FNS];
} shared_arg;

static void *shared_worker(void *p) {
  shared_arg *a = p;
  for (int k = 0; k < PER_THREAD_FNS; ++k) {
    shared_job *j = &a->jobs[k];
    j->st = a->st;
    j->thread = a->thread;
    j->seq = k;
    j->stream = (k + a->thread) % 2;
    if (clsLaunchHostFunc(a->st->s[j->stream], hf_shared, j) != clsSuccess)
      atomic_fetch_add(&a->st->submit_errors, 1);
    if (k % 10 == 9) {
      clsError_t r = clsStreamQuery(a->st->s[j->stream]);
      if (r != clsSuccess && r != clsErrorNotReady)
        atomic_fetch_add(&a->st->submit_errors, 1);
    }
  }
  return NULL;
}

START_TEST(threads_shared_streams) {
  shared_state *st = calloc(1, sizeof *st);
  for (int t = 0; t < NTHREADS; ++t)
    for (int k = 0; k < 2; ++k) atomic_store(&st->last_seq[t][k], -1);
  CK_OK(clsStreamCreate(&st->s[0]));
  CK_OK(clsStreamCreateWithFlags(&st->s[1], clsStreamNonBlocking));
  /* Hold both streams so that every submission queues up behind. */
  gate *g0 = gate_new(), *g1 = gate_new();
  gate_hold(g0, st->s[0]);
  gate_hold(g1, st->s[1]);
  shared_arg *args = calloc(NTHREADS, sizeof *args);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; ++t) {
    args[t].st = st;
    args[t].thread = t;
    ck_assert_int_eq(pthread_create(&th[t], NULL, shared_worker, &args[t]), 0);
  }
  for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < NTHREADS; ++t)
    for (int k = 0; k < PER_THREAD_FNS; ++k) CK_ATOMIC_EQ(st->runs[t][k], 0);
  CK_CLS(clsStreamQuery(st->s[0]), clsErrorNotReady);
  gate_release(g0);
  gate_release(g1);
  CK_OK(clsStreamSynchronize(st->s[0]));
  CK_OK(clsStreamSynchronize(st->s[1]));
  CK_ATOMIC_EQ(st->submit_errors, 0);
  CK_ATOMIC_EQ(st->overlap_errors, 0);
  CK_ATOMIC_EQ(st->order_errors, 0);
  for (int t = 0; t < NTHREADS; ++t)
    for (int k = 0; k < PER_THREAD_FNS; ++k)
      ck_assert_msg(atomic_load(&st->runs[t][k]) == 1,
                    "thread %d function %d ran %d times", t, k,
                    atomic_load(&st->runs[t][k]));
  CK_OK(clsStreamDestroy(st->s[0]));
  CK_OK(clsStreamDestroy(st->s[1]));
  free(args);
  free(st);
}
END_TEST

/* Kernels from many threads into one shared stream keep stream order.
 * Each thread owns a region and alternates +1 and *2 on it, ten times:
 * from 0 that gives 2046, and any lost, repeated or reordered launch gives
 * another value (each +1 is weighted by the *2s after it).  The main
 * thread's fill before and +1, *3 after the workers' launches show that
 * all of them ran between the two, in the order they were enqueued. */
/* Regions of 128 ints (512 bytes) start at offsets that every device
 * accepts for a kernel argument inside an allocation (on buffer-memory
 * devices a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN, up to 512 bytes on
 * rusticl); a tail no thread owns follows. */
enum { KREGION = 128, KLEN = NTHREADS * KREGION + 64, KROUNDS = 10 };

typedef struct kern_arg {
  clsStream_t s;
  int *d;          /* the thread's region, KREGION ints */
  const int *ones; /* KREGION ones */
  atomic_int *errors;
} kern_arg;

static void *shared_kernel_worker(void *p) {
  kern_arg *a = p;
  for (int k = 0; k < KROUNDS; ++k) {
    if (launch_add(&g_arith, a->s, a->d, a->ones, a->d, KREGION) != clsSuccess)
      atomic_fetch_add(a->errors, 1);
    if (launch_scale(&g_arith, a->s, a->d, 2, KREGION) != clsSuccess)
      atomic_fetch_add(a->errors, 1);
  }
  return NULL;
}

START_TEST(threads_kernels_into_shared_stream) {
  arith_load(&g_arith);
  int *d = dev_ints(KLEN);
  int *ones = dev_ints(KLEN);
  dev_set(d, 7, KLEN);
  dev_set(ones, 1, KLEN);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  /* Before every worker launch: a worker kernel run early is erased. */
  CK_OK(launch_fill(&g_arith, s, d, 0, KLEN));
  atomic_int errors = 0;
  kern_arg args[NTHREADS];
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; ++t) {
    args[t] = (kern_arg){s, d + t * KREGION, ones, &errors};
    ck_assert_int_eq(
        pthread_create(&th[t], NULL, shared_kernel_worker, &args[t]), 0);
  }
  for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
  /* After every worker launch: a worker kernel run late shows. */
  CK_OK(launch_add(&g_arith, s, d, ones, d, KLEN));
  CK_OK(launch_scale(&g_arith, s, d, 3, KLEN));
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_ATOMIC_EQ(errors, 0);
  int h[KLEN];
  dev_get(h, d, KLEN);
  int rounds = 0; /* (0 + 1) * 2, KROUNDS times: 2^(KROUNDS+1) - 2 */
  for (int k = 0; k < KROUNDS; ++k) rounds = (rounds + 1) * 2;
  ck_assert_int_eq(rounds, 2046);
  for (int t = 0; t < NTHREADS; ++t)
    host_expect(h + t * KREGION, (rounds + 1) * 3, KREGION, "thread region");
  /* The elements no thread owns got only the main thread's kernels. */
  host_expect(h + NTHREADS * KREGION, 3, KLEN - NTHREADS * KREGION, "tail");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  CK_OK(clsFree(ones));
  arith_unload(&g_arith);
}
END_TEST

/* ---- Events across threads -------------------------------------------- */

enum { NBUF = 12 };

typedef struct xev {
  clsStream_t sp, sc;
  clsEvent_t ev[NBUF];
  int *src[NBUF], *dst[NBUF];
  atomic_int recorded; /* how many events the producer recorded */
  atomic_int errors;
  char why[160];
} xev;

static void *producer(void *p) {
  xev *x = p;
  for (int k = 0; k < NBUF; ++k) {
    if (launch_fill(&g_arith, x->sp, x->src[k], k + 100, LEN) != clsSuccess ||
        clsEventRecord(x->ev[k], x->sp) != clsSuccess)
      atomic_fetch_add(&x->errors, 1);
    atomic_store(&x->recorded, k + 1);
  }
  return NULL;
}

static void *consumer(void *p) {
  xev *x = p;
  for (int k = 0; k < NBUF; ++k) {
    wait_atomic_ge(&x->recorded, k + 1, 30000);
    if (clsStreamWaitEvent(x->sc, x->ev[k], 0) != clsSuccess ||
        clsMemcpyAsync(x->dst[k], x->src[k], LEN * sizeof(int),
                       clsMemcpyDeviceToDevice, x->sc) != clsSuccess)
      atomic_fetch_add(&x->errors, 1);
  }
  return NULL;
}

START_TEST(threads_events_across_threads) {
  arith_load(&g_arith);
  xev *x = calloc(1, sizeof *x);
  CK_OK(clsStreamCreateWithFlags(&x->sp, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&x->sc, clsStreamNonBlocking));
  for (int k = 0; k < NBUF; ++k) {
    CK_OK(clsEventCreateWithFlags(&x->ev[k], k % 2 ? clsEventDisableTiming
                                                   : clsEventDefault));
    x->src[k] = dev_ints(LEN);
    x->dst[k] = dev_ints(LEN);
    dev_set(x->src[k], -1, LEN);
    dev_set(x->dst[k], -2, LEN);
  }
  gate *g = gate_new();
  gate_hold(g, x->sp); /* the producer's work cannot run yet */
  pthread_t tp, tc;
  ck_assert_int_eq(pthread_create(&tp, NULL, producer, x), 0);
  ck_assert_int_eq(pthread_create(&tc, NULL, consumer, x), 0);
  pthread_join(tp, NULL);
  pthread_join(tc, NULL);
  clsEvent_t done;
  CK_OK(clsEventCreate(&done));
  CK_OK(clsEventRecord(done, x->sc));
  CK_CLS(clsEventQuery(done), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsEventSynchronize(done));
  CK_ATOMIC_EQ(x->errors, 0);
  for (int k = 0; k < NBUF; ++k) {
    char what[32];
    snprintf(what, sizeof what, "dst[%d]", k);
    dev_expect(x->dst[k], k + 100, LEN, what);
  }
  CK_OK(clsEventDestroy(done));
  for (int k = 0; k < NBUF; ++k) {
    CK_OK(clsEventDestroy(x->ev[k]));
    CK_OK(clsFree(x->src[k]));
    CK_OK(clsFree(x->dst[k]));
  }
  CK_OK(clsStreamDestroy(x->sp));
  CK_OK(clsStreamDestroy(x->sc));
  free(x);
  arith_unload(&g_arith);
}
END_TEST

/* ---- Many threads waiting on the same objects ------------------------- */

typedef struct waiter {
  clsStream_t s;
  clsEvent_t e;
  int kind;
  atomic_int *after; /* must be 1 when the wait returns */
  atomic_int done;
  clsError_t rc;
  int saw_after;
} waiter;

static void *wait_worker(void *p) {
  waiter *w = p;
  switch (w->kind) {
  case 0:
    w->rc = clsEventSynchronize(w->e);
    break;
  case 1:
    w->rc = clsStreamSynchronize(w->s);
    break;
  case 2:
    w->rc = clsDeviceSynchronize();
    break;
  default:
    w->rc = poll_event(w->e, 30000);
    break;
  }
  w->saw_after = atomic_load(w->after);
  atomic_store(&w->done, 1);
  return NULL;
}

START_TEST(threads_concurrent_synchronize) {
  clsStream_t s;
  clsEvent_t e, ebs;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventCreateWithFlags(&ebs, clsEventBlockingSync));
  gate *g = gate_new();
  atomic_int after = 0;
  gate_hold(g, s);
  CK_OK(clsLaunchHostFunc(s, hf_count, &after));
  CK_OK(clsEventRecord(e, s));
  CK_OK(clsEventRecord(ebs, s));
  enum { NW = 8 };
  waiter w[NW];
  pthread_t th[NW];
  for (int i = 0; i < NW; ++i) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].s = s;
    w[i].e = i == 4 ? ebs : e;
    w[i].kind = i % 4;
    w[i].after = &after;
    w[i].rc = clsErrorUnknown;
    ck_assert_int_eq(pthread_create(&th[i], NULL, wait_worker, &w[i]), 0);
  }
  sleep_ms(150);
  for (int i = 0; i < NW; ++i)
    ck_assert_msg(!atomic_load(&w[i].done),
                  "waiter %d (kind %d) returned "
                  "while held",
                  i, w[i].kind);
  gate_release(g);
  for (int i = 0; i < NW; ++i) pthread_join(th[i], NULL);
  for (int i = 0; i < NW; ++i) {
    ck_assert_msg(w[i].rc == clsSuccess, "waiter %d: %s", i,
                  clsGetErrorName(w[i].rc));
    ck_assert_msg(w[i].saw_after == 1,
                  "waiter %d returned before the host "
                  "function ran",
                  i);
  }
  CK_OK(clsEventDestroy(e));
  CK_OK(clsEventDestroy(ebs));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* ---- Object churn and stale handles ------------------------------------ */

typedef struct churn_arg {
  int id;
  atomic_int *hf_runs;
  atomic_int *hf_expected;
  clsEvent_t stale_event;
  clsStream_t stale_stream;
  char why[160];
  int failed;
} churn_arg;

static void *churn_worker(void *p) {
  churn_arg *a = p;
  clsError_t r;
#define CHURN_TRY(call)                                                        \
  do {                                                                         \
    if ((r = (call)) != clsSuccess) {                                          \
      snprintf(a->why, sizeof a->why, "%s: %s", #call, clsGetErrorName(r));    \
      a->failed = 1;                                                           \
      return NULL;                                                             \
    }                                                                          \
  } while (0)
  for (int it = 0; it < 40; ++it) {
    clsStream_t s;
    clsEvent_t e;
    CHURN_TRY(clsStreamCreateWithFlags(&s, it % 2 ? clsStreamNonBlocking : 0));
    CHURN_TRY(clsEventCreateWithFlags(&e, it % 3 ? clsEventDisableTiming : 0));
    CHURN_TRY(clsLaunchHostFunc(s, hf_count, a->hf_runs));
    atomic_fetch_add(a->hf_expected, 1);
    CHURN_TRY(clsEventRecord(e, s));
    CHURN_TRY(clsStreamWaitEvent(clsStreamPerThread, e, 0));
    if (it % 4 == 0) CHURN_TRY(clsEventSynchronize(e));
    /* Destroy with work possibly pending. */
    CHURN_TRY(clsEventDestroy(e));
    CHURN_TRY(clsStreamDestroy(s));
    if (it == 0) {
      a->stale_event = e;
      a->stale_stream = s;
    }
    r = clsEventQuery(e);
    if (r != clsErrorInvalidResourceHandle) {
      snprintf(a->why, sizeof a->why, "query of destroyed event: %s",
               clsGetErrorName(r));
      a->failed = 1;
      return NULL;
    }
  }
  CHURN_TRY(clsStreamSynchronize(clsStreamPerThread));
  return NULL;
#undef CHURN_TRY
}

START_TEST(threads_object_churn) {
  atomic_int runs = 0, expected = 0;
  churn_arg args[NTHREADS];
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; ++t) {
    memset(&args[t], 0, sizeof args[t]);
    args[t].id = t;
    args[t].hf_runs = &runs;
    args[t].hf_expected = &expected;
    ck_assert_int_eq(pthread_create(&th[t], NULL, churn_worker, &args[t]), 0);
  }
  for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
  CK_OK(clsDeviceSynchronize());
  for (int t = 0; t < NTHREADS; ++t)
    ck_assert_msg(!args[t].failed, "thread %d: %s", t, args[t].why);
  ck_assert_int_eq(wait_atomic_ge(&runs, atomic_load(&expected), 20000),
                   atomic_load(&expected));
  CK_ATOMIC_EQ(runs, NTHREADS * 40);
  /* Handles another thread destroyed are invalid here too. */
  for (int t = 0; t < NTHREADS; ++t) {
    CK_CLS(clsEventQuery(args[t].stale_event), clsErrorInvalidResourceHandle);
    CK_CLS(clsStreamQuery(args[t].stale_stream), clsErrorInvalidResourceHandle);
    CK_CLS(clsEventDestroy(args[t].stale_event), clsErrorInvalidResourceHandle);
  }
}
END_TEST

/* ---- Synchronous copies from many threads ------------------------------ */

typedef struct sync_copy_arg {
  int id;
  int failed;
  char why[160];
} sync_copy_arg;

static void *sync_copy_worker(void *p) {
  sync_copy_arg *a = p;
  clsStream_t s = NULL;
  int *d = NULL;
  int h[LEN];
  clsError_t r;
  if ((r = clsStreamCreate(&s)) != clsSuccess ||
      (r = clsMalloc((void **)&d, LEN * sizeof(int))) != clsSuccess) {
    snprintf(a->why, sizeof a->why, "setup: %s", clsGetErrorName(r));
    a->failed = 1;
    goto out;
  }
  for (int it = 0; it < 10; ++it) {
    int v = a->id * 100 + it;
    /* Work on this thread's blocking stream, then a synchronous copy on
     * the legacy stream: the copy waits for the fill. */
    if ((r = launch_fill(&g_arith, s, d, v, LEN)) != clsSuccess ||
        (r = clsMemcpy(h, d, sizeof h, clsMemcpyDeviceToHost)) != clsSuccess) {
      snprintf(a->why, sizeof a->why, "iteration %d: %s", it,
               clsGetErrorName(r));
      a->failed = 1;
      goto out;
    }
    for (int i = 0; i < LEN; ++i)
      if (h[i] != v) {
        snprintf(a->why, sizeof a->why, "iteration %d: h[%d] = %d, want %d", it,
                 i, h[i], v);
        a->failed = 1;
        goto out;
      }
  }
out:
  if (d) clsFree(d);
  if (s) clsStreamDestroy(s);
  return NULL;
}

START_TEST(threads_sync_memcpy_sees_own_stream_work) {
  arith_load(&g_arith);
  sync_copy_arg args[NTHREADS];
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; ++t) {
    memset(&args[t], 0, sizeof args[t]);
    args[t].id = t + 1;
    ck_assert_int_eq(pthread_create(&th[t], NULL, sync_copy_worker, &args[t]),
                     0);
  }
  for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < NTHREADS; ++t)
    ck_assert_msg(!args[t].failed, "thread %d: %s", t, args[t].why);
  arith_unload(&g_arith);
}
END_TEST

/* ---- Per-thread default streams in parallel ---------------------------- */

typedef struct ptd_arg {
  int id;
  atomic_int runs;
  int failed;
  char why[160];
} ptd_arg;

static void *ptd_worker(void *p) {
  ptd_arg *a = p;
  int *d = NULL;
  clsError_t r;
  int h[LEN];
  if ((r = clsMalloc((void **)&d, LEN * sizeof(int))) != clsSuccess) goto bad;
  for (int it = 0; it < 10; ++it) {
    int v = a->id * 10 + it;
    if ((r = launch_fill(&g_arith, clsStreamPerThread, d, v, LEN)) !=
            clsSuccess ||
        (r = clsLaunchHostFunc(clsStreamPerThread, hf_count, &a->runs)) !=
            clsSuccess ||
        (r = clsMemcpyAsync(h, d, sizeof h, clsMemcpyDeviceToHost,
                            clsStreamPerThread)) != clsSuccess ||
        (r = clsStreamSynchronize(clsStreamPerThread)) != clsSuccess)
      goto bad;
    if (atomic_load(&a->runs) != it + 1) {
      snprintf(a->why, sizeof a->why, "iteration %d: %d host functions ran", it,
               atomic_load(&a->runs));
      a->failed = 1;
      break;
    }
    for (int i = 0; i < LEN; ++i)
      if (h[i] != v) {
        snprintf(a->why, sizeof a->why, "iteration %d: h[%d] = %d", it, i,
                 h[i]);
        a->failed = 1;
        goto out;
      }
  }
  goto out;
bad:
  snprintf(a->why, sizeof a->why, "%s", clsGetErrorName(r));
  a->failed = 1;
out:
  if (d) clsFree(d);
  return NULL;
}

START_TEST(threads_per_thread_streams) {
  arith_load(&g_arith);
  ptd_arg args[NTHREADS];
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; ++t) {
    memset(&args[t], 0, sizeof args[t]);
    args[t].id = t + 1;
    ck_assert_int_eq(pthread_create(&th[t], NULL, ptd_worker, &args[t]), 0);
  }
  for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < NTHREADS; ++t) {
    ck_assert_msg(!args[t].failed, "thread %d: %s", t, args[t].why);
    CK_ATOMIC_EQ(args[t].runs, 10);
  }
  arith_unload(&g_arith);
}
END_TEST

/* ---- Host job records outlive the thread that made them ---------------- */

enum { NJOBS = 20 }; /* more than a thread's ring of records (stream.c) */

typedef struct order_arg {
  atomic_int *clock;
  atomic_int seen; /* the clock's value when this one ran, plus one */
} order_arg;

static void hf_order(void *p) {
  order_arg *o = p;
  atomic_store(&o->seen, atomic_fetch_add(o->clock, 1) + 1);
}

typedef struct jobs_arg {
  clsStream_t s;
  order_arg *o;
  clsError_t r;
} jobs_arg;

static void *jobs_worker(void *p) {
  jobs_arg *a = p;
  a->r = clsSuccess;
  for (int i = 0; i < NJOBS && a->r == clsSuccess; ++i)
    a->r = clsLaunchHostFunc(a->s, hf_order, &a->o[i]);
  return NULL; /* exits with its jobs still waiting behind the gate */
}

/* A thread queues more host functions than it keeps records for, behind
 * a gate, and exits before any runs: all of them still run, once each
 * and in order (and under the sanitizers nothing leaks); then the main
 * thread does the same with its own records. */
START_TEST(threads_host_jobs_outlive_their_thread) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  for (int round = 0; round < 2; ++round) {
    atomic_int clock;
    atomic_init(&clock, 0);
    order_arg o[NJOBS];
    for (int i = 0; i < NJOBS; ++i) {
      o[i].clock = &clock;
      atomic_init(&o[i].seen, 0);
    }
    gate *g = gate_new();
    gate_hold(g, s);
    jobs_arg a = {s, o, clsSuccess};
    if (round == 0) {
      pthread_t th;
      ck_assert_int_eq(pthread_create(&th, NULL, jobs_worker, &a), 0);
      pthread_join(th, NULL);
    } else {
      jobs_worker(&a);
    }
    CK_OK(a.r);
    ck_assert_int_eq(atomic_load(&o[0].seen), 0); /* the gate holds them */
    gate_release(g);
    CK_OK(clsStreamSynchronize(s));
    for (int i = 0; i < NJOBS; ++i)
      ck_assert_msg(atomic_load(&o[i].seen) == i + 1,
                    "round %d: job %d ran as number %d", round, i,
                    atomic_load(&o[i].seen));
  }
  CK_OK(clsStreamDestroy(s));
}
END_TEST

int main(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_timed("threads", 120);
  TCase *tc_gate_threads =
      tcase_tagged(s, "threads_gate_threads", 120, "gate threads");
  TCase *tc_threads = tcase_tagged(s, "threads_threads", 120, "threads");
  tcase_add_test(tc_threads, threads_own_streams);
  tcase_add_test(tc_threads, threads_one_function_many_streams);
  tcase_add_test(tc_gate_threads, threads_shared_streams);
  tcase_add_test(tc_gate_threads, threads_kernels_into_shared_stream);
  tcase_add_test(tc_gate_threads, threads_events_across_threads);
  tcase_add_test(tc_gate_threads, threads_concurrent_synchronize);
  tcase_add_test(tc_threads, threads_object_churn);
  tcase_add_test(tc_threads, threads_sync_memcpy_sees_own_stream_work);
  tcase_add_test(tc_threads, threads_per_thread_streams);
  tcase_add_test(tc_gate_threads, threads_host_jobs_outlive_their_thread);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
