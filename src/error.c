/* Errors: the one table of names and strings, the per-thread last error,
 * and CLSTREAM_LOG. */
#include "error.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every code of CLS_ERROR_LIST (clstream.h) with its clstream name, CUDA's
 * name and its description. */
static const struct {
  clsError_t code;
  const char *name;
  const char *cuda_name;
  const char *string;
} cls__errors[] = {
#define CLS__ERROR_ROW(name, number, description)                              \
  {cls##name, "cls" #name, "cuda" #name, description},
    CLS_ERROR_LIST(CLS__ERROR_ROW)
#undef CLS__ERROR_ROW
};

static const char cls__unrecognized[] = "unrecognized error code";

static int cls__find(clsError_t code) {
  for (size_t i = 0; i < sizeof cls__errors / sizeof cls__errors[0]; ++i)
    if (cls__errors[i].code == code) return (int)i;
  return -1;
}

const char *clsGetErrorName(clsError_t error) {
  int i = cls__find(error);
  return i < 0 ? cls__unrecognized : cls__errors[i].name;
}

const char *clsGetErrorNameCuda(clsError_t error) {
  int i = cls__find(error);
  return i < 0 ? cls__unrecognized : cls__errors[i].cuda_name;
}

int cls__error_listed(int code) { return cls__find((clsError_t)code) >= 0; }

const char *clsGetErrorString(clsError_t error) {
  int i = cls__find(error);
  return i < 0 ? cls__unrecognized : cls__errors[i].string;
}

/* ---- Per-thread state ------------------------------------------------ */

static _Thread_local clsError_t cls__last_error CLS__TLS_FAST = clsSuccess;
_Thread_local int cls__in_host_fn CLS__TLS_FAST = 0;
static _Thread_local char cls__why[512];
/* 1 while cls__why holds the reason of the thread's last failed call
 * (clsGetLastErrorReason), kept until a later call records a reason.
 * One byte: the library's thread-locals must fit glibc's static TLS
 * surplus when it is dlopened (the Python package). */
static _Thread_local char cls__why_kept;

clsError_t clsGetLastError(void) {
  clsError_t e = cls__last_error;
  cls__last_error = clsSuccess;
  return e;
}

clsError_t clsPeekAtLastError(void) { return cls__last_error; }

/* ---- CLSTREAM_LOG ---------------------------------------------------- */

/* -1 unknown, 0 off, 1 CLSTREAM_LOG on (reasons kept and printed), 2
 * reasons kept but not printed (clsKeepErrorReasons). */
atomic_int cls__log_state = -1;

/* The state, reading CLSTREAM_LOG the first time. */
static int cls__log_read(void) {
  int s = atomic_load_explicit(&cls__log_state, memory_order_relaxed);
  if (CLS__LIKELY(s >= 0)) return s;
  const char *v = cls__setting(CLS__SET_LOG);
  s = v && *v && strcmp(v, "0") != 0;
  int expected = -1; /* clsKeepErrorReasons may have run meanwhile */
  if (!atomic_compare_exchange_strong(&cls__log_state, &expected, s))
    s = expected;
  return s;
}

int cls__log_enabled(void) { return cls__log_read() == 1; }

clsError_t clsKeepErrorReasons(int keep) {
  int s = cls__log_read();
  if (s == 1) return clsSuccess; /* CLSTREAM_LOG keeps them already */
  atomic_store_explicit(&cls__log_state, keep ? 2 : 0, memory_order_relaxed);
  return clsSuccess;
}

const char *clsGetLastErrorReason(void) {
  return cls__why_kept ? cls__why : "";
}

clsError_t cls__reason(clsError_t code, const char *fmt, ...) {
  if (cls__why_kept) { /* a new call's reason replaces the kept one */
    cls__why_kept = 0;
    cls__why[0] = '\0';
  }
  if (cls__log_read() > 0 && !cls__why[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cls__why, sizeof cls__why, fmt, ap);
    va_end(ap);
  }
  return code;
}

clsError_t cls__finish(const char *func, clsError_t code) {
  if (CLS__LIKELY(code == clsSuccess || code == clsErrorNotReady)) {
    /* A reason is only ever written with logging on. */
    if (CLS__UNLIKELY(
            atomic_load_explicit(&cls__log_state, memory_order_relaxed) > 0) &&
        cls__why[0] && !cls__why_kept)
      cls__why[0] = '\0'; /* recovered */
    return code;
  }
  cls__last_error = code;
  int s = cls__log_read();
  /* Still kept from an older failure: this call gave no reason. */
  if (s <= 0 || cls__why_kept) cls__why[0] = '\0';
  cls__why_kept = 1;
  if (s == 1) {
    fprintf(stderr, "clstream: %s: %s (%s)%s%s\n", func, clsGetErrorName(code),
            clsGetErrorString(code), cls__why[0] ? ": " : "", cls__why);
    fflush(stderr);
  }
  return code; /* cls__why stays, kept for clsGetLastErrorReason */
}
