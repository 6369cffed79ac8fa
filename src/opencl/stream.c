/* OpenCL backend: streams (in-order profiling queues), the enqueue bracket
 * that implements clsStreamWaitEvent and the legacy stream's implicit
 * synchronization, host jobs and the worker threads that run them. */
#include "ocl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Small helpers ---------------------------------------------------- */

static int cls__grow(void **arr, unsigned *cap, unsigned need, size_t elem) {
  if (need <= *cap) return 1;
  unsigned c = *cap ? *cap * 2 : 8;
  while (c < need) c *= 2;
  void *p = realloc(*arr, c * elem);
  if (!p) return 0;
  *arr = p;
  *cap = c;
  return 1;
}

static void cls__batch_init(cls__ocl_batch *b) {
  b->list = b->small;
  b->cap = sizeof b->small / sizeof b->small[0];
  b->n = 0;
}

/* Adds ev to b; `owned`: b holds a reference to release.  Out of host
 * memory, the dependency is kept by waiting for ev here and now. */
static void cls__batch_add(cls__ocl_batch *b, cl_event ev, int owned) {
  if (b->n == b->cap) {
    cl_uint cap = b->cap * 2;
    cl_event *l = malloc(cap * sizeof *l);
    if (!l) {
      clWaitForEvents(1, &ev);
      if (owned) clReleaseEvent(ev);
      return;
    }
    memcpy(l, b->list, b->n * sizeof *l);
    if (b->list != b->small) free(b->list);
    b->list = l;
    b->cap = cap;
  }
  b->list[b->n++] = ev;
}

/* Adds ev (retained by the caller) to b. */
static void cls__batch_push(cls__ocl_batch *b, cl_event ev) {
  cls__batch_add(b, ev, 1);
}

clsError_t cls__ocl_failed(cl_int st) {
  return cls__reason(clsErrorLaunchFailure,
                     "a device command failed (execution status %d)", (int)st);
}

cl_int cls__ocl_status(cl_event ev) {
  cl_int st = CL_COMPLETE;
  if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                     NULL) != CL_SUCCESS)
    return CL_SUBMITTED; /* unknown: keep waiting for it, never drop it */
  return st;
}

/* Completes a user event, retrying a transient failure (a user event left
 * unset would hold its stream forever).  Always CL_COMPLETE: a failure has
 * already failed the commands behind the failed one (and PoCL aborts when
 * a user event with dependents is set to an error). */
static void cls__complete_user(cl_event user) {
  for (int i = 0; i < 1000; ++i) {
    cl_int err = clSetUserEventStatus(user, CL_COMPLETE);
    if (err == CL_SUCCESS || err == CL_INVALID_OPERATION) return;
    struct timespec d = {0, 1000000L};
    nanosleep(&d, NULL);
  }
}

/* ---- Worker threads --------------------------------------------------- */

/* Host jobs and bridges run on a pool of worker threads.  Posting never
 * starts a thread when a worker is idle or about to be (one that just ran
 * a job comes back to the queue before it waits); the monitor thread
 * starts another only when a queued job has found no idle worker for a
 * while, because the running ones are blocked in user functions. */
static pthread_mutex_t cls__wlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cls__wcond = PTHREAD_COND_INITIALIZER;
static cls__ocl_job *cls__whead, *cls__wtail;
static int cls__widle, cls__wthreads, cls__wqueued;
static long long cls__wstarved; /* since when queued jobs outnumber idle
                                   workers (0: they do not) */

#define CLS__MAX_WORKERS 256
#define CLS__STARVE_NS 2000000LL /* 2 ms */

static long long cls__now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cls__spawn(void *(*fn)(void *)) {
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  int ok = pthread_create(&t, &a, fn, NULL) == 0;
  pthread_attr_destroy(&a);
  return ok;
}

/* Under cls__wlock, after the queue or the idle count changed: a queued
 * job that no idle worker will take is starving (an idle worker that was
 * signalled counts until it wakes, so two jobs posted to one idle worker
 * leave one starving). */
static void cls__starve_check(void) {
  if (cls__wqueued > cls__widle) {
    if (!cls__wstarved) cls__wstarved = cls__now_ns();
  } else {
    cls__wstarved = 0;
  }
}

static void *cls__worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&cls__wlock);
  for (;;) {
    while (!cls__whead) {
      cls__widle++;
      cls__starve_check();
      pthread_cond_wait(&cls__wcond, &cls__wlock);
      cls__widle--;
    }
    cls__ocl_job *j = cls__whead;
    cls__whead = j->next;
    if (!cls__whead) cls__wtail = NULL;
    cls__wqueued--;
    cls__starve_check();
    pthread_mutex_unlock(&cls__wlock);
    j->run(j);
    pthread_mutex_lock(&cls__wlock);
  }
  return NULL;
}

static void cls__start_monitor(void);
static pthread_once_t cls__monitor_once = PTHREAD_ONCE_INIT;

void cls__ocl_post(cls__ocl_job *job) {
  pthread_once(&cls__monitor_once, cls__start_monitor);
  job->next = NULL;
  pthread_mutex_lock(&cls__wlock);
  if (cls__wtail)
    cls__wtail->next = job;
  else
    cls__whead = job;
  cls__wtail = job;
  cls__wqueued++;
  if (cls__widle > 0)
    pthread_cond_signal(&cls__wcond);
  else if (cls__wthreads == 0 && cls__spawn(cls__worker))
    cls__wthreads++;
  cls__starve_check();
  pthread_mutex_unlock(&cls__wlock);
}

