/* Settings: clsGetSetting lists every CLSTREAM_* variable the library
 * reads, with the value in force, read once; docs/settings.md describes
 * each one; clsDeviceMatchesName says which devices a CLSTREAM_DEVICE
 * value names. */
#include "support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every variable the library reads.  A new one must be added to the
 * settings table (src/backend.h), to docs/settings.md and here. */
static const char *const known[] = {
    "CLSTREAM_DEVICE",         "CLSTREAM_LOG",
    "CLSTREAM_SPLIT_DEVICES",  "CLSTREAM_CONTEXT_PER_DEVICE",
    "CLSTREAM_TRACE",          "CLSTREAM_KERNEL_ARG_INFO",
    "CLSTREAM_ARG_CACHE",      "CLSTREAM_MEMORY",
    "CLSTREAM_HOST_INLINE",    "CLSTREAM_FLUSH_WAITED",
    "CLSTREAM_COMMAND_EVENTS", "CLSTREAM_TIMING_FALLBACK",
    "CLSTREAM_HOST_CLOCK",     "CLSTREAM_KERNEL_CACHE_GUARD",
};
enum { NKNOWN = sizeof known / sizeof known[0] };

/* The number of settings clsGetSetting lists; the end of the list is
 * clsErrorInvalidValue, stored as the last error. */
static int setting_count(void) {
  clsSetting s;
  int n = 0;
  while (clsGetSetting(&s, n) == clsSuccess) ++n;
  CK_LAST(clsErrorInvalidValue);
  return n;
}

/* The setting called `name`, which must be listed. */
static clsSetting find(const char *name) {
  clsSetting s;
  for (int i = 0; clsGetSetting(&s, i) == clsSuccess; ++i)
    if (strcmp(s.name, name) == 0) return s;
  ck_abort_msg("%s is not listed by clsGetSetting", name);
  return s;
}

/* The list holds exactly the known variables, once each, every one with
 * a meaning and a default; bad arguments are refused. */
START_TEST(list_is_complete) {
  int n = setting_count();
  ck_assert_int_eq(n, NKNOWN);
  int seen[NKNOWN] = {0};
  for (int i = 0; i < n; ++i) {
    clsSetting s;
    CK_OK(clsGetSetting(&s, i));
    ck_assert_ptr_nonnull(s.name);
    ck_assert_msg(s.meaning && *s.meaning, "%s: no meaning", s.name);
    ck_assert_msg(s.whenUnset && *s.whenUnset, "%s: no default", s.name);
    int k = 0;
    while (k < NKNOWN && strcmp(known[k], s.name) != 0) ++k;
    ck_assert_msg(k < NKNOWN, "unexpected setting %s", s.name);
    ck_assert_msg(!seen[k]++, "%s listed twice", s.name);
  }
  clsSetting s;
  CK_CLS(clsGetSetting(&s, -1), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_CLS(clsGetSetting(&s, n), clsErrorInvalidValue);
  CK_CLS(clsGetSetting(NULL, 0), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_LAST(clsSuccess);
}
END_TEST

/* The value in force of setting `name`: NULL, or equal to `want`. */
static void expect_value(const char *name, const char *want) {
  clsSetting s = find(name);
  if (!want)
    ck_assert_msg(!s.value, "%s: '%s' in force, expected unset", name, s.value);
  else
    ck_assert_msg(s.value && strcmp(s.value, want) == 0,
                  "%s: '%s' in force, expected '%s'", name,
                  s.value ? s.value : "(unset)", want);
}

/* The properties of the current device, on the OpenCL build (0 on the
 * CUDA build, where the OpenCL settings do nothing). */
static int opencl_current_props(clsDeviceProp *p) {
  int dev = -1;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(p, dev));
  return strcmp(p->platformName, "CUDA") != 0;
}

/* Values set before the first call are the values in force, and the
 * library acts on them (CLSTREAM_MEMORY=buffers gives buffer memory);
 * unset ones read NULL. */
START_TEST(values_set_before_first_call) {
  if (!forked_or_skip("values_set_before_first_call")) return;
  setenv("CLSTREAM_MEMORY", "buffers", 1);
  setenv("CLSTREAM_ARG_CACHE", "1", 1);
  unsetenv("CLSTREAM_HOST_INLINE");
  expect_value("CLSTREAM_MEMORY", "buffers");
  expect_value("CLSTREAM_ARG_CACHE", "1");
  expect_value("CLSTREAM_HOST_INLINE", NULL);
  clsDeviceProp p;
  if (opencl_current_props(&p))
    ck_assert_msg(p.bufferMemory,
                  "CLSTREAM_MEMORY=buffers: %s does not use "
                  "buffers",
                  p.name);
}
END_TEST

/* Each setting is read once: a change to the environment after its first
 * use is not seen, neither by clsGetSetting nor by the library.  The run's
 * own environment may set any of them (CI's buffer run sets
 * CLSTREAM_MEMORY), and the process may have read them before this test
 * forked, so the test changes each away from the value it finds. */
static void expect_kept(const char *name, const char *other) {
  clsSetting s = find(name); /* the first read, if none came before */
  char was[256];
  snprintf(was, sizeof was, "%s", s.value ? s.value : "");
  setenv(name, s.value && strcmp(s.value, other) == 0 ? "x" : other, 1);
  expect_value(name, s.value ? was : NULL);
}
START_TEST(read_once) {
  if (!forked_or_skip("read_once")) return;
  expect_kept("CLSTREAM_HOST_CLOCK", "0");
  expect_kept("CLSTREAM_MEMORY", "buffers");
  /* The library sees what clsGetSetting showed: buffers exactly where the
   * setting in force asks for them, on a device with SVM. */
  clsSetting mem = find("CLSTREAM_MEMORY");
  int want_buffers = mem.value && strcmp(mem.value, "buffers") == 0;
  clsDeviceProp p;
  if (opencl_current_props(&p) && p.svmCoarseGrain)
    ck_assert_msg(p.bufferMemory == want_buffers,
                  "CLSTREAM_MEMORY changed after its first read was seen");
}
END_TEST

/* docs/settings.md (beside this file's folder) names every setting. */
START_TEST(docs_name_every_setting) {
  char path[4096];
  const char *here = __FILE__;
  const char *slash = strrchr(here, '/');
  if (!slash) {
    printf("SKIP docs_name_every_setting: no source path (%s)\n", here);
    return;
  }
  snprintf(path, sizeof path, "%.*s/../docs/settings.md", (int)(slash - here),
           here);
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("SKIP docs_name_every_setting: %s not found\n", path);
    return;
  }
  static char text[1 << 16];
  size_t got = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[got] = '\0';
  clsSetting s;
  for (int i = 0; clsGetSetting(&s, i) == clsSuccess; ++i) {
    char heading[128];
    snprintf(heading, sizeof heading, "`%s`", s.name);
    ck_assert_msg(strstr(text, heading), "%s does not name %s", path, s.name);
  }
  (void)clsGetLastError();
}
END_TEST

