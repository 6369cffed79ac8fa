/* Errors: the last-error model, names and strings, the one error list
 * (CLS_ERROR_LIST) against all it produces, CLSTREAM_LOG. */
#include "support.h"

#include "clstream_cuda.h"

#include <ctype.h>
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

/* CUDA 13's codes as clstream lists them, written out here apart from
 * clstream.h's CLS_ERROR_LIST so that an edit of a number or a text in the
 * list (or a code added to it alone) fails a test.  Row: GetErrorName(x)
 * is the enum's name with the cls prefix; every code of the header is in
 * the table with CUDA's number, CUDA's name (clsGetErrorNameCuda, which
 * clstream_cuda.h gives as cudaGetErrorName) and a non-empty description,
 * CUDA 13.0's text where it is listed. */
#define CODE(x, num, str)                                                      \
  { cls##x, num, "cls" #x, "cuda" #x, str }
static const struct {
  clsError_t code;
  int number;
  const char *name, *cuda_name, *string;
} codes[] = {
    CODE(Success, 0, "no error"),
    CODE(ErrorInvalidValue, 1, "invalid argument"),
    CODE(ErrorMemoryAllocation, 2, "out of memory"),
    CODE(ErrorInitializationError, 3, "initialization error"),
    CODE(ErrorCudartUnloading, 4, "driver shutting down"),
    CODE(ErrorInvalidConfiguration, 9, "invalid configuration argument"),
    CODE(ErrorInvalidPitchValue, 12, "invalid pitch argument"),
    CODE(ErrorInvalidSymbol, 13, "invalid device symbol"),
    CODE(ErrorInvalidHostPointer, 16, "invalid host pointer"),
    CODE(ErrorInvalidDevicePointer, 17, "invalid device pointer"),
    CODE(ErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy"),
    CODE(ErrorStubLibrary, 34, "CUDA driver is a stub library"),
    CODE(ErrorInsufficientDriver, 35,
         "CUDA driver version is insufficient for CUDA runtime version"),
    CODE(ErrorCallRequiresNewerDriver, 36,
         "API call is not supported in the installed CUDA driver"),
    CODE(ErrorDevicesUnavailable, 46,
         "CUDA-capable device(s) is/are busy or unavailable"),
    CODE(ErrorMissingConfiguration, 52,
         "__global__ function call is not configured"),
    CODE(ErrorInvalidDeviceFunction, 98, "invalid device function"),
    CODE(ErrorNoDevice, 100, "no CUDA-capable device is detected"),
    CODE(ErrorInvalidDevice, 101, "invalid device ordinal"),
    CODE(ErrorInvalidKernelImage, 200, "device kernel image is invalid"),
    CODE(ErrorDeviceUninitialized, 201, "invalid device context"),
    CODE(ErrorNoKernelImageForDevice, 209,
         "no kernel image is available for execution on the device"),
    CODE(ErrorECCUncorrectable, 214, "uncorrectable ECC error encountered"),
    CODE(ErrorUnsupportedLimit, 215,
         "limit is not supported on this architecture"),
    CODE(ErrorDeviceAlreadyInUse, 216,
         "exclusive-thread device already in use by a different thread"),
    CODE(ErrorPeerAccessUnsupported, 217,
         "peer access is not supported between these two devices"),
    CODE(ErrorInvalidPtx, 218, "a PTX JIT compilation failed"),
    CODE(ErrorJitCompilerNotFound, 221, "PTX JIT compiler library not found"),
    CODE(ErrorUnsupportedPtxVersion, 222,
         "the provided PTX was compiled with an unsupported toolchain."),
    CODE(ErrorJitCompilationDisabled, 223, "PTX JIT compilation was disabled"),
    CODE(ErrorInvalidSource, 300, "device kernel image is invalid"),
    CODE(ErrorSharedObjectSymbolNotFound, 302,
         "shared object symbol not found"),
    CODE(ErrorSharedObjectInitFailed, 303,
         "shared object initialization failed"),
    CODE(ErrorInvalidResourceHandle, 400, "invalid resource handle"),
    CODE(ErrorIllegalState, 401,
         "the operation cannot be performed in the present state"),
    CODE(ErrorSymbolNotFound, 500, "named symbol not found"),
    CODE(ErrorNotReady, 600, "device not ready"),
    CODE(ErrorIllegalAddress, 700, "an illegal memory access was encountered"),
    CODE(ErrorLaunchOutOfResources, 701,
         "too many resources requested for launch"),
    CODE(ErrorLaunchTimeout, 702, "the launch timed out and was terminated"),
    CODE(ErrorPeerAccessAlreadyEnabled, 704, "peer access is already enabled"),
    CODE(ErrorPeerAccessNotEnabled, 705, "peer access has not been enabled"),
    CODE(ErrorContextIsDestroyed, 709, "context is destroyed"),
    CODE(ErrorAssert, 710, "device-side assert triggered"),
    CODE(ErrorHostMemoryAlreadyRegistered, 712,
         "part or all of the requested memory range is already mapped"),
    CODE(ErrorHostMemoryNotRegistered, 713,
         "pointer does not correspond to a registered memory region"),
    CODE(ErrorHardwareStackError, 714, "hardware stack error"),
    CODE(ErrorIllegalInstruction, 715,
         "an illegal instruction was encountered"),
    CODE(ErrorMisalignedAddress, 716, "misaligned address"),
    CODE(ErrorInvalidAddressSpace, 717,
         "operation not supported on global/shared address space"),
    CODE(ErrorInvalidPc, 718, "invalid program counter"),
    CODE(ErrorLaunchFailure, 719, "unspecified launch failure"),
    CODE(ErrorCooperativeLaunchTooLarge, 720,
         "too many blocks in cooperative launch"),
    CODE(ErrorNotPermitted, 800, "operation not permitted"),
    CODE(ErrorNotSupported, 801, "operation not supported"),
    CODE(ErrorSystemNotReady, 802, "system not yet initialized"),
    CODE(ErrorSystemDriverMismatch, 803,
         "system has unsupported display driver / cuda driver combination"),
    CODE(ErrorStreamCaptureUnsupported, 900,
         "operation not permitted when stream is capturing"),
    CODE(ErrorStreamCaptureInvalidated, 901,
         "operation failed due to a previous error during capture"),
    CODE(ErrorStreamCaptureMerge, 902,
         "operation would result in a merge of separate capture sequences"),
    CODE(ErrorStreamCaptureUnmatched, 903,
         "capture was not ended in the same stream as it began"),
    CODE(ErrorStreamCaptureUnjoined, 904, "capturing stream has unjoined work"),
    CODE(ErrorStreamCaptureIsolation, 905,
         "dependency created on uncaptured work in another stream"),
    CODE(ErrorStreamCaptureImplicit, 906,
         "operation would make the legacy stream depend on a capturing "
         "blocking stream"),
    CODE(ErrorCapturedEvent, 907,
         "operation not permitted on an event last recorded in a "
         "capturing stream"),
    CODE(ErrorStreamCaptureWrongThread, 908,
         "attempt to terminate a thread-local capture sequence from another "
         "thread"),
    CODE(ErrorTimeout, 909, "wait operation timed out"),
    CODE(ErrorUnknown, 999, "unknown error"),
};

START_TEST(error_names_table) {
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
    const char *n = clsGetErrorName(codes[i].code);
    const char *s = clsGetErrorString(codes[i].code);
    ck_assert_ptr_nonnull(n);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(n, codes[i].name);
    ck_assert_str_eq(clsGetErrorNameCuda(codes[i].code), codes[i].cuda_name);
    ck_assert_str_eq(s, codes[i].string);
  }
}
END_TEST

/* The numeric values equal cudaError_t's. */
START_TEST(error_numeric_values) {
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i)
    ck_assert_msg((int)codes[i].code == codes[i].number, "%s is %d, not %d",
                  codes[i].name, (int)codes[i].code, codes[i].number);
  ck_assert_int_eq(clsErrorContextIsDestroyed, 709);
  ck_assert_int_eq(clsErrorNotReady, 600);
}
END_TEST

