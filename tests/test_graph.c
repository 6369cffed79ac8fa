/* Graphs and executable graphs: the rows of docs/semantics.md, "Stream
 * capture and graphs", about hand-built graphs, launches and execs, and
 * the safety rules (what a live exec needs of streams, events and
 * modules). */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#define N 256

static const clsDim3 grid4 = {N / 64, 1, 1}, block64 = {64, 1, 1};

static clsKernelNodeParams kparams(clsFunction_t f, void **args) {
  clsKernelNodeParams p;
  memset(&p, 0, sizeof p);
  p.func = f;
  p.gridDim = grid4;
  p.blockDim = block64;
  p.kernelParams = args;
  return p;
}

/* Host node: checks that the device buffer (copied to pinned h) holds the
 * value the kernel before it wrote, counting runs. */
typedef struct order_probe {
  int *h;
  int want;
  atomic_int runs, good;
} order_probe;
static void hf_order(void *p) {
  order_probe *o = p;
  atomic_fetch_add(&o->runs, 1);
  if (o->h[0] == o->want && o->h[N - 1] == o->want)
    atomic_fetch_add(&o->good, 1);
}

/* Row: a hand-built memset -> kernel -> copy -> host graph runs in that
 * order, and the exec outlives its graph. */
START_TEST(graph_hand_built_order) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N), *h;
  dev_set(d, 9, N);
  CK_OK(clsMallocHost((void **)&h, N * sizeof(int)));
  clsGraph_t g;
  CK_OK(clsGraphCreate(&g, 0));
  clsGraphNode_t set, k, cp, host;
  clsMemsetParams mp = {d, 0, 0x01, 4, N, 1}; /* 0x01010101 each */
  mp.value = 0x01010101u;
  CK_OK(clsGraphAddMemsetNode(&set, g, NULL, 0, &mp));
  int three = 3;
  unsigned n = N;
  void *args[] = {&d, &three, &n};
  clsKernelNodeParams kp = kparams(a.scale, args);
  CK_OK(clsGraphAddKernelNode(&k, g, &set, 1, &kp));
  CK_OK(clsGraphAddMemcpyNode1D(&cp, g, &k, 1, h, d, N * sizeof(int),
                                clsMemcpyDeviceToHost));
  order_probe o = {h, 0x01010101 * 3, 0, 0};
  clsHostNodeParams hp = {hf_order, &o};
  CK_OK(clsGraphAddHostNode(&host, g, &cp, 1, &hp));
  size_t cnt = 0;
  CK_OK(clsGraphGetNodes(g, NULL, &cnt));
  ck_assert_uint_eq(cnt, 4);
  clsGraphNode_t got[8];
  cnt = 2;
  CK_OK(clsGraphGetNodes(g, got, &cnt));
  ck_assert_uint_eq(cnt, 2);
  ck_assert_ptr_eq(got[0], set);
  ck_assert_ptr_eq(got[1], k);
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphDestroy(g)); /* the exec lives on */
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsGraphUpload(x, s));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  CK_ATOMIC_EQ(o.runs, 2);
  CK_ATOMIC_EQ(o.good, 2);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(h));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: dependencies added afterwards order nodes added in any order. */
START_TEST(graph_add_dependencies) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  clsGraph_t g;
  CK_OK(clsGraphCreate(&g, 0));
  int two = 2, five = 5;
  unsigned n = N;
  void *scale_args[] = {&d, &two, &n};
  void *fill_args[] = {&d, &five, &n};
  clsKernelNodeParams ps = kparams(a.scale, scale_args);
  clsKernelNodeParams pf = kparams(a.fill, fill_args);
  clsGraphNode_t sc, fi, e;
  CK_OK(clsGraphAddKernelNode(&sc, g, NULL, 0, &ps)); /* added first */
  CK_OK(clsGraphAddKernelNode(&fi, g, NULL, 0, &pf));
  CK_OK(clsGraphAddEmptyNode(&e, g, &fi, 1));
  CK_OK(clsGraphAddDependencies(g, &e, &sc, 1)); /* fill -> empty -> scale */
  CK_CLS(clsGraphAddDependencies(g, &sc, &fi, 1), clsErrorInvalidValue);
  CK_CLS(clsGraphAddDependencies(g, &e, &sc, 1), clsErrorInvalidValue);
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphLaunch(x, NULL));
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d, 10, N, "fill then scale");
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: ExecKernelNodeSetParams: the next launch uses the new values; the
 * node must be of the graph the exec was made from, which must exist. */
