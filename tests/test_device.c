/* Devices: count, selection (clsSetDevice, CLSTREAM_DEVICE), properties,
 * priority range, clsDeviceSynchronize, and the OpenCL backend's choice of
 * a host clock from its start-up samples (src/opencl/facts.h). */
#include "support.h"

#include "opencl/facts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(device_count) {
  int n = -1;
  CK_OK(clsGetDeviceCount(&n));
  ck_assert_int_ge(n, 1);
  CK_CLS(clsGetDeviceCount(NULL), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
}
END_TEST

START_TEST(set_and_get_device) {
  int n = 0, d = -1;
  CK_OK(clsGetDeviceCount(&n));
  CK_OK(clsGetDevice(&d));
  ck_assert_int_ge(d, 0);
  ck_assert_int_lt(d, n);
  CK_CLS(clsGetDevice(NULL), clsErrorInvalidValue);
  CK_CLS(clsSetDevice(-1), clsErrorInvalidDevice);
  CK_CLS(clsSetDevice(n), clsErrorInvalidDevice);
  CK_CLS(clsSetDevice(1 << 20), clsErrorInvalidDevice);
  CK_LAST(clsErrorInvalidDevice);
  /* A failed SetDevice leaves the current device alone. */
  int d2 = -1;
  CK_OK(clsGetDevice(&d2));
  ck_assert_int_eq(d2, d);
  CK_OK(clsSetDevice(d));
  CK_OK(clsGetDevice(&d2));
  ck_assert_int_eq(d2, d);
}
END_TEST

START_TEST(device_properties) {
  int n = 0, cur = -1;
  CK_OK(clsGetDeviceCount(&n));
  CK_OK(clsGetDevice(&cur));
  for (int d = 0; d < n; ++d) {
    clsDeviceProp p;
    memset(&p, 0xA5, sizeof p);
    CK_OK(clsGetDeviceProperties(&p, d));
    ck_assert_msg(memchr(p.name, '\0', sizeof p.name) != NULL,
                  "name not terminated");
    ck_assert_msg(p.name[0] != '\0', "device %d has no name", d);
    ck_assert_msg(memchr(p.platformName, '\0', sizeof p.platformName) != NULL,
                  "platform name not terminated");
    if (!p.selectable) continue;
    ck_assert_msg(p.totalGlobalMem > 0, "device %d totalGlobalMem 0", d);
    ck_assert_int_gt(p.multiProcessorCount, 0);
    ck_assert_int_gt(p.maxThreadsPerBlock, 0);
    for (int i = 0; i < 3; ++i) {
      ck_assert_int_gt(p.maxThreadsDim[i], 0);
      ck_assert_int_gt(p.maxGridSize[i], 0);
    }
    ck_assert_int_le(p.maxThreadsDim[0], p.maxThreadsPerBlock);
    /* Device memory comes from SVM or from buffers. */
    ck_assert_int_eq(p.svmCoarseGrain || p.bufferMemory, 1);
    ck_assert_int_eq(p.unifiedAddressing, !p.bufferMemory);
    ck_assert(p.bufferArgAlign >= 1);
    /* Row (elapsed time resolution): bounded by the device's profiling
     * resolution, at most 1 us on the drivers we know; 0 where the device
     * gives no usable timestamps (rusticl; test_event checks that
     * clsEventElapsedTime then fails). */
    ck_assert_msg(p.timerResolutionNs >= 0.0 && p.timerResolutionNs <= 1000.0,
                  "timerResolutionNs %g", p.timerResolutionNs);
  }
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, cur));
  ck_assert_int_eq(p.selectable, 1);
  CK_CLS(clsGetDeviceProperties(NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsGetDeviceProperties(&p, -1), clsErrorInvalidDevice);
  CK_CLS(clsGetDeviceProperties(&p, n), clsErrorInvalidDevice);
}
END_TEST

