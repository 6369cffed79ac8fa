/* OpenCL backend: records and elapsed times.  A record's token is the
 * position of a marker (or, where marker timestamps were found wrong, of
 * a tiny copy; or a barrier where no timestamp is needed) enqueued at
 * record time, or of the stream's newest command where that stands for
 * the record.  The front owns the event's state (src/event.c); tokens
 * live in position.c. */
#include "command.h"

#include <stdlib.h>
#include <time.h>

clsError_t cls__b_event_create(int dev, unsigned flags, cls__bevent **out) {
  (void)dev;
  /* An interprocess event is accepted as CUDA 13 accepts it (the front
   * checked it is untimed) and works as an event within this process:
   * only sharing it with another process, which clstream has no call for,
   * could refuse. */
  (void)flags;
  *out = NULL; /* nothing per event: the tokens carry it all */
  return clsSuccess;
}

void cls__b_event_destroy(cls__bevent *e) { (void)e; }

/* Whether the stream's newest command can stand for a record: the record
 * adds no waits (b->n == 0) and that command has not completed yet (or
 * failed: the record fails with it), so its completion is exactly when
 * the stream reaches the record (and its END timestamp the record's
 * time).  Returns it retained (with its kind in *work and *barrier), or
 * NULL.  Only reads the stream's position (cls__pos_status is the one
 * that learns completion).  Called between cls__ocl_begin and
 * cls__ocl_end, so the stream cannot move. */
static cl_event cls__reusable_last(cls__bstream *s, const cls__ocl_batch *b,
                                   int timed, int *idle, int *after_work,
                                   int *work, int *barrier) {
  *idle = 0;
  *after_work = 0;
  if (b->n != 0) return NULL;
  cl_event ev = NULL;
  cls__lock_take(&s->last_lock);
  cls__ocl_pos *p = &s->last;
  int done = cls__last_known_done(s);
  /* Whether a marker enqueued now would follow device work only (or an
   * idle queue), with nothing gated by a user event before it. */
  *after_work =
      !cls__pos_foreign(p) && (p->unnamed || !p->ev || p->work || done);
  if (cls__pos_open(p)) {
    /* Commands without an event (or the program's own, on a handed-out
     * queue) follow `last`: the record is a command of its own (a
     * barrier where untimed: the cheapest position). */
  } else if (!p->ev || done) {
    *idle = 1;
  } else if (timed && (p->barrier || (!p->work && s->dev->timing_fallback))) {
    /* A barrier has no timestamps kept; a marker's are not to be trusted
     * on this device. */
  } else if (cls__last_status(s) != CL_COMPLETE) {
    /* A failed newest command stands for the record too: it fails. */
    ev = p->ev;
    clRetainEvent(ev);
    *work = p->work;
    *barrier = p->barrier;
  } else {
    *idle = 1;
    *after_work = 1; /* an idle queue: nothing gates a marker */
  }
  cls__lock_give(&s->last_lock);
  return ev;
}

/* ---- Host-stamped records (devices without usable timestamps) ---------
 *
 * Where the device's profiling timestamps cannot time work
 * (facts.no_timestamps: rusticl on llvmpipe), a timed record is a host
 * job in the stream that reads CLOCK_MONOTONIC when it runs, that is once
 * the stream's earlier work is complete, and later work in the stream
 * waits for it, as for any host function.  So the stamps of two records
 * keep their stream order, a kernel recorded between two of them lies
 * between their stamps, and each stamp is taken before anyone can see
 * the record complete (the record's token stands on the job's gate).
 * The stamp trails the completion by the time a library thread takes to
 * see it (a driver callback or the monitor's poll, then a worker). */

typedef struct cls__stamp_job {
  cls__job hdr; /* first: the job record hostjob.c passes back */
  cls__btoken *t;
} cls__stamp_job;

static cl_ulong cls__monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
}

/* Runs once the stream reaches the record (with an earlier command's
 * error too: the stamp is still when the stream got there). */
static void cls__stamp_run(void *job, clsError_t status) {
  (void)status;
  cls__stamp_job *j = job;
  cl_ulong none = 0;
  atomic_compare_exchange_strong(&j->t->hstamp, &none, cls__monotonic_ns());
  cls__b_token_release(j->t);
  free(j);
}

