/*
 * clstream-fault: fault injection over every OpenCL call of a set of
 * scenarios, through libclsfault.so (tests/fault/clsfault.c, LD_PRELOAD).
 *
 * For each scenario (create/record/wait/sync/host function/copy/launch/
 * destroy, plus library start-up), it first runs the scenario once with
 * CLSFAULT_COUNT to count the OpenCL calls it makes, then, for every N in
 * 1..count and every code (CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY),
 * runs it again in a fresh process with call N failing, and asserts:
 *   - no crash (signal) and no hang (a timeout per run);
 *   - the failure reached the caller: some clstream call returned an
 *     error (a failure the library absorbs without any effect on results
 *     is listed as "absorbed", with the function);
 *   - the library is still usable: the scenario retries each failed step
 *     (out of host memory and out of resources are transient), checks
 *     every buffer, every host function ran once per successful enqueue,
 *     and a fresh stream/kernel/copy round trip works afterwards.
 * Library start-up failures are sticky by design (as cudaErrorInit...):
 * the "init" scenario only asserts no crash and no hang.
 *
 * The runs are independent processes; --jobs of them (default: one per
 * online CPU) run at a time.
 *
 * Usage: clstream-fault [--scenario NAME]... [--timeout SEC] [--jobs N]
 *                       [--verbose]
 *        clstream-fault --run NAME      (one run, under the shim)
 */
#include "clstream.h"
#include "clstream_opencl.h"
#include "clstream_kernels.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef CLSFAULT_SHIM
#error "CLSFAULT_SHIM must name libclsfault.so"
#endif

#define N 256

/* ---- The scenario side (runs under the shim) --------------------------- */

static int g_errors;   /* calls that returned an error */
static int g_unusable; /* a step kept failing */
static char g_detail[512];

static long (*g_arm)(void);
static long (*g_disarm)(void);

