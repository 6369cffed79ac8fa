/* The host-thread mark, a front service (backend.h): a backend whose
 * runtime runs host functions on a thread of its own (CUDA's callback
 * thread) marks that thread, so that clstream calls made on it are
 * refused as from inside a host function.  It calls nothing of the
 * backend. */
#include "internal.h"

void cls__host_thread_mark(void) { cls__in_host_fn = 1; }
