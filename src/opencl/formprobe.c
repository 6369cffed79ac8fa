/* OpenCL backend: the probe of kernel argument forms (layer 3), run on
 * first need; facts.c decides svm_args_stick from what it saw.
 *
 * On a device whose memory is SVM, one kernel argument may hold an SVM
 * pointer at one launch (device memory) and a buffer at another (a host
 * buffer: pinned, registered or managed memory where the device lacks
 * fine-grained SVM; a program's adopted buffer).  NVIDIA's driver (580)
 * refuses the buffer on an argument of a kernel object that once held an
 * SVM pointer: clSetKernelArg takes it and the enqueue fails with
 * CL_INVALID_KERNEL_ARGS (docs/repro/arg_form_switch.c).  The probe asks
 * the driver itself: one kernel object, its pointer argument set in turn
 * to a buffer, an SVM pointer and the buffer again, each launch checked.
 * It costs one tiny build (30-50 ms on PoCL 3.1, its kernel cache warm)
 * and three one-item launches (0.3-0.4 ms), so it runs only the first
 * time a launch passes a buffer on an argument that held an SVM pointer,
 * once per device, never at start-up.  Owns the probe's lock (a leaf)
 * and the device's forms_probed. */
#include "memory.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static pthread_mutex_t cls__probe_lock = PTHREAD_MUTEX_INITIALIZER;

static const char cls__probe_src[] =
    "__kernel void cls__form_probe(__global int *p, int v) { p[0] = v; }\n";

/* Whether a code is the driver's lack of resources (transient), rather
 * than its answer. */
static int cls__transient(cl_int err) {
  return err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
         err == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

/* Launches k with value v on q and reads back the int it wrote (through
 * the buffer `mem` or at SVM pointer `svm`): CL_SUCCESS when it ran and
 * wrote v, else the failed call's code (CL_INVALID_VALUE: a wrong
 * value). */
static cl_int cls__probe_step(cl_command_queue q, cl_kernel k, int v,
                              cl_mem mem, void *svm) {
  size_t one = 1;
  int got = -1;
  cl_int err = clSetKernelArg(k, 1, sizeof v, &v);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clFinish(q);
  if (err == CL_SUCCESS && mem)
    err = clEnqueueReadBuffer(q, mem, CL_TRUE, 0, sizeof got, &got, 0, NULL,
                              NULL);
  else if (err == CL_SUCCESS)
    err = clEnqueueSVMMemcpy(q, CL_TRUE, &got, svm, sizeof got, 0, NULL, NULL);
  return err == CL_SUCCESS && got != v ? CL_INVALID_VALUE : err;
}

/* Asks d's driver (on a queue of its own): *seen 1 where it refuses a
 * buffer after an SVM pointer, 0 where it takes it.  A call that fails
 * before the answer (the driver out of resources) is returned, and
 * nothing is decided: the launch that asked fails with it, and the next
 * one asks again. */
static cl_int cls__probe(cls__ocl_device *d, int *seen) {
  *seen = 0;
  /* Only a device whose memory is SVM passes both forms. */
  if (d->facts.buffers || !d->svm) return CL_SUCCESS;
  cl_int err;
  const char *what;
  cl_command_queue q = cls__ocl_queue(d, 0, 0, &err, &what);
  if (!q) return err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES;
  const char *src = cls__probe_src;
  cl_program prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
  cl_kernel k = NULL;
  cl_mem mem = NULL;
  void *svm = NULL;
  if (prog) err = clBuildProgram(prog, 1, &d->id, "", NULL, NULL);
  if (prog && err == CL_SUCCESS)
    k = clCreateKernel(prog, "cls__form_probe", &err);
  if (k) mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
  if (mem && !(svm = clSVMAlloc(d->ctx, CL_MEM_READ_WRITE, 64, 0)))
    err = CL_OUT_OF_RESOURCES;
  /* A buffer on the fresh object and then an SVM pointer must work for
   * the third step to say anything. */
  if (svm && (err = clSetKernelArg(k, 0, sizeof mem, &mem)) == CL_SUCCESS &&
      (err = cls__probe_step(q, k, 1, mem, NULL)) == CL_SUCCESS &&
      (err = clSetKernelArgSVMPointer(k, 0, svm)) == CL_SUCCESS &&
      (err = cls__probe_step(q, k, 2, NULL, svm)) == CL_SUCCESS) {
    err = clSetKernelArg(k, 0, sizeof mem, &mem);
    if (err == CL_SUCCESS) err = cls__probe_step(q, k, 3, mem, NULL);
    *seen = err != CL_SUCCESS; /* CL_INVALID_KERNEL_ARGS on NVIDIA's */
    if (cls__transient(err))
      *seen = 0;
    else
      err = CL_SUCCESS;
  } else if (err == CL_SUCCESS) {
    err = CL_OUT_OF_RESOURCES; /* no object was made, yet no code said why */
  }
  /* Nothing of the probe may still run when its SVM memory goes (a
   * failed step may have left a launch queued): the wait is retried, and
   * a failed one is the probe's failure too. */
  cl_int fin = CL_SUCCESS;
  for (int t = 0; k && t < 100; ++t) {
    cl_int f = clFinish(q);
    if (f == CL_SUCCESS) break;
    if (fin == CL_SUCCESS) fin = f;
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  if (err == CL_SUCCESS && fin != CL_SUCCESS) {
    err = fin;
    *seen = 0;
  }
  if (svm) clSVMFree(d->ctx, svm);
  if (mem) clReleaseMemObject(mem);
  if (k) clReleaseKernel(k);
  if (prog) clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  return err;
}

cl_int cls__ocl_svm_args_stick(cls__ocl_device *d, int *stick) {
  if (CLS__LIKELY(
          atomic_load_explicit(&d->forms_probed, memory_order_acquire))) {
    *stick = d->facts.svm_args_stick;
    return CL_SUCCESS;
  }
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&cls__probe_lock);
  if (!atomic_load_explicit(&d->forms_probed, memory_order_relaxed)) {
    int seen;
    err = cls__probe(d, &seen);
    if (err == CL_SUCCESS) {
      cls__facts_svm_args(d, seen);
      atomic_store_explicit(&d->forms_probed, 1, memory_order_release);
    }
  }
  pthread_mutex_unlock(&cls__probe_lock);
  *stick = d->facts.svm_args_stick;
  return err;
}