/* The one list, expanded here as clstream.h, src/error.c and
 * clstream_cuda.h use it: each entry's enumerator, name, CUDA name,
 * description, and the alias (cudaNAME, a macro; STR gives what it
 * expands to, so a missing alias is a compile error here and a wrong one
 * a failure below). */
#define STR(x) STR_(x)
#define STR_(x) #x
#define LISTED(x, num, text)                                                   \
  {.code = cls##x,                                                             \
   .number = num,                                                              \
   .name = "cls" #x,                                                           \
   .cuda_name = "cuda" #x,                                                     \
   .string = text,                                                             \
   .alias = cuda##x,                                                           \
   .alias_expansion = STR(cuda##x)},
static const struct {
  clsError_t code;
  int number;
  const char *name, *cuda_name, *string;
  int alias;
  const char *alias_expansion;
} listed[] = {CLS_ERROR_LIST(LISTED)};
#undef LISTED
#define NLISTED (sizeof listed / sizeof listed[0])

/* The number the list gives for a name, or -1 where no entry has it. */
static int listed_number(const char *name) {
  for (size_t i = 0; i < NLISTED; ++i)
    if (strcmp(listed[i].name, name) == 0) return listed[i].number;
  return -1;
}

/* Every code round-trips: enumerator -> clsGetErrorName -> the same
 * number through the list; the cuda alias is the same enumerator; the
 * description is clsGetErrorString's, neither empty nor the unknown
 * code's; no two entries share a number. */
START_TEST(error_list_round_trip) {
  for (size_t i = 0; i < NLISTED; ++i) {
    const char *n = clsGetErrorName(listed[i].code);
    ck_assert_msg((int)listed[i].code == listed[i].number, "%s is %d, not %d",
                  listed[i].name, (int)listed[i].code, listed[i].number);
    ck_assert_str_eq(n, listed[i].name);
    ck_assert_msg(strncmp(n, "cls", 3) == 0, "name %s", n);
    ck_assert_int_eq(listed_number(n), listed[i].number);
    ck_assert_str_eq(clsGetErrorNameCuda(listed[i].code), listed[i].cuda_name);
    ck_assert_str_eq(listed[i].alias_expansion, listed[i].name);
    ck_assert_int_eq(listed[i].alias, listed[i].number);
    const char *s = clsGetErrorString(listed[i].code);
    ck_assert_str_eq(s, listed[i].string);
    ck_assert_msg(s[0] != '\0', "%s has an empty description", n);
    ck_assert_str_ne(s, "unrecognized error code");
    for (size_t j = 0; j < i; ++j)
      ck_assert_msg(listed[j].number != listed[i].number, "%s and %s share %d",
                    listed[j].name, n, listed[i].number);
  }
}
END_TEST

/* The path of include/clstream_cuda.h, from this file's (__FILE__ ends
 * in tests/test_error.c), or NULL. */
static char *cuda_header_path(void) {
  static const char tail[] = "tests/test_error.c";
  size_t n = strlen(__FILE__), t = sizeof tail - 1;
  if (n < t || strcmp(__FILE__ + n - t, tail) != 0) return NULL;
  static const char header[] = "include/clstream_cuda.h";
  char *path = malloc(n - t + sizeof header);
  if (!path) return NULL;
  memcpy(path, __FILE__, n - t);
  memcpy(path + n - t, header, sizeof header);
  return path;
}

/* The error aliases that clstream_cuda.h defines (`#define cudaSuccess`,
 * `#define cudaErrorX`), each checked against the list; their count. */
static size_t count_header_aliases(void) {
  char *path = cuda_header_path();
  FILE *f = path ? fopen(path, "r") : NULL;
  ck_assert_msg(f != NULL, "cannot read %s", path ? path : __FILE__);
  char line[256], alias[128], target[128];
  size_t count = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "#define %127s %127s", alias, target) != 2) continue;
    if (strcmp(alias, "cudaSuccess") != 0 &&
        (strncmp(alias, "cudaError", 9) != 0 || !isupper(alias[9])))
      continue; /* another name, or the enum's tag (cudaError) */
    ck_assert_msg(strcmp(alias + 4, target + 3) == 0 &&
                      strncmp(target, "cls", 3) == 0,
                  "%s is %s", alias, target);
    ck_assert_msg(listed_number(target) >= 0, "%s: %s is not in the list",
                  alias, target);
    ++count;
  }
  fclose(f);
  free(path);
  return count;
}

