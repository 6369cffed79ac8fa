/* Private to the front: a stream as the front keeps it (made and destroyed
 * by stream.c) and the resolution of a stream handle to its device and
 * backend stream (stream_resolve.c), with the inline fast path that every
 * launch, copy and record takes. */
#ifndef CLSTREAM_STREAM_RESOLVE_H
#define CLSTREAM_STREAM_RESOLVE_H

#include "device.h"
#include "internal.h"

/* A created stream; the default streams are the backend's alone. */
typedef struct cls__stream {
  int dev;
  unsigned flags;
  int priority;
  cls__bstream *b;
} cls__stream;

/* The calling thread's last legacy stream and its device (-1: none yet),
 * kept by cls__stream_resolve_slow (stream_resolve.c): a device's legacy
 * stream, once created, lives as long as the library (backend.h). */
extern _Thread_local cls__bstream *cls__tl_legacy CLS__TLS_FAST;
extern _Thread_local int cls__tl_legacy_dev CLS__TLS_FAST;
/* cls__stream_resolve's slow cases (stream_resolve.c): the default streams but
 * the thread's cached legacy stream, and a handle that is not a live stream. */
clsError_t cls__stream_resolve_slow(clsStream_t h, int *dev, cls__bstream **b,
                                    unsigned *flags, int *priority);
/* Resolves a stream handle (NULL, clsStreamLegacy, clsStreamPerThread or a
 * created stream) to its device and backend stream.  `flags`/`priority`
 * may be NULL.  Fails with clsErrorInvalidResourceHandle (and a reason).
 * The legacy stream of the thread's current device, the common case of
 * launches and copies, costs two thread-local reads; a created stream one
 * slot-table read. */
static inline clsError_t cls__stream_resolve(clsStream_t h, int *dev,
                                             cls__bstream **b, unsigned *flags,
                                             int *priority) {
  if (h == NULL || h == clsStreamLegacy) {
    int d = cls__current;
    if (CLS__LIKELY(d >= 0 && d == cls__tl_legacy_dev) && !flags && !priority) {
      *dev = d;
      *b = cls__tl_legacy;
      return clsSuccess;
    }
  } else if (h != clsStreamPerThread) {
    /* A created stream: one slot-table read (a dead handle takes the
     * slow path, which words the error). */
    const cls__stream *s = cls__handle_get(CLS__KIND_STREAM, (uintptr_t)h);
    if (CLS__LIKELY(s != NULL)) {
      *dev = s->dev;
      *b = s->b;
      if (flags) *flags = s->flags;
      if (priority) *priority = s->priority;
      return clsSuccess;
    }
  }
  return cls__stream_resolve_slow(h, dev, b, flags, priority);
}

#endif /* CLSTREAM_STREAM_RESOLVE_H */