static clsError_t cls__record_host_stamped(cls__bstream *s, cls__btoken **out,
                                           int *complete) {
  cls__btoken *t = cls__ocl_token_reserve(s->dev);
  cls__stamp_job *j = malloc(sizeof *j);
  if (!t || !j) {
    cls__b_token_release(t);
    free(j);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  t->host_stamped = 1;
  j->hdr.run = cls__stamp_run;
  j->hdr.skippable = 0; /* always runs: it holds a reference to t */
  j->t = t;
  cls__b_token_retain(t);
  clsError_t r = cls__b_stream_host_job(s, cls__stamp_run, j);
  if (r != clsSuccess) { /* the job never runs */
    cls__b_token_release(t);
    cls__b_token_release(t);
    free(j);
    return r;
  }
  /* The position after the job: an untimed record, which stands on the
   * job's gate (or is complete at once where the job has already run). */
  cls__btoken *after = NULL;
  int done = 0;
  r = cls__b_record(NULL, s, clsEventDisableTiming, &after, &done);
  if (r != clsSuccess) {
    cls__b_token_release(t);
    return r;
  }
  if (after && after->pos.ev) {
    clRetainEvent(after->pos.ev);
    (void)cls__pos_advance(&t->pos, after->pos.ev, 0, 1);
  }
  cls__b_token_release(after);
  *complete = done;
  *out = t;
  return clsSuccess;
}

clsError_t cls__b_record(cls__bevent *e, cls__bstream *s, unsigned flags,
                         cls__btoken **out, int *complete) {
  (void)e;
  int timed = !(flags & clsEventDisableTiming);
  /* Host stamps, but not while tracing: the trace draws records as their
   * markers, and its times are the driver's (meaningless there anyway). */
  if (timed && s->dev->facts.no_timestamps && !cls__trace_on) {
    *out = NULL;
    *complete = 0;
    return cls__record_host_stamped(s, out, complete);
  }
  cls__ocl_batch b;
  cl_event ev = NULL;
  cl_int err;
  *out = NULL;
  *complete = 0;
  cls__ocl_begin(s, &b);
  /* No command at all where one is not needed: the stream's in-flight
   * newest command stands for the record, and an untimed record on an idle
   * stream is complete at once. */
  int idle, after_work, work = 0, barrier = 0;
  ev = cls__reusable_last(s, &b, timed, &idle, &after_work, &work, &barrier);
  if (ev || (idle && !timed)) {
    cls__ocl_end(s, &b, NULL);
    if (!ev) { /* complete: no token */
      *complete = 1;
      return clsSuccess;
    }
    *out = cls__ocl_token_new(s->dev, ev, work, barrier);
    return *out ? clsSuccess : clsErrorMemoryAllocation;
  }
  if (idle && s->dev->facts.host_clock && !cls__trace_on) {
    /* The device's profiling clock is a host clock (open.c): a timed
     * record on an idle stream is complete now, at the host's reading,
     * taken while the stream is held so that no later command precedes
     * it.  (Not while tracing: the trace draws records as the markers.) */
    cl_ulong now = cls__ocl_host_stamp(s->dev);
    cls__ocl_end(s, &b, NULL);
    *out = cls__ocl_token_stamped(s->dev, now);
    *complete = 1;
    return *out ? clsSuccess : clsErrorMemoryAllocation;
  }
  /* The token first: out of host memory, nothing is enqueued. */
  cls__btoken *t = cls__ocl_token_reserve(s->dev);
  if (!t) {
    cls__ocl_end(s, &b, NULL);
    return clsErrorMemoryAllocation;
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
  if (err != CL_SUCCESS) {
    cls__ocl_end(s, &b, NULL);
    cls__b_token_release(t);
    return cls__ocl_error(err, "recording the event");
  }
  /* One driver reference, held by the token for the event and the
   * stream both (the stream learns from the token when a wait on the
   * record saw it complete). */
  cls__ocl_token_place(t, ev, b.work, b.barrier);
  cls__ocl_end_record(s, &b, ev, t);
  *out = t;
  return clsSuccess;
}

clsError_t cls__ocl_record(cls__bstream *s, int timed, cls__btoken **out) {
  int complete;
  return cls__b_record(NULL, s, timed ? 0u : (unsigned)clsEventDisableTiming,
                       out, &complete);
}

/* END timestamp of t's command; clsErrorNotReady if incomplete. */
static clsError_t cls__end_time(cls__btoken *t, cl_ulong *t_end) {
  if (t->host_stamped) {
    cl_int st = cls__pos_status(&t->pos);
    if (st < 0) return cls__ocl_failed(st);
    if (st != CL_COMPLETE) return clsErrorNotReady;
    /* The job stamps before its gate completes; read as it left it. */
    *t_end = atomic_load(&t->hstamp);
    return *t_end ? clsSuccess : clsErrorNotReady;
  }
  if (!t->pos.ev) { /* complete at record (cls__ocl_token_stamped) */
    *t_end = t->stamp;
    return clsSuccess;
  }
  cl_int st = cls__pos_status(&t->pos);
  if (st < 0) return cls__ocl_failed(st);
  if (st != CL_COMPLETE) return clsErrorNotReady;
  cl_int err = clGetEventProfilingInfo(t->pos.ev, CL_PROFILING_COMMAND_END,
                                       sizeof *t_end, t_end, NULL);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clGetEventProfilingInfo");
  return clsSuccess;
}

static int cls__state_error(clsError_t e) {
  return e == clsErrorNotReady || e == clsErrorLaunchFailure;
}

clsError_t cls__b_token_elapsed(float *ms, cls__btoken *a, cls__btoken *b) {
  cl_ulong ta = 0, tb = 0;
  clsError_t r = cls__end_time(a, &ta);
  clsError_t r2 = a == b ? r : cls__end_time(b, &tb);
  /* A record's state (failed, not complete) comes before a failed
   * timestamp query of the other. */
  if (r == clsSuccess || (!cls__state_error(r) && cls__state_error(r2))) r = r2;
  if (cls__state_error(r)) return r;
  /* A device whose timestamps cannot time work (facts.c) gives an error,
   * never 0.000 ms for real work; (e, e) is 0 everywhere. */
  cls__btoken *untimed = a->dev->facts.no_timestamps && !a->host_stamped ? a
                         : b->dev->facts.no_timestamps && !b->host_stamped
                             ? b
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
