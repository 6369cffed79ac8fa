/* The library's light lock (cls__lock, lock.h): its contended halves.
 * The uncontended take and give are inline in lock.h, one atomic
 * operation each.  Owns each lock's `m`, a leaf held only around the sleep
 * on `cond`.  In debug builds it also names the calling thread for the
 * lock assertions (lock.h). */
#include "lock.h"

#ifndef NDEBUG
/* Each thread's own byte: its address names the thread while it lives. */
static _Thread_local char cls__lock_me;
uintptr_t cls__lock_self(void) { return (uintptr_t)&cls__lock_me; }
#endif

void cls__lock_init(cls__lock *l) {
  atomic_init(&l->state, 0);
#ifndef NDEBUG
  atomic_init(&l->owner, 0);
#endif
  pthread_mutex_init(&l->m, NULL);
  pthread_cond_init(&l->cond, NULL);
}

void cls__lock_destroy(cls__lock *l) {
  pthread_cond_destroy(&l->cond);
  pthread_mutex_destroy(&l->m);
}

/* Marks the lock "waited for" (2) and sleeps until a give finds that mark
 * and wakes it; then takes it still marked, so that its own give wakes
 * whoever else may be waiting. */
void cls__lock_wait(cls__lock *l) {
  pthread_mutex_lock(&l->m);
  while (atomic_exchange_explicit(&l->state, 2, memory_order_acquire) != 0)
    pthread_cond_wait(&l->cond, &l->m);
  pthread_mutex_unlock(&l->m);
}

/* A waiter set 2 under m before it slept: taking m here waits until it
 * sleeps, so the broadcast cannot be lost. */
void cls__lock_wake(cls__lock *l) {
  pthread_mutex_lock(&l->m);
  pthread_cond_broadcast(&l->cond);
  pthread_mutex_unlock(&l->m);
}
