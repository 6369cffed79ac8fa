/* OpenCL backend: copies and fills in a stream's order (clsMemcpy,
 * clsMemset and their async forms).
 *
 * Commands are chosen by where the pointers lie, not by the stream's
 * device: a buffer-backed side gets buffer commands (read, write, copy,
 * fill), everything else SVM commands (memory.c's cls__ocl_enqueue_copy
 * and cls__ocl_enqueue_fill), and host memory on both sides a host job
 * instead where the device has no SVM command for it, or where the driver
 * refused the SVM one (cls__host_side decides both).
 *
 * A copy touching memory of a device in another OpenCL context (another
 * platform) is staged through host memory by a host job in the stream's
 * order (cls__b_memcpy_across).  Owns no lock. */
#include "command.h"

#include <stdlib.h>
#include <string.h>

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

/* A copy or fill that cls__host_side gives the host: a host job (after
 * the stream's earlier work; later work waits for it). */
typedef struct cls__hcopy {
  void *dst;
  const void *src; /* NULL: a fill with `value` */
  size_t n;
  int value;
  unsigned char data[]; /* the staged source, if staged */
} cls__hcopy;

static void cls__hcopy_run(void *job, clsError_t status) {
  cls__hcopy *c = job;
  if (status == clsSuccess) {
    if (c->src)
      memcpy(c->dst, c->src, c->n);
    else
      memset(c->dst, c->value, c->n);
  }
  free(c);
}

static clsError_t cls__reach(cls__bstream *s);

/* A fill of host memory that cls__host_side gives the host: a host job,
 * as for host-to-host copies (when blocking: on the caller's thread, once
 * the stream's earlier work is done). */
static clsError_t cls__host_fill(cls__bstream *s, void *dst, int value,
                                 size_t n, int blocking) {
  if (blocking) {
    clsError_t e = cls__reach(s);
    if (e == clsSuccess) memset(dst, value, n);
    return e;
  }
  cls__hcopy *c = malloc(sizeof *c);
  if (!c) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  *c = (cls__hcopy){dst, NULL, n, (unsigned char)value};
  clsError_t e = cls__b_stream_host_job(s, cls__hcopy_run, c);
  if (e != clsSuccess) {
    free(c);
    return e;
  }
  return clsSuccess;
}

/* Waits, with a marker, for the work s's next command would wait for
 * (the stream's and the legacy synchronization's): a blocking host-side
 * copy or fill then runs on the caller's thread, with no host job. */
static clsError_t cls__reach(cls__bstream *s) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin(s, &b);
  b.what = "host copy";
  b.cat = "marker";
  cl_int err = clEnqueueMarkerWithWaitList(s->q, b.n, b.list, &ev);
  if (err == CL_SUCCESS) clRetainEvent(ev);
  cls__ocl_end(s, &b, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS)
    return cls__ocl_error(err, "clEnqueueMarkerWithWaitList");
  clsError_t e = cls__ocl_wait(ev, 0);
  clReleaseEvent(ev);
  return e;
}

static clsError_t cls__host_copy(cls__bstream *s, void *dst, const void *src,
                                 size_t n, int mode) {
  if (mode == CLS__COPY_BLOCKING) {
    clsError_t e = cls__reach(s);
    if (e == clsSuccess) memcpy(dst, src, n);
    return e;
  }
  int stage = mode == CLS__COPY_STAGE;
  cls__hcopy *c = malloc(sizeof *c + (stage ? n : 0));
  if (!c) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  c->dst = dst;
  c->n = n;
  if (stage) {
    memcpy(c->data, src, n);
    c->src = c->data;
  } else {
    c->src = src;
  }
  clsError_t e = cls__b_stream_host_job(s, cls__hcopy_run, c);
  if (e != clsSuccess) {
    free(c);
    return e;
  }
  return clsSuccess;
}

/* Whether p is host memory: pinned, mapped, registered or pageable, as
 * opposed to device memory (SVM or a buffer, clsMalloc's or a pool's) or
 * managed memory, which the driver always takes. */
static int cls__host_memory(const void *p) {
  cl_mem m;
  size_t off;
  if (cls__ocl_hostbuf_at(p)) return 1; /* managed memory included */
  if (cls__ocl_buffer_at(p, &m, &off, NULL)) return 0;
  int kind = cls__mem_lookup(p, NULL, NULL, NULL);
  return kind == CLS__MEM_NONE || kind == CLS__MEM_HOST ||
         kind == CLS__MEM_HOST_MAPPED || kind == CLS__MEM_REGISTERED;
}

