/* Bad input: every public function called with each bad argument that
 * applies to it, checked against the CUDA runtime's code (issue 3, point 2).
 *
 * The matrix is table-driven.  Each row names the call, the code CUDA
 * returns and where that expectation comes from:
 *   docs/semantics.md <section>  a row of that section of the project's
 *                           behaviour table (measured on an H200 or
 *                           read from CUDA's manual);
 *   CUDA manual <function>  the CUDA runtime (or driver) API reference;
 *   CUDA guide              the CUDA C++ Programming Guide, "Multi-Device
 *                           System: Stream and Event Behavior";
 *   issue 3                 the handle contract: destroyed, never-created
 *                           and wrong-kind handles -> InvalidResourceHandle,
 *                           never dereferenced;
 *   [to confirm on GPU]     my best reading of the manual, not yet run on
 *                           CUDA.
 * Rows are of two shapes: FIXED rows (one call each) and cross products of
 * "a function that takes a stream (event, module, function)" with "a bad
 * stream (event, module, function) value".
 *
 * Each case is one iteration of a Check loop test, so in the default
 * (forked) mode every case runs in a fresh process with fresh objects; a
 * crash or hang fails that case only, and a failure message names the case,
 * its call, the codes and the source.  After a failing call the thread's
 * last error must hold the same code (docs/semantics.md, Errors).
 *
 * CLSTREAM_BADINPUT_LIST=1 lists the cases; CLSTREAM_BADINPUT_CASE=text
 * runs only those whose name contains the text.
 *
 * Use-after-destroy runs under ASan too (CLSTREAM_SANITIZE): a destroyed
 * handle's object is freed, so touching it would be reported. */
#include "support.h"
#include "unmapped.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Shorthands for the table ------------------------------------------ */

#define OK clsSuccess
#define IV clsErrorInvalidValue
#define IRH clsErrorInvalidResourceHandle
#define IDEV clsErrorInvalidDevice
#define IDIR clsErrorInvalidMemcpyDirection
#define NOMEM clsErrorMemoryAllocation
#define NOTPERM clsErrorNotPermitted
#define NOTREADY clsErrorNotReady
#define SYMNF clsErrorSymbolNotFound
/* Returned by a case's call that cannot be built on this device (after
 * printing why): the case is skipped, as a NEED_TWO case is with one
 * device.  No clstream call returns it. */
#define SKIPPED ((clsError_t)-1)

#define S_EV "docs/semantics.md Events"
#define S_ST "docs/semantics.md Streams"
#define S_MEM "docs/semantics.md Memory and launches"
#define S_ERR "docs/semantics.md Errors"
#define GUIDE "CUDA guide, Multi-Device System"
#define TC " [to confirm on GPU]"
/* Module globals (kparams): CUDA's cudaErrorInvalidSymbol for an address
 * that is no symbol; the symbol calls' other checks are in test_symbol. */
#define ISYM clsErrorInvalidSymbol
#define S_SYM "CUDA manual cudaMemcpyToSymbol, cuModuleGetGlobal" TC
static size_t kp_size;

/* What a case needs from the fixture. */
enum {
  NEED_MOD = 1u,  /* examples/arith.cl loaded: m, f, m_dead, f_dead */
  NEED_TWO = 2u,  /* a second device: s_b, e_b, d_b */
  IN_HOSTFN = 4u, /* the call is made from a host function on x->s */
  NO_FX = 8u      /* no device objects at all */
};

#define DEV_BYTES 64
#define DEV2_BYTES 128

typedef struct fx {
  int ndev, dev_a, dev_b;
  clsDeviceProp prop;
  clsStream_t s, s2, s_dead, s_b;
  clsEvent_t e, e_rec, e_nt, e_dead, e_spare, e_b;
  arith ar;
  clsModule_t m, m_dead;
  clsFunction_t f, f_dead;
  void *d, *d2, *d_dead, *h, *d_b, *heap;
  unsigned char host[256];
  /* Launch arguments of fill(t, v, n): n = 0, so no launch writes. */
  int *karg_t;
  int karg_v;
  unsigned karg_n;
  void *args[3];
  /* Out slots for calls that are expected to fail. */
  clsStream_t out_s;
  clsEvent_t out_e;
  clsModule_t out_m;
  clsFunction_t out_f;
  void *out_p;
  float ms;
  int i1, i2;
  unsigned u;
} fx;

static atomic_int hf_runs;
static void hf_nop(void *p) {
  (void)p;
  atomic_fetch_add(&hf_runs, 1);
}
static void cb_nop(clsStream_t s, clsError_t st, void *p) {
  (void)s;
  (void)st;
  (void)p;
  atomic_fetch_add(&hf_runs, 1);
}

static clsDim3 d3(unsigned a, unsigned b, unsigned c) {
  clsDim3 d = {a, b, c};
  return d;
}

/* Handles that were never created.  Their values are arbitrary to the
 * caller; a few are chosen to look plausible to a (generation, slot,
 * kind) table: the right kind bits, or a slot that exists but is free. */
#define GARBAGE ((uintptr_t)0xdeadbeef0u)
#define GARBAGE_KIND(k) (GARBAGE | (uintptr_t)(k))
#define FREE_SLOT(k) (((uintptr_t)1 << 32) | ((uintptr_t)4000 << 4) | (k))
#define STALE(h) ((uintptr_t)(h) + ((uintptr_t)1 << 32))
#define ALL_ONES (~(uintptr_t)0)

/* ---- Native handles (issue 27; docs/interop.md) ------------------------
 * The calls of clstream_opencl.h and clstream_cuda_interop.h, declared
 * here with the native types' struct tags so that this file needs neither
 * CL/cl.h nor cuda_runtime.h.  Each exists in both builds; the other API's
 * calls return clsErrorNotSupported (CLS_TEST_CUDA: the CUDA build).  The
 * cases that need raw OpenCL objects (an out-of-order queue, another
 * context's queue, event and buffer) are in tests/native/test_native.c. */
typedef struct _cl_command_queue *nat_queue;
typedef struct _cl_event *nat_clevent;
typedef struct _cl_mem *nat_mem;
typedef struct _cl_platform_id *nat_platform;
typedef struct _cl_device_id *nat_device;
typedef struct _cl_context *nat_context;
typedef struct CUstream_st *nat_custream;
typedef struct CUevent_st *nat_cuevent;
clsError_t clsOpenCLGetDevice(int, nat_platform *, nat_device *, nat_context *);
clsError_t clsOpenCLGetQueue(clsStream_t, nat_queue *);
clsError_t clsOpenCLGetEvent(clsEvent_t, nat_clevent *);
clsError_t clsOpenCLGetMem(const void *, nat_mem *, size_t *);
clsError_t clsOpenCLStreamCreateFromQueue(clsStream_t *, nat_queue, unsigned);
clsError_t clsOpenCLEventCreateFromEvent(clsEvent_t *, nat_clevent, unsigned);
clsError_t clsOpenCLMemRegister(void **, nat_mem);
clsError_t clsOpenCLMemUnregister(void *);
clsError_t clsCUDAGetStream(clsStream_t, nat_custream *);
clsError_t clsCUDAGetEvent(clsEvent_t, nat_cuevent *);
clsError_t clsCUDAStreamCreateFromStream(clsStream_t *, nat_custream, unsigned);
clsError_t clsCUDAEventCreateFromEvent(clsEvent_t *, nat_cuevent, unsigned);
#if defined(CLS_TEST_CUDA)
#define NAT_OCL(code) clsErrorNotSupported
#define NAT_CUDA(code) code
#else
#define NAT_OCL(code) code
#define NAT_CUDA(code) clsErrorNotSupported
#endif
#define S_NAT "docs/interop.md"

static clsError_t native_get_mem(fx *x, const void *p) {
  nat_mem m;
  size_t off;
  (void)x;
  return clsOpenCLGetMem(p, &m, &off);
}

/* The build's own native stream call: both check the stream first. */
static clsError_t native_stream_of(clsStream_t s) {
#if defined(CLS_TEST_CUDA)
  nat_custream c;
  return clsCUDAGetStream(s, &c);
#else
  nat_queue q;
  return clsOpenCLGetQueue(s, &q);
#endif
}

static clsError_t native_event_of(clsEvent_t e) {
#if defined(CLS_TEST_CUDA)
  nat_cuevent c;
  return clsCUDAGetEvent(e, &c);
#else
  nat_clevent c; /* only dead events come here: nothing to release */
  return clsOpenCLGetEvent(e, &c);
#endif
}

/* ---- Helpers used by the rows ------------------------------------------ */

static int *dev_int(void *p, size_t byte_off) {
  return (int *)((unsigned char *)p + byte_off);
}

static clsError_t str_unrecognized(const char *s) {
  return strcmp(s, "unrecognized error code") == 0 ? clsSuccess
                                                   : clsErrorUnknown;
}

/* Creation calls that must fail; whatever they create by mistake is
 * destroyed again so that the process stays clean. */
static clsError_t stream_flags(fx *x, unsigned flags) {
  x->out_s = NULL;
  clsError_t r = clsStreamCreateWithFlags(&x->out_s, flags);
  if (r == clsSuccess) clsStreamDestroy(x->out_s);
  return r;
}

/* Creates with an out-of-range priority: must succeed with the priority
 * clamped into the device's range (docs/semantics.md Streams). */
static clsError_t stream_prio(fx *x, unsigned flags, int prio) {
  (void)x;
  clsStream_t s = NULL;
  clsError_t r = clsStreamCreateWithPriority(&s, flags, prio);
  if (r != clsSuccess) return r;
  int least = 0, greatest = 0, got = 12345;
  unsigned f = 99;
  CK_OK(clsDeviceGetStreamPriorityRange(&least, &greatest));
  CK_OK(clsStreamGetPriority(s, &got));
  CK_OK(clsStreamGetFlags(s, &f));
  int want = prio > least ? least : prio < greatest ? greatest : prio;
  CK_OK(clsStreamDestroy(s));
  if (got != want || f != flags) {
    printf("stream_prio(%u, %d): priority %d (want %d), flags %u\n", flags,
           prio, got, want, f);
    return clsErrorUnknown;
  }
  return clsSuccess;
}

static clsError_t event_flags(fx *x, unsigned flags) {
  x->out_e = NULL;
  clsError_t r = clsEventCreateWithFlags(&x->out_e, flags);
  if (r == clsSuccess) clsEventDestroy(x->out_e);
  return r;
}

static clsError_t elapsed_same(fx *x) {
  x->ms = -1.0f;
  clsError_t r = clsEventElapsedTime(&x->ms, x->e_rec, x->e_rec);
  if (r == clsSuccess && x->ms != 0.0f) {
    printf("elapsed (e, e) = %g, want 0\n", (double)x->ms);
    return clsErrorUnknown;
  }
  return r;
}

/* Elapsed time to an event whose work is held back: NotReady.  Where host
 * functions run inline (hostFuncsInline: Oclgrind) no gate can hold the
 * work while this thread goes on, and the case is skipped. */
static clsError_t elapsed_pending(fx *x) {
  int dev = -1;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  if (p.hostFuncsInline) {
    printf("elapsed_pending: host functions run inline here: no gate\n");
    return SKIPPED;
  }
  gate *g = gate_new();
  gate_hold(g, x->s2);
  clsEvent_t late;
  CK_OK(clsEventCreate(&late));
  CK_OK(clsEventRecord(late, x->s2));
  clsError_t r = clsEventElapsedTime(&x->ms, x->e_rec, late);
  gate_release(g);
  CK_OK(clsStreamSynchronize(x->s2));
  CK_OK(clsEventDestroy(late));
  return r;
}

static clsError_t malloc_size(fx *x, size_t n) {
  x->out_p = NULL;
  clsError_t r = clsMalloc(&x->out_p, n);
  if (r == clsSuccess && x->out_p) clsFree(x->out_p);
  return r;
}

static clsError_t malloc_host_size(fx *x, size_t n) {
  x->out_p = NULL;
  clsError_t r = clsMallocHost(&x->out_p, n);
  if (r == clsSuccess && x->out_p) clsFreeHost(x->out_p);
  return r;
}

static clsError_t free_host_twice(fx *x) {
  (void)x;
  void *p = NULL;
  CK_OK(clsMallocHost(&p, 32));
  CK_OK(clsFreeHost(p));
  return clsFreeHost(p);
}

/* memset's value is converted to unsigned char: 0x1ff sets 0xff. */
static clsError_t memset_wide_value(fx *x) {
  clsError_t r = clsMemset(x->d, 0x1ff, DEV_BYTES);
  if (r != clsSuccess) return r;
  unsigned char b[DEV_BYTES];
  CK_OK(clsMemcpy(b, x->d, DEV_BYTES, clsMemcpyDeviceToHost));
  for (int i = 0; i < DEV_BYTES; i++)
    if (b[i] != 0xff) {
      printf("memset 0x1ff: byte %d = 0x%x\n", i, b[i]);
      return clsErrorUnknown;
    }
  return r;
}

/* Loads with the given out pointer (NULL for the bad case); a module loaded
 * by mistake is unloaded again. */
static clsError_t module_load(fx *x, clsModule_t *out, const char *src) {
  (void)x;
  clsError_t r = clsModuleLoadData(out, src, NULL);
  if (r == clsSuccess && out) clsModuleUnload(*out);
  return r;
}

static clsError_t get_function(fx *x, clsFunction_t *out, clsModule_t m,
                               const char *name) {
  (void)x;
  return clsModuleGetFunction(out, m, name);
}

static clsError_t launch(fx *x, clsDim3 g, clsDim3 b, void **args, size_t shmem,
                         clsStream_t s) {
  return clsLaunchKernel(x->f, g, b, args, shmem, s);
}
static clsError_t launch_cfg(fx *x, clsDim3 g, clsDim3 b) {
  return launch(x, g, b, x->args, 0, x->s);
}
static clsError_t launch_arg_null(fx *x, int i) {
  void *a[3] = {x->args[0], x->args[1], x->args[2]};
  a[i] = NULL;
  return launch(x, d3(1, 1, 1), d3(1, 1, 1), a, 0, x->s);
}
/* A block within every per-dimension limit whose product exceeds
 * maxThreadsPerBlock. */
static clsError_t launch_block_product(fx *x) {
  const clsDeviceProp *p = &x->prop;
  unsigned bx = (unsigned)p->maxThreadsDim[0];
  if (bx > (unsigned)p->maxThreadsPerBlock)
    bx = (unsigned)p->maxThreadsPerBlock;
  unsigned by = 2;
  while ((unsigned long long)bx * by <= (unsigned)p->maxThreadsPerBlock)
    by *= 2;
  if (by > (unsigned)p->maxThreadsDim[1]) {
    printf("launch_block_product: no block within maxThreadsDim (%d, %d) "
           "exceeds maxThreadsPerBlock (%d)\n",
           p->maxThreadsDim[0], p->maxThreadsDim[1], p->maxThreadsPerBlock);
    return SKIPPED;
  }
  return launch_cfg(x, d3(1, 1, 1), d3(bx, by, 1));
}

/* Frees the other device's allocation while the first device is current. */
static clsError_t free_other_device(fx *x) {
  clsError_t r = clsFree(x->d_b);
  if (r == clsSuccess) x->d_b = NULL;
  return r;
}

static clsError_t destroy_s2(fx *x) {
  clsError_t r = clsStreamDestroy(x->s2);
  if (r == clsSuccess) x->s2 = NULL;
  return r;
}
static clsError_t destroy_e_spare(fx *x) {
  clsError_t r = clsEventDestroy(x->e_spare);
  if (r == clsSuccess) x->e_spare = NULL;
  return r;
}
static clsError_t free_d2(fx *x) {
  clsError_t r = clsFree(x->d2);
  if (r == clsSuccess) x->d2 = NULL;
  return r;
}
static clsError_t free_h(fx *x) {
  clsError_t r = clsFreeHost(x->h);
  if (r == clsSuccess) x->h = NULL;
  return r;
}
static clsError_t unload_m(fx *x) {
  clsError_t r = clsModuleUnload(x->m);
  if (r == clsSuccess) x->m = x->ar.mod = NULL;
  return r;
}

