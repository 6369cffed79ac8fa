/* OpenCL backend: device-wide synchronization (clsDeviceSynchronize, and
 * the wait clsFree makes): waits for every stream's pending work, live or
 * destroyed, as enqueue.c's cls__ocl_gather_device names it, then lets
 * enqueue.c drop the orphans that are over (cls__ocl_orphans_settle).
 * Owns and takes no lock itself: those two calls take
 * device.streams_lock, stream.last_lock and device.busy_lock, one at a
 * time, and it waits with none held. */
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

/* Waits for the pending work of every stream of d, live or destroyed:
 * newest commands and waits that no command has consumed yet. */
static clsError_t cls__device_wait_all(cls__ocl_device *d) {
  cls__ocl_batch b;
  cls__ocl_batch_init(&b);
  cls__ocl_gather_device(d, &b);
  /* Every lock is dropped: what the gathers set aside (cls__ocl_batch)
   * is waited for here too. */
  clsError_t e = cls__ocl_batch_wait(&b);
  /* Orphans that are over, failed ones included (the wait reported
   * them), leave the list. */
  cls__ocl_orphans_settle(d);
  return e;
}
