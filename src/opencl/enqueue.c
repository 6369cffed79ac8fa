/* OpenCL backend: the enqueue bracket (cls__ocl_begin / cls__ocl_end):
 * the wait list of a stream's next command (its clsStreamWaitEvent waits
 * and the legacy stream's implicit synchronization, gathered from the
 * device's busy list of blocking streams and its orphans), naming a
 * stream's position (cls__ocl_position) and the stream's newest-command
 * fields.  Owns stream.lock while a command is enqueued, stream.last_lock
 * (newest command, unnamed count, waits) and device.busy_lock: it is the
 * one writer of the busy list and of the orphans (the pending work of
 * destroyed streams), under one rule (cls__orphan_stays).  What a gather
 * cannot wait for under these locks it sets aside in the batch
 * (batch.c), to be waited for once they are dropped. */
#include "enqueue.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- The busy list and the orphans ------------------------------------ */

/* This file is the one writer of the device's busy list (busy, nbusy,
 * capbusy, nblocking, busy_any) and of its orphans (orphans, norphans,
 * caporphans), all under device.busy_lock. */

/* The one rule for the orphan list, the pending work of destroyed
 * streams (their newest commands and the waits no command consumed): a
 * command of status st joins it unless it is complete, and leaves it
 * once it is complete, or once it failed and a device synchronization
 * waited for it (`synced`), which reported the failure.  Until then a
 * failed orphan stays, for clsDeviceSynchronize to report. */
static int cls__orphan_stays(cl_int st, int synced) {
  return st > CL_COMPLETE || (st < 0 && !synced);
}

/* Keeps ev (retained; the caller's reference moves) visible to legacy
 * work and device synchronization after its stream is gone.  Under
 * d->busy_lock.  Out of host memory it returns 0 and the caller keeps
 * its reference: it never waits here, holding the lock
 * (cls__ocl_orphan_stream reserves room first, or waits with no lock). */
static int cls__orphan_add(cls__ocl_device *d, cl_event ev, int blocking) {
  CLS__ASSERT_MUTEX_HELD(&d->busy_lock);
  if (!cls__ocl_grow((void **)&d->orphans, &d->caporphans, d->norphans + 1,
                     sizeof *d->orphans))
    return 0;
  d->orphans[d->norphans].ev = ev;
  d->orphans[d->norphans].blocking = blocking;
  d->norphans++;
  atomic_store_explicit(&d->busy_any, 1, memory_order_release);
  return 1;
}

int cls__ocl_busy_reserve(cls__ocl_device *d) {
  /* Room in the busy list for every blocking stream, so that listing one
   * later (while enqueueing) cannot fail. */
  pthread_mutex_lock(&d->busy_lock);
  int ok = cls__ocl_grow((void **)&d->busy, &d->capbusy, d->nblocking + 1,
                         sizeof *d->busy);
  if (ok) d->nblocking++;
  pthread_mutex_unlock(&d->busy_lock);
  return ok;
}

/* Lists s (whose in_busy the caller just set) in its device's busy list,
 * which has room for every blocking stream (cls__stream_new). */
void cls__ocl_busy_add(cls__bstream *s) {
  cls__ocl_device *d = s->dev;
  pthread_mutex_lock(&d->busy_lock);
  d->busy[d->nbusy++] = s;
  atomic_store_explicit(&d->busy_any, 1, memory_order_release);
  pthread_mutex_unlock(&d->busy_lock);
}