START_TEST(graph_exec_kernel_set_params) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  clsStream_t s =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeGlobal);
  CK_OK(launch_fill(&a, s, d, 1, N));
  clsGraph_t g;
  CK_OK(clsStreamEndCapture(s, &g));
  clsGraphNode_t node;
  size_t one = 1;
  CK_OK(clsGraphGetNodes(g, &node, &one));
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 1, N, "first");
  int v = 42;
  unsigned n = N;
  void *args[] = {&d, &v, &n};
  clsKernelNodeParams p = kparams(a.fill, args);
  CK_OK(clsGraphExecKernelNodeSetParams(x, node, &p));
  v = 43; /* read at the call */
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 42, N, "after set params");
  p.func = a.scale;
  CK_CLS(clsGraphExecKernelNodeSetParams(x, node, &p), clsErrorInvalidValue);
  clsGraph_t other;
  clsGraphNode_t foreign;
  CK_OK(clsGraphCreate(&other, 0));
  CK_OK(clsGraphAddEmptyNode(&foreign, other, NULL, 0));
  p.func = a.fill;
  CK_CLS(clsGraphExecKernelNodeSetParams(x, foreign, &p), clsErrorInvalidValue);
  CK_CLS(clsGraphExecKernelNodeSetParams(x, node, NULL), clsErrorInvalidValue);
  CK_OK(clsGraphDestroy(g));
  CK_CLS(clsGraphExecKernelNodeSetParams(x, node, &p), clsErrorInvalidValue);
  CK_OK(clsGraphDestroy(other));
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: an event recorded after GraphLaunch completes after the whole
 * graph; another stream waiting on it sees the graph's writes. */
START_TEST(graph_event_after_launch) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N), *out = dev_ints(N);
  dev_set(d, 1, N);
  clsStream_t s1, s2;
  CK_OK(clsStreamCreateWithFlags(&s1, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  CK_OK(clsStreamBeginCapture(s1, clsStreamCaptureModeGlobal));
  for (int i = 0; i < 8; ++i) CK_OK(launch_scale(&a, s1, d, 2, N));
  clsGraphExec_t x = end_and_instantiate(s1);
  gate *gt = gate_new();
  gate_hold(gt, s1);
  CK_OK(clsGraphLaunch(x, s1));
  clsEvent_t ev;
  CK_OK(clsEventCreate(&ev));
  CK_OK(clsEventRecord(ev, s1));
  CK_OK(clsStreamWaitEvent(s2, ev, 0));
  CK_OK(clsMemcpyAsync(out, d, N * sizeof(int), clsMemcpyDeviceToDevice, s2));
  sleep_ms(SETTLE_MS);
  CK_CLS(clsEventQuery(ev), clsErrorNotReady);
  gate_release(gt);
  CK_OK(clsStreamSynchronize(s2));
  CK_OK(clsEventQuery(ev));
  dev_expect(out, 256, N, "seen by the waiting stream");
  CK_OK(clsEventDestroy(ev));
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFree(d));
  CK_OK(clsFree(out));
  arith_unload(&a);
}
END_TEST

/* A host node that notes how many runs of the graph are inside it at once:
 * the graph is host(enter) -> kernels -> host(leave). */
typedef struct overlap {
  atomic_int inside, max, runs;
} overlap;
static void hf_enter(void *p) {
  overlap *o = p;
  int now = atomic_fetch_add(&o->inside, 1) + 1;
  int m = atomic_load(&o->max);
  while (now > m && !atomic_compare_exchange_weak(&o->max, &m, now)) {
  }
  sleep_ms(5);
}
static void hf_leave(void *p) {
  overlap *o = p;
  atomic_fetch_sub(&o->inside, 1);
  atomic_fetch_add(&o->runs, 1);
}

/* Row: one exec launched on two streams at once: the runs never
 * interleave. */
