/* Events: validation and handles; the backend does the work. */
#include "internal.h"

#include <stdlib.h>

#define CLS__EVENT_FLAGS                                                       \
  (clsEventBlockingSync | clsEventDisableTiming | clsEventInterprocess)

static clsError_t cls__event_create(clsEvent_t *out, unsigned flags) {
  if (!out) return cls__reason(clsErrorInvalidValue, "event is NULL");
  if (flags & ~CLS__EVENT_FLAGS)
    return cls__reason(clsErrorInvalidValue, "unknown event flags 0x%x",
                       flags & ~CLS__EVENT_FLAGS);
  if ((flags & clsEventInterprocess) && !(flags & clsEventDisableTiming))
    return cls__reason(clsErrorInvalidValue,
                       "clsEventInterprocess needs clsEventDisableTiming");
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) return e;
  cls__event *ev = malloc(sizeof *ev);
  if (!ev) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  ev->dev = dev;
  ev->flags = flags;
  atomic_init(&ev->recorded, 0);
  e = cls__b_event_create(dev, flags, &ev->b);
  if (e != clsSuccess) {
    free(ev);
    return e;
  }
  uintptr_t h = cls__handle_new(CLS__KIND_EVENT, ev);
  if (!h) {
    cls__b_event_destroy(ev->b);
    free(ev);
    return cls__reason(clsErrorMemoryAllocation, "handle table is full");
  }
  *out = (clsEvent_t)h;
  return clsSuccess;
}

clsError_t clsEventCreate(clsEvent_t *e) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__event_create(e, clsEventDefault));
}

clsError_t clsEventCreateWithFlags(clsEvent_t *e, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__event_create(e, flags));
}

static inline cls__event *cls__event_get(clsEvent_t h) {
  return cls__handle_get(CLS__KIND_EVENT, (uintptr_t)h);
}

#define CLS__BAD_EVENT(h)                                                      \
  cls__reason(clsErrorInvalidResourceHandle, "event %p is not a live event",   \
              (void *)(h))

clsError_t clsEventDestroy(clsEvent_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__handle_retire(CLS__KIND_EVENT, (uintptr_t)h);
  if (!e) CLS__RETURN(CLS__BAD_EVENT(h));
  cls__b_event_destroy(e->b);
  free(e);
  CLS__RETURN(clsSuccess);
}

clsError_t clsEventRecord(clsEvent_t h, clsStream_t sh) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_get(h);
  if (CLS__UNLIKELY(!e)) CLS__RETURN(CLS__BAD_EVENT(h));
  int dev;
  cls__bstream *s;
  clsError_t r = cls__stream_resolve(sh, &dev, &s, NULL, NULL);
  if (CLS__UNLIKELY(r != clsSuccess)) CLS__RETURN(r);
  if (CLS__UNLIKELY(dev != e->dev))
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "the event belongs to device %d, the stream to "
                            "device %d",
                            e->dev, dev));
  r = cls__b_event_record(e->b, s);
  if (CLS__LIKELY(r == clsSuccess))
    atomic_store_explicit(&e->recorded, 1, memory_order_release);
  CLS__RETURN(r);
}

clsError_t clsEventQuery(clsEvent_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_get(h);
  if (CLS__UNLIKELY(!e)) CLS__RETURN(CLS__BAD_EVENT(h));
  CLS__RETURN(cls__b_event_query(e->b));
}

clsError_t clsEventSynchronize(clsEvent_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_get(h);
  if (CLS__UNLIKELY(!e)) CLS__RETURN(CLS__BAD_EVENT(h));
  CLS__RETURN(cls__b_event_sync(e->b));
}

static clsError_t cls__timed_event(clsEvent_t h, const char *which,
                                   cls__event **out) {
  cls__event *e = cls__event_get(h);
  if (!e) return CLS__BAD_EVENT(h);
  if (e->flags & clsEventDisableTiming)
    return cls__reason(clsErrorInvalidResourceHandle,
                       "%s event was created with clsEventDisableTiming",
                       which);
  if (!atomic_load_explicit(&e->recorded, memory_order_acquire))
    return cls__reason(clsErrorInvalidResourceHandle,
                       "%s event was never recorded", which);
  *out = e;
  return clsSuccess;
}

clsError_t clsEventElapsedTime(float *ms, clsEvent_t start, clsEvent_t end) {
  CLS__NOT_IN_HOST_FN();
  if (!ms) CLS__RETURN(cls__reason(clsErrorInvalidValue, "ms is NULL"));
  cls__event *a = NULL, *b = NULL;
  clsError_t r = cls__timed_event(start, "the start", &a);
  if (r == clsSuccess) r = cls__timed_event(end, "the end", &b);
  if (r == clsSuccess && a->dev != b->dev)
    r = cls__reason(clsErrorInvalidResourceHandle,
                    "the events belong to devices %d and %d", a->dev, b->dev);
  if (r == clsSuccess) r = cls__b_event_elapsed(ms, a->b, b->b);
  CLS__RETURN(r);
}