/* Row: priority range; a device without priorities reports 0, 0. */
START_TEST(priority_range) {
  int least = 12345, greatest = 12345;
  CK_OK(clsDeviceGetStreamPriorityRange(&least, &greatest));
  ck_assert_int_ge(least, greatest);
  int d = 0;
  CK_OK(clsGetDevice(&d));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, d));
  /* docs/semantics.md: least is 0; with priorities greatest is below it (-5 on
   * an H200 with CUDA), without them the range is 0..0. */
  ck_assert_int_eq(least, 0);
  if (p.streamPriorities)
    ck_assert_int_lt(greatest, 0);
  else
    ck_assert_int_eq(greatest, 0);
  if (strcmp(p.platformName, "CUDA") == 0 && strstr(p.name, "H200"))
    ck_assert_int_eq(greatest, -5);
}
END_TEST

/* clsDeviceSynchronize blocks until all work in every stream, host
 * functions included, is done. */
START_TEST(device_synchronize_waits_for_all_streams) {
  CK_OK(clsDeviceSynchronize()); /* nothing pending */
  clsStream_t s1, s2;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  gate *g1 = gate_new(), *g2 = gate_new();
  atomic_int after1 = 0, after2 = 0;
  gate_hold(g1, s1);
  gate_hold(g2, s2);
  CK_OK(clsLaunchHostFunc(s1, hf_count, &after1));
  CK_OK(clsLaunchHostFunc(s2, hf_count, &after2));

  bg_call c;
  bg_start(&c, bg_device_sync, NULL);
  sleep_ms(150);
  ck_assert_msg(!bg_done(&c), "clsDeviceSynchronize returned while held");
  /* Host functions of different streams may share one thread (CUDA runs
   * them all on one), so s1's next function need not run while g2 is
   * held: only check that the synchronize still waits. */
  gate_release(g1);
  sleep_ms(SETTLE_MS);
  ck_assert_msg(!bg_done(&c),
                "clsDeviceSynchronize returned while a non-blocking stream "
                "was held");
  gate_release(g2);
  CK_OK(bg_join(&c));
  CK_ATOMIC_EQ(after1, 1);
  CK_ATOMIC_EQ(after2, 1);
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
}
END_TEST

/* clsDeviceSynchronize also waits for work in a stream destroyed while
 * that work was pending. */
START_TEST(device_synchronize_waits_for_destroyed_stream) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  atomic_int after = 0;
  gate_hold(g, s);
  CK_OK(clsLaunchHostFunc(s, hf_count, &after));
  CK_OK(clsStreamDestroy(s));
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, bg_device_sync, NULL, g, 150,
                                     "clsDeviceSynchronize"));
  CK_ATOMIC_EQ(after, 1);
}
END_TEST

/* clsDeviceSynchronize on device a also waits for a clsStreamWaitEvent
 * that no command has consumed yet, here on work of device b. */
static clsError_t sync_device(void *p) {
  clsError_t e = clsSetDevice(*(int *)p);
  return e == clsSuccess ? clsDeviceSynchronize() : e;
}

START_TEST(device_synchronize_waits_for_unconsumed_wait) {
  int a, b;
  if (!two_devices("device_synchronize_waits_for_unconsumed_wait", &a, &b))
    return;
  CK_OK(clsSetDevice(b));
  clsStream_t sb;
  clsEvent_t eb;
  CK_OK(clsStreamCreateWithFlags(&sb, clsStreamNonBlocking));
  CK_OK(clsEventCreate(&eb));
  gate *g = gate_new();
  gate_hold(g, sb);
  CK_OK(clsEventRecord(eb, sb));
  CK_OK(clsSetDevice(a));
  clsStream_t sa;
  CK_OK(clsStreamCreateWithFlags(&sa, clsStreamNonBlocking));
  CK_OK(clsStreamWaitEvent(sa, eb, 0));
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, sync_device, &a, g, 150,
                                     "clsDeviceSynchronize"));
  CK_OK(clsStreamDestroy(sa));
  CK_OK(clsSetDevice(b));
  CK_OK(clsStreamDestroy(sb));
}
END_TEST

