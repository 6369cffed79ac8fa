/*
 * libclsrefs.so: an LD_PRELOAD shim over libOpenCL that checks the
 * library's own references to its events, command queues, programs and
 * kernels.
 *
 * An object starts with one reference when the driver hands it out (an
 * enqueue's event, clCreateUserEvent, a queue, program or kernel
 * creation); a retain adds one, a release takes one away.  Once the
 * program's count is 0 it has no right to the object (the driver may
 * have freed it), so the shim reports:
 *   - a release of an object the program holds no reference to;
 *   - any use of such an object: an event's status or profiling query, a
 *     wait, a callback, a user event's status, a command's wait list; a
 *     command, flush or finish on a queue; a build, query or kernel
 *     creation on a program; an argument, query or launch of a kernel;
 *   - a use or release of an object the shim never saw handed out.
 * The driver's own references are not counted: a report means the
 * program would depend on the driver still holding one.  Handles the
 * driver reuses for a new object start counting again.
 *
 * clsrefs_programs() (found with dlsym) says how many programs the
 * program holds now, for tests of when the library lets one go.
 *
 * Each report goes to stderr with the calling thread's backtrace.
 * Environment: CLSREFS_ABORT=1 aborts at the first report;
 * CLSREFS_QUIET=1 prints only the summary.  At exit: "clsrefs: N objects,
 * M reports" (the exit status is then 97 if M > 0, so that CTest sees the
 * failure).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

/* ---- The table: event -> the program's references --------------------- */

