/*
 * What every example shares: CHECK, which stops the program when a
 * clstream call fails, and two printing helpers.
 */
#ifndef CLSTREAM_EXAMPLES_COMMON_H
#define CLSTREAM_EXAMPLES_COMMON_H

#include <clstream.h>

#include <stdio.h>
#include <stdlib.h>

/* Runs a clstream call; on failure prints where and why, and exits 1. */
#define CHECK(call)                                                            \
  do {                                                                         \
    clsError_t check_err_ = (call);                                            \
    if (check_err_ != clsSuccess) {                                            \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
              clsGetErrorName(check_err_));                                    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* Prints "device N: NAME (PLATFORM)" for the current device, which
 * CLSTREAM_DEVICE picks (GPUs first, then the rest, such as PoCL's CPU). */
static inline void print_device(void) {
  int dev;
  clsDeviceProp prop;
  CHECK(clsGetDevice(&dev));
  CHECK(clsGetDeviceProperties(&prop, dev));
  printf("device %d: %s (%s)\n", dev, prop.name, prop.platformName);
}

/* Prints v as "[a, b, c]". */
static inline void print_ints(const int *v, int n) {
  printf("[");
  for (int i = 0; i < n; ++i) printf("%s%d", i ? ", " : "", v[i]);
  printf("]\n");
}

#endif /* CLSTREAM_EXAMPLES_COMMON_H */
