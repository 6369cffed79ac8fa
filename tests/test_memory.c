/* Memory: allocation, copies (kinds, async, pinned), memset, and the
 * synchronous calls' ordering on the legacy default stream. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row: free of NULL -> Success, no operation. */
START_TEST(free_null) {
  CK_OK(clsFree(NULL));
  CK_OK(clsFreeHost(NULL));
  CK_LAST(clsSuccess);
}
END_TEST

/* Row: malloc with a NULL out pointer -> InvalidValue. */
START_TEST(malloc_null_out) {
  CK_CLS(clsMalloc(NULL, 64), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_CLS(clsMallocHost(NULL, 64), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
}
END_TEST

START_TEST(malloc_and_roundtrip) {
  enum { N = 1 << 16 };
  int *d = dev_ints(N);
  int *h = malloc(N * sizeof(int)), *back = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) h[i] = i * 7 - 3;
  CK_OK(clsMemcpy(d, h, N * sizeof(int), clsMemcpyHostToDevice));
  memset(back, 0, N * sizeof(int));
  CK_OK(clsMemcpy(back, d, N * sizeof(int), clsMemcpyDeviceToHost));
  ck_assert_int_eq(memcmp(h, back, N * sizeof(int)), 0);
  /* Two allocations do not overlap. */
  int *d2 = dev_ints(N);
  ck_assert_msg(d2 >= d + N || d2 + N <= d, "allocations overlap");
  CK_OK(clsFree(d));
  CK_OK(clsFree(d2));
  /* A huge allocation fails cleanly. */
  void *p = NULL;
  clsError_t r = clsMalloc(&p, (size_t)1 << 62);
  ck_assert_msg(r == clsErrorMemoryAllocation || r == clsErrorInvalidValue,
                "clsMalloc(2^62): %s", clsGetErrorName(r));
  free(h);
  free(back);
}
END_TEST

/* Row: memcpy with a kind outside the enum -> InvalidMemcpyDirection. */
START_TEST(memcpy_bad_kind) {
  int *d = dev_ints(16);
  int h[16] = {0};
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_CLS(clsMemcpy(d, h, sizeof h, (clsMemcpyKind)5),
         clsErrorInvalidMemcpyDirection);
  CK_LAST(clsErrorInvalidMemcpyDirection);
  CK_CLS(clsMemcpy(d, h, sizeof h, (clsMemcpyKind)-1),
         clsErrorInvalidMemcpyDirection);
  CK_CLS(clsMemcpy(d, h, sizeof h, (clsMemcpyKind)1000),
         clsErrorInvalidMemcpyDirection);
  CK_CLS(clsMemcpyAsync(d, h, sizeof h, (clsMemcpyKind)7, s),
         clsErrorInvalidMemcpyDirection);
  CK_LAST(clsErrorInvalidMemcpyDirection);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* clsMemcpyDefault infers the direction from the pointers; every
 * explicit kind works. */
START_TEST(memcpy_all_kinds_and_default) {
  enum { N = 1000 };
  int *d1 = dev_ints(N), *d2 = dev_ints(N);
  int h1[N], h2[N], h3[N];
  for (int i = 0; i < N; ++i) h1[i] = i ^ 0x5a5a;
  memset(h2, 0, sizeof h2);
  memset(h3, 0, sizeof h3);
  CK_OK(clsMemcpy(d1, h1, sizeof h1, clsMemcpyDefault)); /* H->D */
  CK_OK(clsMemcpy(d2, d1, sizeof h1, clsMemcpyDefault)); /* D->D */
  CK_OK(clsMemcpy(h2, d2, sizeof h1, clsMemcpyDefault)); /* D->H */
  ck_assert_int_eq(memcmp(h1, h2, sizeof h1), 0);
  CK_OK(clsMemcpy(h3, h2, sizeof h1, clsMemcpyDefault)); /* H->H */
  ck_assert_int_eq(memcmp(h1, h3, sizeof h1), 0);

  memset(h2, 0, sizeof h2);
  memset(h3, 0, sizeof h3);
  dev_set(d1, 0, N);
  dev_set(d2, 0, N);
  CK_OK(clsMemcpy(d1, h1, sizeof h1, clsMemcpyHostToDevice));
  CK_OK(clsMemcpy(d2, d1, sizeof h1, clsMemcpyDeviceToDevice));
  CK_OK(clsMemcpy(h2, d2, sizeof h1, clsMemcpyDeviceToHost));
  CK_OK(clsMemcpy(h3, h2, sizeof h1, clsMemcpyHostToHost));
  ck_assert_int_eq(memcmp(h1, h2, sizeof h1), 0);
  ck_assert_int_eq(memcmp(h1, h3, sizeof h1), 0);

  /* Default with interior pointers of an allocation. */
  int part[10];
  CK_OK(clsMemcpy(part, d2 + 500, sizeof part, clsMemcpyDefault));
  for (int i = 0; i < 10; ++i) ck_assert_int_eq(part[i], h1[500 + i]);
  CK_OK(clsMemcpy(d2 + 10, d1 + 20, 5 * sizeof(int), clsMemcpyDefault));
  CK_OK(clsMemcpy(part, d2 + 10, 5 * sizeof(int), clsMemcpyDefault));
  for (int i = 0; i < 5; ++i) ck_assert_int_eq(part[i], h1[20 + i]);

  /* Async Default too, with pinned memory. */
  int *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, sizeof h1));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsMemcpyAsync(pin, d1, sizeof h1, clsMemcpyDefault, s));
  CK_OK(clsStreamSynchronize(s));
  ck_assert_int_eq(memcmp(h1, pin, sizeof h1), 0);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFree(d1));
  CK_OK(clsFree(d2));
}
END_TEST

