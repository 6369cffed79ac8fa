/*
 * clstream-capture-model: model-based random testing of stream capture
 * and graph replay (issue 28), beside clstream-model (model.c), which
 * tests the ordering of work issued directly.
 *
 * Each seed generates a reproducible random program over three streams
 * (the capture's origin, which is the per-thread stream or a created
 * stream, and two created streams, blocking or not), four events, four
 * device buffers and two pinned host buffers: kernels that write known
 * values (tests/kernels/model.cl), device-to-device copies, copies from
 * and to pinned memory, memsets, host functions that rewrite a pinned
 * buffer, event records and waits.  The program is one that a capture
 * accepts: a stream other than the origin takes part only after waiting
 * for an event recorded earlier in the program (the fork), and at the
 * end every such stream records an event the origin waits for (the
 * join).  It is race-free: every access to a buffer is ordered (by stream
 * order and the events) after the buffer's last writer, and every write
 * after the readers since, so its result does not depend on timing.
 *
 * The oracle is direct execution.  From a seeded initial state the
 * program runs twice directly (the host changes a pinned buffer between
 * the two runs, which the second run's copies must see); the state after
 * each run is kept.  From the same initial state the program is then
 * captured in a random capture mode, which must run nothing and give a
 * graph of one node per work operation (records and waits make edges,
 * not nodes); the graph is instantiated (and sometimes destroyed at once:
 * the exec outlives it) and launched twice, on a random stream each time,
 * with the same host change between the launches; before the launches,
 * the values the captured kernel launches pointed at are changed (CUDA
 * reads kernel arguments at capture).  After each launch the
 * buffers must equal the direct run's.
 *
 * Usage: clstream-capture-model [--seeds N] [--start S] [--seed S]
 *                               [--ops N] [--timeout SEC] [--print]
 *                               [--quiet] [--check-oracle]
 * --check-oracle runs each program directly a third time from the start
 * and compares it with the first run, without capturing: a check of the
 * generator (a racy program would now and then end differently).
 * A failing seed prints its program (--seed S --print prints it without
 * running it).  A hang (no end within --timeout seconds, default 30)
 * names the seed and fails.
 */
#include "clstream.h"
#include "clstream_kernels.h"

#include "capture_prog.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static clsModule_t g_mod;
static clsFunction_t g_fill, g_add, g_kcopy;
static unsigned *g_dbuf[NDEV], *g_hbuf[NHOST];
static clsStream_t g_s[NSTREAM];
static clsEvent_t g_e[NEVENT];
static volatile unsigned long long g_current_seed;
static int g_quiet;
static int g_check_oracle; /* --check-oracle: direct runs only */

/* ---- Running ------------------------------------------------------------
 */

static void host_fn(void *arg) {
  const op *o = arg;
  for (int i = 0; i < N; ++i) o->host[i] = o->host[i] * o->v + 1;
}

static unsigned *buf(int b) { return b < NDEV ? g_dbuf[b] : g_hbuf[b - NDEV]; }

static clsError_t issue(prog *p, int i) {
  op *o = &p->ops[i];
  clsStream_t s = g_s[o->s];
  clsDim3 grid = {1, 1, 1}, block = {N, 1, 1};
  unsigned n = N, iters = 64, zero = 0;
  unsigned *t = buf(o->b), *t2 = o->kind == OP_KCOPY ? buf(o->b2) : NULL;
  switch (o->kind) {
  case OP_FILL: {
    void *a[] = {&t, &o->v, &n};
    return clsLaunchKernel(g_fill, grid, block, a, 0, s);
  }
  case OP_ADD: {
    void *a[] = {&t, &o->v, &n, &iters, &zero};
    return clsLaunchKernel(g_add, grid, block, a, 0, s);
  }
  case OP_KCOPY: {
    void *a[] = {&t, &t2, &n};
    return clsLaunchKernel(g_kcopy, grid, block, a, 0, s);
  }
  case OP_COPY:
    return clsMemcpyAsync(t + o->off, buf(o->b2) + o->off2,
                          o->cnt * sizeof(unsigned), clsMemcpyDeviceToDevice,
                          s);
  case OP_H2D:
    return clsMemcpyAsync(t, buf(o->b2), N * sizeof(unsigned),
                          clsMemcpyHostToDevice, s);
  case OP_D2H:
    return clsMemcpyAsync(t, buf(o->b2), N * sizeof(unsigned),
                          clsMemcpyDeviceToHost, s);
  case OP_MEMSET:
    return clsMemsetAsync(t + o->off, (int)o->v, o->cnt * sizeof(unsigned), s);
  case OP_HOSTFN:
    o->host = t;
    return clsLaunchHostFunc(s, host_fn, o);
  case OP_RECORD:
    return clsEventRecord(g_e[o->e], s);
  case OP_WAIT:
    return clsStreamWaitEvent(s, g_e[o->e], 0);
  }
  return clsErrorInvalidValue;
}

