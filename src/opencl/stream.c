/* OpenCL backend: stream lifecycle (created, legacy and per-thread
 * default streams, each an in-order profiling queue), and synchronizing
 * and querying a stream.  Owns device.streams_lock (the live stream
 * list, which enqueue.c's device-wide gather reads) and the per-thread
 * stream table.  A stream's place in the busy list and the work it
 * leaves as orphans are enqueue.c's (cls__ocl_busy_reserve,
 * cls__ocl_orphan_stream). */
#include "command.h"

#include <stdlib.h>

/* ---- Streams ---------------------------------------------------------- */

/* A stream over a new queue, or over `q` (the program's, retained here:
 * clsOpenCLStreamCreateFromQueue) when not NULL. */
static clsError_t cls__stream_over(cls__ocl_device *d, unsigned flags,
                                   int priority, int role, cl_command_queue q,
                                   cls__bstream **out) {
  cls__bstream *s = calloc(1, sizeof *s);
  if (!s) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  cl_int err = CL_SUCCESS;
  const char *what = "clRetainCommandQueue";
  if (q)
    err = clRetainCommandQueue(s->q = q);
  else
    s->q = cls__ocl_queue(d, 1, priority < 0, &err, &what);
  if (err != CL_SUCCESS) {
    free(s);
    return cls__ocl_error(err, what);
  }
  s->dev = d;
  s->role = role;
  s->blocking = role != CLS__ROLE_LEGACY && !(flags & clsStreamNonBlocking);
  if (s->blocking && !cls__ocl_busy_reserve(d)) {
    clReleaseCommandQueue(s->q);
    free(s);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  static atomic_uint next_id;
  s->id = atomic_fetch_add(&next_id, 1) + 1;
  if (CLS__UNLIKELY(cls__trace_on)) cls__trace_stream(s);
  cls__pos_init(&s->last);
  s->last_tok = NULL;
  cls__lock_init(&s->lock);
  cls__lock_init(&s->last_lock);
  pthread_mutex_lock(&d->streams_lock);
  s->next = d->streams;
  if (d->streams) d->streams->prev = s;
  d->streams = s;
  pthread_mutex_unlock(&d->streams_lock);
  *out = s;
  return clsSuccess;
}

static clsError_t cls__stream_new(cls__ocl_device *d, unsigned flags,
                                  int priority, int role, cls__bstream **out) {
  return cls__stream_over(d, flags, priority, role, NULL, out);
}

clsError_t cls__ocl_stream_adopt(cls__ocl_device *d, cl_command_queue q,
                                 unsigned flags, cls__bstream **out) {
  clsError_t e = cls__stream_over(d, flags, 0, CLS__ROLE_CREATED, q, out);
  if (e == clsSuccess) e = cls__ocl_expose(*out);
  return e;
}

clsError_t cls__b_stream_create(int dev, unsigned flags, int priority,
                                cls__bstream **out) {
  return cls__stream_new(cls__ocl_device_get(dev), flags, priority,
                         CLS__ROLE_CREATED, out);
}

void cls__b_stream_destroy(cls__bstream *s) {
  cls__ocl_device *d = s->dev;
  pthread_mutex_lock(&d->streams_lock);
  if (s->prev)
    s->prev->next = s->next;
  else
    d->streams = s->next;
  if (s->next) s->next->prev = s->prev;
  pthread_mutex_unlock(&d->streams_lock);

  /* Its pending work stays visible as orphans (enqueue.c). */
  cls__ocl_orphan_stream(s);
  cls__b_token_release(s->last_tok);
  clReleaseCommandQueue(s->q); /* implicit flush; pending work still runs */
  cls__lock_destroy(&s->lock);
  cls__lock_destroy(&s->last_lock);
  free(s);
}

/* Per-thread default streams, destroyed when their thread exits. */
static pthread_key_t cls__pt_key;
static pthread_once_t cls__pt_once = PTHREAD_ONCE_INIT;
static _Thread_local cls__bstream **cls__pt_streams;

static void cls__pt_exit(void *p) {
  cls__bstream **arr = p;
  int n = cls__b_device_count();
  for (int i = 0; i < n; ++i)
    if (arr[i]) cls__b_stream_destroy(arr[i]);
  free(arr);
}

static void cls__pt_init(void) {
  pthread_key_create(&cls__pt_key, cls__pt_exit);
}

clsError_t cls__b_stream_default(int dev, int per_thread, cls__bstream **out) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (!per_thread) {
    cls__bstream *l = atomic_load_explicit(&d->legacy, memory_order_acquire);
    if (CLS__LIKELY(l != NULL)) {
      *out = l;
      return clsSuccess;
    }
    clsError_t e = clsSuccess;
    pthread_mutex_lock(&d->open_lock);
    l = atomic_load_explicit(&d->legacy, memory_order_relaxed);
    if (!l) {
      e = cls__stream_new(d, 0, 0, CLS__ROLE_LEGACY, &l);
      if (e == clsSuccess)
        atomic_store_explicit(&d->legacy, l, memory_order_release);
    }
    pthread_mutex_unlock(&d->open_lock);
    *out = l;
    return e;
  }
  if (CLS__UNLIKELY(!cls__pt_streams)) {
    pthread_once(&cls__pt_once, cls__pt_init);
    cls__pt_streams = calloc((size_t)cls__b_device_count(), sizeof(void *));
    if (!cls__pt_streams)
      return cls__reason(clsErrorMemoryAllocation, "out of host memory");
    pthread_setspecific(cls__pt_key, cls__pt_streams);
  }
  if (CLS__UNLIKELY(!cls__pt_streams[dev])) {
    clsError_t e =
        cls__stream_new(d, 0, 0, CLS__ROLE_PER_THREAD, &cls__pt_streams[dev]);
    if (e != clsSuccess) return e;
  }
  *out = cls__pt_streams[dev];
  return clsSuccess;
}

