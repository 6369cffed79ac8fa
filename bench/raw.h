/*
 * The raw-API side of clstream-bench: the same work as each clstream
 * scenario, written as a competent hand-written program against the API
 * clstream maps onto.  raw_opencl.c implements it for the OpenCL build (raw
 * OpenCL on the same device as clstream), raw_cuda.c for the CUDA build (the
 * CUDA runtime).  bench.c implements the same hooks for clstream and runs
 * the two sides interleaved.
 */
#ifndef CLSTREAM_BENCH_RAW_H
#define CLSTREAM_BENCH_RAW_H

#include <stddef.h>

/* Offsets (in ints) into the 4 KiB device buffer both sides use for kernel
 * arguments: multiples of 512 bytes, so that clstream's buffer path
 * (CLSTREAM_MEMORY=buffers) and raw sub-buffers accept them on every
 * device (CL_DEVICE_MEM_BASE_ADDR_ALIGN is at most 512 bytes there). */
enum { OFF_B = 128, OFF_SPIN = 256, OFF_IDLE = 384 };

/* The scenarios, in the order they run and print. */
enum bench_scenario {
  SC_RECORD_IDLE = 0,    /* event record on an idle stream */
  SC_QUERY_DONE,         /* query of a completed event */
  SC_SYNC_DONE,          /* synchronize of a completed event */
  SC_RECORD_SYNC,        /* record + synchronize on an empty stream */
  SC_KERNEL_RECORD_SYNC, /* tiny kernel + record + synchronize */
  SC_COPY_RECORD_SYNC,   /* 4-byte host-to-device copy + record + sync */
  SC_PINGPONG,           /* A: kernel, record; B: wait, kernel, record; sync
                            (sync-only events: DisableTiming) */
  SC_PINGPONG_TIMED,     /* the same with timing events */
  SC_HOSTFN,             /* host function round trip */
  SC_LEGACY_1,           /* launch on the legacy stream, 1 idle stream */
  SC_LEGACY_8,           /* ... 8 idle blocking streams */
  SC_LEGACY_64,          /* ... 64 idle blocking streams */
  SC_ELAPSED,            /* spin kernel timed by events vs host span */
  SC_FLAT_MEMORY,        /* record/query cycles; RSS before/after */
  SC_ALLOC_ASYNC,        /* ours: clsMallocAsync + tiny kernel + clsFreeAsync
                            in one stream, a synchronize every 16; raw: the
                            same work with malloc + free (the raw API's
                            allocation, kernel, wait, free), issue 13 */
  /* Graph rows (issue 28): N tiny kernels, then a synchronize.  Ours:
   * one replay of a captured graph; raw: N event-less enqueues of
   * prepared kernels (OpenCL) or a CUDA graph replay (CUDA); a third
   * side, "plain", launches the same N kernels through clstream. */
  SC_GRAPH_10,
  SC_GRAPH_100,
  SC_GRAPH_1000,
  /* Two devices, a and its peer b (issue 29; bench/multi.h): */
  SC_XDEV_WAIT,     /* a: kernel, record; b: wait, kernel, record; sync */
  SC_PEER_COPY_4K,  /* 4 KiB from a to b on b's stream, then its sync */
  SC_PEER_COPY_16M, /* the same with 16 MiB */
  SC_COUNT
};

/* Whether sc is a graph row, and its number of kernels. */
#define SC_IS_GRAPH(sc) ((sc) >= SC_GRAPH_10 && (sc) <= SC_GRAPH_1000)
#define SC_GRAPH_KERNELS(sc)                                                   \
  ((sc) == SC_GRAPH_10 ? 10u : (sc) == SC_GRAPH_100 ? 100u : 1000u)

/* What one side opened: shown in the report and the JSON. */
typedef struct raw_info {
  char api[32]; /* "OpenCL" or "CUDA runtime" */
  char device[256];
  char platform[256];
  char driver[128];
  char version[128]; /* API / platform version string */
} raw_info;

/* Opens the `nth` (0-based) device whose device name equals `device` and
 * whose platform name equals `platform` (the CUDA side ignores the
 * platform), and builds `source` (the kernel dialect, prelude included)
 * for it; the kernels used are fill(int *t, int v, unsigned n) and
 * spin(unsigned *out, unsigned iters).  Returns 0, or -1 with a message in
 * err. */
int raw_open(const char *device, const char *platform, int nth,
             const char *source, raw_info *info, char *err, size_t errlen);
void raw_close(void);

/* Per scenario: setup (param = the number of idle streams for the legacy
 * scenarios, the spin kernel's iterations for elapsed), run `inner`
 * operations (the timed part), reset (untimed, before every timed run:
 * brings the side back to the scenario's starting state), teardown.  Each
 * returns 0 or -1 (message in raw_error()). */
int raw_setup(int sc, unsigned param);
int raw_run(int sc, unsigned inner);
int raw_reset(int sc);
void raw_teardown(int sc);
/* The event-timed milliseconds of the last SC_ELAPSED run. */
double raw_elapsed_ms(void);
/* The last failure's message. */
const char *raw_error(void);
/* Sets the message raw_error() returns (printf format); returns -1. */
int raw_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The graph rows' raw side (raw_graph_opencl.c, raw_graph_cuda.c), with
 * the hooks above: kernel i of the N stores i + 1 in the buffer's first
 * int, and setup checks that one run leaves N there. */
int raw_graph_setup(int sc, unsigned param);
int raw_graph_run(int sc, unsigned inner);
int raw_graph_reset(int sc);
void raw_graph_teardown(int sc);

#endif /* CLSTREAM_BENCH_RAW_H */