void cls__ocl_orphan_stream(cls__bstream *s) {
  cls__ocl_device *d = s->dev;
  /* The stream's pending work stays visible to the legacy stream and to
   * device synchronization as orphans.  Room for them is made first: out
   * of host memory (or with the position unnamed: not even a barrier
   * could be enqueued), the work is waited for instead, with no lock
   * held, rather than under busy_lock.  Nobody enqueues
   * on a stream being destroyed, so its waits and newest command hold
   * still meanwhile. */
  cls__lock_take(&s->last_lock);
  cls__ocl_position(s);
  int unnamed = s->last.unnamed != 0;
  cls__lock_give(&s->last_lock);
  pthread_mutex_lock(&d->busy_lock);
  if (unnamed ||
      !cls__ocl_grow((void **)&d->orphans, &d->caporphans,
                     d->norphans + s->nwaits + 1, sizeof *d->orphans)) {
    pthread_mutex_unlock(&d->busy_lock);
    clFinish(s->q);
    for (unsigned i = 0; i < s->nwaits; ++i) clWaitForEvents(1, &s->waits[i]);
    pthread_mutex_lock(&d->busy_lock);
  }
  /* Waits that no command consumed are pending work of the stream too:
   * the legacy stream and device synchronization still wait for them.
   * Failed work stays until clsDeviceSynchronize has reported it (but for
   * failed work that found no room above: it is dropped). */
  for (unsigned i = 0; i < s->nwaits; ++i) {
    cl_event w = s->waits[i];
    if (!cls__orphan_stays(cls__ocl_status(w), 0) ||
        !cls__orphan_add(d, w, s->blocking))
      clReleaseEvent(w);
  }
  free(s->waits);
  for (unsigned i = 0; i < d->nbusy; ++i)
    if (d->busy[i] == s) {
      d->busy[i] = d->busy[--d->nbusy];
      break;
    }
  if (s->blocking) d->nblocking--;
  /* The orphan list takes a driver reference of its own (the stream may
   * hold last.ev through a record's token, which its caller releases). */
  cl_event last = s->last.ev;
  if (last && s->last_tok) clRetainEvent(last);
  if (last) {
    cls__lock_take(&s->last_lock); /* busy_lock -> last_lock: in order */
    cl_int st = cls__last_status(s);
    cls__lock_give(&s->last_lock);
    if (!cls__orphan_stays(st, 0) || !cls__orphan_add(d, last, s->blocking))
      clReleaseEvent(last);
  }
  pthread_mutex_unlock(&d->busy_lock);
}

void cls__ocl_orphans_settle(cls__ocl_device *d) {
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->norphans;) {
    if (!cls__orphan_stays(cls__ocl_status(d->orphans[i].ev), 1)) {
      clReleaseEvent(d->orphans[i].ev);
      d->orphans[i] = d->orphans[--d->norphans];
    } else {
      ++i;
    }
  }
  pthread_mutex_unlock(&d->busy_lock);
}

/* ---- Gathers --------------------------------------------------------- */

/* Folds execution status st into *worst: a failure beats "not yet"
 * (> 0), which beats CL_COMPLETE. */
static void cls__fold_status(cl_int *worst, cl_int st) {
  if (st < 0 ? *worst >= 0 : st > CL_COMPLETE && *worst == CL_COMPLETE)
    *worst = st;
}

/* Adds to b (retained; b may be NULL, to look only) t's newest command
 * and its waits that no command has consumed yet, where not complete;
 * returns their worst status (CL_COMPLETE when there are none).  A failed
 * command counts as not complete: work ordered after it fails too,
 * whether it was enqueued before or after the failure happened.  Under
 * t->last_lock. */
cl_int cls__ocl_gather_stream(cls__bstream *t, cls__ocl_batch *b) {
  CLS__ASSERT_HELD(&t->last_lock);
  cl_int worst = CL_COMPLETE;
  if (b)
    cls__ocl_position(t);
  else
    cls__ocl_look(t);
  if (CLS__UNLIKELY(t->last.unnamed)) {
    /* Not even a barrier could be enqueued (out of resources): the queue
     * itself is finished rather than the order lost, but no longer here,
     * under the locks: b sets it aside for cls__ocl_batch_unstall, once
     * the caller has dropped them.  Not known done either way (t stays
     * in the busy list until a gather names its position). */
    if (b) cls__ocl_batch_stall_queue(b, t->q);
    cls__fold_status(&worst, CL_SUBMITTED);
  }
  /* Only read here: cls__last_status is what learns completion. */
  cl_int st = cls__last_status(t);
  if (st != CL_COMPLETE) {
    if (b && t->last.ev) {
      clRetainEvent(t->last.ev);
      cls__ocl_batch_push(b, t->last.ev);
    }
    cls__fold_status(&worst, st);
  }
  /* A clsStreamWaitEvent that no command has consumed yet is work of t
   * too (as CUDA has it: legacy work waits for it). */
  cls__fold_status(&worst, cls__ocl_waits_status(t, b));
  return worst;
}

