/* OpenCL backend: host functions on a stream (cls__b_stream_host_job): a
 * marker hands the function to a worker, and a gate on a user event holds
 * the stream's later work until it returns; and completing a user event
 * (cls__ocl_complete_user, for bridges too).  Owns no lock and no shared
 * state: each host job owns its user event. */
#include "command.h"

#include <stdlib.h>
#include <time.h>

/* Completes a user event, retrying a transient failure (a user event left
 * unset would hold its stream forever).  Always CL_COMPLETE: a failure has
 * already failed the commands behind the failed one (and PoCL aborts when
 * a user event with dependents is set to an error). */
void cls__ocl_complete_user(cl_event user) {
  for (int i = 0; i < 1000; ++i) {
    cl_int err = clSetUserEventStatus(user, CL_COMPLETE);
    if (err == CL_SUCCESS || err == CL_INVALID_OPERATION) return;
    struct timespec d = {0, 1000000L};
    nanosleep(&d, NULL);
  }
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
  cls__ocl_complete_user(h->user);
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
    cls__ocl_complete_user(user);
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
  cls__ocl_end_unflushed(s, &b, newest);

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
  cls__ocl_complete_user(user);
  clReleaseEvent(user);
  if (g) cls__ocl_flush(s->q); /* G, and what was enqueued after it */
  return clsSuccess;
}

/* Never: a host function runs on a library worker, behind the stream's
 * own record (cls__host), which the front's job rides in. */
int cls__b_stream_host_fn(cls__bstream *s, clsHostFn_t fn, void *user,
                          clsError_t *err) {
  (void)s;
  (void)fn;
  (void)user;
  (void)err;
  return 0;
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
  cls__ocl_complete_user(h->user); /* never hold the stream */
  clReleaseEvent(h->user);
  free(h);
  return cls__ocl_error(err, "enqueueing a host function");
}
