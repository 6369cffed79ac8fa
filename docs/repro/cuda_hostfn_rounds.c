/*
 * Where the CUDA build's host-function round trip (clsLaunchHostFunc +
 * clsStreamSynchronize) lost time against raw cudaLaunchHostFunc +
 * cudaStreamSynchronize (docs/drivers.md, "Host functions on the CUDA
 * build").  Not built by CMake.
 *
 * Variants run in turns of BLOCK round trips, ROUNDS times, each turn's
 * order rotated; per round trip it keeps the whole time, the launch call,
 * the wake (launch -> the function runs, read in the function) and the
 * tail (function -> synchronize returns), and prints their quantiles and
 * the share under 6 us (CUDA's callback thread still awake).  Variants:
 * raw; raw on a stream made with cudaStreamCreateWithPriority (as
 * clstream makes them); raw through a trampoline with a record from a
 * ring of 8 (two layouts: raw_trampoline, and raw_tramp56, the front's
 * 56-byte job record); raw with 25-500 ns of spinning between the
 * synchronize and the next launch; raw cudaStreamAddCallback; ours with
 * clsLaunchHostFunc and with clsStreamAddCallback; raw again.
 *
 *   cc -O2 -std=gnu11 -Iinclude -I$CUDA/include cuda_hostfn_rounds.c \
 *     -o rounds -Lbuild-cuda -lclstream -L$CUDA/lib64 -lcudart -lpthread
 *   ./rounds [ROUNDS=40] [BLOCK=250] [VARIANTS, e.g. raw,ours,raw_again]
 *
 * build-cuda: a CUDA build of clstream (-DCLSTREAM_BACKEND=CUDA).
 */
