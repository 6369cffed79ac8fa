/*
 * The raw OpenCL side of clstream-bench (the OpenCL build): each scenario as
 * a competent hand-written OpenCL program would do the same work on the
 * same device.  Like clstream, it uses in-order queues with profiling on
 * and coarse-grained SVM from clSVMAlloc.  An "event" is the cl_event of
 * the newest marker (the previous one released when it is replaced); a
 * queue is flushed where another queue waits on its work; where the host
 * waits, clWaitForEvents / clFinish flush implicitly.  Kernel arguments are
 * set on every launch, as a launch with its arguments (cudaLaunchKernel)
 * maps onto clSetKernelArg* + clEnqueueNDRangeKernel.
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "multi.h"
#include "raw.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                               \
  do {                                                                         \
    cl_int ck_err_ = (call);                                                   \
    if (ck_err_ != CL_SUCCESS)                                                 \
      return raw_fail("%s:%d: %s -> %d", __FILE__, __LINE__, #call, ck_err_);  \
  } while (0)

static cl_device_id dev;
static cl_context ctx;
static cl_program prog;
static cl_kernel k_fill, k_spin;
static int *buf; /* SVM, 4 KiB; with buffers, the base of fake addresses */
/* CLSTREAM_MEMORY=buffers: the raw side uses a cl_mem buffer (and
 * sub-buffers at the OFF_* offsets) instead of SVM, as clstream does on
 * its buffer path, so the two compare on the same kind of memory. */
static int use_buffers;
static cl_mem mbuf;
static struct {
  size_t off;
  cl_mem mem;
} subs[4];
static int fake_base[1024]; /* never dereferenced: offsets only */
static int host_src[1024];  /* the copies' source */

/* Scenario state. */
static cl_command_queue qA, qB, qL;
static cl_command_queue qx[64];
static unsigned nqx;
static cl_event evA, evB; /* the two "events": newest marker, retained */
static unsigned spin_iters;
static double last_elapsed_ms;
static int counter;

/* ---- opening ------------------------------------------------------------ */

static int info_str(cl_platform_id p, cl_device_id d, cl_uint what, char *out,
                    size_t n) {
  size_t got = 0;
  cl_int e = p ? clGetPlatformInfo(p, what, n, out, &got)
               : clGetDeviceInfo(d, what, n, out, &got);
  if (e != CL_SUCCESS) {
    out[0] = 0;
    return -1;
  }
  out[n - 1] = 0;
  return 0;
}