/* Turns waits that no command has consumed yet into a marker, so that
 * synchronizing the stream includes them. */
static clsError_t cls__materialize_waits(cls__bstream *s) {
  if (!atomic_load_explicit(&s->has_waits, memory_order_acquire))
    return clsSuccess;
  /* The legacy synchronization was captured when the waits were made; a
   * gather now would add legacy work issued after them. */
  cls__ocl_batch b;
  cls__ocl_begin_waits(s, &b);
  b.what = "wait";
  b.cat = "marker";
  cl_event ev = NULL;
  cl_int err = clEnqueueMarkerWithWaitList(s->q, b.n, b.list, &ev);
  cls__ocl_end(s, &b, err == CL_SUCCESS ? ev : NULL);
  return err == CL_SUCCESS ? clsSuccess
                           : cls__ocl_error(err, "clEnqueueMarkerWithWaitList");
}

/* The stream's newest command, retained, or NULL when it is known done. */
static cl_event cls__last(cls__bstream *s) {
  if (cls__pos_known_done(&s->last)) return NULL;
  cls__lock_take(&s->last_lock);
  cls__ocl_position(s);
  if (CLS__UNLIKELY(s->last.unnamed)) { /* no barrier could be enqueued */
    /* The queue is finished instead, with last_lock dropped first: no
     * driver wait happens with a lock held. */
    cls__lock_give(&s->last_lock);
    clFinish(s->q);
    cls__lock_take(&s->last_lock);
  }
  cl_event ev = s->last.ev;
  if (ev && !cls__last_known_done(s))
    clRetainEvent(ev);
  else
    ev = NULL;
  cls__lock_give(&s->last_lock);
  return ev;
}

/* A wait for ev, s's newest command when it began, returned clsSuccess. */
static void cls__mark_done(cls__bstream *s, cl_event ev) {
  cls__lock_take(&s->last_lock);
  cls__pos_reached(&s->last, ev);
  cls__lock_give(&s->last_lock);
}

/* Blocks until the blocking streams' work that legacy-stream work issued
 * now would wait for is done: the legacy stream's state includes it, as
 * CUDA's does (cudaStreamSynchronize(0) waits for a busy blocking stream
 * even when stream 0 itself is idle). */
static clsError_t cls__wait_blocking(cls__ocl_device *d) {
  cls__ocl_batch b;
  cls__ocl_batch_init(&b);
  cls__ocl_gather_blocking(d, &b);
  return cls__ocl_batch_wait(&b); /* with no lock held */
}

clsError_t cls__b_stream_sync(cls__bstream *s) {
  clsError_t e = cls__materialize_waits(s);
  if (e != clsSuccess) return e;
  if (s->role == CLS__ROLE_LEGACY) {
    e = cls__wait_blocking(s->dev);
    if (e != clsSuccess) return e;
  }
  cl_event ev = cls__last(s);
  if (!ev) return clsSuccess;
  e = cls__ocl_wait(ev, 0);
  if (e == clsSuccess) cls__mark_done(s, ev);
  clReleaseEvent(ev);
  return e;
}

/* The legacy stream's query once its own work is done: the blocking
 * streams' work it would wait for counts too (as cudaStreamQuery(0) has
 * it), at a cost proportional to the streams with unfinished work. */
static clsError_t cls__query_blocking(cls__bstream *s) {
  if (s->role != CLS__ROLE_LEGACY) return clsSuccess;
  cl_int st = cls__ocl_gather_blocking(s->dev, NULL);
  if (st < 0) return cls__ocl_failed(st);
  return st == CL_COMPLETE ? clsSuccess : clsErrorNotReady;
}

clsError_t cls__b_stream_query(cls__bstream *s) {
  if (cls__pos_known_done(&s->last) &&
      !atomic_load_explicit(&s->has_waits, memory_order_acquire))
    return cls__query_blocking(s);
  /* A pending wait makes the stream not ready; a failed one fails it.
   * last_lock, not the enqueue lock: writers of both hold both.  Without
   * a barrier for unnamed commands the position stays "not yet". */
  cls__lock_take(&s->last_lock);
  cl_int st = cls__ocl_waits_status(s, NULL);
  if (st == CL_COMPLETE) {
    cls__ocl_look(s);
    st = cls__last_status(s);
  }
  cls__lock_give(&s->last_lock);
  if (st < 0) return cls__ocl_failed(st);
  return st == CL_COMPLETE ? cls__query_blocking(s) : clsErrorNotReady;
}