/* The current device is per host thread; objects belong to the device
 * current when they were created. */
typedef struct dev_thread {
  int set_to;
  clsError_t set_rc, get_rc;
  int got;
} dev_thread;

static void *set_device_thread(void *p) {
  dev_thread *t = p;
  t->set_rc = clsSetDevice(t->set_to);
  t->get_rc = clsGetDevice(&t->got);
  return NULL;
}

START_TEST(current_device_per_thread) {
  int a, b;
  if (!two_devices("current_device_per_thread", &a, &b)) return;
  CK_OK(clsSetDevice(a));
  dev_thread t = {b, clsErrorUnknown, clsErrorUnknown, -1};
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, set_device_thread, &t), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(t.set_rc, clsSuccess);
  ck_assert_int_eq(t.get_rc, clsSuccess);
  ck_assert_int_eq(t.got, b);
  int d = -1;
  CK_OK(clsGetDevice(&d));
  ck_assert_int_eq(d, a);
}
END_TEST

/* ---- CLSTREAM_DEVICE ------------------------------------------------- */

/* In a child process: one line per device, "index|selectable|name|platform". */
static int list_devices_child(int fd, void *arg) {
  (void)arg;
  int n = 0;
  if (clsGetDeviceCount(&n) != clsSuccess) return 2;
  for (int d = 0; d < n; ++d) {
    clsDeviceProp p;
    if (clsGetDeviceProperties(&p, d) != clsSuccess) return 3;
    dprintf(fd, "%d|%d|%s|%s\n", d, p.selectable, p.name, p.platformName);
  }
  return 0;
}

typedef struct devinfo {
  int n;
  int selectable[64];
  char name[64][256];
  char platform[64][256];
} devinfo;

static void list_devices(devinfo *di) {
  static char out[64 * 600];
  int rc = run_child(list_devices_child, NULL, out, sizeof out);
  ck_assert_msg(rc == 0, "device listing child failed (%d)", rc);
  memset(di, 0, sizeof *di);
  char *save = NULL;
  for (char *line = strtok_r(out, "\n", &save); line && di->n < 64;
       line = strtok_r(NULL, "\n", &save)) {
    char *f[4] = {0};
    char *p = line;
    for (int i = 0; i < 4; ++i) {
      f[i] = p;
      p = i < 3 ? strchr(p, '|') : NULL;
      if (i < 3) {
        ck_assert_ptr_nonnull(p);
        *p++ = '\0';
      }
    }
    int k = di->n++;
    di->selectable[k] = atoi(f[1]);
    snprintf(di->name[k], sizeof di->name[k], "%s", f[2]);
    snprintf(di->platform[k], sizeof di->platform[k], "%s", f[3]);
  }
  ck_assert_int_ge(di->n, 1);
}

static int contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; ++hay)
    if (strncasecmp(hay, needle, n) == 0) return 1;
  return n == 0;
}

static void swap_case(char *s) {
  for (; *s; ++s)
    *s = islower((unsigned char)*s) ? (char)toupper((unsigned char)*s)
                                    : (char)tolower((unsigned char)*s);
}

static int first_selectable(const devinfo *di) {
  for (int d = 0; d < di->n; ++d)
    if (di->selectable[d]) return d;
  return -1;
}

