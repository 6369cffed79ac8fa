/*
 * clstream-bench: clstream side by side with the raw API it maps onto (raw
 * OpenCL on the OpenCL build, the CUDA runtime on the CUDA build), on the
 * same device, in one run.
 *
 * For every scenario both sides are set up, warmed up, then timed in
 * alternating blocks of samples (ours, raw, raw, ours, ...), so that drift
 * in the machine's load hits both alike.  A sample times `inner`
 * operations with CLOCK_MONOTONIC after an untimed reset that brings the
 * side back to the scenario's starting state (an idle stream, say); the
 * figure is nanoseconds per operation, where an operation is the whole
 * sequence the scenario names.  Printed per scenario: median and p90 of
 * both sides and ours/raw of the medians; then the elapsed-time accuracy,
 * the memory check, issue 5's targets, and last `worst ratio R (scenario)`.
 *
 *   clstream-bench [--quick] [--scenario NAME[,NAME...]] [--json FILE]
 *                  [--samples N] [--block N] [--list]
 *
 * --samples N overrides every scenario's sample count (per side), for
 * profiling under callgrind or perf; --block N the samples per
 * interleaved block (default 5); --only ours|raw runs one side alone (for
 * perf stat / perf record of one side; no ratios then).
 *
 * CLSTREAM_DEVICE picks the device, as for every clstream program; the raw
 * side opens the device with the same device and platform names.
 */
#include "bench_graph.h"
#include "clstream.h"
#include "clstream_kernels.h"
#include "multi.h"
#include "raw.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* The prelude cl/clstream_kernel.h, embedded for the raw side's compiler. */
extern const char bench_prelude[];

#if defined(CLS_BENCH_CUDA)
#define BACKEND_NAME "CUDA"
#else
#define BACKEND_NAME "OpenCL"
#endif

/* ---- scenarios ------------------------------------------------------------
 */

typedef struct scenario {
  const char *name;
  const char *what;
  unsigned inner;         /* operations per timed sample */
  unsigned samples;       /* per side, full run */
  unsigned samples_quick; /* per side, --quick */
  unsigned warmup;        /* untimed samples per side first */
} scenario;

/* Samples per side: the full run has about ten times --quick's. */
static const scenario SCEN[SC_COUNT] = {
    /* name, what, inner, samples, samples_quick, warmup */
    [SC_RECORD_IDLE] = {"record_idle", "event record on an idle stream", 1,
                        100000, 30000, 500},
    [SC_QUERY_DONE] = {"query_done", "query of a completed event", 1000, 10000,
                       3750, 20},
    [SC_SYNC_DONE] = {"sync_done", "synchronize of a completed event", 1000,
                      10000, 3750, 20},
    [SC_RECORD_SYNC] = {"record_sync",
                        "record + synchronize on an empty stream", 1, 100000,
                        30000, 500},
    [SC_KERNEL_RECORD_SYNC] = {"kernel_record_sync",
                               "tiny kernel + record + synchronize", 1, 60000,
                               20000, 300},
    [SC_COPY_RECORD_SYNC] = {"copy_record_sync",
                             "4-byte host-to-device copy (pinned source) + "
                             "record + synchronize",
                             1, 60000, 20000, 300},
    [SC_PINGPONG] = {"pingpong",
                     "A: kernel, record; B: wait, kernel, record; sync "
                     "(DisableTiming events)",
                     1, 50000, 15000, 300},
    [SC_PINGPONG_TIMED] = {"pingpong_timed",
                           "the same ping-pong with timing events", 1, 50000,
                           15000, 300},
    [SC_HOSTFN] = {"hostfn", "host function round trip (launch + stream sync)",
                   1, 50000, 15000, 300},
    [SC_LEGACY_1] = {"legacy_1",
                     "one launch on the legacy stream, 1 idle blocking "
                     "stream",
                     1, 100000, 30000, 500},
    [SC_LEGACY_8] = {"legacy_8",
                     "one launch on the legacy stream, 8 idle blocking "
                     "streams",
                     1, 100000, 30000, 500},
    [SC_LEGACY_64] = {"legacy_64",
                      "one launch on the legacy stream, 64 idle blocking "
                      "streams",
                      1, 100000, 30000, 500},
    [SC_ELAPSED] = {"elapsed",
                    "record, spin kernel of ~5 ms, record, synchronize, "
                    "elapsed time",
                    1, 600, 60, 3},
    [SC_FLAT_MEMORY] = {"flat_memory",
                        "record + query cycles (a synchronize every 1024)",
                        10000, 1000, 100, 2},
    [SC_ALLOC_ASYNC] = {"alloc_async",
                        "64 KiB alloc + tiny kernel + free, 16 per sync: "
                        "ours stream-ordered (clsMallocAsync/clsFreeAsync), "
                        "raw OpenCL malloc + kernel + wait + free, raw CUDA "
                        "cudaMallocAsync/cudaFreeAsync",
                        16, 5000, 1500, 50},
    /* Graph rows: inner is the number of kernels, so that the figure is
     * per kernel; three sides (ours = graph replay, raw, plain). */
    [SC_GRAPH_10] = {"graph_10",
                     "10 tiny kernels + synchronize, per kernel: ours a "
                     "graph replay, plain the same launches through "
                     "clstream, raw event-less enqueues of prepared kernels "
                     "(OpenCL) or a CUDA graph replay",
                     10, 50000, 10000, 50},
    [SC_GRAPH_100] = {"graph_100", "the same with 100 kernels", 100, 15000,
                      3000, 20},
    [SC_GRAPH_1000] = {"graph_1000", "the same with 1000 kernels", 1000, 2000,
                       400, 5},
    /* Two devices (issue 29): the benchmark's device and its peer. */
    [SC_XDEV_WAIT] = {"xdev_wait",
                      "a: kernel, record; b: wait, kernel, record; sync "
                      "(two devices, DisableTiming events)",
                      1, 30000, 5000, 200},
    [SC_PEER_COPY_4K] = {"peer_copy_4k",
                         "4 KiB peer copy a to b on b's stream + stream sync",
                         1, 30000, 5000, 200},
    [SC_PEER_COPY_16M] = {"peer_copy_16m",
                          "16 MiB peer copy a to b on b's stream + stream "
                          "sync",
                          1, 600, 100, 5},
};

