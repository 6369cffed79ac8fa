/* OpenCL backend: the kernel-cache guard, for drivers whose kernel cache
 * aborts when one kernel runs with two grid widths at once (facts.c,
 * kc_guard: PoCL 4.x and 5.x).
 *
 * Those drivers load one work-group function per (kernel, block, widest
 * grid it serves).  A launch takes a reference on the first loaded entry
 * of its kernel and block that is wide enough, or loads a new, wider one
 * and puts it first; a finished launch drops a reference on the first
 * entry of its kernel and block, whatever its width.  While every launch
 * in flight holds the first such entry, the two agree.  They part only
 * when a launch wider than any before it starts while narrower ones,
 * holding the older entry, still run: the new entry is first, and it
 * gets their releases as well as its own (docs/repro/pocl5_dlhandle.c).
 *
 * So a launch whose grid is wider than any earlier launch of a kernel of
 * the same name with the same block waits, on the device (its wait
 * list), for the launches of that kernel and block still in flight, and
 * every later launch of them, narrower or not, waits for that widening
 * launch until it is done (else one prepared ahead of it, on another
 * queue, would take the older entry; PoCL 5.0 aborted so in test_kcguard
 * on the H200).  Once it is done its entry comes first for good.  The width is
 * the driver's: the widest of global[0], global[1] and local[2] squared (its
 * pocl_cmd_max_grid_dim_width).  Kernels are told apart by name only,
 * which may order two kernels of one name in different modules: never
 * wrongly, only more than needed.  Launches enqueued in another context
 * (CLSTREAM_CONTEXT_PER_DEVICE) are not waited for.  A grid wider than
 * every earlier one is a rare event per kernel and block (the widths only
 * grow), so the waits it adds are few and short-lived.
 *
 * The guard's lock is taken under stream.lock and held across the
 * launch's enqueue (so that no launch of the same key slips between the
 * check and the enqueue), around function.lock; under it the guard only
 * queries, retains and releases events. */
#include "command.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct cls__kc_key {
  char *name;
  size_t local[3];
  size_t widest;    /* the widest grid launched so far */
  size_t pending;   /* the width of the launch between enter and leave */
  cl_event *flight; /* launches maybe still running, retained */
  cl_context *ctx;  /* each one's context */
  unsigned n, cap;
  cl_event widening; /* the last launch that widened, until it is done */
  cl_context wctx;   /* its context */
  struct cls__kc_key *next;
} cls__kc_key;

static pthread_mutex_t cls__kc_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__kc_key *cls__kc_keys;

static size_t cls__kc_width(const size_t global[3], const size_t local[3]) {
  size_t w = global[0] > global[1] ? global[0] : global[1];
  size_t z = local[2] * local[2];
  return w > z ? w : z;
}

/* Drops the launches that are known to be over (one driver query each).
 * Called only where the list is read (a widening launch) or full, so that
 * a launch costs no query per launch in flight: a graph replay issuing
 * a thousand launches at once made every launch query all the earlier
 * ones.  Under the lock. */
static void cls__kc_prune(cls__kc_key *k) {
  unsigned j = 0;
  for (unsigned i = 0; i < k->n; ++i) {
    cl_int st = CL_COMPLETE;
    if (clGetEventInfo(k->flight[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                       sizeof st, &st, NULL) != CL_SUCCESS ||
        st <= CL_COMPLETE) {
      clReleaseEvent(k->flight[i]);
      continue;
    }
    k->flight[j] = k->flight[i];
    k->ctx[j++] = k->ctx[i];
  }
  k->n = j;
}

static cls__kc_key *cls__kc_find(const char *name, const size_t local[3]) {
  for (cls__kc_key *k = cls__kc_keys; k; k = k->next)
    if (!memcmp(k->local, local, sizeof k->local) && !strcmp(k->name, name))
      return k;
  cls__kc_key *k = calloc(1, sizeof *k);
  char *copy = k ? strdup(name) : NULL;
  if (!copy) {
    free(k);
    return NULL;
  }
  k->name = copy;
  memcpy(k->local, local, sizeof k->local);
  k->next = cls__kc_keys;
  cls__kc_keys = k;
  return k;
}

void *cls__kc_enter(cls__bstream *s, const char *name, const size_t global[3],
                    const size_t local[3], cls__ocl_batch *b) {
  pthread_mutex_lock(&cls__kc_lock);
  cls__kc_key *k = cls__kc_find(name, local);
  if (!k) return NULL; /* out of memory: unguarded, the lock is kept */
  /* Every launch waits for the last widening one until it is done: before
   * that, a launch prepared ahead of it would take the older entry, which
   * the widening one's new entry then shadows for the release. */
  if (k->widening) {
    cl_int st = CL_COMPLETE;
    if (clGetEventInfo(k->widening, CL_EVENT_COMMAND_EXECUTION_STATUS,
                       sizeof st, &st, NULL) != CL_SUCCESS ||
        st <= CL_COMPLETE) {
      clReleaseEvent(k->widening);
      k->widening = NULL;
    } else if (k->wctx == s->dev->ctx) {
      clRetainEvent(k->widening);
      cls__ocl_batch_add(b, k->widening, 1);
    }
  }
  size_t w = cls__kc_width(global, local);
  if (w > k->widest) {
    cls__kc_prune(k);
    for (unsigned i = 0; i < k->n; ++i) {
      if (k->ctx[i] != s->dev->ctx) continue;
      clRetainEvent(k->flight[i]);
      cls__ocl_batch_add(b, k->flight[i], 1);
    }
  }
  k->pending = w; /* widest moves only once the launch is enqueued */
  return k;
}

void cls__kc_leave(void *key, cls__bstream *s, cl_event ev) {
  cls__kc_key *k = key;
  if (k && ev && k->pending > k->widest) {
    k->widest = k->pending;
    clRetainEvent(ev);
    if (k->widening) clReleaseEvent(k->widening);
    k->widening = ev;
    k->wctx = s->dev->ctx;
  }
  if (k && ev) {
    /* A full list is pruned, and grown only if more than half of it is
     * still in flight, so that each prune pays for itself over the
     * launches that fill the room it made. */
    if (k->n == k->cap) {
      cls__kc_prune(k);
      if (k->cap == 0 || k->n > k->cap / 2) {
        unsigned cap = k->cap ? 2 * k->cap : 8;
        cl_event *f = realloc(k->flight, cap * sizeof *f);
        if (f) k->flight = f;
        cl_context *c = f ? realloc(k->ctx, cap * sizeof *c) : NULL;
        if (c) {
          k->ctx = c;
          k->cap = cap;
        }
      }
    }
    /* Out of memory the launch goes unlisted: a later, wider one will not
     * wait for it (the driver may then abort, as without the guard). */
    if (k->n < k->cap) {
      clRetainEvent(ev);
      k->flight[k->n] = ev;
      k->ctx[k->n++] = s->dev->ctx;
    }
  }
  pthread_mutex_unlock(&cls__kc_lock);
}
