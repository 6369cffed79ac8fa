/* OpenCL backend: device memory is coarse-grained SVM; copies and fills
 * are SVM commands on the stream's queue. */
#include "ocl.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

clsError_t cls__b_malloc(int dev, size_t size, void **out) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  void *p = clSVMAlloc(d->ctx, CL_MEM_READ_WRITE, size, 0);
  if (!p)
    return cls__reason(clsErrorMemoryAllocation,
                       "clSVMAlloc of %zu bytes failed on device %d", size,
                       dev);
  *out = p;
  return clsSuccess;
}

clsError_t cls__b_free(int dev, void *p) {
  clSVMFree(cls__ocl_device_get(dev)->ctx, p);
  return clsSuccess;
}

/* Host memory for async copies: page-locked where the driver can give it,
 * through OpenCL's one portable way, a buffer allocated by the driver in
 * host memory (CL_MEM_ALLOC_HOST_PTR) and kept mapped until it is freed.
 * Copies read and write it in place, as host memory. */
typedef struct cls__pinned {
  void *p;
  cl_mem buf;
  cls__ocl_device *dev;
  struct cls__pinned *next;
} cls__pinned;

static pthread_mutex_t cls__pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__pinned *cls__pinned_list;

clsError_t cls__b_malloc_host(int dev, size_t size, void **out) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  cls__pinned *pn = malloc(sizeof *pn);
  if (!pn) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  cl_int err;
  pn->buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                           size, NULL, &err);
  if (err == CL_SUCCESS) {
    pn->p = clEnqueueMapBuffer(d->mapq, pn->buf, CL_TRUE,
                               CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL,
                               NULL, &err);
    if (err != CL_SUCCESS) clReleaseMemObject(pn->buf);
  }
  if (err != CL_SUCCESS) {
    free(pn);
    return cls__reason(clsErrorMemoryAllocation,
                       "allocating %zu bytes of host memory failed "
                       "(OpenCL error %d)",
                       size, (int)err);
  }
  pn->dev = d;
  pthread_mutex_lock(&cls__pinned_lock);
  pn->next = cls__pinned_list;
  cls__pinned_list = pn;
  pthread_mutex_unlock(&cls__pinned_lock);
  *out = pn->p;
  return clsSuccess;
}

clsError_t cls__b_free_host(int dev, void *p) {
  (void)dev;
  pthread_mutex_lock(&cls__pinned_lock);
  cls__pinned **at = &cls__pinned_list;
  while (*at && (*at)->p != p) at = &(*at)->next;
  cls__pinned *pn = *at;
  if (pn) *at = pn->next;
  pthread_mutex_unlock(&cls__pinned_lock);
  if (!pn) return clsSuccess;
  /* The buffer goes once the unmap is done (OpenCL defers a released
   * object's deletion until the commands that use it finish).  A buffer
   * released while still mapped keeps its host memory (PoCL), so a failed
   * unmap (out of resources: transient) is retried. */
  for (int i = 0; i < 100; ++i) {
    if (clEnqueueUnmapMemObject(pn->dev->mapq, pn->buf, p, 0, NULL, NULL) ==
        CL_SUCCESS) {
      clFlush(pn->dev->mapq);
      break;
    }
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  clReleaseMemObject(pn->buf);
  free(pn);
  return clsSuccess;
}

/* Finishes an enqueue begun with cls__ocl_begin and, if `blocking`,
 * waits for the command. */
static clsError_t cls__finish_cmd(cls__bstream *s, cls__ocl_batch *b,
                                  cl_int err, cl_event ev, int blocking,
                                  const char *what) {
  if (err == CL_SUCCESS && blocking) clRetainEvent(ev);
  cls__ocl_end(s, b, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return cls__ocl_error(err, what);
  if (!blocking) return clsSuccess;
  clsError_t r = cls__ocl_wait(ev, 0);
  clReleaseEvent(ev);
  return r;
}

/* A staged source, freed once its copy completes or fails. */
typedef struct cls__staging {
  cls__ocl_watch watch;
  unsigned char data[];
} cls__staging;

static void cls__staging_run(cls__ocl_job *j) {
  cls__ocl_watch_done((cls__ocl_watch *)j); /* frees the staging copy */
}

clsError_t cls__b_memcpy(cls__bstream *s, void *dst, const void *src,
                         size_t n, clsMemcpyKind kind, int mode) {
  (void)kind; /* SVM copies take any mix of SVM and host pointers */
  mode &= CLS__COPY_HOW; /* OpenCL has no synchronous call of its own */
  cls__staging *staging = NULL;
  if (mode == CLS__COPY_STAGE) {
    staging = n <= SIZE_MAX - sizeof *staging ? malloc(sizeof *staging + n)
                                              : NULL;
    if (staging) {
      memcpy(staging->data, src, n);
      staging->watch.job.run = cls__staging_run;
    } else {
      mode = CLS__COPY_BLOCKING; /* no room to stage: wait instead */
    }
  }
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin(s, &b);
  b.what = "memcpy";
  b.cat = "copy";
  b.work = 1;
  cl_int err = clEnqueueSVMMemcpy(s->q, CL_FALSE, dst,
                                  staging ? staging->data : src, n, b.n,
                                  b.list, &ev);
  if (staging && err == CL_SUCCESS)
    cls__ocl_watch_event(&staging->watch, ev); /* frees it when done */
  else
    free(staging);
  return cls__finish_cmd(s, &b, err, ev, mode == CLS__COPY_BLOCKING,
                         "clEnqueueSVMMemcpy");
}

clsError_t cls__b_memset(cls__bstream *s, void *dst, int value, size_t n,
                         int mode) {
  unsigned char v = (unsigned char)value;
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin(s, &b);
  b.what = "memset";
  b.cat = "set";
  b.work = 1;
  cl_int err =
      clEnqueueSVMMemFill(s->q, dst, &v, 1, n, b.n, b.list, &ev);
  return cls__finish_cmd(s, &b, err, ev,
                         (mode & CLS__COPY_HOW) == CLS__COPY_BLOCKING,
                         "clEnqueueSVMMemFill");
}