/* ---- small helpers ------------------------------------------------------ */

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long rss_bytes(void) {
  long size = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Quantile q of sorted v[0..n) with linear interpolation. */
static double quantile(const double *v, unsigned n, double q) {
  if (n == 0) return NAN;
  double pos = q * (n - 1);
  unsigned i = (unsigned)pos;
  if (i + 1 >= n) return v[n - 1];
  return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

/* ---- the clstream side ---------------------------------------------------
 */

static char ours_msg[512];

static int ofail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ours_msg, sizeof ours_msg, fmt, ap);
  va_end(ap);
  return -1;
}

#define CKS(call)                                                              \
  do {                                                                         \
    clsError_t cks_err_ = (call);                                              \
    if (cks_err_ != clsSuccess)                                                \
      return ofail("%s:%d: %s -> %s", __FILE__, __LINE__, #call,               \
                   clsGetErrorName(cks_err_));                                 \
  } while (0)

static clsModule_t o_mod;
static clsFunction_t o_fill, o_spin;
static int *o_buf;
static int *o_pin; /* clsMallocHost, 4 KiB: the copies' source */
static clsStream_t oA, oB, ox[64];
static unsigned nox;
static clsEvent_t oeA, oeB, oe0;
static unsigned o_spin_iters;
static double o_last_elapsed_ms;
static int o_counter;
static volatile unsigned o_hf_calls;

static void o_host_fn(void *arg) { ++*(volatile unsigned *)arg; }

/* The allocation of the alloc_async scenario (both sides). */
#define ALLOC_BYTES (64u << 10)

static int o_launch_fill(clsStream_t s, int *t) {
  int v = ++o_counter;
  unsigned n = 1;
  void *args[] = {&t, &v, &n};
  clsDim3 one = {1, 1, 1};
  CKS(clsLaunchKernel(o_fill, one, one, args, 0, s));
  return 0;
}

static unsigned legacy_streams(int sc) {
  return sc == SC_LEGACY_1 ? 1 : sc == SC_LEGACY_8 ? 8 : 64;
}

static int ours_setup(int sc, unsigned param) {
  if (bench_multi_sc(sc))
    return multi_ours_setup(sc) ? ofail("%s", multi_ours_error()) : 0;
  unsigned flags = sc == SC_PINGPONG ? clsEventDisableTiming : clsEventDefault;
  switch (sc) {
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    nox = 0;
    for (unsigned i = 0; i < legacy_streams(sc); ++i) {
      /* Idle blocking streams that have done some work. */
      CKS(clsStreamCreate(&ox[i]));
      nox = i + 1;
      if (o_launch_fill(ox[i], o_buf + OFF_IDLE)) return -1;
      CKS(clsStreamSynchronize(ox[i]));
    }
    return 0;
  case SC_PINGPONG:
  case SC_PINGPONG_TIMED:
    CKS(clsStreamCreate(&oB));
    CKS(clsEventCreateWithFlags(&oeB, flags));
    /* fall through */
  default:
    CKS(clsStreamCreate(&oA));
    CKS(clsEventCreateWithFlags(&oeA, flags));
    break;
  }
  if (sc == SC_ELAPSED) {
    o_spin_iters = param;
    CKS(clsEventCreate(&oe0));
  }
  if (sc == SC_QUERY_DONE || sc == SC_SYNC_DONE) {
    CKS(clsEventRecord(oeA, oA));
    CKS(clsEventSynchronize(oeA));
  }
  return 0;
}

static int ours_reset(int sc) {
  if (bench_multi_sc(sc))
    return multi_ours_reset(sc) ? ofail("%s", multi_ours_error()) : 0;
  switch (sc) {
  case SC_RECORD_IDLE:
    CKS(clsEventSynchronize(oeA));
    return 0;
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    CKS(clsStreamSynchronize(clsStreamLegacy));
    return 0;
  default:
    return 0;
  }
}

