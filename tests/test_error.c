/* Errors: the last-error model, names and strings, CLSTREAM_LOG. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row: a failed call stores its error as the thread's last error. */
START_TEST(failed_call_stores_last_error) {
  CK_LAST(clsSuccess);
  CK_CLS(clsEventCreate(NULL), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_LAST(clsSuccess);
}
END_TEST

/* Row: GetLastError returns and clears; PeekAtLastError does not clear. */
START_TEST(peek_does_not_clear) {
  CK_CLS(clsStreamCreate(NULL), clsErrorInvalidValue);
  CK_CLS(clsPeekAtLastError(), clsErrorInvalidValue);
  CK_CLS(clsPeekAtLastError(), clsErrorInvalidValue);
  CK_CLS(clsGetLastError(), clsErrorInvalidValue);
  CK_CLS(clsPeekAtLastError(), clsSuccess);
  CK_CLS(clsGetLastError(), clsSuccess);
}
END_TEST

/* The twin's model: a successful call does not reset the last error; a
 * newer failure replaces an older one. */
START_TEST(success_keeps_last_error_newer_replaces) {
  CK_CLS(clsEventCreate(NULL), clsErrorInvalidValue);
  int n = 0;
  CK_OK(clsGetDeviceCount(&n));
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));
  CK_CLS(clsPeekAtLastError(), clsErrorInvalidValue);
  CK_CLS(clsEventRecord(NULL, NULL), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_LAST(clsSuccess);
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Row: the last error is per host thread. */
typedef struct thread_err {
  clsError_t before, after_fail, last, last_again;
} thread_err;

static void *fail_on_thread(void *p) {
  thread_err *t = p;
  t->before = clsPeekAtLastError();
  t->after_fail = clsEventCreate(NULL);
  t->last = clsGetLastError();
  t->last_again = clsGetLastError();
  return NULL;
}

static void *peek_on_thread(void *p) {
  *(clsError_t *)p = clsPeekAtLastError();
  return NULL;
}

START_TEST(last_error_is_per_thread) {
  /* A failure on another thread does not show here. */
  thread_err t;
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, fail_on_thread, &t), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(t.before, clsSuccess);
  ck_assert_int_eq(t.after_fail, clsErrorInvalidValue);
  ck_assert_int_eq(t.last, clsErrorInvalidValue);
  ck_assert_int_eq(t.last_again, clsSuccess);
  CK_CLS(clsPeekAtLastError(), clsSuccess);

  /* A failure here does not show on another thread, and is still here. */
  CK_CLS(clsStreamCreateWithFlags(NULL, 0), clsErrorInvalidValue);
  clsError_t other = clsErrorUnknown;
  ck_assert_int_eq(pthread_create(&th, NULL, peek_on_thread, &other), 0);
  pthread_join(th, NULL);
  ck_assert_msg(other == clsSuccess, "other thread sees %s",
                clsGetErrorName(other));
  CK_LAST(clsErrorInvalidValue);
}
END_TEST

/* Row: NotReady is not stored as the last error (stream, event and
 * elapsed-time queries). */
START_TEST(not_ready_never_stored) {
  clsStream_t s;
  clsEvent_t start, end;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&start));
  CK_OK(clsEventCreate(&end));
  CK_OK(clsEventRecord(start, s));
  CK_OK(clsEventSynchronize(start));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(clsEventRecord(end, s));

  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  CK_LAST(clsSuccess);
  CK_CLS(clsEventQuery(end), clsErrorNotReady);
  CK_LAST(clsSuccess);
  float ms = -1.0f;
  CK_CLS(clsEventElapsedTime(&ms, start, end), clsErrorNotReady);
  CK_LAST(clsSuccess);
  /* NotReady does not overwrite an earlier real error either. */
  CK_CLS(clsEventCreate(NULL), clsErrorInvalidValue);
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  CK_LAST(clsErrorInvalidValue);

  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsEventQuery(end));
  CK_OK(clsEventDestroy(start));
  CK_OK(clsEventDestroy(end));
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Row: GetErrorName(x) is the enum's name with the cls prefix; every
 * code of the header is in the table with a non-empty description. */
