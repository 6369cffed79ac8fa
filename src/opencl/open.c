/* OpenCL backend: opening a device (cls__b_device_open, once per device,
 * under device.open_lock): its context, scratch memory and map queue,
 * then the start-up timestamp check, which decides the facts known only
 * once the device can run commands (facts.c describes every fact). */
#include "memory.h"

#include "facts.h"
#include "hostview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- The start-up timestamp check ------------------------------------- */

static cl_ulong cls__end_of(cl_event ev) {
  cl_ulong t = 0;
  if (!ev || clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t, &t,
                                     NULL) != CL_SUCCESS)
    return 0;
  return t;
}

/* Whether b's END follows a's by 0 to 10 s: same clock, right order. */
static int cls__follows(cl_ulong a, cl_ulong b) {
  return a != 0 && b >= a && b - a < 10000000000ull;
}

/* Which host clock the device's profiling clock is, if any (a clockid_t
 * plus 1, or 0).  Each candidate gets five samples (a marker enqueued on
 * an idle queue between two readings of that clock, facts.h), and
 * cls__facts_pick_host_clock takes the one clock all of whose samples
 * fit, none where two do.  PoCL stamps with CLOCK_MONOTONIC_RAW; NVIDIA's
 * driver with CLOCK_REALTIME plus 73-90 us (docs/drivers.md), whose END
 * comes after the host's reading, so it has none.  A clock stops being
 * sampled at its first sample that does not fit. */
#define CLS__CLOCK_SAMPLES 5
static int cls__find_host_clock(cl_command_queue q) {
  static const clockid_t clocks[] = {CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC,
                                     CLOCK_REALTIME, CLOCK_BOOTTIME};
  enum { nclocks = sizeof clocks / sizeof clocks[0] };
  cls__clock_sample samples[nclocks * CLS__CLOCK_SAMPLES];
  memset(samples, 0, sizeof samples); /* ok 0: not taken */
  for (int c = 0; c < nclocks; ++c) {
    for (int i = 0; i < CLS__CLOCK_SAMPLES; ++i) {
      cls__clock_sample *sm = &samples[c * CLS__CLOCK_SAMPLES + i];
      struct timespec a, b;
      cl_event ev = NULL;
      cl_ulong queued = 0, end = 0;
      sm->ok =
          clock_gettime(clocks[c], &a) == 0 &&
          clEnqueueMarkerWithWaitList(q, 0, NULL, &ev) == CL_SUCCESS &&
          clFinish(q) == CL_SUCCESS && clock_gettime(clocks[c], &b) == 0 &&
          clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED,
                                  sizeof queued, &queued, NULL) == CL_SUCCESS &&
          clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end,
                                  &end, NULL) == CL_SUCCESS;
      if (ev) clReleaseEvent(ev);
      if (sm->ok) {
        sm->before = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
        sm->after = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
        sm->queued = queued;
        sm->end = end;
      }
      if (!cls__clock_sample_fits(sm)) break;
    }
  }
  int c = cls__facts_pick_host_clock(samples, nclocks, CLS__CLOCK_SAMPLES);
  return c < 0 ? 0 : (int)clocks[c] + 1;
}

static void cls__validate_timestamps(cls__ocl_device *d, cls__timing_seen *m) {
  cl_int err;
  const char *what;
  cl_command_queue q = cls__ocl_queue(d, 1, 0, &err, &what);
  if (!q || err != CL_SUCCESS) return;
  size_t size = d->facts.simulator ? 64u << 10 : 4u << 20;
  void *buf = NULL;
  if (cls__ocl_alloc(d, size, &buf) != clsSuccess) buf = NULL;
  cl_event ev[6] = {NULL};
  cl_event user = clCreateUserEvent(d->ctx, &err);
  int user_set = 0;
#define FILL(n, e)                                                             \
  (cls__ocl_enqueue_fill(d, q, buf, 0, (n), 0, NULL, (e), &what) == 0)
#define HELD_FILL(e)                                                           \
  (cls__ocl_enqueue_fill(d, q, buf, 0, 64, 0, NULL, (e), &what) == 0)
  if (buf && user &&
      /* 0: fill, 1: marker after it */
      FILL(size, &ev[0]) &&
      clEnqueueMarkerWithWaitList(q, 0, NULL, &ev[1]) == 0 &&
      clFinish(q) == 0 &&
      /* 2: marker on an idle queue, 3: fill after it */
      clEnqueueMarkerWithWaitList(q, 0, NULL, &ev[2]) == 0 &&
      clFinish(q) == 0 && FILL(64, &ev[3]) &&
      /* 4: marker held by a user event, 5: fill after it.  Where clFlush
       * runs the commands (facts.c), flushing before the user event is
       * set would never return. */
      clEnqueueMarkerWithWaitList(q, 1, &user, &ev[4]) == 0 &&
      HELD_FILL(&ev[5]) && (d->facts.flush_runs || clFlush(q) == 0) &&
      (user_set = clSetUserEventStatus(user, CL_COMPLETE) == 0) &&
      clFinish(q) == 0) {
    cl_ulong t[6];
    for (int i = 0; i < 6; ++i) t[i] = cls__end_of(ev[i]);
    m->ran = 1;
    m->work = cls__follows(t[0], t[1]) && cls__follows(t[1], t[2]) &&
              cls__follows(t[2], t[3]);
    m->gate = m->work && cls__follows(t[3], t[4]) && cls__follows(t[4], t[5]);
    /* Whether the fill of `size` bytes took time (no_timestamps, facts.c). */
    cl_ulong start = 0;
    if (clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_START, sizeof start,
                                &start, NULL) != CL_SUCCESS)
      start = t[0];
    m->fill_timed = t[0] > start;
    /* The host clock is sampled only where markers are stamped right and
     * the timestamps can time work, and where the driver does not run
     * the queue inside clFlush (a simulator's clock is its own). */
    if (m->work && m->gate &&
        cls__facts_can_time(d->timer_res_ns, m->fill_timed) &&
        !d->facts.flush_runs)
      m->host_clock = cls__find_host_clock(q);
  }