/* ---- Helpers for issue 13's calls -------------------------------------- */

#define HAR clsErrorHostMemoryAlreadyRegistered
#define HNR clsErrorHostMemoryNotRegistered

static clsError_t host_alloc_flags(fx *x, size_t n, unsigned flags) {
  x->out_p = NULL;
  clsError_t r = clsHostAlloc(&x->out_p, n, flags);
  if (r == clsSuccess && x->out_p) clsFreeHost(x->out_p);
  if (r == clsSuccess && n == 0 && x->out_p) return clsErrorUnknown;
  return r;
}

static clsError_t managed_flags(fx *x, size_t n, unsigned flags) {
  x->out_p = NULL;
  clsError_t r = clsMallocManaged(&x->out_p, n, flags);
  if (r == clsSuccess && x->out_p) clsFree(x->out_p);
  return r;
}

/* Registers ordinary memory with bad flags; unregisters what succeeds. */
static clsError_t register_flags(fx *x, unsigned flags) {
  clsError_t r = clsHostRegister(x->host, sizeof x->host, flags);
  if (r == clsSuccess) clsHostUnregister(x->host);
  return r;
}

static clsError_t register_twice(fx *x) {
  CK_OK(clsHostRegister(x->host, sizeof x->host, 0));
  clsError_t r = clsHostRegister(x->host + 16, 16, 0);
  CK_OK(clsHostUnregister(x->host));
  return r;
}

static clsError_t unregister_twice(fx *x) {
  CK_OK(clsHostRegister(x->host, sizeof x->host, 0));
  CK_OK(clsHostUnregister(x->host));
  return clsHostUnregister(x->host);
}

static clsError_t unregister_interior(fx *x) {
  CK_OK(clsHostRegister(x->host, sizeof x->host, 0));
  clsError_t r = clsHostUnregister(x->host + 8);
  CK_OK(clsHostUnregister(x->host));
  return r;
}

static clsError_t malloc_async_size(fx *x, size_t n) {
  x->out_p = (void *)&x->u; /* must become NULL for 0 bytes */
  clsError_t r = clsMallocAsync(&x->out_p, n, x->s);
  if (r == clsSuccess && n == 0 && x->out_p != NULL) return clsErrorUnknown;
  if (r == clsSuccess && x->out_p) CK_OK(clsFreeAsync(x->out_p, x->s));
  return r;
}

static clsError_t free_async_twice(fx *x) {
  void *p = NULL;
  CK_OK(clsMallocAsync(&p, 64, x->s));
  CK_OK(clsFreeAsync(p, x->s));
  return clsFreeAsync(p, x->s);
}

static clsError_t func_attrs(clsFunction_t f) {
  clsFuncAttributes a;
  return clsFuncGetAttributes(&a, f);
}

static clsError_t free_async_interior(fx *x) {
  void *p = NULL;
  CK_OK(clsMallocAsync(&p, 64, x->s));
  clsError_t r = clsFreeAsync((char *)p + 8, x->s);
  CK_OK(clsFreeAsync(p, x->s));
  return r;
}

/* ---- Helpers for the capture and graph rows ---------------------------- */

#define S_CAP "docs/semantics.md Stream capture and graphs"
#define UNSUP clsErrorStreamCaptureUnsupported
#define ILLEGAL clsErrorIllegalState

/* Runs call `what` on a fresh empty graph, which it then destroys. */
static clsError_t on_graph(fx *x, int what) {
  clsGraph_t g;
  CK_OK(clsGraphCreate(&g, 0));
  clsGraphNode_t n, bogus = (clsGraphNode_t)GARBAGE_KIND(7);
  clsMemsetParams mp = {x->d, 0, 0, 3, 4, 1};
  clsHostNodeParams hp = {NULL, NULL};
  clsKernelNodeParams kp;
  memset(&kp, 0, sizeof kp);
  kp.func = (clsFunction_t)GARBAGE_KIND(4);
  kp.gridDim = kp.blockDim = d3(1, 1, 1);
  size_t cnt;
  clsError_t r = SKIPPED;
  switch (what) {
  case 0:
    r = clsGraphGetNodes(g, NULL, NULL);
    break;
  case 1:
    r = clsGraphAddEmptyNode(NULL, g, NULL, 0);
    break;
  case 2:
    r = clsGraphAddEmptyNode(&n, g, &bogus, 1);
    break;
  case 3:
    r = clsGraphAddKernelNode(&n, g, NULL, 0, NULL);
    break;
  case 4:
    r = clsGraphAddKernelNode(&n, g, NULL, 0, &kp);
    break;
  case 5:
    r = clsGraphAddMemcpyNode1D(&n, g, NULL, 0, x->d, x->d, 16,
                                (clsMemcpyKind)7);
    break;
  case 6:
    r = clsGraphAddMemcpyNode1D(&n, g, NULL, 0, x->d, x->host, 16,
                                clsMemcpyHostToDevice);
    break;
  case 7:
    r = clsGraphAddMemsetNode(&n, g, NULL, 0, &mp);
    break;
  case 8:
    r = clsGraphAddHostNode(&n, g, NULL, 0, &hp);
    break;
  case 9:
    r = clsGraphAddDependencies(g, &bogus, &bogus, 1);
    break;
  case 10:
    r = clsGraphAddDependencies(g, NULL, NULL, 1);
    break;
  case 11:
    r = clsGraphInstantiate(NULL, g, 0);
    break;
  case 12: {
    clsGraphExec_t e;
    r = clsGraphInstantiate(&e, g, 1);
    break;
  }
  case 13: {
    clsGraph_t dead;
    CK_OK(clsGraphCreate(&dead, 0));
    CK_OK(clsGraphDestroy(dead));
    r = clsGraphGetNodes(dead, NULL, &cnt);
    break;
  }
  }
  CK_OK(clsGraphDestroy(g));
  return r;
}

/* Runs a call on a fresh exec of an empty graph, destroyed after. */
static clsError_t on_exec(fx *x, int what) {
  clsGraph_t g;
  clsGraphExec_t e;
  CK_OK(clsGraphCreate(&g, 0));
  CK_OK(clsGraphInstantiate(&e, g, 0));
  clsGraphNode_t n;
  CK_OK(clsGraphAddEmptyNode(&n, g, NULL, 0));
  clsKernelNodeParams kp;
  memset(&kp, 0, sizeof kp);
  clsError_t r = SKIPPED;
  switch (what) {
  case 0:
    r = clsGraphExecKernelNodeSetParams(e, n, &kp);
    break;
  case 1:
    r = clsGraphExecKernelNodeSetParams(e, (clsGraphNode_t)GARBAGE, &kp);
    break;
  case 2:
    r = clsGraphExecKernelNodeSetParams((clsGraphExec_t)GARBAGE_KIND(6), n,
                                        &kp);
    break;
  case 3:
    r = clsGraphLaunch(e, x->s_dead);
    break;
  case 4:
    r = clsGraphUpload(e, (clsStream_t)GARBAGE);
    break;
  }
  CK_OK(clsGraphExecDestroy(e));
  CK_OK(clsGraphDestroy(g));
  return r;
}

/* A capture begun and ended by the call, on x->s. */
static clsError_t capture_twice(fx *x) {
  CK_OK(clsStreamBeginCapture(x->s, clsStreamCaptureModeGlobal));
  clsError_t r = clsStreamBeginCapture(x->s, clsStreamCaptureModeGlobal);
  clsGraph_t g;
  CK_OK(clsStreamEndCapture(x->s, &g));
  CK_OK(clsGraphDestroy(g));
  return r;
}

static clsError_t exchange(int mode) {
  clsStreamCaptureMode m = (clsStreamCaptureMode)mode;
  return clsThreadExchangeStreamCaptureMode(&m);
}

/* Issue 26 (pools, peers, pitched memory): helpers of its rows. */
static size_t g_size_out; /* a size_t out slot */
static clsError_t pool_get(fx *x, int attr, void *value) {
  clsMemPool_t p;
  CK_OK(clsDeviceGetDefaultMemPool(&p, x->dev_a));
  return clsMemPoolGetAttribute(p, (clsMemPoolAttr)attr, value);
}
static clsError_t pool_set(fx *x, int attr, unsigned long long v) {
  clsMemPool_t p;
  CK_OK(clsDeviceGetDefaultMemPool(&p, x->dev_a));
  return clsMemPoolSetAttribute(p, (clsMemPoolAttr)attr, &v);
}
static clsError_t memcpy3d_with_array(fx *x) {
  clsMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcArray = x->host;
  p.srcPtr = make_clsPitchedPtr(x->host, 16, 16, 1);
  p.dstPtr = make_clsPitchedPtr(x->d, 16, 16, 1);
  p.extent = make_clsExtent(16, 1, 1);
  p.kind = clsMemcpyHostToDevice;
  return clsMemcpy3D(&p);
}

/* ---- Helpers for issue 26's host and managed memory calls ------------- */

/* Registers a range that is not all mapped: about 21 GB from a 4-byte
 * malloc (InvalidValue on CUDA); unmapped.h says what under ASan. */
static clsError_t register_past_end(fx *x) {
  (void)x;
  size_t n;
  void *undo;
  void *p = cls_test_unmapped_range(&n, &undo);
  if (!p) return clsErrorMemoryAllocation;
  clsError_t r = clsHostRegister(p, n, 0);
  if (r == clsSuccess) clsHostUnregister(p);
  cls_test_unmapped_free(undo);
  return r;
}

static clsMemLocation loc_of(clsMemLocationType type, int id) {
  clsMemLocation l = {type, id};
  return l;
}

static clsMemLocation loc_dev(void) {
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  return loc_of(clsMemLocationTypeDevice, dev);
}

/* What each managed-memory call below does with 64 bytes of managed
 * memory `m` (freed afterwards). */
enum {
  MC_ADVISE,          /* advice `a` at location `l` on [m, +n) */
  MC_PREFETCH,        /* prefetch to `l` with flags `a` on [m, +n) */
  MC_RANGE_ATTR,      /* attribute `a` into `size` bytes on [m, +n) */
  MC_RANGE_ATTR_NULL, /* the same with data NULL */
};
static clsError_t managed_call(fx *x, int call, int a, clsMemLocation l,
                               size_t n, size_t size) {
  void *m = NULL;
  CK_OK(clsMallocManaged(&m, 64, clsMemAttachGlobal));
  int data[4];
  clsError_t r;
  switch (call) {
  case MC_ADVISE:
    r = clsMemAdvise(m, n, (clsMemoryAdvise)a, l);
    break;
  case MC_PREFETCH:
    r = clsMemPrefetchAsync(m, n, l, (unsigned)a, x->s);
    break;
  case MC_RANGE_ATTR:
    r = clsMemRangeGetAttribute(data, size, (clsMemRangeAttribute)a, m, n);
    break;
  default:
    r = clsMemRangeGetAttribute(NULL, size, (clsMemRangeAttribute)a, m, n);
    break;
  }
  CK_OK(clsFree(m));
  return r;
}

static clsError_t su_prefetch(fx *x, clsStream_t s) {
  (void)x;
  void *m = NULL;
  CK_OK(clsMallocManaged(&m, 64, clsMemAttachGlobal));
  clsError_t r = clsMemPrefetchAsync(m, 64, loc_dev(), 0, s);
  CK_OK(clsFree(m));
  return r;
}

/* ---- FIXED rows: X(id, needs, expected, source, call) ------------------- */