static int ours_run(int sc, unsigned inner) {
  if (bench_multi_sc(sc))
    return multi_ours_run(sc, inner) ? ofail("%s", multi_ours_error()) : 0;
  switch (sc) {
  case SC_RECORD_IDLE:
    for (unsigned i = 0; i < inner; ++i) CKS(clsEventRecord(oeA, oA));
    return 0;
  case SC_QUERY_DONE:
    for (unsigned i = 0; i < inner; ++i) CKS(clsEventQuery(oeA));
    return 0;
  case SC_SYNC_DONE:
    for (unsigned i = 0; i < inner; ++i) CKS(clsEventSynchronize(oeA));
    return 0;
  case SC_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i) {
      CKS(clsEventRecord(oeA, oA));
      CKS(clsEventSynchronize(oeA));
    }
    return 0;
  case SC_KERNEL_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i) {
      if (o_launch_fill(oA, o_buf)) return -1;
      CKS(clsEventRecord(oeA, oA));
      CKS(clsEventSynchronize(oeA));
    }
    return 0;
  case SC_COPY_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i) {
      CKS(clsMemcpyAsync(o_buf, o_pin, 4, clsMemcpyHostToDevice, oA));
      CKS(clsEventRecord(oeA, oA));
      CKS(clsEventSynchronize(oeA));
    }
    return 0;
  case SC_PINGPONG:
  case SC_PINGPONG_TIMED:
    for (unsigned i = 0; i < inner; ++i) {
      if (o_launch_fill(oA, o_buf)) return -1;
      CKS(clsEventRecord(oeA, oA));
      CKS(clsStreamWaitEvent(oB, oeA, 0));
      if (o_launch_fill(oB, o_buf + OFF_B)) return -1;
      CKS(clsEventRecord(oeB, oB));
      CKS(clsEventSynchronize(oeB));
    }
    return 0;
  case SC_HOSTFN:
    for (unsigned i = 0; i < inner; ++i) {
      unsigned before = o_hf_calls;
      CKS(clsLaunchHostFunc(oA, o_host_fn, (void *)&o_hf_calls));
      CKS(clsStreamSynchronize(oA));
      if (o_hf_calls != before + 1) return ofail("hostfn: did not run");
    }
    return 0;
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    for (unsigned i = 0; i < inner; ++i)
      if (o_launch_fill(clsStreamLegacy, o_buf)) return -1;
    return 0;
  case SC_ELAPSED: {
    unsigned iters = o_spin_iters;
    int *out = o_buf + OFF_SPIN;
    void *args[] = {&out, &iters};
    clsDim3 one = {1, 1, 1};
    float ms = 0;
    CKS(clsEventRecord(oe0, oA));
    CKS(clsLaunchKernel(o_spin, one, one, args, 0, oA));
    CKS(clsEventRecord(oeA, oA));
    CKS(clsEventSynchronize(oeA));
    CKS(clsEventElapsedTime(&ms, oe0, oeA));
    o_last_elapsed_ms = ms;
    return 0;
  }
  case SC_ALLOC_ASYNC:
    for (unsigned i = 0; i < inner; ++i) {
      int *p = NULL;
      CKS(clsMallocAsync((void **)&p, ALLOC_BYTES, oA));
      if (o_launch_fill(oA, p)) return -1;
      CKS(clsFreeAsync(p, oA));
    }
    CKS(clsStreamSynchronize(oA));
    return 0;
  case SC_FLAT_MEMORY:
    for (unsigned i = 0; i < inner; ++i) {
      clsError_t q;
      CKS(clsEventRecord(oeA, oA));
      q = clsEventQuery(oeA);
      if (q != clsSuccess && q != clsErrorNotReady)
        return ofail("clsEventQuery -> %s", clsGetErrorName(q));
      if ((i & 1023) == 1023) CKS(clsEventSynchronize(oeA));
    }
    return 0;
  default:
    return ofail("unknown scenario %d", sc);
  }
}

static void ours_teardown(int sc) {
  if (bench_multi_sc(sc)) {
    multi_ours_teardown(sc);
    return;
  }
  clsDeviceSynchronize();
  if (oeA) clsEventDestroy(oeA);
  if (oeB) clsEventDestroy(oeB);
  if (oe0) clsEventDestroy(oe0);
  oeA = oeB = oe0 = NULL;
  if (oA) clsStreamDestroy(oA);
  if (oB) clsStreamDestroy(oB);
  oA = oB = NULL;
  for (unsigned i = 0; i < nox; ++i) clsStreamDestroy(ox[i]);
  nox = 0;
  clsGetLastError(); /* leave no error behind for the next scenario */
}

static double ours_elapsed_ms(void) { return o_last_elapsed_ms; }
static const char *ours_error(void) { return ours_msg; }

/* ---- the two sides behind one table ------------------------------------ */

typedef struct side {
  const char *name;
  int (*setup)(int sc, unsigned param);
  int (*run)(int sc, unsigned inner);
  int (*reset)(int sc);
  void (*teardown)(int sc);
  double (*elapsed_ms)(void);
  const char *(*error)(void);
} side;

enum { OURS = 0, RAW = 1, PLAIN = 2 };
static const side SIDES[2] = {
    {"ours", ours_setup, ours_run, ours_reset, ours_teardown, ours_elapsed_ms,
     ours_error},
    {"raw", raw_setup, raw_run, raw_reset, raw_teardown, raw_elapsed_ms,
     raw_error},
};
/* The graph rows' three sides (bench_graph.c, raw_graph_*.c). */
static const side GRAPH_SIDES[3] = {
    {"ours", graph_ours_setup, graph_ours_run, graph_reset, graph_ours_teardown,
     graph_elapsed_ms, graph_error},
    {"raw", raw_graph_setup, raw_graph_run, raw_graph_reset, raw_graph_teardown,
     raw_elapsed_ms, raw_error},
    {"plain", graph_plain_setup, graph_plain_run, graph_reset,
     graph_plain_teardown, graph_elapsed_ms, graph_error},
};

typedef struct stats {
  unsigned n;
  double median, p90, min, mean;
} stats;

typedef struct result {
  int ran;
  char error[600];
  unsigned samples, inner;
  int capped;  /* stopped early by the time cap */
  stats st[3]; /* ours, raw, and plain on the graph rows */
  double ratio;
  double ratio_plain; /* graph rows: ours (graph) / plain */
  /* ours/raw of the medians within each quarter of the run: a spread
   * that shows how far the machine's noise moves the ratio. */
  double qlo, qhi;
  /* elapsed */
  unsigned spin_iters;
  double ev_ms[2], host_ms[2]; /* medians */
  /* flat_memory */
  unsigned long long cycles;
  long rss_before, rss_after, growth[2];
  double seconds;
} result;

static result RES[SC_COUNT];

static stats summarize(double *v, unsigned n) {
  stats s = {n, NAN, NAN, NAN, NAN};
  double sum = 0;
  if (!n) return s;
  qsort(v, n, sizeof *v, cmp_double);
  for (unsigned i = 0; i < n; ++i) sum += v[i];
  s.median = quantile(v, n, 0.5);
  s.p90 = quantile(v, n, 0.9);
  s.min = v[0];
  s.mean = sum / n;
  return s;
}