int raw_open(const char *device, const char *platform, int nth,
             const char *source, raw_info *info, char *err, size_t errlen) {
  cl_uint np = 0;
  cl_platform_id plats[16];
  cl_platform_id plat = NULL;
  int seen = 0;
  cl_int e;

  memset(info, 0, sizeof *info);
  snprintf(info->api, sizeof info->api, "OpenCL");
  dev = NULL;
  if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0) {
    snprintf(err, errlen, "no OpenCL platform");
    return -1;
  }
  if (np > 16) np = 16;
  for (cl_uint i = 0; i < np && !dev; ++i) {
    char pname[256];
    cl_uint nd = 0;
    cl_device_id devs[64];
    info_str(plats[i], NULL, CL_PLATFORM_NAME, pname, sizeof pname);
    if (strcmp(pname, platform) != 0) continue;
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 64, devs, &nd) !=
        CL_SUCCESS)
      continue;
    if (nd > 64) nd = 64;
    for (cl_uint j = 0; j < nd; ++j) {
      char dname[256];
      info_str(NULL, devs[j], CL_DEVICE_NAME, dname, sizeof dname);
      if (strcmp(dname, device) == 0 && seen++ == nth) {
        dev = devs[j];
        plat = plats[i];
        break;
      }
    }
  }
  if (!dev) {
    snprintf(err, errlen,
             "raw OpenCL: no device named '%s' on platform '%s' (match %d)",
             device, platform, nth);
    return -1;
  }
  info_str(NULL, dev, CL_DEVICE_NAME, info->device, sizeof info->device);
  info_str(plat, NULL, CL_PLATFORM_NAME, info->platform, sizeof info->platform);
  info_str(NULL, dev, CL_DRIVER_VERSION, info->driver, sizeof info->driver);
  info_str(plat, NULL, CL_PLATFORM_VERSION, info->version,
           sizeof info->version);

  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
  if (!ctx) {
    snprintf(err, errlen, "clCreateContext -> %d", e);
    return -1;
  }
  prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &e);
  if (!prog || clBuildProgram(prog, 1, &dev, NULL, NULL, NULL) != CL_SUCCESS) {
    char log[2048] = "";
    if (prog)
      clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                            NULL);
    log[sizeof log - 1] = 0;
    snprintf(err, errlen, "raw OpenCL: build failed: %s", log);
    return -1;
  }
  k_fill = clCreateKernel(prog, "fill", &e);
  k_spin = clCreateKernel(prog, "spin", &e);
  const char *mem = getenv("CLSTREAM_MEMORY");
  cl_device_svm_capabilities svm = 0;
  use_buffers = mem && !strcmp(mem, "buffers");
  /* A device without coarse-grained SVM (rusticl): buffers, as clstream
   * takes them there. */
  if (clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm,
                      NULL) != CL_SUCCESS ||
      !(svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
    use_buffers = 1;
  if (use_buffers) {
    mbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &e);
    buf = mbuf ? fake_base : NULL;
    size_t offs[] = {0, OFF_B, OFF_SPIN, OFF_IDLE};
    for (int i = 0; i < 4 && buf; ++i) {
      cl_buffer_region r = {offs[i] * sizeof(int),
                            4096 - offs[i] * sizeof(int)};
      subs[i].off = offs[i];
      subs[i].mem =
          i == 0 ? mbuf
                 : clCreateSubBuffer(mbuf, CL_MEM_READ_WRITE,
                                     CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
      if (!subs[i].mem) buf = NULL;
    }
  } else {
    buf = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 4096, 0);
  }
  if (!k_fill || !k_spin || !buf) {
    snprintf(err, errlen, "raw OpenCL: kernels or SVM allocation failed");
    return -1;
  }
  return 0;
}

void raw_close(void) {
  if (use_buffers) {
    for (int i = 1; i < 4; ++i)
      if (subs[i].mem) clReleaseMemObject(subs[i].mem);
    if (mbuf) clReleaseMemObject(mbuf);
    mbuf = NULL;
  } else if (buf) {
    clSVMFree(ctx, buf);
  }
  if (k_fill) clReleaseKernel(k_fill);
  if (k_spin) clReleaseKernel(k_spin);
  if (prog) clReleaseProgram(prog);
  if (ctx) clReleaseContext(ctx);
  buf = NULL;
  k_fill = k_spin = NULL;
  prog = NULL;
  ctx = NULL;
}

/* ---- helpers --------------------------------------------------------------
 */

static cl_command_queue new_queue(void) {
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                 0};
  cl_int e;
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
  if (!q) raw_fail("clCreateCommandQueueWithProperties -> %d", e);
  return q;
}

/* Sets pointer argument i of k to t: SVM, or the (sub-)buffer at t. */
static cl_int set_ptr(cl_kernel k, cl_uint i, int *t) {
  if (!use_buffers) return clSetKernelArgSVMPointer(k, i, t);
  for (int j = 0; j < 4; ++j)
    if (buf + subs[j].off == t)
      return clSetKernelArg(k, i, sizeof(cl_mem), &subs[j].mem);
  return CL_INVALID_ARG_VALUE;
}

/* For raw_graph_opencl.c (the graph rows): this file's device, program
 * and memory, and a read of the buffer's first int. */
void raw_cl_handles(cl_context *c, cl_device_id *d, cl_program *p);
cl_int raw_cl_set_ptr(cl_kernel k, cl_uint i, int *t);
cl_int raw_cl_read_first(cl_command_queue q, int *out);
int *raw_cl_buf(void);

