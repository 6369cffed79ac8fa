/* The capture hooks (graph.h): the one place where a call that issues work
 * to a stream, or that a capture refuses, meets the captures.  Each is
 * called only while CLS__CAPTURING() holds; capture.c keeps the state. */
#include "capture.h"

#include "device.h"
#include "stream_resolve.h"

#include <stdlib.h>
#include <string.h>

/* The one entry of every issue hook: returns 0 when `b` does not capture
 * (the lock is not held), 1 when the call is refused (*err; not held), 2
 * when it captures in a live capture (*m; the lock is held). */
static int cls__cap_enter(clsStream_t h, cls__bstream *b, cls__member **m,
                          clsError_t *err) {
  pthread_mutex_lock(&cls__cap_lock);
  if (cls__is_legacy(h)) {
    int conflict = cls__legacy_conflict(1);
    pthread_mutex_unlock(&cls__cap_lock);
    if (!conflict) return 0;
    *err = cls__reason(clsErrorStreamCaptureImplicit,
                       "work on the legacy stream would wait for a blocking "
                       "stream that is capturing; that capture is "
                       "invalidated");
    return 1;
  }
  *m = cls__member_of(b);
  if (!*m) {
    pthread_mutex_unlock(&cls__cap_lock);
    return 0;
  }
  if ((*m)->cap->invalid) {
    pthread_mutex_unlock(&cls__cap_lock);
    *err = cls__reason(clsErrorStreamCaptureInvalidated,
                       "the stream's capture was invalidated");
    return 1;
  }
  return 2;
}

/* Adds a node of `kind` after m's tail and makes it the tail (under the
 * lock). */
static clsError_t cls__cap_node(cls__member *m, int kind, cls__node **n) {
  cls__graph *g = m->cap->g;
  clsError_t e = cls__graph_add(g, kind, m->tail, m->ntail, n);
  if (e == clsSuccess) e = cls__tail_put(m, n, 1, 0);
  if (e != clsSuccess && g->n && g->nodes[g->n - 1] == *n)
    cls__graph_drop_last(g);
  g->dev = m->cap->dev;
  return e;
}

int cls__cap_kernel(clsStream_t h, cls__bstream *b, clsFunction_t f,
                    cls__bfunction *bf, clsDim3 grid, clsDim3 block,
                    void **args, size_t shmem, clsError_t *err) {
  cls__member *m;
  int r = cls__cap_enter(h, b, &m, err);
  if (r != 2) return r;
  cls__kargs a;
  cls__node *n = NULL;
  *err = cls__kargs_copy(bf, args, &a);
  if (*err == clsSuccess &&
      (*err = cls__cap_node(m, CLS__NODE_EMPTY, &n)) != clsSuccess)
    cls__kargs_free(&a);
  if (*err == clsSuccess) {
    n->kind = CLS__NODE_KERNEL;
    n->u.k.fn = (uintptr_t)f;
    n->u.k.bf = bf;
    n->u.k.grid = grid;
    n->u.k.block = block;
    n->u.k.shmem = shmem;
    n->u.k.args = a;
  }
  pthread_mutex_unlock(&cls__cap_lock);
  return 1;
}

int cls__cap_copy(clsStream_t h, cls__bstream *b, void *dst, const void *src,
                  size_t n, clsMemcpyKind kind, int pageable_dst,
                  int pageable_src, int across, clsError_t *err) {
  cls__member *m;
  int r = cls__cap_enter(h, b, &m, err);
  if (r != 2) return r;
  cls__node *node;
  if (across) {
    m->cap->invalid = 1;
    *err = cls__reason(clsErrorStreamCaptureUnsupported,
                       "a copy staged between two OpenCL platforms cannot be "
                       "captured; the capture is invalidated");
  } else if ((*err = cls__cap_node(m, CLS__NODE_COPY, &node)) == clsSuccess) {
    cls__copy_node_set(node, dst, src, n, kind, pageable_dst, pageable_src);
  }
  pthread_mutex_unlock(&cls__cap_lock);
  return 1;
}