cl_int cls__ocl_waits_status(cls__bstream *t, cls__ocl_batch *b) {
  CLS__ASSERT_HELD(&t->last_lock);
  cl_int worst = CL_COMPLETE;
  for (unsigned w = 0; w < t->nwaits; ++w) {
    cl_int st = cls__ocl_status(t->waits[w]);
    if (st != CL_COMPLETE) {
      if (b) {
        clRetainEvent(t->waits[w]);
        cls__ocl_batch_push(b, t->waits[w]);
      }
      cls__fold_status(&worst, st);
    }
  }
  /* Once all of them are complete, has_waits lets the hot paths skip
   * them. */
  if (worst == CL_COMPLETE && t->nwaits)
    atomic_store_explicit(&t->has_waits, 0, memory_order_release);
  return worst;
}

/* Adds to b (or, with b NULL, only looks at) the newest commands of the
 * device's blocking streams (and of destroyed blocking streams) that are
 * not yet complete, and drops those that are from the busy list: the cost
 * is proportional to the streams with unfinished work, and nothing (no
 * lock either) while busy_any says both lists are empty: a synchronize
 * or query of the legacy stream with no blocking work outstanding takes
 * only that load.  Returns their worst status, as cls__ocl_gather_stream
 * does. */
cl_int cls__ocl_gather_blocking(cls__ocl_device *d, cls__ocl_batch *b) {
  cl_int worst = CL_COMPLETE;
  if (!atomic_load_explicit(&d->busy_any, memory_order_acquire)) return worst;
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->nbusy;) {
    cls__bstream *t = d->busy[i];
    cls__lock_take(&t->last_lock);
    cl_int st = cls__ocl_gather_stream(t, b);
    /* A handed-out queue may get the program's work at any time: it stays
     * listed (docs/interop.md). */
    int keep = st != CL_COMPLETE || cls__pos_foreign(&t->last);
    cls__fold_status(&worst, st);
    if (!keep) t->in_busy = 0;
    cls__lock_give(&t->last_lock);
    if (keep)
      ++i;
    else
      d->busy[i] = d->busy[--d->nbusy];
  }
  for (unsigned i = 0; i < d->norphans;) {
    struct cls__ocl_orphan *o = &d->orphans[i];
    cl_int st = cls__ocl_status(o->ev);
    if (cls__orphan_stays(st, 0)) {
      if (o->blocking) {
        if (b) {
          clRetainEvent(o->ev);
          cls__ocl_batch_push(b, o->ev);
        }
        cls__fold_status(&worst, st);
      }
      ++i;
    } else {
      clReleaseEvent(o->ev);
      *o = d->orphans[--d->norphans];
    }
  }
  if (!d->nbusy && !d->norphans)
    atomic_store_explicit(&d->busy_any, 0, memory_order_relaxed);
  pthread_mutex_unlock(&d->busy_lock);
  return worst;
}

/* ---- The enqueue bracket ---------------------------------------------- */

/* Adds to b the legacy stream's pending work. */
static void cls__gather_legacy(cls__ocl_device *d, cls__ocl_batch *b) {
  if (!cls__ocl_legacy_pending(d)) return;
  cls__bstream *l = atomic_load_explicit(&d->legacy, memory_order_acquire);
  cls__lock_take(&l->last_lock);
  cls__ocl_gather_stream(l, b);
  cls__lock_give(&l->last_lock);
}

/* How often cls__begin_held gathers again after waiting for what a
 * gather set aside, before it waits under s->lock instead (the last
 * resort). */
#define CLS__STALL_ROUNDS 8

/* cls__ocl_begin once s->lock is held and cls__ocl_waits_any said there
 * may be something to wait for (gathering the legacy synchronization or
 * not). */
static void cls__begin_held(cls__bstream *s, cls__ocl_batch *b, int gather) {
  cls__ocl_batch_none(b);
  for (int round = 0;; ++round) {
    if (round) cls__lock_take(&s->lock);
    cls__ocl_batch_reset(b);
    /* Borrowed: cls__ocl_end releases them as consumed.  Gathering again,
     * those complete now are left out, so that each round gets further. */
    for (unsigned i = 0; i < s->nwaits; ++i)
      if (!round || cls__ocl_status(s->waits[i]) != CL_COMPLETE)
        cls__ocl_batch_add(b, s->waits[i], 0);
    b->npending = b->n;
    if (!gather)
      ;
    else if (s->role == CLS__ROLE_LEGACY)
      cls__ocl_gather_blocking(s->dev, b);
    else if (s->blocking)
      cls__gather_legacy(s->dev, b);
    if (CLS__LIKELY(!cls__ocl_batch_stalled(b))) break;
    if (round == CLS__STALL_ROUNDS) {
      /* The last resort (lock table): wait with s->lock held. */
      cls__ocl_batch_unstall(b);
      break;
    }
    /* A queue or an event the command must wait for could not go in its
     * wait list: drop s->lock, wait for it with no lock held, and gather
     * again (a driver wait never happens with a lock held). */
    for (cl_uint i = b->npending; i < b->n; ++i) clReleaseEvent(b->list[i]);
    if (b->list != b->small) free(b->list);
    cls__lock_give(&s->lock);
    cls__ocl_batch_unstall(b);
  }
  cls__ocl_batch_forget(b);
  if (b->n == 0) b->list = NULL; /* OpenCL wants NULL for an empty list */
}

