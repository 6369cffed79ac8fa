/* Stress: 16 threads share streams and events for a bounded time (issue 3,
 * point 5).
 *
 * Each thread draws operations at random (seeded, per thread) on shared
 * streams (two blocking, one non-blocking, the legacy stream) and shared
 * events: record, query, synchronize, StreamWaitEvent, host functions and
 * callbacks, async memsets and copies, kernel launches of one shared
 * function, elapsed time; and it creates and destroys its own streams,
 * events and modules, often with work still pending.  Shared objects are
 * destroyed only at the end, by the main thread.
 *
 * What must hold:
 * - every call returns clsSuccess (queries: or clsErrorNotReady; elapsed
 *   time of shared events: or NotReady / InvalidResourceHandle while an
 *   event has not been recorded yet);
 * - every host function and callback whose enqueue returned clsSuccess runs
 *   exactly once (each carries a token; a second run or a missing run fails
 *   the test), host functions on a thread's own stream run in the order
 *   they were enqueued, and callbacks get clsSuccess;
 * - nothing deadlocks: a watchdog thread fails the test (printing each
 *   thread's last operation) when a thread has been inside one call, or no
 *   thread has made progress, for CLSTREAM_STRESS_WATCHDOG seconds (30).
 *
 * CLSTREAM_STRESS_SECONDS sets the duration (10 by default),
 * CLSTREAM_STRESS_SEED the seed (printed, so a run can be repeated; the
 * interleaving of threads is not reproducible, only each thread's choices),
 * CLSTREAM_STRESS_SKIP a bit mask of operations (bit n: enum op n, 1 for
 * records up to 16 for own modules) that are drawn but not made, to narrow
 * down which of them a failure needs.
 * Run it under TSan with -DCLSTREAM_SANITIZE=thread. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 16
#define NSTREAMS 3 /* created shared streams; the legacy stream is a 4th */
#define NEVENTS 6
#define MAX_TOKENS (1u << 22)
#define BUF_INTS 256 /* per region */
/* Each thread's device buffer (and pinned buffer) has one region per
 * stream it may use: the shared streams, the legacy stream, its per-thread
 * stream and its own streams.  Commands of two streams never touch the
 * same bytes, so the device work itself has no data race (TSan sees the
 * driver's memset/memcpy). */
#define REGION_LEGACY NSTREAMS
#define REGION_PER_THREAD (NSTREAMS + 1)
#define REGION_OWN (NSTREAMS + 2)
#define NREGIONS (NSTREAMS + 3)
#define REGION_BYTES (BUF_INTS * sizeof(int))

/* ---- Operations and the watchdog's view of each thread ------------------ */

enum op {
  OP_IDLE,
  OP_RECORD,
  OP_EVENT_QUERY,
  OP_EVENT_SYNC,
  OP_STREAM_QUERY,
  OP_STREAM_SYNC,
  OP_WAIT_EVENT,
  OP_HOST_FUNC,
  OP_CALLBACK,
  OP_MEMSET,
  OP_MEMCPY,
  OP_LAUNCH,
  OP_ELAPSED,
  OP_OWN_STREAM,
  OP_OWN_EVENT,
  OP_DEVICE_SYNC,
  OP_OWN_MODULE,
  OP_SETUP,
  OP_FINAL_SYNC,
  OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
    "idle (between calls)",
    "clsEventRecord(shared event, shared stream)",
    "clsEventQuery(shared event)",
    "clsEventSynchronize(shared event)",
    "clsStreamQuery(shared stream)",
    "clsStreamSynchronize(shared stream)",
    "clsStreamWaitEvent(shared stream, shared event)",
    "clsLaunchHostFunc(shared stream)",
    "clsStreamAddCallback(shared stream)",
    "clsMemsetAsync(own buffer, shared stream)",
    "clsMemcpyAsync(own buffer -> pinned, shared stream)",
    "clsLaunchKernel(shared function, shared stream)",
    "clsEventElapsedTime(shared events)",
    "own stream: create, enqueue, destroy",
    "own event: create, record, query/sync, destroy",
    "clsDeviceSynchronize",
    "own module: load, get functions, launch, unload",
    "setup",
    "final synchronization",
};