/* A zero-byte copy or memset is a no-op. */
START_TEST(zero_bytes) {
  int *d = dev_ints(4);
  int h[4] = {1, 2, 3, 4};
  dev_put(d, h, 4);
  CK_OK(clsMemcpy(d, h, 0, clsMemcpyHostToDevice));
  CK_OK(clsMemset(d, 0, 0));
  CK_OK(clsMemsetAsync(d, 0, 0, NULL));
  CK_OK(clsMemcpyAsync(d, h, 0, clsMemcpyHostToDevice, NULL));
  CK_OK(clsStreamSynchronize(NULL));
  int back[4];
  dev_get(back, d, 4);
  ck_assert_int_eq(memcmp(h, back, sizeof h), 0);
  CK_OK(clsFree(d));
}
END_TEST

/* Memset sets bytes to (unsigned char)value, sync and async, at any
 * offset. */
START_TEST(memset_bytes) {
  enum { N = 256 };
  unsigned char *d = NULL;
  CK_OK(clsMalloc((void **)&d, N));
  unsigned char h[N];
  CK_OK(clsMemset(d, 0x1ab, N)); /* only the low byte counts */
  CK_OK(clsMemcpy(h, d, N, clsMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) ck_assert_uint_eq(h[i], 0xab);
  CK_OK(clsMemset(d + 3, -1, 10));
  CK_OK(clsMemcpy(h, d, N, clsMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i)
    ck_assert_uint_eq(h[i], (i >= 3 && i < 13) ? 0xff : 0xab);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsMemsetAsync(d + 100, 7, 57, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsMemcpy(h, d, N, clsMemcpyDeviceToHost));
  for (int i = 100; i < 157; ++i) ck_assert_uint_eq(h[i], 7);
  ck_assert_uint_eq(h[99], 0xab);
  ck_assert_uint_eq(h[157], 0xab);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* Row: synchronous memcpy runs on the legacy default stream: it waits for
 * earlier work in blocking streams and returns when done. */
typedef struct copy_job {
  void *dst;
  const void *src;
  size_t n;
  clsMemcpyKind kind;
  int value;
} copy_job;

static clsError_t bg_memcpy(void *p) {
  copy_job *j = p;
  return clsMemcpy(j->dst, j->src, j->n, j->kind);
}

static clsError_t bg_memset(void *p) {
  copy_job *j = p;
  return clsMemset(j->dst, j->value, j->n);
}

START_TEST(sync_memcpy_waits_for_blocking_stream) {
  enum { N = 512 };
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 1, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s)); /* blocking */
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, d, 42, N));
  int h[N];
  memset(h, 0, sizeof h);
  copy_job j = {h, d, sizeof h, clsMemcpyDeviceToHost, 0};
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, bg_memcpy, &j, g, 200,
                                     "clsMemcpy (earlier blocking stream)"));
  host_expect(h, 42, N, "copy");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Starts fn(arg) in c and fails the test unless it returns while gate g
 * still holds a stream (the gate is released either way, so that a
 * blocked call cannot hang the test). */
