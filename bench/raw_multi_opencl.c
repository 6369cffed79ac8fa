/*
 * The raw OpenCL side of clstream-bench's two-device rows (multi.h): both
 * devices in one context, as clstream holds the devices of one platform,
 * an in-order queue with profiling on each, and 16 MiB on each device in
 * coarse-grained SVM (cl_mem buffers under CLSTREAM_MEMORY=buffers or
 * without SVM, as clstream's buffer path).  The cross-device wait flushes the
 * first queue and puts a barrier on its marker's event into the second; a peer
 * copy is one SVM (or buffer) copy on the destination's queue, then clFinish.
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "multi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                               \
  do {                                                                         \
    cl_int ck_err_ = (call);                                                   \
    if (ck_err_ != CL_SUCCESS)                                                 \
      return raw_fail("%s:%d: %s -> %d", __FILE__, __LINE__, #call, ck_err_);  \
  } while (0)

#define BYTES ((size_t)16 << 20)

static cl_device_id dev[2];
static cl_context ctx;
static cl_program prog;
static cl_kernel k_fill;
static int use_buffers;
static void *svm[2];
static cl_mem mem[2];
static cl_command_queue q[2];
static cl_event ev[2];
static int counter;

/* The nth device named `name` among devs[0..nd). */
static cl_device_id find(cl_device_id *devs, cl_uint nd, const char *name,
                         int nth) {
  for (cl_uint j = 0; j < nd; ++j) {
    char dname[256] = "";
    clGetDeviceInfo(devs[j], CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    if (strcmp(dname, name) == 0 && nth-- == 0) return devs[j];
  }
  return NULL;
}

int raw_multi_open(const char *platform, const char *name_a, int nth_a,
                   const char *name_b, int nth_b, const char *source, char *err,
                   size_t errlen) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  cl_int e;
  if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) np = 0;
  if (np > 16) np = 16;
  dev[0] = dev[1] = NULL;
  for (cl_uint i = 0; i < np && !dev[0]; ++i) {
    char pname[256] = "";
    cl_device_id devs[16 * 9];
    cl_uint nd = 0;
    clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof pname - 1, pname,
                      NULL);
    if (strcmp(pname, platform) != 0 ||
        clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 16, devs, &nd) !=
            CL_SUCCESS)
      continue;
    if (nd > 16) nd = 16;
    /* clstream lists the sub-devices of CLSTREAM_SPLIT_DEVICES after the
     * platform's devices: split them the same way, so that the names and
     * ranks clstream reports find the same devices here. */
    const char *sp = getenv("CLSTREAM_SPLIT_DEVICES");
    int parts = sp ? atoi(sp) : 0;
    for (cl_uint r = 0, roots = nd; parts >= 2 && r < roots; ++r) {
      cl_uint cu = 0, got = 0;
      clGetDeviceInfo(devs[r], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu,
                      NULL);
      cl_uint per = cu / (cl_uint)parts ? cu / (cl_uint)parts : 1;
      cl_device_partition_property props[] = {
          CL_DEVICE_PARTITION_EQUALLY, (cl_device_partition_property)per, 0};
      if (clCreateSubDevices(devs[r], props, 8, devs + nd, &got) == CL_SUCCESS)
        nd += got < 8 ? got : 8;
    }
    dev[0] = find(devs, nd, name_a, nth_a);
    dev[1] = find(devs, nd, name_b, nth_b);
  }
  if (!dev[0] || !dev[1]) {
    snprintf(err, errlen, "raw OpenCL: no '%s' (%d) and '%s' (%d) on '%s'",
             name_a, nth_a, name_b, nth_b, platform);
    return -1;
  }
  ctx = clCreateContext(NULL, 2, dev, NULL, NULL, &e);
  if (!ctx) {
    snprintf(err, errlen, "raw OpenCL: two-device context -> %d", e);
    return -1;
  }
  prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &e);
  if (!prog || clBuildProgram(prog, 2, dev, NULL, NULL, NULL) != CL_SUCCESS ||
      !(k_fill = clCreateKernel(prog, "fill", &e))) {
    snprintf(err, errlen, "raw OpenCL: two-device build failed");
    return -1;
  }
  const char *m = getenv("CLSTREAM_MEMORY");
  use_buffers = m && !strcmp(m, "buffers");
  /* A device without coarse-grained SVM (rusticl): buffers, as clstream
   * takes them there. */
  for (int i = 0; i < 2; ++i) {
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(dev[i], CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps,
                        NULL) != CL_SUCCESS ||
        !(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
      use_buffers = 1;
  }
  for (int i = 0; i < 2; ++i) {
    if (use_buffers)
      mem[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, BYTES, NULL, &e);
    else
      svm[i] = clSVMAlloc(ctx, CL_MEM_READ_WRITE, BYTES, 0);
    if (!mem[i] && !svm[i]) {
      snprintf(err, errlen, "raw OpenCL: 16 MiB allocation failed");
      return -1;
    }
  }
  return 0;
}

