/*
 * Raw OpenCL probe: does a cl_khr_command_buffer replay of N tiny kernels
 * cost less than enqueueing the same N kernels one by one?  It decides
 * whether clstream's graph replay should build command buffers on a
 * device (issue 28, point 4).  Not built by CMake.
 *
 *   cc -O2 -o command_buffer command_buffer.c -lOpenCL
 *   PROBE_DEVICE=Portable ./command_buffer        # N = 10, 100, 1000
 *
 * Written against the pre-1.0 signatures of Debian 12's CL/cl_ext.h
 * (the extension's 0.9.x revisions, which PoCL 3.1 and PoCL 5 report);
 * the entry points come from clGetExtensionFunctionAddressForPlatform.
 * Per N, on one in-order queue, every mode ends in clFinish and is timed
 * as a whole, median of PROBE_REPS (default 201) repetitions, reported
 * per kernel:
 * - plain: N kernel objects whose arguments were set once, enqueued
 *   without events (the fastest way to issue them one by one);
 * - plain+args: one kernel object, its arguments set before every
 *   enqueue (what a launch with arguments costs);
 * - cmdbuf: the N kernels recorded once into a command buffer (each
 *   after the previous one's sync point, so they run in order as a
 *   stream's would), finalized, then one clEnqueueCommandBufferKHR;
 * - cmdbuf-free: the same without the sync-point chain (the kernels may
 *   run in any order; the lowest a command buffer can cost).
 * After each mode the buffer is read back and checked: the last kernel's
 * value must be there (kernel i stores i + 1), so a replay that skipped
 * commands fails.  The modes alternate within each repetition so that
 * the machine's noise hits all alike.
 *
 * PoCL 3.1 (extension 0.9.0, pthread device, 2 cores, 2026-12-04), ns
 * per kernel, plain / cmdbuf, three runs: N=10 1,560-6,732 / 1,723-7,822
 * (1.10-1.16x), N=100 1,661-2,025 / 1,772-2,363 (1.05-1.17x), N=1000
 * 1,059-1,248 / 5,363-5,985 (4.8-5.4x); cmdbuf-free the same as cmdbuf.
 * The command buffer does not pay there (docs/drivers.md, "Command
 * buffers").
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src =
    "__kernel void fill(__global int *t, int v) { t[0] = v; }\n";

static clCreateCommandBufferKHR_fn p_create;
static clFinalizeCommandBufferKHR_fn p_finalize;
static clReleaseCommandBufferKHR_fn p_release;
static clEnqueueCommandBufferKHR_fn p_enqueue;
static clCommandNDRangeKernelKHR_fn p_ndrange;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define CK(call)                                                               \
  do {                                                                         \
    cl_int e_ = (call);                                                        \
    if (e_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, e_);     \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void check(cl_command_queue q, cl_mem m, int want, const char *mode) {
  int got = -1;
  CK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
  if (got != want) {
    fprintf(stderr, "%s: buffer holds %d, expected %d\n", mode, got, want);
    exit(1);
  }
}

/* Records ks[0..n) into a new command buffer, chained or not. */
static cl_command_buffer_khr record(cl_command_queue q, cl_kernel *ks,
                                    unsigned n, int chained) {
  cl_int e;
  size_t one = 1;
  cl_command_buffer_khr cb = p_create(1, &q, NULL, &e);
  cl_sync_point_khr prev = 0, sp = 0;
  if (!cb) {
    fprintf(stderr, "clCreateCommandBufferKHR -> %d\n", e);
    exit(1);
  }
  for (unsigned i = 0; i < n; ++i) {
    CK(p_ndrange(cb, NULL, NULL, ks[i], 1, NULL, &one, &one,
                 chained && i ? 1 : 0, chained && i ? &prev : NULL, &sp, NULL));
    prev = sp;
  }
  CK(p_finalize(cb));
  return cb;
}

int main(void) {
  const char *want = getenv("PROBE_DEVICE");
  unsigned reps = getenv("PROBE_REPS") ? atoi(getenv("PROBE_REPS")) : 201;
  cl_platform_id plats[8], plat = NULL;
  cl_device_id dev = NULL;
  cl_uint np = 0;
  char name[256], ext[8192];
  cl_int e;

  CK(clGetPlatformIDs(8, plats, &np));
  for (cl_uint i = 0; i < np && !dev; ++i) {
    cl_device_id d;
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &d, &nd) != CL_SUCCESS)
      continue;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
    char pname[256];
    clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    if (!want || strstr(name, want) || strstr(pname, want))
      dev = d, plat = plats[i];
  }
  if (!dev) {
    fprintf(stderr, "no device matching PROBE_DEVICE\n");
    return 1;
  }
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
  printf("device: %s\n", name);
  if (!strstr(ext, "cl_khr_command_buffer")) {
    printf("no cl_khr_command_buffer: nothing to measure\n");
    return 0;
  }