static void expect_returns_while_held(bg_call *c, clsError_t (*fn)(void *),
                                      void *arg, gate *g, const char *what) {
  bg_start(c, fn, arg);
  int returned = bg_wait_done(c, 20000);
  if (!returned) gate_release(g);
  ck_assert_msg(returned, "%s waited for the held stream", what);
  CK_OK(bg_join(c));
}

/* Row: clsMemset of device memory returns at once, without waiting for
 * the held blocking-stream work it is ordered behind; the legacy stream
 * still orders it after that work (a fill of 42 that runs first). */
START_TEST(sync_memset_returns_at_once_but_ordered) {
  enum { N = 512 };
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 1, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s)); /* blocking */
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, d, 42, N));
  copy_job j = {d, NULL, N * sizeof(int), clsMemcpyDefault, 0x11};
  bg_call c;
  expect_returns_while_held(&c, bg_memset, &j, g, "clsMemset");
  /* Still pending on the legacy stream, behind the held fill. */
  CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d, 0x11111111, N, "memset after fill");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Row: clsMemcpy device to device returns at once, ordered like any
 * legacy-stream work: after the held fill of the source, and before a
 * later blocking-stream kernel that overwrites the source. */
START_TEST(sync_memcpy_d2d_returns_at_once_but_ordered) {
  enum { N = 512 };
  arith a;
  arith_load(&a);
  int *src = dev_ints(N), *dst = dev_ints(N);
  dev_set(src, 1, N);
  dev_set(dst, 2, N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  for (int kind = 0; kind < 2; ++kind) {
    gate *g = gate_new();
    gate_hold(g, s);
    CK_OK(launch_fill(&a, s, src, 42 + kind, N));
    copy_job j = {dst, src, N * sizeof(int),
                  kind ? clsMemcpyDefault : clsMemcpyDeviceToDevice, 0};
    bg_call c;
    expect_returns_while_held(&c, bg_memcpy, &j, g, "clsMemcpy D2D");
    /* Blocking-stream work issued now waits for the copy. */
    CK_OK(launch_fill(&a, s, src, 7, N));
    CK_CLS(clsStreamQuery(NULL), clsErrorNotReady);
    gate_release(g);
    CK_OK(clsStreamSynchronize(s));
    dev_expect(dst, 42 + kind, N, "dst after the copy");
    dev_expect(src, 7, N, "src after the later fill");
  }
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(src));
  CK_OK(clsFree(dst));
  arith_unload(&a);
}
END_TEST

/* Row: every clsMemcpy that touches host memory (host to device from
 * pageable or pinned memory, device to host, host to host) blocks until
 * it is done, and so, behind a held blocking stream, until the stream is
 * released. */