int cls__cap_set(clsStream_t h, cls__bstream *b, void *dst, int value, size_t n,
                 clsError_t *err) {
  cls__member *m;
  int r = cls__cap_enter(h, b, &m, err);
  if (r != 2) return r;
  cls__node *node;
  if ((*err = cls__cap_node(m, CLS__NODE_SET, &node)) == clsSuccess) {
    node->u.m.dst = dst;
    node->u.m.value = value;
    node->u.m.n = n;
    node->u.m.pitch = n;
    node->u.m.rows = 1;
  }
  pthread_mutex_unlock(&cls__cap_lock);
  return 1;
}

int cls__cap_host(clsStream_t h, cls__bstream *b, clsHostFn_t fn,
                  clsStreamCallback_t cb, void *user, clsError_t *err) {
  cls__member *m;
  int r = cls__cap_enter(h, b, &m, err);
  if (r != 2) return r;
  cls__node *node;
  if ((*err = cls__cap_node(m, CLS__NODE_HOST, &node)) == clsSuccess) {
    node->u.h.fn = fn;
    node->u.h.cb = cb;
    node->u.h.user = user;
    node->u.h.stream = h;
  }
  pthread_mutex_unlock(&cls__cap_lock);
  return 1;
}

int cls__cap_refuse(clsStream_t h, cls__bstream *b, const char *what,
                    clsError_t *err) {
  cls__member *m;
  int r = cls__cap_enter(h, b, &m, err);
  if (r != 2) return r;
  m->cap->invalid = 1;
  pthread_mutex_unlock(&cls__cap_lock);
  *err = cls__reason(clsErrorStreamCaptureUnsupported,
                     "%s is not permitted on a capturing stream; the "
                     "capture is invalidated",
                     what);
  return 1;
}

clsError_t cls__cap_unsafe(const char *what) {
  clsStreamCaptureMode mine = cls__tl_mode;
  if (mine == clsStreamCaptureModeRelaxed) return clsSuccess;
  pthread_t self = pthread_self();
  int found = 0;
  pthread_mutex_lock(&cls__cap_lock);
  for (cls__member *m = cls__members; m; m = m->next) {
    cls__capture *c = m->cap;
    if (m->b != c->origin || c->invalid) continue;
    int own = pthread_equal(c->thread, self);
    if ((own && c->mode != clsStreamCaptureModeRelaxed) ||
        (!own && c->mode == clsStreamCaptureModeGlobal &&
         mine == clsStreamCaptureModeGlobal)) {
      c->invalid = 1;
      found = 1;
    }
  }
  pthread_mutex_unlock(&cls__cap_lock);
  if (!found) return clsSuccess;
  return cls__reason(clsErrorStreamCaptureUnsupported,
                     "%s is not permitted while a capture forbids it (see "
                     "clsThreadExchangeStreamCaptureMode); the capture is "
                     "invalidated",
                     what);
}

clsError_t cls__cap_device_sync(int dev) {
  int found = 0;
  pthread_mutex_lock(&cls__cap_lock);
  for (cls__member *m = cls__members; m; m = m->next)
    if (m->cap->dev == dev && !m->cap->invalid) {
      m->cap->invalid = 1;
      found = 1;
    }
  pthread_mutex_unlock(&cls__cap_lock);
  if (!found) return clsSuccess;
  return cls__reason(clsErrorStreamCaptureUnsupported,
                     "clsDeviceSynchronize is not permitted while a stream "
                     "of device %d captures; the capture is invalidated",
                     dev);
}

/* ---- Events in a capture ---------------------------------------------------
 */

/* Under the lock. */
static void cls__evcap_clear(cls__evcap *ec) {
  free(ec->nodes);
  ec->nodes = NULL;
  ec->n = 0;
  atomic_store_explicit(&ec->rec, 0, memory_order_relaxed);
}

int cls__cap_record(clsStream_t h, cls__bstream *b, cls__evcap *ec,
                    clsError_t *err) {
  cls__member *m;
  int r = cls__cap_enter(h, b, &m, err);
  if (r != 2) return r;
  cls__node **copy = NULL;
  if (m->ntail && !(copy = malloc(m->ntail * sizeof *copy))) {
    *err = cls__reason(clsErrorMemoryAllocation, "out of host memory");
  } else {
    if (m->ntail) memcpy(copy, m->tail, m->ntail * sizeof *copy);
    cls__evcap_clear(ec);
    ec->nodes = copy;
    ec->n = m->ntail;
    ec->id = m->cap->id;
    atomic_store_explicit(&ec->rec, 1, memory_order_relaxed);
    *err = clsSuccess;
  }
  pthread_mutex_unlock(&cls__cap_lock);
  return 1;
}

