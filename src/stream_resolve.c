/* Resolving a stream handle to its device and backend stream
 * (stream_resolve.h holds the inline fast path): the default streams, the
 * calling thread's cached legacy stream, and the error for a handle that
 * is not a live stream.  It sits below every call that takes a stream,
 * the capture hooks among them, and calls only the current device
 * (device.c) and the backend. */
#include "stream_resolve.h"

#include "device.h"
#include "internal.h"

_Thread_local cls__bstream *cls__tl_legacy CLS__TLS_FAST;
_Thread_local int cls__tl_legacy_dev CLS__TLS_FAST = -1;

clsError_t cls__stream_resolve_slow(clsStream_t h, int *dev, cls__bstream **b,
                                    unsigned *flags, int *priority) {
  if (h == NULL || h == clsStreamLegacy || h == clsStreamPerThread) {
    clsError_t e = cls__current_device(dev);
    if (CLS__UNLIKELY(e != clsSuccess)) return e;
    if (flags) *flags = clsStreamDefault;
    if (priority) *priority = 0;
    if (h == clsStreamPerThread) return cls__b_stream_default(*dev, 1, b);
    if (CLS__LIKELY(*dev == cls__tl_legacy_dev)) {
      *b = cls__tl_legacy;
      return clsSuccess;
    }
    e = cls__b_stream_default(*dev, 0, b);
    if (e == clsSuccess) {
      cls__tl_legacy = *b;
      cls__tl_legacy_dev = *dev;
    }
    return e;
  }
  /* cls__stream_resolve found no live stream behind h. */
  return cls__reason(clsErrorInvalidResourceHandle,
                     "stream %p is not a live stream", (void *)h);
}
