/* Private to the front: the end of every public function (error.c), with
 * its common case inline, and the refusal of calls made inside a host
 * function.  cls__reason, cls__finish and cls__log_enabled, which the
 * backends use too, are the seam's front services (backend_services.h). */
#ifndef CLSTREAM_ERROR_H
#define CLSTREAM_ERROR_H

#include "backend.h"

#include <stdatomic.h>

/* Whether CLSTREAM_LOG is on: -1 not read yet, 0 off, 1 on (error.c). */
extern atomic_int cls__log_state;
/* cls__finish with its common case inline: a success with logging off
 * (or not asked about yet) leaves nothing to store, log or clear. */
static inline clsError_t cls__finish_fast(const char *func, clsError_t code) {
  if (CLS__LIKELY(code == clsSuccess) &&
      atomic_load_explicit(&cls__log_state, memory_order_relaxed) <= 0)
    return code;
  return cls__finish(func, code);
}
#define CLS__RETURN(code) return cls__finish_fast(__func__, (code))

/* Non-zero while the calling thread runs a host function or callback. */
extern _Thread_local int cls__in_host_fn CLS__TLS_FAST;
#define CLS__NOT_IN_HOST_FN()                                                  \
  do {                                                                         \
    if (CLS__UNLIKELY(cls__in_host_fn))                                        \
      CLS__RETURN(cls__reason(clsErrorNotPermitted,                            \
                              "called from a host function or callback"));     \
  } while (0)

#endif /* CLSTREAM_ERROR_H */