#undef FILL
#undef HELD_FILL
  if (user) {
    /* Set exactly once: a second clSetUserEventStatus is an error. */
    if (!user_set) clSetUserEventStatus(user, CL_COMPLETE);
    clReleaseEvent(user);
  }
  clFinish(q);
  for (int i = 0; i < 6; ++i)
    if (ev[i]) clReleaseEvent(ev[i]);
  if (buf) cls__ocl_free(d, buf);
  clReleaseCommandQueue(q);
}

/* ---- Opening a device ------------------------------------------------- */

static clsError_t cls__open(cls__ocl_device *d) {
  if (d->facts.version < 12)
    return cls__reason(clsErrorNotSupported,
                       "device %d (%s) supports OpenCL %d.%d; clstream needs "
                       "1.2 or later",
                       d->index, d->name, d->facts.version / 10,
                       d->facts.version % 10);
  cls__ocl_platform *pl = d->plat;
  cl_int err = CL_SUCCESS;
  /* CLSTREAM_CONTEXT_PER_DEVICE=1 gives each device a context of its own,
   * as devices of two platforms have, so that CI on one platform runs the
   * paths between contexts (bridged waits, staged copies). */
  const char *own = cls__setting(CLS__SET_CONTEXT_PER_DEVICE);
  if (own && strcmp(own, "1") == 0) {
    d->ctx = clCreateContext(NULL, 1, &d->id, NULL, NULL, &err);
  } else {
    pthread_mutex_lock(&pl->lock);
    if (!pl->ctx) {
      cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                       (cl_context_properties)pl->id, 0};
      pl->ctx =
          clCreateContext(props, pl->ndevices, pl->devices, NULL, NULL, &err);
    }
    d->ctx = pl->ctx;
    pthread_mutex_unlock(&pl->lock);
  }
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clCreateContext");
  cls__ocl_hostviews_context(d); /* hostview.c */
  clsError_t e = cls__ocl_alloc(d, 64, &d->scratch);
  if (e != clsSuccess) return e;
  const char *what;
  d->mapq = cls__ocl_queue(d, 0, 0, &err, &what);
  if (err != CL_SUCCESS) return cls__ocl_error(err, what);
  /* The start-up timestamp check (above); facts.c decides from it. */
  cls__timing_seen seen = {0};
  cls__validate_timestamps(d, &seen);
  cls__facts_open(d, &seen);
  return clsSuccess;
}

clsError_t cls__b_device_open(int dev) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  int state = atomic_load_explicit(&d->opened, memory_order_acquire);
  if (CLS__LIKELY(state == 1)) return clsSuccess;
  pthread_mutex_lock(&d->open_lock);
  state = atomic_load_explicit(&d->opened, memory_order_relaxed);
  if (state == 0) {
    d->open_err = cls__open(d);
    state = d->open_err == clsSuccess ? 1 : -1;
    atomic_store_explicit(&d->opened, state, memory_order_release);
  }
  pthread_mutex_unlock(&d->open_lock);
  if (state == 1) return clsSuccess;
  if (d->open_err == clsErrorNotSupported)
    return cls__reason(clsErrorNotSupported,
                       "device %d (%s) cannot be used (OpenCL %d.%d)", d->index,
                       d->name, d->facts.version / 10, d->facts.version % 10);
  return cls__reason(d->open_err, "device %d (%s) could not be opened",
                     d->index, d->name);
}
