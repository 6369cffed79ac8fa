/*
 * Raw OpenCL reproducer (no clstream) of the crash issue 35 met on the
 * GPU machine's PoCL 5.0: a one-block tree reduction of 32 ints through
 * a __local array, with a barrier in a loop whose first step is half the
 * warp size.  clstream's prelude (cl/clstream_kernel.h) spells
 * cls_warp_size() on a device with sub-groups as
 *
 *   (get_max_sub_group_size() > 1u ? (unsigned)get_max_sub_group_size()
 *                                  : 32u)
 *
 * and as 32u elsewhere (PoCL 3.1 has no sub-groups).  Each variant below
 * changes one thing, so that the one that crashes names the suspect:
 *
 *   as_clstream  the shape of the report: cls_warp_size() as the prelude
 *                spells it with sub-groups, the array in the kernel body
 *   sg_plain     the loop bound get_max_sub_group_size() / 2 alone
 *   sg_param     as_clstream with the array a __local kernel parameter
 *   sg_hoisted   the sub-group size read once before the first barrier
 *   const32      the bound a compile-time 32 (the prelude without
 *                sub-groups): the body array, the barrier in the loop
 *   lsize        get_local_size(0) / 2: not compile-time, but a value
 *                PoCL's uniformity analysis knows is uniform
 *   arg_bound    a kernel argument: likewise
 *   loaded_bound a bound loaded from global memory, which no analysis
 *                can prove uniform (the work-items all read the same
 *                value): how PoCL 5.0 sees the sub-group size (below)
 *
 * Not built by CMake; ci/gpu.sh's pocl variant builds and runs it on the
 * GPU machine's PoCL into the summary.
 *
 *   cc -O1 -g -o pocl5_local_reduce docs/repro/pocl5_local_reduce.c -lOpenCL
 *   PROBE_PLATFORM=Portable ./pocl5_local_reduce [VARIANT...]
 *
 * Each variant runs in a child process (fork before any OpenCL call), so
 * that a crash is reported per variant: "right", "WRONG", "skipped" (no
 * sub-groups on the device), "OpenCL error", "CRASH (signal N)" or
 * "HANG" (30 s).  Exit status: 0 when no variant crashed, hung or was wrong, 1
 * otherwise.
 *
 * Measured 2026-12-07 on PoCL 3.1 (Debian, this CPU machine): the
 * sub-group variants are skipped (no cl_khr_subgroups), every other one
 * is right.  PoCL 5.0: the lead's GPU run (ci/gpu.sh) fills this in.
 *
 * What PoCL's source says (tags v5.0, v6.0, v7.0): on the CPU drivers a
 * sub-group is the local X dimension, and get_max_sub_group_size()
 * reads the magic variable _pocl_sub_group_size, which Workgroup.cc
 * replaces by the local size.  The uniformity analysis that decides how
 * a loop holding a barrier is turned into work-item loops
 * (lib/llvmopencl/VariableUniformityAnalysis.cc) lists the loads of
 * _local_size_x and the other work-group variables as uniform, but not
 * that of _pocl_sub_group_size before commit 14de379 ("Fix a regression
 * with subgroup size", February 2025, first in v7.0), which added it "since
 * we support only uniform SG sizes".  So PoCL 4.0 to 6.0, which report
 * cl_khr_subgroups on OpenCL 3.0 builds, see the reduction loop's trip
 * count as work-item dependent.
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 32

/* The kernels: in[0..31] summed into out[0]; n[0] holds 32.  HAS_SG is
 * defined where the compiler offers sub-groups. */
static const char *src =
    "#if defined(cl_khr_subgroups) || defined(__opencl_c_subgroups)\n"
    "#define HAS_SG 1\n"
    "#define WARP() (get_max_sub_group_size() > 1u ? "
    "(unsigned)get_max_sub_group_size() : 32u)\n"
    "#endif\n"
    "#define REDUCE(bound, sm)                                    \\\n"
    "  unsigned t = get_local_id(0);                              \\\n"
    "  sm[t] = in[t];                                             \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);       \\\n"
    "  for (unsigned s = (bound) / 2; s > 0; s /= 2) {            \\\n"
    "    if (t < s) sm[t] += sm[t + s];                           \\\n"
    "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);     \\\n"
    "  }                                                          \\\n"
    "  if (t == 0) out[0] = sm[0];\n"
    "#define ARGS __global const int *in, __global int *out, "
    "__global const uint *n, uint m\n"
    "#ifdef HAS_SG\n"
    "__kernel void as_clstream(ARGS) { __local int sm[64]; "
    "REDUCE(WARP(), sm) }\n"
    "__kernel void sg_plain(ARGS) { __local int sm[64]; "
    "REDUCE(get_max_sub_group_size(), sm) }\n"
    "__kernel void sg_param(ARGS, __local int *sm) { REDUCE(WARP(), sm) }\n"
    "__kernel void sg_hoisted(ARGS) { __local int sm[64]; "
    "unsigned w = WARP(); REDUCE(w, sm) }\n"
    "#endif\n"
    "__kernel void const32(ARGS) { __local int sm[64]; REDUCE(32u, sm) }\n"
    "__kernel void lsize(ARGS) { __local int sm[64]; "
    "REDUCE((unsigned)get_local_size(0), sm) }\n"
    "__kernel void arg_bound(ARGS) { __local int sm[64]; REDUCE(m, sm) }\n"
    "__kernel void loaded_bound(ARGS) { __local int sm[64]; "
    "REDUCE(n[0], sm) }\n";

