/* OpenCL backend: native handles (backend.h, "Native handles";
 * docs/interop.md).  Hands the program the device's platform, device and
 * context, a stream's queue (which makes the stream "exposed": enqueue.c,
 * cls__ocl_expose), a record's cl_event and the buffer behind a device
 * pointer; adopts the program's in-order queue as a stream, its cl_event
 * as a recorded event and its buffer as device memory.  Every handle the
 * program gives is checked to belong to clstream's context of the device.
 * Owns no lock and no state: streams are stream.c's, buffers and views
 * memory.c's, tokens position.c's. */
#include "command.h"

int cls__b_native_api(void) { return CLS__NATIVE_OPENCL; }

clsError_t cls__b_native_device(int dev, void **plat, void **id, void **ctx) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (plat) *plat = d->plat->id;
  if (id) *id = d->id;
  if (ctx) *ctx = d->ctx;
  return clsSuccess;
}

clsError_t cls__b_native_stream(cls__bstream *s, void **out) {
  clsError_t e = cls__ocl_expose(s);
  if (e == clsSuccess) *out = s->q;
  return e;
}

/* A user event of d's context, complete already: what stands for work
 * known complete. */
static clsError_t cls__completed(cls__ocl_device *d, cl_event *out) {
  cl_int err;
  cl_event ev = clCreateUserEvent(d->ctx, &err);
  if (!ev || err != CL_SUCCESS)
    return cls__ocl_error(err ? err : CL_OUT_OF_RESOURCES, "clCreateUserEvent");
  err = clSetUserEventStatus(ev, CL_COMPLETE);
  if (err != CL_SUCCESS) {
    clReleaseEvent(ev);
    return cls__ocl_error(err, "clSetUserEventStatus");
  }
  *out = ev;
  return clsSuccess;
}

clsError_t cls__b_native_event(int dev, cls__bevent *e, cls__btoken *t,
                               void **out, cls__btoken **follow) {
  (void)e;
  *follow = NULL; /* a cl_event never changes: a snapshot */
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (!t || !t->pos.ev) return cls__completed(d, (cl_event *)out);
  cl_event ev = t->pos.ev;
  /* The program may wait for it from another queue: flush its own first
   * ("flush what someone waits for", docs/design.md). */
  cl_command_queue q = NULL;
  if (clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL) ==
          CL_SUCCESS &&
      q)
    cls__ocl_flush(q);
  clRetainEvent(ev);
  *out = ev;
  return clsSuccess;
}

/* Whether the program's object of context `ctx` is in d's context;
 * refuses it with a reason naming `what` otherwise. */
static clsError_t cls__same_context(cls__ocl_device *d, cl_int err,
                                    cl_context ctx, const char *what) {
  if (err != CL_SUCCESS)
    return cls__reason(clsErrorInvalidValue,
                       "%s is not a valid OpenCL object (OpenCL error %d)",
                       what, (int)err);
  if (ctx != d->ctx)
    return cls__reason(clsErrorInvalidValue,
                       "%s belongs to a context clstream does not know (use "
                       "the context clsOpenCLGetDevice gives for device %d)",
                       what, d->index);
  return clsSuccess;
}

clsError_t cls__b_stream_import(int dev, void *native, unsigned flags,
                                cls__bstream **out) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  cl_command_queue q = native;
  cl_context ctx = NULL;
  cl_int err =
      clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL);
  clsError_t e = cls__same_context(d, err, ctx, "the queue");
  if (e != clsSuccess) return e;
  cl_device_id id = NULL;
  err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof id, &id, NULL);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clGetCommandQueueInfo");
  if (id != d->id)
    return cls__reason(clsErrorInvalidValue,
                       "the queue is of another device than device %d",
                       d->index);
  cl_command_queue_properties props = 0;
  err =
      clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clGetCommandQueueInfo");
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    return cls__reason(clsErrorInvalidValue,
                       "the queue is out of order: a stream needs an "
                       "in-order queue");
  if (props & CL_QUEUE_ON_DEVICE)
    return cls__reason(clsErrorInvalidValue,
                       "the queue is a device-side queue: a stream needs a "
                       "host queue");
  return cls__ocl_stream_adopt(d, q, flags, out);
}

clsError_t cls__b_event_import(int dev, void *native, unsigned flags,
                               cls__bevent **be, cls__btoken **tok,
                               int *follows) {
  (void)flags;
  *follows = 0;
  cls__ocl_device *d = cls__ocl_device_get(dev);
  cl_event ev = native;
  cl_context ctx = NULL;
  cl_int err = clGetEventInfo(ev, CL_EVENT_CONTEXT, sizeof ctx, &ctx, NULL);
  clsError_t e = cls__same_context(d, err, ctx, "the event");
  if (e != clsSuccess) return e;
  err = clRetainEvent(ev);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clRetainEvent");
  /* Marked as work: its END (where it has one) is an end time. */
  *tok = cls__ocl_token_new(d, ev, 1, 0);
  *be = NULL;
  return *tok ? clsSuccess : clsErrorMemoryAllocation;
}

clsError_t cls__b_native_mem(int dev, const void *p, void *base, size_t size,
                             void **mem, size_t *off) {
  cl_mem m;
  if (cls__ocl_buffer_at(p, &m, off, NULL)) {
    *mem = m;
    return clsSuccess;
  }
  cls__ocl_device *d = cls__ocl_device_get(dev);
  clsError_t e = cls__ocl_view_at(d, base, size, &m);
  if (e != clsSuccess) return e;
  *mem = m;
  *off = (size_t)((const char *)p - (const char *)base);
  return clsSuccess;
}

clsError_t cls__b_mem_register(int dev, void *mem, void **p, size_t *size) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  cl_mem m = mem;
  cl_context ctx = NULL;
  cl_int err = clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
  clsError_t e = cls__same_context(d, err, ctx, "the buffer");
  if (e != clsSuccess) return e;
  cl_mem_object_type type = 0;
  err = clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof type, &type, NULL);
  if (err == CL_SUCCESS)
    err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof *size, size, NULL);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clGetMemObjectInfo");
  if (type != CL_MEM_OBJECT_BUFFER || *size == 0)
    return cls__reason(clsErrorInvalidValue,
                       "the cl_mem is not a buffer (or is empty)");
  return cls__ocl_buffer_adopt(m, *size, p);
}

clsError_t cls__b_mem_unregister(int dev, void *p) {
  (void)dev;
  if (!cls__ocl_buffer_unadopt(p))
    return cls__reason(clsErrorInvalidValue,
                       "%p is not a pointer clsOpenCLMemRegister gave", p);
  return clsSuccess;
}
