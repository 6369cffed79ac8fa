/*
 * clstream's sides of clstream-bench's graph rows (graph_10, graph_100,
 * graph_1000).  "ours": at setup, N tiny kernels (kernel i stores i + 1 in
 * the buffer's first int) are captured from a stream, the graph is
 * instantiated and uploaded; a run is one clsGraphLaunch and a
 * clsStreamSynchronize.  "plain": a run launches the same N kernels with
 * clsLaunchKernel on a stream of its own and synchronizes it.  Setup runs
 * each side once and checks that the buffer holds N afterwards.
 */
#include "bench_graph.h"
#include "raw.h"

#include <stdarg.h>
#include <stdio.h>

static clsFunction_t g_fill;
static int *g_buf;
static clsStream_t g_s, p_s;
static clsGraph_t g_graph;
static clsGraphExec_t g_exec;
static unsigned g_n, p_n;
static char g_msg[512];

static int gfail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_msg, sizeof g_msg, fmt, ap);
  va_end(ap);
  return -1;
}

#define CKG(call)                                                              \
  do {                                                                         \
    clsError_t ckg_err_ = (call);                                              \
    if (ckg_err_ != clsSuccess)                                                \
      return gfail("%s:%d: %s -> %s", __FILE__, __LINE__, #call,               \
                   clsGetErrorName(ckg_err_));                                 \
  } while (0)

void graph_init(clsFunction_t fill, int *buf) {
  g_fill = fill;
  g_buf = buf;
}

/* fill(buf, i + 1, 1) with one work-item on s. */
static int launch(clsStream_t s, unsigned i) {
  int v = (int)i + 1;
  unsigned one = 1;
  void *args[] = {&g_buf, &v, &one};
  clsDim3 d1 = {1, 1, 1};
  CKG(clsLaunchKernel(g_fill, d1, d1, args, 0, s));
  return 0;
}

/* The buffer's first int must be n after a run on s. */
static int check(clsStream_t s, unsigned n, const char *side) {
  int got = -1;
  CKG(clsMemcpyAsync(&got, g_buf, sizeof got, clsMemcpyDeviceToHost, s));
  CKG(clsStreamSynchronize(s));
  if (got != (int)n)
    return gfail("graph_%u %s: buffer holds %d, expected %u", n, side, got, n);
  return 0;
}

int graph_ours_setup(int sc, unsigned param) {
  clsError_t e;
  (void)param;
  g_n = SC_GRAPH_KERNELS(sc);
  CKG(clsStreamCreateWithFlags(&g_s, clsStreamNonBlocking));
  CKG(clsStreamBeginCapture(g_s, clsStreamCaptureModeGlobal));
  for (unsigned i = 0; i < g_n; ++i)
    if (launch(g_s, i)) {
      clsGraph_t junk = NULL;
      clsStreamEndCapture(g_s, &junk);
      if (junk) clsGraphDestroy(junk);
      return -1;
    }
  e = clsStreamEndCapture(g_s, &g_graph);
  if (e != clsSuccess)
    return gfail("clsStreamEndCapture -> %s", clsGetErrorName(e));
  CKG(clsGraphInstantiate(&g_exec, g_graph, 0));
  CKG(clsGraphUpload(g_exec, g_s));
  if (graph_ours_run(sc, g_n)) return -1;
  return check(g_s, g_n, "ours (graph)");
}

int graph_ours_run(int sc, unsigned inner) {
  (void)sc;
  (void)inner; /* inner is N: one run replays the N kernels once */
  CKG(clsGraphLaunch(g_exec, g_s));
  CKG(clsStreamSynchronize(g_s));
  return 0;
}

int graph_plain_setup(int sc, unsigned param) {
  (void)param;
  p_n = SC_GRAPH_KERNELS(sc);
  CKG(clsStreamCreateWithFlags(&p_s, clsStreamNonBlocking));
  if (graph_plain_run(sc, p_n)) return -1;
  return check(p_s, p_n, "plain");
}

int graph_plain_run(int sc, unsigned inner) {
  (void)sc;
  (void)inner;
  for (unsigned i = 0; i < p_n; ++i)
    if (launch(p_s, i)) return -1;
  CKG(clsStreamSynchronize(p_s));
  return 0;
}

int graph_reset(int sc) {
  (void)sc;
  return 0;
}

void graph_ours_teardown(int sc) {
  (void)sc;
  if (g_s) clsStreamSynchronize(g_s);
  if (g_exec) clsGraphExecDestroy(g_exec);
  if (g_graph) clsGraphDestroy(g_graph);
  if (g_s) clsStreamDestroy(g_s);
  g_exec = NULL;
  g_graph = NULL;
  g_s = NULL;
  clsGetLastError();
}

void graph_plain_teardown(int sc) {
  (void)sc;
  if (p_s) {
    clsStreamSynchronize(p_s);
    clsStreamDestroy(p_s);
  }
  p_s = NULL;
  clsGetLastError();
}

double graph_elapsed_ms(void) { return 0; }
const char *graph_error(void) { return g_msg; }