static const char *const variants[] = {"as_clstream", "sg_plain",    "sg_param",
                                       "sg_hoisted",  "const32",     "lsize",
                                       "arg_bound",   "loaded_bound"};
#define NVARIANTS (sizeof variants / sizeof variants[0])

enum { RIGHT = 0, WRONG = 1, SKIPPED = 2, CL_FAILED = 3 };

#define CK(call)                                                               \
  do {                                                                         \
    cl_int e_ = (call);                                                        \
    if (e_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "    %s: %d\n", #call, (int)e_);                         \
      return CL_FAILED;                                                        \
    }                                                                          \
  } while (0)

/* The first device of the first platform whose name holds
 * PROBE_PLATFORM (any platform when unset). */
static int pick(cl_platform_id *pf, cl_device_id *dev) {
  const char *want = getenv("PROBE_PLATFORM");
  cl_platform_id plats[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, plats, &np);
  for (cl_uint i = 0; i < np; ++i) {
    char name[256] = "";
    clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (want && !strstr(name, want)) continue;
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, dev, NULL)) continue;
    *pf = plats[i];
    return 0;
  }
  return -1;
}

/* Runs variant v in this (child) process: builds, launches one block of
 * 32 work-items, reads out[0] back. */
static int run_variant(const char *v) {
  cl_platform_id pf;
  cl_device_id dev;
  if (pick(&pf, &dev)) return CL_FAILED;
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CK(err);
  /* The 1.2 call, which Oclgrind (OpenCL 1.2) has too. */
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  CK(err);
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CK(err);
  err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "    build: %d\n%s\n", (int)err, log);
    return CL_FAILED;
  }
  char names[1024] = "";
  CK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
  if (!strstr(names, v)) return SKIPPED; /* no sub-groups */
  cl_kernel k = clCreateKernel(p, v, &err);
  CK(err);
  int h[N], sum = 0, got = -1;
  for (int i = 0; i < N; ++i) sum += h[i] = i + 1;
  cl_uint bound = N;
  cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             sizeof h, h, &err);
  CK(err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(int), NULL, &err);
  CK(err);
  cl_mem n = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            sizeof bound, &bound, &err);
  CK(err);
  CK(clSetKernelArg(k, 0, sizeof in, &in));
  CK(clSetKernelArg(k, 1, sizeof out, &out));
  CK(clSetKernelArg(k, 2, sizeof n, &n));
  CK(clSetKernelArg(k, 3, sizeof bound, &bound));
  if (!strcmp(v, "sg_param")) CK(clSetKernelArg(k, 4, 64 * sizeof(int), NULL));
  size_t g = N, l = N;
  /* As in the report: the kernel and a read-back enqueued, then waited. */
  CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
  CK(clEnqueueReadBuffer(q, out, CL_FALSE, 0, sizeof got, &got, 0, NULL, NULL));
  CK(clFinish(q));
  if (got != sum) fprintf(stderr, "    sum %d, expected %d\n", got, sum);
  return got == sum ? RIGHT : WRONG;
}

int main(int argc, char **argv) {
  cl_platform_id pf;
  cl_device_id dev;
  /* The platform's description, in a child too (no OpenCL in the parent,
   * which forks). */
  pid_t c = fork();
  if (c == 0) {
    if (pick(&pf, &dev)) {
      printf("no platform matches PROBE_PLATFORM\n");
      _exit(1);
    }
    char pv[256] = "", dv[256] = "", name[256] = "", ext[8192] = "";
    clGetPlatformInfo(pf, CL_PLATFORM_VERSION, sizeof pv, pv, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof dv, dv, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    printf("%s; platform \"%s\", driver \"%s\"; cl_khr_subgroups %s\n", name,
           pv, dv, strstr(ext, "cl_khr_subgroups") ? "yes" : "no");
    fflush(stdout);
    _exit(0);
  }
  int st;
  waitpid(c, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 1;

  int bad = 0;
  for (size_t i = 0; i < NVARIANTS; ++i) {
    int chosen = argc < 2;
    for (int a = 1; a < argc; ++a) chosen |= !strcmp(argv[a], variants[i]);
    if (!chosen) continue;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(30);
      _exit(run_variant(variants[i]));
    }
    waitpid(pid, &st, 0);
    const char *what = "?";
    char sig[64];
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
      what = "HANG (no answer in 30 s)";
      bad = 1;
    } else if (WIFSIGNALED(st)) {
      snprintf(sig, sizeof sig, "CRASH (signal %d, %s)", WTERMSIG(st),
               strsignal(WTERMSIG(st)));
      what = sig;
      bad = 1;
    } else {
      switch (WEXITSTATUS(st)) {
      case RIGHT:
        what = "right";
        break;
      case WRONG:
        what = "WRONG";
        bad = 1;
        break;
      case SKIPPED:
        what = "skipped (no sub-groups)";
        break;
      default:
        what = "OpenCL error";
        break;
      }
    }
    printf("  %-13s %s\n", variants[i], what);
  }
  return bad;
}
