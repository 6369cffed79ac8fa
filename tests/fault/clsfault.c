/*
 * libclsfault.so: an LD_PRELOAD shim over libOpenCL that makes the Nth
 * OpenCL call fail, for fault-injection tests of clstream.
 *
 * It wraps the OpenCL entry points clstream uses that can fail (creation,
 * enqueue, wait, flush, info queries, callbacks, SVM allocation, build,
 * and the buffer path's read, write, copy, fill, sub-buffer and 1.x queue
 * creation);
 * retain/release and clSVMFree are passed through uncounted.  Each wrapper
 * finds the real function with dlsym(RTLD_NEXT).
 *
 * Environment:
 *   CLSFAULT_N=<n>       the nth counted call fails (1-based; 0: none)
 *   CLSFAULT_CODE=<int>  the cl_int it returns (default CL_OUT_OF_RESOURCES);
 *                        creators return NULL and store it in errcode_ret,
 *                        clSVMAlloc returns NULL
 *   CLSFAULT_FUNC=<name> count only calls of that function
 *   CLSFAULT_EVERY=1     every counted call from the nth on fails, not only
 *                        the nth (with CLSFAULT_FUNC=clGetKernelArgInfo and
 *                        CLSFAULT_CODE=-19: a driver that keeps no argument
 *                        info, CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
 *   CLSFAULT_STATUS=<int> with CLSFAULT_FUNC=clSetUserEventStatus: instead
 *                        of failing the call, pass this (negative) execution
 *                        status to the real function, so that the commands
 *                        waiting on the user event fail
 *   CLSFAULT_COUNT=1     print the number of counted calls at exit
 *   CLSFAULT_REPORT=<file> append "count <n>" at exit and
 *                        "inject <n> <function>" when a call is failed
 *   CLSFAULT_TRACE=1     print every counted call with its number
 *   CLSFAULT_ARMED=0     start disarmed: nothing is counted until the
 *                        program calls clsfault_arm() (found with dlsym);
 *                        default armed
 *   CLSFAULT_SVM_ARGS=stick  enforce NVIDIA's rule for kernel argument
 *                        forms: an enqueue of a kernel with a buffer on an
 *                        argument that once held an SVM pointer fails with
 *                        CL_INVALID_KERNEL_ARGS (argforms.c)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argforms.h"

#define API __attribute__((visibility("default")))

static atomic_long cls_count;
static atomic_int cls_armed = 1;
static long cls_n;
static int cls_every;
static cl_int cls_code = CL_OUT_OF_RESOURCES;
static const char *cls_func;
static int cls_status_mode;
static cl_int cls_status;
static int cls_print;
static const char *cls_report;
static int cls_trace;

static void cls_report_line(const char *fmt, long a, const char *b) {
  if (!cls_report) return;
  FILE *f = fopen(cls_report, "a");
  if (!f) return;
  fprintf(f, fmt, a, b);
  fclose(f);
}

static void cls_at_exit(void) {
  long n = atomic_load(&cls_count);
  if (cls_print) fprintf(stderr, "clsfault: %ld OpenCL calls counted\n", n);
  cls_report_line("count %ld%s\n", n, "");
}

__attribute__((constructor)) static void cls_init(void) {
  const char *v;
  if ((v = getenv("CLSFAULT_N"))) cls_n = atol(v);
  if ((v = getenv("CLSFAULT_CODE"))) cls_code = (cl_int)atoi(v);
  if ((v = getenv("CLSFAULT_FUNC")) && *v) cls_func = v;
  if ((v = getenv("CLSFAULT_EVERY"))) cls_every = atoi(v) != 0;
  if ((v = getenv("CLSFAULT_STATUS"))) {
    cls_status_mode = 1;
    cls_status = (cl_int)atoi(v);
  }
  if ((v = getenv("CLSFAULT_COUNT"))) cls_print = atoi(v) != 0;
  if ((v = getenv("CLSFAULT_REPORT")) && *v) cls_report = v;
  if ((v = getenv("CLSFAULT_TRACE"))) cls_trace = atoi(v) != 0;
  if ((v = getenv("CLSFAULT_ARMED"))) atomic_store(&cls_armed, atoi(v) != 0);
  atexit(cls_at_exit);
}

/* Called by a test program (through dlsym) when the part under test
 * starts; returns the calls counted so far (0). */