void raw_cl_handles(cl_context *c, cl_device_id *d, cl_program *p) {
  *c = ctx;
  *d = dev;
  *p = prog;
}
cl_int raw_cl_set_ptr(cl_kernel k, cl_uint i, int *t) {
  return set_ptr(k, i, t);
}
int *raw_cl_buf(void) { return buf; }
cl_int raw_cl_read_first(cl_command_queue q, int *out) {
  if (use_buffers)
    return clEnqueueReadBuffer(q, mbuf, CL_TRUE, 0, sizeof *out, out, 0, NULL,
                               NULL);
  return clEnqueueSVMMemcpy(q, CL_TRUE, out, buf, sizeof *out, 0, NULL, NULL);
}

/* The 4-byte host-to-device copy of SC_COPY_RECORD_SYNC. */
static int copy_in(cl_command_queue q) {
  host_src[0] = ++counter;
  if (use_buffers)
    CK(clEnqueueWriteBuffer(q, mbuf, CL_FALSE, 0, 4, host_src, 0, NULL, NULL));
  else
    CK(clEnqueueSVMMemcpy(q, CL_FALSE, buf, host_src, 4, 0, NULL, NULL));
  return 0;
}

/* fill(t, v, 1) with one work-item: the "tiny kernel". */
static int launch_fill(cl_command_queue q, int *t, cl_uint nwait,
                       const cl_event *wait) {
  int v = ++counter;
  unsigned n = 1;
  size_t g = 1, l = 1;
  CK(set_ptr(k_fill, 0, t));
  CK(clSetKernelArg(k_fill, 1, sizeof v, &v));
  CK(clSetKernelArg(k_fill, 2, sizeof n, &n));
  CK(clEnqueueNDRangeKernel(q, k_fill, 1, NULL, &g, &l, nwait, wait, NULL));
  return 0;
}

/* "Record": a marker whose event replaces the previous one. */
static int record(cl_command_queue q, cl_event *ev) {
  cl_event m;
  CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m));
  if (*ev) clReleaseEvent(*ev);
  *ev = m;
  return 0;
}

static int wait_ev(cl_event ev) {
  CK(clWaitForEvents(1, &ev));
  return 0;
}

/* ---- host functions: marker -> callback -> worker thread -> user event -- */

typedef struct hf_job {
  struct hf_job *next;
  cl_event user; /* gates the queue until the function has run */
  void (*fn)(void *);
  void *arg;
} hf_job;

static pthread_t hf_thread;
static pthread_mutex_t hf_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hf_cond = PTHREAD_COND_INITIALIZER;
static hf_job *hf_head, *hf_tail;
static int hf_stop, hf_running;
static volatile unsigned hf_calls;

static void host_fn(void *arg) { ++*(volatile unsigned *)arg; }

static void *hf_worker(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&hf_lock);
    while (!hf_head && !hf_stop) pthread_cond_wait(&hf_cond, &hf_lock);
    hf_job *j = hf_head;
    if (j) {
      hf_head = j->next;
      if (!hf_head) hf_tail = NULL;
    }
    pthread_mutex_unlock(&hf_lock);
    if (!j) return NULL; /* stopping, queue drained */
    j->fn(j->arg);
    clSetUserEventStatus(j->user, CL_COMPLETE);
    clReleaseEvent(j->user);
    free(j);
  }
}

/* Runs on whichever thread completes the marker: no OpenCL call, no user
 * code here, only the hand-off. */
static void CL_CALLBACK hf_callback(cl_event ev, cl_int status, void *p) {
  (void)ev;
  (void)status;
  hf_job *j = p;
  j->next = NULL;
  pthread_mutex_lock(&hf_lock);
  if (hf_tail)
    hf_tail->next = j;
  else
    hf_head = j;
  hf_tail = j;
  pthread_cond_signal(&hf_cond);
  pthread_mutex_unlock(&hf_lock);
}