START_TEST(env_device_by_index) {
  if (!forked_or_skip("env_device_by_index")) return;
  setenv("CLSTREAM_SPLIT_DEVICES", "2", 1);
  devinfo di;
  list_devices(&di);
  int want = -1;
  for (int d = di.n - 1; d >= 0; --d)
    if (di.selectable[d]) {
      want = d;
      break;
    }
  ck_assert_int_ge(want, 0);
  char buf[16];
  snprintf(buf, sizeof buf, "%d", want);
  setenv("CLSTREAM_DEVICE", buf, 1);
  int d = -1;
  CK_OK(clsGetDevice(&d));
  ck_assert_int_eq(d, want);
  /* Objects are created on it. */
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

START_TEST(env_device_by_name_substring) {
  if (!forked_or_skip("env_device_by_name_substring")) return;
  devinfo di;
  list_devices(&di);
  int k = first_selectable(&di);
  ck_assert_int_ge(k, 0);
  /* A piece of the device name in the opposite case. */
  char sub[256];
  size_t len = strlen(di.name[k]);
  size_t from = len > 8 ? len / 4 : 0;
  size_t take = len - from > 12 ? 12 : len - from;
  memcpy(sub, di.name[k] + from, take);
  sub[take] = '\0';
  swap_case(sub);
  setenv("CLSTREAM_DEVICE", sub, 1);
  int d = -1;
  CK_OK(clsGetDevice(&d));
  ck_assert_int_ge(d, 0);
  ck_assert_int_lt(d, di.n);
  ck_assert_msg(contains_ci(di.name[d], sub) ||
                    contains_ci(di.platform[d], sub),
                "CLSTREAM_DEVICE='%s' chose device %d ('%s', '%s')", sub, d,
                di.name[d], di.platform[d]);
  ck_assert_msg(d <= k, "'%s' matched device %d but chose %d", sub, k, d);
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, NULL));
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventDestroy(e));
}
END_TEST

START_TEST(env_device_by_platform_substring) {
  if (!forked_or_skip("env_device_by_platform_substring")) return;
  devinfo di;
  list_devices(&di);
  int k = first_selectable(&di);
  ck_assert_int_ge(k, 0);
  if (di.platform[k][0] == '\0') {
    printf("SKIP env_device_by_platform_substring: no platform name\n");
    return;
  }
  char sub[256];
  snprintf(sub, sizeof sub, "%s", di.platform[k]);
  swap_case(sub);
  setenv("CLSTREAM_DEVICE", sub, 1);
  int d = -1;
  CK_OK(clsGetDevice(&d));
  ck_assert_int_ge(d, 0);
  ck_assert_int_lt(d, di.n);
  ck_assert_msg(contains_ci(di.name[d], sub) ||
                    contains_ci(di.platform[d], sub),
                "CLSTREAM_DEVICE='%s' chose device %d ('%s', '%s')", sub, d,
                di.name[d], di.platform[d]);
}
END_TEST

static void expect_bad_env_device(const char *value) {
  setenv("CLSTREAM_DEVICE", value, 1);
  clsStream_t s = NULL;
  clsError_t r = clsStreamCreate(&s);
  ck_assert_msg(r == clsErrorInvalidDevice || r == clsErrorNoDevice,
                "CLSTREAM_DEVICE='%s': clsStreamCreate gave %s", value,
                clsGetErrorName(r));
  CK_CLS2(clsGetLastError(), clsErrorInvalidDevice, clsErrorNoDevice);
  void *p = NULL;
  r = clsMalloc(&p, 64);
  ck_assert_msg(r == clsErrorInvalidDevice || r == clsErrorNoDevice,
                "CLSTREAM_DEVICE='%s': clsMalloc gave %s", value,
                clsGetErrorName(r));
  clsEvent_t e = NULL;
  r = clsEventCreate(&e);
  ck_assert_msg(r == clsErrorInvalidDevice || r == clsErrorNoDevice,
                "CLSTREAM_DEVICE='%s': clsEventCreate gave %s", value,
                clsGetErrorName(r));
}

/* A simulator (Oclgrind) is listed after every other device and is never
 * the default while a real device can be used.  Shows something only
 * where a simulator is installed (CI's Oclgrind run loads PoCL's driver
 * too); elsewhere it checks the order of what there is. */
