/* The raw sides' error message (bench/raw.h), shared by both backends. */
#include "raw.h"

#include <stdarg.h>
#include <stdio.h>

static char err_msg[512];

int raw_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err_msg, sizeof err_msg, fmt, ap);
  va_end(ap);
  return -1;
}

const char *raw_error(void) { return err_msg; }