#define CODE(x) {x, #x}
static const struct {
  clsError_t code;
  const char *name;
} codes[] = {
    CODE(clsSuccess),
    CODE(clsErrorInvalidValue),
    CODE(clsErrorMemoryAllocation),
    CODE(clsErrorInitializationError),
    CODE(clsErrorInvalidConfiguration),
    CODE(clsErrorInvalidDevicePointer),
    CODE(clsErrorInvalidMemcpyDirection),
    CODE(clsErrorNoDevice),
    CODE(clsErrorInvalidDevice),
    CODE(clsErrorInvalidKernelImage),
    CODE(clsErrorInvalidSource),
    CODE(clsErrorInvalidResourceHandle),
    CODE(clsErrorIllegalState),
    CODE(clsErrorSymbolNotFound),
    CODE(clsErrorNotReady),
    CODE(clsErrorLaunchOutOfResources),
    CODE(clsErrorLaunchFailure),
    CODE(clsErrorNotPermitted),
    CODE(clsErrorNotSupported),
    CODE(clsErrorUnknown),
};

START_TEST(error_names_table) {
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
    const char *n = clsGetErrorName(codes[i].code);
    const char *s = clsGetErrorString(codes[i].code);
    ck_assert_ptr_nonnull(n);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(n, codes[i].name);
    ck_assert_msg(s[0] != '\0', "empty string for %s", codes[i].name);
    ck_assert_msg(strcmp(s, "unrecognized error code") != 0,
                  "%s described as unrecognized", codes[i].name);
  }
}
END_TEST

/* The numeric values equal cudaError_t's. */
START_TEST(error_numeric_values) {
  ck_assert_int_eq(clsSuccess, 0);
  ck_assert_int_eq(clsErrorInvalidValue, 1);
  ck_assert_int_eq(clsErrorMemoryAllocation, 2);
  ck_assert_int_eq(clsErrorInitializationError, 3);
  ck_assert_int_eq(clsErrorInvalidConfiguration, 9);
  ck_assert_int_eq(clsErrorInvalidDevicePointer, 17);
  ck_assert_int_eq(clsErrorInvalidMemcpyDirection, 21);
  ck_assert_int_eq(clsErrorNoDevice, 100);
  ck_assert_int_eq(clsErrorInvalidDevice, 101);
  ck_assert_int_eq(clsErrorInvalidKernelImage, 200);
  ck_assert_int_eq(clsErrorInvalidSource, 300);
  ck_assert_int_eq(clsErrorInvalidResourceHandle, 400);
  ck_assert_int_eq(clsErrorIllegalState, 401);
  ck_assert_int_eq(clsErrorSymbolNotFound, 500);
  ck_assert_int_eq(clsErrorNotReady, 600);
  ck_assert_int_eq(clsErrorLaunchOutOfResources, 701);
  ck_assert_int_eq(clsErrorLaunchFailure, 719);
  ck_assert_int_eq(clsErrorNotPermitted, 800);
  ck_assert_int_eq(clsErrorNotSupported, 801);
  ck_assert_int_eq(clsErrorUnknown, 999);
}
END_TEST

/* Row: GetErrorName / GetErrorString of an unknown code. */
START_TEST(unknown_code_unrecognized) {
  const int unknown[] = {-1, 5555, 12345, 0x7fffffff};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
    clsError_t c = (clsError_t)unknown[i];
    ck_assert_str_eq(clsGetErrorName(c), "unrecognized error code");
    ck_assert_str_eq(clsGetErrorString(c), "unrecognized error code");
  }
}
END_TEST

/* Row: GetErrorString(NotReady) is "device not ready"; the name row. */
START_TEST(not_ready_string_and_name) {
  ck_assert_str_eq(clsGetErrorString(clsErrorNotReady), "device not ready");
  ck_assert_str_eq(clsGetErrorName(clsErrorNotReady), "clsErrorNotReady");
  ck_assert_str_eq(clsGetErrorName(clsSuccess), "clsSuccess");
  /* Static strings: the same pointer every time, usable with no device. */
  ck_assert_ptr_eq(clsGetErrorString(clsErrorNotReady),
                   clsGetErrorString(clsErrorNotReady));
}
END_TEST