void raw_multi_close(void) {
  for (int i = 0; i < 2; ++i) {
    if (mem[i]) clReleaseMemObject(mem[i]);
    if (svm[i]) clSVMFree(ctx, svm[i]);
    mem[i] = NULL;
    svm[i] = NULL;
  }
  if (k_fill) clReleaseKernel(k_fill);
  if (prog) clReleaseProgram(prog);
  if (ctx) clReleaseContext(ctx);
  k_fill = NULL;
  prog = NULL;
  ctx = NULL;
}

int raw_multi_setup(int sc) {
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                 0};
  cl_int e;
  (void)sc;
  for (int i = 0; i < 2; ++i)
    if (!(q[i] = clCreateCommandQueueWithProperties(ctx, dev[i], props, &e)))
      return raw_fail("clCreateCommandQueueWithProperties -> %d", e);
  return 0;
}

int raw_multi_reset(int sc) {
  (void)sc;
  return 0;
}

/* fill(memory of device i, v, 1) on queue i, one work-item. */
static int launch_fill(int i) {
  int v = ++counter;
  unsigned n = 1;
  size_t g = 1;
  if (use_buffers)
    CK(clSetKernelArg(k_fill, 0, sizeof(cl_mem), &mem[i]));
  else
    CK(clSetKernelArgSVMPointer(k_fill, 0, svm[i]));
  CK(clSetKernelArg(k_fill, 1, sizeof v, &v));
  CK(clSetKernelArg(k_fill, 2, sizeof n, &n));
  CK(clEnqueueNDRangeKernel(q[i], k_fill, 1, NULL, &g, &g, 0, NULL, NULL));
  return 0;
}

/* "Record" on queue i: a marker whose event replaces the previous one. */
static int record(int i) {
  cl_event m;
  CK(clEnqueueMarkerWithWaitList(q[i], 0, NULL, &m));
  if (ev[i]) clReleaseEvent(ev[i]);
  ev[i] = m;
  return 0;
}

int raw_multi_run(int sc, unsigned inner) {
  if (sc == SC_XDEV_WAIT) {
    for (unsigned i = 0; i < inner; ++i) {
      if (launch_fill(0) || record(0)) return -1;
      CK(clFlush(q[0])); /* queue 1 waits on its marker */
      CK(clEnqueueBarrierWithWaitList(q[1], 1, &ev[0], NULL));
      if (launch_fill(1) || record(1)) return -1;
      CK(clWaitForEvents(1, &ev[1]));
    }
    return 0;
  }
  size_t n = bench_multi_bytes(sc);
  for (unsigned i = 0; i < inner; ++i) {
    if (use_buffers)
      CK(clEnqueueCopyBuffer(q[1], mem[0], mem[1], 0, 0, n, 0, NULL, NULL));
    else
      CK(clEnqueueSVMMemcpy(q[1], CL_FALSE, svm[1], svm[0], n, 0, NULL, NULL));
    CK(clFinish(q[1]));
  }
  return 0;
}

void raw_multi_teardown(int sc) {
  (void)sc;
  for (int i = 0; i < 2; ++i) {
    if (ev[i]) clReleaseEvent(ev[i]);
    ev[i] = NULL;
    if (q[i]) clFinish(q[i]), clReleaseCommandQueue(q[i]);
    q[i] = NULL;
  }
}