START_TEST(sync_memcpy_host_kinds_block_behind_blocking_stream) {
  enum { N = 256 };
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  int *pin = NULL, *pin2 = NULL;
  CK_OK(clsMallocHost((void **)&pin, N * sizeof(int)));
  CK_OK(clsMallocHost((void **)&pin2, N * sizeof(int)));
  int *page = malloc(N * sizeof(int)), *page2 = malloc(N * sizeof(int));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  static const char *names[] = {"H2D pageable", "H2D pinned",   "D2H pageable",
                                "D2H pinned",   "H2H pageable", "H2H pinned"};
  for (int k = 0; k < 6; ++k) {
    for (int i = 0; i < N; ++i) page[i] = pin[i] = 100 + k;
    memset(page2, 0, N * sizeof(int));
    memset(pin2, 0, N * sizeof(int));
    dev_set(d, 0, N);
    gate *g = gate_new();
    gate_hold(g, s);
    CK_OK(launch_fill(&a, s, d, 50 + k, N)); /* what D2H must see */
    copy_job j = {0};
    j.n = N * sizeof(int);
    switch (k) {
    case 0:
      j = (copy_job){d, page, j.n, clsMemcpyHostToDevice, 0};
      break;
    case 1:
      j = (copy_job){d, pin, j.n, clsMemcpyHostToDevice, 0};
      break;
    case 2:
      j = (copy_job){page2, d, j.n, clsMemcpyDeviceToHost, 0};
      break;
    case 3:
      j = (copy_job){pin2, d, j.n, clsMemcpyDeviceToHost, 0};
      break;
    case 4:
      j = (copy_job){page2, page, j.n, clsMemcpyHostToHost, 0};
      break;
    default:
      j = (copy_job){pin2, pin, j.n, clsMemcpyHostToHost, 0};
      break;
    }
    bg_call c;
    CK_OK(expect_blocked_until_release(&c, bg_memcpy, &j, g, SETTLE_MS,
                                       names[k]));
    if (k < 2) dev_expect(d, 100 + k, N, names[k]); /* after the fill */
    if (k == 2) host_expect(page2, 52, N, names[k]);
    if (k == 3) host_expect(pin2, 53, N, names[k]);
    if (k == 4) host_expect(page2, 104, N, names[k]);
    if (k == 5) host_expect(pin2, 105, N, names[k]);
  }
  CK_OK(clsStreamDestroy(s));
  free(page);
  free(page2);
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFreeHost(pin2));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Same row, other side: a held non-blocking stream does not delay a
 * synchronous copy. */
START_TEST(sync_memcpy_ignores_nonblocking_stream) {
  int *d = dev_ints(64);
  dev_set(d, 9, 64);
  clsStream_t nb;
  CK_OK(clsStreamCreateWithFlags(&nb, clsStreamNonBlocking));
  gate *g = gate_new();
  gate_hold(g, nb);
  int h[64];
  memset(h, 0, sizeof h);
  copy_job j = {h, d, sizeof h, clsMemcpyDeviceToHost, 0};
  bg_call c;
  bg_start(&c, bg_memcpy, &j);
  int done = bg_wait_done(&c, 20000);
  gate_release(g);
  ck_assert_msg(done, "clsMemcpy waited for a non-blocking stream");
  CK_OK(bg_join(&c));
  host_expect(h, 9, 64, "copy");
  copy_job m = {d, NULL, 64 * sizeof(int), clsMemcpyDefault, 0};
  gate *g2 = gate_new();
  gate_hold(g2, nb);
  bg_start(&c, bg_memset, &m);
  done = bg_wait_done(&c, 20000);
  gate_release(g2);
  ck_assert_msg(done, "clsMemset waited for a non-blocking stream");
  CK_OK(bg_join(&c));
  dev_expect(d, 0, 64, "memset");
  CK_OK(clsStreamSynchronize(nb));
  CK_OK(clsStreamDestroy(nb));
  CK_OK(clsFree(d));
}
END_TEST

/* The synchronous copy returns when done: legacy-stream work issued before
 * it (a held gate) is waited for, and the data is there on return. */
START_TEST(sync_memcpy_after_legacy_work) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(300);
  dev_set(d, 2, 300);
  gate *g = gate_new();
  gate_hold(g, NULL);
  CK_OK(launch_scale(&a, NULL, d, 8, 300));
  int h[300];
  copy_job j = {h, d, sizeof h, clsMemcpyDeviceToHost, 0};
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, bg_memcpy, &j, g, 150,
                                     "clsMemcpy (earlier legacy work)"));
  host_expect(h, 16, 300, "copy");
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