/* Called by the monitor: a job that has waited CLS__STARVE_NS with no
 * idle worker gets a new worker. */
static void cls__feed_starved(void) {
  pthread_mutex_lock(&cls__wlock);
  if (cls__wqueued > cls__widle && cls__wstarved &&
      cls__now_ns() - cls__wstarved >= CLS__STARVE_NS &&
      cls__wthreads < CLS__MAX_WORKERS && cls__spawn(cls__worker)) {
    cls__wthreads++;
    cls__wstarved = cls__now_ns(); /* give it time to take a job */
  }
  pthread_mutex_unlock(&cls__wlock);
}

/* ---- Waiting ---------------------------------------------------------- */

/* A thread sleeping until an event completes, woken by a watch (so that
 * a failed command, whose callback some drivers skip, still wakes it). */
typedef struct cls__sleeper {
  cls__ocl_watch watch;
  pthread_mutex_t m;
  pthread_cond_t c;
  int done;
  atomic_int refs; /* the sleeper and the watch job */
} cls__sleeper;

static void cls__sleeper_put(cls__sleeper *s) {
  if (atomic_fetch_sub(&s->refs, 1) == 1) {
    pthread_cond_destroy(&s->c);
    pthread_mutex_destroy(&s->m);
    cls__ocl_watch_done(&s->watch); /* frees s once the monitor lets go */
  }
}

static void cls__sleeper_wake(cls__ocl_job *j) {
  cls__sleeper *s = (cls__sleeper *)j;
  pthread_mutex_lock(&s->m);
  s->done = 1;
  pthread_cond_signal(&s->c);
  pthread_mutex_unlock(&s->m);
  cls__sleeper_put(s);
}

clsError_t cls__ocl_wait(cl_event ev, int sleep) {
  /* clsSetDeviceFlags' schedule flag, unless the caller must sleep. */
  unsigned mode = sleep ? CLS__WAIT_DRIVER : cls__ocl_wait_mode(ev);
  if (mode == clsDeviceScheduleSpin || mode == clsDeviceScheduleYield)
    return cls__ocl_poll_wait(ev, mode);
  if (mode == clsDeviceScheduleBlockingSync) sleep = 1;
  if (!sleep) {
    /* CL_SUCCESS only when ev is CL_COMPLETE, an error when it failed. */
    cl_int err = clWaitForEvents(1, &ev);
    if (err == CL_SUCCESS) return clsSuccess;
    if (err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
      return cls__ocl_error(err, "clWaitForEvents");
  } else if (cls__ocl_status(ev) > CL_COMPLETE) {
    cls__sleeper *s = calloc(1, sizeof *s);
    if (!s) return cls__reason(clsErrorMemoryAllocation, "out of memory");
    pthread_mutex_init(&s->m, NULL);
    pthread_cond_init(&s->c, NULL);
    atomic_init(&s->refs, 2);
    s->watch.job.run = cls__sleeper_wake;
    cls__ocl_watch_event(&s->watch, ev);
    pthread_mutex_lock(&s->m);
    while (!s->done) pthread_cond_wait(&s->c, &s->m);
    pthread_mutex_unlock(&s->m);
    cls__sleeper_put(s);
  }
  cl_int st = cls__ocl_status(ev);
  return st < 0 ? cls__ocl_failed(st) : clsSuccess;
}

/* ---- The enqueue bracket ---------------------------------------------- */

/* Lists s (whose in_busy the caller just set) in its device's busy list,
 * which has room for every blocking stream (cls__stream_new). */
static void cls__busy_add(cls__bstream *s) {
  cls__ocl_device *d = s->dev;
  pthread_mutex_lock(&d->busy_lock);
  d->busy[d->nbusy++] = s;
  pthread_mutex_unlock(&d->busy_lock);
}

/* Keeps ev (retained; the caller's reference moves) visible to legacy
 * work and device synchronization after its stream is gone.  Under
 * d->busy_lock.  Out of host memory, waits for ev instead. */
static void cls__orphan_add(cls__ocl_device *d, cl_event ev, int blocking) {
  if (!cls__grow((void **)&d->orphans, &d->caporphans, d->norphans + 1,
                 sizeof *d->orphans)) {
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    return;
  }
  d->orphans[d->norphans].ev = ev;
  d->orphans[d->norphans].blocking = blocking;
  d->norphans++;
}

/* Folds execution status st into *worst: a failure beats "not yet"
 * (> 0), which beats CL_COMPLETE. */
static void cls__fold_status(cl_int *worst, cl_int st) {
  if (st < 0 ? *worst >= 0 : st > CL_COMPLETE && *worst == CL_COMPLETE)
    *worst = st;
}

/* Adds to b (retained; b may be NULL, to look only) t's newest command
 * and its waits that no command has consumed yet, where not complete;
 * returns their worst status (CL_COMPLETE when there are none).  A failed
 * command counts as not complete: work ordered after it fails too,
 * whether it was enqueued before or after the failure happened.  Under
 * t->last_lock. */
static cl_int cls__gather_stream(cls__bstream *t, cls__ocl_batch *b) {
  cl_int worst = CL_COMPLETE;
  cls__ocl_position(t);
  if (CLS__UNLIKELY(t->unnamed)) {
    /* Not even a barrier could be enqueued (out of resources): wait for
     * the queue itself rather than lose the order. */
    clFinish(t->q);
    t->unnamed = 0;
  }
  if (t->last && !atomic_load_explicit(&t->last_done, memory_order_relaxed)) {
    cl_int st = cls__ocl_status(t->last);
    if (st != CL_COMPLETE) {
      if (b) {
        clRetainEvent(t->last);
        cls__batch_push(b, t->last);
      }
      cls__fold_status(&worst, st);
    } else {
      atomic_store_explicit(&t->last_done, 1, memory_order_release);
    }
  }
  /* A clsStreamWaitEvent that no command has consumed yet is work of t
   * too (as CUDA has it: legacy work waits for it).  Once all of them are
   * complete, has_waits lets the hot paths skip them. */
  int waiting = 0;
  for (unsigned w = 0; w < t->nwaits; ++w) {
    cl_int st = cls__ocl_status(t->waits[w]);
    if (st != CL_COMPLETE) {
      if (b) {
        clRetainEvent(t->waits[w]);
        cls__batch_push(b, t->waits[w]);
      }
      cls__fold_status(&worst, st);
      waiting = 1;
    }
  }
  if (!waiting) atomic_store_explicit(&t->has_waits, 0, memory_order_release);
  return worst;
}

/* Adds to b (or, with b NULL, only looks at) the newest commands of the
 * device's blocking streams (and of destroyed blocking streams) that are
 * not yet complete, and drops those that are from the busy list: the cost
 * is proportional to the streams with unfinished work.  Returns their
 * worst status, as cls__gather_stream does. */
static cl_int cls__gather_blocking(cls__ocl_device *d, cls__ocl_batch *b) {
  cl_int worst = CL_COMPLETE;
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->nbusy;) {
    cls__bstream *t = d->busy[i];
    pthread_mutex_lock(&t->last_lock);
    cl_int st = cls__gather_stream(t, b);
    int keep = st != CL_COMPLETE;
    cls__fold_status(&worst, st);
    if (!keep) t->in_busy = 0;
    pthread_mutex_unlock(&t->last_lock);
    if (keep)
      ++i;
    else
      d->busy[i] = d->busy[--d->nbusy];
  }
  for (unsigned i = 0; i < d->norphans;) {
    struct cls__ocl_orphan *o = &d->orphans[i];
    /* A failed orphan stays until clsDeviceSynchronize reports it. */
    cl_int st = cls__ocl_status(o->ev);
    if (st != CL_COMPLETE) {
      if (o->blocking) {
        if (b) {
          clRetainEvent(o->ev);
          cls__batch_push(b, o->ev);
        }
        cls__fold_status(&worst, st);
      }
      ++i;
    } else {
      clReleaseEvent(o->ev);
      *o = d->orphans[--d->norphans];
    }
  }
  pthread_mutex_unlock(&d->busy_lock);
  return worst;
}