void cls__ocl_begin_held(cls__bstream *s, cls__ocl_batch *b) {
  CLS__ASSERT_HELD(&s->lock);
  cls__begin_held(s, b, 1);
}

void cls__ocl_begin(cls__bstream *s, cls__ocl_batch *b) {
  cls__lock_take(&s->lock);
  if (CLS__LIKELY(!cls__ocl_waits_any(s, 1)))
    cls__ocl_batch_none(b);
  else
    cls__begin_held(s, b, 1);
}

void cls__ocl_begin_waits(cls__bstream *s, cls__ocl_batch *b) {
  cls__lock_take(&s->lock);
  if (CLS__LIKELY(!cls__ocl_waits_any(s, 0)))
    cls__ocl_batch_none(b);
  else
    cls__begin_held(s, b, 0);
}

/* Enqueueing is not a wait and queues are thread-safe, so this needs only
 * t->last_lock: a command of t racing it lands before the barrier (which
 * then covers it too) or after it (and t->last.unnamed counts it again).  On
 * NVIDIA's driver a barrier with an event costs 0.8 us where a marker
 * costs 7.1 us and asking each command for its event 7.1 us more
 * (docs/drivers.md); a barrier's timestamps are not kept (END reads 0
 * there), so a timed record never stands on one. */
void cls__ocl_position(cls__bstream *t) {
  CLS__ASSERT_HELD(&t->last_lock);
  /* On a handed-out queue (cls__ocl_expose) the program's commands may
   * follow last.ev: every look names the position anew. */
  if (CLS__LIKELY(!cls__pos_open(&t->last))) return;
  cl_event ev = NULL;
  cl_int err = clEnqueueBarrierWithWaitList(t->q, 0, NULL, &ev);
  if (err != CL_SUCCESS) err = clEnqueueMarkerWithWaitList(t->q, 0, NULL, &ev);
  if (err != CL_SUCCESS) return; /* still unnamed: the caller copes */
  if (t->dev->facts.flush_waited) cls__ocl_flush(t->q); /* a wait is next */
  /* Counted as a barrier (no timestamps) even where it is the marker. */
  cls__last_drop(cls__last_advance(t, ev, 0, 1, NULL));
}

/* The common part of the two ends of a successful enqueue: the waits are
 * consumed and the stream is listed busy.  `ev` is the command's event,
 * or NULL for a command enqueued without one. */
static inline void cls__end_ok(cls__bstream *s, const cls__ocl_batch *b,
                               cl_event ev, cls__btoken *tok) {
  /* The waits are consumed (other streams read them under last_lock;
   * only holders of s->lock change them, and that is us). */
  cls__lock_take(&s->last_lock);
  unsigned consumed = s->nwaits;
  if (CLS__UNLIKELY(consumed)) {
    s->nwaits = 0;
    atomic_store_explicit(&s->has_waits, 0, memory_order_release);
  }
  cls__last_ref old = cls__last_advance(s, ev, b->work, b->barrier, tok);
  int add = cls__busy_claim(s);
  cls__lock_give(&s->last_lock);
  for (unsigned i = 0; i < consumed; ++i) clReleaseEvent(s->waits[i]);
  if (old.ev || old.tok) cls__last_drop(old); /* nothing for an unnamed one */
  if (add) cls__ocl_busy_add(s);
}

/* Releases what cls__begin gathered, and s->lock. */
static inline void cls__end_release(cls__bstream *s, cls__ocl_batch *b) {
  if (CLS__UNLIKELY(b->n)) {
    for (cl_uint i = b->npending; i < b->n; ++i) clReleaseEvent(b->list[i]);
    if (b->list != b->small) free(b->list);
  }
  cls__lock_give(&s->lock);
}

