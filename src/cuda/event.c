/* CUDA backend: events, forwarded to the CUDA runtime.  A token is the
 * event's own cudaEvent_t (cuda_be.h); the front owns the event's state. */
#include "cuda_be.h"

#include <stdlib.h>

static cls__bevent *cls__ev(cls__btoken *t) { return (cls__bevent *)(void *)t; }

clsError_t cls__b_event_create(int dev, unsigned flags, cls__bevent **out) {
  cls__bevent *e = malloc(sizeof *e);
  if (!e) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  e->dev = dev;
  e->flags = flags;
  e->foreign = 0;
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
  if (!e->foreign && cls__cuda_use(e->dev) == clsSuccess)
    (void)cudaEventDestroy(e->ev);
  free(e);
}

clsError_t cls__b_record(cls__bevent *e, cls__bstream *s, unsigned flags,
                         cls__btoken **tok, int *complete) {
  (void)flags; /* the runtime's event has them */
  *complete = 0;
  clsError_t r = cls__cuda_use(s->dev);
  if (r != clsSuccess) return r;
  r = cls__cuda_rt(cudaEventRecord(e->ev, s->s), "cudaEventRecord");
  if (r == clsSuccess) *tok = (cls__btoken *)(void *)e;
  return r;
}

/* The event outlives every use of its token (cuda_be.h). */
void cls__b_token_retain(cls__btoken *t) { (void)t; }
void cls__b_token_release(cls__btoken *t) { (void)t; }

clsError_t cls__b_token_status(cls__btoken *t) {
  if (!t) return clsSuccess;
  cls__bevent *e = cls__ev(t);
  clsError_t r = cls__cuda_use(e->dev);
  if (r != clsSuccess) return r;
  /* cudaErrorNotReady maps to clsErrorNotReady without a reason. */
  return cls__cuda_rt(cudaEventQuery(e->ev), "cudaEventQuery");
}

clsError_t cls__b_token_wait(cls__btoken *t, int sleep) {
  (void)sleep; /* a cudaEventBlockingSync event sleeps by itself */
  if (!t) return clsSuccess;
  cls__bevent *e = cls__ev(t);
  clsError_t r = cls__cuda_use(e->dev);
  if (r != clsSuccess) return r;
  return cls__cuda_rt(cudaEventSynchronize(e->ev), "cudaEventSynchronize");
}

clsError_t cls__b_token_elapsed(float *ms, cls__btoken *a, cls__btoken *b) {
  clsError_t r = cls__cuda_use(cls__ev(a)->dev);
  if (r != clsSuccess) return r;
  /* cudaErrorNotReady (either incomplete) maps without a reason. */
  return cls__cuda_rt(cudaEventElapsedTime(ms, cls__ev(a)->ev, cls__ev(b)->ev),
                      "cudaEventElapsedTime");
}

_Static_assert(clsEventBlockingSync == cudaEventBlockingSync &&
                   clsEventDisableTiming == cudaEventDisableTiming &&
                   clsEventInterprocess == cudaEventInterprocess,
               "event flags must equal the runtime's");