#define FIXED_ROWS(X)                                                          \
  /* Errors */                                                                 \
  X(err_name_neg, NO_FX, OK, S_ERR " (unknown code)",                          \
    str_unrecognized(clsGetErrorName((clsError_t)-1)))                         \
  X(err_name_12345, NO_FX, OK, S_ERR " (unknown code)",                        \
    str_unrecognized(clsGetErrorName((clsError_t)12345)))                      \
  X(err_name_601, NO_FX, OK, S_ERR " (unknown code)",                          \
    str_unrecognized(clsGetErrorName((clsError_t)601)))                        \
  X(err_name_intmax, NO_FX, OK, S_ERR " (unknown code)",                       \
    str_unrecognized(clsGetErrorName((clsError_t)INT_MAX)))                    \
  X(err_string_neg, NO_FX, OK, S_ERR " (unknown code)",                        \
    str_unrecognized(clsGetErrorString((clsError_t)-1)))                       \
  X(err_string_12345, NO_FX, OK, S_ERR " (unknown code)",                      \
    str_unrecognized(clsGetErrorString((clsError_t)12345)))                    \
  X(err_string_2, NO_FX, OK, S_ERR " (unknown code)",                          \
    str_unrecognized(clsGetErrorString((clsError_t)1000)))                     \
  /* Devices */                                                                \
  X(device_count_null, 0, IV, "CUDA manual cudaGetDeviceCount" TC,             \
    clsGetDeviceCount(NULL))                                                   \
  X(set_device_neg, 0, IDEV, "CUDA manual cudaSetDevice", clsSetDevice(-1))    \
  X(set_device_count, 0, IDEV, "CUDA manual cudaSetDevice",                    \
    clsSetDevice(x->ndev))                                                     \
  X(set_device_intmax, 0, IDEV, "CUDA manual cudaSetDevice",                   \
    clsSetDevice(INT_MAX))                                                     \
  X(set_device_intmin, 0, IDEV, "CUDA manual cudaSetDevice",                   \
    clsSetDevice(INT_MIN))                                                     \
  X(get_device_null, 0, IV, "CUDA manual cudaGetDevice" TC,                    \
    clsGetDevice(NULL))                                                        \
  X(props_null, 0, IV, "CUDA manual cudaGetDeviceProperties" TC,               \
    clsGetDeviceProperties(NULL, 0))                                           \
  X(props_neg, 0, IDEV, "CUDA manual cudaGetDeviceProperties",                 \
    clsGetDeviceProperties(&x->prop, -1))                                      \
  X(props_count, 0, IDEV, "CUDA manual cudaGetDeviceProperties",               \
    clsGetDeviceProperties(&x->prop, x->ndev))                                 \
  X(props_intmin, 0, IDEV, "CUDA manual cudaGetDeviceProperties",              \
    clsGetDeviceProperties(&x->prop, INT_MIN))                                 \
  X(prio_range_both_null, 0, OK,                                               \
    "CUDA manual cuCtxGetStreamPriorityRange (NULL: value not wanted)" TC,     \
    clsDeviceGetStreamPriorityRange(NULL, NULL))                               \
  X(prio_range_least_null, 0, OK,                                              \
    "CUDA manual cuCtxGetStreamPriorityRange (NULL: value not wanted)" TC,     \
    clsDeviceGetStreamPriorityRange(NULL, &x->i2))                             \
  X(prio_range_greatest_null, 0, OK,                                           \
    "CUDA manual cuCtxGetStreamPriorityRange (NULL: value not wanted)" TC,     \
    clsDeviceGetStreamPriorityRange(&x->i1, NULL))                             \
  /* Streams */                                                                \
  X(stream_create_null, 0, IV, S_ST " (NULL out pointer)",                     \
    clsStreamCreate(NULL))                                                     \
  X(stream_flags_null, 0, IV, S_ST " (NULL out pointer)",                      \
    clsStreamCreateWithFlags(NULL, clsStreamDefault))                          \
  X(stream_flags_null_nb, 0, IV, S_ST " (NULL out pointer)",                   \
    clsStreamCreateWithFlags(NULL, clsStreamNonBlocking))                      \
  X(stream_flags_0x2, 0, IV, S_ST " (unknown flag bit)", stream_flags(x, 0x2)) \
  X(stream_flags_0x10, 0, IV, S_ST " (unknown flag bit)",                      \
    stream_flags(x, 0x10))                                                     \
  X(stream_flags_0x11, 0, IV, S_ST " (unknown flag bit)",                      \
    stream_flags(x, 0x11))                                                     \
  X(stream_flags_high, 0, IV, S_ST " (unknown flag bit)",                      \
    stream_flags(x, 0x80000000u))                                              \
  X(stream_flags_all, 0, IV, S_ST " (unknown flag bit)", stream_flags(x, ~0u)) \
  X(stream_prio_null, 0, IV, S_ST " (NULL out pointer)",                       \
    clsStreamCreateWithPriority(NULL, 0, 0))                                   \
  X(stream_prio_bad_flags, 0, IV, S_ST " (unknown flag bit)",                  \
    clsStreamCreateWithPriority(&x->out_s, 0x10, 0))                           \
  X(stream_prio_intmin, 0, OK, S_ST " (priority outside the range: clamped)",  \
    stream_prio(x, 0, INT_MIN))                                                \
  X(stream_prio_intmax, 0, OK, S_ST " (priority outside the range: clamped)",  \
    stream_prio(x, 0, INT_MAX))                                                \
  X(stream_prio_m100_nb, 0, OK, S_ST " (priority outside the range: clamped)", \
    stream_prio(x, clsStreamNonBlocking, -100))                                \
  X(stream_destroy_null, 0, IRH, S_ST " (destroy the default stream)",         \
    clsStreamDestroy(NULL))                                                    \
  X(stream_destroy_legacy, 0, IRH,                                             \
    S_ST " (destroy the default stream; cudaStreamLegacy)" TC,                 \
    clsStreamDestroy(clsStreamLegacy))                                         \
  X(stream_destroy_per_thread, 0, IRH,                                         \
    S_ST " (destroy the default stream; cudaStreamPerThread)" TC,              \
    clsStreamDestroy(clsStreamPerThread))                                      \
  X(stream_get_flags_null, 0, IV, "CUDA manual cudaStreamGetFlags" TC,         \
    clsStreamGetFlags(x->s, NULL))                                             \
  X(stream_get_flags_legacy_null, 0, IV, "CUDA manual cudaStreamGetFlags" TC,  \
    clsStreamGetFlags(NULL, NULL))                                             \
  X(stream_get_priority_null, 0, IV, "CUDA manual cudaStreamGetPriority" TC,   \
    clsStreamGetPriority(x->s, NULL))                                          \
  X(stream_get_priority_pt_null, 0, IV,                                        \
    "CUDA manual cudaStreamGetPriority" TC,                                    \
    clsStreamGetPriority(clsStreamPerThread, NULL))                            \
  X(wait_event_flags_2, 0, IV, S_ST " (StreamWaitEvent flags other than 0)",   \
    clsStreamWaitEvent(x->s, x->e_rec, 2))                                     \
  X(wait_event_flags_5, 0, IV, S_ST " (StreamWaitEvent flags other than 0)",   \
    clsStreamWaitEvent(x->s, x->e_rec, 5))                                     \
  X(wait_event_flags_high, 0, IV,                                              \
    S_ST " (StreamWaitEvent flags other than 0)",                              \
    clsStreamWaitEvent(x->s, x->e_rec, 0x80000000u))                           \
  X(wait_event_flags_legacy, 0, IV,                                            \
    S_ST " (StreamWaitEvent flags other than 0)",                              \
    clsStreamWaitEvent(NULL, x->e_rec, 5))                                     \
  X(wait_event_never_recorded, 0, OK,                                          \
    S_ST " (StreamWaitEvent on an event never recorded)",                      \
    clsStreamWaitEvent(x->s, x->e, 0))                                         \
  X(add_callback_null, 0, IV, "CUDA manual cudaStreamAddCallback" TC,          \
    clsStreamAddCallback(x->s, NULL, NULL, 0))                                 \
  X(add_callback_flags_1, 0, IV, S_ST " (AddCallback with flags != 0)",        \
    clsStreamAddCallback(x->s, cb_nop, NULL, 1))                               \
  X(add_callback_flags_all, 0, IV, S_ST " (AddCallback with flags != 0)",      \
    clsStreamAddCallback(x->s, cb_nop, NULL, ~0u))                             \
  X(add_callback_flags_legacy, 0, IV, S_ST " (AddCallback with flags != 0)",   \
    clsStreamAddCallback(NULL, cb_nop, NULL, 4))                               \
  X(host_func_null, 0, IV, S_ST " (LaunchHostFunc with a NULL function)",      \
    clsLaunchHostFunc(x->s, NULL, NULL))                                       \
  X(host_func_null_legacy, 0, IV,                                              \
    S_ST " (LaunchHostFunc with a NULL function)",                             \
    clsLaunchHostFunc(NULL, NULL, x))                                          \
  X(host_func_null_per_thread, 0, IV,                                          \
    S_ST " (LaunchHostFunc with a NULL function)",                             \
    clsLaunchHostFunc(clsStreamPerThread, NULL, NULL))                         \
  /* Events */                                                                 \
  X(event_create_null, 0, IV, S_EV " (NULL out pointer)",                      \
    clsEventCreate(NULL))                                                      \
  X(event_flags_null, 0, IV, S_EV " (NULL out pointer)",                       \
    clsEventCreateWithFlags(NULL, 0))                                          \
  X(event_flags_null_timing, 0, IV, S_EV " (NULL out pointer)",                \
    clsEventCreateWithFlags(NULL, clsEventDisableTiming))                      \
  X(event_flags_ipc_alone, 0, IV, S_EV " (Interprocess alone)",                \
    event_flags(x, clsEventInterprocess))                                      \
  X(event_flags_ipc_blocking, 0, IV,                                           \
    S_EV " (Interprocess without DisableTiming)",                              \
    event_flags(x, clsEventInterprocess | clsEventBlockingSync))               \
  X(event_flags_0x8, 0, IV, S_EV " (unknown flag bit)", event_flags(x, 0x8))   \
  X(event_flags_0x80, 0, IV, S_EV " (unknown flag bit)", event_flags(x, 0x80)) \
  X(event_flags_0x82, 0, IV, S_EV " (unknown flag bit)",                       \
    event_flags(x, 0x80 | clsEventDisableTiming))                              \
  X(event_flags_high, 0, IV, S_EV " (unknown flag bit)",                       \
    event_flags(x, 0x80000000u))                                               \
  X(event_flags_all, 0, IV, S_EV " (unknown flag bit)", event_flags(x, ~0u))   \
  X(elapsed_ms_null, 0, IV, S_EV " (elapsed: NULL ms pointer)",                \
    clsEventElapsedTime(NULL, x->e_rec, x->e_rec))                             \
  X(elapsed_start_never_recorded, 0, IRH,                                      \
    S_EV " (elapsed: either never recorded)",                                  \
    clsEventElapsedTime(&x->ms, x->e, x->e_rec))                               \
  X(elapsed_end_never_recorded, 0, IRH,                                        \
    S_EV " (elapsed: either never recorded)",                                  \
    clsEventElapsedTime(&x->ms, x->e_rec, x->e))                               \
  X(elapsed_start_no_timing, 0, IRH, S_EV " (elapsed: DisableTiming)",         \
    clsEventElapsedTime(&x->ms, x->e_nt, x->e_rec))                            \
  X(elapsed_end_no_timing, 0, IRH, S_EV " (elapsed: DisableTiming)",           \
    clsEventElapsedTime(&x->ms, x->e_rec, x->e_nt))                            \
  X(elapsed_same_event, 0, OK, S_EV " (elapsed (e, e): 0.0)", elapsed_same(x)) \
  X(elapsed_not_complete, 0, NOTREADY, S_EV " (elapsed: not complete)",        \
    elapsed_pending(x))                                                        \
  /* Memory: allocation */                                                     \
  X(malloc_null, 0, IV, S_MEM " (malloc with a NULL out pointer)",             \
    clsMalloc(NULL, 16))                                                       \
  X(malloc_null_zero, 0, IV, S_MEM " (malloc with a NULL out pointer)",        \
    clsMalloc(NULL, 0))                                                        \
  X(malloc_zero, 0, OK, "CUDA manual cudaMalloc (size 0)" TC,                  \
    malloc_size(x, 0))                                                         \
  X(malloc_size_max, 0, NOMEM, "CUDA manual cudaMalloc",                       \
    malloc_size(x, SIZE_MAX))                                                  \
  X(malloc_2_pow_50, 0, NOMEM, "CUDA manual cudaMalloc",                       \
    malloc_size(x, (size_t)1 << 50))                                           \
  X(malloc_host_null, 0, IV, "CUDA manual cudaMallocHost" TC,                  \
    clsMallocHost(NULL, 16))                                                   \
  X(malloc_host_size_max, 0, NOMEM, "CUDA manual cudaMallocHost",              \
    malloc_host_size(x, SIZE_MAX))                                             \
  X(free_null, 0, OK, S_MEM " (free of NULL)", clsFree(NULL))                  \
  X(free_stack, 0, IV, "CUDA manual cudaFree" TC, clsFree(x->host))            \
  X(free_heap, 0, IV, "CUDA manual cudaFree" TC, clsFree(x->heap))             \
  X(free_interior, 0, IV, "CUDA manual cudaFree" TC,                           \
    clsFree(dev_int(x->d, 8)))                                                 \
  X(free_freed, 0, IV, "CUDA manual cudaFree" TC, clsFree(x->d_dead))          \
  X(free_pinned_host, 0, IV, "CUDA manual cudaFree" TC, clsFree(x->h))         \
  X(free_host_null, 0, OK, "CUDA manual cudaFreeHost" TC, clsFreeHost(NULL))   \
  X(free_host_device, 0, IV, "CUDA manual cudaFreeHost" TC, clsFreeHost(x->d)) \
  X(free_host_heap, 0, IV, "CUDA manual cudaFreeHost" TC,                      \
    clsFreeHost(x->heap))                                                      \
  X(free_host_interior, 0, IV, "CUDA manual cudaFreeHost" TC,                  \
    clsFreeHost(dev_int(x->h, 8)))                                             \
  X(free_host_twice, 0, IV, "CUDA manual cudaFreeHost" TC, free_host_twice(x)) \
  /* Memory: copies */                                                         \
  X(memcpy_kind_5, 0, IDIR, S_MEM " (kind outside the enum)",                  \
    clsMemcpy(x->d, x->host, 16, (clsMemcpyKind)5))                            \
  X(memcpy_kind_neg, 0, IDIR, S_MEM " (kind outside the enum)",                \
    clsMemcpy(x->d, x->host, 16, (clsMemcpyKind)-1))                           \
  X(memcpy_kind_100, 0, IDIR, S_MEM " (kind outside the enum)",                \
    clsMemcpy(x->d, x->host, 16, (clsMemcpyKind)100))                          \
  X(memcpy_kind_intmin, 0, IDIR, S_MEM " (kind outside the enum)",             \
    clsMemcpy(x->host, x->heap, 16, (clsMemcpyKind)INT_MIN))                   \
  X(memcpy_async_kind_5, 0, IDIR, S_MEM " (kind outside the enum)",            \
    clsMemcpyAsync(x->d, x->h, 16, (clsMemcpyKind)5, x->s))                    \
  X(memcpy_async_kind_neg, 0, IDIR, S_MEM " (kind outside the enum)",          \
    clsMemcpyAsync(x->d, x->h, 16, (clsMemcpyKind)-1, x->s))                   \
  X(memcpy_dst_null, 0, IV, "CUDA manual cudaMemcpy" TC,                       \
    clsMemcpy(NULL, x->host, 16, clsMemcpyHostToDevice))                       \
  X(memcpy_src_null, 0, IV, "CUDA manual cudaMemcpy" TC,                       \
    clsMemcpy(x->d, NULL, 16, clsMemcpyHostToDevice))                          \
  X(memcpy_h2d_past_end, 0, IV, "CUDA manual cudaMemcpy" TC,                   \
    clsMemcpy(x->d, x->host, DEV_BYTES + 1, clsMemcpyHostToDevice))            \
  X(memcpy_h2d_interior_past_end, 0, IV, "CUDA manual cudaMemcpy" TC,          \
    clsMemcpy(dev_int(x->d, 32), x->host, DEV_BYTES - 31,                      \
              clsMemcpyHostToDevice))                                          \
  X(memcpy_h2d_interior_fits, 0, OK, "CUDA manual cudaMemcpy",                 \
    clsMemcpy(dev_int(x->d, 32), x->host, DEV_BYTES - 32,                      \
              clsMemcpyHostToDevice))                                          \
  X(memcpy_d2h_past_end, 0, IV, "CUDA manual cudaMemcpy" TC,                   \
    clsMemcpy(x->host, x->d, DEV_BYTES + 1, clsMemcpyDeviceToHost))            \
  X(memcpy_d2h_size_max, 0, IV, "CUDA manual cudaMemcpy" TC,                   \
    clsMemcpy(x->host, x->d, SIZE_MAX, clsMemcpyDeviceToHost))                 \
  X(memcpy_d2d_src_past_end, 0, IV, "CUDA manual cudaMemcpy" TC,               \
    clsMemcpy(x->d2, x->d, DEV_BYTES + 1, clsMemcpyDeviceToDevice))            \
  X(memcpy_d2d_dst_past_end, 0, IV, "CUDA manual cudaMemcpy" TC,               \
    clsMemcpy(x->d, x->d2, DEV_BYTES + 1, clsMemcpyDeviceToDevice))            \
  X(memcpy_default_past_end, 0, IV, "CUDA manual cudaMemcpy" TC,               \
    clsMemcpy(x->d, x->host, DEV_BYTES + 1, clsMemcpyDefault))                 \
  X(memcpy_zero, 0, OK, "CUDA manual cudaMemcpy (0 bytes)" TC,                 \
    clsMemcpy(x->d, x->host, 0, clsMemcpyHostToDevice))                        \
  X(memcpy_h2d_dst_not_device, 0, IV, "CUDA manual cudaMemcpy" TC,             \
    clsMemcpy(x->heap, x->host, 16, clsMemcpyHostToDevice))                    \
  X(memcpy_d2h_src_not_device, 0, IV, "CUDA manual cudaMemcpy" TC,             \
    clsMemcpy(x->host, x->heap, 16, clsMemcpyDeviceToHost))                    \
  X(memcpy_d2d_not_device, 0, IV, "CUDA manual cudaMemcpy" TC,                 \
    clsMemcpy(x->heap, x->host, 16, clsMemcpyDeviceToDevice))                  \
  X(memcpy_h2d_reversed, 0, IV, "CUDA manual cudaMemcpy" TC,                   \
    clsMemcpy(x->host, x->d, 16, clsMemcpyHostToDevice))                       \
  X(memcpy_h2d_dst_freed, 0, IV, "CUDA manual cudaMemcpy" TC,                  \
    clsMemcpy(x->d_dead, x->host, 16, clsMemcpyHostToDevice))                  \
  X(memcpy_d2h_src_freed, 0, IV, "CUDA manual cudaMemcpy" TC,                  \
    clsMemcpy(x->host, x->d_dead, 16, clsMemcpyDeviceToHost))                  \
  X(memcpy_async_past_end, 0, IV, "CUDA manual cudaMemcpyAsync" TC,            \
    clsMemcpyAsync(x->d, x->h, DEV_BYTES + 1, clsMemcpyHostToDevice, x->s))    \
  X(memcpy_async_dst_null, 0, IV, "CUDA manual cudaMemcpyAsync" TC,            \
    clsMemcpyAsync(NULL, x->h, 16, clsMemcpyHostToDevice, x->s))               \
  X(memcpy_async_src_freed, 0, IV, "CUDA manual cudaMemcpyAsync" TC,           \
    clsMemcpyAsync(x->h, x->d_dead, 16, clsMemcpyDeviceToHost, x->s))          \
  X(memcpy_async_not_device, 0, IV, "CUDA manual cudaMemcpyAsync" TC,          \
    clsMemcpyAsync(x->heap, x->host, 16, clsMemcpyHostToDevice, x->s))         \
  X(memcpy_async_zero, 0, OK, "CUDA manual cudaMemcpyAsync (0 bytes)" TC,      \
    clsMemcpyAsync(x->d, x->h, 0, clsMemcpyHostToDevice, x->s))                \
  /* Memory: sets */                                                           \
  X(memset_null, 0, IV, "CUDA manual cudaMemset" TC, clsMemset(NULL, 0, 16))   \
  X(memset_past_end, 0, IV, "CUDA manual cudaMemset" TC,                       \
    clsMemset(x->d, 0, DEV_BYTES + 1))                                         \
  X(memset_interior_past_end, 0, IV, "CUDA manual cudaMemset" TC,              \
    clsMemset(dev_int(x->d, 60), 0, 5))                                        \
  X(memset_size_max, 0, IV, "CUDA manual cudaMemset" TC,                       \
    clsMemset(x->d, 0, SIZE_MAX))                                              \
  X(memset_not_device, 0, IV, "CUDA manual cudaMemset" TC,                     \
    clsMemset(x->heap, 0, 16))                                                 \
  X(memset_stack, 0, IV, "CUDA manual cudaMemset" TC,                          \
    clsMemset(x->host, 0, 16))                                                 \
  X(memset_freed, 0, IV, "CUDA manual cudaMemset" TC,                          \
    clsMemset(x->d_dead, 0, 16))                                               \
  X(memset_zero, 0, OK, "CUDA manual cudaMemset (0 bytes)" TC,                 \
    clsMemset(x->d, 0, 0))                                                     \
  X(memset_wide_value, 0, OK,                                                  \
    "CUDA manual cudaMemset (value as unsigned char)", memset_wide_value(x))   \
  X(memset_async_null, 0, IV, "CUDA manual cudaMemsetAsync" TC,                \
    clsMemsetAsync(NULL, 0, 16, x->s))                                         \
  X(memset_async_past_end, 0, IV, "CUDA manual cudaMemsetAsync" TC,            \
    clsMemsetAsync(x->d, 0, DEV_BYTES + 1, x->s))                              \
  X(memset_async_not_device, 0, IV, "CUDA manual cudaMemsetAsync" TC,          \
    clsMemsetAsync(x->heap, 0, 16, x->s))                                      \
  X(memset_async_zero, 0, OK, "CUDA manual cudaMemsetAsync (0 bytes)" TC,      \
    clsMemsetAsync(x->d, 0, 0, x->s))                                          \
  /* Modules and functions */                                                  \
  X(module_load_null_out, 0, IV, "CUDA manual cuModuleLoadData" TC,            \
    module_load(x, NULL, cls_kernel_arith))                                    \
  X(module_load_null_source, 0, IV, "CUDA manual cuModuleLoadData" TC,         \
    module_load(x, &x->out_m, NULL))                                           \
  X(module_load_bad_source, 0, clsErrorInvalidSource,                          \
    "CUDA manual CUDA_ERROR_INVALID_SOURCE (compile errors in device code)",   \
    module_load(x, &x->out_m,                                                  \
                "/* cls-sweep: expect build error */ "                         \
                "CLS_KERNEL void k(int *p) { syntax error }"))                 \
  X(module_load_undeclared, 0, clsErrorInvalidSource,                          \
    "CUDA manual CUDA_ERROR_INVALID_SOURCE (compile errors in device code)",   \
    module_load(x, &x->out_m,                                                  \
                "/* cls-sweep: expect build error */ "                         \
                "CLS_KERNEL void k(void) { undeclared(); }"))                  \
  X(get_function_null_out, NEED_MOD, IV, "CUDA manual cuModuleGetFunction" TC, \
    get_function(x, NULL, x->m, "fill"))                                       \
  X(get_function_null_name, NEED_MOD, IV,                                      \
    "CUDA manual cuModuleGetFunction" TC,                                      \
    get_function(x, &x->out_f, x->m, NULL))                                    \
  X(get_function_missing, NEED_MOD, SYMNF,                                     \
    "CUDA manual cuModuleGetFunction (CUDA_ERROR_NOT_FOUND)",                  \
    get_function(x, &x->out_f, x->m, "no_such_kernel"))                        \
  X(get_function_empty_name, NEED_MOD, SYMNF,                                  \
    "CUDA manual cuModuleGetFunction (CUDA_ERROR_NOT_FOUND)",                  \
    get_function(x, &x->out_f, x->m, ""))                                      \
  /* Launches */                                                               \
  X(launch_grid_x0, NEED_MOD, IV, S_MEM " (launch with a zero dimension)",     \
    launch_cfg(x, d3(0, 1, 1), d3(1, 1, 1)))                                   \
  X(launch_grid_y0, NEED_MOD, IV, S_MEM " (launch with a zero dimension)",     \
    launch_cfg(x, d3(1, 0, 1), d3(1, 1, 1)))                                   \
  X(launch_grid_z0, NEED_MOD, IV, S_MEM " (launch with a zero dimension)",     \
    launch_cfg(x, d3(1, 1, 0), d3(1, 1, 1)))                                   \
  X(launch_block_x0, NEED_MOD, IV, S_MEM " (launch with a zero dimension)",    \
    launch_cfg(x, d3(1, 1, 1), d3(0, 1, 1)))                                   \
  X(launch_block_y0, NEED_MOD, IV, S_MEM " (launch with a zero dimension)",    \
    launch_cfg(x, d3(1, 1, 1), d3(1, 0, 1)))                                   \
  X(launch_block_z0, NEED_MOD, IV, S_MEM " (launch with a zero dimension)",    \
    launch_cfg(x, d3(1, 1, 1), d3(1, 1, 0)))                                   \
  X(launch_all_zero, NEED_MOD, IV, S_MEM " (launch with a zero dimension)",    \
    launch_cfg(x, d3(0, 0, 0), d3(0, 0, 0)))                                   \
  X(launch_block_x_over, NEED_MOD, IV,                                         \
    S_MEM " (block above the device's limit: maxThreadsDim)",                  \
    launch_cfg(x, d3(1, 1, 1),                                                 \
               d3((unsigned)x->prop.maxThreadsDim[0] + 1, 1, 1)))              \
  X(launch_block_y_over, NEED_MOD, IV,                                         \
    S_MEM " (block above the device's limit: maxThreadsDim)",                  \
    launch_cfg(x, d3(1, 1, 1),                                                 \
               d3(1, (unsigned)x->prop.maxThreadsDim[1] + 1, 1)))              \
  X(launch_block_z_over, NEED_MOD, IV,                                         \
    S_MEM " (block above the device's limit: maxThreadsDim)",                  \
    launch_cfg(x, d3(1, 1, 1),                                                 \
               d3(1, 1, (unsigned)x->prop.maxThreadsDim[2] + 1)))              \
  X(launch_grid_x_over, NEED_MOD, IV,                                          \
    S_MEM " (grid above the device's limit: maxGridSize)",                     \
    launch_cfg(x, d3((unsigned)x->prop.maxGridSize[0] + 1, 1, 1),              \
               d3(1, 1, 1)))                                                   \
  X(launch_grid_y_over, NEED_MOD, IV,                                          \
    S_MEM " (grid above the device's limit: maxGridSize)",                     \
    launch_cfg(x, d3(1, (unsigned)x->prop.maxGridSize[1] + 1, 1),              \
               d3(1, 1, 1)))                                                   \
  X(launch_grid_z_over, NEED_MOD, IV,                                          \
    S_MEM " (grid above the device's limit: maxGridSize)",                     \
    launch_cfg(x, d3(1, 1, (unsigned)x->prop.maxGridSize[2] + 1),              \
               d3(1, 1, 1)))                                                   \
  X(launch_block_uint_max, NEED_MOD, IV,                                       \
    S_MEM " (block above the device's limit)",                                 \
    launch_cfg(x, d3(1, 1, 1), d3(UINT_MAX, 1, 1)))                            \
  X(launch_block_all_uint_max, NEED_MOD, IV,                                   \
    S_MEM " (block above the device's limit)",                                 \
    launch_cfg(x, d3(1, 1, 1), d3(UINT_MAX, UINT_MAX, UINT_MAX)))              \
  X(launch_block_product_over, NEED_MOD, IV,                                   \
    S_MEM " (block above the device's limit: maxThreadsPerBlock)",             \
    launch_block_product(x))                                                   \
  X(launch_args_null, NEED_MOD, IV, "CUDA manual cudaLaunchKernel" TC,         \
    launch(x, d3(1, 1, 1), d3(1, 1, 1), NULL, 0, x->s))                        \
  X(launch_arg0_null, NEED_MOD, IV, "CUDA manual cudaLaunchKernel" TC,         \
    launch_arg_null(x, 0))                                                     \
  X(launch_arg2_null, NEED_MOD, IV, "CUDA manual cudaLaunchKernel" TC,         \
    launch_arg_null(x, 2))                                                     \
  X(launch_shared_over, NEED_MOD, IV,                                          \
    "H100 cudaLaunchKernel (sharedMem above sharedMemPerBlock)",               \
    launch(x, d3(1, 1, 1), d3(1, 1, 1), x->args,                               \
           x->prop.sharedMemPerBlock + 1, x->s))                               \
  /* Module globals and symbol copies (kparams) */                             \
  X(sym_global_name_null, NEED_MOD, IV, S_SYM,                                 \
    clsModuleGetGlobal(&x->out_p, NULL, x->m, NULL))                           \
  X(sym_global_unknown, NEED_MOD, SYMNF, "H100 cuModuleGetGlobal",             \
    clsModuleGetGlobal(&x->out_p, NULL, x->m, "no_such_global"))               \
  X(sym_global_dead_module, NEED_MOD, IRH, S_SYM,                              \
    clsModuleGetGlobal(&x->out_p, NULL, x->m_dead, "g"))                       \
  X(sym_global_null_module, 0, IRH, S_SYM,                                     \
    clsModuleGetGlobal(&x->out_p, NULL, NULL, "g"))                            \
  X(sym_to_null, 0, ISYM, S_SYM,                                               \
    clsMemcpyToSymbol(NULL, x->host, 4, 0, clsMemcpyHostToDevice))             \
  X(sym_to_device_memory, 0, ISYM, S_SYM,                                      \
    clsMemcpyToSymbol(x->d, x->host, 4, 0, clsMemcpyHostToDevice))             \
  X(sym_to_async_device_memory, 0, ISYM, S_SYM,                                \
    clsMemcpyToSymbolAsync(x->d, x->host, 4, 0, clsMemcpyHostToDevice, x->s))  \
  X(sym_from_host_memory, 0, ISYM, S_SYM,                                      \
    clsMemcpyFromSymbol(x->host, x->host, 4, 0, clsMemcpyDeviceToHost))        \
  X(sym_from_async_null, 0, ISYM, S_SYM,                                       \
    clsMemcpyFromSymbolAsync(x->host, NULL, 4, 0, clsMemcpyDeviceToHost,       \
                             x->s))                                            \
  X(sym_address_null_out, 0, IV, S_SYM, clsGetSymbolAddress(NULL, x->d))       \
  X(sym_address_device_memory, 0, ISYM, S_SYM,                                 \
    clsGetSymbolAddress(&x->out_p, x->d))                                      \
  X(sym_size_null_out, 0, IV, S_SYM, clsGetSymbolSize(NULL, x->d))             \
  X(sym_size_device_memory, 0, ISYM, S_SYM, clsGetSymbolSize(&kp_size, x->d))  \
  X(sym_to_in_hostfn, IN_HOSTFN, NOTPERM, S_ST " (host function)",             \
    clsMemcpyToSymbol(NULL, x->host, 4, 0, clsMemcpyHostToDevice))             \
  X(sym_global_in_hostfn, IN_HOSTFN | NEED_MOD, NOTPERM,                       \
    S_ST " (host function)", clsModuleGetGlobal(&x->out_p, NULL, x->m, "g"))   \
  /* Handles of another device */                                              \
  X(other_record_event_of_b_on_a, NEED_TWO, IRH,                               \
    S_EV " (record on a stream of another device)",                            \
    clsEventRecord(x->e_b, x->s))                                              \
  X(other_record_event_of_a_on_b, NEED_TWO, IRH,                               \
    S_EV " (record on a stream of another device)",                            \
    clsEventRecord(x->e, x->s_b))                                              \
  X(other_record_on_b_legacy, NEED_TWO, IRH,                                   \
    S_EV " (record on a stream of another device)",                            \
    clsEventRecord(x->e_b, NULL))                                              \
  X(other_wait_event_of_b, NEED_TWO, OK,                                       \
    S_ST " (StreamWaitEvent with an event of another device)",                 \
    clsStreamWaitEvent(x->s, x->e_b, 0))                                       \
  X(other_wait_on_stream_of_b, NEED_TWO, OK,                                   \
    S_ST " (StreamWaitEvent with an event of another device)",                 \
    clsStreamWaitEvent(x->s_b, x->e_rec, 0))                                   \
  X(other_query_event_of_b, NEED_TWO, OK,                                      \
    GUIDE " (cudaEventQuery succeeds across devices)", clsEventQuery(x->e_b))  \
  X(other_sync_event_of_b, NEED_TWO, OK,                                       \
    GUIDE " (cudaEventSynchronize succeeds across devices)",                   \
    clsEventSynchronize(x->e_b))                                               \
  X(other_elapsed_across_devices, NEED_TWO, IRH,                               \
    GUIDE " (cudaEventElapsedTime fails for events of two devices)" TC,        \
    clsEventElapsedTime(&x->ms, x->e_rec, x->e_b))                             \
  X(other_memcpy_async_on_b, NEED_TWO, OK,                                     \
    GUIDE " (a copy succeeds on a stream of another device)",                  \
    clsMemcpyAsync(x->h, x->d, 16, clsMemcpyDeviceToHost, x->s_b))             \
  X(other_launch_on_b, NEED_TWO | NEED_MOD, IRH,                               \
    GUIDE " (a launch fails on a stream of another device)" TC,                \
    launch(x, d3(1, 1, 1), d3(1, 1, 1), x->args, 0, x->s_b))                   \
  X(other_stream_sync_b, NEED_TWO, OK,                                         \
    "CUDA manual cudaStreamSynchronize (any device's stream)" TC,              \
    clsStreamSynchronize(x->s_b))                                              \
  X(other_stream_query_b, NEED_TWO, OK,                                        \
    "CUDA manual cudaStreamQuery (any device's stream)" TC,                    \
    clsStreamQuery(x->s_b))                                                    \
  X(other_free_b, NEED_TWO, OK,                                                \
    "CUDA manual cudaFree (unified addressing)" TC, free_other_device(x))      \
  /* Calls from a host function: NotPermitted (docs/semantics.md Streams,      \
   * host function row; cudaLaunchHostFunc: "may result in                     \
   * cudaErrorNotPermitted") */                                                \
  X(hostfn_get_device_count, IN_HOSTFN, NOTPERM, S_ST " (host function)",      \
    clsGetDeviceCount(&x->i1))                                                 \
  X(hostfn_set_device, IN_HOSTFN, NOTPERM, S_ST " (host function)",            \
    clsSetDevice(0))                                                           \
  X(hostfn_get_device, IN_HOSTFN, NOTPERM, S_ST " (host function)",            \
    clsGetDevice(&x->i1))                                                      \
  X(hostfn_get_properties, IN_HOSTFN, NOTPERM, S_ST " (host function)",        \
    clsGetDeviceProperties(&x->prop, 0))                                       \
  X(hostfn_device_sync, IN_HOSTFN, NOTPERM, S_ST " (host function)",           \
    clsDeviceSynchronize())                                                    \
  X(hostfn_priority_range, IN_HOSTFN, NOTPERM, S_ST " (host function)",        \
    clsDeviceGetStreamPriorityRange(&x->i1, &x->i2))                           \
  X(hostfn_stream_create, IN_HOSTFN, NOTPERM, S_ST " (host function)",         \
    stream_flags(x, 0))                                                        \
  X(hostfn_stream_create_prio, IN_HOSTFN, NOTPERM, S_ST " (host function)",    \
    stream_prio(x, 0, 0))                                                      \
  X(hostfn_stream_destroy, IN_HOSTFN, NOTPERM, S_ST " (host function)",        \
    destroy_s2(x))                                                             \
  X(hostfn_stream_sync_other, IN_HOSTFN, NOTPERM, S_ST " (host function)",     \
    clsStreamSynchronize(x->s2))                                               \
  X(hostfn_stream_sync_own, IN_HOSTFN, NOTPERM, S_ST " (host function)",       \
    clsStreamSynchronize(x->s))                                                \
  X(hostfn_stream_query, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsStreamQuery(x->s2))                                                     \
  X(hostfn_stream_wait_event, IN_HOSTFN, NOTPERM, S_ST " (host function)",     \
    clsStreamWaitEvent(x->s2, x->e_rec, 0))                                    \
  X(hostfn_stream_get_flags, IN_HOSTFN, NOTPERM, S_ST " (host function)",      \
    clsStreamGetFlags(x->s2, &x->u))                                           \
  X(hostfn_stream_get_priority, IN_HOSTFN, NOTPERM, S_ST " (host function)",   \
    clsStreamGetPriority(x->s2, &x->i1))                                       \
  X(hostfn_add_callback, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsStreamAddCallback(x->s2, cb_nop, NULL, 0))                              \
  X(hostfn_launch_host_func, IN_HOSTFN, NOTPERM, S_ST " (host function)",      \
    clsLaunchHostFunc(x->s2, hf_nop, NULL))                                    \
  X(hostfn_event_create, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    event_flags(x, 0))                                                         \
  X(hostfn_event_destroy, IN_HOSTFN, NOTPERM, S_ST " (host function)",         \
    destroy_e_spare(x))                                                        \
  X(hostfn_event_record, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsEventRecord(x->e_spare, x->s2))                                         \
  X(hostfn_event_query, IN_HOSTFN, NOTPERM, S_ST " (host function)",           \
    clsEventQuery(x->e_rec))                                                   \
  X(hostfn_event_sync, IN_HOSTFN, NOTPERM, S_ST " (host function)",            \
    clsEventSynchronize(x->e_rec))                                             \
  X(hostfn_event_elapsed, IN_HOSTFN, NOTPERM, S_ST " (host function)",         \
    clsEventElapsedTime(&x->ms, x->e_rec, x->e_rec))                           \
  X(hostfn_malloc, IN_HOSTFN, NOTPERM, S_ST " (host function)",                \
    malloc_size(x, 16))                                                        \
  X(hostfn_free, IN_HOSTFN, NOTPERM, S_ST " (host function)", free_d2(x))      \
  X(hostfn_malloc_host, IN_HOSTFN, NOTPERM, S_ST " (host function)",           \
    malloc_host_size(x, 16))                                                   \
  X(hostfn_free_host, IN_HOSTFN, NOTPERM, S_ST " (host function)", free_h(x))  \
  X(hostfn_memcpy, IN_HOSTFN, NOTPERM, S_ST " (host function)",                \
    clsMemcpy(x->host, x->d, 16, clsMemcpyDeviceToHost))                       \
  X(hostfn_memcpy_async, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsMemcpyAsync(x->h, x->d, 16, clsMemcpyDeviceToHost, x->s2))              \
  X(hostfn_memset, IN_HOSTFN, NOTPERM, S_ST " (host function)",                \
    clsMemset(x->d, 0, 16))                                                    \
  X(hostfn_memset_async, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsMemsetAsync(x->d, 0, 16, x->s2))                                        \
  X(hostfn_module_load, IN_HOSTFN, NOTPERM, S_ST " (host function)",           \
    module_load(x, &x->out_m, cls_kernel_arith))                               \
  X(hostfn_module_unload, IN_HOSTFN | NEED_MOD, NOTPERM,                       \
    S_ST " (host function)", unload_m(x))                                      \
  X(hostfn_get_function, IN_HOSTFN | NEED_MOD, NOTPERM,                        \
    S_ST " (host function)", get_function(x, &x->out_f, x->m, "fill"))         \
  /* Issue 13: device attributes and flags */                                  \
  X(attr_null, 0, IV, "CUDA manual cudaDeviceGetAttribute" TC,                 \
    clsDeviceGetAttribute(NULL, clsDevAttrWarpSize, 0))                        \
  X(attr_zero, 0, IV,                                                          \
    "CUDA manual cudaDeviceGetAttribute (not an attribute)" TC,                \
    clsDeviceGetAttribute(&x->i1, (clsDeviceAttr)0, 0))                        \
  X(attr_neg, 0, IV,                                                           \
    "CUDA manual cudaDeviceGetAttribute (not an attribute)" TC,                \
    clsDeviceGetAttribute(&x->i1, (clsDeviceAttr)-1, 0))                       \
  X(attr_huge, 0, IV,                                                          \
    "CUDA manual cudaDeviceGetAttribute (not an attribute)" TC,                \
    clsDeviceGetAttribute(&x->i1, (clsDeviceAttr)100000, 0))                   \
  X(attr_dev_neg, 0, IDEV, "CUDA manual cudaDeviceGetAttribute",               \
    clsDeviceGetAttribute(&x->i1, clsDevAttrWarpSize, -1))                     \
  X(attr_dev_count, 0, IDEV, "CUDA manual cudaDeviceGetAttribute",             \
    clsDeviceGetAttribute(&x->i1, clsDevAttrWarpSize, x->ndev))                \
  X(attr_dev_intmax, 0, IDEV, "CUDA manual cudaDeviceGetAttribute",            \
    clsDeviceGetAttribute(&x->i1, clsDevAttrComputeMode, INT_MAX))             \
  X(set_flags_0x100, 0, IV, "CUDA manual cudaSetDeviceFlags" TC,               \
    clsSetDeviceFlags(0x100))                                                  \
  X(set_flags_all, 0, IV, "CUDA manual cudaSetDeviceFlags" TC,                 \
    clsSetDeviceFlags(~0u))                                                    \
  X(set_flags_spin_yield, 0, IV,                                               \
    "CUDA manual cudaSetDeviceFlags (one schedule flag)" TC,                   \
    clsSetDeviceFlags(clsDeviceScheduleSpin | clsDeviceScheduleYield))         \
  X(set_flags_sched_mask, 0, IV,                                               \
    "CUDA manual cudaSetDeviceFlags (one schedule flag)" TC,                   \
    clsSetDeviceFlags(clsDeviceScheduleMask))                                  \
  X(get_flags_null, 0, IV, "CUDA manual cudaGetDeviceFlags" TC,                \
    clsGetDeviceFlags(NULL))                                                   \
  /* Issue 13: host memory */                                                  \
  X(host_alloc_null, 0, IV, "CUDA manual cudaHostAlloc" TC,                    \
    clsHostAlloc(NULL, 16, 0))                                                 \
  X(host_alloc_flags_8, 0, IV, "CUDA manual cudaHostAlloc (unknown flag)" TC,  \
    host_alloc_flags(x, 16, 0x8))                                              \
  X(host_alloc_flags_high, 0, IV,                                              \
    "CUDA manual cudaHostAlloc (unknown flag)" TC,                             \
    host_alloc_flags(x, 16, 0x80000000u))                                      \
  X(host_alloc_zero, 0, OK, "CUDA manual cudaMallocHost (0 bytes: NULL)" TC,   \
    host_alloc_flags(x, 0, clsHostAllocPortable))                              \
  X(host_dptr_null_out, 0, IV, "CUDA manual cudaHostGetDevicePointer" TC,      \
    clsHostGetDevicePointer(NULL, x->h, 0))                                    \
  X(host_dptr_null_host, 0, IV, "CUDA manual cudaHostGetDevicePointer" TC,     \
    clsHostGetDevicePointer(&x->out_p, NULL, 0))                               \
  X(host_dptr_flags, 0, IV,                                                    \
    "CUDA manual cudaHostGetDevicePointer (flags must be 0)",                  \
    clsHostGetDevicePointer(&x->out_p, x->h, 1))                               \
  X(host_dptr_heap, 0, IV,                                                     \
    "CUDA manual cudaHostGetDevicePointer (not pinned memory)" TC,             \
    clsHostGetDevicePointer(&x->out_p, x->heap, 0))                            \
  X(host_dptr_device, 0, IV,                                                   \
    "CUDA manual cudaHostGetDevicePointer (not host memory)" TC,               \
    clsHostGetDevicePointer(&x->out_p, x->d, 0))                               \
  X(host_register_null, 0, IV, "CUDA manual cudaHostRegister" TC,              \
    clsHostRegister(NULL, 16, 0))                                              \
  X(host_register_size0, 0, IV, "CUDA manual cudaHostRegister" TC,             \
    clsHostRegister(x->host, 0, 0))                                            \
  X(host_register_flags_0x10, 0, IV,                                           \
    "CUDA manual cudaHostRegister (unknown flag)" TC, register_flags(x, 0x10)) \
  X(host_register_twice, 0, HAR,                                               \
    "CUDA manual cudaErrorHostMemoryAlreadyRegistered", register_twice(x))     \
  X(host_register_pinned, 0, HAR,                                              \
    "CUDA manual cudaErrorHostMemoryAlreadyRegistered (pinned already)" TC,    \
    clsHostRegister(x->h, 16, 0))                                              \
  X(host_unregister_null, 0, IV,                                               \
    "CUDA manual cudaHostUnregister (measured on a 4090: InvalidValue)",       \
    clsHostUnregister(NULL))                                                   \
  X(host_unregister_heap, 0, HNR,                                              \
    "CUDA manual cudaErrorHostMemoryNotRegistered",                            \
    clsHostUnregister(x->heap))                                                \
  X(host_unregister_twice, 0, HNR,                                             \
    "CUDA manual cudaErrorHostMemoryNotRegistered", unregister_twice(x))       \
  X(host_unregister_interior, 0, HNR,                                          \
    "CUDA manual cudaHostUnregister (the base given to cudaHostRegister)",     \
    unregister_interior(x))                                                    \
  X(host_unregister_pinned, 0, HNR,                                            \
    "CUDA manual cudaErrorHostMemoryNotRegistered (cudaMallocHost memory)" TC, \
    clsHostUnregister(x->h))                                                   \
  /* Issue 13: managed memory */                                               \
  X(managed_null, 0, IV, "CUDA manual cudaMallocManaged" TC,                   \
    clsMallocManaged(NULL, 16, clsMemAttachGlobal))                            \
  X(managed_size0, 0, IV, "CUDA manual cudaMallocManaged (size 0)",            \
    managed_flags(x, 0, clsMemAttachGlobal))                                   \
  X(managed_flags0, 0, IV, "CUDA manual cudaMallocManaged (flags)",            \
    managed_flags(x, 16, 0))                                                   \
  X(managed_flags_single, 0, IV, "CUDA manual cudaMallocManaged (flags)",      \
    managed_flags(x, 16, clsMemAttachSingle))                                  \
  X(managed_flags_both, 0, IV, "CUDA manual cudaMallocManaged (flags)",        \
    managed_flags(x, 16, clsMemAttachGlobal | clsMemAttachHost))               \
  /* Issue 13: stream-ordered allocation */                                    \
  X(malloc_async_null, 0, IV, "CUDA manual cudaMallocAsync" TC,                \
    clsMallocAsync(NULL, 16, x->s))                                            \
  X(malloc_async_zero, 0, OK, "CUDA manual cudaMallocAsync (0 bytes)" TC,      \
    malloc_async_size(x, 0))                                                   \
  X(free_async_null, 0, OK, "docs/semantics.md Memory (H200: Success)",        \
    clsFreeAsync(NULL, x->s))                                                  \
  X(free_async_heap, 0, IV, "CUDA manual cudaFreeAsync" TC,                    \
    clsFreeAsync(x->heap, x->s))                                               \
  X(free_async_pinned, 0, IV, "CUDA manual cudaFreeAsync" TC,                  \
    clsFreeAsync(x->h, x->s))                                                  \
  X(free_async_twice, 0, IV, "CUDA manual cudaFreeAsync" TC,                   \
    free_async_twice(x))                                                       \
  X(free_async_interior, 0, IV, "CUDA manual cudaFreeAsync" TC,                \
    free_async_interior(x))                                                    \
  /* Issue 26: pools, free memory, peers, pitched memory */                    \
  X(pool_default_null, 0, IV, "CUDA manual cudaDeviceGetDefaultMemPool" TC,    \
    clsDeviceGetDefaultMemPool(NULL, 0))                                       \
  X(pool_default_dev, 0, IDEV, "CUDA manual cudaDeviceGetDefaultMemPool" TC,   \
    clsDeviceGetDefaultMemPool((clsMemPool_t *)&x->out_p, x->ndev))            \
  X(pool_attr_null_pool, 0, IV, "H200 cudaMemPoolGetAttribute",                \
    clsMemPoolGetAttribute(NULL, clsMemPoolAttrUsedMemCurrent, &x->u))         \
  X(pool_attr_zero, 0, IV, "H200 cudaMemPoolGetAttribute",                     \
    pool_get(x, 0, &x->u))                                                     \
  X(pool_attr_nine, 0, IV, "H200 cudaMemPoolGetAttribute",                     \
    pool_get(x, 9, &x->u))                                                     \
  X(pool_attr_value_null, 0, IV, "H200 cudaMemPoolGetAttribute",               \
    pool_get(x, clsMemPoolAttrUsedMemCurrent, NULL))                           \
  X(pool_set_current, 0, IV, "H200 cudaMemPoolSetAttribute",                   \
    pool_set(x, clsMemPoolAttrUsedMemCurrent, 0))                              \
  X(pool_set_high_5, 0, IV,                                                    \
    "H200 cudaMemPoolSetAttribute (High: only 0 resets)",                      \
    pool_set(x, clsMemPoolAttrReservedMemHigh, 5))                             \
  X(pool_trim_null, 0, IV, "H200 cudaMemPoolTrimTo",                           \
    clsMemPoolTrimTo(NULL, 0))                                                 \
  X(mem_get_info_null, 0, OK, "H200 cudaMemGetInfo (NULL free: Success)",      \
    clsMemGetInfo(NULL, &g_size_out))                                          \
  X(peer_can_null, 0, IV, "H200 cudaDeviceCanAccessPeer",                      \
    clsDeviceCanAccessPeer(NULL, 0, 0))                                        \
  X(peer_can_dev, 0, IDEV, "H200 cudaDeviceCanAccessPeer",                     \
    clsDeviceCanAccessPeer(&x->i1, 0, x->ndev))                                \
  X(peer_enable_self, 0, clsErrorPeerAccessUnsupported,                        \
    "H200 cudaDeviceEnablePeerAccess (the current device)",                    \
    clsDeviceEnablePeerAccess(x->dev_a, 0))                                    \
  X(peer_enable_flags, 0, IV, "H200 cudaDeviceEnablePeerAccess",               \
    clsDeviceEnablePeerAccess(x->dev_a, 1))                                    \
  X(peer_disable_self, 0, clsErrorPeerAccessNotEnabled,                        \
    "H200 cudaDeviceDisablePeerAccess (the current device)",                   \
    clsDeviceDisablePeerAccess(x->dev_a))                                      \
  X(memcpy_peer_dev, 0, IDEV, "H200 cudaMemcpyPeer",                           \
    clsMemcpyPeer(x->d2, x->ndev, x->d, x->dev_a, 16))                         \
  X(memcpy_peer_host, 0, IV, "H200 cudaMemcpyPeer",                            \
    clsMemcpyPeer(x->host, x->dev_a, x->d, x->dev_a, 16))                      \
  X(malloc_pitch_null, 0, IV, "CUDA manual cudaMallocPitch" TC,                \
    clsMallocPitch(NULL, &g_size_out, 16, 16))                                 \
  X(memcpy2d_width_pitch, 0, clsErrorInvalidPitchValue,                        \
    "H200 cudaMemcpy2D (width > dpitch)",                                      \
    clsMemcpy2D(x->d, 8, x->host, 16, 16, 2, clsMemcpyHostToDevice))           \
  X(memcpy2d_past_end, 0, IV, "H200 cudaMemcpy2D",                             \
    clsMemcpy2D(x->d, 32, x->host, 32, 16, 3, clsMemcpyHostToDevice))          \
  X(memcpy2d_kind, 0, IDIR, "CUDA manual cudaMemcpy2D" TC,                     \
    clsMemcpy2D(x->d, 16, x->host, 16, 16, 1, (clsMemcpyKind)9))               \
  X(memset2d_width_pitch, 0, IV, "H200 cudaMemset2D (width > pitch)",          \
    clsMemset2D(x->d, 8, 0, 16, 2))                                            \
  X(memcpy3d_null, 0, IV, "H200 cudaMemcpy3D", clsMemcpy3D(NULL))              \
  X(memcpy3d_array, 0, clsErrorNotSupported,                                   \
    "clstream: no CUDA arrays (docs/differences.md)", memcpy3d_with_array(x))  \
  X(profiler_start, 0, OK, "CUDA manual cudaProfilerStart",                    \
    clsProfilerStart())                                                        \
  X(profiler_stop, 0, OK, "CUDA manual cudaProfilerStop", clsProfilerStop())   \
  X(hostfn_device_attribute, IN_HOSTFN, NOTPERM, S_ST " (host function)",      \
    clsDeviceGetAttribute(&x->i1, clsDevAttrWarpSize, 0))                      \
  X(hostfn_set_device_flags, IN_HOSTFN, NOTPERM, S_ST " (host function)",      \
    clsSetDeviceFlags(0))                                                      \
  X(hostfn_host_alloc, IN_HOSTFN, NOTPERM, S_ST " (host function)",            \
    host_alloc_flags(x, 16, 0))                                                \
  X(hostfn_host_register, IN_HOSTFN, NOTPERM, S_ST " (host function)",         \
    register_flags(x, 0))                                                      \
  X(hostfn_managed, IN_HOSTFN, NOTPERM, S_ST " (host function)",               \
    managed_flags(x, 16, clsMemAttachGlobal))                                  \
  X(hostfn_malloc_async, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsMallocAsync(&x->out_p, 16, x->s2))                                      \
  X(hostfn_free_async, IN_HOSTFN, NOTPERM, S_ST " (host function)",            \
    clsFreeAsync(x->d2, x->s2))                                                \
  X(hostfn_launch, IN_HOSTFN | NEED_MOD, NOTPERM, S_ST " (host function)",     \
    launch(x, d3(1, 1, 1), d3(1, 1, 1), x->args, 0, x->s2))                    \
  /* Stream capture and graphs */                                              \
  X(cap_begin_bad_mode, 0, IV, S_CAP,                                          \
    clsStreamBeginCapture(x->s, (clsStreamCaptureMode)3))                      \
  X(cap_begin_legacy, 0, UNSUP, S_CAP,                                         \
    clsStreamBeginCapture(NULL, clsStreamCaptureModeGlobal))                   \
  X(cap_begin_twice, 0, ILLEGAL, S_CAP, capture_twice(x))                      \
  X(cap_end_not_capturing, 0, ILLEGAL, S_CAP,                                  \
    clsStreamEndCapture(x->s, (clsGraph_t *)&x->out_p))                        \
  X(cap_end_null_graph, 0, IV, S_CAP, clsStreamEndCapture(x->s, NULL))         \
  X(cap_status_null, 0, IV, S_CAP, clsStreamIsCapturing(x->s, NULL))           \
  X(cap_info_null, 0, IV, S_CAP, clsStreamGetCaptureInfo(x->s, NULL, NULL))    \
  X(cap_exchange_null, NO_FX, IV, S_CAP,                                       \
    clsThreadExchangeStreamCaptureMode(NULL))                                  \
  X(cap_exchange_bad_mode, NO_FX, IV, S_CAP, exchange(7))                      \
  X(graph_create_null, 0, IV, S_CAP, clsGraphCreate(NULL, 0))                  \
  X(graph_create_flags, 0, IV, S_CAP,                                          \
    clsGraphCreate((clsGraph_t *)&x->out_p, 2))                                \
  X(graph_destroy_garbage, 0, IRH, S_CAP,                                      \
    clsGraphDestroy((clsGraph_t)GARBAGE_KIND(5)))                              \
  X(graph_nodes_null_count, 0, IV, S_CAP, on_graph(x, 0))                      \
  X(graph_add_null_node, 0, IV, S_CAP, on_graph(x, 1))                         \
  X(graph_add_foreign_dep, 0, IV, S_CAP, on_graph(x, 2))                       \
  X(graph_kernel_null_params, 0, IV, S_CAP, on_graph(x, 3))                    \
  X(graph_kernel_garbage_func, 0, IRH, S_CAP, on_graph(x, 4))                  \
  X(graph_memcpy_bad_kind, 0, IDIR, S_CAP, on_graph(x, 5))                     \
  X(graph_memcpy_pageable, 0, OK,                                              \
    S_CAP " (pageable memory: CUDA 13 takes it)", on_graph(x, 6))              \
  X(graph_memset_bad_element, 0, IV, S_CAP, on_graph(x, 7))                    \
  X(graph_host_null_fn, 0, IV, S_CAP, on_graph(x, 8))                          \
  X(graph_deps_garbage, 0, IV, S_CAP, on_graph(x, 9))                          \
  X(graph_deps_null, 0, IV, S_CAP, on_graph(x, 10))                            \
  X(graph_instantiate_null_exec, 0, IV, S_CAP, on_graph(x, 11))                \
  X(graph_instantiate_flags, 0, IV, S_CAP, on_graph(x, 12))                    \
  X(graph_destroyed, 0, IRH, S_CAP, on_graph(x, 13))                           \
  X(graph_instantiate_null_graph, 0, IV, S_CAP,                                \
    clsGraphInstantiate((clsGraphExec_t *)&x->out_p, NULL, 0))                 \
  X(graph_instantiate_garbage, 0, IRH, S_CAP,                                  \
    clsGraphInstantiate((clsGraphExec_t *)&x->out_p,                           \
                        (clsGraph_t)GARBAGE_KIND(5), 0))                       \
  X(graph_launch_null_exec, 0, IV, S_CAP, clsGraphLaunch(NULL, x->s))          \
  X(graph_launch_garbage_exec, 0, IRH, S_CAP,                                  \
    clsGraphLaunch((clsGraphExec_t)GARBAGE_KIND(6), x->s))                     \
  X(graph_upload_null_exec, 0, IV, S_CAP, clsGraphUpload(NULL, x->s))          \
  X(graph_exec_destroy_garbage, 0, IRH, S_CAP,                                 \
    clsGraphExecDestroy((clsGraphExec_t)GARBAGE_KIND(6)))                      \
  X(exec_set_params_not_kernel, 0, IV, S_CAP, on_exec(x, 0))                   \
  X(exec_set_params_garbage_node, 0, IV, S_CAP, on_exec(x, 1))                 \
  X(exec_set_params_garbage_exec, 0, IRH, S_CAP, on_exec(x, 2))                \
  X(exec_launch_dead_stream, 0, IRH, S_CAP, on_exec(x, 3))                     \
  X(exec_upload_garbage_stream, 0, IRH, S_CAP, on_exec(x, 4))                  \
  X(hostfn_begin_capture, IN_HOSTFN, NOTPERM, S_ST " (host function)",         \
    clsStreamBeginCapture(x->s2, clsStreamCaptureModeGlobal))                  \
  X(hostfn_graph_create, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsGraphCreate((clsGraph_t *)&x->out_p, 0))                                \
  KCLOCK_ROWS(X)                                                               \
  NATIVE_ROWS(X)                                                               \
  MHOST_ROWS(X)