typedef struct {
  const void *ev; /* the handle; NULL: empty slot */
  long refs;      /* 0: released by the program */
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *tab;
static size_t cap, used;
static atomic_long nobjects, nreports;
static atomic_long nprograms; /* programs with references left */
static int abort_first, quiet;

static size_t hash(const void *ev) {
  uintptr_t x = (uintptr_t)ev;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

/* The slot of ev, or a free slot for it (lock held). */
static slot *find(const void *ev) {
  size_t i = hash(ev) & (cap - 1);
  while (tab[i].ev && tab[i].ev != ev) i = (i + 1) & (cap - 1);
  return &tab[i];
}

static void grow(void) {
  size_t ncap = cap ? cap * 2 : 4096;
  slot *old = tab;
  size_t ocap = cap;
  tab = calloc(ncap, sizeof *tab);
  if (!tab) abort();
  cap = ncap;
  for (size_t i = 0; i < ocap; ++i)
    if (old[i].ev) *find(old[i].ev) = old[i];
  free(old);
}

static void report(const char *what, const char *fn, const void *ev) {
  atomic_fetch_add(&nreports, 1);
  if (quiet && !abort_first) return;
  char line[256];
  int n = snprintf(line, sizeof line, "clsrefs: %s: %s(%p)\n", what, fn, ev);
  if (n > 0) (void)!write(2, line, (size_t)n);
  void *frames[32];
  int k = backtrace(frames, 32);
  backtrace_symbols_fd(frames + 1, k - 1, 2);
  if (abort_first) abort();
}

/* ev was handed out by the driver: the program holds one reference. */
static void born(const void *ev) {
  if (!ev) return;
  pthread_mutex_lock(&lock);
  if ((used + 1) * 2 > cap) grow();
  slot *s = find(ev);
  if (!s->ev) used++;
  s->ev = ev;
  s->refs = 1;
  pthread_mutex_unlock(&lock);
  atomic_fetch_add(&nobjects, 1);
}

/* Adds `delta` (+1 retain, -1 release, 0 use) to ev's count; reports what
 * the program had no right to do. */
static long touch(const void *ev, long delta, const char *fn) {
  if (!ev) return -1;
  long left = -1;
  pthread_mutex_lock(&lock);
  slot *s = cap ? find(ev) : NULL;
  const char *bad = NULL;
  if (!s || !s->ev)
    bad = "an event the program was never given";
  else if (s->refs <= 0)
    bad = delta < 0 ? "a release with no reference left"
                    : "a use after the last release";
  else
    left = s->refs += delta;
  pthread_mutex_unlock(&lock);
  if (bad) report(bad, fn, ev);
  return left;
}

static void touch_list(cl_uint n, const cl_event *list, const char *fn) {
  for (cl_uint i = 0; list && i < n; ++i) touch(list[i], 0, fn);
}

/* ---- Start and end ---------------------------------------------------- */

static void at_exit(void) {
  long r = atomic_load(&nreports);
  fprintf(stderr, "clsrefs: %ld objects, %ld reports\n", atomic_load(&nobjects),
          r);
  if (r) _exit(97);
}

__attribute__((constructor)) static void init(void) {
  const char *v;
  abort_first = (v = getenv("CLSREFS_ABORT")) && atoi(v);
  quiet = (v = getenv("CLSREFS_QUIET")) && atoi(v);
  atexit(at_exit);
}

/* The driver's `name` (looked up once; atomic, since any thread may be
 * the first to call it). */
#define REAL(name)                                                             \
  static __typeof__(name) *real_;                                              \
  __typeof__(name) *real = __atomic_load_n(&real_, __ATOMIC_ACQUIRE);          \
  if (!real) {                                                                 \
    *(void **)&real = dlsym(RTLD_NEXT, #name);                                 \
    __atomic_store_n(&real_, real, __ATOMIC_RELEASE);                          \
  }

/* A wrapper that checks `obj` (delta: +1 a retain, -1 a release, 0 a use)
 * and calls the driver's function. */
#define PASS(name, obj, delta, params, ...)                                    \
  API cl_int name params {                                                     \
    REAL(name);                                                                \
    touch(obj, delta, #name);                                                  \
    return real(__VA_ARGS__);                                                  \
  }

/* A wrapper of a creator: the object it hands out is the program's. */
#define CREATE(type, name, params, ...)                                        \
  API type name params {                                                       \
    REAL(name);                                                                \
    type o_ = real(__VA_ARGS__);                                               \
    born(o_);                                                                  \
    return o_;                                                                 \
  }

/* ---- Events: creation, references, uses -------------------------------- */

CREATE(cl_event, clCreateUserEvent, (cl_context c, cl_int *err), c, err)

PASS(clRetainEvent, ev, +1, (cl_event ev), ev)

PASS(clReleaseEvent, ev, -1, (cl_event ev), ev)

PASS(clGetEventInfo, ev, 0,
     (cl_event ev, cl_event_info p, size_t n, void *v, size_t *r), ev, p, n, v,
     r)

PASS(clGetEventProfilingInfo, ev, 0,
     (cl_event ev, cl_profiling_info p, size_t n, void *v, size_t *r), ev, p, n,
     v, r)

API cl_int clWaitForEvents(cl_uint n, const cl_event *list) {
  REAL(clWaitForEvents);
  touch_list(n, list, "clWaitForEvents");
  return real(n, list);
}

PASS(clSetEventCallback, ev, 0,
     (cl_event ev, cl_int type, void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
      void *user),
     ev, type, fn, user)

PASS(clSetUserEventStatus, ev, 0, (cl_event ev, cl_int st), ev, st)

/* ---- Commands: their wait lists are used, their event is born ----------- */

/* The body of an enqueue wrapper: checks the wait list, calls the real
 * function with `args`, and counts the event it hands out. */
#define ENQUEUE(name, nwait, wait, event, ...)                                 \
  REAL(name);                                                                  \
  touch(q, 0, #name);                                                          \
  touch_list(nwait, wait, #name);                                              \
  cl_int err_ = real(__VA_ARGS__);                                             \
  if (err_ == CL_SUCCESS && (event)) born(*(event));                           \
  return err_

API cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                  const size_t *off, const size_t *g,
                                  const size_t *l, cl_uint n, const cl_event *w,
                                  cl_event *e) {
  touch(k, 0, "clEnqueueNDRangeKernel");
  ENQUEUE(clEnqueueNDRangeKernel, n, w, e, q, k, dim, off, g, l, n, w, e);
}

API cl_int clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n,
                                       const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueMarkerWithWaitList, n, w, e, q, n, w, e);
}

API cl_int clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n,
                                        const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueBarrierWithWaitList, n, w, e, q, n, w, e);
}

API cl_int clEnqueueSVMMemcpy(cl_command_queue q, cl_bool b, void *d,
                              const void *s, size_t size, cl_uint n,
                              const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueSVMMemcpy, n, w, e, q, b, d, s, size, n, w, e);
}

API cl_int clEnqueueSVMMemFill(cl_command_queue q, void *p, const void *pat,
                               size_t psize, size_t size, cl_uint n,
                               const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueSVMMemFill, n, w, e, q, p, pat, psize, size, n, w, e);
}

API cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                               size_t off, size_t size, void *p, cl_uint n,
                               const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueReadBuffer, n, w, e, q, m, b, off, size, p, n, w, e);
}

API cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                size_t off, size_t size, const void *p,
                                cl_uint n, const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueWriteBuffer, n, w, e, q, m, b, off, size, p, n, w, e);
}

API cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d,
                               size_t so, size_t doff, size_t size, cl_uint n,
                               const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueCopyBuffer, n, w, e, q, s, d, so, doff, size, n, w, e);
}

API cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pat,
                               size_t psize, size_t off, size_t size, cl_uint n,
                               const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueFillBuffer, n, w, e, q, m, pat, psize, off, size, n, w, e);
}

API cl_int clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *p,
                                   cl_uint n, const cl_event *w, cl_event *e) {
  ENQUEUE(clEnqueueUnmapMemObject, n, w, e, q, m, p, n, w, e);
}

API void *clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                             cl_map_flags f, size_t off, size_t size, cl_uint n,
                             const cl_event *w, cl_event *e, cl_int *err) {
  REAL(clEnqueueMapBuffer);
  touch(q, 0, "clEnqueueMapBuffer");
  touch_list(n, w, "clEnqueueMapBuffer");
  cl_int err_ = CL_SUCCESS;
  void *p = real(q, m, b, f, off, size, n, w, e, &err_);
  if (err) *err = err_;
  if (err_ == CL_SUCCESS && e) born(*e);
  return p;
}

/* ---- Queues ------------------------------------------------------------- */

CREATE(cl_command_queue, clCreateCommandQueueWithProperties,
       (cl_context c, cl_device_id d, const cl_queue_properties *p,
        cl_int *err),
       c, d, p, err)

CREATE(cl_command_queue, clCreateCommandQueue,
       (cl_context c, cl_device_id d, cl_command_queue_properties p,
        cl_int *err),
       c, d, p, err)

PASS(clRetainCommandQueue, q, +1, (cl_command_queue q), q)

PASS(clReleaseCommandQueue, q, -1, (cl_command_queue q), q)

PASS(clFlush, q, 0, (cl_command_queue q), q)

PASS(clFinish, q, 0, (cl_command_queue q), q)

PASS(clGetCommandQueueInfo, q, 0,
     (cl_command_queue q, cl_command_queue_info i, size_t n, void *v,
      size_t *r),
     q, i, n, v, r)

/* ---- Programs and kernels ----------------------------------------------- */

API long clsrefs_programs(void) { return atomic_load(&nprograms); }

API cl_program clCreateProgramWithSource(cl_context c, cl_uint n,
                                         const char **src, const size_t *len,
                                         cl_int *err) {
  REAL(clCreateProgramWithSource);
  cl_program p = real(c, n, src, len, err);
  born(p);
  if (p) atomic_fetch_add(&nprograms, 1);
  return p;
}

PASS(clBuildProgram, p, 0,
     (cl_program p, cl_uint n, const cl_device_id *d, const char *opt,
      void(CL_CALLBACK *fn)(cl_program, void *), void *user),
     p, n, d, opt, fn, user)

PASS(clGetProgramBuildInfo, p, 0,
     (cl_program p, cl_device_id d, cl_program_build_info i, size_t n, void *v,
      size_t *r),
     p, d, i, n, v, r)

API cl_int clReleaseProgram(cl_program p) {
  REAL(clReleaseProgram);
  if (touch(p, -1, "clReleaseProgram") == 0) atomic_fetch_sub(&nprograms, 1);
  return real(p);
}

API cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *err) {
  REAL(clCreateKernel);
  touch(p, 0, "clCreateKernel");
  cl_kernel k = real(p, name, err);
  born(k);
  return k;
}

PASS(clReleaseKernel, k, -1, (cl_kernel k), k)

PASS(clSetKernelArg, k, 0, (cl_kernel k, cl_uint i, size_t n, const void *v), k,
     i, n, v)

PASS(clSetKernelArgSVMPointer, k, 0, (cl_kernel k, cl_uint i, const void *v), k,
     i, v)

PASS(clGetKernelInfo, k, 0,
     (cl_kernel k, cl_kernel_info i, size_t n, void *v, size_t *r), k, i, n, v,
     r)

PASS(clGetKernelArgInfo, k, 0,
     (cl_kernel k, cl_uint a, cl_kernel_arg_info i, size_t n, void *v,
      size_t *r),
     k, a, i, n, v, r)

PASS(clGetKernelWorkGroupInfo, k, 0,
     (cl_kernel k, cl_device_id d, cl_kernel_work_group_info i, size_t n,
      void *v, size_t *r),
     k, d, i, n, v, r)