/* Adds to b the legacy stream's pending work. */
static void cls__gather_legacy(cls__ocl_device *d, cls__ocl_batch *b) {
  cls__bstream *l = atomic_load_explicit(&d->legacy, memory_order_acquire);
  /* The hot path: an idle legacy stream costs two atomic loads. */
  if (!l || (atomic_load_explicit(&l->last_done, memory_order_acquire) &&
             !atomic_load_explicit(&l->has_waits, memory_order_acquire)))
    return;
  pthread_mutex_lock(&l->last_lock);
  cls__gather_stream(l, b);
  pthread_mutex_unlock(&l->last_lock);
}

/* cls__ocl_begin, gathering the legacy synchronization or not. */
static void cls__begin(cls__bstream *s, cls__ocl_batch *b, int gather);

void cls__ocl_begin(cls__bstream *s, cls__ocl_batch *b) { cls__begin(s, b, 1); }

static void cls__begin(cls__bstream *s, cls__ocl_batch *b, int gather) {
  pthread_mutex_lock(&s->lock);
  cls__batch_init(b);
  /* Borrowed: cls__ocl_end releases them as consumed. */
  for (unsigned i = 0; i < s->nwaits; ++i) cls__batch_add(b, s->waits[i], 0);
  b->npending = b->n;
  b->what = b->cat = NULL;
  b->from = NULL;
  b->work = 0;
  b->barrier = 0;
  if (!gather)
    ;
  else if (s->role == CLS__ROLE_LEGACY)
    cls__gather_blocking(s->dev, b);
  else if (s->blocking)
    cls__gather_legacy(s->dev, b);
  if (b->n == 0) b->list = NULL; /* OpenCL wants NULL for an empty list */
}

/* Enqueueing is not a wait and queues are thread-safe, so this needs only
 * t->last_lock: a command of t racing it lands before the barrier (which
 * then covers it too) or after it (and t->unnamed counts it again).  On
 * NVIDIA's driver a barrier with an event costs 0.8 us where a marker
 * costs 7.1 us and asking each command for its event 7.1 us more
 * (DRIVER-COSTS.md); a barrier's timestamps are not kept (END reads 0
 * there), so a timed record never stands on one. */
void cls__ocl_position(cls__bstream *t) {
  if (CLS__LIKELY(!t->unnamed)) return;
  cl_event ev = NULL;
  cl_int err = clEnqueueBarrierWithWaitList(t->q, 0, NULL, &ev);
  if (err != CL_SUCCESS) err = clEnqueueMarkerWithWaitList(t->q, 0, NULL, &ev);
  if (err != CL_SUCCESS) return; /* still unnamed: the caller copes */
  cls__ocl_flush(t->q);          /* someone is about to wait for it */
  if (t->last) clReleaseEvent(t->last);
  t->last = ev;
  t->last_work = 0;
  t->last_barrier = 1;
  t->unnamed = 0;
  atomic_store_explicit(&t->last_done, 0, memory_order_release);
}

/* The common part of the two ends of a successful enqueue: the waits are
 * consumed and the stream is listed busy.  `ev` is the command's event,
 * or NULL for a command enqueued without one. */
