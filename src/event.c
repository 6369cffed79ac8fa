/* Events: validation, handles, and the one owner of an event's state.
 *
 * An event's state is one atomic word, changed only by the functions in
 * this file:
 *
 *   state = generation << 3 | CLS__EV_LOCKED | CLS__EV_DONE | CLS__EV_RECORDED
 *
 * - never recorded: 0.  Query and synchronize succeed at once, elapsed
 *   times are clsErrorInvalidResourceHandle, stream waits have no effect.
 * - record (cls__event_record): once the backend's record has returned a
 *   token, the generation goes up by one, RECORDED is set and DONE is set
 *   only where the backend says the work is complete at record time (a
 *   NULL token: an untimed record of idle work; or a token with an end
 *   time but no command).  The token replaces the older one.
 * - mark done (cls__event_mark_done): a query or synchronize that saw the
 *   token of generation g complete sets DONE if the word still holds g
 *   (compare-and-swap on the value read with the token), so a completion
 *   of an older record never marks a newer one complete.
 * - query, synchronize, elapsed time and stream waits read the word: a
 *   known-complete event costs one atomic load.
 *
 * LOCKED is the event's lock, in the same word: it guards e->tok and
 * orders records of one event against each other.  Taking it is one
 * compare-and-swap that also reads the state; giving it back is a plain
 * release store of the new state, since nobody else changes the word
 * while it is held.  So a record costs one atomic read-modify-write
 * (a separate lock cost two, and a pthread mutex some 57 instructions).
 * It is held only for a token swap or for the backend's token calls made
 * under it (status and end-time reads, which never wait), so a thread
 * that finds it held spins, yielding the processor after a while.  No
 * wait happens with it held: a synchronize takes a reference to the
 * token and lets go first. */
#include "internal.h"
#include "device.h"
#include "graph.h"
#include "stream_resolve.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define CLS__EVENT_FLAGS                                                       \
  (clsEventBlockingSync | clsEventDisableTiming | clsEventInterprocess)

#define CLS__EV_RECORDED 1ul /* some record has returned */
#define CLS__EV_DONE 2ul     /* the newest record is known complete */
#define CLS__EV_LOCKED 4ul   /* the event's lock (see above) */
#define CLS__EV_GEN 8ul      /* one record */

typedef struct cls__event cls__event;
struct cls__event {
  int dev;
  unsigned flags;
  _Atomic unsigned long state; /* see above */
  cls__btoken *tok; /* under LOCKED: the newest record's; NULL: none, or
                       complete */
  cls__bevent *b;
  cls__evcap cap; /* a record made in a capture (capture.c) */
  /* Its native event may be recorded by the program (a CUDA handle handed
   * out or adopted: cls__event_follow): DONE is never set, every query
   * asks the backend. */
  _Atomic int follows;
};

/* Whether state says "nothing to wait for": never recorded, or the
 * newest record known complete. */
static inline int cls__ev_settled(unsigned long st) {
  return (st & (CLS__EV_RECORDED | CLS__EV_DONE)) != CLS__EV_RECORDED;
}

/* Waits a little for a held lock: a pause, and after many of them the
 * rest of the time slice (its holder may have been preempted). */
static void cls__ev_backoff(unsigned *spins) {
  if (++*spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    sched_yield();
  }
}

/* Takes e's lock; returns the state it held (LOCKED clear). */
static inline unsigned long cls__event_lock(cls__event *e) {
  unsigned long st = atomic_load_explicit(&e->state, memory_order_relaxed);
  unsigned spins = 0;
  for (;;) {
    if (CLS__LIKELY(!(st & CLS__EV_LOCKED)) &&
        CLS__LIKELY(atomic_compare_exchange_weak_explicit(
            &e->state, &st, st | CLS__EV_LOCKED, memory_order_acquire,
            memory_order_relaxed)))
      return st;
    if (st & CLS__EV_LOCKED) {
      cls__ev_backoff(&spins);
      st = atomic_load_explicit(&e->state, memory_order_relaxed);
    }
  }
}

