/*
 * Raw OpenCL reproducer (no clstream) of the abort test_pool met on the
 * H200 machine's PoCL 5.0:
 *
 *   pocl_release_dlhandle_cache: Assertion `found->ref_count > 0' failed.
 *
 * Not built by CMake.
 *
 *   cc -O2 -std=c11 -o pocl5_dlhandle docs/repro/pocl5_dlhandle.c -lOpenCL
 *   OCL_ICD_VENDORS=<a directory with only pocl.icd> ./pocl5_dlhandle [MODE]
 *   (or: PROBE_PLATFORM=Portable ./pocl5_dlhandle [MODE])
 *
 * MODE 0 (the default): a narrow launch runs on queue 1 when a wide one
 * of the same kernel and local size starts on queue 2.  MODE 1: the same,
 * but the wide launch waits for the narrow one's event (what clstream's
 * kernel-cache guard does, src/opencl/kcguard.c).  MODE 2: the wide one
 * runs first and the narrow one starts while it runs.  It prints "no
 * abort" and exits 0 where the driver survives, and dies with SIGABRT
 * (exit status 134) where the bug is.
 *
 * Measured 2026-12-04: PoCL 5.0 (Debian, "None+Asserts", the H200
 * machine's Xeon): MODE 0 aborts in round 0 (common.c:941, the
 * assertion test_pool met); MODES 1 and 2 pass.  PoCL 3.1 (Debian, with
 * assertions): all three pass.
 *
 * The cause, read in PoCL's source (lib/CL/devices/common.c, tag v5.0):
 * the CPU drivers keep one loaded work-group function per (kernel hash,
 * local size, widest grid dimension it serves, specialization, zero
 * global offset).  A command takes a reference on the entry when it is
 * prepared (pthread: once its wait list is complete, before it runs), by
 * fetch_dlhandle_cache_item, which looks from the most recently used end
 * for an entry whose grid width is at least the command's; when none is,
 * a new entry is made and put first.  When the command finishes,
 * pocl_release_dlhandle_cache drops a reference on the first entry with
 * the same kernel hash and local size, ignoring the grid width (and the
 * specialization and the global offset).  So:
 *
 *   1. kernel K, local size L, a narrow grid runs on queue 1: entry N
 *      (ref 1);
 *   2. while it runs, K with the same L and a wider grid is prepared on
 *      queue 2: N is too narrow, entry W is made and put first (ref 1);
 *   3. whichever finishes first drops W's reference (W: 0, N stays 1),
 *      and the second finds W again: ref_count is 0, the assertion fails.
 *
 * A narrower launch prepared after the wider one is harmless (it takes a
 * reference on W, the first entry that fits).  One in-order queue never
 * shows it (a command is prepared only once the previous one has
 * finished).  The kernel hash is the program's build hash with the
 * kernel's name, so two kernels of one program do not collide.  PoCL
 * fixed it in commit c9ac4c0c3 ("fix dlhandle cache", June 2024, in
 * 6.0): the command keeps the entry it took and releases that one.
 * PoCL 3.1 and 4.0 have the same code; whether they abort depends on
 * whether the build keeps assertions (PoCL prints "+Asserts" in
 * CL_PLATFORM_VERSION) and on the timing above.
 *
 * PoCL 3.1 survives because its pthread driver takes two references per
 * launch (pocl_check_kernel_dlhandle_cache is called twice when a kernel
 * is prepared) and releases one, so no count reaches 0.
 *
 * To hit step 2 while step 1 runs, the first launch spins for a while
 * and the second is enqueued once the first is seen running.  Each round
 * uses a new local size, so the rounds do not reuse each other's
 * entries.
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src =
    "__kernel void k(__global uint *out, uint spin) {\n"
    "  uint x = (uint)get_global_id(0);\n"
    "  for (uint i = 0; i < spin; ++i) x = x * 1664525u + 1013904223u;\n"
    "  out[get_global_id(0)] = x;\n"
    "}\n";

#define CHECK(call)                                                            \
  do {                                                                         \
    cl_int e_ = (call);                                                        \
    if (e_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #call, e_);      \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The first platform whose name contains PROBE_PLATFORM (any if unset). */
