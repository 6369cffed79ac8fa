/* OpenCL backend: device memory is coarse-grained SVM; copies and fills
 * are SVM commands on the stream's queue.  A copy touching memory of a
 * device in another OpenCL context (another platform) is staged through
 * host memory by a host job in the stream's order (cls__b_memcpy_across). */
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
  cls__ocl_end_cmd(s, b, err == CL_SUCCESS, ev);
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

/* Enqueues an SVM copy of n bytes on s and, if `blocking`, waits for it.
 * With `stage` (holding the source) the stage is freed once the copy
 * completes or fails; where the enqueue itself fails, *enqueued is 0 and
 * the stage stays the caller's. */
static clsError_t cls__enqueue_copy(cls__bstream *s, void *dst,
                                    const void *src, size_t n,
                                    cls__staging *stage, int blocking,
                                    int *enqueued) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin(s, &b);
  b.what = "memcpy";
  b.cat = "copy";
  b.work = 1;
  /* An event only where someone needs it: a wait, or the stage's watch. */
  cl_int err = clEnqueueSVMMemcpy(s->q, CL_FALSE, dst, src, n, b.n, b.list,
                                  blocking || stage ? &ev
                                                    : cls__ocl_event_slot(s, &ev));
  *enqueued = err == CL_SUCCESS;
  if (stage && err == CL_SUCCESS) {
    stage->watch.job.run = cls__staging_run;
    cls__ocl_watch_event(&stage->watch, ev); /* frees it when done */
  }
  return cls__finish_cmd(s, &b, err, ev, blocking, "clEnqueueSVMMemcpy");
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
    } else {
      mode = CLS__COPY_BLOCKING; /* no room to stage: wait instead */
    }
  }
  int enqueued;
  clsError_t r = cls__enqueue_copy(s, dst, staging ? staging->data : src, n,
                                   staging, mode == CLS__COPY_BLOCKING,
                                   &enqueued);
  if (!enqueued) free(staging);
  return r;
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
  int blocking = (mode & CLS__COPY_HOW) == CLS__COPY_BLOCKING;
  cl_int err = clEnqueueSVMMemFill(s->q, dst, &v, 1, n, b.n, b.list,
                                   blocking ? &ev : cls__ocl_event_slot(s, &ev));
  return cls__finish_cmd(s, &b, err, ev, blocking, "clEnqueueSVMMemFill");
}

/* ---- Copies across OpenCL contexts -------------------------------------- */

/* One staged copy: the foreign sides are read and written by a host job
 * that runs in the stream's order, on a worker thread, with blocking SVM
 * copies on the foreign devices' own queues, each after the work that the
 * foreign device's legacy stream had to wait for at the time of the call
 * (its `after` event, recorded then). */
typedef struct cls__across {
  cls__ocl_device *src_dev, *dst_dev; /* foreign sides, or NULL */
  cls__bevent *src_after, *dst_after;
  const void *src; /* read by the job: a foreign or a host source */
  void *dst;       /* written by the job: a foreign or a host destination */
  size_t n;
  int keep_stage;  /* a later command of the stream still reads the stage */
  cls__staging *stage;
} cls__across;

/* A blocking SVM copy on a foreign device's own queue, retried while the
 * driver is short of resources. */
static cl_int cls__foreign_copy(cls__ocl_device *d, void *dst, const void *src,
                                size_t n) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 100; ++i) {
    err = clEnqueueSVMMemcpy(d->mapq, CL_TRUE, dst, src, n, 0, NULL, NULL);
    if (err != CL_OUT_OF_RESOURCES && err != CL_OUT_OF_HOST_MEMORY) break;
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  return err;
}

static void cls__across_run(void *job, clsError_t status) {
  cls__across *x = job;
  unsigned char *stage = x->stage->data;
  cl_int err = CL_SUCCESS;
  if (status == clsSuccess) {
    if (x->src_dev) {
      if (cls__b_event_sync(x->src_after) == clsSuccess)
        err = cls__foreign_copy(x->src_dev, stage, x->src, x->n);
    } else if (x->src) {
      memcpy(stage, x->src, x->n);
    }
    if (err == CL_SUCCESS && x->dst_dev) {
      if (cls__b_event_sync(x->dst_after) == clsSuccess)
        err = cls__foreign_copy(x->dst_dev, x->dst, stage, x->n);
    } else if (err == CL_SUCCESS && x->dst) {
      memcpy(x->dst, stage, x->n);
    }
  }
  if (err != CL_SUCCESS) {
    /* Nothing is left to fail: the call returned long ago (PoCL aborts
     * when a user event with dependents is set to an error).  Say so. */
    cls__finish("clsMemcpyAsync", cls__ocl_error(err, "the staged copy "
                                                      "across OpenCL "
                                                      "platforms"));
  }
  if (x->src_after) cls__b_event_destroy(x->src_after);
  if (x->dst_after) cls__b_event_destroy(x->dst_after);
  if (!x->keep_stage) free(x->stage);
  free(x);
}

