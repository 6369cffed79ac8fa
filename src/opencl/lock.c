/* OpenCL backend: the enqueue path's lock (cls__ocl_lock, ocl.h): its
 * contended halves.  The uncontended take and give are inline in ocl.h,
 * one atomic operation each.  Owns each lock's `m`, a leaf held only
 * around the sleep on `cond`. */
#include "ocl.h"

void cls__ocl_lock_init(cls__ocl_lock *l) {
  atomic_init(&l->state, 0);
  pthread_mutex_init(&l->m, NULL);
  pthread_cond_init(&l->cond, NULL);
}

void cls__ocl_lock_destroy(cls__ocl_lock *l) {
  pthread_cond_destroy(&l->cond);
  pthread_mutex_destroy(&l->m);
}

/* Marks the lock "waited for" (2) and sleeps until a give finds that mark
 * and wakes it; then takes it still marked, so that its own give wakes
 * whoever else may be waiting. */
void cls__ocl_lock_wait(cls__ocl_lock *l) {
  pthread_mutex_lock(&l->m);
  while (atomic_exchange_explicit(&l->state, 2, memory_order_acquire) != 0)
    pthread_cond_wait(&l->cond, &l->m);
  pthread_mutex_unlock(&l->m);
}

/* A waiter set 2 under m before it slept: taking m here waits until it
 * sleeps, so the broadcast cannot be lost. */
void cls__ocl_lock_wake(cls__ocl_lock *l) {
  pthread_mutex_lock(&l->m);
  pthread_cond_broadcast(&l->cond);
  pthread_mutex_unlock(&l->m);
}
