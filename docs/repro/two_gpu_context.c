/*
 * Raw OpenCL probe: kernel launches in one context that holds two devices
 * of one platform, the way clstream sets up a multi-GPU context
 * (src/opencl/device.c, module.c).  Not built by CMake; ci/gpu2.sh builds
 * and runs it before the suite, so that a two-GPU run says whether the
 * driver or clstream refuses what fails.
 *
 *   cc -O1 -g -o two_gpu_context two_gpu_context.c -lOpenCL
 *   PROBE_PLATFORM=NVIDIA ./two_gpu_context
 *
 * For each device of the context, and each of the forms below, it prints
 * the OpenCL code of every step and whether the kernel's result came back:
 *   - program built for that device only, or for every device of the
 *     context;
 *   - the kernel's pointer a coarse-grained SVM allocation, or a buffer;
 *   - the memory made while the context had both devices, then used on
 *     the device the probe names.
 * Exit status: 0 when every form worked on every device, 1 otherwise, 2
 * when the platform has fewer than two devices.
 *
 * Seen on nvidia-h200-x2 (driver 580.159.04, 2026-12-04): clstream's
 * launches there returned CL_INVALID_* (InvalidValue) or failed on the
 * device (LaunchFailure); this probe was written to tell which step.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024
#define MAXDEV 8

static const char *src = "__kernel void fill(__global int *p, int v, int n) {\n"
                         "  int i = get_global_id(0);\n"
                         "  if (i < n) p[i] = v + i;\n"
                         "}\n";

static int failures;

static void report(const char *what, cl_int err) {
  printf("    %-40s %d%s\n", what, (int)err, err ? "  <-- failed" : "");
  if (err) failures++;
}

static int check(const int *h, int v) {
  for (int i = 0; i < N; ++i)
    if (h[i] != v + i) return 0;
  return 1;
}

/* One launch of fill on queue q with the program built for the devices
 * in build (nb of them), writing through SVM (svm) or a buffer. */
static void one(cl_context ctx, cl_command_queue q, const cl_device_id *build,
                cl_uint nb, int svm, int v) {
  cl_int err;
  int h[N];
  memset(h, 0, sizeof h);
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  report("clCreateProgramWithSource", err);
  err = clBuildProgram(p, nb, build, "", NULL, NULL);
  report("clBuildProgram", err);
  cl_kernel k = clCreateKernel(p, "fill", &err);
  report("clCreateKernel", err);
  if (!k) {
    clReleaseProgram(p);
    return;
  }
  void *s = NULL;
  cl_mem b = NULL;
  if (svm) {
    s = clSVMAlloc(ctx, CL_MEM_READ_WRITE, sizeof h, 0);
    report("clSVMAlloc (0 = made)", s ? 0 : -1);
    err = s ? clSetKernelArgSVMPointer(k, 0, s) : CL_INVALID_VALUE;
    report("clSetKernelArgSVMPointer", err);
  } else {
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof h, NULL, &err);
    report("clCreateBuffer", err);
    err = clSetKernelArg(k, 0, sizeof b, &b);
    report("clSetKernelArg (buffer)", err);
  }
  int n = N;
  report("clSetKernelArg (v)", clSetKernelArg(k, 1, sizeof v, &v));
  report("clSetKernelArg (n)", clSetKernelArg(k, 2, sizeof n, &n));
  size_t g = N, l = 64;
  cl_event e = NULL;
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &e);
  report("clEnqueueNDRangeKernel", err);
  if (e) {
    report("clWaitForEvents", clWaitForEvents(1, &e));
    cl_int st = 0;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    report("execution status (0 = complete)", st);
    clReleaseEvent(e);
  }
  if (svm && s)
    err = clEnqueueSVMMemcpy(q, CL_TRUE, h, s, sizeof h, 0, NULL, NULL);
  else if (b)
    err = clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL);
  report("read back", err);
  report("result right (0 = yes)", check(h, v) ? 0 : -1);
  if (s) clSVMFree(ctx, s);
  if (b) clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

int main(void) {
  const char *want = getenv("PROBE_PLATFORM");
  cl_platform_id plats[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, plats, &np);
  for (cl_uint i = 0; i < np; ++i) {
    char name[256] = "";
    clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (want && !strstr(name, want)) continue;
    cl_device_id dev[MAXDEV];
    cl_uint nd = 0;
    clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, MAXDEV, dev, &nd);
    if (nd < 2) continue;
    printf("platform %s: %u devices in one context\n", name, nd);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, nd, dev, NULL, NULL, &err);
    report("clCreateContext", err);
    if (!ctx) return 1;
    for (cl_uint d = 0; d < nd; ++d) {
      char dn[256] = "";
      clGetDeviceInfo(dev[d], CL_DEVICE_NAME, sizeof dn, dn, NULL);
      cl_command_queue q =
          clCreateCommandQueueWithProperties(ctx, dev[d], NULL, &err);
      report("clCreateCommandQueueWithProperties", err);
      if (!q) continue;
      for (int svm = 1; svm >= 0; --svm)
        for (int all = 0; all <= 1; ++all) {
          printf("  device %u (%s), %s, program built for %s:\n", d, dn,
                 svm ? "coarse-grained SVM" : "buffer",
                 all ? "every device" : "this device");
          one(ctx, q, all ? dev : &dev[d], all ? nd : 1, svm,
              (int)(100 * d + 10 * svm + all));
        }
      clReleaseCommandQueue(q);
    }
    clReleaseContext(ctx);
    printf("%d step(s) failed\n", failures);
    return failures ? 1 : 0;
  }
  printf("no platform%s%s with two devices\n", want ? " named " : "",
         want ? want : "");
  return 2;
}
