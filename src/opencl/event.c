/* OpenCL backend: events are the cl_event of a marker (or, where marker
 * timestamps were found wrong, of a tiny fill) enqueued at record time. */
#include "ocl.h"

#include <stdlib.h>

clsError_t cls__b_event_create(int dev, unsigned flags, cls__bevent **out) {
  if (flags & clsEventInterprocess)
    return cls__reason(clsErrorNotSupported,
                       "interprocess events are not supported on OpenCL");
  cls__bevent *e = calloc(1, sizeof *e);
  if (!e) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  e->dev = cls__ocl_device_get(dev);
  e->flags = flags;
  pthread_mutex_init(&e->lock, NULL);
  atomic_init(&e->done, 1); /* never recorded counts as complete */
  *out = e;
  return clsSuccess;
}

void cls__b_event_destroy(cls__bevent *e) {
  if (e->ev) clReleaseEvent(e->ev); /* the command itself still runs */
  pthread_mutex_destroy(&e->lock);
  free(e);
}

/* Whether the stream's newest command can stand for a record: the record
 * adds no waits (b->n == 0) and that command has not completed yet (or
 * failed: the record fails with it), so
 * its completion is exactly when the stream reaches the record (and its
 * END timestamp the record's time).  Returns it retained, or NULL.  Called
 * between cls__ocl_begin and cls__ocl_end, so the stream cannot move. */
static cl_event cls__reusable_last(cls__bstream *s, const cls__ocl_batch *b,
                                   int timed, int *idle, int *after_work) {
  *idle = 0;
  *after_work = 0;
  if (b->n != 0) return NULL;
  cl_event ev = NULL;
  pthread_mutex_lock(&s->last_lock);
  /* Whether a marker enqueued now would follow device work only (or an
   * idle queue), with nothing gated by a user event before it. */
  *after_work = s->unnamed || !s->last || s->last_work ||
                atomic_load_explicit(&s->last_done, memory_order_relaxed);
  if (s->unnamed) {
    /* Commands without an event follow `last`: the record is a command
     * of its own (a barrier where untimed: the cheapest position). */
  } else if (!s->last ||
             atomic_load_explicit(&s->last_done, memory_order_relaxed)) {
    *idle = 1;
  } else if (timed &&
             (s->last_barrier || (!s->last_work && s->dev->timing_fallback))) {
    /* A barrier has no timestamps kept; a marker's are not to be trusted
     * on this device. */
  } else {
    /* A failed newest command stands for the record too: it fails. */
    if (cls__ocl_status(s->last) != CL_COMPLETE) {
      ev = s->last;
      clRetainEvent(ev);
    } else {
      *idle = 1;
      *after_work = 1; /* an idle queue: nothing gates a marker */
      atomic_store_explicit(&s->last_done, 1, memory_order_release);
    }
  }
  pthread_mutex_unlock(&s->last_lock);
  return ev;
}

/* Points e at ev (retained, or NULL for "complete", at host time `stamp`
 * where that is not 0). */
static void cls__set_record(cls__bevent *e, cl_event ev, cl_ulong stamp) {
  pthread_mutex_lock(&e->lock);
  cl_event old = e->ev;
  e->ev = ev;
  e->stamp = stamp;
  atomic_store_explicit(&e->done, ev == NULL, memory_order_release);
  pthread_mutex_unlock(&e->lock);
  if (old) clReleaseEvent(old);
}

clsError_t cls__b_event_record(cls__bevent *e, cls__bstream *s) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  cl_int err;
  cls__ocl_begin(s, &b);
  /* No command at all where one is not needed: the stream's in-flight
   * newest command stands for the record, and an untimed record on an idle
   * stream is complete at once. */
  int idle, after_work;
  int timed = !(e->flags & clsEventDisableTiming);
  ev = cls__reusable_last(s, &b, timed, &idle, &after_work);
  if (ev || (idle && (e->flags & clsEventDisableTiming))) {
    cls__ocl_end(s, &b, NULL);
    cls__set_record(e, ev, 0);
    return clsSuccess;
  }
  if (idle && s->dev->facts.host_clock && !cls__trace_on) {
    /* The device's profiling clock is a host clock (device.c): a record
     * on an idle stream is complete now, at the host's reading, taken
     * while the stream is held so that no later command precedes it.
     * (Not while tracing: the trace draws records as the markers.) */
    cl_ulong now = cls__ocl_host_stamp(s->dev);
    cls__ocl_end(s, &b, NULL);
    cls__set_record(e, NULL, now);
    return clsSuccess;
  }
  b.what = "record";
  b.cat = "marker";
  /* A marker where the device stamps it right; else a copy. */
  int marker_ok = s->dev->markers_after_work &&
                  (s->dev->markers_after_gate || (b.n == 0 && after_work));
  if (timed && !marker_ok) {
    /* A 4-byte copy inside the device's scratch buffer: device work, so
     * its END is stamped on the device's clock after the earlier work.
     * (Fills were tried first: NVIDIA's driver keeps host memory per fill
     * command, some 300 bytes each, that a long run never gets back.) */
    b.work = 1;
    char *scratch = s->dev->scratch;
    const char *what;
    err = cls__ocl_enqueue_copy(s->dev, s->q, scratch + 32, scratch, 4, b.n,
                                b.list, &ev, &what);
  } else if (timed) {
    /* Stamped right (marker_ok), so it counts as work for the next
     * record: a marker after it is after work too.  Otherwise records on
     * an idle stream would alternate between a marker and the copy. */
    b.work = 1;
    err = clEnqueueMarkerWithWaitList(s->q, b.n, b.list, &ev);
  } else {
    /* Only a position: a barrier is the cheapest command with an event
     * (NVIDIA: 0.8 us against a marker's 7.1 us). */
    b.barrier = 1;
    err = clEnqueueBarrierWithWaitList(s->q, b.n, b.list, &ev);
  }
  if (err == CL_SUCCESS) clRetainEvent(ev); /* one for the stream */
  cls__ocl_end(s, &b, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "recording the event");
  cls__set_record(e, ev, 0);
  return clsSuccess;
}