#define GET(p, n) p = (n##_fn)clGetExtensionFunctionAddressForPlatform(plat, #n)
  GET(p_create, clCreateCommandBufferKHR);
  GET(p_finalize, clFinalizeCommandBufferKHR);
  GET(p_release, clReleaseCommandBufferKHR);
  GET(p_enqueue, clEnqueueCommandBufferKHR);
  GET(p_ndrange, clCommandNDRangeKernelKHR);
  if (!p_create || !p_finalize || !p_release || !p_enqueue || !p_ndrange) {
    printf("cl_khr_command_buffer listed, entry points missing\n");
    return 1;
  }
  {
    size_t vn = 0;
    cl_version_khr ver = 0;
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &vn);
    cl_name_version *v = malloc(vn ? vn : 1);
    if (v && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, vn, v,
                             NULL) == CL_SUCCESS)
      for (size_t i = 0; i < vn / sizeof *v; ++i)
        if (!strcmp(v[i].name, "cl_khr_command_buffer")) ver = v[i].version;
    free(v);
    printf("cl_khr_command_buffer %u.%u.%u\n", CL_VERSION_MAJOR_KHR(ver),
           CL_VERSION_MINOR_KHR(ver), CL_VERSION_PATCH_KHR(ver));
  }

  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &e);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
  CK(clBuildProgram(prog, 1, &dev, NULL, NULL, NULL));
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &e);
  if (!m) return 1;

  printf("%6s %12s %12s %12s %12s %10s\n", "N", "plain ns", "plain+args",
         "cmdbuf", "cmdbuf-free", "cmdbuf/plain");
  const unsigned ns[] = {10, 100, 1000};
  for (unsigned t = 0; t < 3; ++t) {
    unsigned n = ns[t];
    size_t one = 1;
    cl_kernel *ks = calloc(n, sizeof *ks),
              k1 = clCreateKernel(prog, "fill", &e);
    double *v[4];
    for (int j = 0; j < 4; ++j) v[j] = calloc(reps, sizeof(double));
    for (unsigned i = 0; i < n; ++i) {
      int val = (int)i + 1;
      ks[i] = clCreateKernel(prog, "fill", &e);
      CK(clSetKernelArg(ks[i], 0, sizeof m, &m));
      CK(clSetKernelArg(ks[i], 1, sizeof val, &val));
    }
    CK(clSetKernelArg(k1, 0, sizeof m, &m));
    cl_command_buffer_khr chained = record(q, ks, n, 1);
    cl_command_buffer_khr free_cb = record(q, ks, n, 0);
    for (unsigned r = 0; r < reps + 5; ++r) {
      double t0, x[4];
      int zero = 0;
      /* plain */
      CK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, &zero, 0, NULL, NULL));
      t0 = now_ns();
      for (unsigned i = 0; i < n; ++i)
        CK(clEnqueueNDRangeKernel(q, ks[i], 1, NULL, &one, &one, 0, NULL,
                                  NULL));
      CK(clFinish(q));
      x[0] = now_ns() - t0;
      check(q, m, (int)n, "plain");
      /* plain+args */
      CK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, &zero, 0, NULL, NULL));
      t0 = now_ns();
      for (unsigned i = 0; i < n; ++i) {
        int val = (int)i + 1;
        CK(clSetKernelArg(k1, 1, sizeof val, &val));
        CK(clEnqueueNDRangeKernel(q, k1, 1, NULL, &one, &one, 0, NULL, NULL));
      }
      CK(clFinish(q));
      x[1] = now_ns() - t0;
      check(q, m, (int)n, "plain+args");
      /* cmdbuf, chained */
      CK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, &zero, 0, NULL, NULL));
      t0 = now_ns();
      CK(p_enqueue(1, &q, chained, 0, NULL, NULL));
      CK(clFinish(q));
      x[2] = now_ns() - t0;
      check(q, m, (int)n, "cmdbuf");
      /* cmdbuf without the chain: any order, so only "ran" is checked */
      CK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, &zero, 0, NULL, NULL));
      t0 = now_ns();
      CK(p_enqueue(1, &q, free_cb, 0, NULL, NULL));
      CK(clFinish(q));
      x[3] = now_ns() - t0;
      {
        int got = 0;
        CK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4, &got, 0, NULL, NULL));
        if (got < 1 || got > (int)n) {
          fprintf(stderr, "cmdbuf-free: buffer holds %d\n", got);
          return 1;
        }
      }
      if (r >= 5) /* the first five warm up */
        for (int j = 0; j < 4; ++j) v[j][r - 5] = x[j] / n;
    }
    for (int j = 0; j < 4; ++j) qsort(v[j], reps, sizeof(double), cmp);
    printf("%6u %12.0f %12.0f %12.0f %12.0f %10.2f\n", n, v[0][reps / 2],
           v[1][reps / 2], v[2][reps / 2], v[3][reps / 2],
           v[2][reps / 2] / v[0][reps / 2]);
    p_release(chained);
    p_release(free_cb);
    for (unsigned i = 0; i < n; ++i) clReleaseKernel(ks[i]);
    clReleaseKernel(k1);
    free(ks);
    for (int j = 0; j < 4; ++j) free(v[j]);
  }
  clReleaseMemObject(m);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