START_TEST(simulator_ranks_last) {
  if (!forked_or_skip("simulator_ranks_last")) return;
  unsetenv("CLSTREAM_DEVICE");
  int n = 0;
  CK_OK(clsGetDeviceCount(&n));
  int sims = 0, real_selectable = 0;
  for (int d = 0; d < n; ++d) {
    clsDeviceProp p;
    CK_OK(clsGetDeviceProperties(&p, d));
    if (p.simulator)
      sims++;
    else {
      ck_assert_msg(sims == 0, "device %d (%s) is listed after a simulator", d,
                    p.name);
      if (p.selectable) real_selectable++;
    }
  }
  int def = -1;
  CK_OK(clsGetDevice(&def));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, def));
  if (real_selectable)
    ck_assert_msg(!p.simulator, "the default device %d (%s) is a simulator",
                  def, p.name);
  printf("NOTE simulator_ranks_last: %d devices, %d simulators, default %d "
         "(%s)\n",
         n, sims, def, p.name);
}
END_TEST

START_TEST(env_device_bad_name) {
  if (!forked_or_skip("env_device_bad_name")) return;
  expect_bad_env_device("no-such-device-zq9x");
}
END_TEST

START_TEST(env_device_bad_index) {
  if (!forked_or_skip("env_device_bad_index")) return;
  expect_bad_env_device("9999");
}
END_TEST

/* ---- The host clock's choice (facts.h, no device) ----------------------
 *
 * At start-up the OpenCL backend samples each candidate host clock five
 * times (an idle marker between two readings of that clock) and takes the
 * one clock all of whose samples fit the marker's stamps: none where none
 * fits, and none where two fit (they agree only for now). */

enum { NCLOCKS = 4, NSAMPLES = 5 };

/* A sample whose stamps lie between the host's readings. */
static cls__clock_sample fitting(uint64_t t) {
  return (cls__clock_sample){1, t, t + 10, t + 20, t + 30};
}

/* Every sample of clock c fits. */
static void all_fit(cls__clock_sample *s, int c) {
  for (int i = 0; i < NSAMPLES; ++i)
    s[c * NSAMPLES + i] = fitting(1000u * (uint64_t)(i + 1));
}

/* Every sample of clock c is 80 us ahead of the host's readings (as
 * NVIDIA's stamps are against CLOCK_REALTIME). */
static void all_ahead(cls__clock_sample *s, int c) {
  for (int i = 0; i < NSAMPLES; ++i) {
    cls__clock_sample *x = &s[c * NSAMPLES + i];
    *x = fitting(1000u * (uint64_t)(i + 1));
    x->queued += 80000;
    x->end += 80000;
  }
}

/* The warp-size workaround (facts.h, cls__facts_warp_const): PoCL 4.0 to
 * 6.x with sub-groups only. */
START_TEST(warp_const_by_version) {
  const char *v5 = "OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts, RELOC";
  ck_assert_int_eq(cls__facts_warp_const(v5, 1), 1);
  ck_assert_int_eq(cls__facts_warp_const(v5, 0), 0);
  ck_assert_int_eq(cls__facts_warp_const("OpenCL 3.0 PoCL 4.0", 1), 1);
  ck_assert_int_eq(cls__facts_warp_const("OpenCL 3.0 PoCL 6.0-pre", 1), 1);
  ck_assert_int_eq(cls__facts_warp_const("OpenCL 3.0 PoCL 3.1+debian", 1), 0);
  ck_assert_int_eq(cls__facts_warp_const("OpenCL 3.0 PoCL 7.0", 1), 0);
  ck_assert_int_eq(cls__facts_warp_const("OpenCL 3.0 CUDA 13.0.88", 1), 0);
  ck_assert_int_eq(cls__facts_warp_const(NULL, 1), 0);
}
END_TEST