API long clsfault_arm(void) {
  atomic_store(&cls_armed, 1);
  return atomic_load(&cls_count);
}
API long clsfault_disarm(void) {
  atomic_store(&cls_armed, 0);
  return atomic_load(&cls_count);
}
API long clsfault_count(void) { return atomic_load(&cls_count); }

/* Re-configures at run time (for test programs that inject several
 * faults, one per forked test): resets the count and arms.  `func` may be
 * NULL (every function); with status_mode, a matching
 * clSetUserEventStatus call passes `status` instead of failing. */
API void clsfault_config(long n, int code, const char *func, int status_mode,
                         int status) {
  static char fbuf[128];
  atomic_store(&cls_armed, 0);
  cls_n = n;
  cls_code = (cl_int)code;
  if (func) {
    snprintf(fbuf, sizeof fbuf, "%s", func);
    cls_func = fbuf;
  } else {
    cls_func = NULL;
  }
  cls_status_mode = status_mode;
  cls_status = (cl_int)status;
  atomic_store(&cls_count, 0);
  atomic_store(&cls_armed, 1);
}

/* Counts a call of `name`; non-zero when this call is the one to fail. */
static int cls_hit(const char *name) {
  if (!atomic_load(&cls_armed)) return 0;
  if (cls_func && strcmp(cls_func, name) != 0) return 0;
  long k = atomic_fetch_add(&cls_count, 1) + 1;
  if (cls_trace) fprintf(stderr, "clsfault: call %ld %s\n", k, name);
  if (cls_n <= 0 || k < cls_n || (k > cls_n && !cls_every)) return 0;
  cls_report_line("inject %ld %s\n", k, name);
  return 1;
}

static void *cls_real(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    fprintf(stderr, "clsfault: %s not found\n", name);
    abort();
  }
  return p;
}

