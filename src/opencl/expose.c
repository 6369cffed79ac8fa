/* OpenCL backend, layer 6 (the enqueue bracket), native handles
 * (docs/interop.md): the one rule for a stream whose queue the program
 * has, its "exposure".  Uses enqueue.c (the bracket, the busy list),
 * never the other way. */
#include "enqueue.h"

/* The one rule for a stream whose queue the program has (clsOpenCLGetQueue,
 * clsOpenCLStreamCreateFromQueue): the program's commands may land on the
 * queue at any time, so the stream knows no position of its own any more
 * (cls__pos_expose: every record, query, synchronize and gather names it
 * with a barrier, position.c), it stays in the busy list for the legacy
 * stream's synchronization when blocking, and it holds back no
 * clsStreamWaitEvent wait (cls__ocl_waits_flush, here and after every
 * later wait, bridge.c).  Streams never handed out keep the fast path. */
clsError_t cls__ocl_expose(cls__bstream *s) {
  cls__lock_take(&s->lock);
  cls__lock_take(&s->last_lock);
  int add = 0;
  if (!cls__pos_foreign(&s->last)) {
    cls__pos_expose(&s->last);
    add = cls__busy_claim(s);
  }
  cls__lock_give(&s->last_lock);
  cls__lock_give(&s->lock);
  if (add) cls__ocl_busy_add(s);
  return cls__ocl_waits_flush(s);
}

clsError_t cls__ocl_waits_flush(cls__bstream *s) {
  if (!cls__pos_foreign(&s->last) ||
      !atomic_load_explicit(&s->has_waits, memory_order_acquire))
    return clsSuccess;
  cls__ocl_batch b;
  cls__ocl_begin_waits(s, &b);
  if (!s->nwaits) { /* another thread flushed them first */
    cls__ocl_end(s, &b, NULL);
    return clsSuccess;
  }
  b.what = "wait";
  b.cat = "barrier";
  b.barrier = 1;
  cl_event ev = NULL;
  cl_int err = clEnqueueBarrierWithWaitList(s->q, b.n, b.list, &ev);
  cls__ocl_end(s, &b, err == CL_SUCCESS ? ev : NULL);
  return err == CL_SUCCESS
             ? clsSuccess
             : cls__ocl_error(err, "clEnqueueBarrierWithWaitList");
}
