/* OpenCL backend, layer 6 (the enqueue bracket): every command is
 * enqueued between a begin, which locks the stream and gathers what the
 * command must wait for, and an end, which makes the command the
 * stream's newest and flushes (enqueue.c).  The common cases of the
 * command path are inline here; enqueue.c has the rest, and the one
 * owner of the busy list and the orphans. */
#ifndef CLSTREAM_OPENCL_ENQUEUE_H
#define CLSTREAM_OPENCL_ENQUEUE_H

#include "batch.h"
#include "position.h"

/* Starts an enqueue on s: locks s->lock and gathers in *b the events the
 * next command must wait for (clsStreamWaitEvent waits, and the legacy
 * stream's implicit synchronization).  Pass b->n and b->list as the
 * command's wait list.  Always paired with cls__ocl_end. */
void cls__ocl_begin(cls__bstream *s, cls__ocl_batch *b);

/* Ends an enqueue: on success (`ev` non-NULL, retained by the caller and
 * handed over) ev becomes the stream's newest command, consumed waits are
 * dropped and the queue is flushed; on failure (ev NULL) the waits stay
 * pending for the next command.  Unlocks s->lock. */
void cls__ocl_end(cls__bstream *s, cls__ocl_batch *b, cl_event ev);

/* cls__ocl_end of a record's command: ev's reference is held by the
 * token `t` (cls__ocl_token_place gave it one for the stream). */
void cls__ocl_end_record(cls__bstream *s, cls__ocl_batch *b, cl_event ev,
                         cls__btoken *t);

/* cls__ocl_end of a successful enqueue (ev non-NULL, handed over) that
 * leaves the queue unflushed: for a command whose flush must wait (an
 * inline host job's gate, hostjob.c).  Unlocks s->lock. */
void cls__ocl_end_unflushed(cls__bstream *s, cls__ocl_batch *b, cl_event ev);

/* Lists s (whose in_busy the caller just set) in the device's busy list.
 * Takes d->busy_lock. */
void cls__ocl_busy_add(cls__bstream *s);

/* Whether s must be added to its device's busy list now that it has
 * work the legacy stream may wait for: a blocking stream not listed yet.
 * Marks it listed; the caller then calls cls__ocl_busy_add once
 * last_lock is dropped.  Under s->last_lock.  The one statement of the
 * rule for every path that gives a stream work (enqueue.c, bridge.c). */
static inline int cls__busy_claim(cls__bstream *s) {
  CLS__ASSERT_HELD(&s->last_lock);
  if (!s->blocking || s->in_busy) return 0;
  s->in_busy = 1;
  return 1;
}

/* cls__ocl_end_unnamed's cases other than the common one (enqueue.c). */
void cls__ocl_end_unnamed_slow(cls__bstream *s, cls__ocl_batch *b);

/* Ends an enqueue whose command was enqueued without an event (the
 * command path): the stream counts it as unnamed, consumed waits are
 * dropped, and the queue is flushed only where the driver needs a flush
 * to start work.  Unlocks s->lock.  Inline for its common case: the
 * command waited for nothing, on a driver that starts work without a
 * flush, so that only the position moves (and the stream is listed busy
 * if it was not). */
static inline void cls__ocl_end_unnamed(cls__bstream *s, cls__ocl_batch *b) {
  if (CLS__LIKELY(!b->n && !s->nwaits && !s->dev->facts.flush_to_start)) {
    cls__lock_take(&s->last_lock);
    cls__pos_unnamed(&s->last);
    int add = cls__busy_claim(s);
    cls__lock_give(&s->last_lock);
    if (CLS__UNLIKELY(add)) cls__ocl_busy_add(s); /* as cls__end_ok does */
    cls__lock_give(&s->lock);
    return;
  }
  cls__ocl_end_unnamed_slow(s, b);
}

/* The end of a command-path enqueue: cls__ocl_end_unnamed, or
 * cls__ocl_end with ev when the command was asked for its event (or with
 * NULL when `ok` is 0: the enqueue failed). */
void cls__ocl_end_cmd(cls__bstream *s, cls__ocl_batch *b, int ok, cl_event ev);

/* Where the command path may enqueue a command without an event: returns
 * NULL for "no event" or `ev` for "ask for one": on devices whose events
 * cost next to nothing (facts.command_events), and when the timeline trace
 * needs every command's event. */
static inline cl_event *cls__ocl_event_slot(const cls__bstream *s,
                                            cl_event *ev) {
  extern int cls__trace_on;
  return s->dev->facts.command_events || CLS__UNLIKELY(cls__trace_on) ? ev
                                                                      : NULL;
}

/* Whether the legacy stream of d may have work that blocking streams
 * wait for: two atomic loads, no lock (enqueue.c). */
static inline int cls__ocl_legacy_pending(cls__ocl_device *d) {
  cls__bstream *l = atomic_load_explicit(&d->legacy, memory_order_acquire);
  return l && (!cls__pos_known_done(&l->last) ||
               atomic_load_explicit(&l->has_waits, memory_order_acquire));
}

