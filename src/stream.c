/* Streams: validation, handles, default-stream resolution, host jobs. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

_Thread_local cls__bstream *cls__tl_legacy CLS__TLS_FAST;
_Thread_local int cls__tl_legacy_dev CLS__TLS_FAST = -1;

clsError_t cls__stream_resolve_any(clsStream_t h, int *dev, cls__bstream **b,
                                   unsigned *flags, int *priority) {
  if (h == NULL || h == clsStreamLegacy || h == clsStreamPerThread) {
    clsError_t e = cls__current_device(dev);
    if (CLS__UNLIKELY(e != clsSuccess)) return e;
    if (flags) *flags = clsStreamDefault;
    if (priority) *priority = 0;
    if (h == clsStreamPerThread) return cls__b_stream_default(*dev, 1, b);
    if (CLS__LIKELY(*dev == cls__tl_legacy_dev)) {
      *b = cls__tl_legacy;
      return clsSuccess;
    }
    e = cls__b_stream_default(*dev, 0, b);
    if (e == clsSuccess) {
      cls__tl_legacy = *b;
      cls__tl_legacy_dev = *dev;
    }
    return e;
  }
  cls__stream *s = cls__handle_get(CLS__KIND_STREAM, (uintptr_t)h);
  if (CLS__UNLIKELY(!s))
    return cls__reason(clsErrorInvalidResourceHandle,
                       "stream %p is not a live stream", (void *)h);
  *dev = s->dev;
  *b = s->b;
  if (flags) *flags = s->flags;
  if (priority) *priority = s->priority;
  return clsSuccess;
}

static clsError_t cls__stream_create(clsStream_t *out, unsigned flags,
                                     int priority) {
  if (!out) return cls__reason(clsErrorInvalidValue, "stream is NULL");
  if (flags & ~clsStreamNonBlocking)
    return cls__reason(clsErrorInvalidValue, "unknown stream flags 0x%x",
                       flags & ~clsStreamNonBlocking);
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) return e;
  int least, greatest;
  cls__b_priority_range(dev, &least, &greatest);
  if (priority > least) priority = least;
  if (priority < greatest) priority = greatest;

  cls__stream *s = malloc(sizeof *s);
  if (!s) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  s->dev = dev;
  s->flags = flags;
  s->priority = priority;
  e = cls__b_stream_create(dev, flags, priority, &s->b);
  if (e != clsSuccess) {
    free(s);
    return e;
  }
  uintptr_t h = cls__handle_new(CLS__KIND_STREAM, s);
  if (!h) {
    cls__b_stream_destroy(s->b);
    free(s);
    return cls__reason(clsErrorMemoryAllocation, "handle table is full");
  }
  *out = (clsStream_t)h;
  return clsSuccess;
}

clsError_t clsStreamCreate(clsStream_t *s) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__stream_create(s, clsStreamDefault, 0));
}

clsError_t clsStreamCreateWithFlags(clsStream_t *s, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__stream_create(s, flags, 0));
}

clsError_t clsStreamCreateWithPriority(clsStream_t *s, unsigned flags,
                                       int priority) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__stream_create(s, flags, priority));
}

clsError_t clsStreamDestroy(clsStream_t h) {
  CLS__NOT_IN_HOST_FN();
  if (h == NULL || h == clsStreamLegacy || h == clsStreamPerThread)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "a default stream cannot be destroyed"));
  cls__stream *s = cls__handle_retire(CLS__KIND_STREAM, (uintptr_t)h);
  if (!s)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "stream %p is not a live stream", (void *)h));
  cls__b_stream_destroy(s->b);
  free(s);
  CLS__RETURN(clsSuccess);
}

clsError_t clsStreamSynchronize(clsStream_t h) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e == clsSuccess) e = cls__b_stream_sync(b);
  CLS__RETURN(e);
}

clsError_t clsStreamQuery(clsStream_t h) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e == clsSuccess) e = cls__b_stream_query(b);
  CLS__RETURN(e);
}

clsError_t clsStreamWaitEvent(clsStream_t h, clsEvent_t ev, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_lookup(ev);
  if (!e)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "event %p is not a live event", (void *)ev));
  if (flags != 0)
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "flags must be 0, not 0x%x", flags));
  int dev;
  cls__bstream *b;
  clsError_t r = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (r != clsSuccess) CLS__RETURN(r);
  CLS__RETURN(cls__event_stream_wait(e, b));
}

clsError_t clsStreamGetFlags(clsStream_t h, unsigned *flags) {
  CLS__NOT_IN_HOST_FN();
  if (!flags) CLS__RETURN(cls__reason(clsErrorInvalidValue, "flags is NULL"));
  int dev;
  cls__bstream *b;
  CLS__RETURN(cls__stream_resolve(h, &dev, &b, flags, NULL));
}

clsError_t clsStreamGetPriority(clsStream_t h, int *priority) {
  CLS__NOT_IN_HOST_FN();
  if (!priority)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "priority is NULL"));
  int dev;
  cls__bstream *b;
  CLS__RETURN(cls__stream_resolve(h, &dev, &b, NULL, priority));
}

/* ---- Host functions and callbacks ------------------------------------ */

