/*
 * event_query: ask whether an event's work is done without waiting
 * (cudaEventQuery).  The stream is held busy by a host function that waits
 * until main releases it, so the answer is "not ready" on every run.
 */
#include "common.h"

#include <clstream_kernels.h> /* cls_kernel_arith: examples/arith.cl */

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int released;

/* Runs on a library thread, in stream order; must not call clstream. */
static void hold_stream(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  while (!released) pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);
}

static void release_stream(void) {
  pthread_mutex_lock(&lock);
  released = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&lock);
}

/* clsEventQuery answers clsSuccess (done) or clsErrorNotReady. */
static const char *state(clsEvent_t e) {
  clsError_t err = clsEventQuery(e);
  if (err == clsErrorNotReady) return "not ready";
  CHECK(err);
  return "ready";
}

int main(void) {
  int t[5] = {1, 2, 3, 4, 5};
  int k = 3;
  unsigned n = 5;
  int *d_t;
  clsModule_t mod;
  clsFunction_t scale;
  clsStream_t stream;
  clsEvent_t done;

  print_device();
  CHECK(clsModuleLoadData(&mod, cls_kernel_arith, NULL));
  CHECK(clsModuleGetFunction(&scale, mod, "scale"));
  CHECK(clsMalloc((void **)&d_t, sizeof t));
  CHECK(clsMemcpy(d_t, t, sizeof t, clsMemcpyHostToDevice));

  /* The stream runs hold_stream, then t *= 3, then the event's record. */
  CHECK(clsStreamCreate(&stream));
  CHECK(clsEventCreate(&done));
  CHECK(clsLaunchHostFunc(stream, hold_stream, NULL));
  void *args[] = {&d_t, &k, &n};
  CHECK(clsLaunchKernel(scale, (clsDim3){1, 1, 1}, (clsDim3){n, 1, 1}, args, 0,
                        stream));
  CHECK(clsEventRecord(done, stream));

  printf("before synchronize: %s\n", state(done));
  release_stream();
  CHECK(clsEventSynchronize(done));
  printf("after synchronize: %s\n", state(done));

  CHECK(clsMemcpy(t, d_t, sizeof t, clsMemcpyDeviceToHost));
  print_ints(t, 5);

  CHECK(clsEventDestroy(done));
  CHECK(clsStreamDestroy(stream));
  CHECK(clsFree(d_t));
  CHECK(clsModuleUnload(mod));
  return 0;
}
