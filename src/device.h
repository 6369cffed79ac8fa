/* Private to the front: the library's state (device.c), which is its
 * initialization and the calling thread's current device, with the
 * inline fast path that nearly every call takes, and the per-device
 * limits that launches are checked against. */
#ifndef CLSTREAM_DEVICE_H
#define CLSTREAM_DEVICE_H

#include "internal.h"

/* Initializes the library once; returns the init result every time. */
clsError_t cls__init(void);
/* The calling thread's current device once it is open, else -1 (device.c
 * owns it). */
extern _Thread_local int cls__current CLS__TLS_FAST;
/* cls__current_device when the thread has no open current device yet. */
clsError_t cls__current_device_open(int *dev);
/* The calling thread's current device, opened; fails with a reason.  The
 * hot path is one thread-local read. */
static inline clsError_t cls__current_device(int *dev) {
  int d = cls__current;
  if (CLS__LIKELY(d >= 0)) {
    *dev = d;
    return clsSuccess;
  }
  return cls__current_device_open(dev);
}
/* Per-device limits the front validates launches against. */
typedef struct cls__limits {
  int max_threads_per_block;
  int max_threads_dim[3];
  int max_grid[3];
  size_t shared_mem_per_block;
} cls__limits;
const cls__limits *cls__device_limits(int dev);

#endif /* CLSTREAM_DEVICE_H */