/* Gives e's lock back, leaving state `st` (LOCKED clear). */
static inline void cls__event_unlock(cls__event *e, unsigned long st) {
  atomic_store_explicit(&e->state, st, memory_order_release);
}

/* The newest record's token, retained, and the state it goes with (read
 * together under the lock).  NULL when there is nothing to wait for. */
static cls__btoken *cls__event_take(cls__event *e, unsigned long *st) {
  *st = cls__event_lock(e);
  cls__btoken *t = cls__ev_settled(*st) ? NULL : e->tok;
  cls__b_token_retain(t);
  cls__event_unlock(e, *st);
  return t;
}

/* The record that was newest when `seen` was read is complete.  A lock
 * held meanwhile does not make the mark lost: it is given back with the
 * same state unless a record came in between. */
static void cls__event_mark_done(cls__event *e, unsigned long seen) {
  if (atomic_load_explicit(&e->follows, memory_order_relaxed)) return;
  unsigned long cur = seen;
  unsigned spins = 0;
  while (!atomic_compare_exchange_weak_explicit(
      &e->state, &cur, seen | CLS__EV_DONE, memory_order_release,
      memory_order_relaxed)) {
    if (cur != (seen | CLS__EV_LOCKED)) {
      if (cur == seen) continue; /* a spurious failure */
      return;                    /* a newer record, or marked already */
    }
    cls__ev_backoff(&spins);
    cur = seen;
  }
}

/* Makes `t` (owned; NULL: complete) e's newest record, complete already
 * where `complete` is set. */
static void cls__event_record(cls__event *e, cls__btoken *t, int complete) {
  unsigned long st = cls__event_lock(e);
  cls__btoken *old = e->tok;
  e->tok = t;
  st = ((st & ~(CLS__EV_GEN - 1)) + CLS__EV_GEN) | CLS__EV_RECORDED |
       (t && (!complete ||
              atomic_load_explicit(&e->follows, memory_order_relaxed))
            ? 0
            : CLS__EV_DONE);
  cls__event_unlock(e, st);
  if (old) cls__b_token_release(old);
}

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
  atomic_init(&ev->state, 0); /* never recorded */
  atomic_init(&ev->follows, 0);
  ev->tok = NULL;
  memset(&ev->cap, 0, sizeof ev->cap);
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

/* The live event behind handle h, or NULL.  Lock-free. */
static cls__event *cls__event_lookup(clsEvent_t h) {
  return cls__handle_get(CLS__KIND_EVENT, (uintptr_t)h);
}

#define CLS__BAD_EVENT(h)                                                      \
  cls__reason(clsErrorInvalidResourceHandle, "event %p is not a live event",   \
              (void *)(h))

clsError_t clsEventDestroy(clsEvent_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__handle_retire(CLS__KIND_EVENT, (uintptr_t)h);
  if (!e) CLS__RETURN(CLS__BAD_EVENT(h));
  cls__b_token_release(e->tok); /* the captured work still runs */
  if (e->cap.nodes) cls__cap_event_forget(&e->cap);
  cls__b_event_destroy(e->b);
  free(e);
  CLS__RETURN(clsSuccess);
}

clsError_t clsEventRecord(clsEvent_t h, clsStream_t sh) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_lookup(h);
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
  if (CLS__CAPTURING() && cls__cap_record(sh, s, &e->cap, &r)) CLS__RETURN(r);
  cls__btoken *t = NULL;
  int complete = 0;
  r = cls__b_record(e->b, s, e->flags, &t, &complete);
  if (CLS__LIKELY(r == clsSuccess)) cls__event_record(e, t, complete);
  if (CLS__UNLIKELY(atomic_load_explicit(&e->cap.rec, memory_order_relaxed)) &&
      r == clsSuccess)
    cls__cap_event_forget(&e->cap);
  CLS__RETURN(r);
}

/* The slow paths of query and synchronize, kept out of line so that the
 * hot path (one atomic load) saves no registers. */