clsError_t cls__b_event_query(cls__bevent *e) {
  if (CLS__LIKELY(atomic_load_explicit(&e->done, memory_order_acquire)))
    return clsSuccess;
  cl_int st = CL_COMPLETE;
  pthread_mutex_lock(&e->lock);
  if (e->ev) {
    st = cls__ocl_status(e->ev);
    if (st == CL_COMPLETE)
      atomic_store_explicit(&e->done, 1, memory_order_release);
  }
  pthread_mutex_unlock(&e->lock);
  if (st < 0) return cls__ocl_failed(st);
  return st == CL_COMPLETE ? clsSuccess : clsErrorNotReady;
}

/* The newest record, retained, or NULL if there is none or it is known
 * complete. */
static cl_event cls__take(cls__bevent *e) {
  if (atomic_load_explicit(&e->done, memory_order_acquire)) return NULL;
  pthread_mutex_lock(&e->lock);
  cl_event ev = e->ev;
  if (ev) clRetainEvent(ev);
  pthread_mutex_unlock(&e->lock);
  return ev;
}

clsError_t cls__b_event_sync(cls__bevent *e) {
  cl_event ev = cls__take(e);
  if (!ev) return clsSuccess;
  clsError_t r = cls__ocl_wait(ev, (e->flags & clsEventBlockingSync) != 0);
  if (r == clsSuccess) {
    pthread_mutex_lock(&e->lock);
    if (e->ev == ev) atomic_store_explicit(&e->done, 1, memory_order_release);
    pthread_mutex_unlock(&e->lock);
  }
  clReleaseEvent(ev);
  return r;
}

/* END timestamp of e's newest record; clsErrorNotReady if incomplete. */
static clsError_t cls__end_time(cls__bevent *e, cl_ulong *t) {
  pthread_mutex_lock(&e->lock);
  cl_event ev = e->ev;
  cl_int st = CL_COMPLETE;
  cl_int err = CL_SUCCESS;
  int stamped = !ev && e->stamp != 0;
  if (stamped) *t = e->stamp;
  if (ev) {
    st = cls__ocl_status(ev);
    if (st == CL_COMPLETE)
      err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *t, t,
                                    NULL);
  }
  pthread_mutex_unlock(&e->lock);
  if (stamped) return clsSuccess;
  if (!ev)
    return cls__reason(clsErrorInvalidResourceHandle,
                       "the event was never recorded");
  if (st < 0) return cls__ocl_failed(st);
  if (st != CL_COMPLETE) return clsErrorNotReady;
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clGetEventProfilingInfo");
  return clsSuccess;
}

static int cls__state_error(clsError_t e) {
  return e == clsErrorInvalidResourceHandle || e == clsErrorNotReady ||
         e == clsErrorLaunchFailure;
}

clsError_t cls__b_event_elapsed(float *ms, cls__bevent *a, cls__bevent *b) {
  cl_ulong ta = 0, tb = 0;
  clsError_t r = cls__end_time(a, &ta);
  clsError_t r2 = cls__end_time(b, &tb);
  /* An event's state (never recorded, failed, not complete) comes before
   * a failed timestamp query of the other. */
  if (r == clsSuccess || (!cls__state_error(r) && cls__state_error(r2))) r = r2;
  if (cls__state_error(r)) return r;
  /* A device whose timestamps cannot time work (facts.c) gives an error,
   * never 0.000 ms for real work; (e, e) is 0 everywhere. */
  cls__bevent *untimed = a->dev->facts.no_timestamps   ? a
                         : b->dev->facts.no_timestamps ? b
                                                       : NULL;
  if (untimed && a != b)
    return cls__reason(clsErrorNotSupported,
                       "device %d (%s) gives no usable profiling timestamps "
                       "(clstream-info: timer resolution 0)",
                       untimed->dev->index, untimed->dev->name);
  if (a == b) {
    *ms = 0.0f;
    return clsSuccess;
  }
  if (r != clsSuccess) return r;
  *ms = (float)((double)(int64_t)(tb - ta) / 1e6);
  return clsSuccess;
}