static volatile const char *current_scenario = "start-up";

static void on_alarm(int sig) {
  (void)sig;
  const char *a = "\nclstream-bench: TIMEOUT in scenario ";
  const char *b = (const char *)current_scenario;
  ssize_t r = write(2, a, strlen(a));
  r = write(2, b, strlen(b));
  r = write(2, " (hang?)\n", 9);
  (void)r;
  _exit(3);
}

/* One timed sample on side `s`: reset, then `inner` operations. */
static int one_sample(const side *s, int sc, unsigned inner, double *ns,
                      long *rss_delta) {
  long r0 = 0;
  double t0, t1;
  if (s->reset(sc)) return -1;
  if (rss_delta) r0 = rss_bytes();
  t0 = now_ns();
  if (s->run(sc, inner)) return -1;
  t1 = now_ns();
  if (rss_delta) *rss_delta = rss_bytes() - r0;
  *ns = (t1 - t0) / inner;
  return 0;
}

/* Iterations of the spin kernel for about `ms` milliseconds, measured on
 * the raw side with the host clock. */
static unsigned calibrate_spin(double ms) {
  unsigned iters = 1u << 20;
  double best = 0;
  if (raw_setup(SC_ELAPSED, iters)) {
    raw_teardown(SC_ELAPSED);
    return 1u << 22;
  }
  /* The fastest of several runs: load from elsewhere only slows a run. */
  for (int k = 0; k < 9; ++k) {
    double t0 = now_ns(), t;
    if (raw_run(SC_ELAPSED, 1)) break;
    t = (now_ns() - t0) / 1e6;
    if (k > 0 && (best == 0 || t < best)) best = t;
  }
  raw_teardown(SC_ELAPSED);
  if (best <= 0) return 1u << 22;
  double want = iters * ms / best;
  if (want < 1000) want = 1000;
  if (want > 4e9) want = 4e9;
  return (unsigned)want;
}

static unsigned samples_override; /* --samples N */
static unsigned block_override;   /* --block N */
static int only_side = -1;        /* --only ours|raw: profile one side */

static void run_scenario(int sc, int quick) {
  const scenario *d = &SCEN[sc];
  result *r = &RES[sc];
  unsigned n = samples_override ? samples_override
               : quick          ? d->samples_quick
                                : d->samples;
  unsigned warmup = d->warmup < n / 10 + 1 ? d->warmup : n / 10 + 1;
  unsigned block = n / 40 ? n / 40 : 1;
  const side *S = SC_IS_GRAPH(sc) ? GRAPH_SIDES : SIDES;
  int ns = SC_IS_GRAPH(sc) ? 3 : 2;
  double *v[3] = {NULL, NULL, NULL}, *ev[2] = {NULL, NULL};
  unsigned cnt[3] = {0, 0, 0};
  unsigned param = 0;
  int ok[3] = {0, 0, 0};
  int flat = sc == SC_FLAT_MEMORY;
  double t_start = now_ns();

  memset(r, 0, sizeof *r);
  r->ran = 1;
  r->inner = d->inner;
  current_scenario = d->name;
  alarm(quick ? 120 : 900);

  if (sc == SC_ELAPSED) param = r->spin_iters = calibrate_spin(5.0);
  for (int s = 0; s < ns; ++s) v[s] = calloc(n, sizeof(double));
  if (sc == SC_ELAPSED) {
    ev[0] = calloc(n, sizeof(double));
    ev[1] = calloc(n, sizeof(double));
  }

  if (only_side >= 0) /* the other sides are done */
    for (int s = 0; s < ns; ++s) cnt[s] = s == only_side ? 0 : n;
  for (int s = 0; s < ns; ++s) {
    if (only_side >= 0 && s != only_side) continue;
    if (S[s].setup(sc, param)) {
      snprintf(r->error, sizeof r->error, "%s setup: %s", S[s].name,
               S[s].error());
      goto done;
    }
    ok[s] = 1;
  }
  /* Warm-up: first launches compile, first records allocate. */
  for (unsigned w = 0; w < warmup; ++w)
    for (int s = 0; s < ns; ++s) {
      double x;
      if (only_side >= 0 && s != only_side) continue;
      if (one_sample(&S[s], sc, d->inner, &x, NULL)) {
        snprintf(r->error, sizeof r->error, "%s warm-up: %s", S[s].name,
                 S[s].error());
        goto done;
      }
    }
  r->rss_before = rss_bytes();
  for (unsigned b = 0; cnt[0] < n || cnt[1] < n || cnt[ns - 1] < n; ++b) {
    /* A time cap keeps --quick under a minute on a loaded machine; it
     * stops only where both sides have the same number of samples.  The
     * memory scenario always runs its full count of cycles. */
    if (!flat && !samples_override && only_side < 0 && cnt[0] == cnt[1] &&
        cnt[0] == cnt[ns - 1] && cnt[0] >= 100 &&
        now_ns() - t_start > (quick ? 3e9 : 60e9)) {
      r->capped = 1;
      break;
    }
    for (int k = 0; k < ns; ++k) {
      /* ours, raw | raw, ours | ...; three sides rotate. */
      int s = ns == 2 ? k ^ (int)(b & 1) : (int)((k + b) % 3);
      for (unsigned j = 0; j < block && cnt[s] < n; ++j) {
        long delta = 0;
        if (one_sample(&S[s], sc, d->inner, &v[s][cnt[s]],
                       flat ? &delta : NULL)) {
          snprintf(r->error, sizeof r->error, "%s: %s", S[s].name,
                   S[s].error());
          goto done;
        }
        if (flat) r->growth[s] += delta;
        if (s < 2 && ev[s]) ev[s][cnt[s]] = S[s].elapsed_ms();
        cnt[s]++;
      }
    }
  }
  r->rss_after = rss_bytes();
  n = cnt[0] < cnt[1] ? cnt[0] : cnt[1];
  if (cnt[ns - 1] < n) n = cnt[ns - 1];
  r->samples = n;
  if (only_side >= 0) {
    for (int s = 0; s < ns; ++s)
      r->st[s] = summarize(v[s], s == only_side ? n : 0);
    r->ratio = r->ratio_plain = NAN;
    goto done;
  }
  r->qlo = INFINITY;
  r->qhi = -INFINITY;
  for (unsigned q = 0; q < 4 && n >= 8; ++q) {
    unsigned a = q * n / 4, m = (q + 1) * n / 4 - a;
    double *c[2];
    for (int s = 0; s < 2; ++s) {
      c[s] = malloc(m * sizeof(double));
      if (c[s]) memcpy(c[s], v[s] + a, m * sizeof(double));
    }
    if (c[0] && c[1]) {
      double x = summarize(c[0], m).median / summarize(c[1], m).median;
      if (x < r->qlo) r->qlo = x;
      if (x > r->qhi) r->qhi = x;
    }
    free(c[0]);
    free(c[1]);
  }
  r->cycles = (unsigned long long)n * d->inner;
  for (int s = 0; s < 2; ++s) {
    r->st[s] = summarize(v[s], n);
    if (ev[s]) {
      stats h = r->st[s], e = summarize(ev[s], n);
      r->ev_ms[s] = e.median;
      r->host_ms[s] = h.median / 1e6;
    }
  }
  r->ratio = r->st[OURS].median / r->st[RAW].median;
  if (ns == 3) {
    r->st[PLAIN] = summarize(v[PLAIN], n);
    r->ratio_plain = r->st[OURS].median / r->st[PLAIN].median;
  }

done:
  for (int s = ns - 1; s >= 0; --s)
    if (ok[s] || r->error[0]) S[s].teardown(sc);
  for (int s = 0; s < ns; ++s) free(v[s]);
  for (int s = 0; s < 2; ++s) free(ev[s]);
  r->seconds = (now_ns() - t_start) / 1e9;
  alarm(0);
}

