/* TSan repro (issue 3, point 1): clsGetDeviceProperties racing the first
 * use of the same device on another thread.
 *
 * cls__b_device_props (src/opencl/device.c) reads d->timing_fallback, a
 * plain int, without d->open_lock, while cls__validate_timestamps (called
 * by cls__open under d->open_lock, from the first call that needs the
 * device) writes it.  Two threads doing exactly what this test does are
 * a data race: undefined behaviour in C11, and clsDeviceProp.timingFallback
 * can be read half-way through the open.  Under -DCLSTREAM_SANITIZE=thread
 * this test fails with "ThreadSanitizer: data race ... in
 * cls__validate_timestamps" until the read is ordered after the open (for
 * example an atomic timing_fallback, or reading it only once d->opened is
 * 1 with acquire).  In a normal build it passes. */
#include "support.h"

static pthread_barrier_t start;

static void *open_device(void *p) {
  (void)p;
  pthread_barrier_wait(&start);
  clsStream_t s;
  clsError_t r = clsStreamCreate(&s); /* the first use opens the device */
  if (r == clsSuccess) r = clsStreamDestroy(s);
  return (void *)(intptr_t)r;
}

START_TEST(props_while_device_opens) {
  int n = 0, dev = 0;
  CK_OK(clsGetDeviceCount(&n)); /* initializes; opens no device */
  CK_OK(clsGetDevice(&dev));
  pthread_barrier_init(&start, NULL, 2);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, open_device, NULL), 0);
  pthread_barrier_wait(&start);
  int fallback_seen = 0;
  for (int i = 0; i < 20000; i++) {
    clsDeviceProp p;
    CK_OK(clsGetDeviceProperties(&p, dev));
    fallback_seen |= p.timingFallback;
  }
  void *r;
  pthread_join(t, &r);
  CK_OK((clsError_t)(intptr_t)r);
  pthread_barrier_destroy(&start);
  (void)fallback_seen;
}
END_TEST

int main(void) {
  Suite *s = suite_create("race_device_props");
  TCase *tc = tcase_timed("race_device_props", 60);
  tcase_add_test(tc, props_while_device_opens);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