/* As many codes everywhere: the list, the table above, the codes the
 * library names (every number from -1 to 2000 tried), the header's
 * aliases; 68 in CUDA 13's numbering. */
START_TEST(error_list_counts) {
  size_t named = 0;
  for (int c = -1; c <= 2000; ++c)
    named +=
        strcmp(clsGetErrorName((clsError_t)c), "unrecognized error code") != 0;
  ck_assert_uint_eq(NLISTED, 68);
  ck_assert_uint_eq(sizeof codes / sizeof codes[0], NLISTED);
  ck_assert_uint_eq(named, NLISTED);
  ck_assert_uint_eq(count_header_aliases(), NLISTED);
  for (size_t i = 0; i < NLISTED; ++i)
    ck_assert_int_eq(listed_number(codes[i].name), codes[i].number);
}
END_TEST

/* The CUDA names: "cudaErrorNotReady" where clsGetErrorName gives
 * "clsErrorNotReady"; an unknown code is unrecognized in both. */
START_TEST(cuda_error_names) {
  ck_assert_str_eq(clsGetErrorNameCuda(clsErrorNotReady), "cudaErrorNotReady");
  ck_assert_str_eq(clsGetErrorNameCuda(clsSuccess), "cudaSuccess");
  ck_assert_str_eq(clsGetErrorNameCuda(clsErrorContextIsDestroyed),
                   "cudaErrorContextIsDestroyed");
  ck_assert_str_eq(clsGetErrorNameCuda((clsError_t)5555),
                   "unrecognized error code");
  ck_assert_str_eq(clsGetErrorName(clsErrorNotReady), "clsErrorNotReady");
  CK_LAST(clsSuccess);
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

/* clsGetLastErrorReason: with reasons kept (clsKeepErrorReasons, no
 * printing), a failed call's reason is what CLSTREAM_LOG would print after
 * the code; success keeps it; off again, a failure leaves "". */
START_TEST(kept_reason_without_log) {
  if (!forked_or_skip("kept_reason_without_log")) return;
  unsetenv("CLSTREAM_LOG");
  CK_OK(clsKeepErrorReasons(1));
  capture c;
  capture_begin(&c);
  clsError_t r = clsEventCreate(NULL);
  char *out = capture_end(&c);
  ck_assert_int_eq(r, clsErrorInvalidValue);
  ck_assert_msg(out[0] == '\0', "kept reasons printed: '%s'", out);
  free(out);
  const char *why = clsGetLastErrorReason();
  ck_assert_msg(why[0] != '\0', "no reason kept");
  char first[512];
  snprintf(first, sizeof first, "%s", why);
  int n = 0;
  CK_OK(clsGetDeviceCount(&n));
  CK_LAST(clsErrorInvalidValue);
  ck_assert_str_eq(clsGetLastErrorReason(), first);
  CK_OK(clsKeepErrorReasons(0));
  CK_CLS(clsStreamDestroy(NULL), clsErrorInvalidResourceHandle);
  ck_assert_str_eq(clsGetLastErrorReason(), "");
}
END_TEST

int main(void) {
  Suite *s = suite_create("error");
  TCase *tc = tcase_timed("error", 60);
  TCase *tc_gate = tcase_tagged(s, "error_gate", 60, "gate");
  TCase *tc_threads = tcase_tagged(s, "error_threads", 60, "threads");
  tcase_add_test(tc, failed_call_stores_last_error);
  tcase_add_test(tc, peek_does_not_clear);
  tcase_add_test(tc, success_keeps_last_error_newer_replaces);
  tcase_add_test(tc_threads, last_error_is_per_thread);
  tcase_add_test(tc_gate, not_ready_never_stored);
  tcase_add_test(tc, error_names_table);
  tcase_add_test(tc, error_numeric_values);
  tcase_add_test(tc, error_list_round_trip);
  tcase_add_test(tc, error_list_counts);
  tcase_add_test(tc, cuda_error_names);
  tcase_add_test(tc, unknown_code_unrecognized);
  tcase_add_test(tc, not_ready_string_and_name);
  tcase_add_test(tc, names_do_not_touch_last_error);
  tcase_add_test(tc, log_one_line_per_error);
  tcase_add_test(tc, no_log_by_default);
  tcase_add_test(tc, kept_reason_without_log);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
