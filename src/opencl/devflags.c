/* OpenCL backend: device flags (the schedule flag decides how the
 * library's waits for a device behave) and the profiler switches. */
#include "threads.h"

#include <sched.h>

/* Non-zero once any device has a schedule flag other than Auto, so that
 * waits look up their device only then. */
static _Atomic int cls__sched_any;

clsError_t cls__b_device_set_flags(int dev, unsigned flags) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  unsigned sched = flags & clsDeviceScheduleMask;
  atomic_store(&d->sched, sched);
  if (sched != clsDeviceScheduleAuto) atomic_store(&cls__sched_any, 1);
  return clsSuccess;
}

clsError_t cls__b_device_get_flags(int dev, unsigned set, unsigned *flags) {
  clsDeviceProp p;
  clsError_t e = cls__b_device_props(dev, &p);
  if (e != clsSuccess) return e;
  /* Mapping host memory needs no request here, as in CUDA's runtime. */
  *flags = set | (p.canMapHostMemory ? clsDeviceMapHost : 0u);
  return clsSuccess;
}

unsigned cls__ocl_wait_mode(cl_event ev) {
  if (CLS__LIKELY(!atomic_load_explicit(&cls__sched_any, memory_order_relaxed)))
    return CLS__WAIT_DRIVER;
  cl_command_queue q = NULL;
  cl_device_id id = NULL;
  /* A user event has no queue and no device: the driver waits. */
  if (clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL) !=
          CL_SUCCESS ||
      !q ||
      clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof id, &id, NULL) !=
          CL_SUCCESS)
    return CLS__WAIT_DRIVER;
  for (int i = 0, n = cls__b_device_count(); i < n; ++i) {
    cls__ocl_device *d = cls__ocl_device_get(i);
    if (d->id == id) return atomic_load(&d->sched);
  }
  return CLS__WAIT_DRIVER;
}

clsError_t cls__ocl_poll_wait(cl_event ev, unsigned mode) {
  cl_int st;
  while ((st = cls__ocl_status(ev)) > CL_COMPLETE)
    if (mode == clsDeviceScheduleYield) sched_yield();
  return st < 0 ? cls__ocl_failed(st) : clsSuccess;
}

clsError_t cls__b_profiler(int start) {
  (void)start; /* No profiler to tell; CLSTREAM_TRACE records always. */
  return clsSuccess;
}