/* Work enqueued without a later clstream call must still start, so a
 * queue is flushed after anything another queue or the host will wait
 * on.  A command that has an event is flushed at once; one
 * without is flushed at once where the driver may otherwise leave it
 * unstarted (facts.flush_to_start), and on drivers measured to start work
 * without a flush (NVIDIA's, PoCL) when its position is named
 * (cls__ocl_position), which every wait on it does first; on NVIDIA's,
 * which submits at enqueue, not even then (facts.flush_waited). */
void cls__ocl_end_unnamed_slow(cls__bstream *s, cls__ocl_batch *b) {
  CLS__ASSERT_HELD(&s->lock);
  cls__end_ok(s, b, NULL, NULL);
  if (s->dev->facts.flush_to_start) cls__ocl_flush(s->q);
  cls__end_release(s, b);
}

void cls__ocl_end_cmd(cls__bstream *s, cls__ocl_batch *b, int ok, cl_event ev) {
  CLS__ASSERT_HELD(&s->lock);
  if (ok && !ev)
    cls__ocl_end_unnamed(s, b);
  else
    cls__ocl_end(s, b, ok ? ev : NULL);
}

/* The end of a successful command with an event, held by tok or (tok
 * NULL) by the stream. */
static void cls__end_named(cls__bstream *s, cls__ocl_batch *b, cl_event ev,
                           cls__btoken *tok) {
  cls__end_ok(s, b, ev, tok);
  if (s->dev->facts.flush_waited) cls__ocl_flush(s->q);
  if (CLS__UNLIKELY(cls__trace_on)) cls__trace_command(s, ev, b);
  cls__end_release(s, b);
}

void cls__ocl_end(cls__bstream *s, cls__ocl_batch *b, cl_event ev) {
  CLS__ASSERT_HELD(&s->lock);
  if (ev)
    cls__end_named(s, b, ev, NULL);
  else
    cls__end_release(s, b);
}

void cls__ocl_end_record(cls__bstream *s, cls__ocl_batch *b, cl_event ev,
                         cls__btoken *t) {
  CLS__ASSERT_HELD(&s->lock);
  cls__end_named(s, b, ev, t);
}

void cls__ocl_end_unflushed(cls__bstream *s, cls__ocl_batch *b, cl_event ev) {
  CLS__ASSERT_HELD(&s->lock);
  cls__end_ok(s, b, ev, NULL);
  if (CLS__UNLIKELY(cls__trace_on)) cls__trace_command(s, ev, b);
  cls__end_release(s, b);
}

void cls__ocl_gather_device(cls__ocl_device *d, cls__ocl_batch *b) {
  pthread_mutex_lock(&d->streams_lock);
  for (cls__bstream *s = d->streams; s; s = s->next) {
    cls__lock_take(&s->last_lock);
    cls__ocl_gather_stream(s, b);
    cls__lock_give(&s->last_lock);
  }
  pthread_mutex_unlock(&d->streams_lock);
  pthread_mutex_lock(&d->busy_lock);
  for (unsigned i = 0; i < d->norphans; ++i) {
    clRetainEvent(d->orphans[i].ev);
    cls__ocl_batch_push(b, d->orphans[i].ev);
  }
  pthread_mutex_unlock(&d->busy_lock);
}

/* ---- Native handles (docs/interop.md) ---------------------------------- */

/* How long a look at a handed-out queue (cls__ocl_look) lets the barrier
 * that named its position complete: a barrier on an idle queue completes
 * within microseconds, and without this grace every query would see its
 * own barrier just enqueued, and a polling loop would never see the
 * stream idle. */
#define CLS__LOOK_GRACE_NS 200000

void cls__ocl_look(cls__bstream *t) {
  CLS__ASSERT_HELD(&t->last_lock);
  cls__ocl_position(t);
  cl_event ev = t->last.ev;
  if (CLS__LIKELY(!cls__pos_foreign(&t->last)) || !ev || t->last.unnamed)
    return;
  /* A bounded poll of one status, not a wait on the device (the lock
   * table's exceptions). */
  cls__ocl_flush(t->q);
  struct timespec a, n;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (;;) {
    if (cls__ocl_status(ev) <= CL_COMPLETE) return;
    clock_gettime(CLOCK_MONOTONIC, &n);
    long ns =
        (long)(n.tv_sec - a.tv_sec) * 1000000000L + (n.tv_nsec - a.tv_nsec);
    if (ns > CLS__LOOK_GRACE_NS) return;
    sched_yield();
  }
}
