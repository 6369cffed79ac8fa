/*
 * graph_pipeline: capture one step of a two-stream pipeline into a graph,
 * replay it many times, and time it against the same step issued
 * plainly.
 *
 * One step, on streams A (where the capture begins) and B:
 *   A: copy the input from pinned host memory to the device
 *   A: record `fork`;  B: wait for `fork`           (B joins the capture)
 *   A: x += in                 B: y += in; y += in  (both at once)
 *   B: record `join`;  A: wait for `join`           (B's work joins back)
 *   A: s = x + y, copy s to pinned host memory, then a host function
 *      that checks s: after step k, s[i] = 3 k in[i].
 * Captured, the step becomes a graph whose edges are the events' order;
 * clsGraphLaunch runs it whole, after what A did before.
 */
#include "common.h"

#include <clstream_kernels.h> /* cls_kernel_arith: examples/arith.cl */

#include <string.h>
#include <time.h>

#define N 1024u
#define STEPS 200

/* What the host function sees: the steps so far and the mismatches. */
typedef struct checker {
  const int *out; /* pinned: s after the step */
  const int *in;  /* pinned: the input */
  int step;
  int bad;
} checker;

/* Runs on the host after step k's copy of s: checks s = 3 k in.  A host
 * function must not call clstream; it only reads the pinned memory. */
static void check_step(void *p) {
  checker *c = p;
  c->step++;
  for (unsigned i = 0; i < N; ++i)
    if (c->out[i] != 3 * c->step * c->in[i]) {
      c->bad++;
      return;
    }
}

static clsFunction_t add;
static int *d_in, *d_x, *d_y, *d_s;
static clsStream_t A, B;
static clsEvent_t fork_ev, join_ev;

static void launch_add(int *a, int *b, int *out, clsStream_t s) {
  unsigned n = N;
  void *args[] = {&a, &b, &out, &n};
  CHECK(clsLaunchKernel(add, (clsDim3){N / 256, 1, 1}, (clsDim3){256, 1, 1},
                        args, 0, s));
}