/* The position of the work that `d`'s legacy stream would wait for now
 * (its own and its blocking streams'), as an untimed event. */
static clsError_t cls__legacy_position(cls__ocl_device *d, cls__bevent **out) {
  cls__bstream *legacy;
  clsError_t r = cls__b_stream_default(d->index, 0, &legacy);
  if (r == clsSuccess) r = cls__b_event_create(d->index,
                                               clsEventDisableTiming, out);
  if (r == clsSuccess && (r = cls__b_event_record(*out, legacy)) != clsSuccess)
    cls__b_event_destroy(*out);
  return r;
}

clsError_t cls__b_memcpy_across(cls__bstream *s, void *dst, int dst_dev,
                                const void *src, int src_dev, size_t n,
                                int mode) {
  mode &= CLS__COPY_HOW;
  cls__across *x = calloc(1, sizeof *x);
  cls__staging *stage =
      n <= SIZE_MAX - sizeof *stage ? malloc(sizeof *stage + n) : NULL;
  if (!x || !stage) {
    free(x);
    free(stage);
    return cls__reason(clsErrorMemoryAllocation,
                       "out of host memory staging a copy of %zu bytes", n);
  }
  x->stage = stage;
  x->n = n;
  clsError_t r = clsSuccess;
  cls__ocl_device *sd = src_dev >= 0 ? cls__ocl_device_get(src_dev) : NULL;
  cls__ocl_device *dd = dst_dev >= 0 ? cls__ocl_device_get(dst_dev) : NULL;
  /* Device memory in the stream's own context goes through its queue,
   * before or after the job; host memory is read and written by the job
   * (a pageable source the caller may reuse is read now). */
  int src_local_dev = sd && sd->ctx == s->dev->ctx;
  int dst_local_dev = dd && dd->ctx == s->dev->ctx;
  if (sd && !src_local_dev) {
    x->src_dev = sd;
    r = cls__legacy_position(sd, &x->src_after);
  }
  if (r == clsSuccess && dd && !dst_local_dev) {
    x->dst_dev = dd;
    r = cls__legacy_position(dd, &x->dst_after);
  }
  if (r == clsSuccess) {
    if (src_local_dev)
      r = cls__b_memcpy(s, stage->data, src, n, clsMemcpyDeviceToHost,
                        CLS__COPY_ASYNC);
    else if (!sd && mode == CLS__COPY_STAGE)
      memcpy(stage->data, src, n);
    else
      x->src = src;
  }
  if (!dst_local_dev) x->dst = dst;
  x->keep_stage = dst_local_dev;
  if (r == clsSuccess) r = cls__b_stream_host_job(s, cls__across_run, x);
  if (r != clsSuccess) {
    if (x->src_after) cls__b_event_destroy(x->src_after);
    if (x->dst_after) cls__b_event_destroy(x->dst_after);
    free(stage);
    free(x);
    return r;
  }
  /* From here on the job owns x (and the stage, unless a copy below
   * reads it: that copy's watch frees it then). */
  if (dst_local_dev) {
    int enqueued;
    r = cls__enqueue_copy(s, dst, stage->data, n, stage, 0, &enqueued);
    if (!enqueued) {
      /* The job may still be using the stage: free it once the stream's
       * work so far, the job included, is done. */
      cls__b_stream_sync(s);
      free(stage);
      return r;
    }
  }
  if (mode != CLS__COPY_BLOCKING) return clsSuccess;
  cls__bevent *done;
  r = cls__b_event_create(s->dev->index, clsEventDisableTiming, &done);
  if (r == clsSuccess) {
    r = cls__b_event_record(done, s);
    if (r == clsSuccess) r = cls__b_event_sync(done);
    cls__b_event_destroy(done);
  }
  return r;
}
