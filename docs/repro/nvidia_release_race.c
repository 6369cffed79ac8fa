/*
 * Raw OpenCL reproducer of the NVIDIA driver bug behind clstream's
 * deferred module release (src/opencl/module.c; docs/drivers.md, "A
 * driver bug behind test_stress").  Not built by CMake.
 *
 * THREADS threads share one command queue (or each has its own) and loop:
 * create and build a program, create a kernel, set its arguments, enqueue
 * it, release the kernel and the program (with the launch still pending,
 * or after waiting for it).  OpenCL allows the release: an enqueued
 * command holds its own references.
 *
 *   cc -O1 -g -o release_race nvidia_release_race.c -lOpenCL -lpthread
 *   MALLOC_PERTURB_=165 ./release_race shared pending 5 16
 *
 * On the H200 (driver 580.159.04, 2026-12-02; an earlier form of this
 * program, the same loop), with MALLOC_PERTURB_=165
 * (glibc fills freed blocks, so a use of one shows at once): "shared
 * pending" crashed inside libnvidia-opencl.so.1 (a driver thread); "shared
 * waited", "own pending" and "own waited" ran 5 s without a fault (one
 * run of each).
 * Without MALLOC_PERTURB_ the crash needs longer runs or clstream's
 * test_stress.  Arguments: shared|own, pending|waited, seconds, threads;
 * RACE_PLATFORM picks the platform by a part of its name (NVIDIA).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src = "__kernel void fill(__global int *p, int v, uint n) {"
                         " uint i = get_global_id(0); if (i < n) p[i] = v; }";
static cl_context ctx;
static cl_device_id dev;
static cl_command_queue shared_q;
static int shared, waited;
static double end_t;
static atomic_long loops;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CK(x)                                                                  \
  do {                                                                         \
    cl_int e_ = (x);                                                           \
    if (e_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #x, (int)e_);     \
      abort();                                                                 \
    }                                                                          \
  } while (0)

static void *worker(void *arg) {
  int id = (int)(long)arg;
  cl_int err = CL_SUCCESS;
  cl_command_queue q = shared_q;
  if (!shared) {
    q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CK(err);
  }
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
  CK(err);
  while (now() < end_t) {
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CK(err);
    CK(clBuildProgram(p, 1, &dev, "-cl-kernel-arg-info", NULL, NULL));
    cl_kernel k = clCreateKernel(p, "fill", &err);
    CK(err);
    cl_uint n = 1024;
    size_t g = 1024;
    CK(clSetKernelArg(k, 0, sizeof buf, &buf));
    CK(clSetKernelArg(k, 1, sizeof id, &id));
    CK(clSetKernelArg(k, 2, sizeof n, &n));
    cl_event ev = NULL;
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL,
                              waited ? &ev : NULL));
    if (ev) {
      CK(clWaitForEvents(1, &ev));
      CK(clReleaseEvent(ev));
    }
    CK(clReleaseKernel(k));
    CK(clReleaseProgram(p));
    atomic_fetch_add(&loops, 1);
  }
  CK(clFinish(q));
  CK(clReleaseMemObject(buf));
  if (!shared) CK(clReleaseCommandQueue(q));
  return NULL;
}

int main(int argc, char **argv) {
  shared = argc <= 1 || strcmp(argv[1], "own") != 0;
  waited = argc > 2 && strcmp(argv[2], "waited") == 0;
  double secs = argc > 3 ? atof(argv[3]) : 5;
  int nt = argc > 4 ? atoi(argv[4]) : 16;
  if (nt < 1 || nt > 64) nt = 16;
  const char *want = getenv("RACE_PLATFORM");
  cl_platform_id ps[8], plat = NULL;
  cl_uint np = 0;
  CK(clGetPlatformIDs(8, ps, &np));
  for (cl_uint i = 0; i < np && !plat; i++) {
    char name[256] = "";
    clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strstr(name, want ? want : "NVIDIA")) plat = ps[i];
  }
  if (!plat) {
    fprintf(stderr, "no platform named like %s\n", want ? want : "NVIDIA");
    return 2;
  }
  CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_int err = CL_SUCCESS;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CK(err);
  shared_q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  CK(err);
  end_t = now() + secs;
  pthread_t t[64];
  for (int i = 0; i < nt; i++)
    pthread_create(&t[i], NULL, worker, (void *)(long)i);
  for (int i = 0; i < nt; i++) pthread_join(t[i], NULL);
  printf("%s queue, release %s, %d threads: %ld loops, no fault\n",
         shared ? "shared" : "own", waited ? "after the wait" : "pending", nt,
         (long)atomic_load(&loops));
  CK(clReleaseCommandQueue(shared_q));
  CK(clReleaseContext(ctx));
  return 0;
}