static char g_msg[512];
#define FAIL(...)                                                              \
  do {                                                                         \
    snprintf(g_msg, sizeof g_msg, __VA_ARGS__);                                \
    goto out;                                                                  \
  } while (0)
#define CK(call)                                                               \
  do {                                                                         \
    clsError_t ck_ = (call);                                                   \
    if (ck_ != clsSuccess)                                                     \
      FAIL("line %d: %s -> %s", __LINE__, #call, clsGetErrorName(ck_));        \
  } while (0)

static clsError_t load_state(unsigned st[NBUF][N]) {
  for (int b = 0; b < NDEV; ++b) {
    clsError_t e =
        clsMemcpy(g_dbuf[b], st[b], sizeof st[b], clsMemcpyHostToDevice);
    if (e) return e;
  }
  for (int h = 0; h < NHOST; ++h) memcpy(g_hbuf[h], st[NDEV + h], sizeof st[0]);
  return clsSuccess;
}

static clsError_t save_state(unsigned st[NBUF][N]) {
  clsError_t e = clsDeviceSynchronize();
  for (int b = 0; b < NDEV && !e; ++b)
    e = clsMemcpy(st[b], g_dbuf[b], sizeof st[b], clsMemcpyDeviceToHost);
  for (int h = 0; h < NHOST; ++h) memcpy(st[NDEV + h], g_hbuf[h], sizeof st[0]);
  return e;
}

/* The first difference between two states, or -1. */
static int diff(unsigned a[NBUF][N], unsigned b[NBUF][N], int *at) {
  for (int k = 0; k < NBUF; ++k)
    for (int i = 0; i < N; ++i)
      if (a[k][i] != b[k][i]) return *at = i, k;
  return -1;
}

/* Adds d to the value argument of every kernel launch of p. */
static void bump_kernel_args(prog *p, unsigned d) {
  for (int i = 0; i < p->nops; ++i)
    if (p->ops[i].kind == OP_FILL || p->ops[i].kind == OP_ADD) p->ops[i].v += d;
}

static int run_seed(prog *p) {
  static unsigned direct[2][NBUF][N], got[NBUF][N], before[NBUF][N];
  clsGraph_t graph = NULL;
  clsGraphExec_t exec = NULL;
  size_t nodes = 0;
  int ok = 0, at = 0, k, bumped = 0;

  g_msg[0] = 0;
  for (int s = 1; s < NSTREAM; ++s)
    CK(clsStreamCreateWithFlags(&g_s[s], (unsigned)p->sflags[s]));
  if (p->origin_per_thread)
    g_s[0] = clsStreamPerThread;
  else
    CK(clsStreamCreateWithFlags(&g_s[0], clsStreamNonBlocking));
  for (int e = 0; e < NEVENT; ++e)
    CK(clsEventCreateWithFlags(&g_e[e], clsEventDisableTiming));

  /* The oracle: two direct runs, the host changing h0 between them. */
  CK(load_state(p->init));
  for (int r = 0; r < 2; ++r) {
    if (r) g_hbuf[0][1] ^= p->salt;
    for (int i = 0; i < p->nops; ++i) CK(issue(p, i));
    CK(clsStreamSynchronize(g_s[0]));
    CK(save_state(direct[r]));
  }

  if (g_check_oracle) {
    /* The generator's self-check: a racy program would, now and then,
     * end differently when run again from the same start. */
    CK(load_state(p->init));
    for (int i = 0; i < p->nops; ++i) CK(issue(p, i));
    CK(clsStreamSynchronize(g_s[0]));
    CK(save_state(got));
    if ((k = diff(direct[0], got, &at)) >= 0)
      FAIL("direct runs differ: b%d[%d] %u then %u", k, at, direct[0][k][at],
           got[k][at]);
    ok = 1;
    goto out;
  }

  /* The capture, from the same start: nothing may run. */
  CK(load_state(p->init));
  CK(save_state(before));
  CK(clsStreamBeginCapture(g_s[0], (clsStreamCaptureMode)p->mode));
  for (int i = 0; i < p->nops; ++i) {
    clsError_t e = issue(p, i);
    if (e != clsSuccess) {
      clsStreamEndCapture(g_s[0], &graph);
      FAIL("op %d (%s) in capture -> %s", i, capture_kind[p->ops[i].kind],
           clsGetErrorName(e));
    }
  }
  CK(clsStreamEndCapture(g_s[0], &graph));
  /* Kernel arguments are read at capture: changing the values the
   * captured launches pointed at must not reach the replays.  (A host
   * function reads its data when it runs, so those stay.) */
  bump_kernel_args(p, 0x10000u);
  bumped = 1;
  CK(clsGraphGetNodes(graph, NULL, &nodes));
  if (nodes != (size_t)p->nwork)
    FAIL("graph has %zu nodes, the program %d work operations", nodes,
         p->nwork);
  CK(save_state(got));
  if ((k = diff(before, got, &at)) >= 0)
    FAIL("the capture ran work: b%d[%d] changed", k, at);
  CK(clsGraphInstantiate(&exec, graph, 0));
  if (p->destroy_graph_early) {
    CK(clsGraphDestroy(graph));
    graph = NULL;
  }

  /* Two launches, the same host change between them. */
  for (int r = 0; r < 2; ++r) {
    if (r) g_hbuf[0][1] ^= p->salt;
    CK(clsGraphLaunch(exec, g_s[p->launch_on[r]]));
    CK(clsStreamSynchronize(g_s[p->launch_on[r]]));
    CK(save_state(got));
    if ((k = diff(direct[r], got, &at)) >= 0)
      FAIL("launch %d: b%d[%d] is %u, direct execution gave %u", r + 1, k, at,
           got[k][at], direct[r][k][at]);
  }
  ok = 1;
out:
  clsDeviceSynchronize();
  if (bumped) bump_kernel_args(p, 0u - 0x10000u); /* the listing's values */
  if (exec) clsGraphExecDestroy(exec);
  if (graph) clsGraphDestroy(graph);
  for (int e = 0; e < NEVENT; ++e)
    if (g_e[e]) clsEventDestroy(g_e[e]), g_e[e] = NULL;
  for (int s = 0; s < NSTREAM; ++s) {
    if (g_s[s] && !(s == 0 && p->origin_per_thread)) clsStreamDestroy(g_s[s]);
    g_s[s] = NULL;
  }
  clsGetLastError();
  return ok;
}

static void on_alarm(int sig) {
  char m[96];
  int n = snprintf(m, sizeof m, "clstream-capture-model: seed %llu hung\n",
                   (unsigned long long)g_current_seed);
  (void)sig;
  if (write(2, m, (size_t)n) < 0) _exit(4);
  _exit(3);
}

static int setup(void) {
  clsError_t r = clsModuleLoadData(&g_mod, cls_kernel_model, NULL);
  if (r == clsSuccess) r = clsModuleGetFunction(&g_fill, g_mod, "model_fill");
  if (r == clsSuccess) r = clsModuleGetFunction(&g_add, g_mod, "model_add");
  if (r == clsSuccess) r = clsModuleGetFunction(&g_kcopy, g_mod, "model_copy");
  for (int b = 0; b < NDEV && r == clsSuccess; ++b)
    r = clsMalloc((void **)&g_dbuf[b], N * sizeof(unsigned));
  for (int h = 0; h < NHOST && r == clsSuccess; ++h)
    r = clsMallocHost((void **)&g_hbuf[h], N * sizeof(unsigned));
  if (r != clsSuccess)
    fprintf(stderr, "clstream-capture-model: set-up: %s\n%s\n",
            clsGetErrorName(r), clsGetLastBuildLog());
  return r == clsSuccess;
}

int main(int argc, char **argv) {
  unsigned long long start = 1, nseeds = 200;
  int nops = 40, timeout = 30, print = 0, failures = 0;
  static prog p;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
      nseeds = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--start") && i + 1 < argc)
      start = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      start = strtoull(argv[++i], NULL, 10), nseeds = 1;
    else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
      nops = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
      timeout = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--print"))
      print = 1;
    else if (!strcmp(argv[i], "--quiet"))
      g_quiet = 1;
    else if (!strcmp(argv[i], "--check-oracle"))
      g_check_oracle = 1;
    else {
      fprintf(stderr, "usage: clstream-capture-model [--seeds N] [--start S] "
                      "[--seed S] [--ops N] [--timeout SEC] [--print] "
                      "[--quiet]\n");
      return 2;
    }
  }
  if (print) {
    for (unsigned long long s = start; s < start + nseeds; ++s) {
      capture_generate(&p, s, nops);
      capture_print(stdout, &p);
    }
    return 0;
  }
  if (!setup()) return 1;
  signal(SIGALRM, on_alarm);
  for (unsigned long long s = start; s < start + nseeds; ++s) {
    g_current_seed = s;
    capture_generate(&p, s, nops);
    alarm((unsigned)timeout);
    if (!run_seed(&p)) {
      fprintf(stderr, "clstream-capture-model: seed %llu FAILED: %s\n", s,
              g_msg);
      capture_print(stderr, &p);
      if (++failures >= 3) break;
    } else if (!g_quiet) {
      printf("seed %llu ok: %d operations, %d work\n", s, p.nops, p.nwork);
    }
    alarm(0);
  }
  printf("clstream-capture-model: seeds %llu..%llu, %d failed\n", start,
         start + nseeds - 1, failures);
  return failures ? 1 : 0;
}