/* Whether a copy (src non-NULL) or a fill (src NULL) is the host's to do
 * (cls__host_copy, cls__host_fill) rather than a driver command's: the one
 * place that decides it, asked before the command (`refused` CL_SUCCESS)
 * and again if the driver refused it (`refused` its error).
 *
 * A buffer-memory device has no SVM command to name host memory with, so
 * there the host does every copy or fill with no buffer side.  On an SVM
 * device host memory goes to clEnqueueSVMMemcpy and clEnqueueSVMMemFill,
 * which OpenCL does not promise to take: clsMallocHost memory is a
 * CL_MEM_ALLOC_HOST_PTR buffer kept mapped (cls__b_malloc_host), not
 * clSVMAlloc memory, and a fill's pointer must be clSVMAlloc memory unless
 * the device has fine-grained system SVM.  PoCL 3.1 takes both; PoCL 5.0,
 * which looks the pointer up among its SVM allocations, refuses the fill
 * with CL_INVALID_OPERATION (and takes the copy).  Where the driver
 * refuses with CL_INVALID_OPERATION or CL_INVALID_VALUE and every side is
 * host memory, the host does the command instead, in the same stream
 * order; device memory is never written by the host. */
static int cls__host_side(const cls__ocl_device *d, const void *dst,
                          const void *src, cl_int refused) {
  if (CLS__LIKELY(refused == CL_SUCCESS && !d->facts.buffers)) return 0;
  if (refused == CL_SUCCESS) { /* a buffer-memory device: no buffer side */
    cl_mem m;
    size_t off;
    return !cls__ocl_buffer_at(dst, &m, &off, NULL) &&
           (!src || !cls__ocl_buffer_at(src, &m, &off, NULL));
  }
  if (refused != CL_INVALID_OPERATION && refused != CL_INVALID_VALUE) return 0;
  return cls__host_memory(dst) && (!src || cls__host_memory(src));
}

/* The copy or fill that the driver refused (`err`, from `what`) and that
 * cls__host_side gave the host, done there with the same `mode`. */
static clsError_t cls__host_instead(cls__bstream *s, void *dst, const void *src,
                                    int value, size_t n, int mode, cl_int err,
                                    const char *what) {
  /* Said only if the host fails too: a call that succeeds clears its
   * reason (cls__finish), and the host's own would only come second. */
  cls__reason(clsErrorNotSupported,
              "%s refused host memory at %p (OpenCL error %d), and doing the "
              "%s on the host instead failed too",
              what, dst, (int)err, src ? "copy" : "fill");
  if (src) return cls__host_copy(s, dst, src, n, mode);
  return cls__host_fill(s, dst, value, n, mode == CLS__COPY_BLOCKING);
}

/* Enqueues an SVM copy of n bytes on s and, if `blocking`, waits for it.
 * With `stage` (holding the source) the stage is freed once the copy
 * completes or fails; where the enqueue itself fails, *enqueued is 0 and
 * the stage stays the caller's.  A copy the driver refuses may be done on
 * the host instead (cls__host_side), *enqueued 0 there too. */
static clsError_t cls__enqueue_copy(cls__bstream *s, void *dst, const void *src,
                                    size_t n, cls__staging *stage, int blocking,
                                    int *enqueued) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  const char *what = "a copy";
  cls__ocl_begin(s, &b);
  b.what = "memcpy";
  b.cat = "copy";
  b.work = 1;
  /* An event only where someone needs it: a wait, or the stage's watch. */
  cl_int err = cls__ocl_enqueue_copy(
      s->dev, s->q, dst, src, n, b.n, b.list,
      blocking || stage ? &ev : cls__ocl_event_slot(s, &ev), &what);
  *enqueued = err == CL_SUCCESS;
  if (err != CL_SUCCESS && cls__host_side(s->dev, dst, src, err)) {
    cls__ocl_end(s, &b, NULL); /* nothing was enqueued */
    /* A staged source is the caller's to free: the host job stages its
     * own copy of it. */
    int mode = blocking ? CLS__COPY_BLOCKING
               : stage  ? CLS__COPY_STAGE
                        : CLS__COPY_ASYNC;
    return cls__host_instead(s, dst, src, 0, n, mode, err, what);
  }
  if (stage && err == CL_SUCCESS) clRetainEvent(ev); /* the stage's */
  clsError_t r = cls__finish_cmd(s, &b, err, ev, blocking, what);
  if (stage && err == CL_SUCCESS) {
    /* A copy already done (blocking, or run by the flush, as Oclgrind's
     * is) frees its stage here: no library thread then calls the driver
     * for it.  Otherwise a watch frees it once the copy is done. */
    if (cls__ocl_status(ev) <= CL_COMPLETE) {
      free(stage);
    } else {
      stage->watch.job.run = cls__staging_run;
      cls__ocl_watch_event(&stage->watch, ev);
    }
    clReleaseEvent(ev);
  }
  return r;
}