static void cls__end_ok(cls__bstream *s, const cls__ocl_batch *b, cl_event ev) {
  /* The waits are consumed (other streams read them under last_lock;
   * only holders of s->lock change them, and that is us). */
  pthread_mutex_lock(&s->last_lock);
  unsigned consumed = s->nwaits;
  s->nwaits = 0;
  atomic_store_explicit(&s->has_waits, 0, memory_order_release);
  cl_event old = NULL;
  if (ev) {
    old = s->last;
    s->last = ev;
    s->last_work = b->work;
    s->last_barrier = b->barrier;
    s->unnamed = 0;
  } else {
    s->unnamed++;
  }
  atomic_store_explicit(&s->last_done, 0, memory_order_release);
  int add = s->blocking && !s->in_busy;
  if (add) s->in_busy = 1;
  pthread_mutex_unlock(&s->last_lock);
  for (unsigned i = 0; i < consumed; ++i) clReleaseEvent(s->waits[i]);
  if (old) clReleaseEvent(old);
  if (add) cls__busy_add(s);
}

/* Releases what cls__begin gathered, and s->lock. */
static void cls__end_release(cls__bstream *s, cls__ocl_batch *b) {
  for (cl_uint i = b->npending; i < b->n; ++i) clReleaseEvent(b->list[i]);
  if (b->list != b->small) free(b->list); /* NULL when empty */
  pthread_mutex_unlock(&s->lock);
}

/* Work enqueued without a later clstream call must still start (DESIGN:
 * "flush a queue after enqueueing anything that another queue or the host
 * will wait on").  A command that has an event is flushed at once; one
 * without is flushed at once where the driver may otherwise leave it
 * unstarted (facts.flush_to_start), and on drivers measured to start work
 * without a flush (NVIDIA's, PoCL) when its position is named
 * (cls__ocl_position), which every wait on it does first. */
void cls__ocl_end_unnamed(cls__bstream *s, cls__ocl_batch *b) {
  cls__end_ok(s, b, NULL);
  if (s->dev->facts.flush_to_start) cls__ocl_flush(s->q);
  cls__end_release(s, b);
}

void cls__ocl_end_cmd(cls__bstream *s, cls__ocl_batch *b, int ok, cl_event ev) {
  if (ok && !ev)
    cls__ocl_end_unnamed(s, b);
  else
    cls__ocl_end(s, b, ok ? ev : NULL);
}

void cls__ocl_end(cls__bstream *s, cls__ocl_batch *b, cl_event ev) {
  if (ev) {
    cls__end_ok(s, b, ev);
    cls__ocl_flush(s->q);
    if (CLS__UNLIKELY(cls__trace_on)) cls__trace_command(s, ev, b);
  }
  cls__end_release(s, b);
}

/* ---- Streams ---------------------------------------------------------- */

static clsError_t cls__stream_new(cls__ocl_device *d, unsigned flags,
                                  int priority, int role, cls__bstream **out) {
  cls__bstream *s = calloc(1, sizeof *s);
  if (!s) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  cl_int err;
  const char *what;
  s->q = cls__ocl_queue(d, 1, priority < 0, &err, &what);
  if (err != CL_SUCCESS) {
    free(s);
    return cls__ocl_error(err, what);
  }
  s->dev = d;
  s->role = role;
  s->blocking = role != CLS__ROLE_LEGACY && !(flags & clsStreamNonBlocking);
  if (s->blocking) {
    /* Room in the busy list for every blocking stream, so that listing
     * one later (while enqueueing) cannot fail. */
    pthread_mutex_lock(&d->busy_lock);
    int ok = cls__grow((void **)&d->busy, &d->capbusy, d->nblocking + 1,
                       sizeof *d->busy);
    if (ok) d->nblocking++;
    pthread_mutex_unlock(&d->busy_lock);
    if (!ok) {
      clReleaseCommandQueue(s->q);
      free(s);
      return cls__reason(clsErrorMemoryAllocation, "out of host memory");
    }
  }
  static atomic_uint next_id;
  s->id = atomic_fetch_add(&next_id, 1) + 1;
  if (CLS__UNLIKELY(cls__trace_on)) cls__trace_stream(s);
  atomic_init(&s->last_done, 1);
  pthread_mutex_init(&s->lock, NULL);
  pthread_mutex_init(&s->last_lock, NULL);
  pthread_mutex_lock(&d->streams_lock);
  s->next = d->streams;
  if (d->streams) d->streams->prev = s;
  d->streams = s;
  pthread_mutex_unlock(&d->streams_lock);
  *out = s;
  return clsSuccess;
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

  pthread_mutex_lock(&d->busy_lock);
  /* Waits that no command consumed are pending work of the stream too:
   * the legacy stream and device synchronization still wait for them. */
  for (unsigned i = 0; i < s->nwaits; ++i) {
    cl_event w = s->waits[i];
    if (cls__ocl_status(w) != CL_COMPLETE)
      cls__orphan_add(d, w, s->blocking);
    else
      clReleaseEvent(w);
  }
  free(s->waits);
  for (unsigned i = 0; i < d->nbusy; ++i)
    if (d->busy[i] == s) {
      d->busy[i] = d->busy[--d->nbusy];
      break;
    }
  if (s->blocking) d->nblocking--;
  pthread_mutex_lock(&s->last_lock);
  cls__ocl_position(s);
  pthread_mutex_unlock(&s->last_lock);
  /* Work still pending stays visible to the legacy stream and to device
   * synchronization until it completes; failed work until
   * clsDeviceSynchronize has reported it. */
  if (s->last && cls__ocl_status(s->last) != CL_COMPLETE)
    cls__orphan_add(d, s->last, s->blocking);
  else if (s->last)
    clReleaseEvent(s->last);
  pthread_mutex_unlock(&d->busy_lock);
  clReleaseCommandQueue(s->q); /* implicit flush; pending work still runs */
  pthread_mutex_destroy(&s->lock);
  pthread_mutex_destroy(&s->last_lock);
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
  cls__begin(s, &b, 0);
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
  if (atomic_load_explicit(&s->last_done, memory_order_acquire)) return NULL;
  pthread_mutex_lock(&s->last_lock);
  cls__ocl_position(s);
  if (CLS__UNLIKELY(s->unnamed)) { /* no barrier could be enqueued */
    pthread_mutex_unlock(&s->last_lock);
    clFinish(s->q);
    pthread_mutex_lock(&s->last_lock);
  }
  cl_event ev = s->last;
  if (ev && !atomic_load_explicit(&s->last_done, memory_order_relaxed))
    clRetainEvent(ev);
  else
    ev = NULL;
  pthread_mutex_unlock(&s->last_lock);
  return ev;
}

