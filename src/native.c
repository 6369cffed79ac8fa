/* Native handles (include/clstream_opencl.h, clstream_cuda_interop.h;
 * docs/interop.md): validation and handles for the calls that hand the
 * program OpenCL or CUDA objects and adopt the program's own.  Every
 * function exists in both builds; the other API's calls return
 * clsErrorNotSupported.  The native types are declared here by their
 * struct tags, exactly as CL/cl.h and cuda_runtime.h declare them, so
 * that this file needs neither header; the header of the build's own API
 * is included to check the prototypes. */
#include "internal.h"
#include "device.h"
#include "stream_resolve.h"

#include <stdlib.h>

#if defined(CLS__BUILD_OPENCL)
#include "clstream_opencl.h"
#else
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_event *cl_event;
#endif
#if defined(CLS__BUILD_CUDA)
#include "clstream_cuda_interop.h"
#else
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
#endif

/* Public, but declared only in the native headers. */
#define CLS__NATIVE_FN CLS_API clsError_t

/* clsErrorNotSupported unless this build's native API is `api`. */
static clsError_t cls__native_is(int api) {
  clsError_t e = cls__init();
  if (e != clsSuccess) return e;
  if (cls__b_native_api() == api) return clsSuccess;
  return cls__reason(clsErrorNotSupported,
                     api == CLS__NATIVE_OPENCL
                         ? "clstream was built for CUDA: no OpenCL handles"
                         : "clstream was built for OpenCL: no CUDA handles");
}

static clsError_t cls__null(const void *p, const char *what) {
  return p ? clsSuccess : cls__reason(clsErrorInvalidValue, "%s is NULL", what);
}

/* ---- Streams and events, both APIs ------------------------------------- */

static clsError_t cls__native_stream(int api, clsStream_t h, void **out) {
  clsError_t e = cls__native_is(api);
  if (e == clsSuccess) e = cls__null(out, "the output");
  if (e != clsSuccess) return e;
  int dev;
  cls__bstream *b;
  e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  return cls__b_native_stream(b, out);
}

static clsError_t cls__native_event(int api, clsEvent_t h, void **out) {
  clsError_t e = cls__native_is(api);
  if (e == clsSuccess) e = cls__null(out, "the output");
  if (e != clsSuccess) return e;
  int dev;
  cls__bevent *b;
  cls__btoken *t;
  e = cls__event_native(h, &dev, &b, &t);
  if (e != clsSuccess) return e;
  cls__btoken *follow = NULL;
  e = cls__b_native_event(dev, b, t, out, &follow);
  cls__b_token_release(t);
  if (e == clsSuccess && follow) cls__event_follow(h, follow);
  return e;
}

static clsError_t cls__stream_import(int api, clsStream_t *out, void *native,
                                     unsigned flags) {
  clsError_t e = cls__native_is(api);
  if (e == clsSuccess) e = cls__null(out, "stream");
  if (e == clsSuccess)
    e = cls__null(native,
                  api == CLS__NATIVE_OPENCL ? "the queue" : "the CUDA stream");
  if (e != clsSuccess) return e;
  if (flags & ~clsStreamNonBlocking)
    return cls__reason(clsErrorInvalidValue, "unknown stream flags 0x%x",
                       flags & ~clsStreamNonBlocking);
  int dev;
  e = cls__current_device(&dev);
  if (e != clsSuccess) return e;
  cls__stream *s = malloc(sizeof *s);
  if (!s) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  s->dev = dev;
  s->flags = flags;
  s->priority = 0;
  e = cls__b_stream_import(dev, native, flags, &s->b);
  if (e != clsSuccess) {
    free(s);
    return e;
  }
  uintptr_t h = cls__handle_new(CLS__KIND_STREAM, s);
  if (!h) {
    cls__b_stream_destroy(s->b);
    free(s);
    return cls__reason(clsErrorMemoryAllocation, "handle table is full");
  }
  *out = (clsStream_t)h;
  return clsSuccess;
}

static clsError_t cls__event_import_checked(int api, clsEvent_t *out,
                                            void *native, unsigned flags) {
  clsError_t e = cls__native_is(api);
  if (e == clsSuccess) e = cls__null(out, "event");
  if (e == clsSuccess) e = cls__null(native, "the native event");
  if (e != clsSuccess) return e;
  return cls__event_import(out, flags, native);
}

/* ---- OpenCL ------------------------------------------------------------ */

CLS__NATIVE_FN clsOpenCLGetDevice(int device, cl_platform_id *platform,
                                  cl_device_id *dev, cl_context *ctx) {
  CLS__NOT_IN_HOST_FN();
  clsError_t e = cls__native_is(CLS__NATIVE_OPENCL);
  if (e == clsSuccess && (device < 0 || device >= cls__b_device_count()))
    e = cls__reason(clsErrorInvalidDevice, "device %d is not in 0..%d", device,
                    cls__b_device_count() - 1);
  if (e == clsSuccess) e = cls__b_device_open(device);
  if (e == clsSuccess)
    e = cls__b_native_device(device, (void **)platform, (void **)dev,
                             (void **)ctx);
  CLS__RETURN(e);
}

