/* Stream capture: which streams capture, into which graph, and the rules
 * CUDA 13 applies to them (docs/semantics.md, "Stream capture and
 * graphs").
 *
 * A capture begins on one stream (its origin) and grows to every stream
 * that waits on an event recorded in it (a fork); each such stream is a
 * member with a tail: the nodes its next work runs after.  Work issued to
 * a member becomes a node after the tail and the new tail; an event
 * recorded in a member keeps a copy of the tail, which a wait adds to the
 * waiting stream's tail (a join).  The capture ends on its origin, when
 * every member's tail has been joined back into it.
 *
 * State: the members, in one list under cls__cap_lock, and their count in
 * cls__cap_live, which every call that issues work reads (CLS__CAPTURING):
 * while it is 0 no hook is called.  A capture is freed when its members
 * leave (EndCapture on the origin, or the origin's destruction).  The
 * lock is a leaf: nothing else is taken under it but the handle table's
 * and a graph's node list of a capture, which nothing else can reach. */
#include "capture.h"

#include "device.h"
#include "stream_resolve.h"

#include <stdlib.h>
#include <string.h>

atomic_int cls__cap_live;
pthread_mutex_t cls__cap_lock = PTHREAD_MUTEX_INITIALIZER;
cls__member *cls__members;
static atomic_ullong cls__cap_next_id = 1;
_Thread_local clsStreamCaptureMode cls__tl_mode = clsStreamCaptureModeGlobal;

cls__member *cls__member_of(cls__bstream *b) {
  for (cls__member *m = cls__members; m; m = m->next)
    if (m->b == b) return m;
  return NULL;
}

/* The capture with this id that has not ended, or NULL. */
cls__capture *cls__capture_by_id(unsigned long long id) {
  for (cls__member *m = cls__members; m; m = m->next)
    if (m->cap->id == id) return m->cap;
  return NULL;
}

/* Sets m's tail to nodes[0..n) (add = 0) or adds those not there yet. */
clsError_t cls__tail_put(cls__member *m, cls__node *const *nodes, size_t n,
                         int add) {
  if (!add) m->ntail = 0;
  if (m->ntail + n > m->captail) {
    size_t cap = m->ntail + n + 4;
    cls__node **t = realloc(m->tail, cap * sizeof *t);
    if (!t) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
    m->tail = t;
    m->captail = cap;
  }
  for (size_t i = 0; i < n; ++i) {
    int dup = 0;
    for (size_t j = 0; j < m->ntail && !dup; ++j) dup = m->tail[j] == nodes[i];
    if (!dup) m->tail[m->ntail++] = nodes[i];
  }
  return clsSuccess;
}

clsError_t cls__member_add(cls__bstream *b, cls__capture *cap, int blocking,
                           cls__member **out) {
  cls__member *m = calloc(1, sizeof *m);
  if (!m) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  m->b = b;
  m->cap = cap;
  m->blocking = blocking;
  m->next = cls__members;
  cls__members = m;
  cap->members++;
  atomic_fetch_add(&cls__cap_live, 1);
  *out = m;
  return clsSuccess;
}

/* Takes the member at *p out of the list and frees it. */
static void cls__member_unlink(cls__member **p) {
  cls__member *m = *p;
  *p = m->next;
  m->cap->members--;
  free(m->tail);
  free(m);
  atomic_fetch_sub(&cls__cap_live, 1);
}

void cls__member_remove(cls__member *m) {
  for (cls__member **p = &cls__members; *p; p = &(*p)->next)
    if (*p == m) {
      cls__member_unlink(p);
      return;
    }
}

/* Removes every member of cap and frees it (its graph too, unless
 * keep_graph). */
void cls__capture_end(cls__capture *cap, int keep_graph) {
  for (cls__member **p = &cls__members; *p;) {
    if ((*p)->cap == cap)
      cls__member_unlink(p);
    else
      p = &(*p)->next;
  }
  if (!keep_graph) cls__graph_free(cap->g);
  free(cap);
}

/* Whether the legacy stream of the current device would have to wait for
 * a capturing blocking stream; those captures are invalidated when
 * `invalidate` is set.  Under the lock. */
int cls__legacy_conflict(int invalidate) {
  int dev = cls__current, found = 0;
  for (cls__member *m = cls__members; m; m = m->next)
    if (m->blocking && m->cap->dev == dev && !m->cap->invalid) {
      found = 1;
      if (invalidate) m->cap->invalid = 1;
    }
  return found;
}

/* ---- The calls ------------------------------------------------------------
 */

static int cls__mode_ok(clsStreamCaptureMode mode) {
  return (unsigned)mode <= (unsigned)clsStreamCaptureModeRelaxed;
}

clsError_t clsStreamBeginCapture(clsStream_t h, clsStreamCaptureMode mode) {
  CLS__NOT_IN_HOST_FN();
  if (!cls__mode_ok(mode))
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "capture mode %d is not a clsStreamCaptureMode",
                            (int)mode));
  if (cls__is_legacy(h))
    CLS__RETURN(cls__reason(clsErrorStreamCaptureUnsupported,
                            "the legacy stream cannot capture"));
  int dev;
  unsigned flags;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, &flags, NULL);
  if (e != clsSuccess) CLS__RETURN(e);
  cls__capture *c = calloc(1, sizeof *c);
  if (!c || (e = cls__graph_new(&c->g)) != clsSuccess) {
    free(c);
    CLS__RETURN(e != clsSuccess ? e
                                : cls__reason(clsErrorMemoryAllocation,
                                              "out of host memory"));
  }
  c->id = atomic_fetch_add(&cls__cap_next_id, 1);
  c->dev = dev;
  c->mode = mode;
  c->thread = pthread_self();
  c->origin = b;
  c->g->dev = dev;
  cls__member *m;
  pthread_mutex_lock(&cls__cap_lock);
  if (cls__member_of(b))
    e = cls__reason(clsErrorIllegalState, "the stream is already capturing");
  else
    e = cls__member_add(b, c, !(flags & clsStreamNonBlocking), &m);
  pthread_mutex_unlock(&cls__cap_lock);
  if (e != clsSuccess) {
    cls__graph_free(c->g);
    free(c);
  }
  CLS__RETURN(e);
}