static void cls__mark_done(cls__bstream *s, cl_event ev) {
  pthread_mutex_lock(&s->last_lock);
  if (s->last == ev)
    atomic_store_explicit(&s->last_done, 1, memory_order_release);
  pthread_mutex_unlock(&s->last_lock);
}

/* Blocks until the blocking streams' work that legacy-stream work issued
 * now would wait for is done: the legacy stream's state includes it, as
 * CUDA's does (cudaStreamSynchronize(0) waits for a busy blocking stream
 * even when stream 0 itself is idle). */
static clsError_t cls__wait_blocking(cls__ocl_device *d) {
  cls__ocl_batch b;
  cls__batch_init(&b);
  cls__gather_blocking(d, &b);
  clsError_t e = clsSuccess;
  for (cl_uint i = 0; i < b.n; ++i) {
    clsError_t r = cls__ocl_wait(b.list[i], 0);
    if (e == clsSuccess) e = r;
    clReleaseEvent(b.list[i]);
  }
  if (b.list != b.small) free(b.list);
  return e;
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
  cl_int st = cls__gather_blocking(s->dev, NULL);
  if (st < 0) return cls__ocl_failed(st);
  return st == CL_COMPLETE ? clsSuccess : clsErrorNotReady;
}

clsError_t cls__b_stream_query(cls__bstream *s) {
  if (atomic_load_explicit(&s->last_done, memory_order_acquire) &&
      !atomic_load_explicit(&s->has_waits, memory_order_acquire))
    return cls__query_blocking(s);
  /* A pending wait makes the stream not ready; a failed one fails it.
   * last_lock, not the enqueue lock: writers of both hold both. */
  cl_int st = CL_COMPLETE;
  pthread_mutex_lock(&s->last_lock);
  for (unsigned i = 0; i < s->nwaits && st == CL_COMPLETE; ++i)
    st = cls__ocl_status(s->waits[i]);
  if (st == CL_COMPLETE) {
    if (s->nwaits)
      atomic_store_explicit(&s->has_waits, 0, memory_order_release);
    cls__ocl_position(s);
    if (CLS__UNLIKELY(s->unnamed))
      st = 1; /* no barrier: not known done */
    else if (s->last &&
             !atomic_load_explicit(&s->last_done, memory_order_relaxed)) {
      st = cls__ocl_status(s->last);
      if (st == CL_COMPLETE)
        atomic_store_explicit(&s->last_done, 1, memory_order_release);
    }
  }
  pthread_mutex_unlock(&s->last_lock);
  if (st < 0) return cls__ocl_failed(st);
  return st == CL_COMPLETE ? cls__query_blocking(s) : clsErrorNotReady;
}

/* ---- Waiting on events ------------------------------------------------ */

/* A wait across OpenCL contexts (devices of different platforms): a user
 * event in the waiting stream's context, completed by a worker thread
 * once the source event completes. */
typedef struct cls__bridge {
  cls__ocl_watch watch; /* watch.ev is the source event */
  cl_event user;
} cls__bridge;

static void cls__bridge_run(cls__ocl_job *j) {
  cls__bridge *br = (cls__bridge *)j;
  cls__complete_user(br->user);
  clReleaseEvent(br->user);
  cls__ocl_watch_done(&br->watch); /* frees br */
}

static clsError_t cls__bridge_new(cl_event src, cl_context ctx, cl_event *out) {
  cls__bridge *br = calloc(1, sizeof *br);
  if (!br) return cls__reason(clsErrorMemoryAllocation, "out of memory");
  cl_int err;
  br->user = clCreateUserEvent(ctx, &err);
  if (err != CL_SUCCESS) {
    free(br);
    return cls__ocl_error(err, "clCreateUserEvent");
  }
  clRetainEvent(br->user); /* one for the waiter, one for the bridge */
  *out = br->user;
  br->watch.job.run = cls__bridge_run;
  cls__ocl_watch_event(&br->watch, src);
  return clsSuccess;
}