static CLS__NOINLINE clsError_t cls__event_query_slow(cls__event *e) {
  /* A status read never waits, so it may be made under the lock. */
  unsigned long st = cls__event_lock(e);
  clsError_t r = cls__ev_settled(st) ? clsSuccess : cls__b_token_status(e->tok);
  cls__event_unlock(e, st);
  if (r == clsSuccess) cls__event_mark_done(e, st);
  return r;
}

static CLS__NOINLINE clsError_t cls__event_sync_slow(cls__event *e) {
  unsigned long st;
  cls__btoken *t = cls__event_take(e, &st);
  if (!t) return clsSuccess;
  clsError_t r = cls__b_token_wait(t, (e->flags & clsEventBlockingSync) != 0);
  if (r == clsSuccess) cls__event_mark_done(e, st);
  cls__b_token_release(t);
  return r;
}

clsError_t clsEventQuery(clsEvent_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_lookup(h);
  if (CLS__UNLIKELY(!e)) CLS__RETURN(CLS__BAD_EVENT(h));
  if (CLS__UNLIKELY(atomic_load_explicit(&e->cap.rec, memory_order_relaxed)))
    CLS__RETURN(cls__cap_event_use(&e->cap, "clsEventQuery"));
  unsigned long st = atomic_load_explicit(&e->state, memory_order_acquire);
  if (CLS__LIKELY(cls__ev_settled(st))) CLS__RETURN(clsSuccess);
  CLS__RETURN(cls__event_query_slow(e));
}

clsError_t clsEventSynchronize(clsEvent_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_lookup(h);
  if (CLS__UNLIKELY(!e)) CLS__RETURN(CLS__BAD_EVENT(h));
  if (CLS__UNLIKELY(atomic_load_explicit(&e->cap.rec, memory_order_relaxed)))
    CLS__RETURN(cls__cap_event_use(&e->cap, "clsEventSynchronize"));
  unsigned long st = atomic_load_explicit(&e->state, memory_order_acquire);
  if (CLS__LIKELY(cls__ev_settled(st))) CLS__RETURN(clsSuccess);
  CLS__RETURN(cls__event_sync_slow(e));
}

/* clsStreamWaitEvent once the handles are resolved: later work in `s`
 * waits for e's newest record as of this call; no effect when e was
 * never recorded.  Never blocks. */
static clsError_t cls__event_stream_wait(cls__event *e, cls__bstream *s) {
  unsigned long st = atomic_load_explicit(&e->state, memory_order_acquire);
  if (!(st & CLS__EV_RECORDED)) return clsSuccess; /* no effect */
  /* A record known complete still reaches the backend: on the legacy
   * stream a wait orders after the blocking streams' work. */
  unsigned long st2 = cls__event_lock(e);
  cls__btoken *t = e->tok;
  cls__b_token_retain(t);
  cls__event_unlock(e, st2);
  clsError_t r = cls__b_stream_wait_token(s, t);
  cls__b_token_release(t);
  return r;
}

/* A stream function, here because it changes no stream: it reads the
 * event's state and hands its token to the backend. */
clsError_t clsStreamWaitEvent(clsStream_t h, clsEvent_t ev, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  cls__event *e = cls__event_lookup(ev);
  if (!e)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "event %p is not a live event", (void *)ev));
  if (flags != 0)
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "flags must be 0, not 0x%x", flags));
  int dev;
  cls__bstream *b;
  clsError_t r = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (r != clsSuccess) CLS__RETURN(r);
  if ((CLS__CAPTURING() ||
       atomic_load_explicit(&e->cap.rec, memory_order_relaxed)) &&
      cls__cap_wait(h, b, &e->cap,
                    (atomic_load(&e->state) & CLS__EV_RECORDED) != 0, &r))
    CLS__RETURN(r);
  CLS__RETURN(cls__event_stream_wait(e, b));
}

/* The token of a timed, recorded event (retained; NULL when the event is
 * not one), with the reason it is not. */