/* The names work before anything else initialized the library, and do
 * not touch the last error. */
START_TEST(names_do_not_touch_last_error) {
  (void)clsGetErrorName((clsError_t)777);
  (void)clsGetErrorString((clsError_t)777);
  CK_LAST(clsSuccess);
}
END_TEST

/* CLSTREAM_LOG=1 prints exactly one line on stderr, naming the function,
 * for a call that fails; nothing for a call that succeeds. */
START_TEST(log_one_line_per_error) {
  if (!forked_or_skip("log_one_line_per_error")) return;
  setenv("CLSTREAM_LOG", "1", 1);
  int n = 0;
  CK_OK(clsGetDeviceCount(&n)); /* initialization output, if any, first */
  clsEvent_t e;
  CK_OK(clsEventCreate(&e));

  capture c;
  capture_begin(&c);
  clsError_t r = clsEventCreate(NULL);
  char *out = capture_end(&c);
  ck_assert_int_eq(r, clsErrorInvalidValue);
  size_t lines = 0;
  for (const char *p = out; *p; ++p) lines += *p == '\n';
  ck_assert_msg(lines == 1, "expected one line, got %zu: '%s'", lines, out);
  ck_assert_msg(strstr(out, "clsEventCreate") != NULL,
                "line does not name clsEventCreate: '%s'", out);
  free(out);

  capture_begin(&c);
  r = clsStreamDestroy(NULL);
  out = capture_end(&c);
  ck_assert_int_eq(r, clsErrorInvalidResourceHandle);
  lines = 0;
  for (const char *p = out; *p; ++p) lines += *p == '\n';
  ck_assert_msg(lines == 1, "expected one line, got %zu: '%s'", lines, out);
  ck_assert_msg(strstr(out, "clsStreamDestroy") != NULL,
                "line does not name clsStreamDestroy: '%s'", out);
  free(out);

  capture_begin(&c);
  r = clsEventRecord(e, NULL);
  clsError_t r2 = clsEventSynchronize(e);
  out = capture_end(&c);
  ck_assert_int_eq(r, clsSuccess);
  ck_assert_int_eq(r2, clsSuccess);
  ck_assert_msg(out[0] == '\0', "successful calls logged: '%s'", out);
  free(out);
  CK_OK(clsEventDestroy(e));
}
END_TEST

/* Without CLSTREAM_LOG, errors print nothing. */
START_TEST(no_log_by_default) {
  if (!forked_or_skip("no_log_by_default")) return;
  unsetenv("CLSTREAM_LOG");
  int n = 0;
  CK_OK(clsGetDeviceCount(&n));
  capture c;
  capture_begin(&c);
  clsError_t r = clsEventCreate(NULL);
  clsError_t r2 = clsStreamDestroy(NULL);
  char *out = capture_end(&c);
  ck_assert_int_eq(r, clsErrorInvalidValue);
  ck_assert_int_eq(r2, clsErrorInvalidResourceHandle);
  ck_assert_msg(out[0] == '\0', "logged without CLSTREAM_LOG: '%s'", out);
  free(out);
}
END_TEST

int main(void) {
  Suite *s = suite_create("error");
  TCase *tc = tcase_timed("error", 60);
  tcase_add_test(tc, failed_call_stores_last_error);
  tcase_add_test(tc, peek_does_not_clear);
  tcase_add_test(tc, success_keeps_last_error_newer_replaces);
  tcase_add_test(tc, last_error_is_per_thread);
  tcase_add_test(tc, not_ready_never_stored);
  tcase_add_test(tc, error_names_table);
  tcase_add_test(tc, error_numeric_values);
  tcase_add_test(tc, unknown_code_unrecognized);
  tcase_add_test(tc, not_ready_string_and_name);
  tcase_add_test(tc, names_do_not_touch_last_error);
  tcase_add_test(tc, log_one_line_per_error);
  tcase_add_test(tc, no_log_by_default);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
