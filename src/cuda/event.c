/* CUDA backend: events, forwarded to the CUDA runtime. */
#include "cuda_be.h"

#include <stdlib.h>

#define CLS__EV_DONE 1ul   /* state bit: the newest record is complete */
#define CLS__EV_RECORD 2ul /* state increment for each record */

clsError_t cls__b_event_create(int dev, unsigned flags, cls__bevent **out) {
  cls__bevent *e = malloc(sizeof *e);
  if (!e) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  e->dev = dev;
  e->flags = flags;
  /* Never recorded: complete, as CUDA reports it. */
  atomic_init(&e->state, CLS__EV_DONE);
  clsError_t r = cls__cuda_use(dev);
  /* The flag bits equal cudaEventBlockingSync, cudaEventDisableTiming and
   * cudaEventInterprocess. */
  if (r == clsSuccess)
    r = cls__cuda_rt(cudaEventCreateWithFlags(&e->ev, flags),
                     "cudaEventCreateWithFlags");
  if (r != clsSuccess) {
    free(e);
    return r;
  }
  *out = e;
  return clsSuccess;
}

void cls__b_event_destroy(cls__bevent *e) {
  /* Returns at once; the runtime releases the event once its captured
   * work is done. */
  if (cls__cuda_use(e->dev) == clsSuccess) (void)cudaEventDestroy(e->ev);
  free(e);
}

clsError_t cls__b_event_record(cls__bevent *e, cls__bstream *s) {
  clsError_t r = cls__cuda_use(s->dev);
  if (r != clsSuccess) return r;
  r = cls__cuda_rt(cudaEventRecord(e->ev, s->s), "cudaEventRecord");
  if (r != clsSuccess) return r;
  /* After the record, never before: a query that read the old state and
   * saw the old record complete must not mark this one complete. */
  unsigned long st = atomic_load_explicit(&e->state, memory_order_relaxed);
  unsigned long next;
  do {
    next = (st & ~CLS__EV_DONE) + CLS__EV_RECORD;
  } while (!atomic_compare_exchange_weak_explicit(
      &e->state, &st, next, memory_order_release, memory_order_relaxed));
  return clsSuccess;
}

/* Marks the record that was newest when `seen` was read as complete,
 * unless a newer record came since. */
static void cls__event_mark_done(cls__bevent *e, unsigned long seen) {
  atomic_compare_exchange_strong_explicit(&e->state, &seen, seen | CLS__EV_DONE,
                                          memory_order_release,
                                          memory_order_relaxed);
}

clsError_t cls__b_event_query(cls__bevent *e) {
  unsigned long st = atomic_load_explicit(&e->state, memory_order_acquire);
  if (CLS__LIKELY(st & CLS__EV_DONE)) return clsSuccess;
  clsError_t r = cls__cuda_use(e->dev);
  if (r != clsSuccess) return r;
  cudaError_t q = cudaEventQuery(e->ev);
  if (q == cudaSuccess) {
    cls__event_mark_done(e, st);
    return clsSuccess;
  }
  /* cudaErrorNotReady maps to clsErrorNotReady without a reason. */
  return cls__cuda_rt(q, "cudaEventQuery");
}

clsError_t cls__b_event_sync(cls__bevent *e) {
  unsigned long st = atomic_load_explicit(&e->state, memory_order_acquire);
  if (st & CLS__EV_DONE) return clsSuccess;
  clsError_t r = cls__cuda_use(e->dev);
  if (r != clsSuccess) return r;
  /* Sleeps rather than spins for a cudaEventBlockingSync event. */
  r = cls__cuda_rt(cudaEventSynchronize(e->ev), "cudaEventSynchronize");
  if (r == clsSuccess) cls__event_mark_done(e, st);
  return r;
}

clsError_t cls__b_event_elapsed(float *ms, cls__bevent *a, cls__bevent *b) {
  clsError_t r = cls__cuda_use(a->dev);
  if (r != clsSuccess) return r;
  /* cudaErrorNotReady (either incomplete) maps without a reason. */
  return cls__cuda_rt(cudaEventElapsedTime(ms, a->ev, b->ev),
                      "cudaEventElapsedTime");
}

_Static_assert(clsEventBlockingSync == cudaEventBlockingSync &&
                   clsEventDisableTiming == cudaEventDisableTiming &&
                   clsEventInterprocess == cudaEventInterprocess,
               "event flags must equal the runtime's");