START_TEST(graph_exec_two_streams_serial) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  overlap o = {0, 0, 0};
  clsStream_t s1, s2;
  CK_OK(clsStreamCreateWithFlags(&s1, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  clsStream_t cap =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeGlobal);
  CK_OK(clsLaunchHostFunc(cap, hf_enter, &o));
  CK_OK(launch_fill(&a, cap, d, 3, N));
  CK_OK(clsLaunchHostFunc(cap, hf_leave, &o));
  clsGraphExec_t x = end_and_instantiate(cap);
  for (int i = 0; i < 6; ++i) CK_OK(clsGraphLaunch(x, i % 2 ? s2 : s1));
  CK_OK(clsStreamSynchronize(s1));
  CK_OK(clsStreamSynchronize(s2));
  CK_ATOMIC_EQ(o.runs, 6);
  CK_ATOMIC_EQ(o.max, 1);
  dev_expect(d, 3, N, "fill");
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsStreamDestroy(cap));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Safety: the streams and events a graph was captured from may be
 * destroyed while the exec lives; a module unloaded under a live exec makes
 * its launches fail cleanly (InvalidResourceHandle), nothing issued. */
START_TEST(graph_exec_safety) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 1, N);
  clsStream_t s1, s2, run;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreate(&s2));
  CK_OK(clsStreamCreate(&run));
  clsEvent_t e1, e2;
  CK_OK(clsEventCreate(&e1));
  CK_OK(clsEventCreate(&e2));
  CK_OK(clsStreamBeginCapture(s1, clsStreamCaptureModeGlobal));
  CK_OK(clsEventRecord(e1, s1));
  CK_OK(clsStreamWaitEvent(s2, e1, 0));
  CK_OK(launch_scale(&a, s2, d, 3, N));
  CK_OK(clsEventRecord(e2, s2));
  CK_OK(clsStreamWaitEvent(s1, e2, 0));
  CK_OK(launch_scale(&a, s1, d, 2, N));
  clsGraphExec_t x = end_and_instantiate(s1);
  CK_OK(clsEventDestroy(e1));
  CK_OK(clsEventDestroy(e2));
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsGraphLaunch(x, run));
  CK_OK(clsStreamSynchronize(run));
  dev_expect(d, 6, N, "after the capture's streams and events are gone");
  arith_unload(&a);
  CK_CLS(clsGraphLaunch(x, run), clsErrorInvalidResourceHandle);
  CK_CLS(clsGraphUpload(x, run), clsErrorInvalidResourceHandle);
  CK_OK(clsStreamSynchronize(run));
  dev_expect(d, 6, N, "nothing ran after the unload");
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(run));
  CK_OK(clsFree(d));
}
END_TEST

/* A free between two launches (on the buffer path it may release the
 * sub-buffers the prepared kernels hold) does not disturb the replay. */
START_TEST(graph_replay_after_free) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 1, N);
  clsStream_t s =
      capturing_stream(clsStreamDefault, clsStreamCaptureModeRelaxed);
  /* An interior pointer, 512 bytes in (the largest buffer alignment seen,
   * rusticl's). */
  CK_OK(launch_scale(&a, s, d + 128, 2, 64));
  CK_OK(launch_scale(&a, s, d, 3, N));
  clsGraphExec_t x = end_and_instantiate(s);
  CK_OK(clsGraphLaunch(x, s));
  int *other = dev_ints(N);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsFree(other));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  int h[N];
  dev_get(h, d, N);
  for (int i = 0; i < N; ++i)
    ck_assert_int_eq(h[i], i >= 128 && i < 192 ? 36 : 9);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* A captured launch with dynamic shared memory (tests/kernels/kparams.cl,
 * block_sum) keeps its sharedMem at replay. */
START_TEST(graph_dynamic_shared_memory) {
  clsModule_t m;
  clsFunction_t f;
  CK_OK(clsModuleLoadData(&m, cls_kernel_kparams, NULL));
  CK_OK(clsModuleGetFunction(&f, m, "block_sum"));
  float *in, *out, h[N], sums[N / 64];
  CK_OK(clsMalloc((void **)&in, N * sizeof(float)));
  CK_OK(clsMalloc((void **)&out, (N / 64) * sizeof(float)));
  for (int i = 0; i < N; ++i) h[i] = 1.0f;
  CK_OK(clsMemcpy(in, h, sizeof h, clsMemcpyHostToDevice));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  unsigned n = N;
  void *args[] = {&in, &out, &n};
  CK_OK(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal));
  CK_OK(clsLaunchKernel(f, grid4, block64, args, 64 * sizeof(float), s));
  clsGraph_t g;
  CK_OK(clsStreamEndCapture(s, &g));
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsMemcpy(sums, out, sizeof sums, clsMemcpyDeviceToHost));
  for (int i = 0; i < N / 64; ++i)
    ck_assert_msg(sums[i] == 64.0f, "%f", sums[i]);
  /* The same node built by hand. */
  clsGraphNode_t node;
  clsKernelNodeParams p = kparams(f, args);
  p.sharedMemBytes = 64 * sizeof(float);
  CK_OK(clsGraphAddKernelNode(&node, g, NULL, 0, &p));
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsMemset(out, 0, (N / 64) * sizeof(float)));
  CK_OK(clsGraphLaunch(x, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsMemcpy(sums, out, sizeof sums, clsMemcpyDeviceToHost));
  for (int i = 0; i < N / 64; ++i)
    ck_assert_msg(sums[i] == 64.0f, "%f", sums[i]);
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(in));
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* Row (bad input): NULL graph to instantiate, NULL exec to launch, and the
 * rest of the graph calls' arguments. */
