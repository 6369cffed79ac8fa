/* OpenCL backend: the worker pool that runs host functions, bridges and
 * sleeping waits' wake-ups (every cls__ocl_job), never inside a driver
 * callback.  Owns the job queue and the idle, thread and starvation
 * counts, all under cls__wlock (a leaf); the monitor thread (monitor.c)
 * calls cls__ocl_feed_starved to add a worker when jobs starve. */
#include "threads.h"

#include <time.h>

/* ---- Worker threads --------------------------------------------------- */

/* Host jobs and bridges run on a pool of worker threads.  Posting never
 * starts a thread when a worker is idle or about to be (one that just ran
 * a job comes back to the queue before it waits); the monitor thread
 * starts another only when a queued job has found no idle worker for a
 * while, because the running ones are blocked in user functions. */
static pthread_mutex_t cls__wlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cls__wcond = PTHREAD_COND_INITIALIZER;
static cls__ocl_job *cls__whead, *cls__wtail;
static int cls__widle, cls__wthreads, cls__wqueued;
static long long cls__wstarved; /* since when queued jobs outnumber idle
                                   workers (0: they do not) */

#define CLS__MAX_WORKERS 256
#define CLS__STARVE_NS 2000000LL /* 2 ms */

static long long cls__now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int cls__ocl_spawn(void *(*fn)(void *)) {
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  int ok = pthread_create(&t, &a, fn, NULL) == 0;
  pthread_attr_destroy(&a);
  return ok;
}

/* Under cls__wlock, after the queue or the idle count changed: a queued
 * job that no idle worker will take is starving (an idle worker that was
 * signalled counts until it wakes, so two jobs posted to one idle worker
 * leave one starving). */
static void cls__starve_check(void) {
  CLS__ASSERT_MUTEX_HELD(&cls__wlock);
  if (cls__wqueued > cls__widle) {
    if (!cls__wstarved) cls__wstarved = cls__now_ns();
  } else {
    cls__wstarved = 0;
  }
}

static void *cls__worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&cls__wlock);
  for (;;) {
    while (!cls__whead) {
      cls__widle++;
      cls__starve_check();
      pthread_cond_wait(&cls__wcond, &cls__wlock);
      cls__widle--;
    }
    cls__ocl_job *j = cls__whead;
    cls__whead = j->next;
    if (!cls__whead) cls__wtail = NULL;
    cls__wqueued--;
    cls__starve_check();
    pthread_mutex_unlock(&cls__wlock);
    j->run(j);
    pthread_mutex_lock(&cls__wlock);
  }
  return NULL;
}

void cls__ocl_post(cls__ocl_job *job) {
  job->next = NULL;
  pthread_mutex_lock(&cls__wlock);
  if (cls__wtail)
    cls__wtail->next = job;
  else
    cls__whead = job;
  cls__wtail = job;
  cls__wqueued++;
  if (cls__widle > 0)
    pthread_cond_signal(&cls__wcond);
  else if (cls__wthreads == 0 && cls__ocl_spawn(cls__worker))
    cls__wthreads++;
  cls__starve_check();
  pthread_mutex_unlock(&cls__wlock);
}

/* Called by the monitor: a job that has waited CLS__STARVE_NS with no
 * idle worker gets a new worker. */
void cls__ocl_feed_starved(void) {
  pthread_mutex_lock(&cls__wlock);
  if (cls__wqueued > cls__widle && cls__wstarved &&
      cls__now_ns() - cls__wstarved >= CLS__STARVE_NS &&
      cls__wthreads < CLS__MAX_WORKERS && cls__ocl_spawn(cls__worker)) {
    cls__wthreads++;
    cls__wstarved = cls__now_ns(); /* give it time to take a job */
  }
  pthread_mutex_unlock(&cls__wlock);
}