clsError_t cls__b_stream_wait_event(cls__bstream *s, cls__bevent *e) {
  pthread_mutex_lock(&e->lock);
  cl_event ev = e->ev;
  if (ev && !atomic_load_explicit(&e->done, memory_order_relaxed) &&
      cls__ocl_status(ev) != CL_COMPLETE)
    clRetainEvent(ev); /* pending, or failed: the stream's work fails too */
  else
    ev = NULL; /* never recorded, or already complete: nothing to wait for */
  pthread_mutex_unlock(&e->lock);
  if (ev && e->dev->ctx != s->dev->ctx) {
    cl_event user = NULL;
    clsError_t r = cls__bridge_new(ev, s->dev->ctx, &user);
    clReleaseEvent(ev);
    if (r != clsSuccess) return r;
    ev = user;
  }
  /* A wait issued on the legacy stream is legacy work: it waits for the
   * blocking streams' work so far, even when the event itself is complete
   * (measured on CUDA).  On a blocking stream only the next command
   * gathers the legacy stream's work, at its own time. */
  cls__ocl_batch g;
  cls__batch_init(&g);
  pthread_mutex_lock(&s->lock);
  if (s->role == CLS__ROLE_LEGACY) cls__gather_blocking(s->dev, &g);
  if (ev) cls__batch_push(&g, ev);
  int ok = 1, add = 0;
  if (g.n) {
    pthread_mutex_lock(&s->last_lock);
    ok = cls__grow((void **)&s->waits, &s->capwaits, s->nwaits + g.n,
                   sizeof *s->waits);
    if (ok) {
      memcpy(s->waits + s->nwaits, g.list, g.n * sizeof *g.list);
      s->nwaits += g.n;
      atomic_store_explicit(&s->has_waits, 1, memory_order_release);
      add = s->blocking && !s->in_busy;
      if (add) s->in_busy = 1;
    }
    pthread_mutex_unlock(&s->last_lock);
  }
  pthread_mutex_unlock(&s->lock);
  if (!ok)
    for (cl_uint i = 0; i < g.n; ++i) clReleaseEvent(g.list[i]);
  if (g.list != g.small) free(g.list);
  if (add) cls__busy_add(s);
  return ok ? clsSuccess
            : cls__reason(clsErrorMemoryAllocation, "out of host memory");
}

/* ---- Watches ---------------------------------------------------------- */

static pthread_mutex_t cls__mon_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cls__mon_cond = PTHREAD_COND_INITIALIZER;
static cls__ocl_watch *cls__pending;
static int cls__mon_resting; /* the monitor waits without polling */

/* Queues whose last clFlush failed (retained), flushed again by the
 * monitor until a flush succeeds: the commands they hold may not have
 * been submitted, and work nobody submits never completes.  Under
 * cls__mon_lock. */
static cl_command_queue *cls__unflushed;
static unsigned cls__nunflushed, cls__capunflushed;

/* Whether q's device runs commands inside clFlush (facts.flush_runs).
 * Asked only after a failed flush; 0 when it cannot be told. */
static int cls__queue_flush_runs(cl_command_queue q) {
  cl_device_id id = NULL;
  if (clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof id, &id, NULL) !=
      CL_SUCCESS)
    return 0;
  int n = cls__b_device_count();
  for (int i = 0; i < n; ++i) {
    cls__ocl_device *d = cls__ocl_device_get(i);
    if (d->id == id) return d->facts.flush_runs;
  }
  return 0;
}

void cls__ocl_flush(cl_command_queue q) {
  if (CLS__LIKELY(clFlush(q) == CL_SUCCESS)) return;
  /* Where a flush runs the queue (Oclgrind, whose runtime is not
   * thread-safe), a flush by the monitor thread would run it beside this
   * thread's calls: retry here first, and leave the queue to the monitor
   * only if the driver keeps refusing (stranded work would be worse). */
  if (cls__queue_flush_runs(q))
    for (int i = 0; i < 1000; ++i) {
      if (clFlush(q) == CL_SUCCESS) return;
      struct timespec d = {0, 1000000L};
      nanosleep(&d, NULL);
    }
  pthread_once(&cls__monitor_once, cls__start_monitor);
  pthread_mutex_lock(&cls__mon_lock);
  int listed = 0;
  for (unsigned i = 0; i < cls__nunflushed && !listed; ++i)
    listed = cls__unflushed[i] == q;
  if (!listed && cls__grow((void **)&cls__unflushed, &cls__capunflushed,
                           cls__nunflushed + 1, sizeof *cls__unflushed)) {
    clRetainCommandQueue(q);
    cls__unflushed[cls__nunflushed++] = q;
    listed = 1;
  }
  if (cls__mon_resting) pthread_cond_signal(&cls__mon_cond);
  pthread_mutex_unlock(&cls__mon_lock);
  /* No room to remember it: retry here for a while instead. */
  for (int i = 0; !listed && i < 1000; ++i) {
    struct timespec d = {0, 1000000L};
    nanosleep(&d, NULL);
    listed = clFlush(q) == CL_SUCCESS;
  }
}

/* The monitor's retry of failed flushes.  Under cls__mon_lock. */
static void cls__retry_flushes(void) {
  for (unsigned i = 0; i < cls__nunflushed;) {
    if (clFlush(cls__unflushed[i]) == CL_SUCCESS) {
      clReleaseCommandQueue(cls__unflushed[i]);
      cls__unflushed[i] = cls__unflushed[--cls__nunflushed];
    } else {
      ++i;
    }
  }
}

static void cls__unlist(cls__ocl_watch *w) {
  if (w->prev)
    w->prev->next = w->next;
  else
    cls__pending = w->next;
  if (w->next) w->next->prev = w->prev;
  w->next = w->prev = NULL;
}

void cls__ocl_watch_done(cls__ocl_watch *w) {
  if (atomic_fetch_sub(&w->refs, 1) == 1) {
    clReleaseEvent(w->ev);
    free(w);
  }
}

