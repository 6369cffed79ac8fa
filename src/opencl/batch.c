/* OpenCL backend: the batch (cls__ocl_batch), the wait list of one
 * command: what the gathers of the enqueue bracket (enqueue.c) collect,
 * and what they set aside, under their locks, to be waited for once those
 * locks are dropped.  Holds no lock. */
#include "batch.h"

#include <stdlib.h>

void cls__ocl_batch_init(cls__ocl_batch *b) {
  cls__ocl_batch_reset(b);
  b->nstall_q = b->nfinished = b->nstall_ev = 0;
}

/* Adds ev (retained by the caller) to b. */
void cls__ocl_batch_push(cls__ocl_batch *b, cl_event ev) {
  cls__ocl_batch_add(b, ev, 1);
}

/* Sets queue q aside in b, to be finished once the caller has dropped
 * its locks (a queue already set aside is skipped: it is or will be
 * finished).  Only with no room left is q finished here, locks held (the
 * last resort named in the lock table). */
void cls__ocl_batch_stall_queue(cls__ocl_batch *b, cl_command_queue q) {
  for (unsigned i = 0; i < b->nstall_q; ++i)
    if (b->stall_q[i] == q) return;
  if (b->nstall_q < CLS__STALL_MAX) {
    clRetainCommandQueue(q);
    b->stall_q[b->nstall_q++] = q;
    return;
  }
  clFinish(q);
}

clsError_t cls__ocl_batch_unstall(cls__ocl_batch *b) {
  clsError_t e = clsSuccess;
  for (; b->nfinished < b->nstall_q; ++b->nfinished)
    clFinish(b->stall_q[b->nfinished]);
  for (unsigned i = 0; i < b->nstall_ev; ++i) {
    clsError_t r = cls__ocl_wait(b->stall_ev[i], 0);
    if (e == clsSuccess) e = r;
    clReleaseEvent(b->stall_ev[i]);
  }
  b->nstall_ev = 0;
  return e;
}

void cls__ocl_batch_forget(cls__ocl_batch *b) {
  for (unsigned i = 0; i < b->nstall_q; ++i)
    clReleaseCommandQueue(b->stall_q[i]);
  b->nstall_q = b->nfinished = 0;
}

void cls__ocl_batch_release(cls__ocl_batch *b) {
  for (cl_uint i = 0; i < b->n; ++i) clReleaseEvent(b->list[i]);
  if (b->list != b->small) free(b->list);
  cls__ocl_batch_reset(b);
}

clsError_t cls__ocl_batch_wait(cls__ocl_batch *b) {
  clsError_t e = cls__ocl_batch_unstall(b);
  for (cl_uint i = 0; i < b->n; ++i) {
    clsError_t r = cls__ocl_wait(b->list[i], 0);
    if (e == clsSuccess) e = r;
    clReleaseEvent(b->list[i]);
  }
  if (b->list != b->small) free(b->list);
  cls__ocl_batch_forget(b);
  return e;
}