/* ---- output ------------------------------------------------------------- */

static void print_row(int sc) {
  const result *r = &RES[sc];
  if (r->error[0]) {
    printf("%-20s ERROR: %s\n", SCEN[sc].name, r->error);
  } else {
    printf("%-20s %10.1f %10.1f %10.1f %10.1f %8.3f  %5.2f-%-5.2f%s\n",
           SCEN[sc].name, r->st[OURS].median, r->st[OURS].p90,
           r->st[RAW].median, r->st[RAW].p90, r->ratio, r->qlo, r->qhi,
           r->capped ? " (time cap)" : "");
    if (SC_IS_GRAPH(sc))
      printf("%-20s %10.1f %10.1f %21s %8.3f  (graph/plain, ns per kernel)\n",
             "  plain launches", r->st[PLAIN].median, r->st[PLAIN].p90, "",
             r->ratio_plain);
  }
  fflush(stdout);
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.6g", x);
  else
    fputs("null", f);
}

typedef struct target {
  const char *name;
  double value, limit;
  int evaluated, pass;
  char detail[200];
} target;

static target TGT[12];
static int ntgt;

static void add_target(const char *name, double value, double limit,
                       const char *fmt, ...) {
  target *t = &TGT[ntgt++];
  va_list ap;
  t->name = name;
  t->value = value;
  t->limit = limit;
  t->evaluated = isfinite(value);
  t->pass = t->evaluated && value <= limit;
  va_start(ap, fmt);
  vsnprintf(t->detail, sizeof t->detail, fmt, ap);
  va_end(ap);
}

static int ok_result(int sc) { return RES[sc].ran && !RES[sc].error[0]; }

/* The graph rows have targets of their own (graph_targets), so the
 * worst ratio of every scenario leaves them out. */
static int counts_for_worst(int sc) {
  return ok_result(sc) && !SC_IS_GRAPH(sc);
}

static const char *bench_platform = ""; /* clstream's device's platform */

/* The graph targets (issues 28 and 33), each on the worst of the graph
 * rows that ran: graph replay over raw (CUDA build: a raw CUDA graph
 * replay, <= 1.05; NVIDIA's OpenCL: event-less enqueues of prepared
 * kernels, <= 1.0, since plain launches there are event-less enqueues
 * already), and graph replay over plain launches on every OpenCL device,
 * <= 1.0: replay is never slower than the same launches issued plainly. */
static void graph_targets(void) {
  double wr = -1, wp = -1;
  int sr = -1, sp = -1;
  int nvidia = strstr(bench_platform, "NVIDIA") != NULL;
  for (int sc = SC_GRAPH_10; sc <= SC_GRAPH_1000; ++sc) {
    if (!ok_result(sc)) continue;
    if (RES[sc].ratio > wr) wr = RES[sc].ratio, sr = sc;
    if (RES[sc].ratio_plain > wp) wp = RES[sc].ratio_plain, sp = sc;
  }
#if defined(CLS_BENCH_CUDA)
  if (sr >= 0)
    add_target("graph_over_raw", wr, 1.05,
               "graph / raw CUDA graph replay %.3f (%s), limit 1.05", wr,
               SCEN[sr].name);
  (void)wp, (void)sp, (void)nvidia;
#else
  if (sr >= 0 && nvidia)
    add_target("graph_over_raw", wr, 1.0,
               "graph / raw event-less enqueues %.3f (%s), limit 1.0", wr,
               SCEN[sr].name);
  if (sp >= 0)
    add_target("graph_over_plain", wp, 1.0,
               "graph / plain launches %.3f (%s), limit 1.0", wp,
               SCEN[sp].name);
#endif
}