/* Posts w with `status` unless the other path already did.  Lock-free:
 * called from driver callbacks. */
static void cls__claim(cls__ocl_watch *w, cl_int status) {
  if (atomic_exchange(&w->claimed, 1)) return;
  w->job.status = status;
  cls__ocl_post(&w->job);
}

/* The monitor: every 5 ms while watches are pending (and for a second
 * after), it drops claimed watches from its list, claims those whose event
 * failed, and feeds starved queues; otherwise it rests, waking every
 * 100 ms to feed starved queues. */
static void *cls__monitor(void *arg) {
  (void)arg;
  int quiet = 0;
  pthread_mutex_lock(&cls__mon_lock);
  for (;;) {
    quiet = cls__pending || cls__nunflushed ? 0 : quiet + 1;
    struct timespec t;
    if (quiet > 200) {
      cls__mon_resting = 1;
      clock_gettime(CLOCK_MONOTONIC, &t);
      t.tv_nsec += 100 * 1000000L;
      if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
      }
      pthread_cond_timedwait(&cls__mon_cond, &cls__mon_lock, &t);
      cls__mon_resting = 0;
      if (cls__pending || cls__nunflushed) quiet = 0;
    }
    cls__retry_flushes();
    for (cls__ocl_watch *w = cls__pending, *next; w; w = next) {
      next = w->next;
      if (atomic_load(&w->claimed)) {
        cls__unlist(w);
        cls__ocl_watch_done(w); /* the list's reference */
        continue;
      }
      cl_int st = cls__ocl_status(w->ev); /* a query, never a wait */
      if (st < 0 || (st == CL_COMPLETE && atomic_load(&w->poll)))
        cls__claim(w, st);
    }
    pthread_mutex_unlock(&cls__mon_lock);
    cls__feed_starved();
    if (quiet <= 200) {
      struct timespec d = {0, 5 * 1000000L};
      nanosleep(&d, NULL);
    }
    pthread_mutex_lock(&cls__mon_lock);
  }
  return NULL;
}

static void cls__start_monitor(void) {
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&cls__mon_cond, &ca);
  pthread_condattr_destroy(&ca);
  cls__spawn(cls__monitor);
}

static void CL_CALLBACK cls__watch_cb(cl_event ev, cl_int status, void *p) {
  (void)ev;
  cls__claim(p, status);
}

void cls__ocl_watch_event(cls__ocl_watch *w, cl_event ev) {
  clRetainEvent(ev);
  w->ev = ev;
  atomic_init(&w->claimed, 0);
  atomic_init(&w->poll, 0);
  atomic_init(&w->refs, 2);
  pthread_once(&cls__monitor_once, cls__start_monitor);
  pthread_mutex_lock(&cls__mon_lock);
  w->prev = NULL;
  w->next = cls__pending;
  if (cls__pending) cls__pending->prev = w;
  cls__pending = w;
  if (cls__mon_resting) pthread_cond_signal(&cls__mon_cond);
  pthread_mutex_unlock(&cls__mon_lock);
  if (clSetEventCallback(ev, CL_COMPLETE, cls__watch_cb, w) != CL_SUCCESS)
    atomic_store(&w->poll, 1); /* the monitor claims it on completion */
}

/* ---- Host jobs -------------------------------------------------------- */

/* A host function: marker M (after the stream's earlier work) hands the
 * job to a worker (through a watch, so a failed M still runs it); gate G
 * (the stream's next command) waits for user event U, which the worker
 * completes once the function returns.  A failure reaches U, so the
 * stream's later work fails too (as after a CUDA context error). */
typedef struct cls__host {
  cls__ocl_watch watch; /* watch.ev is M */
  cls__job_fn fn;
  void *arg;
  cl_event user;
} cls__host;

static void cls__host_run(cls__ocl_job *j) {
  cls__host *h = (cls__host *)j;
  h->fn(h->arg, j->status < 0 ? clsErrorLaunchFailure : clsSuccess);
  cls__complete_user(h->user);
  clReleaseEvent(h->user);
  cls__ocl_watch_done(&h->watch); /* frees h */
}

/* A host job run on the calling thread (facts.host_inline: where a flush
 * runs the queue on the caller's thread, as Oclgrind's does).  Marker M
 * (after the stream's earlier work, and the legacy synchronization's) is
 * flushed, which on such a driver runs it and the work before it, and
 * waited for with no lock held; then the job runs here, with M's status
 * (so a callback hears of an earlier failure and a skippable job may be
 * skipped), and the call returns after it.  Gate G, the stream's newest
 * command, waits for user event U, set once the job has returned: it is
 * left unflushed until then (a flush would wait for U on this thread),
 * and holds whatever another thread enqueues on the stream meanwhile,
 * and legacy work and events that name the stream's position, until the
 * job is done.  A failed M fails G and the stream's later work, as a
 * failed command does on an in-order queue. */
