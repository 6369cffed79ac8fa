/* OpenCL backend: waiting for one event (cls__ocl_wait: the driver's
 * wait, polling, or sleeping on a condition variable until a watch wakes
 * the thread) and reading an event's status.  Owns each sleeper's mutex
 * and condition variable (a leaf, held only to hand over `done`); holds
 * no other lock. */
#include "threads.h"

#include <stdlib.h>

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