static cl_platform_id pick_platform(void) {
  cl_platform_id p[16];
  cl_uint n = 0;
  CHECK(clGetPlatformIDs(16, p, &n));
  const char *want = getenv("PROBE_PLATFORM");
  for (cl_uint i = 0; i < n; ++i) {
    char name[256] = "";
    clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!want || strstr(name, want)) return p[i];
  }
  fprintf(stderr, "no platform matches PROBE_PLATFORM\n");
  exit(2);
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  cl_platform_id plat = pick_platform();
  char version[512] = "";
  clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof version, version, NULL);
  printf("platform: %s\n", version);
  cl_device_id dev;
  CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue q1 = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK(err);
  cl_command_queue q2 = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
  cl_kernel narrow = clCreateKernel(prog, "k", &err);
  CHECK(err);
  cl_kernel wide = clCreateKernel(prog, "k", &err);
  CHECK(err);

  enum { WIDE = 4096, ROUNDS = 5 };
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, WIDE * sizeof(cl_uint),
                              NULL, &err);
  CHECK(err);
  /* The first launch spins (2e6 steps for one narrow work-item, 2e4 for
   * each of the wide one's), the second does not. */
  cl_uint spin_narrow = mode == 2 ? 0 : 2000000,
          spin_wide = mode == 2 ? 20000 : 0;
  CHECK(clSetKernelArg(narrow, 0, sizeof out, &out));
  CHECK(clSetKernelArg(narrow, 1, sizeof spin_narrow, &spin_narrow));
  CHECK(clSetKernelArg(wide, 0, sizeof out, &out));
  CHECK(clSetKernelArg(wide, 1, sizeof spin_wide, &spin_wide));

  for (int r = 0; r < ROUNDS; ++r) {
    size_t local = (size_t)1 << r; /* a new cache key each round */
    size_t g_narrow = local, g_wide = WIDE;
    cl_event running;
    if (mode == 2)
      CHECK(clEnqueueNDRangeKernel(q1, wide, 1, NULL, &g_wide, &local, 0, NULL,
                                   &running));
    else
      CHECK(clEnqueueNDRangeKernel(q1, narrow, 1, NULL, &g_narrow, &local, 0,
                                   NULL, &running));
    CHECK(clFlush(q1));
    /* Wait until the first launch has been prepared (it runs). */
    double t0 = now_ms();
    cl_int st = CL_QUEUED;
    do
      CHECK(clGetEventInfo(running, CL_EVENT_COMMAND_EXECUTION_STATUS,
                           sizeof st, &st, NULL));
    while (st > CL_RUNNING && now_ms() - t0 < 2000);
    printf("mode %d round %d: local %zu, first launch %s\n", mode, r, local,
           st == CL_RUNNING    ? "running"
           : st == CL_COMPLETE ? "already complete (too fast: raise spin)"
                               : "not started");
    fflush(stdout);
    if (mode == 2)
      CHECK(clEnqueueNDRangeKernel(q2, narrow, 1, NULL, &g_narrow, &local, 0,
                                   NULL, NULL));
    else
      CHECK(clEnqueueNDRangeKernel(q2, wide, 1, NULL, &g_wide, &local,
                                   mode == 1, mode == 1 ? &running : NULL,
                                   NULL));
    CHECK(clFinish(q2));
    CHECK(clFinish(q1));
    clReleaseEvent(running);
  }
  printf("no abort\n");
  clReleaseMemObject(out);
  clReleaseKernel(narrow);
  clReleaseKernel(wide);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q1);
  clReleaseCommandQueue(q2);
  clReleaseContext(ctx);
  return 0;
}