static void out(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

/* Runs `call` until it succeeds (three retries): the injected failure is
 * one call, so a retry must succeed if the library recovered. */
#define STEP(call)                                                             \
  do {                                                                         \
    clsError_t r_ = clsSuccess;                                                \
    for (int t_ = 0; t_ < 4; ++t_) {                                           \
      r_ = (call);                                                             \
      if (r_ == clsSuccess) break;                                             \
      g_errors++;                                                              \
      out("E %d %s: %s\n", __LINE__, #call, clsGetErrorName(r_));              \
    }                                                                          \
    if (r_ != clsSuccess) {                                                    \
      if (!g_unusable)                                                         \
        snprintf(g_detail, sizeof g_detail, "line %d: %s kept returning %s",   \
                 __LINE__, #call, clsGetErrorName(r_));                        \
      g_unusable = 1;                                                          \
      return;                                                                  \
    }                                                                          \
  } while (0)

/* A query that may legitimately say NotReady: polled until it is not. */
static clsError_t poll_query(clsError_t (*q)(void *), void *h) {
  clsError_t r;
  for (int i = 0; i < 20000; ++i) {
    r = q(h);
    if (r != clsErrorNotReady) return r;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
  return clsErrorNotReady;
}
static clsError_t q_event(void *e) { return clsEventQuery(e); }
static clsError_t q_stream(void *s) { return clsStreamQuery(s); }

static clsModule_t g_mod;
static clsFunction_t g_fill, g_add;
static unsigned *g_d[3];
static unsigned *g_pinned;
static clsStream_t g_s1, g_s2;

static clsDim3 grid = {N / 64, 1, 1}, block = {64, 1, 1};

static clsError_t fill(clsStream_t s, unsigned *d, unsigned v) {
  unsigned n = N;
  void *args[] = {&d, &v, &n};
  return clsLaunchKernel(g_fill, grid, block, args, 0, s);
}
static clsError_t add(clsStream_t s, unsigned *d, unsigned k, unsigned iters) {
  unsigned n = N, zero = 0;
  void *args[] = {&d, &k, &n, &iters, &zero};
  return clsLaunchKernel(g_add, grid, block, args, 0, s);
}

static clsError_t load_module(void) {
  clsError_t r = clsModuleLoadData(&g_mod, cls_kernel_model, NULL);
  if (r == clsSuccess) r = clsModuleGetFunction(&g_fill, g_mod, "model_fill");
  if (r == clsSuccess) r = clsModuleGetFunction(&g_add, g_mod, "model_add");
  if (r != clsSuccess && g_mod) {
    clsModuleUnload(g_mod);
    g_mod = NULL;
  }
  return r;
}

/* Checks that d[i] == v + i (reads with clsMemcpy). */
static int expect_buf(const unsigned *d, unsigned v, const char *what);

/* Buffer checks are made after the armed part, so that the calls they
 * make are not fault-injected. */
static struct {
  const unsigned *d;
  unsigned v;
  const char *what;
} g_want[8];
static int g_nwant;
static int want(const unsigned *d, unsigned v, const char *what) {
  g_want[g_nwant].d = d;
  g_want[g_nwant].v = v;
  g_want[g_nwant].what = what;
  g_nwant++;
  return 1;
}

static int expect_buf(const unsigned *d, unsigned v, const char *what) {
  unsigned h[N];
  clsError_t r = clsMemcpy(h, d, sizeof h, clsMemcpyDeviceToHost);
  if (r != clsSuccess) {
    snprintf(g_detail, sizeof g_detail, "reading %s: %s", what,
             clsGetErrorName(r));
    return 0;
  }
  for (int i = 0; i < N; ++i)
    if (h[i] != v + (unsigned)i) {
      snprintf(g_detail, sizeof g_detail, "%s[%d] = %u, expected %u", what, i,
               h[i], v + (unsigned)i);
      return 0;
    }
  return 1;
}

static atomic_int g_hf_runs, g_cb_runs, g_cb_bad;
static void hf(void *p) {
  (void)p;
  atomic_fetch_add(&g_hf_runs, 1);
}
static void cb(clsStream_t s, clsError_t st, void *p) {
  (void)s;
  (void)p;
  if (st != clsSuccess) atomic_fetch_add(&g_cb_bad, 1);
  atomic_fetch_add(&g_cb_runs, 1);
}

/* Unarmed set-up shared by most scenarios. */
static int setup(int with_module) {
  if (clsSetDevice(0) != clsSuccess) return 0;
  if (with_module && load_module() != clsSuccess) return 0;
  for (int i = 0; i < 3; ++i)
    if (clsMalloc((void **)&g_d[i], N * sizeof(unsigned))) return 0;
  if (clsMallocHost((void **)&g_pinned, N * sizeof(unsigned))) return 0;
  if (clsStreamCreate(&g_s1) || clsStreamCreateWithFlags(&g_s2, 1)) return 0;
  return clsDeviceSynchronize() == clsSuccess;
}

/* ---- Scenarios (the armed part) ---- */

static void sc_init(void) {
  int n;
  STEP(clsGetDeviceCount(&n));
  STEP(clsSetDevice(0));
  STEP(load_module());
  STEP(clsMalloc((void **)&g_d[0], N * sizeof(unsigned)));
  STEP(clsStreamCreate(&g_s1));
  STEP(fill(g_s1, g_d[0], 5));
  STEP(clsStreamSynchronize(g_s1));
  if (!want(g_d[0], 5, "d0")) g_unusable = 2;
}

static void sc_stream(void) {
  clsStream_t a, b, c;
  STEP(clsStreamCreate(&a));
  STEP(clsStreamCreateWithFlags(&b, clsStreamNonBlocking));
  STEP(clsStreamCreateWithPriority(&c, 0, -1));
  STEP(fill(a, g_d[0], 10));
  STEP(poll_query(q_stream, a));
  STEP(fill(b, g_d[1], 20));
  STEP(clsStreamSynchronize(b));
  STEP(fill(c, g_d[2], 30));
  STEP(clsStreamSynchronize(c));
  STEP(clsStreamDestroy(a));
  STEP(clsStreamDestroy(b));
  STEP(clsStreamDestroy(c));
  if (!want(g_d[0], 10, "d0") || !want(g_d[1], 20, "d1") ||
      !want(g_d[2], 30, "d2"))
    g_unusable = 2;
}

static void sc_event(void) {
  clsEvent_t e0, e1, e2;
  STEP(clsEventCreate(&e0));
  STEP(clsEventCreateWithFlags(&e1, clsEventBlockingSync));
  STEP(clsEventCreateWithFlags(&e2, clsEventDisableTiming));
  STEP(clsEventRecord(e0, g_s1));
  STEP(fill(g_s1, g_d[0], 7));
  STEP(add(g_s1, g_d[0], 1, 1000));
  STEP(clsEventRecord(e1, g_s1));
  STEP(clsEventRecord(e2, g_s1));
  STEP(poll_query(q_event, e2));
  STEP(clsEventSynchronize(e1));
  float ms;
  STEP(clsEventElapsedTime(&ms, e0, e1));
  STEP(clsEventRecord(e0, g_s2)); /* re-record on another stream */
  STEP(clsEventSynchronize(e0));
  STEP(clsEventDestroy(e0));
  STEP(clsEventDestroy(e1));
  STEP(clsEventDestroy(e2));
  if (!want(g_d[0], 8, "d0")) g_unusable = 2;
}

static void sc_wait(void) {
  clsEvent_t e;
  STEP(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  STEP(fill(g_s1, g_d[0], 100));
  STEP(add(g_s1, g_d[0], 1, 20000));
  STEP(clsEventRecord(e, g_s1));
  STEP(clsStreamWaitEvent(g_s2, e, 0));
  STEP(clsMemcpyAsync(g_d[1], g_d[0], N * sizeof(unsigned),
                      clsMemcpyDeviceToDevice, g_s2));
  STEP(clsStreamWaitEvent(NULL, e, 0));
  STEP(clsStreamSynchronize(g_s2));
  STEP(clsStreamSynchronize(NULL));
  STEP(clsEventDestroy(e));
  if (!want(g_d[1], 101, "d1")) g_unusable = 2;
}

static void sc_hostfn(void) {
  int hf_ok = 0, cb_ok = 0;
  for (int i = 0; i < 3; ++i) {
    clsError_t r = clsLaunchHostFunc(g_s1, hf, NULL);
    if (r == clsSuccess)
      hf_ok++;
    else {
      g_errors++;
      out("E %d clsLaunchHostFunc: %s\n", __LINE__, clsGetErrorName(r));
    }
    r = clsStreamAddCallback(i == 1 ? NULL : g_s2, cb, NULL, 0);
    if (r == clsSuccess)
      cb_ok++;
    else {
      g_errors++;
      out("E %d clsStreamAddCallback: %s\n", __LINE__, clsGetErrorName(r));
    }
  }
  STEP(fill(g_s1, g_d[0], 3));
  STEP(clsStreamSynchronize(g_s1));
  STEP(clsStreamSynchronize(g_s2));
  STEP(clsDeviceSynchronize());
  if (atomic_load(&g_hf_runs) != hf_ok || atomic_load(&g_cb_runs) != cb_ok ||
      atomic_load(&g_cb_bad)) {
    snprintf(g_detail, sizeof g_detail,
             "host functions ran %d times for %d successful enqueues, "
             "callbacks %d for %d (%d with an error status)",
             atomic_load(&g_hf_runs), hf_ok, atomic_load(&g_cb_runs), cb_ok,
             atomic_load(&g_cb_bad));
    g_unusable = 2;
    return;
  }
  if (!want(g_d[0], 3, "d0")) g_unusable = 2;
}

static void sc_copy(void) {
  unsigned h[N];
  /* A pinned allocation made and freed under injection. */
  unsigned *pin = NULL;
  STEP(clsMallocHost((void **)&pin, N * sizeof(unsigned)));
  for (int i = 0; i < N; ++i) pin[i] = 40u + (unsigned)i;
  STEP(clsMemcpyAsync(g_pinned, pin, N * sizeof(unsigned), clsMemcpyHostToHost,
                      g_s1));
  STEP(clsStreamSynchronize(g_s1));
  STEP(clsFreeHost(pin));
  STEP(clsMemcpyAsync(g_d[0], g_pinned, N * sizeof(unsigned),
                      clsMemcpyHostToDevice, g_s1));
  STEP(clsMemcpyAsync(g_d[1], g_d[0], N * sizeof(unsigned), clsMemcpyDefault,
                      g_s1));
  for (int i = 0; i < N; ++i) h[i] = 50u + (unsigned)i;
  STEP(clsMemcpyAsync(g_d[2], h, sizeof h, clsMemcpyHostToDevice, g_s2));
  memset(h, 0, sizeof h);
  STEP(clsStreamSynchronize(g_s2));
  STEP(clsMemcpyAsync(h, g_d[1], sizeof h, clsMemcpyDeviceToHost, g_s1));
  for (int i = 0; i < N; ++i)
    if (h[i] != 40u + (unsigned)i) {
      snprintf(g_detail, sizeof g_detail, "pageable D2H: [%d] = %u", i, h[i]);
      g_unusable = 2;
      return;
    }
  STEP(clsMemsetAsync(g_pinned, 0, N * sizeof(unsigned), g_s2));
  STEP(clsMemset(g_d[0], 0, N * sizeof(unsigned)));
  STEP(clsMemcpy(g_d[0], g_d[2], N * sizeof(unsigned), clsMemcpyDefault));
  STEP(clsStreamSynchronize(g_s2));
  if (!want(g_d[0], 50, "d0") || !want(g_d[1], 40, "d1")) g_unusable = 2;
}

static void sc_launch(void) {
  STEP(load_module());
  STEP(fill(g_s1, g_d[0], 60));
  STEP(add(g_s1, g_d[0], 2, 100));
  STEP(fill(NULL, g_d[1], 70));
  STEP(clsStreamSynchronize(g_s1));
  STEP(clsStreamSynchronize(NULL));
  if (!want(g_d[0], 62, "d0") || !want(g_d[1], 70, "d1")) g_unusable = 2;
}

static void sc_destroy(void) {
  clsStream_t s;
  clsEvent_t e;
  unsigned *tmp;
  STEP(clsStreamCreate(&s));
  STEP(clsEventCreate(&e));
  STEP(clsMalloc((void **)&tmp, N * sizeof(unsigned)));
  STEP(fill(s, tmp, 80));
  STEP(add(s, tmp, 1, 20000));
  STEP(clsMemcpyAsync(g_d[0], tmp, N * sizeof(unsigned),
                      clsMemcpyDeviceToDevice, s));
  STEP(clsLaunchHostFunc(s, hf, NULL));
  STEP(clsEventRecord(e, s));
  STEP(clsEventDestroy(e));  /* pending */
  STEP(clsStreamDestroy(s)); /* pending */
  /* clsFree waits for the device, then frees: if the wait fails it returns
   * the error with the memory already freed (as cudaFree may return an
   * earlier asynchronous error), so it is not retried. */
  clsError_t fr = clsFree(tmp);
  if (fr != clsSuccess) {
    g_errors++;
    out("E %d clsFree: %s\n", __LINE__, clsGetErrorName(fr));
  }
  STEP(clsModuleUnload(g_mod));
  g_mod = NULL;
  STEP(clsDeviceSynchronize());
  if (atomic_load(&g_hf_runs) != 1) {
    snprintf(g_detail, sizeof g_detail, "the host function ran %d times",
             atomic_load(&g_hf_runs));
    g_unusable = 2;
    return;
  }
  if (!want(g_d[0], 81, "d0")) g_unusable = 2;
  STEP(load_module()); /* for the health check */
}

static void sc_legacy(void) {
  clsStream_t pt = clsStreamPerThread;
  STEP(fill(g_s1, g_d[0], 90));
  STEP(add(g_s1, g_d[0], 1, 20000));
  STEP(clsMemcpyAsync(g_d[1], g_d[0], N * sizeof(unsigned), clsMemcpyDefault,
                      NULL));  /* waits for s1 */
  STEP(add(pt, g_d[1], 1, 0)); /* waits for the legacy stream */
  STEP(clsStreamSynchronize(pt));
  STEP(clsDeviceSynchronize());
  if (!want(g_d[1], 92, "d1")) g_unusable = 2;
}

/* A captured graph, instantiated (kernel objects made, arguments set) and
 * launched twice on two streams under injection; each launch is whole
 * work that may be repeated. */
static void sc_graph(void) {
  clsGraph_t g = NULL;
  clsGraphExec_t x = NULL;
  STEP(clsStreamBeginCapture(g_s1, clsStreamCaptureModeGlobal));
  STEP(fill(g_s1, g_d[0], 5));
  STEP(add(g_s1, g_d[0], 2, 100));
  STEP(clsMemcpyAsync(g_d[1], g_d[0], N * sizeof(unsigned),
                      clsMemcpyDeviceToDevice, g_s1));
  STEP(clsStreamEndCapture(g_s1, &g));
  STEP(clsGraphInstantiate(&x, g, 0));
  STEP(clsGraphDestroy(g));
  STEP(clsGraphUpload(x, g_s2));
  STEP(clsGraphLaunch(x, g_s1));
  STEP(clsGraphLaunch(x, g_s2));
  STEP(clsStreamSynchronize(g_s2));
  STEP(clsStreamSynchronize(g_s1));
  STEP(clsGraphExecDestroy(x));
  if (!want(g_d[0], 7, "d0") || !want(g_d[1], 7, "d1")) g_unusable = 2;
}

/* Native handles (docs/interop.md): a handed-out queue, a record's
 * cl_event imported back, a stream over the program's queue and a
 * registered buffer.  The program's own OpenCL calls are made disarmed:
 * only clstream's calls are failed. */
static void sc_native(void) {
  cl_command_queue q;
  cl_mem m;
  size_t off;
  cl_event ev = NULL;
  clsEvent_t e, ei;
  clsStream_t s;
  STEP(clsOpenCLGetQueue(g_s1, &q));
  STEP(fill(g_s1, g_d[0], 40));
  STEP(clsOpenCLGetMem(g_d[0], &m, &off));
  STEP(clsEventCreate(&e));
  STEP(clsEventRecord(e, g_s1));
  STEP(clsOpenCLGetEvent(e, &ev));
  STEP(clsOpenCLEventCreateFromEvent(&ei, ev, 0));
  STEP(clsStreamWaitEvent(g_s2, ei, 0));
  STEP(add(g_s2, g_d[0], 1, 10));
  STEP(poll_query(q_stream, g_s2));
  STEP(clsOpenCLStreamCreateFromQueue(&s, q, clsStreamNonBlocking));
  STEP(add(s, g_d[0], 1, 10));
  STEP(clsStreamSynchronize(s));
  STEP(clsStreamDestroy(s));
  STEP(clsEventDestroy(ei));
  STEP(clsEventDestroy(e));
  g_disarm();
  clReleaseEvent(ev);
  cl_context ctx;
  int dev = 0;
  clsGetDevice(&dev);
  clsOpenCLGetDevice(dev, NULL, NULL, &ctx);
  cl_mem b =
      clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(unsigned), NULL, NULL);
  g_arm();
  void *p;
  STEP(clsOpenCLMemRegister(&p, b));
  STEP(clsMemcpy(p, g_d[0], N * sizeof(unsigned), clsMemcpyDeviceToDevice));
  STEP(clsMemcpy(g_d[1], p, N * sizeof(unsigned), clsMemcpyDeviceToDevice));
  STEP(clsOpenCLMemUnregister(p));
  g_disarm();
  clReleaseMemObject(b);
  g_arm();
  if (!want(g_d[0], 42, "d0") || !want(g_d[1], 42, "d1")) g_unusable = 2;
}

/* Issue 26: 2-D and 3-D copies and sets, the pool's attributes and trim,
 * free memory and a peer copy within the device. */
static void sc_mpool(void) {
  enum { W = 24, H = 8 };
  unsigned char h[W * H], back[W * H];
  for (int i = 0; i < W * H; ++i) h[i] = (unsigned char)(i * 3 + 1);
  void *d = NULL;
  size_t pitch = 0;
  STEP(clsMallocPitch(&d, &pitch, W, H));
  STEP(clsMemset2DAsync(d, pitch, 0, W, H, g_s1));
  STEP(clsMemcpy2DAsync(d, pitch, h, W, W, H, clsMemcpyHostToDevice, g_s1));
  /* Device to device between pitches (a rectangle copy on buffers), and
   * back. */
  STEP(clsMemcpy2DAsync(g_d[2], W + 8, d, pitch, W, H, clsMemcpyDefault, g_s1));
  STEP(clsMemcpy2DAsync(d, pitch, g_d[2], W + 8, W, H, clsMemcpyDefault, g_s1));
  clsMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_clsPitchedPtr(d, pitch, W, H);
  p.dstPtr = make_clsPitchedPtr(back, W, W, H);
  p.extent = make_clsExtent(W, H, 1);
  p.kind = clsMemcpyDeviceToHost;
  STEP(clsMemcpy3DAsync(&p, g_s1));
  STEP(clsStreamSynchronize(g_s1));
  if (memcmp(h, back, sizeof h) != 0) {
    snprintf(g_detail, sizeof g_detail, "2-D round trip differs");
    g_unusable = 2;
    return;
  }
  STEP(clsFree(d));
  clsMemPool_t pool;
  unsigned long long v = 0;
  size_t fr, tot;
  STEP(clsDeviceGetDefaultMemPool(&pool, 0));
  STEP(clsMemPoolGetAttribute(pool, clsMemPoolAttrUsedMemCurrent, &v));
  STEP(clsMemPoolSetAttribute(pool, clsMemPoolAttrReleaseThreshold, &v));
  void *a = NULL;
  STEP(clsMallocAsync(&a, 5000, g_s2));
  STEP(clsFreeAsync(a, g_s2));
  STEP(clsStreamSynchronize(g_s2));
  STEP(clsMemPoolTrimTo(pool, 0));
  STEP(clsMemGetInfo(&fr, &tot));
  STEP(clsMemcpyPeerAsync(g_d[1], 0, g_d[0], 0, N * sizeof(unsigned), g_s1));
  STEP(clsMemcpyPeer(g_d[2], 0, g_d[1], 0, N * sizeof(unsigned)));
  STEP(clsStreamSynchronize(g_s1));
}

/* Host memory in kernels (issue 26): pinned, registered and managed
 * memory written by kernels through the host buffers' unmap and map
 * around each launch, a prefetch and advice.  What the host reads makes
 * no OpenCL call. */
static int host_want(const unsigned *h, unsigned v, const char *what) {
  for (int i = 0; i < N; ++i)
    if (h[i] != v + (unsigned)i) {
      snprintf(g_detail, sizeof g_detail, "%s[%d] = %u, expected %u", what, i,
               h[i], v + (unsigned)i);
      return 0;
    }
  return 1;
}

static void sc_hostmem(void) {
  static _Alignas(4096) unsigned reg[N + 1];
  unsigned *pin = NULL, *man = NULL;
  clsMemLocation dev0 = {clsMemLocationTypeDevice, 0};
  STEP(clsMallocHost((void **)&pin, N * sizeof(unsigned)));
  STEP(fill(g_s1, pin, 7));
  STEP(clsHostRegister(reg, sizeof reg, clsHostRegisterDefault));
  STEP(fill(g_s2, reg, 8));
  STEP(clsMallocManaged((void **)&man, N * sizeof(unsigned),
                        clsMemAttachGlobal));
  STEP(
      clsMemAdvise(man, N * sizeof(unsigned), clsMemAdviseSetAccessedBy, dev0));
  STEP(clsMemPrefetchAsync(man, N * sizeof(unsigned), dev0, 0, g_s1));
  STEP(fill(g_s1, man, 9));
  STEP(clsDeviceSynchronize());
  if (!host_want(pin, 7, "pinned") || !host_want(reg, 8, "registered") ||
      !host_want(man, 9, "managed"))
    g_unusable = 2;
  /* An odd offset into host memory (on SVM: the offset variant's build
   * and launch; on buffers: the hidden offset argument). */
  STEP(fill(g_s2, reg + 1, 10));
  STEP(clsDeviceSynchronize());
  if (!g_unusable && !host_want(reg + 1, 10, "registered at +1"))
    g_unusable = 2;
  /* Each frees or unregisters first and may then report a failed wait
   * (as clsFree in sc_destroy): not retried. */
  if (clsHostUnregister(reg) != clsSuccess) g_errors++;
  if (clsFree(man) != clsSuccess) g_errors++;
  if (clsFreeHost(pin) != clsSuccess) g_errors++;
}

/* After the armed part: a fresh round trip must work. */
static int health(void) {
  clsStream_t s;
  if (clsStreamCreate(&s) != clsSuccess) {
    snprintf(g_detail, sizeof g_detail, "health: clsStreamCreate failed");
    return 0;
  }
  clsError_t r = fill(s, g_d[2], 1234);
  if (r == clsSuccess) r = clsStreamSynchronize(s);
  if (r != clsSuccess) {
    snprintf(g_detail, sizeof g_detail, "health: launch/sync: %s",
             clsGetErrorName(r));
    return 0;
  }
  if (!expect_buf(g_d[2], 1234, "health d2")) return 0;
  return clsStreamDestroy(s) == clsSuccess;
}

/* Kernel parameters and module globals (kparams): a module whose build
 * is rewritten (a global, a struct by value, dynamic shared memory; on
 * the buffer path a pointer offset too) and measured on the device. */
static const char kp_src[] =
    "typedef struct kp_arg { unsigned v; char pad; unsigned n; } kp_arg;\n"
    "CLS_CONSTANT(unsigned, kp_base) = 0;\n"
    "CLS_KERNEL void kp_fill(CLS_GLOBAL unsigned *d, kp_arg a) {\n"
    "  CLS_DYNAMIC_SHARED(unsigned, s);\n"
    "  unsigned i = cls_global_id(0), t = cls_local_id(0);\n"
    "  if (a.n == 0) return;\n"
    "  s[t] = a.v + kp_base;\n"
    "  cls_barrier();\n"
    "  if (i < a.n) d[i] = s[t] + i;\n"
    "}\n";

static void sc_kparams(void) {
  clsModule_t m;
  clsFunction_t f;
  void *sym;
  STEP(clsModuleLoadData(&m, kp_src, NULL));
  STEP(clsModuleGetFunction(&f, m, "kp_fill"));
  STEP(clsModuleGetGlobal(&sym, NULL, m, "kp_base"));
  static const unsigned base = 40;
  STEP(clsMemcpyToSymbol(sym, &base, sizeof base, 0, clsMemcpyHostToDevice));
  struct {
    unsigned v;
    char pad;
    unsigned n;
  } a = {50, 0, N};
  unsigned *d = g_d[0];
  void *args[] = {&d, &a};
  STEP(clsLaunchKernel(f, grid, block, args, 64 * sizeof(unsigned), g_s1));
  STEP(clsStreamSynchronize(g_s1));
  STEP(clsModuleUnload(m));
  if (!want(g_d[0], 90, "d0")) g_unusable = 2;
}

typedef struct scenario {
  const char *name;
  void (*body)(void);
  int module; /* set-up loads the module */
  int armed_from_start;
} scenario;

static const scenario scenarios[] = {
    {"init", sc_init, 0, 1},       {"stream", sc_stream, 1, 0},
    {"event", sc_event, 1, 0},     {"wait", sc_wait, 1, 0},
    {"hostfn", sc_hostfn, 1, 0},   {"copy", sc_copy, 1, 0},
    {"launch", sc_launch, 0, 0},   {"destroy", sc_destroy, 1, 0},
    {"legacy", sc_legacy, 1, 0},   {"native", sc_native, 1, 0},
    {"mpool", sc_mpool, 1, 0},     {"hostmem", sc_hostmem, 1, 0},
    {"kparams", sc_kparams, 1, 0}, {"graph", sc_graph, 1, 0},
};
#define NSCEN (sizeof scenarios / sizeof scenarios[0])

static int run_scenario(const scenario *sc) {
  g_arm = (long (*)(void))dlsym(RTLD_DEFAULT, "clsfault_arm");
  g_disarm = (long (*)(void))dlsym(RTLD_DEFAULT, "clsfault_disarm");
  if (!g_arm || !g_disarm) {
    out("R nosim libclsfault.so is not preloaded\n");
    return 1;
  }
  if (!sc->armed_from_start) {
    g_disarm();
    if (!setup(sc->module)) {
      out("R setup failed\n");
      return 1;
    }
    g_arm();
  }
  sc->body();
  g_disarm();
  for (int i = 0; i < g_nwant && !g_unusable; ++i)
    if (!expect_buf(g_want[i].d, g_want[i].v, g_want[i].what)) g_unusable = 2;
  if (!g_unusable && sc->armed_from_start) {
    /* nothing more: start-up was the body */
  } else if (!g_unusable && !health()) {
    g_unusable = 1;
  }
  out("R %s %d %s\n",
      g_unusable == 2 ? "wrong"
      : g_unusable    ? "unusable"
                      : "ok",
      g_errors, g_detail);
  exit(0); /* runs the shim's atexit report */
}

/* ---- The driver side ---------------------------------------------------- */

typedef struct outcome {
  int status; /* wait status */
  int timedout;
  char rline[600];
  char inject[128]; /* function the shim failed */
  long count;
  double ms;
} outcome;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *g_self;

/* One child process: a scenario run once under the shim. */
typedef struct child {
  pid_t pid;
  int fd; /* its stdout */
  double t0;
  long n;
  int code;
  size_t len;
  char buf[4096]; /* the tail of its output */
  char report[64];
} child;

static void child_start(child *ch, int slot, const char *scen, long n,
                        int code) {
  ch->n = n;
  ch->code = code;
  ch->len = 0;
  snprintf(ch->report, sizeof ch->report, "/tmp/clsfault.%d.%d.report",
           (int)getpid(), slot);
  unlink(ch->report);
  int fd[2];
  if (pipe(fd) != 0) abort();
  /* Later children must not inherit this child's pipe. */
  fcntl(fd[0], F_SETFD, FD_CLOEXEC);
  ch->t0 = now_ms();
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) abort();
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 1);
    close(fd[1]);
    int devnull = open("/dev/null", 1);
    if (devnull >= 0 && !getenv("CLSFAULT_VERBOSE")) dup2(devnull, 2);
    char nb[32], cb_[32];
    snprintf(nb, sizeof nb, "%ld", n);
    snprintf(cb_, sizeof cb_, "%d", code);
    const char *pre = getenv("LD_PRELOAD");
    char preload[1024];
    snprintf(preload, sizeof preload, "%s%s%s", CLSFAULT_SHIM,
             pre && *pre ? ":" : "", pre && *pre ? pre : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("CLSFAULT_N", nb, 1);
    setenv("CLSFAULT_CODE", cb_, 1);
    setenv("CLSFAULT_REPORT", ch->report, 1);
    setenv("CK_FORK", "no", 1);
    /* Under CLSTREAM_SANITIZE=address the preloaded shim comes before the
     * ASan runtime in the library list, which ASan refuses by default. */
    const char *ao = getenv("ASAN_OPTIONS");
    char aopt[2048];
    snprintf(aopt, sizeof aopt, "%s%sverify_asan_link_order=0", ao ? ao : "",
             ao && *ao ? ":" : "");
    setenv("ASAN_OPTIONS", aopt, 1);
    execl(g_self, g_self, "--run", scen, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  ch->pid = pid;
  ch->fd = fd[0];
}

/* Reads what the child wrote; returns 1 at the end of its output. */
static int child_read(child *ch) {
  ssize_t k = read(ch->fd, ch->buf + ch->len, sizeof ch->buf - 1 - ch->len);
  if (k <= 0) return 1;
  ch->len += (size_t)k;
  if (ch->len >= sizeof ch->buf - 1) ch->len = 0; /* keep the tail only */
  return 0;
}

/* Reaps the child (killing it first if it hung) and fills o. */
static void child_finish(child *ch, int timedout, outcome *o) {
  memset(o, 0, sizeof *o);
  if (timedout) {
    o->timedout = 1;
    kill(ch->pid, SIGKILL);
  }
  waitpid(ch->pid, &o->status, 0);
  close(ch->fd);
  o->ms = now_ms() - ch->t0;
  ch->buf[ch->len] = 0;
  char *buf = ch->buf;
  char *r = strstr(buf, "R ");
  while (r && r != buf && r[-1] != '\n') r = strstr(r + 1, "R ");
  if (r) {
    char *nl = strchr(r, '\n');
    if (nl) *nl = 0;
    snprintf(o->rline, sizeof o->rline, "%s", r + 2);
  }
  FILE *f = fopen(ch->report, "r");
  if (f) {
    char line[256];
    while (fgets(line, sizeof line, f)) {
      long k;
      char name[100];
      if (sscanf(line, "count %ld", &k) == 1) o->count = k;
      if (sscanf(line, "inject %ld %99s", &k, name) == 2)
        snprintf(o->inject, sizeof o->inject, "%s", name);
    }
    fclose(f);
  }
  unlink(ch->report);
}

/* Runs `jobs` children at a time; for each one that ends (or hangs past
 * timeout_s), calls done(). */
typedef struct pool {
  child *slots;
  int *used;
  int jobs, active;
} pool;

static void pool_wait(pool *p, int timeout_s, const scenario *sc,
                      void (*done)(const scenario *, const child *,
                                   const outcome *, void *),
                      void *arg) {
  struct pollfd pf[64];
  int idx[64], np = 0;
  for (int i = 0; i < p->jobs; ++i)
    if (p->used[i]) {
      pf[np].fd = p->slots[i].fd;
      pf[np].events = POLLIN;
      pf[np].revents = 0;
      idx[np++] = i;
    }
  if (poll(pf, (nfds_t)np, 200) < 0 && errno != EINTR) abort();
  for (int j = 0; j < np; ++j) {
    child *ch = &p->slots[idx[j]];
    int end = (pf[j].revents & (POLLIN | POLLHUP | POLLERR)) && child_read(ch);
    int hung = !end && now_ms() - ch->t0 > timeout_s * 1000.0;
    if (end || hung) {
      outcome o;
      child_finish(ch, hung, &o);
      p->used[idx[j]] = 0;
      p->active--;
      done(sc, ch, &o, arg);
    }
  }
}

static void run_child(const char *scen, int timeout_s, outcome *o) {
  child ch;
  child_start(&ch, 0, scen, 0, 0);
  int end = 0;
  while (!end && now_ms() - ch.t0 <= timeout_s * 1000.0) {
    struct pollfd pf = {ch.fd, POLLIN, 0};
    if (poll(&pf, 1, 200) > 0) end = child_read(&ch);
  }
  child_finish(&ch, !end, o);
}

/* Functions whose failure clstream absorbs by design (the call has no
 * result the caller depends on, or the library falls back), so that no
 * error reaching the caller is fine as long as the results are right. */
static int absorbable(const char *f) {
  static const char *ok[] = {"clFlush", "clGetEventInfo", "clSetEventCallback",
                             "clGetEventProfilingInfo", "clGetDeviceInfo",
                             "clGetPlatformInfo", "clGetKernelArgInfo",
                             "clGetKernelInfo", "clGetKernelWorkGroupInfo",
                             "clGetProgramBuildInfo", "clCreateSubDevices",
                             /* clsFreeHost retries it */
                             "clEnqueueUnmapMemObject",
                             /* retried: a host buffer mapped back after a
                              * launch (src/opencl/hostargs.c) */
                             "clEnqueueMapBuffer",
                             /* retried: a user event left unset would hold
                              * its stream forever */
                             "clSetUserEventStatus",
                             /* a stream's position falls back to a marker */
                             "clEnqueueBarrierWithWaitList", NULL};
  for (int i = 0; ok[i]; ++i)
    if (!strcmp(f, ok[i])) return 1;
  return 0;
}

/* What the runs of one scenario came to. */
typedef struct tally {
  int fail, absorbed, sticky;
  char absorbed_funcs[512];
  int verbose;
} tally;

static void judge(const scenario *sc, const child *ch, const outcome *o,
                  void *arg) {
  tally *t = arg;
  const char *why = NULL;
  char whybuf[800];
  int errs = 0;
  char verdict[16] = "";
  sscanf(o->rline, "%15s %d", verdict, &errs);
  if (o->timedout)
    why = "hang (timeout)";
  else if (WIFSIGNALED(o->status)) {
    snprintf(whybuf, sizeof whybuf, "crash (signal %d) %s", WTERMSIG(o->status),
             o->rline[0] ? "after the result line (at exit)"
                         : "before the result line");
    why = whybuf;
  } else if (!o->rline[0])
    why = "no result line (exit without a report)";
  else if (WEXITSTATUS(o->status) != 0) {
    /* The scenario exits 0 after its result line: anything else is a
     * sanitizer's report at exit (a leak under ASan, a race under TSan). */
    snprintf(whybuf, sizeof whybuf,
             "exit status %d after the result (a sanitizer report; rerun "
             "with CLSFAULT_VERBOSE=1 to see it): %s",
             WEXITSTATUS(o->status), o->rline);
    why = whybuf;
  } else if (!strcmp(verdict, "wrong")) {
    snprintf(whybuf, sizeof whybuf, "wrong result: %s", o->rline);
    why = whybuf;
  } else if (!strcmp(verdict, "unusable")) {
    if (sc->armed_from_start)
      t->sticky++;
    else {
      snprintf(whybuf, sizeof whybuf, "not usable afterwards: %s", o->rline);
      why = whybuf;
    }
  } else if (errs == 0 && o->inject[0]) {
    if (absorbable(o->inject) || sc->armed_from_start) {
      t->absorbed++;
      if (!strstr(t->absorbed_funcs, o->inject) &&
          strlen(t->absorbed_funcs) + strlen(o->inject) + 2 <
              sizeof t->absorbed_funcs) {
        strcat(t->absorbed_funcs, " ");
        strcat(t->absorbed_funcs, o->inject);
      }
    } else {
      why = "the failure never reached the caller";
    }
  }
  if (why) {
    t->fail++;
    printf("FAIL %s: call %ld (%s) -> %d: %s\n", sc->name, ch->n,
           o->inject[0] ? o->inject : "?", ch->code, why);
    printf("     repro:");
    for (char **e = environ; *e; ++e)
      if (!strncmp(*e, "CLSTREAM_", 9)) printf(" %s", *e);
    printf(" CLSFAULT_N=%ld CLSFAULT_CODE=%d LD_PRELOAD=%s %s --run %s\n",
           ch->n, ch->code, CLSFAULT_SHIM, g_self, sc->name);
    /* What the run printed last (its steps' errors), for a failure seen
     * once and not again. */
    const char *tail = ch->buf;
    for (int lines = 0, k = (int)ch->len - 1; k > 0; --k)
      if (ch->buf[k - 1] == '\n' && ++lines == 6) {
        tail = ch->buf + k;
        break;
      }
    if (*tail)
      printf("     its output, last lines:\n%s%s", tail,
             tail[strlen(tail) - 1] == '\n' ? "" : "\n");
  } else if (t->verbose) {
    printf("ok   %s: call %ld (%s) -> %d: %s (%.0f ms)\n", sc->name, ch->n,
           o->inject, ch->code, o->rline, o->ms);
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  g_self = argv[0];
  if (argc == 3 && !strcmp(argv[1], "--run")) {
    for (size_t i = 0; i < NSCEN; ++i)
      if (!strcmp(argv[2], scenarios[i].name))
        return run_scenario(&scenarios[i]);
    fprintf(stderr, "unknown scenario %s\n", argv[2]);
    return 2;
  }
  int timeout_s = 10, verbose = 0;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int jobs = ncpu > 0 ? (int)ncpu : 1;
  const char *only[16];
  int nonly = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--scenario") && i + 1 < argc && nonly < 16)
      only[nonly++] = argv[++i];
    else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
      timeout_s = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
      jobs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--verbose"))
      verbose = 1;
    else {
      fprintf(stderr,
              "usage: %s [--scenario NAME]... [--timeout SEC] "
              "[--jobs N] [--verbose]\n",
              argv[0]);
      return 2;
    }
  }
  if (jobs < 1) jobs = 1;
  if (jobs > 64) jobs = 64;
  static const int codes[] = {-5 /* CL_OUT_OF_RESOURCES */,
                              -6 /* CL_OUT_OF_HOST_MEMORY */};
  const int ncodes = (int)(sizeof codes / sizeof codes[0]);
  pool p = {calloc((size_t)jobs, sizeof(child)),
            calloc((size_t)jobs, sizeof(int)), jobs, 0};
  if (!p.slots || !p.used) abort();
  int failures = 0;
  long total_runs = 0;
  double t_all = now_ms();
  for (size_t si = 0; si < NSCEN; ++si) {
    const scenario *sc = &scenarios[si];
    int take = nonly == 0;
    for (int j = 0; j < nonly; ++j) take |= !strcmp(only[j], sc->name);
    if (!take) continue;
    outcome o;
    run_child(sc->name, timeout_s, &o);
    if (o.timedout || !WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 ||
        strncmp(o.rline, "ok 0", 4)) {
      printf("FAIL %s: the run without a fault did not pass: %s(status "
             "0x%x) %s\n",
             sc->name, o.timedout ? "timeout " : "", (unsigned)o.status,
             o.rline);
      failures++;
      continue;
    }
    long count = o.count;
    tally t;
    memset(&t, 0, sizeof t);
    t.verbose = verbose;
    /* Every (call, code) pair, `jobs` fresh processes at a time. */
    for (long k = 0; k < count * ncodes || p.active;) {
      for (int i = 0; i < jobs && k < count * ncodes; ++i)
        if (!p.used[i]) {
          child_start(&p.slots[i], i, sc->name, k / ncodes + 1,
                      codes[k % ncodes]);
          p.used[i] = 1;
          p.active++;
          k++;
          total_runs++;
        }
      pool_wait(&p, timeout_s, sc, judge, &t);
    }
    printf("%s %s: %ld OpenCL calls x %d codes, %d failure(s), %d absorbed "
           "(%s ), %d sticky\n",
           t.fail ? "FAIL" : "ok  ", sc->name, count, ncodes, t.fail,
           t.absorbed, t.absorbed_funcs, t.sticky);
    fflush(stdout);
    failures += t.fail;
  }
  printf("clstream-fault: %ld fault-injected runs (%d at a time), %d "
         "failure(s), %.0f s\n",
         total_runs, jobs, failures, (now_ms() - t_all) / 1000);
  free(p.slots);
  free(p.used);
  return failures ? 1 : 0;
}