/* Issue 25 (device queries): kernel attributes, occupancy, and the device
 * attribute numbers CUDA 13 reserves or dropped. */
#define IDF clsErrorInvalidDeviceFunction
#define S_FA "CUDA manual cudaFuncGetAttributes"
#define S_FS "CUDA manual cudaFuncSetAttribute"
#define S_OB "CUDA manual cudaOccupancyMaxActiveBlocksPerMultiprocessor"
#define S_OP "CUDA manual cudaOccupancyMaxPotentialBlockSize"
#define KCLOCK_ROWS(X)                                                         \
  X(funcattr_null, NEED_MOD, IV, S_FA TC, clsFuncGetAttributes(NULL, x->f))    \
  X(funcattr_unloaded, NEED_MOD, IDF, S_FA TC, func_attrs(x->f_dead))          \
  X(funcattr_not_function, NEED_MOD, IDF, S_FA TC,                             \
    func_attrs((clsFunction_t)x->s))                                           \
  X(funcattr_null_function, 0, IDF, S_FA TC, func_attrs(NULL))                 \
  X(funcset_attr_7, NEED_MOD, IV, S_FS " (not an attribute)" TC,               \
    clsFuncSetAttribute(x->f, (clsFuncAttribute)7, 0))                         \
  X(funcset_attr_max, NEED_MOD, IV, S_FS " (not an attribute)" TC,             \
    clsFuncSetAttribute(x->f, clsFuncAttributeMax, 0))                         \
  X(funcset_dyn_negative, NEED_MOD, IV, "H100 cudaFuncSetAttribute",           \
    clsFuncSetAttribute(x->f, clsFuncAttributeMaxDynamicSharedMemorySize, -1)) \
  X(funcset_dyn_huge, NEED_MOD, IV, S_FS TC,                                   \
    clsFuncSetAttribute(x->f, clsFuncAttributeMaxDynamicSharedMemorySize,      \
                        INT_MAX))                                              \
  X(funcset_carveout_101, NEED_MOD, IV, S_FS TC,                               \
    clsFuncSetAttribute(x->f, clsFuncAttributePreferredSharedMemoryCarveout,   \
                        101))                                                  \
  X(funcset_carveout_minus2, NEED_MOD, IV, S_FS TC,                            \
    clsFuncSetAttribute(x->f, clsFuncAttributePreferredSharedMemoryCarveout,   \
                        -2))                                                   \
  X(funcset_unloaded, NEED_MOD, IDF, S_FS TC,                                  \
    clsFuncSetAttribute(x->f_dead,                                             \
                        clsFuncAttributePreferredSharedMemoryCarveout, 0))     \
  X(occ_null, NEED_MOD, IV, S_OB TC,                                           \
    clsOccupancyMaxActiveBlocksPerMultiprocessor(NULL, x->f, 32, 0))           \
  X(occ_block_zero, NEED_MOD, IV,                                              \
    "H100 cudaOccupancyMaxActiveBlocksPerMultiprocessor",                      \
    clsOccupancyMaxActiveBlocksPerMultiprocessor(&x->i1, x->f, 0, 0))          \
  X(occ_block_negative, NEED_MOD, IV, S_OB TC,                                 \
    clsOccupancyMaxActiveBlocksPerMultiprocessor(&x->i1, x->f, -32, 0))        \
  X(occ_unloaded, NEED_MOD, IDF, S_OB TC,                                      \
    clsOccupancyMaxActiveBlocksPerMultiprocessor(&x->i1, x->f_dead, 32, 0))    \
  X(occpot_null_grid, NEED_MOD, IV, S_OP TC,                                   \
    clsOccupancyMaxPotentialBlockSize(NULL, &x->i1, x->f, 0, 0))               \
  X(occpot_null_block, NEED_MOD, IV, S_OP TC,                                  \
    clsOccupancyMaxPotentialBlockSize(&x->i1, NULL, x->f, 0, 0))               \
  X(occpot_limit_negative, NEED_MOD, IV, S_OP TC,                              \
    clsOccupancyMaxPotentialBlockSize(&x->i1, &x->i2, x->f, 0, -1))            \
  X(occpot_unloaded, NEED_MOD, IDF, S_OP TC,                                   \
    clsOccupancyMaxPotentialBlockSize(&x->i1, &x->i2, x->f_dead, 0, 0))        \
  X(hostfn_funcattr, IN_HOSTFN | NEED_MOD, NOTPERM, S_ST " (host function)",   \
    func_attrs(x->f))                                                          \
  X(hostfn_occupancy, IN_HOSTFN | NEED_MOD, NOTPERM, S_ST " (host function)",  \
    clsOccupancyMaxActiveBlocksPerMultiprocessor(&x->i1, x->f, 32, 0))         \
  X(attr_reserved_44, 0, OK, "H200 CUDA 13 runtime (44 reserved: Success)",    \
    clsDeviceGetAttribute(&x->i1, (clsDeviceAttr)44, 0))                       \
  X(attr_dropped_96, 0, OK, "H200 CUDA 13 runtime (96 dropped: Success)",      \
    clsDeviceGetAttribute(&x->i1, (clsDeviceAttr)96, 0))                       \
  X(attr_reserved_122, 0, OK, "H200 CUDA 13 runtime (122 reserved: Success)",  \
    clsDeviceGetAttribute(&x->i1, (clsDeviceAttr)122, 0))                      \
  X(attr_max, 0, IV, "CUDA 13 driver_types.h (cudaDevAttrMax)" TC,             \
    clsDeviceGetAttribute(&x->i1, clsDevAttrMax, 0))

