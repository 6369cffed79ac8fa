/* Streams: the stream calls (creation, destruction, synchronize, query,
 * flags, priority) and host jobs.  Resolving a handle, which every call
 * that takes a stream does, is stream_resolve.c's. */
#include "stream_resolve.h"

#include "device.h"
#include "graph.h"
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

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
  if (CLS__CAPTURING()) cls__cap_stream_gone(s->b);
  cls__b_stream_destroy(s->b);
  free(s);
  CLS__RETURN(clsSuccess);
}

clsError_t clsStreamSynchronize(clsStream_t h) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e == clsSuccess && CLS__CAPTURING() &&
      cls__cap_refuse(h, b, "clsStreamSynchronize", &e))
    CLS__RETURN(e);
  if (e == clsSuccess) e = cls__b_stream_sync(b);
  CLS__RETURN(e);
}

clsError_t clsStreamQuery(clsStream_t h) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e == clsSuccess && CLS__CAPTURING() &&
      cls__cap_refuse(h, b, "clsStreamQuery", &e))
    CLS__RETURN(e);
  if (e == clsSuccess) e = cls__b_stream_query(b);
  CLS__RETURN(e);
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
  _Atomic int state;  /* CLS__JOB_FREE, _BUSY or _ORPHAN (below) */
} cls__host_job;

/* Job records.  A record is written by the calling thread and read once
 * by the thread that runs the job, nearly always on another core, and a
 * host function's round trip is a few microseconds on a GPU.  So each
 * calling thread keeps a small ring of records of its own, and the
 * running thread hands one back with a single atomic exchange on the
 * record's own cache line: no lock and no list shared between threads
 * (a free list under a mutex moved two more lines and the lock between
 * the cores on every job, on the CUDA build's callback thread too).
 *   FREE    in the ring, ready for its thread's next job;
 *   BUSY    taken for a job that has not run yet;
 *   ORPHAN  taken, and freed by the job once it has run: a record made
 *           when the ring was busy, or one whose thread has exited.
 * A job the backend never runs (CUDA skips host functions after a device
 * error) keeps its record taken, as it would keep an allocated one. */
#define CLS__JOB_RING 8u
enum { CLS__JOB_FREE = 0, CLS__JOB_BUSY = 1, CLS__JOB_ORPHAN = 2 };
typedef struct cls__job_ring {
  cls__host_job *slot[CLS__JOB_RING];
  unsigned next;
} cls__job_ring;
static _Thread_local cls__job_ring *cls__tl_jobs CLS__TLS_FAST;
static pthread_key_t cls__jobs_key;
static pthread_once_t cls__jobs_once = PTHREAD_ONCE_INIT;

/* At thread exit: free records now, taken ones once their jobs ran. */
static void cls__jobs_exit(void *p) {
  cls__job_ring *r = p;
  for (unsigned i = 0; i < CLS__JOB_RING; ++i)
    if (r->slot[i] &&
        atomic_exchange_explicit(&r->slot[i]->state, CLS__JOB_ORPHAN,
                                 memory_order_acq_rel) == CLS__JOB_FREE)
      free(r->slot[i]);
  free(r);
  cls__tl_jobs = NULL; /* a later destructor's job makes a new ring */
}

static void cls__jobs_key_make(void) {
  pthread_key_create(&cls__jobs_key, cls__jobs_exit);
}

static cls__job_ring *cls__jobs_ring(void) {
  cls__job_ring *r = cls__tl_jobs;
  if (CLS__LIKELY(r != NULL)) return r;
  pthread_once(&cls__jobs_once, cls__jobs_key_make);
  r = calloc(1, sizeof *r);
  if (r && pthread_setspecific(cls__jobs_key, r) != 0) {
    free(r);
    r = NULL;
  }
  cls__tl_jobs = r;
  return r; /* NULL: every record is an orphan */
}

static cls__host_job *cls__job_take(void) {
  cls__job_ring *r = cls__jobs_ring();
  if (CLS__LIKELY(r != NULL)) {
    unsigned i = r->next;
    r->next = (i + 1) % CLS__JOB_RING;
    cls__host_job *j = r->slot[i];
    /* Acquire: the job that ran on it has read all it needed. */
    if (CLS__LIKELY(j != NULL) &&
        atomic_load_explicit(&j->state, memory_order_acquire) ==
            CLS__JOB_FREE) {
      atomic_store_explicit(&j->state, CLS__JOB_BUSY, memory_order_relaxed);
      return j;
    }
    if (!j && (j = malloc(sizeof *j)) != NULL) {
      atomic_init(&j->state, CLS__JOB_BUSY);
      r->slot[i] = j;
      return j;
    }
  }
  cls__host_job *j = malloc(sizeof *j); /* the ring's slot is busy */
  if (j) atomic_init(&j->state, CLS__JOB_ORPHAN);
  return j;
}

/* Hands j back, once nothing of it is read any more. */
static void cls__job_give(cls__host_job *j) {
  if (atomic_exchange_explicit(&j->state, CLS__JOB_FREE,
                               memory_order_acq_rel) == CLS__JOB_ORPHAN)
    free(j);
}

/* Runs on a library thread (cls__job_fn). */
static void cls__run_host_job(void *p, clsError_t status) {
  cls__host_job *j = p;
  clsHostFn_t fn = j->fn;
  clsStreamCallback_t cb = j->cb;
  void *user = j->user;
  clsStream_t stream = j->stream;
  cls__job_give(j);          /* before the user's code, which may block */
  int was = cls__in_host_fn; /* 1 on a marked thread, which stays so */
  cls__in_host_fn = 1;
  /* As in CUDA: a callback is told of an earlier failure in its stream; a
   * host function is not called after one. */
  if (cb)
    cb(stream, status, user);
  else if (status == clsSuccess)
    fn(user);
  cls__in_host_fn = was;
}

static clsError_t cls__host_job_enqueue(clsStream_t h, clsHostFn_t fn,
                                        clsStreamCallback_t cb, void *user) {
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  if (CLS__CAPTURING() && cls__cap_host(h, b, fn, cb, user, &e)) return e;
  return cls__host_job_issue(b, h, fn, cb, user);
}

clsError_t cls__host_job_issue(cls__bstream *b, clsStream_t h, clsHostFn_t fn,
                               clsStreamCallback_t cb, void *user) {
  clsError_t e;
  /* A host function with no record where the backend can take it so: on
   * the CUDA build the record alone, written here and read and handed
   * back on the runtime's callback thread, made the round trip slower
   * than raw cudaLaunchHostFunc (docs/drivers.md, "Host functions on the
   * CUDA build"). */
  if (fn && cls__b_stream_host_fn(b, fn, user, &e)) return e;
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
