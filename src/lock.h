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

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct cls__lock {
  atomic_int state;
  pthread_mutex_t m; /* a leaf: guards only the sleep on cond */
  pthread_cond_t cond;
#ifndef NDEBUG
  /* The holder (cls__lock_self()), for cls__lock_held: debug builds only. */
  atomic_uintptr_t owner;
#endif
} cls__lock;
void cls__lock_init(cls__lock *l);
void cls__lock_destroy(cls__lock *l);
/* The contended take (lock.c). */
void cls__lock_wait(cls__lock *l);
/* The contended give: wakes the sleepers (lock.c). */
void cls__lock_wake(cls__lock *l);

#ifndef NDEBUG
/* The calling thread, as a number no other live thread has (lock.c). */
uintptr_t cls__lock_self(void);
#endif

static inline void cls__lock_take(cls__lock *l) {
  int free_ = 0;
  if (__builtin_expect(
          !atomic_compare_exchange_strong_explicit(
              &l->state, &free_, 1, memory_order_acquire, memory_order_relaxed),
          0))
    cls__lock_wait(l);
#ifndef NDEBUG
  atomic_store_explicit(&l->owner, cls__lock_self(), memory_order_relaxed);
#endif
}
static inline void cls__lock_give(cls__lock *l) {
#ifndef NDEBUG
  atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
#endif
  if (__builtin_expect(
          atomic_exchange_explicit(&l->state, 0, memory_order_release) == 2, 0))
    cls__lock_wake(l);
}

/* Debug-build checks that a lock is held by the calling thread, for the
 * functions whose comment says they run under it: CLS__ASSERT_HELD for a
 * cls__lock, CLS__ASSERT_MUTEX_HELD for a pthread mutex (a default
 * mutex, which cls__mutex_held tries and finds busy: it tells "held" from
 * "free", not which thread holds it).  Both compile to nothing where
 * NDEBUG is defined (the default RelWithDebInfo and Release builds), so
 * they cost the command path nothing. */
#ifndef NDEBUG
static inline int cls__lock_held(cls__lock *l) {
  return atomic_load_explicit(&l->state, memory_order_relaxed) != 0 &&
         atomic_load_explicit(&l->owner, memory_order_relaxed) ==
             cls__lock_self();
}
static inline int cls__mutex_held(pthread_mutex_t *m) {
  if (pthread_mutex_trylock(m) != 0) return 1; /* EBUSY: someone holds it */
  pthread_mutex_unlock(m);
  return 0;
}
#define CLS__ASSERT_HELD(l) assert(cls__lock_held(l))
#define CLS__ASSERT_MUTEX_HELD(m) assert(cls__mutex_held(m))
#else
#define CLS__ASSERT_HELD(l) ((void)0)
#define CLS__ASSERT_MUTEX_HELD(m) ((void)0)
#endif

#endif /* CLSTREAM_LOCK_H */
