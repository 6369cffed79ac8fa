/* CUDA backend: streams and host jobs, forwarded to the CUDA runtime. */
#include "cuda_be.h"

#include <stdlib.h>

clsError_t cls__b_stream_create(int dev, unsigned flags, int priority,
                                cls__bstream **out) {
  cls__bstream *s = malloc(sizeof *s);
  if (!s) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  s->dev = dev;
  s->foreign = 0;
  clsError_t e = cls__cuda_use(dev);
  /* clsStreamNonBlocking == cudaStreamNonBlocking; the priority is
   * already clamped into cudaDeviceGetStreamPriorityRange's range. */
  if (e == clsSuccess)
    e = cls__cuda_rt(cudaStreamCreateWithPriority(&s->s, flags, priority),
                     "cudaStreamCreateWithPriority");
  if (e != clsSuccess) {
    free(s);
    return e;
  }
  *out = s;
  return clsSuccess;
}

clsError_t cls__b_stream_default(int dev, int per_thread, cls__bstream **out) {
  cls__cuda_device *d = cls__cuda_device_get(dev);
  *out = per_thread ? &d->per_thread : &d->legacy;
  return clsSuccess;
}

void cls__b_stream_destroy(cls__bstream *s) {
  /* Returns at once; the runtime still runs the work already in the
   * stream, host functions included, and then releases it. */
  if (!s->foreign && cls__cuda_use(s->dev) == clsSuccess)
    (void)cudaStreamDestroy(s->s);
  free(s);
}

clsError_t cls__b_stream_sync(cls__bstream *s) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaStreamSynchronize(s->s), "cudaStreamSynchronize");
}

clsError_t cls__b_stream_query(cls__bstream *s) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  /* cudaErrorNotReady maps to clsErrorNotReady without a reason. */
  return cls__cuda_rt(cudaStreamQuery(s->s), "cudaStreamQuery");
}

clsError_t cls__b_stream_wait_token(cls__bstream *s, cls__btoken *t) {
  if (!t) return clsSuccess; /* never on this backend: records give one */
  clsError_t r = cls__cuda_use(s->dev);
  if (r != clsSuccess) return r;
  /* The token is the event (cuda_be.h): the runtime captures its newest
   * record as of this call and accepts an event of another device. */
  const cls__bevent *e = (const cls__bevent *)(const void *)t;
  return cls__cuda_rt(cudaStreamWaitEvent(s->s, e->ev, 0),
                      "cudaStreamWaitEvent");
}

/* ---- Host jobs -------------------------------------------------------- */

/* The front's job is handed to the runtime as it is (it begins with a
 * cls__job, backend.h), so a host job allocates nothing here.  Each kind
 * goes to its own runtime call: a host function to cudaLaunchHostFunc, a
 * stream callback to cudaStreamAddCallback, the one whose callback still
 * runs, exactly once, after a device error. */

/* Whether the runtime's callback thread is marked (cls__host_thread_mark).
 * CUDA runs every host function and callback of the process on that one
 * thread (docs/semantics.md, The legacy default stream), which runs
 * nothing else, so the first
 * job through a trampoline marks it and later host functions go to the
 * runtime as they are (cls__b_stream_host_fn): no record, and nothing of
 * ours between the runtime and the user's function.  Should a runtime
 * ever use more threads, a clstream call from a host function on an
 * unmarked one would go unrefused, which CUDA allows ("NotPermitted where
 * detected"); nothing else depends on the mark. */
static _Atomic int cls__cuda_marked;

static void cls__cuda_thread_mark(void) {
  if (CLS__LIKELY(
          atomic_load_explicit(&cls__cuda_marked, memory_order_relaxed)))
    return;
  cls__host_thread_mark();
  atomic_store_explicit(&cls__cuda_marked, 1, memory_order_release);
}

/* A host function, on the runtime's callback thread once the stream's
 * earlier work is done; the stream's later work waits until it returns.
 * The runtime calls it only while the context is healthy ("the function
 * will not be called in the event of an error in the CUDA context"), so
 * the earlier work succeeded: the status is clsSuccess.  (Asking the
 * runtime here would be a CUDA call, which a host function must not
 * make.)  After a device error the call is skipped, which the job allows
 * (skippable). */
static void CUDART_CB cls__cuda_host_fn(void *p) {
  cls__cuda_thread_mark();
  cls__job *j = p;
  j->run(j, clsSuccess);
}

/* A stream callback, likewise, but also called after a device error:
 * `status` is then the error, which the runtime keeps (CUDA's errors are
 * sticky) and hands to every later callback. */
static void CUDART_CB cls__cuda_callback(cudaStream_t stream,
                                         cudaError_t status, void *p) {
  (void)stream;
  cls__cuda_thread_mark();
  cls__job *j = p;
  j->run(j, cls__cuda_error(CLS__CUDART, (int)status, NULL));
}

int cls__b_stream_host_fn(cls__bstream *s, clsHostFn_t fn, void *user,
                          clsError_t *err) {
  /* Acquire: the mark was made before any host function goes direct. */
  if (!atomic_load_explicit(&cls__cuda_marked, memory_order_acquire)) return 0;
  *err = cls__cuda_use(s->dev);
  if (*err == clsSuccess)
    *err =
        cls__cuda_rt(cudaLaunchHostFunc(s->s, fn, user), "cudaLaunchHostFunc");
  return 1;
}

clsError_t cls__b_stream_host_job(cls__bstream *s, cls__job_fn run, void *job) {
  (void)run; /* the job's own run */
  cls__job *j = job;
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  if (j->skippable)
    return cls__cuda_rt(cudaLaunchHostFunc(s->s, cls__cuda_host_fn, j),
                        "cudaLaunchHostFunc");
  return cls__cuda_rt(cudaStreamAddCallback(s->s, cls__cuda_callback, j, 0),
                      "cudaStreamAddCallback");
}

_Static_assert(clsStreamNonBlocking == cudaStreamNonBlocking,
               "stream flags must equal the runtime's");