/* Issue 27 (native handles, docs/interop.md): the calls of
 * clstream_opencl.h and clstream_cuda_interop.h (declared above). */
#define NATIVE_ROWS(X)                                                         \
  X(ocl_device_neg, 0, NAT_OCL(IDEV), S_NAT,                                   \
    clsOpenCLGetDevice(-1, NULL, NULL, NULL))                                  \
  X(ocl_device_count, 0, NAT_OCL(IDEV), S_NAT,                                 \
    clsOpenCLGetDevice(x->ndev, NULL, NULL, NULL))                             \
  X(ocl_queue_null, 0, NAT_OCL(IV), S_NAT, clsOpenCLGetQueue(x->s, NULL))      \
  X(native_stream_dead, 0, IRH, S_NAT, native_stream_of(x->s_dead))            \
  X(ocl_event_null, 0, NAT_OCL(IV), S_NAT, clsOpenCLGetEvent(x->e, NULL))      \
  X(native_event_dead, 0, IRH, S_NAT, native_event_of(x->e_dead))              \
  X(ocl_mem_null_out, 0, NAT_OCL(IV), S_NAT,                                   \
    clsOpenCLGetMem(x->d, NULL, NULL))                                         \
  X(ocl_mem_heap, 0, NAT_OCL(IV), S_NAT, native_get_mem(x, x->heap))           \
  X(ocl_mem_pinned, 0, NAT_OCL(IV), S_NAT, native_get_mem(x, x->h))            \
  X(ocl_mem_freed, 0, NAT_OCL(IV), S_NAT, native_get_mem(x, x->d_dead))        \
  X(ocl_stream_from_null, 0, NAT_OCL(IV), S_NAT,                               \
    clsOpenCLStreamCreateFromQueue(&x->out_s, NULL, 0))                        \
  X(ocl_stream_out_null, 0, NAT_OCL(IV), S_NAT,                                \
    clsOpenCLStreamCreateFromQueue(NULL, NULL, 0))                             \
  X(ocl_event_from_null, 0, NAT_OCL(IV), S_NAT,                                \
    clsOpenCLEventCreateFromEvent(&x->out_e, NULL, 0))                         \
  X(ocl_register_null, 0, NAT_OCL(IV), S_NAT,                                  \
    clsOpenCLMemRegister(&x->out_p, NULL))                                     \
  X(ocl_unregister_null, 0, NAT_OCL(IV), S_NAT, clsOpenCLMemUnregister(NULL))  \
  X(ocl_unregister_malloc, 0, NAT_OCL(IV), S_NAT,                              \
    clsOpenCLMemUnregister(x->d))                                              \
  X(ocl_unregister_heap, 0, NAT_OCL(IV), S_NAT,                                \
    clsOpenCLMemUnregister(x->heap))                                           \
  X(cuda_stream_null, 0, NAT_CUDA(IV), S_NAT, clsCUDAGetStream(x->s, NULL))    \
  X(cuda_event_null, 0, NAT_CUDA(IV), S_NAT, clsCUDAGetEvent(x->e, NULL))      \
  X(cuda_stream_from_null, 0, NAT_CUDA(IV), S_NAT,                             \
    clsCUDAStreamCreateFromStream(&x->out_s, NULL, 0))                         \
  X(cuda_event_from_null, 0, NAT_CUDA(IV), S_NAT,                              \
    clsCUDAEventCreateFromEvent(&x->out_e, NULL, 0))

