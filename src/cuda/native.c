/* CUDA backend: native handles (backend.h, "Native handles";
 * docs/interop.md).  A stream is its cudaStream_t and an event its
 * cudaEvent_t; this backend keeps no state beside the runtime's (no
 * held-back waits, no known-idle shortcut: stream.c and event.c forward
 * every call), so the program's own work on a stream needs no rule of
 * its own.  Handles the program gives stay the program's (the foreign
 * flag: never destroyed here).  The OpenCL calls are not supported. */
#include "cuda_be.h"

#include <stdlib.h>

int cls__b_native_api(void) { return CLS__NATIVE_CUDA; }

static clsError_t cls__no_opencl(void) {
  return cls__reason(clsErrorNotSupported,
                     "clstream was built for CUDA: no OpenCL handles");
}

clsError_t cls__b_native_device(int dev, void **plat, void **id, void **ctx) {
  (void)dev, (void)plat, (void)id, (void)ctx;
  return cls__no_opencl();
}

clsError_t cls__b_native_stream(cls__bstream *s, void **out) {
  *out = s->s;
  return clsSuccess;
}

clsError_t cls__b_native_event(int dev, cls__bevent *e, cls__btoken *t,
                               void **out, cls__btoken **follow) {
  (void)dev, (void)t;
  *out = e->ev;
  /* The program may record it with cudaEventRecord: the token is the
   * event itself (event.c), so it follows every record, ours or not. */
  *follow = (cls__btoken *)(void *)e;
  return clsSuccess;
}

clsError_t cls__b_stream_import(int dev, void *native, unsigned flags,
                                cls__bstream **out) {
  cudaStream_t cs = native;
  clsError_t r = cls__cuda_use(dev);
  if (r != clsSuccess) return r;
  /* The stream must be of this device: its own answer, where the runtime
   * has the call (CUDA 12.8 and later), else a query that fails for a
   * destroyed stream at least. */
  unsigned got = 0;
  r = cls__cuda_rt(cudaStreamGetFlags(cs, &got), "cudaStreamGetFlags");
  if (r != clsSuccess) return r;
  if ((got & cudaStreamNonBlocking) != (flags & cudaStreamNonBlocking))
    return cls__reason(clsErrorInvalidValue,
                       "flags 0x%x differ from the CUDA stream's (0x%x)", flags,
                       got);
  int sdev = -1;
  r = cls__cuda_rt(cudaStreamGetDevice(cs, &sdev), "cudaStreamGetDevice");
  if (r != clsSuccess) return r;
  if (sdev != dev)
    return cls__reason(clsErrorInvalidValue,
                       "the CUDA stream is of device %d, not of device %d",
                       sdev, dev);
  cls__bstream *s = malloc(sizeof *s);
  if (!s) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  s->dev = dev;
  s->s = cs;
  s->foreign = 1;
  *out = s;
  return clsSuccess;
}

clsError_t cls__b_event_import(int dev, void *native, unsigned flags,
                               cls__bevent **be, cls__btoken **tok,
                               int *follows) {
  cudaEvent_t ce = native;
  clsError_t r = cls__cuda_use(dev);
  if (r != clsSuccess) return r;
  /* A destroyed or foreign handle fails here (cudaErrorInvalidResourceHandle);
   * NotReady is a state. */
  cudaError_t q = cudaEventQuery(ce);
  if (q != cudaSuccess && q != cudaErrorNotReady)
    return cls__cuda_rt(q, "cudaEventQuery");
  cls__bevent *e = malloc(sizeof *e);
  if (!e) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  e->dev = dev;
  e->flags = flags;
  e->ev = ce;
  e->foreign = 1;
  *be = e;
  *tok = (cls__btoken *)(void *)e; /* the token is the event (event.c) */
  *follows = 1;                    /* the program may record it again */
  return clsSuccess;
}

clsError_t cls__b_native_mem(int dev, const void *p, void *base, size_t size,
                             void **mem, size_t *off) {
  (void)dev, (void)p, (void)base, (void)size, (void)mem, (void)off;
  return cls__no_opencl();
}

clsError_t cls__b_mem_register(int dev, void *mem, void **p, size_t *size) {
  (void)dev, (void)mem, (void)p, (void)size;
  return cls__no_opencl();
}

clsError_t cls__b_mem_unregister(int dev, void *p) {
  (void)dev, (void)p;
  return cls__no_opencl();
}