#define REAL(name)                                                             \
  /* Atomic: several library threads may make the first call at once. */       \
  static __typeof__(&name) _Atomic real_atomic_;                               \
  __typeof__(&name) real_ =                                                    \
      atomic_load_explicit(&real_atomic_, memory_order_acquire);               \
  if (!real_) {                                                                \
    real_ = (__typeof__(&name))cls_real(#name);                                \
    atomic_store_explicit(&real_atomic_, real_, memory_order_release);         \
  }

/* ---- Simulated failed commands ------------------------------------------
 *
 * clsfault_fail_commands(n, status, cb_mode) makes the shim behave as a
 * conformant driver whose nth enqueued command (counting clEnqueue* calls
 * from then on; 0: none) ends with execution status `status` (< 0), and
 * that fails every command that depends on a failed one: through its wait
 * list or as a later command of the same in-order queue.  A user event set
 * to a negative status is failed the same way (the real event is set to
 * CL_COMPLETE: PoCL 3.1 aborts in pocl_update_event_failed when a user
 * event with dependent commands is set to an error).  The commands still
 * run; what changes is what the application observes:
 *   clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS): `status` once the
 *     command is complete;
 *   clWaitForEvents: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
 *   CL_COMPLETE callbacks: called with `status` (cb_mode 0, the OpenCL
 *     specification) or never called (cb_mode 1, what PoCL does). */
typedef struct sim_ev {
  cl_event ev;
  cl_command_queue q;
  struct sim_ev *prev_in_q; /* the queue's previous command */
  struct sim_ev **deps;
  unsigned ndeps;
  cl_int failed; /* 0, or the status it failed with (monotonic) */
  struct sim_ev *next;
} sim_ev;

static pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
/* Read without sim_lock on the wrappers' fast paths (by driver and library
 * threads too), so atomic. */
static atomic_int sim_on;
static long sim_n, sim_enqueues;
static cl_int sim_status = -9999;
static int sim_cb_mode;
static sim_ev *sim_all;
static struct {
  cl_command_queue q;
  sim_ev *last;
} sim_q[256];
static unsigned sim_nq;

static sim_ev *sim_find(cl_event e) {
  for (sim_ev *x = sim_all; x; x = x->next)
    if (x->ev == e) return x;
  return NULL;
}

/* Under sim_lock.  Failure is monotonic, so a positive answer is kept. */
static cl_int sim_failed(sim_ev *x, int depth) {
  if (!x || depth > 100000) return 0;
  if (x->failed) return x->failed;
  for (unsigned i = 0; i < x->ndeps; ++i) {
    cl_int f = sim_failed(x->deps[i], depth + 1);
    if (f) return x->failed = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  }
  if (x->prev_in_q && sim_failed(x->prev_in_q, depth + 1))
    return x->failed = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return 0;
}

static cl_int sim_event_failed(cl_event e) {
  if (!atomic_load(&sim_on) || !e) return 0;
  pthread_mutex_lock(&sim_lock);
  cl_int f = sim_failed(sim_find(e), 0);
  pthread_mutex_unlock(&sim_lock);
  return f;
}

static cl_int (*sim_retain)(cl_event);

/* Records an enqueued command (q may be NULL for user events). */
static void sim_track(cl_command_queue q, cl_uint n, const cl_event *w,
                      cl_event ev, int counts) {
  if (!atomic_load(&sim_on) || !ev) return;
  pthread_mutex_lock(&sim_lock);
  sim_ev *x = calloc(1, sizeof *x);
  x->ev = ev;
  if (!sim_retain)
    sim_retain = (cl_int(*)(cl_event))dlsym(RTLD_NEXT, "clRetainEvent");
  sim_retain(ev); /* keep the handle from being reused */
  x->q = q;
  if (n) {
    x->deps = calloc(n, sizeof *x->deps);
    for (cl_uint i = 0; i < n; ++i) {
      sim_ev *d = sim_find(w[i]);
      if (d) x->deps[x->ndeps++] = d;
    }
  }
  if (q) {
    unsigned i = 0;
    while (i < sim_nq && sim_q[i].q != q) ++i;
    if (i == sim_nq && sim_nq < 256) sim_q[sim_nq++].q = q;
    if (i < 256) {
      x->prev_in_q = sim_q[i].last;
      sim_q[i].last = x;
    }
  }
  if (counts && sim_n > 0 && ++sim_enqueues == sim_n) x->failed = sim_status;
  x->next = sim_all;
  sim_all = x;
  pthread_mutex_unlock(&sim_lock);
}

API void clsfault_fail_commands(long n, int status, int cb_mode) {
  pthread_mutex_lock(&sim_lock);
  sim_n = n;
  sim_enqueues = 0;
  sim_status = (cl_int)status;
  sim_cb_mode = cb_mode;
  atomic_store(&sim_on, 1);
  pthread_mutex_unlock(&sim_lock);
}

typedef struct sim_tramp {
  void(CL_CALLBACK *cb)(cl_event, cl_int, void *);
  void *user;
} sim_tramp;

static void CL_CALLBACK sim_tramp_fn(cl_event e, cl_int st, void *p) {
  sim_tramp *t = p;
  cl_int f = st == CL_COMPLETE ? sim_event_failed(e) : 0;
  if (f && sim_cb_mode == 1) { /* PoCL: no CL_COMPLETE callback */
    free(t);
    return;
  }
  t->cb(e, f ? f : st, t->user);
  free(t);
}

/* A function returning cl_int. */
#define WRAP_INT(name, params, args)                                           \
  API cl_int name params {                                                     \
    REAL(name);                                                                \
    if (cls_hit(#name)) return cls_code;                                       \
    return real_ args;                                                         \
  }

/* A creator returning an object and storing its code in errcode_ret. */
#define WRAP_OBJ(type, name, params, args)                                     \
  API type name params {                                                       \
    REAL(name);                                                                \
    if (cls_hit(#name)) {                                                      \
      if (errcode_ret) *errcode_ret = cls_code;                                \
      return NULL;                                                             \
    }                                                                          \
    return real_ args;                                                         \
  }

WRAP_INT(clGetPlatformIDs, (cl_uint n, cl_platform_id *p, cl_uint *np),
         (n, p, np))
WRAP_INT(clGetPlatformInfo,
         (cl_platform_id p, cl_platform_info i, size_t s, void *v, size_t *r),
         (p, i, s, v, r))
WRAP_INT(clGetDeviceIDs,
         (cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d,
          cl_uint *nd),
         (p, t, n, d, nd))
WRAP_INT(clGetDeviceInfo,
         (cl_device_id d, cl_device_info i, size_t s, void *v, size_t *r),
         (d, i, s, v, r))
WRAP_INT(clCreateSubDevices,
         (cl_device_id d, const cl_device_partition_property *p, cl_uint n,
          cl_device_id *o, cl_uint *no),
         (d, p, n, o, no))
WRAP_OBJ(cl_context, clCreateContext,
         (const cl_context_properties *p, cl_uint n, const cl_device_id *d,
          void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *),
          void *u, cl_int *errcode_ret),
         (p, n, d, cb, u, errcode_ret))
WRAP_OBJ(cl_command_queue, clCreateCommandQueueWithProperties,
         (cl_context c, cl_device_id d, const cl_queue_properties *p,
          cl_int *errcode_ret),
         (c, d, p, errcode_ret))
WRAP_OBJ(cl_command_queue, clCreateCommandQueue,
         (cl_context c, cl_device_id d, cl_command_queue_properties p,
          cl_int *errcode_ret),
         (c, d, p, errcode_ret))
WRAP_OBJ(cl_mem, clCreateSubBuffer,
         (cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *i,
          cl_int *errcode_ret),
         (b, f, t, i, errcode_ret))
WRAP_OBJ(cl_program, clCreateProgramWithSource,
         (cl_context c, cl_uint n, const char **s, const size_t *l,
          cl_int *errcode_ret),
         (c, n, s, l, errcode_ret))
WRAP_INT(clBuildProgram,
         (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
          void(CL_CALLBACK *cb)(cl_program, void *), void *u),
         (p, n, d, o, cb, u))
WRAP_INT(clGetProgramBuildInfo,
         (cl_program p, cl_device_id d, cl_program_build_info i, size_t s,
          void *v, size_t *r),
         (p, d, i, s, v, r))
API cl_kernel clCreateKernel(cl_program p, const char *n, cl_int *errcode_ret) {
  REAL(clCreateKernel);
  if (cls_hit("clCreateKernel")) {
    if (errcode_ret) *errcode_ret = cls_code;
    return NULL;
  }
  cl_kernel k = real_(p, n, errcode_ret);
  if (clsfault_forms_on()) clsfault_forms_created(k);
  return k;
}
WRAP_INT(clGetKernelInfo,
         (cl_kernel k, cl_kernel_info i, size_t s, void *v, size_t *r),
         (k, i, s, v, r))
WRAP_INT(clGetKernelArgInfo,
         (cl_kernel k, cl_uint a, cl_kernel_arg_info i, size_t s, void *v,
          size_t *r),
         (k, a, i, s, v, r))
WRAP_INT(clGetKernelWorkGroupInfo,
         (cl_kernel k, cl_device_id d, cl_kernel_work_group_info i, size_t s,
          void *v, size_t *r),
         (k, d, i, s, v, r))
API cl_int clSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v) {
  REAL(clSetKernelArg);
  if (cls_hit("clSetKernelArg")) return cls_code;
  cl_int r = real_(k, i, s, v);
  if (r == CL_SUCCESS && clsfault_forms_on()) clsfault_forms_set(k, i, 0, s);
  return r;
}
API cl_int clSetKernelArgSVMPointer(cl_kernel k, cl_uint i, const void *v) {
  REAL(clSetKernelArgSVMPointer);
  if (cls_hit("clSetKernelArgSVMPointer")) return cls_code;
  cl_int r = real_(k, i, v);
  if (r == CL_SUCCESS && clsfault_forms_on()) clsfault_forms_set(k, i, 1, 0);
  return r;
}
WRAP_OBJ(cl_mem, clCreateBuffer,
         (cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *errcode_ret),
         (c, f, s, h, errcode_ret))
WRAP_INT(clEnqueueUnmapMemObject,
         (cl_command_queue q, cl_mem m, void *p, cl_uint n, const cl_event *w,
          cl_event *e),
         (q, m, p, n, w, e))
WRAP_INT(clFlush, (cl_command_queue q), (q))
WRAP_INT(clFinish, (cl_command_queue q), (q))
/* Native handles (docs/interop.md): what clstream asks of the program's
 * queues and buffers. */
WRAP_INT(clGetCommandQueueInfo,
         (cl_command_queue q, cl_command_queue_info i, size_t s, void *v,
          size_t *r),
         (q, i, s, v, r))
WRAP_INT(clGetMemObjectInfo,
         (cl_mem m, cl_mem_info i, size_t s, void *v, size_t *r),
         (m, i, s, v, r))
WRAP_INT(clGetEventProfilingInfo,
         (cl_event e, cl_profiling_info i, size_t s, void *v, size_t *r),
         (e, i, s, v, r))

/* Enqueues: `ev` is the caller's event pointer (may be NULL). */
#define WRAP_ENQ(name, params, args, q, n, w, evp)                             \
  API cl_int name params {                                                     \
    REAL(name);                                                                \
    if (cls_hit(#name)) return cls_code;                                       \
    cl_event own_ = NULL;                                                      \
    cl_event *out_ = (evp) ? (evp) : atomic_load(&sim_on) ? &own_ : NULL;      \
    cl_int r_ = real_ args;                                                    \
    if (r_ == CL_SUCCESS && out_) {                                            \
      sim_track(q, n, w, *out_, 1);                                            \
      if (own_) {                                                              \
        static cl_int (*rel_)(cl_event);                                       \
        if (!rel_)                                                             \
          rel_ = (cl_int(*)(cl_event))dlsym(RTLD_NEXT, "clReleaseEvent");      \
        rel_(own_);                                                            \
      }                                                                        \
    }                                                                          \
    return r_;                                                                 \
  }
#define out_arg (out_)

/* The kernel enqueue: as WRAP_ENQ, but for the rule of argforms.c when it
 * is on. */
API cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint d,
                                  const size_t *o, const size_t *g,
                                  const size_t *l, cl_uint n, const cl_event *w,
                                  cl_event *e) {
  REAL(clEnqueueNDRangeKernel);
  if (cls_hit("clEnqueueNDRangeKernel")) return cls_code;
  if (clsfault_forms_on() && clsfault_forms_refused(k))
    return CL_INVALID_KERNEL_ARGS;
  cl_event own_ = NULL;
  cl_event *out_ = e ? e : atomic_load(&sim_on) ? &own_ : NULL;
  cl_int r_ = real_(q, k, d, o, g, l, n, w, out_);
  if (r_ == CL_SUCCESS && out_) {
    sim_track(q, n, w, *out_, 1);
    if (own_) {
      static cl_int (*rel_)(cl_event);
      if (!rel_) rel_ = (cl_int(*)(cl_event))dlsym(RTLD_NEXT, "clReleaseEvent");
      rel_(own_);
    }
  }
  return r_;
}
WRAP_ENQ(clEnqueueMarkerWithWaitList,
         (cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e),
         (q, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueBarrierWithWaitList,
         (cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e),
         (q, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueSVMMemcpy,
         (cl_command_queue q, cl_bool b, void *d, const void *s, size_t sz,
          cl_uint n, const cl_event *w, cl_event *e),
         (q, b, d, s, sz, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueSVMMigrateMem,
         (cl_command_queue q, cl_uint np, const void **p, const size_t *sz,
          cl_mem_migration_flags f, cl_uint n, const cl_event *w, cl_event *e),
         (q, np, p, sz, f, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueSVMMemFill,
         (cl_command_queue q, void *p, const void *pat, size_t ps, size_t sz,
          cl_uint n, const cl_event *w, cl_event *e),
         (q, p, pat, ps, sz, n, w, out_arg), q, n, w, e)

WRAP_ENQ(clEnqueueReadBuffer,
         (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t sz, void *p,
          cl_uint n, const cl_event *w, cl_event *e),
         (q, m, b, o, sz, p, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueWriteBuffer,
         (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t sz,
          const void *p, cl_uint n, const cl_event *w, cl_event *e),
         (q, m, b, o, sz, p, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueCopyBuffer,
         (cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof,
          size_t sz, cl_uint n, const cl_event *w, cl_event *e),
         (q, s, d, so, dof, sz, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueCopyBufferRect,
         (cl_command_queue q, cl_mem s, cl_mem d, const size_t *so,
          const size_t *dof, const size_t *r, size_t srp, size_t ssp,
          size_t drp, size_t dsp, cl_uint n, const cl_event *w, cl_event *e),
         (q, s, d, so, dof, r, srp, ssp, drp, dsp, n, w, out_arg), q, n, w, e)
WRAP_ENQ(clEnqueueFillBuffer,
         (cl_command_queue q, cl_mem m, const void *pat, size_t ps, size_t o,
          size_t sz, cl_uint n, const cl_event *w, cl_event *e),
         (q, m, pat, ps, o, sz, n, w, out_arg), q, n, w, e)

API cl_int clWaitForEvents(cl_uint n, const cl_event *l) {
  REAL(clWaitForEvents);
  if (cls_hit("clWaitForEvents")) return cls_code;
  cl_int r = real_(n, l);
  if (r == CL_SUCCESS)
    for (cl_uint i = 0; i < n; ++i)
      if (sim_event_failed(l[i]))
        return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return r;
}

API cl_int clGetEventInfo(cl_event e, cl_event_info i, size_t s, void *v,
                          size_t *r) {
  REAL(clGetEventInfo);
  if (cls_hit("clGetEventInfo")) return cls_code;
  cl_int err = real_(e, i, s, v, r);
  if (err == CL_SUCCESS && i == CL_EVENT_COMMAND_EXECUTION_STATUS && v &&
      s >= sizeof(cl_int) && *(cl_int *)v == CL_COMPLETE) {
    cl_int f = sim_event_failed(e);
    if (f) *(cl_int *)v = f;
  }
  return err;
}

API cl_int clSetEventCallback(cl_event e, cl_int t,
                              void(CL_CALLBACK *cb)(cl_event, cl_int, void *),
                              void *u) {
  REAL(clSetEventCallback);
  if (cls_hit("clSetEventCallback")) return cls_code;
  if (!atomic_load(&sim_on) || t != CL_COMPLETE) return real_(e, t, cb, u);
  sim_tramp *tr = malloc(sizeof *tr);
  if (!tr) return CL_OUT_OF_HOST_MEMORY;
  tr->cb = cb;
  tr->user = u;
  cl_int r = real_(e, t, sim_tramp_fn, tr);
  if (r != CL_SUCCESS) free(tr);
  return r;
}

API cl_event clCreateUserEvent(cl_context c, cl_int *errcode_ret) {
  REAL(clCreateUserEvent);
  if (cls_hit("clCreateUserEvent")) {
    if (errcode_ret) *errcode_ret = cls_code;
    return NULL;
  }
  cl_event e = real_(c, errcode_ret);
  if (e) sim_track(NULL, 0, NULL, e, 0);
  return e;
}

API cl_int clSetUserEventStatus(cl_event e, cl_int st) {
  REAL(clSetUserEventStatus);
  if (cls_hit("clSetUserEventStatus")) {
    if (!cls_status_mode) return cls_code;
    st = cls_status;
  }
  if (st < 0 && atomic_load(&sim_on)) {
    /* Fail it in the shim's view only (see above). */
    pthread_mutex_lock(&sim_lock);
    sim_ev *x = sim_find(e);
    if (x) x->failed = st;
    pthread_mutex_unlock(&sim_lock);
    if (x) return real_(e, CL_COMPLETE);
  }
  return real_(e, st);
}

API void *clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                             cl_map_flags f, size_t o, size_t s, cl_uint n,
                             const cl_event *w, cl_event *e,
                             cl_int *errcode_ret) {
  REAL(clEnqueueMapBuffer);
  if (cls_hit("clEnqueueMapBuffer")) {
    if (errcode_ret) *errcode_ret = cls_code;
    return NULL;
  }
  return real_(q, m, b, f, o, s, n, w, e, errcode_ret);
}

API void *clSVMAlloc(cl_context c, cl_svm_mem_flags f, size_t s, cl_uint a) {
  REAL(clSVMAlloc);
  if (cls_hit("clSVMAlloc")) return NULL;
  return real_(c, f, s, a);
}
