/*
 * libclsfault.so, CLSFAULT_SVM_ARGS=stick: the shim enforces NVIDIA's rule
 * for kernel argument forms on any driver, so that CI on PoCL keeps the
 * library's handling of it (src/opencl/launch.c) working without a GPU.
 *
 * NVIDIA's OpenCL (580) refuses a buffer on an argument of a kernel object
 * that once held an SVM pointer: clSetKernelArg takes it, and the enqueue
 * fails with CL_INVALID_KERNEL_ARGS (docs/repro/arg_form_switch.c).  Here
 * the shim keeps, for each kernel object, which arguments have held an SVM
 * pointer (clSetKernelArgSVMPointer, NULL included) and which hold a
 * buffer now (clSetKernelArg with a cl_mem-sized value on such an
 * argument: a pointer parameter takes nothing else, and the buffer form of
 * NULL counts), and clEnqueueNDRangeKernel refuses a kernel with both on
 * one argument.  A kernel object made by clCreateKernel starts clean (its
 * handle may be a released one's).  Arguments past the 64th are not kept.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "argforms.h"

typedef struct kforms {
  cl_kernel k;
  uint64_t svm_ever; /* arguments that have held an SVM pointer */
  uint64_t buffer;   /* arguments that hold a buffer now */
  struct kforms *next;
} kforms;

#define NBUCKETS 1024
static kforms *buckets[NBUCKETS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int on = -1;

int clsfault_forms_on(void) {
  if (on < 0) {
    const char *v = getenv("CLSFAULT_SVM_ARGS");
    on = v && strcmp(v, "stick") == 0;
  }
  return on;
}

static kforms **slot_of(cl_kernel k) {
  uintptr_t h = (uintptr_t)k;
  h ^= h >> 17;
  kforms **at = &buckets[(h >> 4) % NBUCKETS];
  while (*at && (*at)->k != k) at = &(*at)->next;
  return at;
}

/* The record of k (under lock), made on first need; NULL when out of
 * memory. */
static kforms *find(cl_kernel k) {
  kforms **at = slot_of(k);
  if (!*at && (*at = calloc(1, sizeof **at))) (*at)->k = k;
  return *at;
}

void clsfault_forms_created(cl_kernel k) {
  if (!k) return;
  pthread_mutex_lock(&lock);
  kforms *f = find(k);
  if (f) f->svm_ever = f->buffer = 0;
  pthread_mutex_unlock(&lock);
}

void clsfault_forms_set(cl_kernel k, cl_uint i, int svm, size_t size) {
  if (i >= 64) return;
  uint64_t bit = (uint64_t)1 << i;
  pthread_mutex_lock(&lock);
  kforms *f = find(k);
  if (f && svm) {
    f->svm_ever |= bit;
    f->buffer &= ~bit;
  } else if (f && size == sizeof(cl_mem) && (f->svm_ever & bit)) {
    f->buffer |= bit;
  } else if (f) {
    f->buffer &= ~bit;
  }
  pthread_mutex_unlock(&lock);
}

int clsfault_forms_refused(cl_kernel k) {
  pthread_mutex_lock(&lock);
  kforms *f = *slot_of(k);
  int bad = f && (f->svm_ever & f->buffer) != 0;
  pthread_mutex_unlock(&lock);
  return bad;
}
