/*
 * The two-device rows of clstream-bench (issue 29): a cross-device wait and
 * peer copies, between the benchmark's device and a peer device.  bench.c
 * calls these hooks for the scenarios bench_multi_sc() names; multi.c is
 * the clstream side, raw_multi_opencl.c and raw_multi_cuda.c the raw side
 * (both devices in one OpenCL context; the CUDA runtime with cudaSetDevice
 * and peer access enabled both ways).
 */
#ifndef CLSTREAM_BENCH_MULTI_H
#define CLSTREAM_BENCH_MULTI_H

#include <stddef.h>

#include "raw.h"

/* 1 for the scenarios that need two devices. */
static inline int bench_multi_sc(int sc) {
  return sc == SC_XDEV_WAIT || sc == SC_PEER_COPY_4K || sc == SC_PEER_COPY_16M;
}

/* The bytes a peer-copy scenario copies. */
static inline size_t bench_multi_bytes(int sc) {
  return sc == SC_PEER_COPY_16M ? (size_t)16 << 20 : (size_t)4 << 10;
}

/* Opens both sides for device `dev` and its peer: the next selectable
 * device after it on the same platform, or the first before it.  Loads
 * `source` (the kernel dialect; `raw_source` with the prelude for the
 * raw side).  Returns 0, or -1 with the reason in why (the rows are then
 * skipped).  *peer gets the peer's index. */
int multi_open(int dev, const char *source, const char *raw_source, int *peer,
               char *why, size_t whylen);
void multi_close(void);

/* The clstream side; errors in multi_ours_error(). */
int multi_ours_setup(int sc);
int multi_ours_reset(int sc);
int multi_ours_run(int sc, unsigned inner);
void multi_ours_teardown(int sc);
const char *multi_ours_error(void);

/* The raw side (raw_multi_opencl.c or raw_multi_cuda.c); errors through
 * raw_fail / raw_error.  raw_multi_open gets the names and the rank among
 * devices of the same name (as raw_open) of both devices. */
int raw_multi_open(const char *platform, const char *name_a, int nth_a,
                   const char *name_b, int nth_b, const char *source, char *err,
                   size_t errlen);
void raw_multi_close(void);
int raw_multi_setup(int sc);
int raw_multi_reset(int sc);
int raw_multi_run(int sc, unsigned inner);
void raw_multi_teardown(int sc);

#if defined(CLS_BENCH_CUDA)
/* raw_cuda.c's fill kernel (a cudaKernel_t), for raw_multi_cuda.c. */
const void *raw_cuda_fill_kernel(void);
#endif

#endif /* CLSTREAM_BENCH_MULTI_H */