typedef struct worker {
  int index;
  int untimed; /* the device cannot time work (device_times_work) */
  unsigned seed;
  pthread_t thread;
  atomic_int op;              /* enum op now running */
  atomic_llong op_since_ns;   /* when it started; 0 when idle */
  atomic_llong progress;      /* completed operations */
  long long per_op[OP_COUNT]; /* read after join */
  int *buf;                   /* own device buffer */
  int *pinned;                /* own pinned host buffer */
  atomic_uint *keep[64];      /* own streams' order counters, see below */
  unsigned nkeep;
  clsEvent_t own_prev; /* the previous own stream's last work */
} worker;
#define KEEP_MAX 64

/* Frees the order counters of own streams, once a device synchronization
 * has made sure that no host function of theirs is pending. */
static void free_kept(worker *w) {
  for (unsigned i = 0; i < w->nkeep; i++) free(w->keep[i]);
  w->nkeep = 0;
}

/* ---- Shared state ------------------------------------------------------- */

static clsStream_t shared_streams[NSTREAMS + 1]; /* [NSTREAMS] = legacy */
static clsEvent_t shared_events[NEVENTS];
static arith kernels;
static worker workers[NTHREADS + 1]; /* [NTHREADS] = the main thread */

static atomic_uchar *token_runs; /* runs per token */
static atomic_uint next_token;
static atomic_llong hf_enqueued, hf_ran, hf_double, cb_bad_status;
static atomic_llong order_violations;

static atomic_int failed;
static char failure[512];
static pthread_mutex_t failure_mu = PTHREAD_MUTEX_INITIALIZER;

static int stop_watchdog;
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv = PTHREAD_COND_INITIALIZER;
static int watchdog_s = 30;
static unsigned long skip_ops; /* CLSTREAM_STRESS_SKIP */

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  int n = atoi(v);
  return n > 0 ? n : dflt;
}

/* Records the first unexpected result; the thread then stops. */
static void fail_with(worker *w, const char *what, clsError_t got) {
  pthread_mutex_lock(&failure_mu);
  if (!atomic_load(&failed)) {
    snprintf(failure, sizeof failure, "thread %d: %s returned %s (%d)",
             w->index, what, clsGetErrorName(got), (int)got);
    atomic_store(&failed, 1);
  }
  pthread_mutex_unlock(&failure_mu);
}