typedef struct cls__host_job {
  cls__job head;          /* run = cls__run_host_job */
  clsHostFn_t fn;         /* clsLaunchHostFunc (head.skippable = 1), or */
  clsStreamCallback_t cb; /* clsStreamAddCallback */
  void *user;
  clsStream_t stream; /* as the caller named it, for cb */
  struct cls__host_job *next_free;
} cls__host_job;

/* Job records are recycled rather than allocated for each call: a host
 * function's round trip is a few microseconds on a GPU, and each record
 * is released on another thread than the one that took it.  At most
 * CLS__JOBS_KEPT free records are kept.  cls__jobs_lock is a leaf lock
 * (taken by callers and by the threads that run jobs, never around
 * anything else). */
#define CLS__JOBS_KEPT 256u
static pthread_mutex_t cls__jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__host_job *cls__jobs_free; /* guarded by cls__jobs_lock */
static unsigned cls__jobs_nfree;      /* guarded by cls__jobs_lock */

static cls__host_job *cls__job_take(void) {
  pthread_mutex_lock(&cls__jobs_lock);
  cls__host_job *j = cls__jobs_free;
  if (j) {
    cls__jobs_free = j->next_free;
    cls__jobs_nfree--;
  }
  pthread_mutex_unlock(&cls__jobs_lock);
  return j ? j : malloc(sizeof *j);
}

static void cls__job_give(cls__host_job *j) {
  pthread_mutex_lock(&cls__jobs_lock);
  if (cls__jobs_nfree < CLS__JOBS_KEPT) {
    j->next_free = cls__jobs_free;
    cls__jobs_free = j;
    cls__jobs_nfree++;
    j = NULL;
  }
  pthread_mutex_unlock(&cls__jobs_lock);
  free(j);
}

/* Runs on a library thread (cls__job_fn). */
static void cls__run_host_job(void *p, clsError_t status) {
  cls__host_job *j = p;
  clsHostFn_t fn = j->fn;
  clsStreamCallback_t cb = j->cb;
  void *user = j->user;
  clsStream_t stream = j->stream;
  cls__job_give(j); /* before the user's code, which may block */
  cls__in_host_fn = 1;
  /* As in CUDA: a callback is told of an earlier failure in its stream; a
   * host function is not called after one. */
  if (cb)
    cb(stream, status, user);
  else if (status == clsSuccess)
    fn(user);
  cls__in_host_fn = 0;
}

static clsError_t cls__host_job_enqueue(clsStream_t h, clsHostFn_t fn,
                                        clsStreamCallback_t cb, void *user) {
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  cls__host_job *j = cls__job_take();
  if (!j) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  j->head.run = cls__run_host_job;
  j->head.skippable = cb == NULL;
  j->fn = fn;
  j->cb = cb;
  j->user = user;
  j->stream = h;
  e = cls__b_stream_host_job(b, cls__run_host_job, j);
  if (e != clsSuccess) cls__job_give(j);
  return e;
}

clsError_t clsLaunchHostFunc(clsStream_t s, clsHostFn_t fn, void *userData) {
  CLS__NOT_IN_HOST_FN();
  if (!fn) CLS__RETURN(cls__reason(clsErrorInvalidValue, "fn is NULL"));
  CLS__RETURN(cls__host_job_enqueue(s, fn, NULL, userData));
}

clsError_t clsStreamAddCallback(clsStream_t s, clsStreamCallback_t cb,
                                void *userData, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (!cb) CLS__RETURN(cls__reason(clsErrorInvalidValue, "callback is NULL"));
  if (flags != 0)
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "flags must be 0, not 0x%x", flags));
  CLS__RETURN(cls__host_job_enqueue(s, NULL, cb, userData));
}