typedef struct async_job {
  copy_job j;
  clsStream_t s;
} async_job;

static clsError_t bg_memcpy_async(void *p) {
  async_job *a = p;
  return clsMemcpyAsync(a->j.dst, a->j.src, a->j.n, a->j.kind, a->s);
}

/* Row: async copy with pinned host memory returns before the copy is
 * done; the stream orders it. */
START_TEST(async_copy_pinned) {
  enum { N = 4096 };
  int *d = dev_ints(N);
  dev_set(d, 5, N);
  int *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, N * sizeof(int)));
  ck_assert_ptr_nonnull(pin);
  for (int i = 0; i < N; ++i) pin[i] = -1; /* host-accessible */
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  /* D->H into pinned memory, then overwrite the source: the copy must see
   * 5s (stream order), and must not have happened while held. */
  async_job aj = {{pin, d, N * sizeof(int), clsMemcpyDeviceToHost, 0}, s};
  bg_call c;
  bg_start(&c, bg_memcpy_async, &aj);
  int returned = bg_wait_done(&c, 20000);
  if (!returned) gate_release(g);
  ck_assert_msg(returned, "clsMemcpyAsync with pinned memory waited for the "
                          "stream");
  CK_OK(bg_join(&c));
  CK_OK(clsMemsetAsync(d, 0, N * sizeof(int), s));
  sleep_ms(SETTLE_MS);
  host_expect(pin, -1, N, "pinned before release");
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  host_expect(pin, 5, N, "pinned after sync");
  dev_expect(d, 0, N, "device after memset");

  /* H->D from pinned memory, ordered before a later D->H. */
  for (int i = 0; i < N; ++i) pin[i] = 77;
  int *pin2 = NULL;
  CK_OK(clsMallocHost((void **)&pin2, N * sizeof(int)));
  memset(pin2, 0, N * sizeof(int));
  gate *g2 = gate_new();
  gate_hold(g2, s);
  CK_OK(clsMemcpyAsync(d, pin, N * sizeof(int), clsMemcpyHostToDevice, s));
  CK_OK(clsMemcpyAsync(pin2, d, N * sizeof(int), clsMemcpyDeviceToHost, s));
  gate_release(g2);
  CK_OK(clsStreamSynchronize(s));
  host_expect(pin2, 77, N, "pinned round trip");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFreeHost(pin2));
  CK_OK(clsFree(d));
}
END_TEST

/* Row: clsMemcpyAsync host to device from pageable memory returns at
 * once, without waiting for the (held) stream, and the source may be
 * reused as soon as it returns (4 KiB and 1 MiB, as measured on CUDA). */
START_TEST(async_copy_pageable_source_reusable) {
  static const size_t sizes[] = {4096 / sizeof(int), (1 << 20) / sizeof(int)};
  for (int z = 0; z < 2; ++z) {
    size_t n = sizes[z];
    int *d = dev_ints(n);
    int *h = malloc(n * sizeof(int));
    for (size_t i = 0; i < n; ++i) h[i] = 31 + z;
    clsStream_t s;
    CK_OK(clsStreamCreate(&s));
    gate *g = gate_new();
    gate_hold(g, s);
    async_job aj = {{d, h, n * sizeof(int), clsMemcpyHostToDevice, 0}, s};
    bg_call c;
    bg_start(&c, bg_memcpy_async, &aj);
    int done = bg_wait_done(&c, 20000);
    if (done)
      for (size_t i = 0; i < n; ++i) h[i] = -7; /* reuse at once */
    sleep_ms(done ? SETTLE_MS / 4 : 0);
    CK_CLS(clsStreamQuery(s), clsErrorNotReady); /* still held */
    gate_release(g);
    ck_assert_msg(done, "clsMemcpyAsync from pageable memory waited for the "
                        "stream");
    CK_OK(bg_join(&c));
    CK_OK(clsStreamSynchronize(s));
    dev_expect(d, 31 + z, n, "device");
    free(h);
    CK_OK(clsStreamDestroy(s));
    CK_OK(clsFree(d));
  }
}
END_TEST

