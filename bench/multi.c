/*
 * The clstream side of clstream-bench's two-device rows, and the choice of
 * the peer device.  Device a is the benchmark's device, b its peer:
 *   xdev_wait      a: tiny kernel, record; b: wait for that event, tiny
 *                  kernel, record; synchronize (DisableTiming events)
 *   peer_copy_4k   4 KiB from a's memory to b's with clsMemcpyPeerAsync on
 *                  a stream of b, then synchronize that stream
 *   peer_copy_16m  the same with 16 MiB
 * Peer access is enabled both ways first where the devices allow it, as a
 * CUDA program would.
 */
#include "multi.h"

#include "clstream.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char msg[512];
static int da = -1, db = -1;
static clsModule_t mod;
static clsFunction_t fill;
static int *buf_a, *buf_b; /* 16 MiB on each device */
static clsStream_t sa, sb;
static clsEvent_t ea, eb;
static int counter;

static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return -1;
}

#define CKM(call)                                                              \
  do {                                                                         \
    clsError_t ckm_err_ = (call);                                              \
    if (ckm_err_ != clsSuccess)                                                \
      return fail("%s:%d: %s -> %s", __FILE__, __LINE__, #call,                \
                  clsGetErrorName(ckm_err_));                                  \
  } while (0)

const char *multi_ours_error(void) { return msg; }

/* Rank of device d among the devices before it with its name and
 * platform, as raw_open counts. */
static int rank_of(int d, const clsDeviceProp *p) {
  int nth = 0;
  for (int i = 0; i < d; ++i) {
    clsDeviceProp q;
    if (clsGetDeviceProperties(&q, i) == clsSuccess &&
        strcmp(q.name, p->name) == 0 &&
        strcmp(q.platformName, p->platformName) == 0)
      ++nth;
  }
  return nth;
}

/* Enables the current device's access to `peer` where it is possible. */
static void enable_peer(int peer) {
  int can = 0, cur = -1;
  if (clsGetDevice(&cur) == clsSuccess &&
      clsDeviceCanAccessPeer(&can, cur, peer) == clsSuccess && can)
    clsDeviceEnablePeerAccess(peer, 0); /* AlreadyEnabled is fine */
  clsGetLastError();
}

int multi_open(int dev, const char *source, const char *raw_source, int *peer,
               char *why, size_t whylen) {
  clsDeviceProp pa, pb;
  int n = 0;
  if (clsGetDeviceCount(&n) != clsSuccess ||
      clsGetDeviceProperties(&pa, dev) != clsSuccess) {
    snprintf(why, whylen, "no device list");
    return -1;
  }
  db = -1;
  for (int k = 1; k < n && db < 0; ++k) {
    int d = (dev + k) % n;
    if (clsGetDeviceProperties(&pb, d) == clsSuccess && pb.selectable &&
        strcmp(pb.platformName, pa.platformName) == 0)
      db = d;
  }
  if (db < 0) {
    snprintf(why, whylen,
             "one device of platform '%s' (PoCL: CLSTREAM_SPLIT_DEVICES=2)",
             pa.platformName);
    return -1;
  }
  da = dev;
  *peer = db;
  if (raw_multi_open(pa.platformName, pa.name, rank_of(da, &pa), pb.name,
                     rank_of(db, &pb), raw_source, why, whylen))
    return -1;
  clsError_t e = clsSetDevice(da);
  if (e == clsSuccess) e = clsModuleLoadData(&mod, source, NULL);
  if (e == clsSuccess) e = clsModuleGetFunction(&fill, mod, "fill");
  if (e == clsSuccess) e = clsMalloc((void **)&buf_a, 16 << 20);
  if (e == clsSuccess) enable_peer(db);
  if (e == clsSuccess) e = clsSetDevice(db);
  if (e == clsSuccess) e = clsMalloc((void **)&buf_b, 16 << 20);
  if (e == clsSuccess) enable_peer(da);
  if (e == clsSuccess) e = clsSetDevice(da);
  if (e != clsSuccess) {
    snprintf(why, whylen, "clstream set-up: %s", clsGetErrorName(e));
    return -1;
  }
  return 0;
}

void multi_close(void) {
  if (da < 0) return;
  clsSetDevice(db);
  clsFree(buf_b);
  clsSetDevice(da);
  clsFree(buf_a);
  if (mod) clsModuleUnload(mod);
  mod = NULL;
  buf_a = buf_b = NULL;
  clsGetLastError();
}

/* fill(t, v, 1) on s, the current device's stream. */
static int launch_fill(clsStream_t s, int *t) {
  int v = ++counter;
  unsigned one = 1;
  void *args[] = {&t, &v, &one};
  clsDim3 g = {1, 1, 1};
  CKM(clsLaunchKernel(fill, g, g, args, 0, s));
  return 0;
}

int multi_ours_setup(int sc) {
  CKM(clsSetDevice(da));
  CKM(clsStreamCreateWithFlags(&sa, clsStreamNonBlocking));
  CKM(clsEventCreateWithFlags(&ea, clsEventDisableTiming));
  CKM(clsSetDevice(db));
  CKM(clsStreamCreateWithFlags(&sb, clsStreamNonBlocking));
  CKM(clsEventCreateWithFlags(&eb, clsEventDisableTiming));
  (void)sc;
  return 0;
}

int multi_ours_reset(int sc) {
  (void)sc;
  return 0;
}

int multi_ours_run(int sc, unsigned inner) {
  if (sc == SC_XDEV_WAIT) {
    for (unsigned i = 0; i < inner; ++i) {
      CKM(clsSetDevice(da));
      if (launch_fill(sa, buf_a)) return -1;
      CKM(clsEventRecord(ea, sa));
      CKM(clsSetDevice(db));
      CKM(clsStreamWaitEvent(sb, ea, 0));
      if (launch_fill(sb, buf_b)) return -1;
      CKM(clsEventRecord(eb, sb));
      CKM(clsEventSynchronize(eb));
    }
    return 0;
  }
  /* The peer copies run with b current, on b's stream. */
  size_t n = bench_multi_bytes(sc);
  CKM(clsSetDevice(db));
  for (unsigned i = 0; i < inner; ++i) {
    CKM(clsMemcpyPeerAsync(buf_b, db, buf_a, da, n, sb));
    CKM(clsStreamSynchronize(sb));
  }
  return 0;
}

void multi_ours_teardown(int sc) {
  (void)sc;
  clsSetDevice(da);
  if (sa) clsStreamSynchronize(sa), clsStreamDestroy(sa);
  if (ea) clsEventDestroy(ea);
  clsSetDevice(db);
  if (sb) clsStreamSynchronize(sb), clsStreamDestroy(sb);
  if (eb) clsEventDestroy(eb);
  sa = sb = NULL;
  ea = eb = NULL;
  clsSetDevice(da);
  clsGetLastError();
}
