/* OpenCL backend: clsStreamWaitEvent (cls__b_stream_wait_token, called
 * with a record's token), and the bridge that carries a wait across
 * OpenCL contexts (a user event in the waiting stream's context,
 * completed by a worker once the source event completes).  Owns no lock:
 * the token needs none (what it stands for never changes), and it takes
 * stream.lock, then stream.last_lock (enqueue.c's), to add the waits;
 * device.busy_lock is taken inside stream.lock by the legacy gather and
 * after both are dropped to list the stream busy (enqueue.c). */
#include "command.h"

#include <stdlib.h>
#include <string.h>

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
  cls__ocl_complete_user(br->user);
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

clsError_t cls__b_stream_wait_token(cls__bstream *s, cls__btoken *t) {
  cl_event ev = NULL;
  if (t && cls__pos_status(&t->pos) != CL_COMPLETE) {
    ev = t->pos.ev; /* pending, or failed: the stream's work fails too */
    clRetainEvent(ev);
  }
  if (ev && t->dev->ctx != s->dev->ctx) {
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
  cls__ocl_batch_init(&g);
  cls__lock_take(&s->lock);
  if (s->role == CLS__ROLE_LEGACY) cls__ocl_gather_blocking(s->dev, &g);
  if (ev) cls__ocl_batch_push(&g, ev);
  int ok = 1, add = 0;
  if (g.n) {
    cls__lock_take(&s->last_lock);
    ok = cls__ocl_grow((void **)&s->waits, &s->capwaits, s->nwaits + g.n,
                       sizeof *s->waits);
    if (ok) {
      memcpy(s->waits + s->nwaits, g.list, g.n * sizeof *g.list);
      s->nwaits += g.n;
      atomic_store_explicit(&s->has_waits, 1, memory_order_release);
      add = cls__busy_claim(s);
    }
    cls__lock_give(&s->last_lock);
  }
  cls__lock_give(&s->lock);
  /* What the legacy gather set aside (a queue whose position could not be
   * named, events out of host memory) is waited for now, with no lock
   * held, so that the stream's later work comes after it. */
  if (CLS__UNLIKELY(cls__ocl_batch_stalled(&g))) cls__ocl_batch_unstall(&g);
  cls__ocl_batch_forget(&g);
  if (!ok)
    for (cl_uint i = 0; i < g.n; ++i) clReleaseEvent(g.list[i]);
  if (g.list != g.small) free(g.list);
  if (add) cls__ocl_busy_add(s);
  if (!ok) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  /* A handed-out queue holds no wait back (enqueue.c). */
  return cls__ocl_waits_flush(s);
}