clsError_t cls__b_memcpy(cls__bstream *s, void *dst, const void *src, size_t n,
                         clsMemcpyKind kind, int mode) {
  (void)kind;            /* the commands follow where the pointers lie */
  mode &= CLS__COPY_HOW; /* OpenCL has no synchronous call of its own */
  if (cls__host_side(s->dev, dst, src, CL_SUCCESS))
    return cls__host_copy(s, dst, src, n, mode);
  cls__staging *staging = NULL;
  if (mode == CLS__COPY_STAGE) {
    staging =
        n <= SIZE_MAX - sizeof *staging ? malloc(sizeof *staging + n) : NULL;
    if (staging) {
      memcpy(staging->data, src, n);
    } else {
      mode = CLS__COPY_BLOCKING; /* no room to stage: wait instead */
    }
  }
  int enqueued;
  clsError_t r =
      cls__enqueue_copy(s, dst, staging ? staging->data : src, n, staging,
                        mode == CLS__COPY_BLOCKING, &enqueued);
  if (!enqueued) free(staging);
  return r;
}

clsError_t cls__b_memset(cls__bstream *s, void *dst, int value, size_t n,
                         int mode) {
  int blocking = (mode & CLS__COPY_HOW) == CLS__COPY_BLOCKING;
  if (cls__host_side(s->dev, dst, NULL, CL_SUCCESS))
    return cls__host_fill(s, dst, value, n, blocking);
  cls__ocl_batch b;
  cl_event ev = NULL;
  const char *what = "a fill";
  cls__ocl_begin(s, &b);
  b.what = "memset";
  b.cat = "set";
  b.work = 1;
  cl_int err = cls__ocl_enqueue_fill(
      s->dev, s->q, dst, (unsigned char)value, n, b.n, b.list,
      blocking ? &ev : cls__ocl_event_slot(s, &ev), &what);
  if (err != CL_SUCCESS && cls__host_side(s->dev, dst, NULL, err)) {
    cls__ocl_end(s, &b, NULL); /* nothing was enqueued */
    return cls__host_instead(s, dst, NULL, value, n,
                             blocking ? CLS__COPY_BLOCKING : CLS__COPY_ASYNC,
                             err, what);
  }
  return cls__finish_cmd(s, &b, err, ev, blocking, what);
}

/* ---- Copies across OpenCL contexts -------------------------------------- */

/* One staged copy: the foreign sides are read and written by a host job
 * that runs in the stream's order, on a worker thread, with copies on the
 * foreign devices' own queues, waited for, each after the work that the
 * foreign device's legacy stream had to wait for at the time of the call
 * (its `after` event, recorded then). */
typedef struct cls__across {
  cls__ocl_device *src_dev, *dst_dev; /* foreign sides, or NULL */
  cls__btoken *src_after, *dst_after; /* NULL: nothing to wait for */
  const void *src; /* read by the job: a foreign or a host source */
  void *dst;       /* written by the job: a foreign or a host destination */
  size_t n;
  int keep_stage; /* a later command of the stream still reads the stage */
  cls__staging *stage;
} cls__across;

/* A copy on a foreign device's own queue, waited for, retried while the
 * driver is short of resources. */
static cl_int cls__foreign_copy(cls__ocl_device *d, void *dst, const void *src,
                                size_t n) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 100; ++i) {
    cl_event ev = NULL;
    const char *what;
    err = cls__ocl_enqueue_copy(d, d->mapq, dst, src, n, 0, NULL, &ev, &what);
    if (err == CL_SUCCESS) {
      err = clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
    }
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
      if (cls__b_token_wait(x->src_after, 0) == clsSuccess)
        err = cls__foreign_copy(x->src_dev, stage, x->src, x->n);
    } else if (x->src) {
      memcpy(stage, x->src, x->n);
    }
    if (err == CL_SUCCESS && x->dst_dev) {
      if (cls__b_token_wait(x->dst_after, 0) == clsSuccess)
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
  cls__b_token_release(x->src_after);
  cls__b_token_release(x->dst_after);
  if (!x->keep_stage) free(x->stage);
  free(x);
}

/* The position of the work that `d`'s legacy stream would wait for now
 * (its own and its blocking streams'), as an untimed record's token. */
static clsError_t cls__legacy_position(cls__ocl_device *d, cls__btoken **out) {
  cls__bstream *legacy;
  clsError_t r = cls__b_stream_default(d->index, 0, &legacy);
  if (r == clsSuccess) r = cls__ocl_record(legacy, 0, out);
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
    cls__b_token_release(x->src_after);
    cls__b_token_release(x->dst_after);
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
  cls__btoken *done = NULL;
  r = cls__ocl_record(s, 0, &done);
  if (r == clsSuccess) r = cls__b_token_wait(done, 0);
  cls__b_token_release(done);
  return r;
}