static int launch_host_fn(cl_command_queue q, void (*fn)(void *), void *arg) {
  cl_int e;
  cl_event m;
  hf_job *j = malloc(sizeof *j);
  if (!j) return raw_fail("out of memory");
  j->fn = fn;
  j->arg = arg;
  j->user = clCreateUserEvent(ctx, &e);
  if (!j->user) {
    free(j);
    return raw_fail("clCreateUserEvent -> %d", e);
  }
  CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m));
  CK(clEnqueueBarrierWithWaitList(q, 1, &j->user, NULL));
  CK(clSetEventCallback(m, CL_COMPLETE, hf_callback, j));
  clReleaseEvent(m);
  return 0;
}

/* ---- scenarios ---------------------------------------------------------- */

static void release_all(void) {
  if (evA) clReleaseEvent(evA);
  if (evB) clReleaseEvent(evB);
  evA = evB = NULL;
  if (qA) clFinish(qA), clReleaseCommandQueue(qA);
  if (qB) clFinish(qB), clReleaseCommandQueue(qB);
  if (qL) clFinish(qL), clReleaseCommandQueue(qL);
  qA = qB = qL = NULL;
  for (unsigned i = 0; i < nqx; ++i) clReleaseCommandQueue(qx[i]);
  nqx = 0;
}

static unsigned legacy_streams(int sc) {
  return sc == SC_LEGACY_1 ? 1 : sc == SC_LEGACY_8 ? 8 : 64;
}

int raw_setup(int sc, unsigned param) {
  if (bench_multi_sc(sc)) return raw_multi_setup(sc);
  switch (sc) {
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    if (!(qL = new_queue())) return -1;
    nqx = 0;
    for (unsigned i = 0; i < legacy_streams(sc); ++i) {
      /* Idle streams that have done some work. */
      if (!(qx[i] = new_queue())) return -1;
      nqx = i + 1;
      if (launch_fill(qx[i], buf + OFF_IDLE, 0, NULL)) return -1;
      CK(clFinish(qx[i]));
    }
    return 0;
  case SC_PINGPONG:
  case SC_PINGPONG_TIMED:
    if (!(qB = new_queue())) return -1;
    /* fall through */
  default:
    if (!(qA = new_queue())) return -1;
    break;
  }
  if (sc == SC_HOSTFN && !hf_running) {
    hf_stop = 0;
    if (pthread_create(&hf_thread, NULL, hf_worker, NULL) != 0)
      return raw_fail("pthread_create failed");
    hf_running = 1;
  }
  if (sc == SC_ELAPSED) spin_iters = param;
  if (sc == SC_QUERY_DONE || sc == SC_SYNC_DONE) {
    if (record(qA, &evA) || wait_ev(evA)) return -1;
  }
  return 0;
}

int raw_reset(int sc) {
  if (bench_multi_sc(sc)) return raw_multi_reset(sc);
  switch (sc) {
  case SC_RECORD_IDLE:
    if (evA) CK(clWaitForEvents(1, &evA));
    return 0;
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    CK(clFinish(qL));
    return 0;
  default:
    return 0;
  }
}