START_TEST(graph_bad_input) {
  arith a;
  arith_load(&a);
  clsGraphExec_t x;
  CK_CLS(clsGraphInstantiate(&x, NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsGraphLaunch(NULL, NULL), clsErrorInvalidValue);
  CK_CLS(clsGraphUpload(NULL, NULL), clsErrorInvalidValue);
  clsGraph_t g;
  CK_CLS(clsGraphCreate(NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsGraphCreate(&g, 1), clsErrorInvalidValue);
  CK_OK(clsGraphCreate(&g, 0));
  CK_CLS(clsGraphInstantiate(NULL, g, 0), clsErrorInvalidValue);
  CK_CLS(clsGraphInstantiate(&x, g, 4), clsErrorInvalidValue);
  CK_CLS(clsGraphGetNodes(g, NULL, NULL), clsErrorInvalidValue);
  clsGraphNode_t n, bogus = (clsGraphNode_t)0x5555;
  CK_CLS(clsGraphAddEmptyNode(NULL, g, NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsGraphAddEmptyNode(&n, g, NULL, 1), clsErrorInvalidValue);
  CK_CLS(clsGraphAddEmptyNode(&n, g, &bogus, 1), clsErrorInvalidValue);
  CK_CLS(clsGraphAddKernelNode(&n, g, NULL, 0, NULL), clsErrorInvalidValue);
  clsKernelNodeParams kp = kparams(a.fill, NULL);
  CK_CLS(clsGraphAddKernelNode(&n, g, NULL, 0, &kp), clsErrorInvalidValue);
  kp.func = (clsFunction_t)0x999;
  CK_CLS(clsGraphAddKernelNode(&n, g, NULL, 0, &kp),
         clsErrorInvalidResourceHandle);
  int *d = dev_ints(4);
  CK_CLS(clsGraphAddMemcpyNode1D(&n, g, NULL, 0, d, d, 16, (clsMemcpyKind)9),
         clsErrorInvalidMemcpyDirection);
  CK_CLS(clsGraphAddMemcpyNode1D(&n, g, NULL, 0, d, d, 64,
                                 clsMemcpyDeviceToDevice),
         clsErrorInvalidValue);
  clsMemsetParams mp = {d, 0, 0, 3, 4, 1};
  CK_CLS(clsGraphAddMemsetNode(&n, g, NULL, 0, &mp), clsErrorInvalidValue);
  mp.elementSize = 4;
  mp.width = 5;
  CK_CLS(clsGraphAddMemsetNode(&n, g, NULL, 0, &mp), clsErrorInvalidValue);
  CK_CLS(clsGraphAddMemsetNode(&n, g, NULL, 0, NULL), clsErrorInvalidValue);
  clsHostNodeParams hp = {NULL, NULL};
  CK_CLS(clsGraphAddHostNode(&n, g, NULL, 0, &hp), clsErrorInvalidValue);
  CK_CLS(clsGraphAddDependencies(g, NULL, NULL, 1), clsErrorInvalidValue);
  CK_CLS(clsGraphAddDependencies(g, &bogus, &bogus, 1), clsErrorInvalidValue);
  size_t cnt;
  CK_OK(clsGraphGetNodes(g, NULL, &cnt));
  ck_assert_uint_eq(cnt, 0); /* no failed call left a node */
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphDestroy(g));
  CK_CLS(clsGraphDestroy(g), clsErrorInvalidResourceHandle);
  CK_CLS(clsGraphGetNodes(g, NULL, &cnt), clsErrorInvalidResourceHandle);
  CK_CLS(clsGraphInstantiate(&x, g, 0), clsErrorInvalidResourceHandle);
  CK_CLS(clsGraphLaunch(x, (clsStream_t)0x4444), clsErrorInvalidResourceHandle);
  CK_OK(clsGraphExecDestroy(x));
  CK_CLS(clsGraphExecDestroy(x), clsErrorInvalidResourceHandle);
  CK_CLS(clsGraphLaunch(x, NULL), clsErrorInvalidResourceHandle);
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* ---- Copy nodes over pageable memory (CUDA 13, measured on the H100) --- */

enum { PG_N = 3 };

static void ints_expect(const int *got, const int *want, const char *what) {
  for (int i = 0; i < PG_N; ++i)
    ck_assert_msg(got[i] == want[i], "%s: [%d] is %d, not %d", what, i, got[i],
                  want[i]);
}

/* Two copy nodes, src (pageable) -> d -> out (pageable): hand-built (the
 * first as HostToDevice, the second as Default) or captured from
 * clsMemcpyAsync on a non-blocking stream. */
static clsGraphExec_t pageable_graph(int captured, int *d, const int *src,
                                     int *out) {
  const size_t bytes = PG_N * sizeof(int);
  if (captured) {
    clsStream_t cap =
        capturing_stream(clsStreamNonBlocking, clsStreamCaptureModeGlobal);
    CK_OK(clsMemcpyAsync(d, src, bytes, clsMemcpyHostToDevice, cap));
    CK_OK(clsMemcpyAsync(out, d, bytes, clsMemcpyDeviceToHost, cap));
    clsGraphExec_t x = end_and_instantiate(cap);
    CK_OK(clsStreamDestroy(cap));
    return x;
  }
  clsGraph_t g;
  CK_OK(clsGraphCreate(&g, 0));
  clsGraphNode_t in, back;
  CK_OK(clsGraphAddMemcpyNode1D(&in, g, NULL, 0, d, src, bytes,
                                clsMemcpyHostToDevice));
  CK_OK(clsGraphAddMemcpyNode1D(&back, g, &in, 1, out, d, bytes,
                                clsMemcpyDefault));
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphDestroy(g));
  return x;
}

/* Row: clsGraphAddMemcpyNode1D from or to pageable memory (the stack,
 * malloc) is accepted, and each launch copies the source as it is then;
 * a side the kind names as device memory must still be device memory. */
START_TEST(graph_copy_pageable_accepted) {
  int in[PG_N] = {1, 2, 3};
  int *out = malloc(sizeof in), *d = dev_ints(PG_N);
  ck_assert_ptr_nonnull(out);
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  for (int captured = 0; captured < 2; ++captured) {
    memset(out, 0, sizeof in);
    clsGraphExec_t x = pageable_graph(captured, d, in, out);
    CK_OK(clsGraphLaunch(x, s));
    CK_OK(clsStreamSynchronize(s));
    ints_expect(out, in, "first launch");
    in[1] = 20 + captured;
    CK_OK(clsGraphLaunch(x, s));
    CK_OK(clsStreamSynchronize(s));
    ints_expect(out, in, "second launch");
    CK_OK(clsGraphExecDestroy(x));
  }
  clsGraph_t g;
  clsGraphNode_t n;
  CK_OK(clsGraphCreate(&g, 0));
  CK_CLS(clsGraphAddMemcpyNode1D(&n, g, NULL, 0, out, in, sizeof in,
                                 clsMemcpyHostToDevice),
         clsErrorInvalidValue); /* dst is no device memory */
  CK_CLS(clsGraphAddMemcpyNode1D(&n, g, NULL, 0, in, out, sizeof in,
                                 clsMemcpyDeviceToHost),
         clsErrorInvalidValue); /* src is no device memory */
  size_t cnt;
  CK_OK(clsGraphGetNodes(g, NULL, &cnt));
  ck_assert_uint_eq(cnt, 0);
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  free(out);
}
END_TEST

/* Row: the source is read when clsGraphLaunch is called (a write to it
 * after the launch returned, the stream still held, is not seen), the
 * copy into pageable memory lands when its node runs (not while the
 * stream is held), and a launch on a non-blocking stream returns at once
 * (were it to wait, the gate would give up and gate_release fail). */
START_TEST(graph_copy_pageable_staged_at_launch) {
  int *d = dev_ints(PG_N), *out = malloc(PG_N * sizeof(int));
  ck_assert_ptr_nonnull(out);
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  for (int captured = 0; captured < 2; ++captured) {
    int in[PG_N] = {10, 20, 30};
    const int first[PG_N] = {10, 20, 30}, later[PG_N] = {7, 8, 9};
    const int untouched[PG_N] = {-1, -1, -1};
    for (int i = 0; i < PG_N; ++i) out[i] = -1;
    clsGraphExec_t x = pageable_graph(captured, d, in, out);
    gate *g = gate_new();
    gate_hold(g, s);
    CK_OK(clsGraphLaunch(x, s));
    memcpy(in, later, sizeof in); /* after the launch returned */
    ints_expect(out, untouched, "while held");
    CK_CLS(clsStreamQuery(s), clsErrorNotReady);
    gate_release(g);
    CK_OK(clsStreamSynchronize(s));
    ints_expect(out, first, "the source as at the launch");
    CK_OK(clsGraphLaunch(x, s));
    CK_OK(clsStreamSynchronize(s));
    ints_expect(out, later, "the next launch");
    CK_OK(clsGraphExecDestroy(x));
  }
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  free(out);
}
END_TEST

typedef struct launch_job {
  clsGraphExec_t x;
  clsStream_t s;
} launch_job;

static clsError_t bg_graph_launch(void *p) {
  launch_job *j = p;
  return clsGraphLaunch(j->x, j->s);
}

/* Row: a launch on the legacy stream of a graph with a copy over pageable
 * memory returns only once the graph is done, behind the legacy stream's
 * earlier work (a gate holds it); a graph whose copies touch no pageable
 * memory returns at once there. */
START_TEST(graph_copy_pageable_legacy_sync) {
  int in[PG_N] = {4, 5, 6};
  int *d = dev_ints(PG_N), *out = malloc(sizeof in), *pin;
  ck_assert_ptr_nonnull(out);
  CK_OK(clsMallocHost((void **)&pin, sizeof in));
  for (int captured = 0; captured < 2; ++captured) {
    memset(out, 0, sizeof in);
    in[0] = 40 + captured;
    launch_job j = {pageable_graph(captured, d, in, out), NULL};
    gate *g = gate_new();
    gate_hold(g, NULL);
    ck_assert(gate_wait_entered(g, 5000));
    bg_call bg;
    CK_OK(expect_blocked_until_release(&bg, bg_graph_launch, &j, g, 200,
                                       "graph launch on the legacy stream"));
    ints_expect(out, in, "on return");
    CK_OK(clsStreamQuery(NULL));
    CK_OK(clsGraphExecDestroy(j.x));
  }
  /* Pinned memory: the legacy stream's launch returns while held. */
  memcpy(pin, in, sizeof in);
  clsGraph_t gr;
  clsGraphNode_t n;
  CK_OK(clsGraphCreate(&gr, 0));
  CK_OK(clsGraphAddMemcpyNode1D(&n, gr, NULL, 0, d, pin, sizeof in,
                                clsMemcpyHostToDevice));
  clsGraphExec_t x;
  CK_OK(clsGraphInstantiate(&x, gr, 0));
  CK_OK(clsGraphDestroy(gr));
  gate *g = gate_new();
  gate_hold(g, NULL);
  CK_OK(clsGraphLaunch(x, NULL));
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(NULL));
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFree(d));
  free(out);
}
END_TEST

int main(void) {
  Suite *s = suite_create("graph");
  TCase *tc = tcase_timed("graph", 60);
  TCase *tc_gate = tcase_tagged(s, "graph_gate", 60, "gate");
  tcase_add_test(tc_gate, graph_hand_built_order);
  tcase_add_test(tc, graph_add_dependencies);
  tcase_add_test(tc, graph_exec_kernel_set_params);
  tcase_add_test(tc_gate, graph_event_after_launch);
  tcase_add_test(tc_gate, graph_exec_two_streams_serial);
  tcase_add_test(tc, graph_exec_safety);
  tcase_add_test(tc, graph_replay_after_free);
  tcase_add_test(tc, graph_dynamic_shared_memory);
  tcase_add_test(tc, graph_bad_input);
  tcase_add_test(tc, graph_copy_pageable_accepted);
  tcase_add_test(tc_gate, graph_copy_pageable_staged_at_launch);
  tcase_add_test(tc_gate, graph_copy_pageable_legacy_sync);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
