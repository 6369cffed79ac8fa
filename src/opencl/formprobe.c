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

static pthread_mutex_t cls__probe_lock = PTHREAD_MUTEX_INITIALIZER;

static const char cls__probe_src[] =
    "__kernel void cls__form_probe(__global int *p, int v) { p[0] = v; }\n";

/* Launches k with value v on q and reads back the int it wrote (through
 * the buffer `mem` or at SVM pointer `svm`); 1 when it ran and wrote v. */
static int cls__probe_step(cl_command_queue q, cl_kernel k, int v, cl_mem mem,
                           void *svm) {
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
  clFinish(q); /* a refused step leaves nothing behind */
  return err == CL_SUCCESS && got == v;
}

/* 1 where d refuses a buffer after an SVM pointer, 0 where it takes it,
 * -1 where the probe could not run (on a queue of its own). */
static int cls__probe(cls__ocl_device *d) {
  /* Only a device whose memory is SVM passes both forms. */
  if (d->facts.buffers || !d->svm) return 0;
  cl_int err;
  const char *what;
  cl_command_queue q = cls__ocl_queue(d, 0, 0, &err, &what);
  if (!q || err != CL_SUCCESS) return -1;
  const char *src = cls__probe_src;
  cl_program prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
  cl_kernel k = NULL;
  cl_mem mem = NULL;
  void *svm = NULL;
  int seen = -1;
  if (prog && clBuildProgram(prog, 1, &d->id, "", NULL, NULL) == CL_SUCCESS)
    k = clCreateKernel(prog, "cls__form_probe", &err);
  if (k) mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
  if (mem) svm = clSVMAlloc(d->ctx, CL_MEM_READ_WRITE, 64, 0);
  /* A buffer on the fresh object and then an SVM pointer must work for
   * the third step to say anything. */
  if (svm && clSetKernelArg(k, 0, sizeof mem, &mem) == CL_SUCCESS &&
      cls__probe_step(q, k, 1, mem, NULL) &&
      clSetKernelArgSVMPointer(k, 0, svm) == CL_SUCCESS &&
      cls__probe_step(q, k, 2, NULL, svm))
    seen = !(clSetKernelArg(k, 0, sizeof mem, &mem) == CL_SUCCESS &&
             cls__probe_step(q, k, 3, mem, NULL));
  if (svm) clSVMFree(d->ctx, svm);
  if (mem) clReleaseMemObject(mem);
  if (k) clReleaseKernel(k);
  if (prog) clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  return seen;
}

int cls__ocl_svm_args_stick(cls__ocl_device *d) {
  if (CLS__LIKELY(atomic_load_explicit(&d->forms_probed, memory_order_acquire)))
    return d->facts.svm_args_stick;
  pthread_mutex_lock(&cls__probe_lock);
  if (!atomic_load_explicit(&d->forms_probed, memory_order_relaxed)) {
    cls__facts_svm_args(d, cls__probe(d));
    atomic_store_explicit(&d->forms_probed, 1, memory_order_release);
  }
  pthread_mutex_unlock(&cls__probe_lock);
  return d->facts.svm_args_stick;
}