/* Whether s's next command may have to wait for anything (s->lock held):
 * its clsStreamWaitEvent waits, or with `gather` the legacy stream's
 * implicit synchronization (blocking streams' work for the legacy
 * stream, the legacy stream's work for a blocking stream).  No lock is
 * taken: the device's busy_any and the legacy stream's known-done flag
 * are set before the enqueue call of any command they stand for returns,
 * so they say "nothing" only when every command issued before this call
 * needs no wait (enqueue.c). */
static inline int cls__ocl_waits_any(cls__bstream *s, int gather) {
  CLS__ASSERT_HELD(&s->lock);
  if (s->nwaits) return 1;
  if (!gather) return 0;
  if (s->role == CLS__ROLE_LEGACY)
    return atomic_load_explicit(&s->dev->busy_any, memory_order_acquire);
  return s->blocking && cls__ocl_legacy_pending(s->dev);
}

/* cls__ocl_begin once s->lock is held and cls__ocl_waits_any(s, 1) said
 * the command may have something to wait for (enqueue.c). */
void cls__ocl_begin_held(cls__bstream *s, cls__ocl_batch *b);

/* cls__ocl_begin for the command path (launches, copies, fills), its
 * common case inline. */
static inline void cls__ocl_begin_cmd(cls__bstream *s, cls__ocl_batch *b) {
  cls__lock_take(&s->lock);
  if (CLS__LIKELY(!cls__ocl_waits_any(s, 1)))
    cls__ocl_batch_none(b);
  else
    cls__ocl_begin_held(s, b);
}

/* cls__ocl_begin without the legacy stream's implicit synchronization:
 * gathers only s's own clsStreamWaitEvent waits (enqueue.c). */
void cls__ocl_begin_waits(cls__bstream *s, cls__ocl_batch *b);

/* Adds to b (retained; b may be NULL, to look only) t's newest command
 * and its unconsumed waits that are not complete; returns their worst
 * status (CL_COMPLETE when there are none).  Under t->last_lock. */
cl_int cls__ocl_gather_stream(cls__bstream *t, cls__ocl_batch *b);

/* The same for the device's busy blocking streams and its blocking
 * orphans, dropping the complete ones from the busy list.  Takes
 * d->busy_lock and each stream's last_lock. */
cl_int cls__ocl_gather_blocking(cls__ocl_device *d, cls__ocl_batch *b);

/* Adds to b (retained) the pending work of every stream of d, live or
 * destroyed (for devsync.c and module.c): each one's newest command and
 * unconsumed waits, and the orphans.  Takes device.streams_lock, each stream's
 * last_lock and device.busy_lock, one at a time. */
void cls__ocl_gather_device(cls__ocl_device *d, cls__ocl_batch *b);

/* Makes room in d's busy list for one more blocking stream (at its
 * creation), so that listing it later cannot fail; 0 when out of host
 * memory.  Takes d->busy_lock. */
int cls__ocl_busy_reserve(cls__ocl_device *d);
/* Hands the pending work of s, being destroyed, to its device's orphans
 * (its newest command and the waits no command consumed), where legacy
 * work and device synchronization still see it, and takes s off the busy
 * list.  Out of host memory it waits for that work instead, with no lock
 * held.  Takes s->last_lock, then d->busy_lock. */
void cls__ocl_orphan_stream(cls__bstream *s);
/* After a device synchronization waited for every orphan of d: drops
 * those that are over, the failed ones too (the wait reported them).
 * Takes d->busy_lock. */
void cls__ocl_orphans_settle(cls__ocl_device *d);

/* Names s's position if commands were enqueued after `last` without an
 * event: a barrier with an event stands for them.  Under s->last_lock. */
void cls__ocl_position(cls__bstream *s);

/* Adds to b (retained; b may be NULL, to look only) the waits of s that
 * no command has consumed and that are not complete; returns their worst
 * status (CL_COMPLETE when there are none) and clears s->has_waits when
 * none is pending.  Under s->last_lock. */
cl_int cls__ocl_waits_status(cls__bstream *s, cls__ocl_batch *b);

/* ---- Native handles (docs/interop.md) ---------------------------------- */

/* expose.c (the same layer, over enqueue.c): makes s "exposed": its
 * queue is the program's too (clsOpenCLGetQueue,
 * clsOpenCLStreamCreateFromQueue).  From then on its position is never
 * known (position.c, cls__pos_expose), a blocking s stays in the busy
 * list, and its pending clsStreamWaitEvent waits are enqueued at once
 * (cls__ocl_waits_flush).  Idempotent.  Takes s->lock, s->last_lock and
 * d->busy_lock, one after the other. */
clsError_t cls__ocl_expose(cls__bstream *s);

/* cls__ocl_position for a look that only reads the status (a query): on
 * an exposed stream it also gives the naming barrier a short grace (at
 * most 0.2 ms) to complete, so that a query of an idle exposed stream
 * answers clsSuccess.  Under s->last_lock. */
void cls__ocl_look(cls__bstream *s);

/* expose.c: on an exposed stream, enqueues its pending waits now, as a
 * barrier with
 * them as its wait list, so that the program's later commands on the
 * queue wait for them too; nothing on a stream never handed out.  Takes
 * s->lock. */
clsError_t cls__ocl_waits_flush(cls__bstream *s);

#endif /* CLSTREAM_OPENCL_ENQUEUE_H */
