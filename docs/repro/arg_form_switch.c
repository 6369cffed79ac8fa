/*
 * Raw OpenCL probe: one kernel object whose pointer argument is set in
 * turn as a buffer (clSetKernelArg with a cl_mem) and as an SVM pointer
 * (clSetKernelArgSVMPointer), enqueued after each change.  Not built by
 * CMake; ci/gpu.sh builds and runs it on NVIDIA's platform.
 *
 *   cc -O1 -g -o arg_form_switch arg_form_switch.c -lOpenCL
 *   PROBE_PLATFORM=NVIDIA ./arg_form_switch
 *
 * Why: on the H200 (driver 580.159.04) an argument that last held an SVM
 * pointer takes only the SVM form of NULL (the buffer form is accepted by
 * clSetKernelArg and refused by the enqueue with CL_INVALID_KERNEL_ARGS;
 * src/opencl/launch.c).  clstream passes host buffers (pinned, registered
 * and managed memory where the device lacks fine-grained SVM) as buffers
 * and device memory as SVM pointers, so one kernel sees both forms; the
 * CUDA-names program zero_copy failed on NVIDIA with InvalidValue at the
 * first launch with managed memory after launches with device memory.
 * This probe tells whether the driver refuses a buffer after an SVM
 * pointer in general.
 *
 * It prints each step's OpenCL code and whether the result is right; exit
 * status 0 when every step worked, 1 otherwise, 2 without SVM.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

static const char *src = "__kernel void put(__global int *p, int v) {\n"
                         "  p[get_global_id(0)] = v;\n"
                         "}\n";

static int failures;

/* Enqueues put(p, v) where p was just set, reads the memory back with
 * read() and reports. */
static void run(cl_command_queue q, cl_kernel k, int v, const char *form,
                int (*read)(cl_command_queue, void *, int *), void *mem) {
  int h[N];
  size_t g = N;
  cl_int err = clSetKernelArg(k, 1, sizeof v, &v);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clFinish(q);
  int right = 0;
  if (err == CL_SUCCESS && read(q, mem, h) == CL_SUCCESS) {
    right = 1;
    for (int i = 0; i < N; ++i) right &= h[i] == v;
  }
  printf("  launch %d through %-12s enqueue/finish %d, result %s\n", v, form,
         (int)err, right ? "right" : "WRONG");
  if (err != CL_SUCCESS || !right) failures++;
}

static int read_buf(cl_command_queue q, void *mem, int *h) {
  return clEnqueueReadBuffer(q, *(cl_mem *)mem, CL_TRUE, 0, N * sizeof(int), h,
                             0, NULL, NULL);
}

static int read_svm(cl_command_queue q, void *mem, int *h) {
  return clEnqueueSVMMemcpy(q, CL_TRUE, h, mem, N * sizeof(int), 0, NULL, NULL);
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
    cl_device_id dev;
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL)) continue;
    cl_device_svm_capabilities caps = 0;
    clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL);
    if (!caps) {
      printf("platform %s: no SVM\n", name);
      return 2;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q =
        clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (clBuildProgram(p, 1, &dev, "", NULL, NULL)) {
      printf("build failed\n");
      return 1;
    }
    cl_kernel k = clCreateKernel(p, "put", &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                N * sizeof(int), NULL, &err);
    void *svm = clSVMAlloc(ctx, CL_MEM_READ_WRITE, N * sizeof(int), 0);
    printf("platform %s, one kernel object:\n", name);
    /* The order zero_copy had: buffer, SVM, then buffer again; then SVM
     * once more. */
    for (int round = 0; round < 2; ++round) {
      printf("  set buffer: %d\n", (int)clSetKernelArg(k, 0, sizeof buf, &buf));
      run(q, k, 10 * round + 1, "a buffer", read_buf, &buf);
      printf("  set SVM:    %d\n", (int)clSetKernelArgSVMPointer(k, 0, svm));
      run(q, k, 10 * round + 2, "SVM", read_svm, svm);
    }
    /* A fresh kernel object after the SVM form: the workaround. */
    cl_kernel k2 = clCreateKernel(p, "put", &err);
    printf("  fresh kernel object, set buffer: %d\n",
           (int)clSetKernelArg(k2, 0, sizeof buf, &buf));
    run(q, k2, 99, "a buffer", read_buf, &buf);
    clReleaseKernel(k2);
    clReleaseKernel(k);
    clSVMFree(ctx, svm);
    clReleaseMemObject(buf);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    printf("%d step(s) failed\n", failures);
    return failures ? 1 : 0;
  }
  printf("no platform%s%s\n", want ? " named " : "", want ? want : "");
  return 2;
}
