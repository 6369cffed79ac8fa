/* OpenCL backend: device-wide synchronization (clsDeviceSynchronize, and
 * the wait clsFree makes): waits for every stream's pending work, live or
 * destroyed; the same gather names that work for a module's unload
 * (module.c).  Owns no lock: it takes device.streams_lock, stream.last_lock
 * and device.busy_lock (stream.c, enqueue.c) only to gather, and waits
 * with none held. */
#include "command.h"

#include <stdlib.h>

/* ---- Device-wide synchronization -------------------------------------- */

static clsError_t cls__device_wait_all(cls__ocl_device *d);

clsError_t cls__b_device_sync(int dev) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (atomic_load_explicit(&d->opened, memory_order_acquire) != 1)
    return clsSuccess;
  clsError_t e = cls__device_wait_all(d);
  if (CLS__UNLIKELY(cls__trace_on)) cls__trace_write();
  return e;
}

/* clsFree waits as clsDeviceSynchronize does, without writing the trace. */
clsError_t cls__b_free_wait(int dev) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (atomic_load_explicit(&d->opened, memory_order_acquire) != 1)
    return clsSuccess;
  return cls__device_wait_all(d);
}

void cls__ocl_gather_device(cls__ocl_device *d, cls__ocl_batch *b) {
  pthread_mutex_lock(&d->streams_lock);
  for (cls__bstream *s = d->streams; s; s = s->next) {
    cls__lock_take(&s->last_lock);
    cls__ocl_gather_stream(s, b);
    cls__lock_give(&s->last_lock);
  }
  pthread_mutex_unlock(&d->streams_lock);
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->norphans; ++i) {
    clRetainEvent(d->orphans[i].ev);
    cls__ocl_batch_push(b, d->orphans[i].ev);
  }
  pthread_mutex_unlock(&d->busy_lock);
}

/* Waits for the pending work of every stream of d, live or destroyed:
 * newest commands and waits that no command has consumed yet. */
static clsError_t cls__device_wait_all(cls__ocl_device *d) {
  cls__ocl_batch b;
  cls__ocl_batch_init(&b);
  cls__ocl_gather_device(d, &b);
  /* Every lock is dropped: what the gathers set aside (cls__ocl_batch)
   * is waited for here too. */
  clsError_t e = cls__ocl_batch_wait(&b);
  /* Completed orphans are dropped. */
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->norphans;) {
    if (cls__ocl_status(d->orphans[i].ev) <= CL_COMPLETE) {
      clReleaseEvent(d->orphans[i].ev);
      d->orphans[i] = d->orphans[--d->norphans];
    } else {
      ++i;
    }
  }
  pthread_mutex_unlock(&d->busy_lock);
  return e;
}
