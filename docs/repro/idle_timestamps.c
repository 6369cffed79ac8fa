/*
 * Raw OpenCL probe: on an idle in-order profiling queue, which timestamps
 * of a barrier and of a marker lie on the device clock, between the END
 * of the kernel before and the START of the kernel after; where QUEUED
 * sits against CLOCK_REALTIME read just before and just after the
 * enqueue; and what a barrier and a marker cost.  Not built by CMake.
 * It asks whether a timed record on an idle stream could be cheaper than
 * a marker on NVIDIA's driver (issue 11, point 2).
 *
 *   cc -O2 -o idle_timestamps idle_timestamps.c -lOpenCL
 *   PROBE_DEVICE=NVIDIA PROBE_N=200000 ./idle_timestamps
 *
 * H200, driver 580.159.04, 2026-12-04 (docs/drivers.md, "Idle-queue
 * timestamps"):
 * - barrier: QUEUED and SUBMIT read 0, START and END 0.2-0.4 ms before
 *   the previous kernel's END: none of the four is usable (0 of 40
 *   between the two kernels);
 * - marker: all four between the two kernels (40 of 40); QUEUED is
 *   CLOCK_REALTIME read before the call minus 69.6-71.2 us (on 12-01
 *   the raw cost probe of docs/drivers.md saw a kernel's QUEUED 87 us
 *   after it: the offset is not a constant to build in), and END about
 *   8 us after QUEUED;
 * - cost on an idle queue, 2,000 operations, median of 7: barrier
 *   1.2 us, marker 7.9 us;
 * - a pending barrier's QUEUED is CL_PROFILING_INFO_NOT_AVAILABLE;
 * - on a second H200 machine that night, QUEUED minus CLOCK_REALTIME
 *   rose steadily from 122-130 us to 249-254 us over PROBE_DRIFT_S=30:
 *   4.3 us a second, so no offset measured once holds for long.
 * PoCL 3.1 (2 cores): every timestamp of both on the device clock.
 * PROBE_N sets the kernel's loop count (its length); PROBE_DRIFT_S=N
 * adds N lines, one a second, of where QUEUED sits against the host.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x)                                                                  \
  do {                                                                         \
    cl_int e_ = (x);                                                           \
    if (e_ != CL_SUCCESS) {                                                    \
      printf("%s:%d %s = %d\n", __FILE__, __LINE__, #x, e_);                   \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static double now_ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static cl_ulong pi(cl_event e, cl_profiling_info w) {
  cl_ulong v = 0;
  cl_int err = clGetEventProfilingInfo(e, w, sizeof v, &v, NULL);
  return err == CL_SUCCESS ? v : (cl_ulong)err;
}

static const char *src =
    "__kernel void spin(__global int *p, int n) {"
    " int x = p[0]; for (int i = 0; i < n; ++i) x = x * 1103515245 + 12345;"
    " p[1] = x; }";

int main(void) {
  const char *want = getenv("PROBE_DEVICE");
  cl_platform_id ps[8];
  cl_uint np = 0;
  CK(clGetPlatformIDs(8, ps, &np));
  cl_platform_id p = NULL;
  for (cl_uint i = 0; i < np; ++i) {
    char name[256];
    clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!want || strstr(name, want)) {
      p = ps[i];
      printf("platform: %s\n", name);
      break;
    }
  }
  if (!p) return 1;
  cl_device_id d;
  CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
  CK(err);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, d, props, &err);
  CK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CK(err);
  CK(clBuildProgram(prog, 1, &d, NULL, NULL, NULL));
  cl_kernel k = clCreateKernel(prog, "spin", &err);
  CK(err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
  CK(err);
  CK(clSetKernelArg(k, 0, sizeof buf, &buf));
  int n = getenv("PROBE_N") ? atoi(getenv("PROBE_N")) : 200000;
  CK(clSetKernelArg(k, 1, sizeof n, &n));
  size_t one = 1;

  for (int kind = 0; kind < 2; ++kind) { /* 0 barrier, 1 marker */
    int ok_q = 0, ok_s = 0, ok_st = 0, ok_e = 0, trials = 40;
    double worst_lo = 1e30, worst_hi = -1e30;
    for (int t = 0; t < trials; ++t) {
      cl_event k1, b, k2, m;
      CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &k1));
      CK(clFinish(q));
      /* A gap while the queue is idle. */
      double g0 = now_ns(CLOCK_MONOTONIC);
      while (now_ns(CLOCK_MONOTONIC) - g0 < 50000) {
      }
      double h0 = now_ns(CLOCK_REALTIME);
      if (kind == 0)
        CK(clEnqueueBarrierWithWaitList(q, 0, NULL, &b));
      else
        CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &b));
      double h1 = now_ns(CLOCK_REALTIME);
      g0 = now_ns(CLOCK_MONOTONIC);
      while (now_ns(CLOCK_MONOTONIC) - g0 < 50000) {
      }
      CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &k2));
      CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m));
      CK(clFinish(q));
      double h2 = now_ns(CLOCK_REALTIME);
      cl_ulong k1e = pi(k1, CL_PROFILING_COMMAND_END);
      cl_ulong bq = pi(b, CL_PROFILING_COMMAND_QUEUED),
               bs = pi(b, CL_PROFILING_COMMAND_SUBMIT),
               bst = pi(b, CL_PROFILING_COMMAND_START),
               be = pi(b, CL_PROFILING_COMMAND_END);
      cl_ulong k2q = pi(k2, CL_PROFILING_COMMAND_QUEUED),
               k2s = pi(k2, CL_PROFILING_COMMAND_START),
               k2e = pi(k2, CL_PROFILING_COMMAND_END);
      cl_ulong me = pi(m, CL_PROFILING_COMMAND_END);
      ok_q += k1e <= bq && bq <= k2s;
      ok_s += k1e <= bs && bs <= k2s;
      ok_st += k1e <= bst && bst <= k2s;
      ok_e += k1e <= be && be <= k2s;
      double lo = (double)bq - h0, hi = (double)bq - h1;
      if (lo < worst_lo) worst_lo = lo;
      if (hi > worst_hi) worst_hi = hi;
      if (t < 4)
        printf("%s t%d: k1.END %llu | b.Q %+lld S %+lld ST %+lld E %+lld (vs "
               "k1.END, ns) | k2.Q %+lld k2.START %+lld k2.END %+lld m.END "
               "%+lld | b.Q - host_before %.0f, host_after %.0f; k2 run %llu "
               "ns; elapsed(b.Q..m.END) %.1f us host(h0..h2) %.1f us\n",
               kind ? "marker" : "barrier", t, (unsigned long long)k1e,
               (long long)(bq - k1e), (long long)(bs - k1e),
               (long long)(bst - k1e), (long long)(be - k1e),
               (long long)(k2q - k1e), (long long)(k2s - k1e),
               (long long)(k2e - k1e), (long long)(me - k1e), bq - h0, bq - h1,
               (unsigned long long)(k2e - k2s), ((double)me - bq) / 1e3,
               (h2 - h0) / 1e3);
      clReleaseEvent(k1), clReleaseEvent(b), clReleaseEvent(k2),
          clReleaseEvent(m);
    }
    printf("%s: of %d, between k1.END and k2.START: QUEUED %d SUBMIT %d START "
           "%d END %d; QUEUED - host realtime: %.0f .. %.0f ns\n",
           kind ? "marker" : "barrier", trials, ok_q, ok_s, ok_st, ok_e,
           worst_lo, worst_hi);
  }

  /* Cost on an idle queue: 2000 ops, median of 7; barrier+QUEUED read vs
   * marker. */
  for (int kind = 0; kind < 3; ++kind) {
    double best[7];
    for (int s = 0; s < 7; ++s) {
      cl_event prev = NULL;
      CK(clFinish(q));
      double t0 = now_ns(CLOCK_MONOTONIC);
      for (int i = 0; i < 2000; ++i) {
        cl_event e;
        if (kind == 1)
          CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &e));
        else
          CK(clEnqueueBarrierWithWaitList(q, 0, NULL, &e));
        if (kind == 2) (void)pi(e, CL_PROFILING_COMMAND_QUEUED);
        if (prev) clReleaseEvent(prev);
        prev = e;
      }
      double t1 = now_ns(CLOCK_MONOTONIC);
      clReleaseEvent(prev);
      best[s] = (t1 - t0) / 2000;
    }
    for (int i = 0; i < 7; ++i)
      for (int j = i + 1; j < 7; ++j)
        if (best[j] < best[i]) {
          double x = best[i];
          best[i] = best[j];
          best[j] = x;
        }
    printf("cost per op: %s %.0f ns\n",
           kind == 0   ? "barrier"
           : kind == 1 ? "marker"
                       : "barrier + QUEUED read (unfinished)",
           best[3]);
  }
  /* Drift: every 50 ms for PROBE_DRIFT_S seconds, an idle marker's QUEUED
   * minus CLOCK_REALTIME read just before its enqueue; one line a second
   * (min, max of that second). */
  {
    int secs = getenv("PROBE_DRIFT_S") ? atoi(getenv("PROBE_DRIFT_S")) : 0;
    for (int sec = 0; sec < secs; ++sec) {
      double lo = 1e30, hi = -1e30, elo = 1e30, ehi = -1e30;
      for (int i = 0; i < 20; ++i) {
        cl_event m;
        CK(clFinish(q));
        double h0 = now_ns(CLOCK_REALTIME);
        CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m));
        CK(clFinish(q));
        double h1 = now_ns(CLOCK_REALTIME);
        double o = (double)pi(m, CL_PROFILING_COMMAND_QUEUED) - h0;
        double oe = (double)pi(m, CL_PROFILING_COMMAND_END) - h1;
        if (o < lo) lo = o;
        if (o > hi) hi = o;
        if (oe < elo) elo = oe;
        if (oe > ehi) ehi = oe;
        clReleaseEvent(m);
        double g0 = now_ns(CLOCK_MONOTONIC);
        while (now_ns(CLOCK_MONOTONIC) - g0 < 50e6) {
        }
      }
      printf("drift s%d: QUEUED - realtime before %.0f .. %.0f ns; END - "
             "realtime after %.0f .. %.0f ns\n",
             sec, lo, hi, elo, ehi);
      fflush(stdout);
    }
  }
  /* Is QUEUED readable before the barrier completes? */
  {
    cl_event k1, b;
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &k1));
    CK(clEnqueueBarrierWithWaitList(q, 0, NULL, &b));
    cl_ulong v = 0;
    cl_int e1 =
        clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_QUEUED, 8, &v, NULL);
    printf("QUEUED of a pending barrier: err %d value %llu\n", e1,
           (unsigned long long)v);
    CK(clFinish(q));
    clReleaseEvent(k1), clReleaseEvent(b);
  }
  return 0;
}