static clsError_t cls__host_inline(cls__bstream *s, cls__job_fn run,
                                   void *job) {
  cl_int err;
  cl_event user = clCreateUserEvent(s->dev->ctx, &err);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clCreateUserEvent");
  cls__ocl_batch b;
  cl_event m = NULL, g = NULL;
  cls__ocl_begin(s, &b);
  err = clEnqueueMarkerWithWaitList(s->q, b.n, b.list, &m);
  if (err != CL_SUCCESS) {
    cls__ocl_end(s, &b, NULL);
    cls__complete_user(user);
    clReleaseEvent(user);
    return cls__ocl_error(err, "enqueueing a host function");
  }
  cls__ocl_flush(s->q);
  if (clEnqueueMarkerWithWaitList(s->q, 1, &user, &g) != CL_SUCCESS)
    g = NULL; /* M stands for the job's place alone (no other thread's
                 work waits for the job then) */
  b.what = "host function";
  b.cat = "host";
  b.from = m;
  /* The stream takes the newest command's reference; M's own is ours, for
   * the wait (retained once more where M is the newest). */
  cl_event newest = g ? g : m;
  if (!g) clRetainEvent(m);
  cls__end_ok(s, &b, newest);
  if (CLS__UNLIKELY(cls__trace_on)) cls__trace_command(s, newest, &b);
  cls__end_release(s, &b);

  /* The wait: retried where it fails without M being known complete or
   * failed (an injected or transient failure of the wait itself). */
  cl_int st = cls__ocl_status(m);
  for (int i = 0; st > CL_COMPLETE && i < 1000; ++i) {
    if (cls__ocl_wait(m, 0) != clsSuccess && cls__ocl_status(m) > CL_COMPLETE) {
      struct timespec d = {0, 1000000L};
      nanosleep(&d, NULL);
    }
    st = cls__ocl_status(m);
  }
  clReleaseEvent(m);
  run(job, st == CL_COMPLETE ? clsSuccess : clsErrorLaunchFailure);
  cls__complete_user(user);
  clReleaseEvent(user);
  if (g) cls__ocl_flush(s->q); /* G, and what was enqueued after it */
  return clsSuccess;
}

clsError_t cls__b_stream_host_job(cls__bstream *s, cls__job_fn run, void *job) {
  if (s->dev->facts.host_inline) return cls__host_inline(s, run, job);
  cls__host *h = calloc(1, sizeof *h);
  if (!h) return cls__reason(clsErrorMemoryAllocation, "out of memory");
  h->watch.job.run = cls__host_run;
  h->fn = run;
  h->arg = job;
  cl_int err;
  h->user = clCreateUserEvent(s->dev->ctx, &err);
  if (err != CL_SUCCESS) {
    free(h);
    return cls__ocl_error(err, "clCreateUserEvent");
  }
  cls__ocl_batch b;
  cl_event m = NULL, g = NULL;
  cls__ocl_begin(s, &b);
  err = clEnqueueMarkerWithWaitList(s->q, b.n, b.list, &m);
  if (err == CL_SUCCESS) {
    /* Where one flush completes together (facts.c), M must not be
     * flushed with the gate that waits for M's own host function. */
    if (s->dev->facts.flush_together) cls__ocl_flush(s->q);
    err = clEnqueueMarkerWithWaitList(s->q, 1, &h->user, &g);
    b.what = "host function";
    b.cat = "host";
    b.from = m;
    if (err != CL_SUCCESS) {
      cls__ocl_end(s, &b, m); /* m is the newest command now */
      m = NULL;
    } else {
      cls__ocl_end(s, &b, g); /* the gate is the newest command */
    }
  } else {
    cls__ocl_end(s, &b, NULL);
  }
  if (err == CL_SUCCESS) {
    cls__ocl_watch_event(&h->watch, m);
    clReleaseEvent(m); /* the watch holds its own reference */
    return clsSuccess;
  }
  if (m) clReleaseEvent(m);
  cls__complete_user(h->user); /* never hold the stream */
  clReleaseEvent(h->user);
  free(h);
  return cls__ocl_error(err, "enqueueing a host function");
}

/* ---- Device-wide synchronization -------------------------------------- */

static clsError_t cls__device_wait_all(cls__ocl_device *d);

clsError_t cls__b_device_sync(int dev) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (atomic_load_explicit(&d->opened, memory_order_acquire) != 1)
    return clsSuccess;
  clsError_t e = cls__device_wait_all(d);
  if (CLS__UNLIKELY(cls__trace_on)) cls__trace_write();
  return e;
}

/* clsFree waits as clsDeviceSynchronize does, without writing the trace. */
clsError_t cls__b_free_wait(int dev) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (atomic_load_explicit(&d->opened, memory_order_acquire) != 1)
    return clsSuccess;
  return cls__device_wait_all(d);
}

/* Waits for the pending work of every stream of d, live or destroyed:
 * newest commands and waits that no command has consumed yet. */
static clsError_t cls__device_wait_all(cls__ocl_device *d) {
  cls__ocl_batch b;
  cls__batch_init(&b);
  pthread_mutex_lock(&d->streams_lock);
  for (cls__bstream *s = d->streams; s; s = s->next) {
    pthread_mutex_lock(&s->last_lock);
    cls__gather_stream(s, &b);
    pthread_mutex_unlock(&s->last_lock);
  }
  pthread_mutex_unlock(&d->streams_lock);
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->norphans; ++i) {
    clRetainEvent(d->orphans[i].ev);
    cls__batch_push(&b, d->orphans[i].ev);
  }
  pthread_mutex_unlock(&d->busy_lock);
  clsError_t e = clsSuccess;
  for (cl_uint i = 0; i < b.n; ++i) {
    clsError_t r = cls__ocl_wait(b.list[i], 0);
    if (e == clsSuccess) e = r;
    clReleaseEvent(b.list[i]);
  }
  if (b.list != b.small) free(b.list);
  /* Completed orphans are dropped. */
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->norphans;) {
    if (cls__ocl_status(d->orphans[i].ev) <= CL_COMPLETE) {
      clReleaseEvent(d->orphans[i].ev);
      d->orphans[i] = d->orphans[--d->norphans];
    } else {
      ++i;
    }
  }
  pthread_mutex_unlock(&d->busy_lock);
  return e;
}
