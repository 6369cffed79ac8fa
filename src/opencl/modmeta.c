/*
 * OpenCL backend: what a module learns from the device once, after its
 * build, and its globals (kernel_rw.c says how the source was rewritten):
 *
 * - cls__meta, the helper kernel the rewrite appended, writes the sizeof
 *   of every by-value parameter type the library cannot size itself and
 *   of every global; one work-item, run on a private queue, read back
 *   with a blocking read.
 * - The globals are laid out in one device allocation (each on a 128-byte
 *   boundary after the previous one, the rule the rewritten source
 *   computes too), and cls__ginit copies their initial values in.
 *
 * Runs in the thread loading the module, before any launch can see it.
 */
#include "function.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs helper kernel `name` of m as one work-item on q with argument 0
 * set to `mem` (a buffer) or `svm` (an SVM pointer). */
static cl_int cls__run1(cls__bmodule *m, cl_command_queue q, const char *name,
                        cl_mem mem, void *svm, const char **what) {
  cl_int err;
  *what = "clCreateKernel";
  cl_kernel k = clCreateKernel(m->prog, name, &err);
  if (!k) return err ? err : CL_INVALID_KERNEL;
  *what = "clSetKernelArg";
  if (mem)
    err = clSetKernelArg(k, 0, sizeof mem, &mem);
  else
    err = clSetKernelArgSVMPointer(k, 0, svm);
  const size_t one = 1;
  if (err == CL_SUCCESS) {
    *what = "clEnqueueNDRangeKernel";
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
  }
  clReleaseKernel(k);
  return err;
}

clsError_t cls__ocl_module_meta(cls__bmodule *m) {
  cls__rw *rw = &m->rw;
  if (!rw->nsizes && !rw->nglobals) return clsSuccess;
  cls__ocl_device *d = m->dev;
  size_t n =
      2 * (size_t)(rw->nsizes > rw->nglobals ? rw->nsizes : rw->nglobals);
  cl_ulong *host = calloc(n, sizeof *host);
  if (!host)
    return cls__reason(clsErrorMemoryAllocation,
                       "out of host memory measuring a module");
  cl_int err;
  const char *what = "clCreateBuffer";
  cl_command_queue q = NULL;
  cl_mem out =
      clCreateBuffer(d->ctx, CL_MEM_WRITE_ONLY, n * sizeof *host, NULL, &err);
  if (out) q = cls__ocl_queue(d, 0, 0, &err, &what);
  if (q) err = cls__run1(m, q, CLS__RW_META, out, NULL, &what);
  if (q && err == CL_SUCCESS) {
    what = "clEnqueueReadBuffer";
    err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof *host, host, 0,
                              NULL, NULL);
  }
  clsError_t rc = clsSuccess;
  if (err != CL_SUCCESS) {
    rc = cls__ocl_error(err, what);
    goto done;
  }
  for (int i = 0; i < rw->nsizes; i++) rw->sizes[i].size = host[2 * i];
  size_t at = 0;
  for (int i = 0; i < rw->nglobals; i++) {
    rw->globals[i].off = at;
    rw->globals[i].size = host[2 * i + 1];
    at = (at + rw->globals[i].size + 127) / 128 * 128;
  }
  if (rw->nglobals) {
    rc = cls__b_malloc(d->index, at ? at : 1, &m->gstore);
    if (rc != clsSuccess) goto done;
    m->gbytes = at ? at : 1;
    cl_mem mem = NULL;
    size_t off;
    if (!cls__ocl_buffer_at(m->gstore, &mem, &off, NULL)) mem = NULL;
    err = cls__run1(m, q, CLS__RW_GINIT, mem, m->gstore, &what);
    if (err == CL_SUCCESS) {
      what = "clFinish";
      err = clFinish(q);
    }
    if (err != CL_SUCCESS) rc = cls__ocl_error(err, what);
  }
done:
  /* After a failure the helper kernels may still run: the module's free
   * (clSVMFree of the globals) must come after them. */
  if (q && rc != clsSuccess) (void)clFinish(q);
  if (q) clReleaseCommandQueue(q);
  if (out) clReleaseMemObject(out);
  free(host);
  return rc;
}

clsError_t cls__b_module_global(cls__bmodule *m, const char *name, void **ptr,
                                size_t *size) {
  for (int i = 0; i < m->rw.nglobals; i++)
    if (strcmp(m->rw.globals[i].name, name) == 0) {
      *ptr = (char *)m->gstore + m->rw.globals[i].off;
      *size = m->rw.globals[i].size;
      return clsSuccess;
    }
  return cls__reason(clsErrorSymbolNotFound,
                     "no module global named '%s' (declared with "
                     "CLS_DEVICE_GLOBAL or CLS_CONSTANT) in the module",
                     name);
}
