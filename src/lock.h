/* The library's light lock (lock.c): held briefly and nearly always free,
 * so taking and giving it are one atomic operation each (a pthread mutex
 * costs some 57 instructions a pair on glibc).  A thread that finds it
 * held sleeps on `cond` until it is given back.  `state`: 0 free, 1 held,
 * 2 held and someone may be waiting.  Not recursive; no condition
 * variable may wait on it.  Used where a lock is taken on every command:
 * the OpenCL backend's stream.lock, last_lock and function.lock.  (An
 * event's lock is a bit of its state word instead, event.c.) */
#ifndef CLSTREAM_LOCK_H
#define CLSTREAM_LOCK_H

#include <pthread.h>
#include <stdatomic.h>

typedef struct cls__lock {
  atomic_int state;
  pthread_mutex_t m; /* a leaf: guards only the sleep on cond */
  pthread_cond_t cond;
} cls__lock;
void cls__lock_init(cls__lock *l);
void cls__lock_destroy(cls__lock *l);
/* The contended take (lock.c). */
void cls__lock_wait(cls__lock *l);
/* The contended give: wakes the sleepers (lock.c). */
void cls__lock_wake(cls__lock *l);
static inline void cls__lock_take(cls__lock *l) {
  int free_ = 0;
  if (__builtin_expect(
          !atomic_compare_exchange_strong_explicit(
              &l->state, &free_, 1, memory_order_acquire, memory_order_relaxed),
          0))
    cls__lock_wait(l);
}
static inline void cls__lock_give(cls__lock *l) {
  if (__builtin_expect(
          atomic_exchange_explicit(&l->state, 0, memory_order_release) == 2, 0))
    cls__lock_wake(l);
}

#endif /* CLSTREAM_LOCK_H */
