/*
 * The raw OpenCL side of clstream-bench's graph rows (graph_10, graph_100,
 * graph_1000): the fastest way a hand-written OpenCL program issues the
 * same N tiny kernels again and again.  At setup it makes N kernel objects
 * and sets their arguments once (kernel i stores i + 1); a run enqueues
 * them on one in-order queue without events and ends in clFinish.  This
 * is what a graph replay prepared at instantiate can at best reduce to on
 * a driver without a usable command buffer.
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "raw.h"

#include <stdlib.h>

/* From raw_opencl.c: its device, program and memory. */
void raw_cl_handles(cl_context *ctx, cl_device_id *dev, cl_program *prog);
cl_int raw_cl_set_ptr(cl_kernel k, cl_uint i, int *t);
cl_int raw_cl_read_first(cl_command_queue q, int *out);
int *raw_cl_buf(void);

#define CK(call)                                                               \
  do {                                                                         \
    cl_int ck_err_ = (call);                                                   \
    if (ck_err_ != CL_SUCCESS)                                                 \
      return raw_fail("%s:%d: %s -> %d", __FILE__, __LINE__, #call, ck_err_);  \
  } while (0)

static cl_command_queue gq;
static cl_kernel *gk;
static unsigned gn;

int raw_graph_run(int sc, unsigned inner) {
  size_t one = 1;
  (void)sc;
  (void)inner; /* inner is N: one run issues the N kernels once */
  for (unsigned i = 0; i < gn; ++i)
    CK(clEnqueueNDRangeKernel(gq, gk[i], 1, NULL, &one, &one, 0, NULL, NULL));
  CK(clFinish(gq));
  return 0;
}

int raw_graph_setup(int sc, unsigned param) {
  cl_context ctx;
  cl_device_id dev;
  cl_program prog;
  cl_int e;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                 0};
  int *buf = raw_cl_buf(), got = 0;
  unsigned one = 1;

  (void)param;
  raw_cl_handles(&ctx, &dev, &prog);
  gn = SC_GRAPH_KERNELS(sc);
  gq = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
  if (!gq) return raw_fail("clCreateCommandQueueWithProperties -> %d", e);
  gk = calloc(gn, sizeof *gk);
  if (!gk) return raw_fail("out of memory");
  for (unsigned i = 0; i < gn; ++i) {
    int v = (int)i + 1;
    gk[i] = clCreateKernel(prog, "fill", &e);
    if (!gk[i]) return raw_fail("clCreateKernel -> %d", e);
    CK(raw_cl_set_ptr(gk[i], 0, buf));
    CK(clSetKernelArg(gk[i], 1, sizeof v, &v));
    CK(clSetKernelArg(gk[i], 2, sizeof one, &one));
  }
  /* One run, checked: the last kernel's value is what the buffer holds. */
  if (raw_graph_run(sc, gn)) return -1;
  CK(raw_cl_read_first(gq, &got));
  if (got != (int)gn)
    return raw_fail("graph_%u raw: buffer holds %d, expected %u", gn, got, gn);
  return 0;
}

int raw_graph_reset(int sc) {
  (void)sc;
  return 0;
}

void raw_graph_teardown(int sc) {
  (void)sc;
  if (gq) clFinish(gq);
  for (unsigned i = 0; gk && i < gn; ++i)
    if (gk[i]) clReleaseKernel(gk[i]);
  free(gk);
  gk = NULL;
  gn = 0;
  if (gq) clReleaseCommandQueue(gq);
  gq = NULL;
}