static clsError_t cls__timed_event(clsEvent_t h, const char *which,
                                   cls__event **out, cls__btoken **tok) {
  cls__event *e = cls__event_lookup(h);
  if (!e) return CLS__BAD_EVENT(h);
  if (e->flags & clsEventDisableTiming)
    return cls__reason(clsErrorInvalidResourceHandle,
                       "%s event was created with clsEventDisableTiming",
                       which);
  unsigned long st = cls__event_lock(e);
  cls__btoken *t = e->tok;
  cls__b_token_retain(t);
  cls__event_unlock(e, st);
  if (!(st & CLS__EV_RECORDED))
    return cls__reason(clsErrorInvalidResourceHandle,
                       "%s event was never recorded", which);
  /* A timed record always has a token (backend.h). */
  *out = e;
  *tok = t;
  return clsSuccess;
}

clsError_t clsEventElapsedTime(float *ms, clsEvent_t start, clsEvent_t end) {
  CLS__NOT_IN_HOST_FN();
  if (!ms) CLS__RETURN(cls__reason(clsErrorInvalidValue, "ms is NULL"));
  cls__event *a = NULL, *b = NULL;
  cls__btoken *ta = NULL, *tb = NULL;
  clsError_t r = cls__timed_event(start, "the start", &a, &ta);
  if (r == clsSuccess) r = cls__timed_event(end, "the end", &b, &tb);
  if (r == clsSuccess && a->dev != b->dev)
    r = cls__reason(clsErrorInvalidResourceHandle,
                    "the events belong to devices %d and %d", a->dev, b->dev);
  if (r == clsSuccess && (!ta || !tb))
    r = cls__reason(clsErrorInvalidResourceHandle,
                    "a timed event's record has no end time");
  if (r == clsSuccess) r = cls__b_token_elapsed(ms, ta, tb);
  cls__b_token_release(ta);
  cls__b_token_release(tb);
  CLS__RETURN(r);
}

/* ---- Native handles (native.c; docs/interop.md) ------------------------ */

clsError_t cls__event_native(clsEvent_t h, int *dev, cls__bevent **b,
                             cls__btoken **tok) {
  cls__event *e = cls__event_lookup(h);
  if (!e) return CLS__BAD_EVENT(h);
  unsigned long st;
  *tok = cls__event_take(e, &st);
  *dev = e->dev;
  *b = e->b;
  return clsSuccess;
}

clsError_t cls__event_import(clsEvent_t *out, unsigned flags, void *native) {
  clsError_t r = cls__event_create(out, flags);
  if (r != clsSuccess) return r;
  cls__event *e = cls__event_lookup(*out);
  cls__bevent *be = NULL;
  cls__btoken *t = NULL;
  int follows = 0;
  r = cls__b_event_import(e->dev, native, flags, &be, &t, &follows);
  if (r != clsSuccess) { /* undone quietly: the reason stays the import's */
    cls__handle_retire(CLS__KIND_EVENT, (uintptr_t)*out);
    cls__b_event_destroy(e->b);
    free(e);
    *out = NULL;
    return r;
  }
  if (be) { /* the program's event replaces the one made above */
    cls__b_event_destroy(e->b);
    e->b = be;
  }
  if (follows) atomic_store_explicit(&e->follows, 1, memory_order_relaxed);
  cls__event_record(e, t, 0);
  return clsSuccess;
}

void cls__event_follow(clsEvent_t h, cls__btoken *t) {
  cls__event *e = cls__event_lookup(h);
  if (!e) {
    cls__b_token_release(t);
    return;
  }
  atomic_store_explicit(&e->follows, 1, memory_order_relaxed);
  /* Never recorded by clstream: from now on it stands for whatever the
   * program records on it (as a fresh record, without DONE). */
  unsigned long st = cls__event_lock(e);
  cls__btoken *old = NULL;
  if (!(st & CLS__EV_RECORDED) || !e->tok) {
    old = e->tok;
    e->tok = t;
    t = NULL;
    st = ((st & ~(CLS__EV_GEN - 1)) + CLS__EV_GEN) | CLS__EV_RECORDED;
  }
  st &= ~CLS__EV_DONE;
  cls__event_unlock(e, st);
  cls__b_token_release(old);
  cls__b_token_release(t);
}
