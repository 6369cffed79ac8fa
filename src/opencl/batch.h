/* OpenCL backend, layer 6 (the enqueue bracket): the batch, a command's
 * wait list (batch.c), for the gathers of enqueue.c and the commands
 * that wait for what they gathered.  Its common steps are inline. */
#ifndef CLSTREAM_OPENCL_BATCH_H
#define CLSTREAM_OPENCL_BATCH_H

#include "threads.h"

#include <stdlib.h>
#include <string.h>

/* An empty batch (its list is b->small), nothing set aside. */
void cls__ocl_batch_init(cls__ocl_batch *b);

/* Adds ev (retained by the caller; b's reference now) to b. */
void cls__ocl_batch_push(cls__ocl_batch *b, cl_event ev);

/* Whether the gathers set aside something b's command must wait for that
 * its list could not hold (cls__ocl_batch). */
static inline int cls__ocl_batch_stalled(const cls__ocl_batch *b) {
  return b->nstall_ev || b->nstall_q > b->nfinished;
}

/* Waits for what the gathers set aside (finishing the queues, waiting
 * for and releasing the events); call it with no lock held.  The queues
 * stay listed as finished (a later gather into b skips them) until
 * cls__ocl_batch_forget.  Returns the first error. */
clsError_t cls__ocl_batch_unstall(cls__ocl_batch *b);

/* Releases the queues b set aside. */
void cls__ocl_batch_forget(cls__ocl_batch *b);

/* Waits for every event of a wait-only batch (and what it set aside),
 * with no lock held, releasing them and b's list.  Returns the first
 * error. */
clsError_t cls__ocl_batch_wait(cls__ocl_batch *b);

/* Releases b's events and list without waiting for them (their waits
 * went elsewhere: module.c's watches); b must not be stalled. */
void cls__ocl_batch_release(cls__ocl_batch *b);

/* A batch with nothing to wait for and nothing set aside (list NULL, as
 * OpenCL wants an empty wait list): what cls__ocl_begin gives in the
 * common case. */
static inline void cls__ocl_batch_none(cls__ocl_batch *b) {
  b->list = NULL;
  b->n = b->npending = b->cap = 0;
  b->nstall_q = b->nfinished = b->nstall_ev = 0;
  b->what = b->cat = NULL;
  b->from = NULL;
  b->work = 0;
  b->barrier = 0;
}

/* Empties b's list, keeping what it set aside. */
static inline void cls__ocl_batch_reset(cls__ocl_batch *b) {
  b->list = b->small;
  b->cap = sizeof b->small / sizeof b->small[0];
  b->n = 0;
}

/* Adds ev to b; `owned`: b holds a reference to release.  Out of host
 * memory, ev is set aside (retained) for cls__ocl_batch_unstall, which
 * waits for it once the caller has dropped its locks.  Only with no room
 * left for that either is ev waited for here, locks held (the last
 * resort named in the lock table). */
static inline void cls__ocl_batch_add(cls__ocl_batch *b, cl_event ev,
                                      int owned) {
  if (CLS__UNLIKELY(!b->list)) cls__ocl_batch_reset(b); /* cls__begin's empty */
  if (b->n == b->cap) {
    cl_uint cap = b->cap * 2;
    cl_event *l = malloc(cap * sizeof *l);
    if (!l) {
      if (b->nstall_ev < CLS__STALL_MAX) {
        if (!owned) clRetainEvent(ev);
        b->stall_ev[b->nstall_ev++] = ev;
        return;
      }
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

/* Sets queue q aside in b, to be finished once the caller has dropped
 * its locks (a queue already set aside is skipped).  Only with no room
 * left is q finished at once, locks held (the last resort named in the
 * lock table). */
void cls__ocl_batch_stall_queue(cls__ocl_batch *b, cl_command_queue q);

#endif /* CLSTREAM_OPENCL_BATCH_H */