/* Whether every member's work is joined into the origin's tail. */
static clsError_t cls__joined(cls__capture *c, cls__member *origin) {
  size_t n = c->g->n;
  unsigned char *seen = calloc(n + 1, 1);
  cls__node **stack = malloc((n + 1) * sizeof *stack);
  clsError_t e = clsSuccess;
  if (!seen || !stack) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto out;
  }
  (void)cls__graph_walk(origin->tail, origin->ntail, seen, stack, NULL);
  for (cls__member *m = cls__members; m && e == clsSuccess; m = m->next)
    for (size_t i = 0; m->cap == c && m != origin && i < m->ntail; ++i)
      if (!seen[m->tail[i]->index])
        e = cls__reason(clsErrorStreamCaptureUnjoined,
                        "a stream that joined the capture has work the "
                        "origin stream never waited for");
out:
  free(seen);
  free(stack);
  return e;
}

clsError_t clsStreamEndCapture(clsStream_t h, clsGraph_t *graph) {
  CLS__NOT_IN_HOST_FN();
  if (!graph) CLS__RETURN(cls__reason(clsErrorInvalidValue, "graph is NULL"));
  if (cls__is_legacy(h))
    CLS__RETURN(cls__reason(clsErrorIllegalState,
                            "the legacy stream is never capturing"));
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e != clsSuccess) CLS__RETURN(e);
  pthread_mutex_lock(&cls__cap_lock);
  cls__member *m = cls__member_of(b);
  cls__capture *c = m ? m->cap : NULL;
  if (!m) {
    e = cls__reason(clsErrorIllegalState, "the stream is not capturing");
  } else if (c->mode != clsStreamCaptureModeRelaxed &&
             !pthread_equal(c->thread, pthread_self())) {
    e = cls__reason(clsErrorStreamCaptureWrongThread,
                    "a %s capture must end on the thread that began it",
                    c->mode == clsStreamCaptureModeGlobal ? "Global"
                                                          : "ThreadLocal");
  } else if (c->origin != b) {
    c->invalid = 1;
    *graph = NULL;
    e = cls__reason(clsErrorStreamCaptureUnmatched,
                    "the capture began on another stream; it is "
                    "invalidated");
  } else if (c->invalid) {
    *graph = NULL;
    cls__capture_end(c, 0);
    e = cls__reason(clsErrorStreamCaptureInvalidated,
                    "the capture was invalidated");
  } else if ((e = cls__joined(c, m)) != clsSuccess) {
    *graph = NULL;
    cls__capture_end(c, 0);
  } else {
    cls__graph *g = c->g;
    cls__capture_end(c, 1);
    e = cls__graph_publish(g);
    if (e == clsSuccess)
      *graph = (clsGraph_t)g->handle;
    else
      cls__graph_free(g);
  }
  pthread_mutex_unlock(&cls__cap_lock);
  CLS__RETURN(e);
}

/* IsCapturing and GetCaptureInfo. */
static clsError_t cls__capture_info(clsStream_t h,
                                    clsStreamCaptureStatus *status,
                                    unsigned long long *id) {
  if (!status) return cls__reason(clsErrorInvalidValue, "status is NULL");
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(h, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  *status = clsStreamCaptureStatusNone;
  if (!CLS__CAPTURING()) return clsSuccess;
  pthread_mutex_lock(&cls__cap_lock);
  if (cls__is_legacy(h)) {
    if (cls__legacy_conflict(0))
      e = cls__reason(clsErrorStreamCaptureImplicit,
                      "the legacy stream would wait for a blocking stream "
                      "that is capturing");
  } else {
    cls__member *m = cls__member_of(b);
    if (m) {
      *status = m->cap->invalid ? clsStreamCaptureStatusInvalidated
                                : clsStreamCaptureStatusActive;
      if (id) *id = m->cap->id;
    }
  }
  pthread_mutex_unlock(&cls__cap_lock);
  return e;
}

clsError_t clsStreamIsCapturing(clsStream_t s, clsStreamCaptureStatus *status) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__capture_info(s, status, NULL));
}

clsError_t clsStreamGetCaptureInfo(clsStream_t s,
                                   clsStreamCaptureStatus *status,
                                   unsigned long long *id) {
  CLS__NOT_IN_HOST_FN();
  CLS__RETURN(cls__capture_info(s, status, id));
}

clsError_t clsThreadExchangeStreamCaptureMode(clsStreamCaptureMode *mode) {
  CLS__NOT_IN_HOST_FN();
  if (!mode) CLS__RETURN(cls__reason(clsErrorInvalidValue, "mode is NULL"));
  if (!cls__mode_ok(*mode))
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "capture mode %d is not a clsStreamCaptureMode",
                            (int)*mode));
  clsStreamCaptureMode old = cls__tl_mode;
  cls__tl_mode = *mode;
  *mode = old;
  CLS__RETURN(clsSuccess);
}
