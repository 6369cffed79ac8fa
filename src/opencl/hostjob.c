/* OpenCL backend: host functions on a stream (cls__b_stream_host_job): a
 * marker hands the function to a worker, and a gate on a user event holds
 * the stream's later work until it returns; and completing a user event
 * (cls__ocl_complete_user, for bridges too).  Owns no lock and no shared
 * state: each host job owns its user event. */
#include "ocl.h"

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

clsError_t cls__b_stream_host_job(cls__bstream *s, cls__job_fn run, void *job) {
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