/* Issue 26 (host memory in kernels, managed memory): registered ranges,
 * managed memory's advice, prefetch and range attributes. */
#define MHOST_ROWS(X)                                                          \
  X(host_register_past_end, 0, IV,                                             \
    "docs/semantics.md Host memory (cudaHostRegister past the end)",           \
    register_past_end(x))                                                      \
  X(mem_advise_null, 0, IV, "CUDA manual cudaMemAdvise" TC,                    \
    clsMemAdvise(NULL, 16, clsMemAdviseSetReadMostly,                          \
                 loc_of(clsMemLocationTypeHost, 0)))                           \
  X(mem_advise_device_memory, 0, IV, "CUDA manual cudaMemAdvise" TC,           \
    clsMemAdvise(x->d, 16, clsMemAdviseSetReadMostly,                          \
                 loc_of(clsMemLocationTypeHost, 0)))                           \
  X(mem_advise_count0, 0, IV, "CUDA manual cudaMemAdvise" TC,                  \
    managed_call(x, MC_ADVISE, clsMemAdviseSetReadMostly, loc_dev(), 0, 0))    \
  X(mem_advise_past_end, 0, IV, "CUDA manual cudaMemAdvise" TC,                \
    managed_call(x, MC_ADVISE, clsMemAdviseSetReadMostly, loc_dev(), 65, 0))   \
  X(mem_advise_unknown, 0, IV, "CUDA manual cudaMemAdvise" TC,                 \
    managed_call(x, MC_ADVISE, 7, loc_dev(), 64, 0))                           \
  X(mem_advise_bad_device, 0, IDEV, "CUDA manual cudaMemAdvise" TC,            \
    managed_call(x, MC_ADVISE, clsMemAdviseSetPreferredLocation,               \
                 loc_of(clsMemLocationTypeDevice, 9999), 64, 0))               \
  X(mem_advise_loc_invalid, 0, IV, "CUDA manual cudaMemAdvise" TC,             \
    managed_call(x, MC_ADVISE, clsMemAdviseSetAccessedBy,                      \
                 loc_of(clsMemLocationTypeInvalid, 0), 64, 0))                 \
  X(mem_prefetch_flags, 0, IV, "CUDA manual cudaMemPrefetchAsync" TC,          \
    managed_call(x, MC_PREFETCH, 1, loc_dev(), 64, 0))                         \
  X(mem_prefetch_bad_device, 0, IDEV, "CUDA manual cudaMemPrefetchAsync" TC,   \
    managed_call(x, MC_PREFETCH, 0, loc_of(clsMemLocationTypeDevice, -5), 64,  \
                 0))                                                           \
  X(mem_prefetch_pinned, 0, IV, "CUDA manual cudaMemPrefetchAsync" TC,         \
    clsMemPrefetchAsync(x->h, 16, loc_dev(), 0, x->s))                         \
  X(mem_range_attr_null, 0, IV, "CUDA manual cudaMemRangeGetAttribute" TC,     \
    managed_call(x, MC_RANGE_ATTR_NULL, clsMemRangeAttributeReadMostly,        \
                 loc_dev(), 64, 4))                                            \
  X(mem_range_attr_size, 0, IV, "CUDA manual cudaMemRangeGetAttribute",        \
    managed_call(x, MC_RANGE_ATTR, clsMemRangeAttributeReadMostly, loc_dev(),  \
                 64, 8))                                                       \
  X(mem_range_attr_list0, 0, IV, "CUDA manual cudaMemRangeGetAttribute",       \
    managed_call(x, MC_RANGE_ATTR, clsMemRangeAttributeAccessedBy, loc_dev(),  \
                 64, 0))                                                       \
  X(mem_range_attr_unknown, 0, IV, "CUDA manual cudaMemRangeGetAttribute" TC,  \
    managed_call(x, MC_RANGE_ATTR, 9, loc_dev(), 64, 4))                       \
  X(mem_range_attr_device_memory, 0, IV,                                       \
    "CUDA manual cudaMemRangeGetAttribute" TC,                                 \
    clsMemRangeGetAttribute(&x->i1, 4, clsMemRangeAttributeReadMostly, x->d,   \
                            16))                                               \
  X(hostfn_mem_advise, IN_HOSTFN, NOTPERM, S_ST " (host function)",            \
    clsMemAdvise(x->d, 16, clsMemAdviseSetReadMostly,                          \
                 loc_of(clsMemLocationTypeHost, 0)))                           \
  X(hostfn_mem_prefetch, IN_HOSTFN, NOTPERM, S_ST " (host function)",          \
    clsMemPrefetchAsync(x->d, 16, loc_of(clsMemLocationTypeHost, 0), 0,        \
                        x->s2))