int raw_run(int sc, unsigned inner) {
  if (bench_multi_sc(sc)) return raw_multi_run(sc, inner);
  cl_int st;
  switch (sc) {
  case SC_RECORD_IDLE:
    for (unsigned i = 0; i < inner; ++i)
      if (record(qA, &evA)) return -1;
    return 0;
  case SC_QUERY_DONE:
    for (unsigned i = 0; i < inner; ++i) {
      CK(clGetEventInfo(evA, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                        NULL));
      if (st != CL_COMPLETE) return raw_fail("query_done: not complete");
    }
    return 0;
  case SC_SYNC_DONE:
    for (unsigned i = 0; i < inner; ++i) CK(clWaitForEvents(1, &evA));
    return 0;
  case SC_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i)
      if (record(qA, &evA) || wait_ev(evA)) return -1;
    return 0;
  case SC_KERNEL_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i)
      if (launch_fill(qA, buf, 0, NULL) || record(qA, &evA) || wait_ev(evA))
        return -1;
    return 0;
  case SC_ALLOC_ASYNC:
    /* Without a pool, memory a kernel used may be freed only once the
     * kernel is done (clSVMFree does not wait). */
    for (unsigned i = 0; i < inner; ++i) {
      int *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64u << 10, 0);
      if (!p) return raw_fail("clSVMAlloc failed");
      if (launch_fill(qA, p, 0, NULL)) return -1;
      CK(clFinish(qA));
      clSVMFree(ctx, p);
    }
    return 0;
  case SC_COPY_RECORD_SYNC:
    for (unsigned i = 0; i < inner; ++i)
      if (copy_in(qA) || record(qA, &evA) || wait_ev(evA)) return -1;
    return 0;
  case SC_PINGPONG:
  case SC_PINGPONG_TIMED:
    for (unsigned i = 0; i < inner; ++i) {
      if (launch_fill(qA, buf, 0, NULL) || record(qA, &evA)) return -1;
      CK(clFlush(qA)); /* qB waits on evA */
      CK(clEnqueueBarrierWithWaitList(qB, 1, &evA, NULL));
      if (launch_fill(qB, buf + OFF_B, 0, NULL) || record(qB, &evB) ||
          wait_ev(evB))
        return -1;
    }
    return 0;
  case SC_HOSTFN:
    for (unsigned i = 0; i < inner; ++i) {
      unsigned before = hf_calls;
      if (launch_host_fn(qA, host_fn, (void *)&hf_calls)) return -1;
      CK(clFinish(qA));
      if (hf_calls != before + 1) return raw_fail("hostfn: did not run");
    }
    return 0;
  case SC_LEGACY_1:
  case SC_LEGACY_8:
  case SC_LEGACY_64:
    /* The streams are known idle: a raw program just launches. */
    for (unsigned i = 0; i < inner; ++i)
      if (launch_fill(qL, buf, 0, NULL)) return -1;
    return 0;
  case SC_ELAPSED: {
    cl_event m0 = NULL;
    cl_ulong t0, t1;
    unsigned iters = spin_iters;
    size_t g = 1, l = 1;
    if (record(qA, &m0)) return -1;
    CK(set_ptr(k_spin, 0, buf + OFF_SPIN));
    CK(clSetKernelArg(k_spin, 1, sizeof iters, &iters));
    CK(clEnqueueNDRangeKernel(qA, k_spin, 1, NULL, &g, &l, 0, NULL, NULL));
    if (record(qA, &evA) || wait_ev(evA)) return -1;
    CK(clGetEventProfilingInfo(m0, CL_PROFILING_COMMAND_END, sizeof t0, &t0,
                               NULL));
    CK(clGetEventProfilingInfo(evA, CL_PROFILING_COMMAND_END, sizeof t1, &t1,
                               NULL));
    clReleaseEvent(m0);
    last_elapsed_ms = (double)(t1 - t0) / 1e6;
    return 0;
  }
  case SC_FLAT_MEMORY:
    for (unsigned i = 0; i < inner; ++i) {
      if (record(qA, &evA)) return -1;
      CK(clGetEventInfo(evA, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                        NULL));
      if ((i & 1023) == 1023 && wait_ev(evA)) return -1;
    }
    return 0;
  default:
    return raw_fail("unknown scenario %d", sc);
  }
}

void raw_teardown(int sc) {
  if (bench_multi_sc(sc)) {
    raw_multi_teardown(sc);
    return;
  }
  release_all(); /* waits for queued host functions: before the worker stops */
  if (sc == SC_HOSTFN && hf_running) {
    pthread_mutex_lock(&hf_lock);
    hf_stop = 1;
    pthread_cond_signal(&hf_cond);
    pthread_mutex_unlock(&hf_lock);
    pthread_join(hf_thread, NULL);
    hf_running = 0;
  }
}

double raw_elapsed_ms(void) { return last_elapsed_ms; }