void cls__cap_event_forget(cls__evcap *ec) {
  pthread_mutex_lock(&cls__cap_lock);
  cls__evcap_clear(ec);
  pthread_mutex_unlock(&cls__cap_lock);
}

clsError_t cls__cap_event_use(cls__evcap *ec, const char *what) {
  pthread_mutex_lock(&cls__cap_lock);
  if (!atomic_load_explicit(&ec->rec, memory_order_relaxed)) {
    pthread_mutex_unlock(&cls__cap_lock);
    return clsSuccess; /* recorded again meanwhile */
  }
  cls__capture *c = cls__capture_by_id(ec->id);
  if (c) c->invalid = 1;
  pthread_mutex_unlock(&cls__cap_lock);
  if (c)
    return cls__reason(clsErrorCapturedEvent,
                       "%s of an event recorded in a capture that is still "
                       "on; the capture is invalidated",
                       what);
  return cls__reason(clsErrorInvalidValue,
                     "%s of an event whose last record was in a capture "
                     "that has ended; record it again first",
                     what);
}

int cls__cap_wait(clsStream_t h, cls__bstream *b, cls__evcap *ec, int recorded,
                  clsError_t *err) {
  unsigned flags = clsStreamDefault;
  int dev;
  cls__bstream *rb;
  if (!cls__is_legacy(h)) (void)cls__stream_resolve(h, &dev, &rb, &flags, NULL);
  pthread_mutex_lock(&cls__cap_lock);
  cls__member *m = cls__is_legacy(h) ? NULL : cls__member_of(b);
  int rec = atomic_load_explicit(&ec->rec, memory_order_relaxed);
  int handled = 1;
  *err = clsSuccess;
  if (rec) {
    cls__capture *c = cls__capture_by_id(ec->id);
    if (!c) {
      *err = cls__reason(clsErrorInvalidValue,
                         "the event's last record was in a capture that has "
                         "ended; record it again first");
    } else if (cls__is_legacy(h)) {
      c->invalid = 1;
      *err = cls__reason(clsErrorStreamCaptureImplicit,
                         "the legacy stream cannot join a capture; the "
                         "capture is invalidated");
    } else if (m && m->cap != c) {
      *err = cls__reason(clsErrorStreamCaptureMerge,
                         "the stream captures into another capture than the "
                         "one the event was recorded in");
    } else if (c->invalid) {
      *err = cls__reason(clsErrorStreamCaptureInvalidated,
                         "the event's capture was invalidated");
    } else if (m) {
      *err = cls__tail_put(m, ec->nodes, ec->n, 1); /* a join */
    } else if ((*err = cls__member_add(b, c, !(flags & clsStreamNonBlocking),
                                       &m)) == clsSuccess) {
      *err = cls__tail_put(m, ec->nodes, ec->n, 0); /* a fork */
    }
  } else if (cls__is_legacy(h)) {
    if (cls__legacy_conflict(1))
      *err = cls__reason(clsErrorStreamCaptureImplicit,
                         "a wait on the legacy stream would order it after a "
                         "capturing blocking stream; the capture is "
                         "invalidated");
    else
      handled = 0;
  } else if (!m) {
    handled = 0;
  } else if (m->cap->invalid) {
    *err = cls__reason(clsErrorStreamCaptureInvalidated,
                       "the stream's capture was invalidated");
  } else if (recorded) {
    m->cap->invalid = 1;
    *err = cls__reason(clsErrorStreamCaptureIsolation,
                       "a capturing stream cannot wait for an event recorded "
                       "outside the capture; the capture is invalidated");
  }
  pthread_mutex_unlock(&cls__cap_lock);
  return handled;
}

void cls__cap_stream_gone(cls__bstream *b) {
  pthread_mutex_lock(&cls__cap_lock);
  cls__member *m = cls__member_of(b);
  if (m && m->cap->origin == b) {
    cls__capture_end(m->cap, 0);
  } else if (m) {
    m->cap->invalid = 1;
    cls__member_remove(m);
  }
  pthread_mutex_unlock(&cls__cap_lock);
}
