/* What the native-handle tests share (tests/native/): clstream's context
 * as the program sees it, a raw OpenCL kernel of the program's own, user
 * events as gates, and the program's commands on a handed-out queue. */
#ifndef CLS_TEST_NATIVE_RAW_H
#define CLS_TEST_NATIVE_RAW_H

#include "clstream_opencl.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

#define N 1024

/* The program's side: clstream's context and a raw kernel of its own. */
static cl_context ctx;
static cl_device_id did;
static cl_program prog;
static cl_kernel fill;
static const char *fill_src =
    "__kernel void fill(__global int *p, int v, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) p[i] = v;\n"
    "}\n";

static inline void raw_setup(void) {
  int dev;
  CK_OK(clsGetDevice(&dev)); /* CLSTREAM_DEVICE's choice */
  CK_OK(clsSetDevice(dev));
  CK_OK(clsOpenCLGetDevice(dev, NULL, &did, &ctx));
  cl_int err;
  prog = clCreateProgramWithSource(ctx, 1, &fill_src, NULL, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  ck_assert_int_eq(clBuildProgram(prog, 1, &did, "", NULL, NULL), CL_SUCCESS);
  fill = clCreateKernel(prog, "fill", &err);
  ck_assert_int_eq(err, CL_SUCCESS);
}

static inline void raw_teardown(void) {
  clReleaseKernel(fill);
  clReleaseProgram(prog);
}

static inline cl_event user_event(void) {
  cl_int err;
  cl_event u = clCreateUserEvent(ctx, &err);
  ck_assert_int_eq(err, CL_SUCCESS);
  return u;
}

static inline void release_gate(cl_event u) {
  ck_assert_int_eq(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(u);
}

/* The program's kernel on q: d[0..N) = v, after `gate` (may be NULL). */
static inline void raw_fill(cl_command_queue q, int *d, int v, cl_event gate,
                            cl_event *ev) {
  cl_mem m;
  size_t off;
  CK_OK(clsOpenCLGetMem(d, &m, &off));
  ck_assert_uint_eq(off, 0);
  cl_uint n = N;
  ck_assert_int_eq(clSetKernelArg(fill, 0, sizeof m, &m), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(fill, 1, sizeof v, &v), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(fill, 2, sizeof n, &n), CL_SUCCESS);
  size_t gsz = N;
  ck_assert_int_eq(clEnqueueNDRangeKernel(q, fill, 1, NULL, &gsz, NULL,
                                          gate ? 1 : 0, gate ? &gate : NULL,
                                          ev),
                   CL_SUCCESS);
  clFlush(q);
}

/* The program's copy of v to d on q after `gate`: clEnqueueSVMMemcpy on
 * the SVM path, clEnqueueWriteBuffer on the buffer path. */
static int host_src[N];
static inline void raw_write(cl_command_queue q, int *d, int v, cl_event gate) {
  for (int i = 0; i < N; ++i) host_src[i] = v;
  cl_mem m;
  size_t off;
  CK_OK(clsOpenCLGetMem(d, &m, &off));
  /* The SVM path's view is a buffer over the SVM pointer itself. */
  void *host_ptr = NULL;
  ck_assert_int_eq(
      clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL),
      CL_SUCCESS);
  cl_int err;
  if (host_ptr != (void *)d)
    err = clEnqueueWriteBuffer(q, m, CL_FALSE, off, sizeof host_src, host_src,
                               1, &gate, NULL);
  else
    err = clEnqueueSVMMemcpy(q, CL_FALSE, d, host_src, sizeof host_src, 1,
                             &gate, NULL);
  ck_assert_int_eq(err, CL_SUCCESS);
  clFlush(q);
}

static inline cl_int status_of(cl_event ev) {
  cl_int st = CL_QUEUED;
  ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof st, &st, NULL),
                   CL_SUCCESS);
  return st;
}

#endif /* CLS_TEST_NATIVE_RAW_H */