/* clsDeviceMatchesName follows CLSTREAM_DEVICE's rule: digits are an
 * index, anything else a case-insensitive piece of the device's or its
 * platform's name. */
START_TEST(device_matches_name) {
  int n = 0;
  CK_OK(clsGetDeviceCount(&n));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, 0));
  int m = -1;
  CK_OK(clsDeviceMatchesName(&m, 0, "0"));
  ck_assert_int_eq(m, 1);
  CK_OK(clsDeviceMatchesName(&m, 0, "1"));
  ck_assert_int_eq(m, 0);
  CK_OK(clsDeviceMatchesName(&m, 0, ""));
  ck_assert_int_eq(m, 0);
  /* A piece of the name and of the platform's name, case swapped. */
  const char *names[2] = {p.name, p.platformName};
  for (int k = 0; k < 2; ++k) {
    size_t len = strlen(names[k]);
    if (len == 0) continue;
    char piece[16];
    size_t take = len < 6 ? len : 6;
    for (size_t i = 0; i < take; ++i) {
      unsigned char c = (unsigned char)names[k][len - take + i];
      piece[i] = (char)(islower(c) ? toupper(c) : tolower(c));
    }
    piece[take] = '\0';
    int digits = 1;
    for (size_t i = 0; i < take; ++i)
      digits &= isdigit((unsigned char)piece[i]) != 0;
    if (digits) continue;
    m = -1;
    CK_OK(clsDeviceMatchesName(&m, 0, piece));
    ck_assert_msg(m == 1, "'%s' does not name device 0 (%s, %s)", piece, p.name,
                  p.platformName);
  }
  CK_OK(clsDeviceMatchesName(&m, 0, "no device has this name, surely"));
  ck_assert_int_eq(m, 0);
  CK_CLS(clsDeviceMatchesName(NULL, 0, "0"), clsErrorInvalidValue);
  CK_CLS(clsDeviceMatchesName(&m, 0, NULL), clsErrorInvalidValue);
  CK_CLS(clsDeviceMatchesName(&m, n, "0"), clsErrorInvalidDevice);
  CK_CLS(clsDeviceMatchesName(&m, -1, "0"), clsErrorInvalidDevice);
  CK_LAST(clsErrorInvalidDevice);
}
END_TEST

int main(void) {
  Suite *s = suite_create("settings");
  TCase *tc = tcase_timed("settings", 60);
  tcase_add_test(tc, list_is_complete);
  tcase_add_test(tc, values_set_before_first_call);
  tcase_add_test(tc, read_once);
  tcase_add_test(tc, docs_name_every_setting);
  tcase_add_test(tc, device_matches_name);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