CLS__NATIVE_FN clsOpenCLGetQueue(clsStream_t stream, cl_command_queue *queue) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__native_stream(CLS__NATIVE_OPENCL, stream, (void **)queue));
}

CLS__NATIVE_FN clsOpenCLGetEvent(clsEvent_t event, cl_event *clEvent) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__native_event(CLS__NATIVE_OPENCL, event, (void **)clEvent));
}

static clsError_t cls__get_mem(const void *p, cl_mem *mem, size_t *offset) {
  clsError_t e = cls__native_is(CLS__NATIVE_OPENCL);
  if (e == clsSuccess) e = cls__null(mem, "mem");
  if (e == clsSuccess) e = cls__null(offset, "offset");
  if (e != clsSuccess) return e;
  void *base = NULL;
  size_t size = 0;
  int dev = -1;
  int kind = cls__mem_lookup(p, &base, &size, &dev);
  if (kind != CLS__MEM_DEVICE && kind != CLS__MEM_POOL)
    return cls__reason(clsErrorInvalidValue,
                       "%p is not clstream device memory (clsMalloc, "
                       "clsMallocAsync or clsOpenCLMemRegister)",
                       p);
  return cls__b_native_mem(dev, p, base, size, (void **)mem, offset);
}

CLS__NATIVE_FN clsOpenCLGetMem(const void *devPtr, cl_mem *mem,
                               size_t *offset) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__get_mem(devPtr, mem, offset));
}

CLS__NATIVE_FN clsOpenCLStreamCreateFromQueue(clsStream_t *stream,
                                              cl_command_queue queue,
                                              unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__stream_import(CLS__NATIVE_OPENCL, stream, queue, flags));
}

CLS__NATIVE_FN clsOpenCLEventCreateFromEvent(clsEvent_t *event,
                                             cl_event clEvent, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(
      cls__event_import_checked(CLS__NATIVE_OPENCL, event, clEvent, flags));
}

static clsError_t cls__register(void **p, cl_mem mem) {
  clsError_t e = cls__native_is(CLS__NATIVE_OPENCL);
  if (e == clsSuccess) e = cls__null(p, "devPtr");
  if (e == clsSuccess) e = cls__null(mem, "mem");
  if (e != clsSuccess) return e;
  int dev;
  e = cls__current_device(&dev);
  if (e != clsSuccess) return e;
  size_t size = 0;
  e = cls__b_mem_register(dev, mem, p, &size);
  if (e != clsSuccess) return e;
  e = cls__mem_add(*p, size, CLS__MEM_DEVICE, dev);
  if (e != clsSuccess) (void)cls__b_mem_unregister(dev, *p);
  return e;
}

CLS__NATIVE_FN clsOpenCLMemRegister(void **devPtr, cl_mem mem) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__register(devPtr, mem));
}

static clsError_t cls__unregister(void *p) {
  clsError_t e = cls__native_is(CLS__NATIVE_OPENCL);
  if (e != clsSuccess) return e;
  void *base = NULL;
  int dev = -1;
  if (!p || cls__mem_lookup(p, &base, NULL, &dev) != CLS__MEM_DEVICE ||
      base != p)
    return cls__reason(clsErrorInvalidValue,
                       "%p is not a pointer clsOpenCLMemRegister gave", p);
  e = cls__b_mem_unregister(dev, p); /* refuses clsMalloc memory */
  if (e == clsSuccess)
    (void)cls__mem_remove(p, CLS__MEM_BIT(CLS__MEM_DEVICE), NULL, NULL);
  return e;
}

CLS__NATIVE_FN clsOpenCLMemUnregister(void *devPtr) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__unregister(devPtr));
}

/* ---- CUDA -------------------------------------------------------------- */

CLS__NATIVE_FN clsCUDAGetStream(clsStream_t stream, cudaStream_t *out) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__native_stream(CLS__NATIVE_CUDA, stream, (void **)out));
}

CLS__NATIVE_FN clsCUDAGetEvent(clsEvent_t event, cudaEvent_t *out) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__native_event(CLS__NATIVE_CUDA, event, (void **)out));
}

CLS__NATIVE_FN clsCUDAStreamCreateFromStream(clsStream_t *stream,
                                             cudaStream_t cuStream,
                                             unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__stream_import(CLS__NATIVE_CUDA, stream, cuStream, flags));
}

CLS__NATIVE_FN clsCUDAEventCreateFromEvent(clsEvent_t *event,
                                           cudaEvent_t cuEvent,
                                           unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(
      cls__event_import_checked(CLS__NATIVE_CUDA, event, cuEvent, flags));
}