START_TEST(host_clock_only_one_fits) {
  cls__clock_sample s[NCLOCKS * NSAMPLES] = {{0}};
  for (int c = 0; c < NCLOCKS; ++c) all_ahead(s, c);
  all_fit(s, 2);
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES), 2);
  all_ahead(s, 2);
  all_fit(s, 0);
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES), 0);
  /* A clock's samples left untaken (ok 0, as after a sample that did not
   * fit) never make it fit; equal stamps and readings do fit. */
  memset(s, 0, sizeof s);
  s[3 * NSAMPLES] = fitting(5);
  for (int i = 0; i < NSAMPLES; ++i)
    s[1 * NSAMPLES + i] = (cls__clock_sample){1, 7, 7, 7, 7};
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES), 1);
}
END_TEST

START_TEST(host_clock_none_fits) {
  cls__clock_sample s[NCLOCKS * NSAMPLES] = {{0}};
  for (int c = 0; c < NCLOCKS; ++c) all_ahead(s, c);
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES), -1);
  /* One sample out of five that does not fit spoils its clock, whichever
   * way it misses: END after the host's second reading, QUEUED before its
   * first, END before QUEUED, or a failed driver call. */
  static const int ways = 4;
  for (int way = 0; way < ways; ++way) {
    all_fit(s, 1);
    cls__clock_sample *x = &s[1 * NSAMPLES + 3];
    if (way == 0) x->end = x->after + 1;
    if (way == 1) x->queued = x->before - 1;
    if (way == 2) x->end = x->queued - 1;
    if (way == 3) x->ok = 0;
    ck_assert_msg(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES) == -1,
                  "a clock with a sample that misses (way %d) was taken", way);
  }
  /* No samples at all: nothing fits. */
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, 0), -1);
  ck_assert_int_eq(cls__facts_pick_host_clock(s, 0, NSAMPLES), -1);
}
END_TEST

START_TEST(host_clock_two_fit_gives_none) {
  cls__clock_sample s[NCLOCKS * NSAMPLES] = {{0}};
  for (int c = 0; c < NCLOCKS; ++c) all_ahead(s, c);
  all_fit(s, 0); /* CLOCK_MONOTONIC_RAW */
  all_fit(s, 1); /* CLOCK_MONOTONIC, agreeing with it for now */
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES), -1);
  all_ahead(s, 1);
  all_fit(s, 3); /* any two, not only neighbours */
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES), -1);
  for (int c = 0; c < NCLOCKS; ++c) all_fit(s, c);
  ck_assert_int_eq(cls__facts_pick_host_clock(s, NCLOCKS, NSAMPLES), -1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("device");
  TCase *tc = tcase_timed("device", 60);
  TCase *tc_gate_threads =
      tcase_tagged(s, "device_gate_threads", 60, "gate threads");
  TCase *tc_threads = tcase_tagged(s, "device_threads", 60, "threads");
  tcase_add_test(tc, device_count);
  tcase_add_test(tc, set_and_get_device);
  tcase_add_test(tc, device_properties);
  tcase_add_test(tc, priority_range);
  tcase_add_test(tc_gate_threads, device_synchronize_waits_for_all_streams);
  tcase_add_test(tc_gate_threads,
                 device_synchronize_waits_for_destroyed_stream);
  tcase_add_test(tc_gate_threads, device_synchronize_waits_for_unconsumed_wait);
  tcase_add_test(tc_threads, current_device_per_thread);
  tcase_add_test(tc, env_device_by_index);
  tcase_add_test(tc, env_device_by_name_substring);
  tcase_add_test(tc, env_device_by_platform_substring);
  tcase_add_test(tc, simulator_ranks_last);
  tcase_add_test(tc, env_device_bad_name);
  tcase_add_test(tc, env_device_bad_index);
  tcase_add_test(tc, warp_const_by_version);
  tcase_add_test(tc, host_clock_only_one_fits);
  tcase_add_test(tc, host_clock_none_fits);
  tcase_add_test(tc, host_clock_two_fit_gives_none);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
