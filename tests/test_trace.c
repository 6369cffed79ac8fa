/* The timeline trace (CLSTREAM_TRACE): lanes, ordering and durations. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct span {
  char name[64];
  unsigned tid;
  double ts, dur;
} span;

/* Whether span b starts at or after a's end.  The trace prints
 * microseconds with 3 decimals, so a span drawn right at the end of the
 * one before it (as a marker is, where the device stamps markers on
 * another clock) may differ from the sum of the other's numbers by the
 * rounding of that sum. */
static int starts_after_end(const span *b, const span *a) {
  return b->ts >= a->ts + a->dur - 0.0005;
}

/* Reads the "X" events of the trace file (one per line, as written). */
static int read_spans(const char *path, span *out, int max, int *lanes) {
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "no trace file at %s", path);
  char line[1024];
  int n = 0;
  *lanes = 0;
  ck_assert(fgets(line, sizeof line, f) != NULL);
  ck_assert_msg(strncmp(line, "{", 1) == 0, "not a JSON object: %s", line);
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, "\"ph\":\"M\"")) ++*lanes;
    const char *x = strstr(line, "\"ph\":\"X\"");
    if (!x || n == max) continue;
    span *s = &out[n];
    ck_assert(sscanf(strstr(line, "\"name\":\"") + 8, "%63[^\"]", s->name) ==
              1);
    ck_assert(sscanf(strstr(line, "\"tid\":") + 6, "%u", &s->tid) == 1);
    ck_assert(sscanf(strstr(line, "\"ts\":") + 5, "%lf", &s->ts) == 1);
    ck_assert(sscanf(strstr(line, "\"dur\":") + 6, "%lf", &s->dur) == 1);
    ++n;
  }
  fclose(f);
  return n;
}

static const span *find(const span *s, int n, const char *name, int nth) {
  for (int i = 0; i < n; ++i)
    if (strcmp(s[i].name, name) == 0 && nth-- == 0) return &s[i];
  return NULL;
}

START_TEST(trace_lanes_order_durations) {
  if (!forked_or_skip("trace_lanes_order_durations")) return;
  char path[] = "/tmp/clstream-trace-XXXXXX";
  int fd = mkstemp(path);
  ck_assert(fd >= 0);
  close(fd);
  setenv("CLSTREAM_TRACE", path, 1);
  clsDeviceProp prop;
  int dev;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&prop, dev));
  if (strcmp(prop.platformName, "CUDA") == 0) {
    printf("SKIP trace_lanes_order_durations: CLSTREAM_TRACE is an OpenCL "
           "build feature\n");
    return;
  }

  arith k;
  arith_load(&k);
  clsStream_t a, b;
  CK_OK(clsStreamCreate(&a));
  CK_OK(clsStreamCreate(&b));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  int *t = dev_ints(1024);
  static int host[1024];
  CK_OK(launch_fill(&k, a, t, 3, 1024));
  CK_OK(clsMemcpyAsync(host, t, sizeof host, clsMemcpyDeviceToHost, a));
  CK_OK(clsEventRecord(e, a));
  CK_OK(clsStreamWaitEvent(b, e, 0));
  CK_OK(launch_scale(&k, b, t, 2, 1024));
  atomic_int count = 0;
  CK_OK(clsLaunchHostFunc(b, hf_count, &count));
  CK_OK(clsMemsetAsync(t, 0, 16, b));
  /* A marker and a wait of their own: a timed record on an idle stream,
   * and a wait (on work a gate holds) that the stream's synchronization
   * turns into a command. */
  clsStream_t c, d;
  CK_OK(clsStreamCreateWithFlags(&c, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&d, clsStreamNonBlocking));
  clsEvent_t idle_rec, held;
  CK_OK(clsEventCreate(&idle_rec));
  CK_OK(clsEventCreate(&held));
  CK_OK(clsEventRecord(idle_rec, c));
  gate *g = gate_new();
  gate_hold(g, d);
  CK_OK(clsEventRecord(held, d));
  CK_OK(clsStreamWaitEvent(c, held, 0));
  gate_release(g);
  CK_OK(clsStreamSynchronize(c));
  CK_OK(clsDeviceSynchronize());
  ck_assert_int_eq(atomic_load(&count), 1);

  span s[64];
  int lanes;
  int n = read_spans(path, s, 64, &lanes);
  unlink(path);
  ck_assert_msg(lanes >= 2, "expected a lane per stream, got %d", lanes);
  const span *fill = find(s, n, "fill", 0), *copy = find(s, n, "memcpy", 0),
             *scale = find(s, n, "scale", 0),
             *host_fn = find(s, n, "host function", 0),
             *set = find(s, n, "memset", 0);
  ck_assert_msg(fill && copy && scale && host_fn && set,
                "missing commands in the trace (%d spans)", n);
  const span *wait = find(s, n, "wait", 0), *rec = NULL;
  ck_assert_msg(wait != NULL, "no wait in the trace");
  for (int i = 0; (rec = find(s, n, "record", i)) && rec->tid != wait->tid;)
    ++i;
  ck_assert_msg(rec != NULL, "no record marker in the waiting stream's lane");
  ck_assert_uint_ne(rec->tid, fill->tid);
  ck_assert_uint_ne(rec->tid, scale->tid);
  ck_assert(wait->ts >= rec->ts);
  /* Device work takes time. */
  ck_assert_msg(fill->dur > 0 && scale->dur > 0, "kernel durations %f %f",
                fill->dur, scale->dur);
  ck_assert_uint_eq(fill->tid, copy->tid);
  ck_assert_uint_eq(scale->tid, host_fn->tid);
  ck_assert_uint_eq(scale->tid, set->tid);
  ck_assert_uint_ne(fill->tid, scale->tid);
  for (int i = 0; i < n; ++i)
    ck_assert_msg(s[i].dur >= 0 && s[i].ts >= 0, "span %s: ts %f dur %f",
                  s[i].name, s[i].ts, s[i].dur);
  /* Stream order, and the cross-stream wait: scale starts after the copy
   * that the event captured has ended (where the device's timestamps can
   * show it: not on rusticl). */
  if (device_times_work()) {
    ck_assert(starts_after_end(copy, fill));
    ck_assert(starts_after_end(scale, copy));
    ck_assert(starts_after_end(host_fn, scale));
    ck_assert(starts_after_end(set, host_fn));
  }

  CK_OK(clsFree(t));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(a));
  CK_OK(clsStreamDestroy(b));
  arith_unload(&k);
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace");
  TCase *tc = tcase_create("trace");
  tcase_set_timeout(tc, 120);
  tcase_set_tags(tc, "gate"); /* support.h: tcase_tagged */
  tcase_add_test(tc, trace_lanes_order_durations);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