/* Issues one step (plainly, or into the capture when A is capturing). */
static void step(int *h_in, int *h_out, checker *c) {
  CHECK(clsMemcpyAsync(d_in, h_in, N * sizeof(int), clsMemcpyHostToDevice, A));
  CHECK(clsEventRecord(fork_ev, A));
  CHECK(clsStreamWaitEvent(B, fork_ev, 0));
  launch_add(d_x, d_in, d_x, A);
  launch_add(d_y, d_in, d_y, B);
  launch_add(d_y, d_in, d_y, B);
  CHECK(clsEventRecord(join_ev, B));
  CHECK(clsStreamWaitEvent(A, join_ev, 0));
  launch_add(d_x, d_y, d_s, A);
  CHECK(clsMemcpyAsync(h_out, d_s, N * sizeof(int), clsMemcpyDeviceToHost, A));
  CHECK(clsLaunchHostFunc(A, check_step, c));
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Zeroes x and y and the checker. */
static void reset(checker *c) {
  CHECK(clsMemsetAsync(d_x, 0, N * sizeof(int), A));
  CHECK(clsMemsetAsync(d_y, 0, N * sizeof(int), A));
  CHECK(clsStreamSynchronize(A));
  c->step = c->bad = 0;
}

/* After `steps` steps: the host function ran each time and every check
 * passed, and x = k in, y = 2 k in on the device. */
static int verify(const checker *c, const int *h_in, int steps) {
  static int x[N], y[N];
  CHECK(clsMemcpy(x, d_x, sizeof x, clsMemcpyDeviceToHost));
  CHECK(clsMemcpy(y, d_y, sizeof y, clsMemcpyDeviceToHost));
  if (c->step != steps || c->bad) return 0;
  for (unsigned i = 0; i < N; ++i)
    if (x[i] != steps * h_in[i] || y[i] != 2 * steps * h_in[i]) return 0;
  return 1;
}

int main(void) {
  clsModule_t mod;
  clsGraph_t graph;
  clsGraphExec_t exec;
  int *h_in, *h_out;
  size_t nodes = 0;
  checker c;
  double t0, plain_us, graph_us;
  int ok_plain, ok_graph;

  print_device();
  CHECK(clsModuleLoadData(&mod, cls_kernel_arith, NULL));
  CHECK(clsModuleGetFunction(&add, mod, "add"));
  CHECK(clsMallocHost((void **)&h_in, N * sizeof(int)));
  CHECK(clsMallocHost((void **)&h_out, N * sizeof(int)));
  CHECK(clsMalloc((void **)&d_in, N * sizeof(int)));
  CHECK(clsMalloc((void **)&d_x, N * sizeof(int)));
  CHECK(clsMalloc((void **)&d_y, N * sizeof(int)));
  CHECK(clsMalloc((void **)&d_s, N * sizeof(int)));
  CHECK(clsStreamCreateWithFlags(&A, clsStreamNonBlocking));
  CHECK(clsStreamCreateWithFlags(&B, clsStreamNonBlocking));
  CHECK(clsEventCreateWithFlags(&fork_ev, clsEventDisableTiming));
  CHECK(clsEventCreateWithFlags(&join_ev, clsEventDisableTiming));
  for (unsigned i = 0; i < N; ++i) h_in[i] = (int)(i % 97);
  c.in = h_in;
  c.out = h_out;

  /* Capture the step once: nothing runs, A and B record into the graph. */
  CHECK(clsStreamBeginCapture(A, clsStreamCaptureModeGlobal));
  step(h_in, h_out, &c);
  CHECK(clsStreamEndCapture(A, &graph));
  CHECK(clsGraphGetNodes(graph, NULL, &nodes));
  CHECK(clsGraphInstantiate(&exec, graph, 0));
  CHECK(clsGraphUpload(exec, A));
  printf("captured step: %zu nodes\n", nodes);

  /* Warm both ways up (first launches compile and allocate), then time
   * STEPS steps each way from the same starting state. */
  reset(&c);
  step(h_in, h_out, &c);
  CHECK(clsGraphLaunch(exec, A));
  CHECK(clsStreamSynchronize(A));

  reset(&c);
  t0 = now_us();
  for (int k = 0; k < STEPS; ++k) CHECK(clsGraphLaunch(exec, A));
  CHECK(clsStreamSynchronize(A));
  graph_us = (now_us() - t0) / STEPS;
  ok_graph = verify(&c, h_in, STEPS);
  printf("graph: %d steps %s\n", STEPS, ok_graph ? "ok" : "WRONG");

  reset(&c);
  t0 = now_us();
  for (int k = 0; k < STEPS; ++k) step(h_in, h_out, &c);
  CHECK(clsStreamSynchronize(A));
  plain_us = (now_us() - t0) / STEPS;
  ok_plain = verify(&c, h_in, STEPS);
  printf("plain: %d steps %s\n", STEPS, ok_plain ? "ok" : "WRONG");
  printf("per step: plain %.1f us, graph %.1f us (graph/plain %.2f)\n",
         plain_us, graph_us, graph_us / plain_us);

  CHECK(clsGraphExecDestroy(exec));
  CHECK(clsGraphDestroy(graph));
  CHECK(clsEventDestroy(fork_ev));
  CHECK(clsEventDestroy(join_ev));
  CHECK(clsStreamDestroy(A));
  CHECK(clsStreamDestroy(B));
  CHECK(clsFree(d_in));
  CHECK(clsFree(d_x));
  CHECK(clsFree(d_y));
  CHECK(clsFree(d_s));
  CHECK(clsFreeHost(h_in));
  CHECK(clsFreeHost(h_out));
  CHECK(clsModuleUnload(mod));
  return ok_graph && ok_plain ? 0 : 1;
}