static void evaluate_targets(void) {
  double worst = -1;
  int wsc = -1;
  for (int sc = 0; sc < SC_COUNT; ++sc)
    if (counts_for_worst(sc) && RES[sc].ratio > worst)
      worst = RES[sc].ratio, wsc = sc;
  if (wsc >= 0)
    add_target("ratio_every_scenario", worst, 1.05,
               "worst ours/raw %.3f (%s), limit 1.05", worst, SCEN[wsc].name);
  if (ok_result(SC_QUERY_DONE))
    add_target("query_done_ns", RES[SC_QUERY_DONE].st[OURS].median, 25,
               "ours %.1f ns, limit 25 ns", RES[SC_QUERY_DONE].st[OURS].median);
  if (ok_result(SC_SYNC_DONE))
    add_target("sync_done_ns", RES[SC_SYNC_DONE].st[OURS].median, 25,
               "ours %.1f ns, limit 25 ns", RES[SC_SYNC_DONE].st[OURS].median);
  if (ok_result(SC_LEGACY_1) && ok_result(SC_LEGACY_64)) {
    /* The two scenarios run at different times, so load from elsewhere
     * can move one and not the other.  Their raw side is the same plain
     * launch, so ours/raw of legacy_64 over ours/raw of legacy_1 compares
     * the two launches against one yardstick; the direct quotient is
     * shown too. */
    const result *a = &RES[SC_LEGACY_1], *b = &RES[SC_LEGACY_64];
    double direct = b->st[OURS].median / a->st[OURS].median;
    double x = b->ratio / a->ratio;
    add_target("legacy_64_over_legacy_1", x, 1.1,
               "ours/raw %.3f / %.3f = %.3f, limit 1.1 (direct %.1f ns / "
               "%.1f ns = %.3f)",
               b->ratio, a->ratio, x, b->st[OURS].median, a->st[OURS].median,
               direct);
  }
#if !defined(CLS_BENCH_CUDA)
  /* On OpenCL clstream enqueues 2 commands where the raw program enqueues
   * 5; on the CUDA build both sides make the same runtime calls, so there
   * is no such target. */
  if (ok_result(SC_PINGPONG))
    add_target("pingpong_ratio", RES[SC_PINGPONG].ratio, 0.8,
               "ours/raw %.3f, limit 0.8", RES[SC_PINGPONG].ratio);
#endif
  if (ok_result(SC_FLAT_MEMORY)) {
    double g = (double)RES[SC_FLAT_MEMORY].growth[OURS];
    add_target("flat_memory_growth_bytes", g, 1048576.0,
               "ours grew %+.1f KiB over %llu cycles, limit 1024 KiB",
               g / 1024.0, RES[SC_FLAT_MEMORY].cycles);
  }
  graph_targets();
}

static void write_json(const char *path, int quick, const clsDeviceProp *p,
                       int devidx, const raw_info *ri, const char *date,
                       int wsc, double worst) {
  FILE *f = fopen(path, "w");
  struct utsname u;
  if (!f) {
    fprintf(stderr, "clstream-bench: cannot write %s\n", path);
    return;
  }
  uname(&u);
  fprintf(f, "{\n  \"tool\": \"clstream-bench\",\n  \"backend\": ");
  json_str(f, BACKEND_NAME);
  fprintf(f, ",\n  \"mode\": \"%s\",\n  \"date\": ", quick ? "quick" : "full");
  json_str(f, date);
  fprintf(f, ",\n  \"host\": {\"system\": ");
  json_str(f, u.sysname);
  fprintf(f, ", \"release\": ");
  json_str(f, u.release);
  fprintf(f, ", \"machine\": ");
  json_str(f, u.machine);
  fprintf(f, ", \"cpus\": %ld},\n", sysconf(_SC_NPROCESSORS_ONLN));
  fprintf(f, "  \"device\": {\"index\": %d, \"name\": ", devidx);
  json_str(f, p->name);
  fprintf(f, ", \"platform\": ");
  json_str(f, p->platformName);
  fprintf(f, ", \"driver\": ");
  json_str(f, p->driverVersion);
  fprintf(f, ", \"isCpu\": %d, \"timerResolutionNs\": ", p->isCpu);
  json_num(f, p->timerResolutionNs);
  fprintf(f, ", \"timingFallback\": %d},\n", p->timingFallback);
  fprintf(f, "  \"raw\": {\"api\": ");
  json_str(f, ri->api);
  fprintf(f, ", \"device\": ");
  json_str(f, ri->device);
  fprintf(f, ", \"platform\": ");
  json_str(f, ri->platform);
  fprintf(f, ", \"driver\": ");
  json_str(f, ri->driver);
  fprintf(f, ", \"version\": ");
  json_str(f, ri->version);
  fprintf(f, "},\n  \"unit\": \"ns per operation\",\n  \"scenarios\": [");
  int first = 1;
  for (int sc = 0; sc < SC_COUNT; ++sc) {
    const result *r = &RES[sc];
    if (!r->ran) continue;
    fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
    first = 0;
    json_str(f, SCEN[sc].name);
    fprintf(f, ", \"description\": ");
    json_str(f, SCEN[sc].what);
    fprintf(f,
            ", \"inner\": %u, \"samples\": %u, \"capped\": %s, "
            "\"seconds\": ",
            r->inner, r->samples, r->capped ? "true" : "false");
    json_num(f, r->seconds);
    if (r->error[0]) {
      fprintf(f, ", \"error\": ");
      json_str(f, r->error);
      fprintf(f, "}");
      continue;
    }
    for (int s = 0; s < (SC_IS_GRAPH(sc) ? 3 : 2); ++s) {
      fprintf(f,
              ", \"%s\": {\"median\": ", s == PLAIN ? "plain" : SIDES[s].name);
      json_num(f, r->st[s].median);
      fprintf(f, ", \"p90\": ");
      json_num(f, r->st[s].p90);
      fprintf(f, ", \"min\": ");
      json_num(f, r->st[s].min);
      fprintf(f, ", \"mean\": ");
      json_num(f, r->st[s].mean);
      fprintf(f, "}");
    }
    fprintf(f, ", \"ratio\": ");
    json_num(f, r->ratio);
    fprintf(f, ", \"ratio_quarters_min\": ");
    json_num(f, r->qlo);
    fprintf(f, ", \"ratio_quarters_max\": ");
    json_num(f, r->qhi);
    if (SC_IS_GRAPH(sc)) {
      fprintf(f, ", \"kernels\": %u, \"ratio_plain\": ", r->inner);
      json_num(f, r->ratio_plain);
    }
    if (sc == SC_ELAPSED) {
      fprintf(f, ", \"spin_iters\": %u", r->spin_iters);
      for (int s = 0; s < 2; ++s) {
        fprintf(f, ", \"%s_event_ms\": ", SIDES[s].name);
        json_num(f, r->ev_ms[s]);
        fprintf(f, ", \"%s_host_ms\": ", SIDES[s].name);
        json_num(f, r->host_ms[s]);
        fprintf(f, ", \"%s_event_over_host\": ", SIDES[s].name);
        json_num(f, r->ev_ms[s] / r->host_ms[s]);
      }
    }
    if (sc == SC_FLAT_MEMORY) {
      fprintf(f,
              ", \"cycles_per_side\": %llu, \"rss_before_bytes\": %ld, "
              "\"rss_after_bytes\": %ld, \"ours_growth_bytes\": %ld, "
              "\"raw_growth_bytes\": %ld, \"ok\": %s",
              r->cycles, r->rss_before, r->rss_after, r->growth[OURS],
              r->growth[RAW], r->growth[OURS] <= 1048576 ? "true" : "false");
    }
    fprintf(f, "}");
  }
  fprintf(f, "\n  ],\n  \"targets\": [");
  for (int i = 0; i < ntgt; ++i) {
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    json_str(f, TGT[i].name);
    fprintf(f, ", \"value\": ");
    json_num(f, TGT[i].value);
    fprintf(f, ", \"limit\": ");
    json_num(f, TGT[i].limit);
    fprintf(f, ", \"pass\": %s, \"detail\": ", TGT[i].pass ? "true" : "false");
    json_str(f, TGT[i].detail);
    fprintf(f, "}");
  }
  fprintf(f, "\n  ],\n  \"worst\": {\"ratio\": ");
  json_num(f, worst);
  fprintf(f, ", \"scenario\": ");
  json_str(f, wsc >= 0 ? SCEN[wsc].name : "");
  fprintf(f, "}\n}\n");
  fclose(f);
}