/* Row: clsMemcpyAsync device to pageable host memory returns only when
 * the copy is done, so it waits for the stream's earlier (held) work and
 * the data is there on return; into pinned memory it returns at once
 * (async_copy_pinned). */
START_TEST(async_d2h_pageable_returns_when_done) {
  enum { N = 1024 };
  arith a;
  arith_load(&a);
  int *d = dev_ints(N);
  dev_set(d, 3, N);
  int *h = malloc(N * sizeof(int));
  clsStream_t s;
  for (int f = 0; f < 2; ++f) {
    CK_OK(clsStreamCreateWithFlags(&s, f ? clsStreamNonBlocking : 0));
    memset(h, 0, N * sizeof(int));
    gate *g = gate_new();
    gate_hold(g, s);
    CK_OK(launch_fill(&a, s, d, 60 + f, N));
    async_job aj = {{h, d, N * sizeof(int),
                     f ? clsMemcpyDefault : clsMemcpyDeviceToHost, 0},
                    s};
    bg_call c;
    CK_OK(expect_blocked_until_release(&c, bg_memcpy_async, &aj, g, SETTLE_MS,
                                       "clsMemcpyAsync into pageable memory"));
    host_expect(h, 60 + f, N, "pageable destination on return");
    CK_OK(clsStreamDestroy(s));
  }
  free(h);
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Async copies and memsets on a destroyed stream are rejected. */
START_TEST(async_on_destroyed_stream) {
  int *d = dev_ints(16);
  int h[16] = {0};
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamDestroy(s));
  CK_CLS(clsMemcpyAsync(d, h, sizeof h, clsMemcpyHostToDevice, s),
         clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsMemsetAsync(d, 0, sizeof h, s), clsErrorInvalidResourceHandle);
  CK_OK(clsFree(d));
}
END_TEST

/* Copies, memsets and kernels interleave in stream order. */
START_TEST(async_mixed_stream_order) {
  enum { N = 2048 };
  arith a;
  arith_load(&a);
  int *x = dev_ints(N), *y = dev_ints(N);
  int *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, N * sizeof(int)));
  for (int i = 0; i < N; ++i) pin[i] = 4;
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(clsMemcpyAsync(x, pin, N * sizeof(int), clsMemcpyHostToDevice, s));
  CK_OK(launch_scale(&a, s, x, 3, N)); /* x = 12 */
  CK_OK(clsMemcpyAsync(y, x, N * sizeof(int), clsMemcpyDeviceToDevice, s));
  CK_OK(clsMemsetAsync(x, 0, N * sizeof(int), s)); /* x = 0 */
  CK_OK(launch_add(&a, s, x, y, x, N));            /* x = 12 */
  CK_OK(launch_scale(&a, s, y, 2, N));             /* y = 24 */
  CK_OK(clsMemcpyAsync(pin, y, N * sizeof(int), clsMemcpyDeviceToHost, s));
  sleep_ms(SETTLE_MS);
  host_expect(pin, 4, N, "pinned while held");
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  host_expect(pin, 24, N, "pinned");
  dev_expect(x, 12, N, "x");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFreeHost(pin));
  CK_OK(clsFree(x));
  CK_OK(clsFree(y));
  arith_unload(&a);
}
END_TEST

/* Row: clsFree and clsFreeHost wait for the pending work on the device
 * before freeing (here a non-blocking stream's, which nothing else orders). */
START_TEST(free_waits_for_pending_work) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(256);
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, d, 1, 256));
  bg_call c;
  CK_OK(expect_blocked_until_release(&c, bg_free, d, g, SETTLE_MS,
                                     "clsFree (a kernel writing it)"));
  CK_OK(clsStreamQuery(s));

  int *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, 256 * sizeof(int)));
  int *d2 = dev_ints(256);
  gate *g2 = gate_new();
  gate_hold(g2, s);
  CK_OK(clsMemcpyAsync(pin, d2, 256 * sizeof(int), clsMemcpyDeviceToHost, s));
  CK_OK(expect_blocked_until_release(&c, bg_free_host, pin, g2, SETTLE_MS,
                                     "clsFreeHost (a copy into it)"));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d2));
  arith_unload(&a);
}
END_TEST