#define _GNU_SOURCE
#include <clstream.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x,              \
              cudaGetErrorName(e_));                                           \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CKS(x)                                                                 \
  do {                                                                         \
    clsError_t e_ = (x);                                                       \
    if (e_ != clsSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_);    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static inline long long now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static volatile long long t_cb;
static volatile int cb_cpu, cb_tid;
static volatile unsigned cnt;

static void CUDART_CB fn(void *p) {
  t_cb = now();
  cb_cpu = sched_getcpu();
  cb_tid = (int)syscall(SYS_gettid);
  ++*(volatile unsigned *)p;
}
static void CUDART_CB cbfn(cudaStream_t s, cudaError_t st, void *p) {
  (void)s;
  (void)st;
  fn(p);
}

typedef struct rec {
  void (*fn)(void *);
  void *user;
  _Atomic int state;
  char pad[64];
} rec;
static rec *ring[8];
static unsigned ring_next;
static _Thread_local int in_fn;
static void CUDART_CB tramp(void *p) {
  rec *r = p;
  void (*f)(void *) = r->fn;
  void *u = r->user;
  atomic_exchange_explicit(&r->state, 0, memory_order_acq_rel);
  in_fn = 1;
  f(u);
  in_fn = 0;
}

static void spin_ns(long long ns) {
  long long t = now();
  while (now() - t < ns) {
  }
}

enum {
  V_RAW,
  V_PRIO,
  V_TRAMP,
  V_D150,
  V_D500,
  V_CALLBACK,
  V_OURS,
  V_OURS_CB,
  V_RAW_B,
  V_TRAMP56,
  V_D25,
  V_D50,
  V_D75,
  V_N
};
static const char *vname[V_N] = {
    "raw",          "raw_prio_stream", "raw_trampoline", "raw_gap150ns",
    "raw_gap500ns", "raw_addcallback", "ours",           "ours_addcallback",
    "raw_again",    "raw_tramp56",     "raw_gap25ns",    "raw_gap50ns",
    "raw_gap75ns"};
/* ours' layout: 56-byte records from consecutive mallocs */
typedef struct rec56 {
  void (*run)(void *, int);
  int skippable;
  void (*fn)(void *);
  void *cb;
  void *user;
  void *stream;
  _Atomic int state;
} rec56;
static rec56 *ring56[8];
static unsigned ring56_next;
static void run56(void *p, int st) {
  rec56 *r = p;
  void (*f)(void *) = r->fn;
  void *u = r->user;
  void *cb = r->cb;
  atomic_exchange_explicit(&r->state, 0, memory_order_acq_rel);
  in_fn = 1;
  if (cb)
    abort();
  else if (st == 0)
    f(u);
  in_fn = 0;
}
static void CUDART_CB tramp56(void *p) {
  rec56 *r = p;
  r->run(r, 0);
}

static cudaStream_t s_raw, s_prio;
static clsStream_t s_ours;

#define MAXS 400000
typedef struct series {
  long long tot[MAXS], launch[MAXS], wake[MAXS], tail[MAXS];
  int same_cpu, n;
  int tids[16], ntid;
} series;
static series S[V_N];

static void one(int v) {
  series *x = &S[v];
  long long t0 = now(), t1;
  unsigned before = cnt;
  switch (v) {
  case V_RAW:
  case V_RAW_B:
    CK(cudaLaunchHostFunc(s_raw, fn, (void *)&cnt));
    t1 = now();
    CK(cudaStreamSynchronize(s_raw));
    break;
  case V_PRIO:
    CK(cudaLaunchHostFunc(s_prio, fn, (void *)&cnt));
    t1 = now();
    CK(cudaStreamSynchronize(s_prio));
    break;
  case V_TRAMP: {
    unsigned i = ring_next;
    ring_next = (i + 1) & 7;
    rec *r = ring[i];
    while (atomic_load_explicit(&r->state, memory_order_acquire)) {
    }
    atomic_store_explicit(&r->state, 1, memory_order_relaxed);
    r->fn = fn;
    r->user = (void *)&cnt;
    CK(cudaLaunchHostFunc(s_raw, tramp, r));
    t1 = now();
    CK(cudaStreamSynchronize(s_raw));
    break;
  }
  case V_TRAMP56: {
    unsigned i = ring56_next;
    ring56_next = (i + 1) & 7;
    rec56 *r = ring56[i];
    while (atomic_load_explicit(&r->state, memory_order_acquire)) {
    }
    atomic_store_explicit(&r->state, 1, memory_order_relaxed);
    r->run = run56;
    r->skippable = 1;
    r->fn = fn;
    r->cb = NULL;
    r->user = (void *)&cnt;
    r->stream = r;
    CK(cudaLaunchHostFunc(s_raw, tramp56, r));
    t1 = now();
    CK(cudaStreamSynchronize(s_raw));
    break;
  }
  case V_D25:
  case V_D50:
  case V_D75:
  case V_D150:
  case V_D500:
    spin_ns(v == V_D150   ? 150
            : v == V_D500 ? 500
            : v == V_D25  ? 25
            : v == V_D50  ? 50
                          : 75);
    t0 = now();
    CK(cudaLaunchHostFunc(s_raw, fn, (void *)&cnt));
    t1 = now();
    CK(cudaStreamSynchronize(s_raw));
    break;
  case V_CALLBACK:
    CK(cudaStreamAddCallback(s_raw, cbfn, (void *)&cnt, 0));
    t1 = now();
    CK(cudaStreamSynchronize(s_raw));
    break;
  case V_OURS:
    CKS(clsLaunchHostFunc(s_ours, fn, (void *)&cnt));
    t1 = now();
    CKS(clsStreamSynchronize(s_ours));
    break;
  case V_OURS_CB:
    CKS(clsStreamAddCallback(s_ours, (clsStreamCallback_t)(void *)cbfn,
                             (void *)&cnt, 0));
    t1 = now();
    CKS(clsStreamSynchronize(s_ours));
    break;
  default:
    exit(2);
  }
  long long t2 = now();
  if (cnt != before + 1) {
    fprintf(stderr, "variant %s: did not run\n", vname[v]);
    exit(1);
  }
  if (x->n < MAXS) {
    x->tot[x->n] = t2 - t0;
    x->launch[x->n] = t1 - t0;
    x->wake[x->n] = t_cb - t0;
    x->tail[x->n] = t2 - t_cb;
    x->n++;
  }
  if (cb_cpu == sched_getcpu()) x->same_cpu++;
  int k;
  for (k = 0; k < x->ntid && x->tids[k] != cb_tid; ++k) {
  }
  if (k == x->ntid && k < 16) x->tids[x->ntid++] = cb_tid;
}

static int cmp(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}
static void stats(const char *what, long long *a, int n) {
  qsort(a, n, sizeof *a, cmp);
  double mean = 0;
  int fast = 0;
  for (int i = 0; i < n; ++i) {
    mean += a[i];
    if (a[i] < 6000) fast++;
  }
  mean /= n;
  printf("  %-7s min %7.2f p10 %7.2f p25 %7.2f med %7.2f p75 %7.2f p90 %7.2f "
         "mean %7.2f  <6us %5.1f%%\n",
         what, a[0] / 1e3, a[n / 10] / 1e3, a[n / 4] / 1e3, a[n / 2] / 1e3,
         a[3 * n / 4] / 1e3, a[9 * n / 10] / 1e3, mean / 1e3, 100.0 * fast / n);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  int block = argc > 2 ? atoi(argv[2]) : 250;
  const char *only = argc > 3 ? argv[3] : NULL;
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  CKS(clsStreamCreate(&s_ours));
  CK(cudaStreamCreate(&s_raw));
  CK(cudaStreamCreateWithPriority(&s_prio, 0, 0));
  for (int i = 0; i < 8; ++i) ring[i] = calloc(1, sizeof(rec));
  for (int i = 0; i < 8; ++i) ring56[i] = calloc(1, sizeof(rec56));
  printf("rec56 addresses:");
  for (int i = 0; i < 8; ++i) printf(" %p", (void *)ring56[i]);
  printf("\n");
  int vs[V_N], nv = 0;
  for (int v = 0; v < V_N; ++v)
    if (!only || strstr(only, vname[v])) vs[nv++] = v;
  /* warm-up */
  for (int k = 0; k < nv; ++k)
    for (int i = 0; i < 200; ++i) one(vs[k]);
  for (int v = 0; v < V_N; ++v) {
    S[v].n = 0;
    S[v].same_cpu = 0;
  }
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < nv; ++k) {
      int v = vs[(k + r) % nv];
      for (int i = 0; i < block; ++i) one(v);
    }
  printf("rounds %d block %d (us)\n", rounds, block);
  for (int k = 0; k < nv; ++k) {
    series *x = &S[vs[k]];
    printf("%s: n %d, callback on the caller's cpu %.1f%%, callback threads "
           "%d\n",
           vname[vs[k]], x->n, 100.0 * x->same_cpu / x->n, x->ntid);
    stats("total", x->tot, x->n);
    stats("launch", x->launch, x->n);
    stats("wake", x->wake, x->n);
    stats("tail", x->tail, x->n);
  }
  return 0;
}