/* ---- main --------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f, "usage: clstream-bench [--quick] [--scenario NAME[,NAME...]] "
             "[--json FILE] [--samples N] [--block N] [--only ours|raw] "
             "[--list]\n");
}

static int find_scenario(const char *name, size_t len) {
  for (int sc = 0; sc < SC_COUNT; ++sc)
    if (strlen(SCEN[sc].name) == len && strncmp(SCEN[sc].name, name, len) == 0)
      return sc;
  return -1;
}

int main(int argc, char **argv) {
  int quick = 0, selected[SC_COUNT] = {0}, any_selected = 0;
  const char *json = NULL;
  clsDeviceProp prop;
  raw_info ri;
  int dev = 0, nth = 0, status = 0, want_multi = 0, peer = -1;
  char no_multi[512] = "not selected";
  char err[1024], date[32];
  time_t t0 = time(NULL);
  double wall0 = now_ns();

  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--list") == 0) {
      for (int sc = 0; sc < SC_COUNT; ++sc)
        printf("%-20s %s\n", SCEN[sc].name, SCEN[sc].what);
      return 0;
    } else if (strcmp(argv[i], "--list-inner") == 0) {
      /* For bench/profile.sh: operations per timed sample. */
      for (int sc = 0; sc < SC_COUNT; ++sc)
        printf("%s %u\n", SCEN[sc].name, SCEN[sc].inner);
      return 0;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      ++i;
      only_side = strcmp(argv[i], "ours") == 0  ? OURS
                  : strcmp(argv[i], "raw") == 0 ? RAW
                                                : -2;
      if (only_side == -2) {
        usage(stderr);
        return 2;
      }
    } else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc) {
      block_override = (unsigned)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
      samples_override = (unsigned)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json = argv[++i];
    } else if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc) {
      const char *s = argv[++i];
      while (*s) {
        size_t len = strcspn(s, ",");
        int sc = find_scenario(s, len);
        if (sc < 0) {
          fprintf(stderr,
                  "clstream-bench: unknown scenario '%.*s' (see "
                  "--list)\n",
                  (int)len, s);
          return 2;
        }
        selected[sc] = any_selected = 1;
        s += len;
        if (*s == ',') ++s;
      }
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (!any_selected)
    for (int sc = 0; sc < SC_COUNT; ++sc) selected[sc] = 1;

  signal(SIGALRM, on_alarm);
  alarm(300);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t0));

  /* clstream's device (CLSTREAM_DEVICE's choice) and the same one raw. */
  clsError_t e = clsGetDevice(&dev);
  if (e == clsSuccess) e = clsSetDevice(dev);
  if (e == clsSuccess) e = clsGetDeviceProperties(&prop, dev);
  if (e != clsSuccess) {
    fprintf(stderr, "clstream-bench: no usable clstream device: %s\n",
            clsGetErrorName(e));
    return 1;
  }
  for (int i = 0; i < dev; ++i) {
    clsDeviceProp q;
    if (clsGetDeviceProperties(&q, i) == clsSuccess &&
        strcmp(q.name, prop.name) == 0 &&
        strcmp(q.platformName, prop.platformName) == 0)
      ++nth;
  }
  {
    size_t lp = strlen(bench_prelude), la = strlen(cls_kernel_arith);
    char *src = malloc(lp + la + 2);
    if (!src) return 1;
    memcpy(src, bench_prelude, lp);
    src[lp] = '\n';
    memcpy(src + lp + 1, cls_kernel_arith, la + 1);
    if (raw_open(prop.name, prop.platformName, nth, src, &ri, err,
                 sizeof err)) {
      fprintf(stderr, "clstream-bench: %s\n", err);
      return 1;
    }
    /* The two-device rows, where a peer device is there (else skipped). */
    for (int sc = 0; sc < SC_COUNT; ++sc)
      if (selected[sc] && bench_multi_sc(sc)) want_multi = 1;
    if (want_multi && multi_open(dev, cls_kernel_arith, src, &peer, no_multi,
                                 sizeof no_multi) == 0)
      no_multi[0] = '\0';
    free(src);
  }
  e = clsModuleLoadData(&o_mod, cls_kernel_arith, NULL);
  if (e == clsSuccess) e = clsModuleGetFunction(&o_fill, o_mod, "fill");
  if (e == clsSuccess) e = clsModuleGetFunction(&o_spin, o_mod, "spin");
  if (e == clsSuccess) e = clsMalloc((void **)&o_buf, 4096);
  if (e == clsSuccess) e = clsMallocHost((void **)&o_pin, 4096);
  graph_init(o_fill, o_buf);
  bench_platform = prop.platformName;
  if (e != clsSuccess) {
    fprintf(stderr, "clstream-bench: clstream set-up failed: %s\n%s\n",
            clsGetErrorName(e), clsGetLastBuildLog());
    return 1;
  }
  alarm(0);

  printf("clstream-bench: %s build, %s run, %s\n", BACKEND_NAME,
         quick ? "quick" : "full", date);
  printf("device   : %d: %s (%s), driver %s\n", dev, prop.name,
         prop.platformName, prop.driverVersion);
  printf("raw side : %s: %s (%s), driver %s, %s\n", ri.api, ri.device,
         ri.platform, ri.driver, ri.version);
  if (want_multi && !no_multi[0]) {
    clsDeviceProp pp;
    if (clsGetDeviceProperties(&pp, peer) == clsSuccess)
      printf("peer     : %d: %s (%s), for the two-device rows\n", peer, pp.name,
             pp.platformName);
  }
  printf("method   : ours and raw interleaved in alternating blocks; ns per "
         "operation (median, p90);\n"
         "           quarters = lowest-highest ours/raw over the run's four "
         "quarters (noise)\n\n");
  printf("%-20s %10s %10s %10s %10s %8s  %s\n", "scenario", "ours med",
         "ours p90", "raw med", "raw p90", "ours/raw", "quarters");
  fflush(stdout);

  for (int sc = 0; sc < SC_COUNT; ++sc) {
    if (!selected[sc]) continue;
    if (bench_multi_sc(sc) && no_multi[0]) {
      printf("%-20s skipped: %s\n", SCEN[sc].name, no_multi);
      continue;
    }
    run_scenario(sc, quick);
    print_row(sc);
    if (RES[sc].error[0]) status = 1;
  }
  current_scenario = "report";
  printf("\n");

  if (ok_result(SC_ELAPSED) && only_side < 0) {
    const result *r = &RES[SC_ELAPSED];
    printf("elapsed   : spin of %u iterations; median event-timed vs host "
           "span (record..synchronize)\n",
           r->spin_iters);
    for (int s = 0; s < 2; ++s)
      printf("  %-4s    : events %.4f ms, host %.4f ms, events/host %.4f\n",
             SIDES[s].name, r->ev_ms[s], r->host_ms[s],
             r->ev_ms[s] / r->host_ms[s]);
  }
  if (ok_result(SC_FLAT_MEMORY) && only_side < 0) {
    const result *r = &RES[SC_FLAT_MEMORY];
    printf("flat_memory: %llu record/query cycles per side; RSS %.1f MiB "
           "before, %.1f MiB after; growth ours %+.1f KiB, raw %+.1f KiB\n",
           r->cycles, r->rss_before / 1048576.0, r->rss_after / 1048576.0,
           r->growth[OURS] / 1024.0, r->growth[RAW] / 1024.0);
    if (r->growth[OURS] > 1048576) {
      printf("!!!!! FAIL flat_memory: clstream's RSS grew by %.1f KiB over "
             "%llu cycles (limit 1024 KiB): per-operation heap growth !!!!!\n",
             r->growth[OURS] / 1024.0, r->cycles);
      status = 1;
    }
  }

  if (only_side < 0) evaluate_targets();
  if (ntgt) {
    printf("targets (issues 5 and 28, medians):\n");
    for (int i = 0; i < ntgt; ++i)
      printf("  %-4s %-26s %s\n", TGT[i].pass ? "PASS" : "MISS", TGT[i].name,
             TGT[i].detail);
  }

  double worst = -1;
  int wsc = -1;
  for (int sc = 0; sc < SC_COUNT; ++sc)
    if (counts_for_worst(sc) && RES[sc].ratio > worst)
      worst = RES[sc].ratio, wsc = sc;
  if (json) write_json(json, quick, &prop, dev, &ri, date, wsc, worst);
  printf("total %.1f s\n", (now_ns() - wall0) / 1e9);

  clsFree(o_buf);
  clsFreeHost(o_pin);
  clsModuleUnload(o_mod);
  if (want_multi && !no_multi[0]) {
    multi_close();
    raw_multi_close();
  }
  raw_close();
  if (wsc >= 0)
    printf("worst ratio %.3f (%s)\n", worst, SCEN[wsc].name);
  else
    printf("worst ratio nan (none)\n");
  return status;
}