static clsError_t bg_malloc(void *p) { return clsMalloc(p, 4096); }

/* Row: clsMalloc does not wait for pending device work: it returns while
 * a blocking stream is held, and the memory works. */
START_TEST(malloc_does_not_wait) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  void *d = NULL;
  bg_call c;
  bg_start(&c, bg_malloc, &d);
  int returned = bg_wait_done(&c, 20000);
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g);
  ck_assert_msg(returned, "clsMalloc waited for pending device work");
  CK_OK(bg_join(&c));
  ck_assert_ptr_nonnull(d);
  dev_set(d, 12, 1024);
  dev_expect(d, 12, 1024, "new allocation");
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* Invalid pointers and ranges, as cudaFree / cudaMemcpy / cudaMemset
 * report them: InvalidValue, and nothing is freed or written. */
START_TEST(invalid_pointers_and_ranges) {
  int *d = dev_ints(16);
  dev_set(d, 3, 16);
  int h[32];
  CK_CLS(clsMemcpy(h, d, 17 * sizeof(int), clsMemcpyDeviceToHost),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_CLS(clsMemcpy(h, d + 8, 9 * sizeof(int), clsMemcpyDeviceToHost),
         clsErrorInvalidValue);
  CK_CLS(clsMemset(d + 8, 0, 9 * sizeof(int)), clsErrorInvalidValue);
  CK_CLS(clsMemsetAsync(d + 8, 0, 9 * sizeof(int), NULL), clsErrorInvalidValue);
  CK_CLS(clsMemset(h, 0, sizeof h), clsErrorInvalidValue);
  CK_CLS(clsFree(h), clsErrorInvalidValue);
  CK_CLS(clsFree(d + 1), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  /* The allocation is intact and still usable. */
  CK_OK(clsMemcpy(h, d + 8, 8 * sizeof(int), clsMemcpyDeviceToHost));
  host_expect(h, 3, 8, "h");
  dev_expect(d, 3, 16, "d");
  CK_OK(clsFree(d));
  CK_CLS(clsFree(d), clsErrorInvalidValue);
  int *pin = NULL;
  CK_OK(clsMallocHost((void **)&pin, 64));
  CK_OK(clsFreeHost(pin));
  CK_CLS(clsFreeHost(pin), clsErrorInvalidValue);
}
END_TEST

/* Copies between devices that share no memory (two OpenCL platforms, as
 * NVIDIA's and PoCL's; CLSTREAM_CONTEXT_PER_DEVICE=1 gives that on one):
 * they succeed, as CUDA's do, staged through the host in the stream's
 * order, and a foreign source is read only after the work its own
 * device's legacy stream would wait for (here a fill held by a gate). */
START_TEST(copies_across_contexts) {
  if (!forked_or_skip("copies_across_contexts")) return;
#ifdef CLS_TEST_CUDA
  /* Devices without shared memory are the OpenCL build's case (two
   * platforms, or CLSTREAM_CONTEXT_PER_DEVICE); CUDA's devices are peers
   * and each device's legacy stream orders only its own streams. */
  printf("SKIP copies_across_contexts: OpenCL build only\n");
  return;
#endif
  setenv("CLSTREAM_CONTEXT_PER_DEVICE", "1", 1);
  int a, b;
  if (!two_devices("copies_across_contexts", &a, &b)) return;
  enum { N = 1000 };
  CK_OK(clsSetDevice(a));
  arith k;
  arith_load(&k);
  int *da = dev_ints(N);
  clsStream_t sa;
  CK_OK(clsStreamCreate(&sa));
  gate *g = gate_new();
  gate_hold(g, sa);
  CK_OK(launch_fill(&k, sa, da, 7, N));

  CK_OK(clsSetDevice(b));
  int *db = dev_ints(N);
  dev_set(db, 0, N);
  clsStream_t sb;
  CK_OK(clsStreamCreate(&sb));
  clsEvent_t done;
  CK_OK(clsEventCreate(&done));
  /* Device to device, a's memory into b's, on b's stream: returns at
   * once, and waits for a's held fill. */
  CK_OK(clsMemcpyAsync(db, da, N * sizeof(int), clsMemcpyDefault, sb));
  CK_OK(clsEventRecord(done, sb));
  CK_CLS(clsEventQuery(done), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(sb));
  dev_expect(db, 7, N, "b's memory after a copy from a's");

  /* Device to pageable host and back, a's memory, b current. */
  static int h[N];
  CK_OK(clsMemcpy(h, da, sizeof h, clsMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) ck_assert_int_eq(h[i], 7);
  for (int i = 0; i < N; ++i) h[i] = i;
  CK_OK(clsMemcpyAsync(da, h, sizeof h, clsMemcpyHostToDevice, sb));
  memset(h, 0, sizeof h); /* a pageable source is reusable at once */
  CK_OK(clsMemcpyAsync(h, da, sizeof h, clsMemcpyDeviceToHost, sb));
  for (int i = 0; i < N; ++i) ck_assert_int_eq(h[i], i);
  /* b's memory into a's, on b's stream, with b's own work before it. */
  dev_set(db, 5, N);
  CK_OK(clsMemcpyAsync(da + 10, db, 16 * sizeof(int), clsMemcpyDefault, sb));
  CK_OK(clsStreamSynchronize(sb));
  CK_OK(clsMemcpy(h, da, sizeof h, clsMemcpyDefault));
  for (int i = 0; i < N; ++i) ck_assert_int_eq(h[i], i >= 10 && i < 26 ? 5 : i);

  CK_OK(clsEventDestroy(done));
  CK_OK(clsStreamDestroy(sb));
  CK_OK(clsFree(db));
  CK_OK(clsSetDevice(a));
  CK_OK(clsStreamDestroy(sa));
  CK_OK(clsFree(da));
  arith_unload(&k);
}
END_TEST

int main(void) {
  Suite *s = suite_create("memory");
  TCase *tc = tcase_timed("memory", 60);
  TCase *tc_gate = tcase_tagged(s, "memory_gate", 60, "gate");
  TCase *tc_gate_threads =
      tcase_tagged(s, "memory_gate_threads", 60, "gate threads");
  tcase_add_test(tc, free_null);
  tcase_add_test(tc, malloc_null_out);
  tcase_add_test(tc, malloc_and_roundtrip);
  tcase_add_test(tc, memcpy_bad_kind);
  tcase_add_test(tc, memcpy_all_kinds_and_default);
  tcase_add_test(tc, zero_bytes);
  tcase_add_test(tc, memset_bytes);
  tcase_add_test(tc_gate_threads, sync_memcpy_waits_for_blocking_stream);
  tcase_add_test(tc_gate_threads, sync_memset_returns_at_once_but_ordered);
  tcase_add_test(tc_gate_threads, sync_memcpy_d2d_returns_at_once_but_ordered);
  tcase_add_test(tc_gate_threads,
                 sync_memcpy_host_kinds_block_behind_blocking_stream);
  tcase_add_test(tc_gate_threads, sync_memcpy_ignores_nonblocking_stream);
  tcase_add_test(tc_gate_threads, sync_memcpy_after_legacy_work);
  tcase_add_test(tc_gate_threads, async_copy_pinned);
  tcase_add_test(tc_gate_threads, async_copy_pageable_source_reusable);
  tcase_add_test(tc_gate_threads, async_d2h_pageable_returns_when_done);
  tcase_add_test(tc, async_on_destroyed_stream);
  tcase_add_test(tc_gate, async_mixed_stream_order);
  tcase_add_test(tc_gate_threads, free_waits_for_pending_work);
  tcase_add_test(tc_gate_threads, malloc_does_not_wait);
  tcase_add_test(tc, invalid_pointers_and_ranges);
  tcase_add_test(tc_gate, copies_across_contexts);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
