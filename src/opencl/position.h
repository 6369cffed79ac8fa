/* OpenCL backend, layer 5 (positions and tokens): the one owner of "is
 * that command done" (cls__ocl_pos), a stream's newest command, and the
 * tokens that records hand to the front (position.c).  The cls__pos_
 * functions take no lock and cannot name the one their comments mean
 * (the position's owner's): a stream's position moves under its
 * last_lock, which the cls__last_ functions and enqueue.c assert; a
 * token's never moves and needs none. */
#ifndef CLSTREAM_OPENCL_POSITION_H
#define CLSTREAM_OPENCL_POSITION_H

#include "threads.h"

/* Empty and complete. */
void cls__pos_init(cls__ocl_pos *p);

/* The queue moved on: ev (retained, handed over) is its newest command,
 * of kind work/barrier; NULL counts one more command without an event.
 * Returns the event replaced, for the caller to release (outside its
 * locks), or NULL.  Under the owner's lock. */
cl_event cls__pos_advance(cls__ocl_pos *p, cl_event ev, int work, int barrier);

/* The one transition cls__pos_advance makes for a command without an
 * event, inline for the command path (cls__ocl_end_unnamed): one more
 * command follows ev, so the position is not known complete.  Under the
 * owner's lock. */
static inline void cls__pos_unnamed(cls__ocl_pos *p) {
  p->unnamed++;
  atomic_store_explicit(&p->done, 0, memory_order_release);
}

/* Native handles (docs/interop.md): the position's queue was handed to
 * the program, whose commands may follow ev at any time, so the position
 * is never known complete again: every look names it anew
 * (cls__ocl_position enqueues a barrier) and nothing is remembered.
 * Under the owner's lock. */
void cls__pos_expose(cls__ocl_pos *p);

/* Whether the queue was handed out (cls__pos_expose): one atomic load. */
static inline int cls__pos_foreign(cls__ocl_pos *p) {
  return atomic_load_explicit(&p->foreign, memory_order_relaxed);
}

/* Whether commands the position does not name may follow ev: unnamed
 * ones, or the program's own on a handed-out queue. */
static inline int cls__pos_open(cls__ocl_pos *p) {
  return p->unnamed || cls__pos_foreign(p);
}

/* Execution status of the position: CL_COMPLETE, a negative error, or
 * "not yet" (> 0, also while unnamed commands follow ev).  Asks the
 * driver only while not known complete, and remembers CL_COMPLETE: the
 * transition to done.  Never blocks.  Under the owner's lock (a token's
 * never moves: no lock). */
cl_int cls__pos_status(cls__ocl_pos *p);

/* A wait for ev returned clsSuccess: p is done if ev is still its newest
 * command with nothing unnamed after it (no driver call).  Under the
 * owner's lock. */
void cls__pos_reached(cls__ocl_pos *p, cl_event ev);

/* Whether the position is known complete: one atomic load, no lock. */
static inline int cls__pos_known_done(cls__ocl_pos *p) {
  return atomic_load_explicit(&p->done, memory_order_acquire);
}

/* A token for ev (retained, handed over; NULL gives a NULL token) on d,
 * one reference.  NULL with a reason when out of host memory (ev is
 * released then). */
cls__btoken *cls__ocl_token_new(cls__ocl_device *d, cl_event ev, int work,
                                int barrier);

/* A token of d for no command: a timed record complete at once, whose end
 * time is `stamp` (d->facts.host_clock).  NULL with a reason when out of
 * host memory. */
cls__btoken *cls__ocl_token_stamped(cls__ocl_device *d, cl_ulong stamp);

/* A token of d standing for no command yet, one reference: a record's,
 * made before its command is enqueued so that running out of host memory
 * enqueues nothing.  NULL with a reason when out of host memory. */
cls__btoken *cls__ocl_token_reserve(cls__ocl_device *d);

/* The reserved token t stands for ev (retained, handed over), of kind
 * work/barrier, and gains a reference for the stream whose newest command
 * ev becomes (cls__ocl_end_record): one driver reference for both. */
void cls__ocl_token_place(cls__btoken *t, cl_event ev, int work, int barrier);

/* What a stream let go of when its newest command moved on, released by
 * cls__last_drop once last_lock is dropped. */
typedef struct cls__last_ref {
  cl_event ev;
  cls__btoken *tok;
} cls__last_ref;

/* s's newest command moved on: cls__pos_advance of s->last, with ev's
 * reference held by the record token `tok` (NULL: by the stream itself).
 * Under last_lock (position.c). */
cls__last_ref cls__last_advance(struct cls__bstream *s, cl_event ev, int work,
                                int barrier, cls__btoken *tok);

void cls__last_drop(cls__last_ref r);

/* Whether s's newest command is known complete, from the stream's own
 * position or from the record token that shares its command (a wait on
 * the record saw it complete: then the stream's position learns it, with
 * no driver call).  Under last_lock. */
int cls__last_known_done(struct cls__bstream *s);

/* cls__pos_status of s's newest command, after cls__last_known_done.
 * Under last_lock. */
cl_int cls__last_status(struct cls__bstream *s);

#endif /* CLSTREAM_OPENCL_POSITION_H */