#define EXPECT_OK(w, call)                                                     \
  do {                                                                         \
    clsError_t r_ = (call);                                                    \
    if (r_ != clsSuccess) {                                                    \
      fail_with((w), #call, r_);                                               \
      return;                                                                  \
    }                                                                          \
  } while (0)

#define EXPECT_READY_OR_NOT(w, call)                                           \
  do {                                                                         \
    clsError_t r_ = (call);                                                    \
    if (r_ != clsSuccess && r_ != clsErrorNotReady) {                          \
      fail_with((w), #call, r_);                                               \
      return;                                                                  \
    }                                                                          \
  } while (0)

static void op_begin(worker *w, enum op op) {
  atomic_store(&w->op, (int)op);
  atomic_store(&w->op_since_ns, now_ns());
}

static void op_end(worker *w, enum op op) {
  w->per_op[op]++;
  atomic_store(&w->op_since_ns, 0);
  atomic_store(&w->op, OP_IDLE);
  atomic_fetch_add(&w->progress, 1);
}

/* ---- Host functions with tokens ------------------------------------------ */

/* A host function's payload.  Heap-allocated by the enqueuer and freed by
 * the host function; `seq`/`last` check in-order runs on an own stream. */
typedef struct token_job {
  unsigned token;
  unsigned seq;      /* 1, 2, ... on an own stream; 0 elsewhere */
  atomic_uint *last; /* the own stream's last run seq, or NULL */
} token_job;

static void token_ran(token_job *j) {
  if (atomic_fetch_add(&token_runs[j->token], 1) != 0)
    atomic_fetch_add(&hf_double, 1);
  if (j->last) {
    unsigned prev = atomic_exchange(j->last, j->seq);
    if (prev + 1 != j->seq) atomic_fetch_add(&order_violations, 1);
  }
  atomic_fetch_add(&hf_ran, 1);
}

static void token_host_fn(void *p) {
  token_job *j = p;
  token_ran(j);
  free(j);
}

static void token_callback(clsStream_t s, clsError_t status, void *p) {
  (void)s;
  if (status != clsSuccess) atomic_fetch_add(&cb_bad_status, 1);
  token_host_fn(p);
}

/* Enqueues a host function (or, if `callback`, a stream callback) carrying
 * a fresh token; counts it as enqueued only if the call succeeded. */
static clsError_t enqueue_token(clsStream_t s, int callback, unsigned seq,
                                atomic_uint *last) {
  unsigned t = atomic_fetch_add(&next_token, 1);
  if (t >= MAX_TOKENS) return clsSuccess; /* pool used up: skip quietly */
  token_job *j = malloc(sizeof *j);
  if (!j) return clsErrorMemoryAllocation;
  j->token = t;
  j->seq = seq;
  j->last = last;
  clsError_t r = callback ? clsStreamAddCallback(s, token_callback, j, 0)
                          : clsLaunchHostFunc(s, token_host_fn, j);
  if (r == clsSuccess)
    atomic_fetch_add(&hf_enqueued, 1);
  else
    free(j); /* it never runs: its token stays at 0 runs */
  return r;
}

/* ---- One thread's loop -----------------------------------------------------
 */

/* A stream this thread may use and, in *region, its buffer region. */
static clsStream_t pick_stream_r(worker *w, unsigned *region) {
  unsigned k = (unsigned)rand_r(&w->seed) % (NSTREAMS + 2);
  if (region) *region = k;
  if (k <= NSTREAMS) return shared_streams[k]; /* [NSTREAMS]: legacy */
  return clsStreamPerThread;
}
static clsStream_t pick_stream(worker *w) { return pick_stream_r(w, NULL); }

static int *dev_region(worker *w, unsigned k) { return w->buf + k * BUF_INTS; }
static int *pinned_region(worker *w, unsigned k) {
  return w->pinned + k * BUF_INTS;
}

static clsEvent_t pick_event(worker *w) {
  return shared_events[(unsigned)rand_r(&w->seed) % NEVENTS];
}

static void own_stream(worker *w) {
  clsStream_t s;
  unsigned flags = rand_r(&w->seed) % 2 ? clsStreamNonBlocking : 0;
  int prio = -(rand_r(&w->seed) % 3);
  EXPECT_OK(w, clsStreamCreateWithPriority(&s, flags, prio));
  atomic_uint *last = malloc(sizeof *last);
  if (!last) {
    fail_with(w, "malloc", clsErrorMemoryAllocation);
    return;
  }
  atomic_init(last, 0);
  unsigned n = 1 + (unsigned)rand_r(&w->seed) % 4;
  clsEvent_t e;
  EXPECT_OK(w, clsEventCreateWithFlags(&e, clsEventDisableTiming));
  /* Own streams share one region: each waits for the previous one's work
   * (which may still be pending on a destroyed stream). */
  if (w->own_prev) {
    EXPECT_OK(w, clsStreamWaitEvent(s, w->own_prev, 0));
    EXPECT_OK(w, clsEventDestroy(w->own_prev));
    w->own_prev = NULL;
  }
  for (unsigned i = 1; i <= n; i++) {
    EXPECT_OK(w, enqueue_token(s, rand_r(&w->seed) % 2, i, last));
    if (rand_r(&w->seed) % 2)
      EXPECT_OK(w, clsMemsetAsync(dev_region(w, REGION_OWN), (int)i,
                                  REGION_BYTES, s));
    if (rand_r(&w->seed) % 3 == 0)
      EXPECT_OK(w, clsStreamWaitEvent(s, pick_event(w), 0));
  }
  EXPECT_OK(w, clsEventRecord(e, s));
  switch (rand_r(&w->seed) % 3) {
  case 0:
    EXPECT_OK(w, clsStreamSynchronize(s));
    break;
  case 1:
    EXPECT_READY_OR_NOT(w, clsStreamQuery(s));
    break;
  default:
    break; /* destroyed with work pending */
  }
  /* Another shared stream waits for this stream's work. */
  EXPECT_OK(w, clsStreamWaitEvent(pick_stream(w), e, 0));
  EXPECT_OK(w, clsStreamDestroy(s));
  w->own_prev = e;
  /* `last` is read by host functions that may still be pending on the
   * destroyed stream: keep it until a device synchronization. */
  if (w->nkeep == KEEP_MAX) {
    EXPECT_OK(w, clsDeviceSynchronize());
    free_kept(w);
  }
  w->keep[w->nkeep++] = last;
}

static void own_event(worker *w) {
  static const unsigned fl[] = {0, clsEventBlockingSync, clsEventDisableTiming,
                                clsEventBlockingSync | clsEventDisableTiming};
  clsEvent_t e;
  EXPECT_OK(w, clsEventCreateWithFlags(&e, fl[rand_r(&w->seed) % 4]));
  EXPECT_OK(w, clsEventRecord(e, pick_stream(w)));
  switch (rand_r(&w->seed) % 3) {
  case 0:
    EXPECT_OK(w, clsEventSynchronize(e));
    break;
  case 1:
    EXPECT_READY_OR_NOT(w, clsEventQuery(e));
    break;
  default:
    break; /* destroyed while pending */
  }
  if (rand_r(&w->seed) % 2)
    EXPECT_OK(w, clsStreamWaitEvent(pick_stream(w), e, 0));
  EXPECT_OK(w, clsEventDestroy(e));
}

/* Loads examples/arith.cl, launches one of its functions and unloads it while
 * the launch may still be pending (other threads launch the shared
 * module's functions meanwhile). */
static void own_module(worker *w) {
  clsModule_t m;
  clsFunction_t f, f2;
  EXPECT_OK(w, clsModuleLoadData(&m, cls_kernel_arith, NULL));
  EXPECT_OK(w, clsModuleGetFunction(&f, m, "fill"));
  EXPECT_OK(w, clsModuleGetFunction(&f2, m, "fill"));
  if (f != f2) {
    fail_with(w, "clsModuleGetFunction twice (different handles)",
              clsErrorUnknown);
    return;
  }
  unsigned k;
  clsStream_t s = pick_stream_r(w, &k);
  int *t = dev_region(w, k);
  int v = w->index;
  unsigned n = BUF_INTS;
  void *args[] = {&t, &v, &n};
  clsDim3 g = {BUF_INTS / 64, 1, 1}, b = {64, 1, 1};
  EXPECT_OK(w, clsLaunchKernel(f, g, b, args, 0, s));
  EXPECT_OK(w, clsModuleUnload(m));
}

static void one_op(worker *w) {
  unsigned r = (unsigned)rand_r(&w->seed) % 100;
  enum op op;
  if (r < 12)
    op = OP_RECORD;
  else if (r < 22)
    op = OP_EVENT_QUERY;
  else if (r < 27)
    op = OP_EVENT_SYNC;
  else if (r < 35)
    op = OP_STREAM_QUERY;
  else if (r < 39)
    op = OP_STREAM_SYNC;
  else if (r < 47)
    op = OP_WAIT_EVENT;
  else if (r < 59)
    op = OP_HOST_FUNC;
  else if (r < 65)
    op = OP_CALLBACK;
  else if (r < 70)
    op = OP_MEMSET;
  else if (r < 74)
    op = OP_MEMCPY;
  else if (r < 79)
    op = OP_LAUNCH;
  else if (r < 83)
    op = OP_ELAPSED;
  else if (r < 91)
    op = OP_OWN_STREAM;
  else if (r < 98)
    op = OP_OWN_EVENT;
  /* A module load compiles (from PoCL's cache): rare, 0.2 %. */
  else if (r < 99)
    op = rand_r(&w->seed) % 5 ? OP_OWN_EVENT : OP_OWN_MODULE;
  else
    op = OP_DEVICE_SYNC;
  if (skip_ops & (1ul << op)) return;

  op_begin(w, op);
  switch (op) {
  case OP_RECORD:
    EXPECT_OK(w, clsEventRecord(pick_event(w), pick_stream(w)));
    break;
  case OP_EVENT_QUERY:
    EXPECT_READY_OR_NOT(w, clsEventQuery(pick_event(w)));
    break;
  case OP_EVENT_SYNC:
    EXPECT_OK(w, clsEventSynchronize(pick_event(w)));
    break;
  case OP_STREAM_QUERY:
    EXPECT_READY_OR_NOT(w, clsStreamQuery(pick_stream(w)));
    break;
  case OP_STREAM_SYNC:
    EXPECT_OK(w, clsStreamSynchronize(pick_stream(w)));
    break;
  case OP_WAIT_EVENT:
    EXPECT_OK(w, clsStreamWaitEvent(pick_stream(w), pick_event(w), 0));
    break;
  case OP_HOST_FUNC:
    EXPECT_OK(w, enqueue_token(pick_stream(w), 0, 0, NULL));
    break;
  case OP_CALLBACK:
    EXPECT_OK(w, enqueue_token(pick_stream(w), 1, 0, NULL));
    break;
  case OP_MEMSET: {
    unsigned k;
    clsStream_t s = pick_stream_r(w, &k);
    EXPECT_OK(w, clsMemsetAsync(dev_region(w, k), rand_r(&w->seed) & 0xff,
                                REGION_BYTES, s));
    break;
  }
  case OP_MEMCPY: {
    unsigned k;
    clsStream_t s = pick_stream_r(w, &k);
    EXPECT_OK(w, clsMemcpyAsync(pinned_region(w, k), dev_region(w, k),
                                REGION_BYTES, clsMemcpyDeviceToHost, s));
    break;
  }
  case OP_LAUNCH: {
    unsigned k;
    clsStream_t s = pick_stream_r(w, &k);
    EXPECT_OK(w,
              launch_fill(&kernels, s, dev_region(w, k), w->index, BUF_INTS));
    break;
  }
  case OP_ELAPSED: {
    float ms;
    clsError_t e = clsEventElapsedTime(&ms, pick_event(w), pick_event(w));
    /* A shared event that nobody recorded yet: InvalidResourceHandle;
     * a device without usable timestamps (rusticl): NotSupported. */
    if (e != clsSuccess && e != clsErrorNotReady &&
        e != clsErrorInvalidResourceHandle &&
        !(e == clsErrorNotSupported && w->untimed)) {
      fail_with(w, "clsEventElapsedTime(shared, shared)", e);
      return;
    }
    break;
  }
  case OP_OWN_STREAM:
    own_stream(w);
    break;
  case OP_OWN_EVENT:
    own_event(w);
    break;
  case OP_DEVICE_SYNC:
    EXPECT_OK(w, clsDeviceSynchronize());
    break;
  case OP_OWN_MODULE:
    own_module(w);
    break;
  default:
    break;
  }
  if (!atomic_load(&failed)) op_end(w, op);
}

static atomic_llong deadline_ns;

static void *worker_main(void *p) {
  worker *w = p;
  op_begin(w, OP_SETUP);
  void *b = NULL, *h = NULL;
  clsError_t r = clsMalloc(&b, NREGIONS * REGION_BYTES);
  if (r == clsSuccess) r = clsMallocHost(&h, NREGIONS * REGION_BYTES);
  if (r != clsSuccess) {
    fail_with(w, "allocating the thread's buffers", r);
    return NULL;
  }
  w->buf = b;
  w->pinned = h;
  op_end(w, OP_SETUP);
  while (!atomic_load(&failed) && now_ns() < atomic_load(&deadline_ns))
    one_op(w);
  /* The thread's own buffer: a last value, written on its per-thread
   * stream after everything it enqueued anywhere (device sync). */
  if (!atomic_load(&failed)) {
    op_begin(w, OP_FINAL_SYNC);
    r = clsDeviceSynchronize();
    if (r == clsSuccess) free_kept(w);
    if (r == clsSuccess && w->own_prev) {
      r = clsEventDestroy(w->own_prev);
      w->own_prev = NULL;
    }
    if (r == clsSuccess)
      r = clsMemsetAsync(w->buf, 0x5a, NREGIONS * REGION_BYTES,
                         clsStreamPerThread);
    if (r == clsSuccess) r = clsStreamSynchronize(clsStreamPerThread);
    if (r == clsSuccess)
      r = clsMemcpy(w->pinned, w->buf, NREGIONS * REGION_BYTES,
                    clsMemcpyDeviceToHost);
    if (r != clsSuccess) {
      fail_with(w, "final memset and copy", r);
    } else {
      const unsigned char *c = (const unsigned char *)w->pinned;
      for (size_t i = 0; i < NREGIONS * REGION_BYTES; i++)
        if (c[i] != 0x5a) {
          fail_with(w, "final buffer check (byte not 0x5a)", clsErrorUnknown);
          break;
        }
    }
    op_end(w, OP_FINAL_SYNC);
  }
  return NULL;
}

/* ---- The watchdog -------------------------------------------------------- */

static void print_threads(FILE *f) {
  long long now = now_ns();
  for (int i = 0; i <= NTHREADS; i++) {
    worker *w = &workers[i];
    long long since = atomic_load(&w->op_since_ns);
    fprintf(f, "  %s %2d: last operation %s%s, %lld done",
            i == NTHREADS ? "main  " : "thread", i,
            op_names[atomic_load(&w->op)], since ? " (still in it" : "",
            (long long)atomic_load(&w->progress));
    if (since) fprintf(f, " for %.1f s)", (double)(now - since) / 1e9);
    fputc('\n', f);
  }
}

static void *watchdog_main(void *p) {
  (void)p;
  long long last_total = -1, last_change = now_ns();
  pthread_mutex_lock(&wd_mu);
  while (!stop_watchdog) {
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    pthread_cond_timedwait(&wd_cv, &wd_mu, &dl);
    if (stop_watchdog) break;
    long long now = now_ns(), total = 0;
    const char *why = NULL;
    for (int i = 0; i <= NTHREADS; i++) {
      total += atomic_load(&workers[i].progress);
      long long since = atomic_load(&workers[i].op_since_ns);
      if (since && now - since > (long long)watchdog_s * 1000000000LL)
        why = "a thread has been inside one call";
    }
    if (total != last_total) {
      last_total = total;
      last_change = now;
    } else if (now - last_change > (long long)watchdog_s * 1000000000LL) {
      why = "no thread has made progress";
    }
    if (why) {
      fprintf(stderr,
              "stress: DEADLOCK: %s for more than %d s; host functions "
              "enqueued %lld, ran %lld\n",
              why, watchdog_s, (long long)atomic_load(&hf_enqueued),
              (long long)atomic_load(&hf_ran));
      print_threads(stderr);
      fflush(stderr);
      printf("stress: DEADLOCK (see stderr)\n");
      fflush(stdout);
      _exit(99); /* Check reports the early exit of this test */
    }
  }
  pthread_mutex_unlock(&wd_mu);
  return NULL;
}

/* ---- The test --------------------------------------------------------------
 */

START_TEST(stress) {
  int seconds = env_int("CLSTREAM_STRESS_SECONDS", 10);
  watchdog_s = env_int("CLSTREAM_STRESS_WATCHDOG", 30);
  const char *skip = getenv("CLSTREAM_STRESS_SKIP");
  skip_ops = skip ? strtoul(skip, NULL, 0) : 0;
  unsigned seed = (unsigned)env_int("CLSTREAM_STRESS_SEED", (int)time(NULL));
  printf("stress: %d threads x %d s, seed %u (CLSTREAM_STRESS_SEED)\n",
         NTHREADS, seconds, seed);
  fflush(stdout);

  token_runs = calloc(MAX_TOKENS, sizeof *token_runs);
  ck_assert_ptr_nonnull(token_runs);
  worker *m = &workers[NTHREADS];
  m->index = NTHREADS;

  pthread_t wd;
  ck_assert_int_eq(pthread_create(&wd, NULL, watchdog_main, NULL), 0);

  op_begin(m, OP_SETUP);
  for (int i = 0; i < NSTREAMS; i++)
    CK_OK(clsStreamCreateWithFlags(&shared_streams[i],
                                   i == NSTREAMS - 1 ? clsStreamNonBlocking
                                                     : clsStreamDefault));
  shared_streams[NSTREAMS] = NULL; /* the legacy stream */
  for (int i = 0; i < NEVENTS; i++)
    CK_OK(clsEventCreateWithFlags(&shared_events[i],
                                  i % 3 == 1   ? clsEventBlockingSync
                                  : i % 3 == 2 ? clsEventDisableTiming
                                               : clsEventDefault));
  arith_load(&kernels);
  op_end(m, OP_SETUP);

  int untimed = !device_times_work();
  atomic_store(&deadline_ns, now_ns() + (long long)seconds * 1000000000LL);
  for (int i = 0; i < NTHREADS; i++) {
    workers[i].index = i;
    workers[i].untimed = untimed;
    workers[i].seed = seed * 7919u + (unsigned)i;
    ck_assert_int_eq(
        pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(workers[i].thread, NULL);

  /* Everything enqueued anywhere, destroyed streams included, is done. */
  op_begin(m, OP_FINAL_SYNC);
  CK_OK(clsDeviceSynchronize());
  for (int i = 0; i <= NSTREAMS; i++)
    CK_OK(clsStreamSynchronize(shared_streams[i]));
  op_end(m, OP_FINAL_SYNC);
  /* Host functions return before the device synchronization does; their
   * counting is the last thing they do, so give the workers a moment. */
  long long end = now_ns() + 10LL * 1000000000LL;
  while (atomic_load(&hf_ran) < atomic_load(&hf_enqueued) && now_ns() < end)
    sleep_ms(1);

  pthread_mutex_lock(&wd_mu);
  stop_watchdog = 1;
  pthread_cond_broadcast(&wd_cv);
  pthread_mutex_unlock(&wd_mu);
  pthread_join(wd, NULL);

  long long per_op[OP_COUNT] = {0}, total = 0;
  for (int i = 0; i < NTHREADS; i++)
    for (int k = 0; k < OP_COUNT; k++) {
      per_op[k] += workers[i].per_op[k];
      total += workers[i].per_op[k];
    }
  printf("stress: %lld operations by %d threads in %d s:\n", total, NTHREADS,
         seconds);
  for (int k = OP_RECORD; k <= OP_OWN_MODULE; k++)
    printf("  %8lld  %s\n", per_op[k], op_names[k]);
  unsigned issued = atomic_load(&next_token);
  if (issued > MAX_TOKENS) issued = MAX_TOKENS;
  long long missing = 0, twice = 0, enq = atomic_load(&hf_enqueued);
  for (unsigned t = 0; t < issued; t++) {
    unsigned char n = atomic_load(&token_runs[t]);
    if (n > 1) twice++;
  }
  long long ran_tokens = 0;
  for (unsigned t = 0; t < issued; t++)
    ran_tokens += atomic_load(&token_runs[t]) != 0;
  missing = enq - ran_tokens;
  printf("stress: host functions and callbacks enqueued %lld, ran %lld "
         "(tokens run once %lld, twice or more %lld, never %lld); "
         "out-of-order on own streams %lld; callbacks with a bad status "
         "%lld\n",
         enq, (long long)atomic_load(&hf_ran), ran_tokens - twice, twice,
         missing, (long long)atomic_load(&order_violations),
         (long long)atomic_load(&cb_bad_status));
  fflush(stdout);

  ck_assert_msg(!atomic_load(&failed), "%s", failure);
  ck_assert_msg(twice == 0 && atomic_load(&hf_double) == 0,
                "%lld host functions ran more than once", twice);
  ck_assert_msg(missing == 0 && atomic_load(&hf_ran) == enq,
                "host functions lost: enqueued %lld, ran %lld", enq,
                (long long)atomic_load(&hf_ran));
  ck_assert_msg(atomic_load(&order_violations) == 0,
                "%lld host functions on own streams ran out of order",
                (long long)atomic_load(&order_violations));
  ck_assert_msg(atomic_load(&cb_bad_status) == 0,
                "%lld callbacks got a status other than clsSuccess",
                (long long)atomic_load(&cb_bad_status));
  ck_assert_msg(total > NTHREADS, "too few operations ran: %lld", total);

  /* Shared objects go last; the threads' buffers after that. */
  arith_unload(&kernels);
  for (int i = 0; i < NEVENTS; i++) CK_OK(clsEventDestroy(shared_events[i]));
  for (int i = 0; i < NSTREAMS; i++) CK_OK(clsStreamDestroy(shared_streams[i]));
  for (int i = 0; i < NTHREADS; i++) {
    CK_OK(clsFree(workers[i].buf));
    CK_OK(clsFreeHost(workers[i].pinned));
  }
  free(token_runs);
}
END_TEST

int main(void) {
  int seconds = env_int("CLSTREAM_STRESS_SECONDS", 10);
  Suite *s = suite_create("stress");
  /* Check's own timeout is the last resort; the watchdog fires first. */
  TCase *tc = tcase_timed(
      "stress", seconds + 2.0 * env_int("CLSTREAM_STRESS_WATCHDOG", 30) + 60);
  tcase_set_tags(tc, "threads"); /* support.h: tcase_tagged */
  tcase_add_test(tc, stress);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