#define X_FN(id, needs, exp, src, call)                                        \
  static clsError_t fixed_##id(fx *x) {                                        \
    (void)x;                                                                   \
    return call;                                                               \
  }
FIXED_ROWS(X_FN)
#undef X_FN

typedef struct fixed_row {
  const char *id;
  unsigned needs;
  clsError_t expect;
  const char *src;
  const char *call;
  clsError_t (*run)(fx *);
} fixed_row;

#define X_ROW(id, needs, exp, src, call)                                       \
  {#id, needs, exp, src, #call, fixed_##id},
static const fixed_row fixed_rows[] = {FIXED_ROWS(X_ROW)};
#undef X_ROW
#define NFIXED (sizeof fixed_rows / sizeof fixed_rows[0])

/* ---- Cross products: users x bad values ---------------------------------- */

/* Every bad handle gives InvalidResourceHandle: issue 3 (destroyed,
 * never-created, wrong-kind), docs/semantics.md (NULL event, destroyed event),
 * CUDA manual ("cudaErrorInvalidResourceHandle: ... an invalid handle, such
 * as a stream or an event"). */
#define SRC_HANDLE                                                             \
  "issue 3 + CUDA manual cudaErrorInvalidResourceHandle (invalid handle)"

typedef struct stream_user {
  const char *call;
  unsigned needs;
  clsError_t (*fn)(fx *, clsStream_t);
} stream_user;
typedef struct bad_stream {
  const char *what;
  unsigned needs;
  clsStream_t (*get)(fx *);
} bad_stream;

static clsError_t su_destroy(fx *x, clsStream_t s) {
  (void)x;
  return clsStreamDestroy(s);
}
static clsError_t su_sync(fx *x, clsStream_t s) {
  (void)x;
  return clsStreamSynchronize(s);
}
static clsError_t su_query(fx *x, clsStream_t s) {
  (void)x;
  return clsStreamQuery(s);
}
static clsError_t su_flags(fx *x, clsStream_t s) {
  return clsStreamGetFlags(s, &x->u);
}
static clsError_t su_prio(fx *x, clsStream_t s) {
  return clsStreamGetPriority(s, &x->i1);
}
static clsError_t su_wait(fx *x, clsStream_t s) {
  return clsStreamWaitEvent(s, x->e_rec, 0);
}
static clsError_t su_callback(fx *x, clsStream_t s) {
  (void)x;
  return clsStreamAddCallback(s, cb_nop, NULL, 0);
}
static clsError_t su_hostfn(fx *x, clsStream_t s) {
  (void)x;
  return clsLaunchHostFunc(s, hf_nop, NULL);
}
static clsError_t su_record(fx *x, clsStream_t s) {
  return clsEventRecord(x->e, s);
}
static clsError_t su_memcpy(fx *x, clsStream_t s) {
  return clsMemcpyAsync(x->h, x->d, 16, clsMemcpyDeviceToHost, s);
}
static clsError_t su_memset(fx *x, clsStream_t s) {
  return clsMemsetAsync(x->d, 0, 16, s);
}
static clsError_t su_launch(fx *x, clsStream_t s) {
  return launch(x, d3(1, 1, 1), d3(1, 1, 1), x->args, 0, s);
}

static clsError_t su_malloc_async(fx *x, clsStream_t s) {
  return clsMallocAsync(&x->out_p, 16, s);
}
/* A stream-ordered allocation freed on the bad stream: it stays the
 * caller's, so it is freed again on a good one. */
static clsError_t su_free_async(fx *x, clsStream_t s) {
  void *p = NULL;
  CK_OK(clsMallocAsync(&p, 16, x->s));
  clsError_t r = clsFreeAsync(p, s);
  if (r != clsSuccess) CK_OK(clsFreeAsync(p, x->s));
  return r;
}

static clsError_t su_begin_capture(fx *x, clsStream_t s) {
  (void)x;
  return clsStreamBeginCapture(s, clsStreamCaptureModeGlobal);
}
static clsError_t su_end_capture(fx *x, clsStream_t s) {
  return clsStreamEndCapture(s, (clsGraph_t *)&x->out_p);
}
static clsError_t su_is_capturing(fx *x, clsStream_t s) {
  clsStreamCaptureStatus st;
  (void)x;
  return clsStreamIsCapturing(s, &st);
}
static clsError_t su_graph_launch(fx *x, clsStream_t s) {
  (void)x;
  clsGraph_t g;
  clsGraphExec_t e;
  CK_OK(clsGraphCreate(&g, 0));
  CK_OK(clsGraphInstantiate(&e, g, 0));
  clsError_t r = clsGraphLaunch(e, s);
  CK_OK(clsGraphExecDestroy(e));
  CK_OK(clsGraphDestroy(g));
  return r;
}

static const stream_user stream_users[] = {
    {"clsStreamDestroy(s)", 0, su_destroy},
    {"clsStreamSynchronize(s)", 0, su_sync},
    {"clsStreamQuery(s)", 0, su_query},
    {"clsStreamGetFlags(s, &flags)", 0, su_flags},
    {"clsStreamGetPriority(s, &priority)", 0, su_prio},
    {"clsStreamWaitEvent(s, recorded, 0)", 0, su_wait},
    {"clsStreamAddCallback(s, cb, NULL, 0)", 0, su_callback},
    {"clsLaunchHostFunc(s, fn, NULL)", 0, su_hostfn},
    {"clsEventRecord(e, s)", 0, su_record},
    {"clsMemcpyAsync(pinned, dev, 16, D2H, s)", 0, su_memcpy},
    {"clsMemsetAsync(dev, 0, 16, s)", 0, su_memset},
    {"clsLaunchKernel(f, 1, 1, args, 0, s)", NEED_MOD, su_launch},
    {"clsMallocAsync(&p, 16, s)", 0, su_malloc_async},
    {"clsFreeAsync(p, s)", 0, su_free_async},
    {"clsMemPrefetchAsync(managed, 64, device, 0, s)", 0, su_prefetch},
    /* Stream capture and graphs */
    {"clsStreamBeginCapture(s, Global)", 0, su_begin_capture},
    {"clsStreamEndCapture(s, &graph)", 0, su_end_capture},
    {"clsStreamIsCapturing(s, &status)", 0, su_is_capturing},
    {"clsGraphLaunch(exec, s)", 0, su_graph_launch},
};

static clsStream_t bs_destroyed(fx *x) { return x->s_dead; }
static clsStream_t bs_garbage(fx *x) {
  (void)x;
  return (clsStream_t)GARBAGE;
}
static clsStream_t bs_garbage_kind(fx *x) {
  (void)x;
  return (clsStream_t)GARBAGE_KIND(1);
}
static clsStream_t bs_free_slot(fx *x) {
  (void)x;
  return (clsStream_t)FREE_SLOT(1);
}
static clsStream_t bs_stale(fx *x) { return (clsStream_t)STALE(x->s); }
static clsStream_t bs_event(fx *x) { return (clsStream_t)x->e; }
static clsStream_t bs_module(fx *x) { return (clsStream_t)x->m; }
static clsStream_t bs_function(fx *x) { return (clsStream_t)x->f; }
static clsStream_t bs_ones(fx *x) {
  (void)x;
  return (clsStream_t)ALL_ONES;
}

static const bad_stream bad_streams[] = {
    {"a destroyed stream", 0, bs_destroyed},
    {"garbage 0xdeadbeef0", 0, bs_garbage},
    {"garbage 0xdeadbeef1", 0, bs_garbage_kind},
    {"a never-created handle in a free slot", 0, bs_free_slot},
    {"a live stream's handle with another generation", 0, bs_stale},
    {"an event passed as a stream", 0, bs_event},
    {"a module passed as a stream", NEED_MOD, bs_module},
    {"a function passed as a stream", NEED_MOD, bs_function},
    {"all-ones", 0, bs_ones},
};

typedef struct event_user {
  const char *call;
  clsError_t (*fn)(fx *, clsEvent_t);
} event_user;
typedef struct bad_event {
  const char *what;
  unsigned needs;
  clsEvent_t (*get)(fx *);
} bad_event;

static clsError_t eu_destroy(fx *x, clsEvent_t e) {
  (void)x;
  return clsEventDestroy(e);
}
static clsError_t eu_record(fx *x, clsEvent_t e) {
  return clsEventRecord(e, x->s);
}
static clsError_t eu_record_legacy(fx *x, clsEvent_t e) {
  (void)x;
  return clsEventRecord(e, NULL);
}
static clsError_t eu_query(fx *x, clsEvent_t e) {
  (void)x;
  return clsEventQuery(e);
}
static clsError_t eu_sync(fx *x, clsEvent_t e) {
  (void)x;
  return clsEventSynchronize(e);
}
static clsError_t eu_elapsed_start(fx *x, clsEvent_t e) {
  return clsEventElapsedTime(&x->ms, e, x->e_rec);
}
static clsError_t eu_elapsed_end(fx *x, clsEvent_t e) {
  return clsEventElapsedTime(&x->ms, x->e_rec, e);
}
static clsError_t eu_wait(fx *x, clsEvent_t e) {
  return clsStreamWaitEvent(x->s, e, 0);
}

static const event_user event_users[] = {
    {"clsEventDestroy(e)", eu_destroy},
    {"clsEventRecord(e, s)", eu_record},
    {"clsEventRecord(e, NULL)", eu_record_legacy},
    {"clsEventQuery(e)", eu_query},
    {"clsEventSynchronize(e)", eu_sync},
    {"clsEventElapsedTime(&ms, e, recorded)", eu_elapsed_start},
    {"clsEventElapsedTime(&ms, recorded, e)", eu_elapsed_end},
    {"clsStreamWaitEvent(s, e, 0)", eu_wait},
};

static clsEvent_t be_null(fx *x) {
  (void)x;
  return NULL;
}
static clsEvent_t be_destroyed(fx *x) { return x->e_dead; }
static clsEvent_t be_garbage(fx *x) {
  (void)x;
  return (clsEvent_t)GARBAGE;
}
static clsEvent_t be_garbage_kind(fx *x) {
  (void)x;
  return (clsEvent_t)GARBAGE_KIND(2);
}
static clsEvent_t be_free_slot(fx *x) {
  (void)x;
  return (clsEvent_t)FREE_SLOT(2);
}
static clsEvent_t be_stale(fx *x) { return (clsEvent_t)STALE(x->e); }
static clsEvent_t be_stream(fx *x) { return (clsEvent_t)x->s; }
static clsEvent_t be_legacy(fx *x) {
  (void)x;
  return (clsEvent_t)clsStreamLegacy;
}
static clsEvent_t be_per_thread(fx *x) {
  (void)x;
  return (clsEvent_t)clsStreamPerThread;
}
static clsEvent_t be_module(fx *x) { return (clsEvent_t)x->m; }
static clsEvent_t be_ones(fx *x) {
  (void)x;
  return (clsEvent_t)ALL_ONES;
}

static const bad_event bad_events[] = {
    {"NULL", 0, be_null},
    {"a destroyed event", 0, be_destroyed},
    {"garbage 0xdeadbeef0", 0, be_garbage},
    {"garbage 0xdeadbeef2", 0, be_garbage_kind},
    {"a never-created handle in a free slot", 0, be_free_slot},
    {"a live event's handle with another generation", 0, be_stale},
    {"a stream passed as an event", 0, be_stream},
    {"clsStreamLegacy passed as an event", 0, be_legacy},
    {"clsStreamPerThread passed as an event", 0, be_per_thread},
    {"a module passed as an event", NEED_MOD, be_module},
    {"all-ones", 0, be_ones},
};

typedef struct module_user {
  const char *call;
  clsError_t (*fn)(fx *, clsModule_t);
} module_user;
typedef struct bad_module {
  const char *what;
  clsModule_t (*get)(fx *);
} bad_module;

static clsError_t mu_unload(fx *x, clsModule_t m) {
  (void)x;
  return clsModuleUnload(m);
}
static clsError_t mu_get_function(fx *x, clsModule_t m) {
  return clsModuleGetFunction(&x->out_f, m, "fill");
}
static const module_user module_users[] = {
    {"clsModuleUnload(m)", mu_unload},
    {"clsModuleGetFunction(&f, m, \"fill\")", mu_get_function},
};

static clsModule_t bm_null(fx *x) {
  (void)x;
  return NULL;
}
static clsModule_t bm_unloaded(fx *x) { return x->m_dead; }
static clsModule_t bm_garbage(fx *x) {
  (void)x;
  return (clsModule_t)GARBAGE;
}
static clsModule_t bm_garbage_kind(fx *x) {
  (void)x;
  return (clsModule_t)GARBAGE_KIND(3);
}
static clsModule_t bm_free_slot(fx *x) {
  (void)x;
  return (clsModule_t)FREE_SLOT(3);
}
static clsModule_t bm_stale(fx *x) { return (clsModule_t)STALE(x->m); }
static clsModule_t bm_stream(fx *x) { return (clsModule_t)x->s; }
static clsModule_t bm_event(fx *x) { return (clsModule_t)x->e; }
static clsModule_t bm_function(fx *x) { return (clsModule_t)x->f; }

static const bad_module bad_modules[] = {
    {"NULL", bm_null},
    {"an unloaded module", bm_unloaded},
    {"garbage 0xdeadbeef0", bm_garbage},
    {"garbage 0xdeadbeef3", bm_garbage_kind},
    {"a never-created handle in a free slot", bm_free_slot},
    {"a live module's handle with another generation", bm_stale},
    {"a stream passed as a module", bm_stream},
    {"an event passed as a module", bm_event},
    {"a function passed as a module", bm_function},
};

typedef struct bad_function {
  const char *what;
  clsFunction_t (*get)(fx *);
} bad_function;

static clsFunction_t bf_null(fx *x) {
  (void)x;
  return NULL;
}
static clsFunction_t bf_unloaded(fx *x) { return x->f_dead; }
static clsFunction_t bf_garbage(fx *x) {
  (void)x;
  return (clsFunction_t)GARBAGE;
}
static clsFunction_t bf_garbage_kind(fx *x) {
  (void)x;
  return (clsFunction_t)GARBAGE_KIND(4);
}
static clsFunction_t bf_free_slot(fx *x) {
  (void)x;
  return (clsFunction_t)FREE_SLOT(4);
}
static clsFunction_t bf_stale(fx *x) { return (clsFunction_t)STALE(x->f); }
static clsFunction_t bf_module(fx *x) { return (clsFunction_t)x->m; }
static clsFunction_t bf_stream(fx *x) { return (clsFunction_t)x->s; }
static clsFunction_t bf_event(fx *x) { return (clsFunction_t)x->e; }

static const bad_function bad_functions[] = {
    {"NULL", bf_null},
    {"a function of an unloaded module", bf_unloaded},
    {"garbage 0xdeadbeef0", bf_garbage},
    {"garbage 0xdeadbeef4", bf_garbage_kind},
    {"a never-created handle in a free slot", bf_free_slot},
    {"a live function's handle with another generation", bf_stale},
    {"a module passed as a function", bf_module},
    {"a stream passed as a function", bf_stream},
    {"an event passed as a function", bf_event},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define N_SU N_OF(stream_users)
#define N_BS N_OF(bad_streams)
#define N_EU N_OF(event_users)
#define N_BE N_OF(bad_events)
#define N_MU N_OF(module_users)
#define N_BM N_OF(bad_modules)
#define N_BF N_OF(bad_functions)
#define NCASES (NFIXED + N_SU * N_BS + N_EU * N_BE + N_MU * N_BM + N_BF)

/* One case, resolved from its index. */
typedef struct bcase {
  char name[200];
  const char *call;
  const char *src;
  clsError_t expect;
  unsigned needs;
  const fixed_row *fixed;
  const stream_user *su;
  const bad_stream *bs;
  const event_user *eu;
  const bad_event *be;
  const module_user *mu;
  const bad_module *bm;
  const bad_function *bf;
} bcase;

static void case_at(size_t i, bcase *c) {
  memset(c, 0, sizeof *c);
  c->src = SRC_HANDLE;
  c->expect = IRH;
  if (i < NFIXED) {
    c->fixed = &fixed_rows[i];
    snprintf(c->name, sizeof c->name, "%s", c->fixed->id);
    c->call = c->fixed->call;
    c->src = c->fixed->src;
    c->expect = c->fixed->expect;
    c->needs = c->fixed->needs;
    return;
  }
  i -= NFIXED;
  if (i < N_SU * N_BS) {
    c->su = &stream_users[i / N_BS];
    c->bs = &bad_streams[i % N_BS];
    c->call = c->su->call;
    c->needs = c->su->needs | c->bs->needs;
    snprintf(c->name, sizeof c->name, "%s with s = %s", c->su->call,
             c->bs->what);
    return;
  }
  i -= N_SU * N_BS;
  if (i < N_EU * N_BE) {
    c->eu = &event_users[i / N_BE];
    c->be = &bad_events[i % N_BE];
    c->call = c->eu->call;
    c->needs = c->be->needs;
    snprintf(c->name, sizeof c->name, "%s with e = %s", c->eu->call,
             c->be->what);
    return;
  }
  i -= N_EU * N_BE;
  if (i < N_MU * N_BM) {
    c->mu = &module_users[i / N_BM];
    c->bm = &bad_modules[i % N_BM];
    c->call = c->mu->call;
    c->needs = NEED_MOD;
    snprintf(c->name, sizeof c->name, "%s with m = %s", c->mu->call,
             c->bm->what);
    return;
  }
  i -= N_MU * N_BM;
  c->bf = &bad_functions[i];
  c->call = "clsLaunchKernel(f, 1, 1, args, 0, s)";
  c->needs = NEED_MOD;
  snprintf(c->name, sizeof c->name, "%s with f = %s", c->call, c->bf->what);
}

static clsError_t case_call(const bcase *c, fx *x) {
  if (c->fixed) return c->fixed->run(x);
  if (c->su) return c->su->fn(x, c->bs->get(x));
  if (c->eu) return c->eu->fn(x, c->be->get(x));
  if (c->mu) return c->mu->fn(x, c->bm->get(x));
  return clsLaunchKernel(c->bf->get(x), d3(1, 1, 1), d3(1, 1, 1), x->args, 0,
                         x->s);
}

/* ---- Fixture --------------------------------------------------------------
 */

static void fx_setup(fx *x, unsigned needs, int dev_a, int dev_b) {
  memset(x, 0, sizeof *x);
  x->dev_a = dev_a;
  x->dev_b = dev_b;
  CK_OK(clsGetDeviceCount(&x->ndev));
  if (needs & NEED_TWO) CK_OK(clsSetDevice(x->dev_a));
  int cur = -1;
  CK_OK(clsGetDevice(&cur));
  CK_OK(clsGetDeviceProperties(&x->prop, cur));
  CK_OK(clsStreamCreate(&x->s));
  CK_OK(clsStreamCreate(&x->s2));
  CK_OK(clsStreamCreate(&x->s_dead));
  CK_OK(clsStreamDestroy(x->s_dead));
  CK_OK(clsEventCreate(&x->e));
  CK_OK(clsEventCreate(&x->e_spare));
  CK_OK(clsEventCreate(&x->e_rec));
  CK_OK(clsEventCreateWithFlags(&x->e_nt, clsEventDisableTiming));
  CK_OK(clsEventCreate(&x->e_dead));
  CK_OK(clsEventDestroy(x->e_dead));
  CK_OK(clsMalloc(&x->d, DEV_BYTES));
  CK_OK(clsMalloc(&x->d2, DEV2_BYTES));
  CK_OK(clsMallocHost(&x->h, DEV_BYTES));
  x->heap = malloc(DEV_BYTES);
  ck_assert_ptr_nonnull(x->heap);
  memset(x->host, 7, sizeof x->host);
  CK_OK(clsMemset(x->d, 0, DEV_BYTES));
  CK_OK(clsMemset(x->d2, 0, DEV2_BYTES));
  CK_OK(clsEventRecord(x->e_rec, x->s));
  CK_OK(clsEventRecord(x->e_nt, x->s));
  CK_OK(clsStreamSynchronize(x->s));
  if (needs & NEED_MOD) {
    arith_load(&x->ar);
    x->m = x->ar.mod;
    x->f = x->ar.fill;
    CK_OK(clsModuleLoadData(&x->m_dead, cls_kernel_arith, NULL));
    CK_OK(clsModuleGetFunction(&x->f_dead, x->m_dead, "fill"));
    CK_OK(clsModuleUnload(x->m_dead));
  }
  x->karg_t = x->d;
  x->karg_v = 1;
  x->karg_n = 0; /* no launch writes anything */
  x->args[0] = &x->karg_t;
  x->args[1] = &x->karg_v;
  x->args[2] = &x->karg_n;
  if (needs & NEED_TWO) {
    CK_OK(clsSetDevice(x->dev_b));
    CK_OK(clsStreamCreate(&x->s_b));
    CK_OK(clsEventCreate(&x->e_b));
    CK_OK(clsMalloc(&x->d_b, DEV_BYTES));
    CK_OK(clsEventRecord(x->e_b, x->s_b));
    CK_OK(clsEventSynchronize(x->e_b));
    CK_OK(clsSetDevice(x->dev_a));
  }
  /* Freed last, so that no later allocation of the fixture (which the
   * driver may place at the same address) brings the pointer back. */
  CK_OK(clsMalloc(&x->d_dead, DEV_BYTES));
  CK_OK(clsFree(x->d_dead));
  CK_OK(clsGetLastError()); /* nothing failed so far */
}

static void fx_teardown(fx *x) {
  CK_OK(clsDeviceSynchronize());
  if (x->s_b) {
    CK_OK(clsStreamSynchronize(x->s_b));
    CK_OK(clsStreamDestroy(x->s_b));
  }
  if (x->e_b) CK_OK(clsEventDestroy(x->e_b));
  if (x->d_b) CK_OK(clsFree(x->d_b));
  if (x->ar.mod) arith_unload(&x->ar);
  CK_OK(clsStreamSynchronize(x->s));
  CK_OK(clsStreamDestroy(x->s));
  if (x->s2) {
    CK_OK(clsStreamSynchronize(x->s2));
    CK_OK(clsStreamDestroy(x->s2));
  }
  CK_OK(clsEventDestroy(x->e));
  if (x->e_spare) CK_OK(clsEventDestroy(x->e_spare));
  CK_OK(clsEventDestroy(x->e_rec));
  CK_OK(clsEventDestroy(x->e_nt));
  CK_OK(clsFree(x->d));
  if (x->d2) CK_OK(clsFree(x->d2));
  if (x->h) CK_OK(clsFreeHost(x->h));
  free(x->heap);
}

/* ---- Calls from a host function ----------------------------------------- */

typedef struct hf_call {
  const bcase *c;
  fx *x;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  clsError_t got;
} hf_call;

static void hf_call_fn(void *p) {
  hf_call *h = p;
  clsError_t r = case_call(h->c, h->x);
  pthread_mutex_lock(&h->mu);
  h->got = r;
  h->done = 1;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

/* Runs the case's call in a host function on x->s and returns its code; a
 * call that does not return within 20 s (a deadlock: e.g. synchronizing
 * the stream the host function holds) fails the case by name. */
static clsError_t run_in_host_fn(const bcase *c, fx *x, int index) {
  static hf_call h; /* outlives a host function that never returns */
  memset(&h, 0, sizeof h);
  h.c = c;
  h.x = x;
  pthread_mutex_init(&h.mu, NULL);
  pthread_cond_init(&h.cv, NULL);
  CK_OK(clsLaunchHostFunc(x->s, hf_call_fn, &h));
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += 20;
  pthread_mutex_lock(&h.mu);
  while (!h.done)
    if (pthread_cond_timedwait(&h.cv, &h.mu, &dl) != 0) break;
  int done = h.done;
  clsError_t got = h.got;
  pthread_mutex_unlock(&h.mu);
  ck_assert_msg(done,
                "case %d %s: %s did not return within 20 s when called "
                "from a host function (deadlock)",
                index, c->name, c->call);
  CK_OK(clsStreamSynchronize(x->s));
  return got;
}

/* ---- The test --------------------------------------------------------------
 */

static fx the_fx;

/* CLSTREAM_BADINPUT_CASE: run only the cases whose name contains it. */
static const char *only_case;

START_TEST(bad_input) {
  bcase c;
  case_at((size_t)_i, &c);
  if (only_case && !strstr(c.name, only_case)) return;
  fx *x = &the_fx;
  memset(x, 0, sizeof *x);
  if (c.needs & NO_FX) {
    clsError_t got = case_call(&c, x);
    ck_assert_msg(got == c.expect, "case %d %s: %s: expected %s, got %s (%s)",
                  _i, c.name, c.call, clsGetErrorName(c.expect),
                  clsGetErrorName(got), c.src);
    return;
  }
  int a = 0, b = 0;
  if (c.needs & NEED_TWO) {
    if (!two_devices(c.name, &a, &b)) return;
  }
  fx_setup(x, c.needs, a, b);
  clsError_t got =
      (c.needs & IN_HOSTFN) ? run_in_host_fn(&c, x, _i) : case_call(&c, x);
  if (got == SKIPPED) {
    printf("SKIP case %d %s: cannot be built on this device\n", _i, c.name);
    fx_teardown(x);
    return;
  }
  ck_assert_msg(got == c.expect,
                "case %d %s: %s: expected %s, got %s (%d) "
                "(source: %s)",
                _i, c.name, c.call, clsGetErrorName(c.expect),
                clsGetErrorName(got), (int)got, c.src);
  if (!(c.needs & IN_HOSTFN)) {
    clsError_t want = c.expect == clsSuccess || c.expect == clsErrorNotReady
                          ? clsSuccess
                          : c.expect;
    clsError_t last = clsGetLastError();
    ck_assert_msg(last == want,
                  "case %d %s: %s returned %s but left %s as "
                  "the last error (docs/semantics.md Errors)",
                  _i, c.name, c.call, clsGetErrorName(got),
                  clsGetErrorName(last));
  }
  fx_teardown(x);
}
END_TEST

/* Lists the cases (CLSTREAM_BADINPUT_LIST=1), for the report. */
static void list_cases(void) {
  for (size_t i = 0; i < NCASES; i++) {
    bcase c;
    case_at(i, &c);
    printf("%3zu  %-28s  %-16s  %s | %s\n", i, clsGetErrorName(c.expect),
           c.fixed ? c.fixed->id : "", c.name, c.src);
  }
}

int main(void) {
  /* Two devices for the cross-device rows (PoCL's CPU split in two); set
   * before the first clstream call of every (forked) test, and for
   * CK_FORK=no runs too. */
  setenv("CLSTREAM_SPLIT_DEVICES", "2", 1);
  only_case = getenv("CLSTREAM_BADINPUT_CASE");
  if (only_case && !*only_case) only_case = NULL;
  const char *l = getenv("CLSTREAM_BADINPUT_LIST");
  if (l && *l && strcmp(l, "0") != 0) {
    list_cases();
    return 0;
  }
  printf("badinput: %zu cases (%zu rows, %zu stream, %zu event, %zu module, "
         "%zu function handle cases)\n",
         (size_t)NCASES, (size_t)NFIXED, (size_t)(N_SU * N_BS),
         (size_t)(N_EU * N_BE), (size_t)(N_MU * N_BM), (size_t)N_BF);
  /* CLSTREAM_BADINPUT_SHARD=i/n runs the i-th of n equal slices of the
   * cases (CTest runs four side by side: each forked case opens the
   * device again, which takes most of a second on a GPU). */
  int lo = 0, hi = (int)NCASES;
  const char *sh = getenv("CLSTREAM_BADINPUT_SHARD");
  unsigned si, sn;
  if (sh && sscanf(sh, "%u/%u", &si, &sn) == 2 && sn > 0 && si < sn) {
    lo = (int)(NCASES * si / sn);
    hi = (int)(NCASES * (si + 1) / sn);
    printf("badinput: shard %u of %u, cases %d..%d\n", si, sn, lo, hi - 1);
  }
  Suite *s = suite_create("badinput");
  TCase *tc = tcase_timed("badinput", 60);
  tcase_add_loop_test(tc, bad_input, lo, hi);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
