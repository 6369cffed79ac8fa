/* OpenCL backend: positions and tokens.  A position (ocl.h) is a command's
 * event and whether it is known complete; this file is the one place that
 * changes that knowledge, for a stream's newest command and for a
 * record's token alike.  Everything else (the enqueue bracket, stream
 * query and synchronize, records, the pool) reads it through these
 * functions. */
#include "position.h"

#include <stdlib.h>

void cls__pos_init(cls__ocl_pos *p) {
  p->ev = NULL;
  p->unnamed = 0;
  p->work = 0;
  p->barrier = 0;
  atomic_init(&p->done, 1);
  atomic_init(&p->foreign, 0);
}

void cls__pos_expose(cls__ocl_pos *p) {
  atomic_store_explicit(&p->foreign, 1, memory_order_relaxed);
  atomic_store_explicit(&p->done, 0, memory_order_release);
}

cl_event cls__pos_advance(cls__ocl_pos *p, cl_event ev, int work, int barrier) {
  cl_event old = NULL;
  if (ev) {
    old = p->ev;
    p->ev = ev;
    p->work = work;
    p->barrier = barrier;
    p->unnamed = 0;
    atomic_store_explicit(&p->done, 0, memory_order_release);
  } else {
    cls__pos_unnamed(p);
  }
  return old;
}

cl_int cls__pos_status(cls__ocl_pos *p) {
  if (atomic_load_explicit(&p->done, memory_order_acquire)) return CL_COMPLETE;
  cl_int st = p->ev ? cls__ocl_status(p->ev) : CL_COMPLETE;
  /* Commands without an event follow ev: not known done until they are
   * named (cls__ocl_position), though a failure of ev shows already. */
  if (CLS__UNLIKELY(p->unnamed)) return st < 0 ? st : CL_SUBMITTED;
  /* A failed command stays "not done": every later look reports it.  On
   * a handed-out queue the program's commands may follow ev: the status
   * is ev's alone, never remembered (the caller named the position just
   * before, cls__ocl_position). */
  if (st == CL_COMPLETE && !cls__pos_foreign(p))
    atomic_store_explicit(&p->done, 1, memory_order_release);
  return st;
}

void cls__pos_reached(cls__ocl_pos *p, cl_event ev) {
  if (p->ev == ev && !cls__pos_open(p))
    atomic_store_explicit(&p->done, 1, memory_order_release);
}

/* ---- A stream's newest command ----------------------------------------- */

cls__last_ref cls__last_advance(cls__bstream *s, cl_event ev, int work,
                                int barrier, cls__btoken *tok) {
  CLS__ASSERT_HELD(&s->last_lock);
  cls__last_ref r = {NULL, NULL};
  cl_event old = cls__pos_advance(&s->last, ev, work, barrier);
  if (!ev) return r; /* unnamed: last.ev and whoever holds it stay */
  if (s->last_tok)
    r.tok = s->last_tok; /* it held old */
  else
    r.ev = old;
  s->last_tok = tok;
  return r;
}

void cls__last_drop(cls__last_ref r) {
  if (r.ev) clReleaseEvent(r.ev);
  cls__b_token_release(r.tok);
}

int cls__last_known_done(cls__bstream *s) {
  CLS__ASSERT_HELD(&s->last_lock);
  cls__ocl_pos *p = &s->last;
  if (cls__pos_known_done(p)) return 1;
  cls__btoken *t = s->last_tok;
  if (!t || cls__pos_open(p) || !cls__pos_known_done(&t->pos)) return 0;
  cls__pos_reached(p, p->ev);
  return 1;
}

cl_int cls__last_status(cls__bstream *s) {
  CLS__ASSERT_HELD(&s->last_lock);
  return cls__last_known_done(s) ? CL_COMPLETE : cls__pos_status(&s->last);
}

/* ---- Tokens (backend.h) ----------------------------------------------- */

/* A token of d with one reference, standing for nothing (complete) yet,
 * or NULL with a reason when out of host memory. */
static cls__btoken *cls__token_alloc(cls__ocl_device *d) {
  cls__btoken *t =
      atomic_exchange_explicit(&d->spare_token, NULL, memory_order_acquire);
  if (!t) t = malloc(sizeof *t);
  if (!t) {
    cls__reason(clsErrorMemoryAllocation, "out of host memory");
    return NULL;
  }
  cls__pos_init(&t->pos);
  t->stamp = 0;
  t->host_stamped = 0;
  atomic_init(&t->hstamp, 0);
  t->dev = d;
  atomic_init(&t->refs, 1);
  return t;
}

cls__btoken *cls__ocl_token_new(cls__ocl_device *d, cl_event ev, int work,
                                int barrier) {
  if (!ev) return NULL;
  cls__btoken *t = cls__token_alloc(d);
  if (!t) {
    clReleaseEvent(ev);
    return NULL;
  }
  (void)cls__pos_advance(&t->pos, ev, work, barrier);
  return t;
}

cls__btoken *cls__ocl_token_reserve(cls__ocl_device *d) {
  return cls__token_alloc(d);
}

void cls__ocl_token_place(cls__btoken *t, cl_event ev, int work, int barrier) {
  (void)cls__pos_advance(&t->pos, ev, work, barrier);
  atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

cls__btoken *cls__ocl_token_stamped(cls__ocl_device *d, cl_ulong stamp) {
  cls__btoken *t = cls__token_alloc(d);
  if (t) t->stamp = stamp; /* no command: complete, at the host's reading */
  return t;
}

void cls__b_token_retain(cls__btoken *t) {
  if (t) atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

void cls__b_token_release(cls__btoken *t) {
  if (!t || atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
    return;
  if (t->pos.ev) clReleaseEvent(t->pos.ev); /* the command still runs */
  /* Kept for the device's next record if no other is kept already. */
  cls__btoken *none = NULL;
  if (!atomic_compare_exchange_strong_explicit(&t->dev->spare_token, &none, t,
                                               memory_order_release,
                                               memory_order_relaxed))
    free(t);
}

clsError_t cls__b_token_status(cls__btoken *t) {
  if (!t) return clsSuccess;
  cl_int st = cls__pos_status(&t->pos);
  if (st < 0) return cls__ocl_failed(st);
  return st == CL_COMPLETE ? clsSuccess : clsErrorNotReady;
}

clsError_t cls__b_token_wait(cls__btoken *t, int sleep) {
  if (!t || cls__pos_known_done(&t->pos)) return clsSuccess;
  clsError_t r = cls__ocl_wait(t->pos.ev, sleep);
  if (r == clsSuccess) cls__pos_reached(&t->pos, t->pos.ev);
  return r;
}
