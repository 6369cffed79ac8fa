/* OpenCL backend: the monitor thread and event watches.  A watch runs a
 * job once its event completes or fails, whichever of the driver's
 * callback and the monitor's polling sees it first; the monitor also
 * flushes again queues whose clFlush failed (cls__ocl_flush) and feeds
 * starved workers (workers.c).  Owns cls__mon_lock and cls__mon_cond
 * (the pending watches and the unflushed queues); inside it only the
 * worker lock is taken, when the monitor claims a watch and posts its
 * job. */
#include "threads.h"

#include <stdlib.h>
#include <time.h>

/* ---- Watches ---------------------------------------------------------- */

static pthread_once_t cls__monitor_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t cls__mon_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cls__mon_cond = PTHREAD_COND_INITIALIZER;
static cls__ocl_watch *cls__pending;
static int cls__mon_resting; /* the monitor waits without polling */

static void cls__start_monitor(void);

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
  if (!listed && cls__ocl_grow((void **)&cls__unflushed, &cls__capunflushed,
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
  CLS__ASSERT_MUTEX_HELD(&cls__mon_lock);
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
    cls__ocl_feed_starved();
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
  cls__ocl_spawn(cls__monitor);
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
