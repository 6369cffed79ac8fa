/* The CUDA 13 rules measured on NVIDIA GPUs that clstream once answered
 * differently: on the H200 (docs/semantics.md, "Rows confirmed later on
 * CUDA 13") clsFreeAsync(NULL), host-to-host clsMemcpyAsync on the legacy
 * stream, the device flags 0x20 and 0x40, and an interprocess event
 * created with BlockingSync as well; on the H100 (docs/semantics.md,
 * "Memory and launches") clsMemset of host memory. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

/* Row: cudaFreeAsync(NULL, s) is Success, on a created stream and on
 * both default streams, and is not stored as the last error. */
START_TEST(free_async_null) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsGetLastError());
  CK_OK(clsFreeAsync(NULL, s));
  CK_OK(clsFreeAsync(NULL, NULL));
  CK_OK(clsFreeAsync(NULL, clsStreamPerThread));
  CK_LAST(clsSuccess);
  /* A bad stream is still refused, NULL pointer or not. */
  CK_OK(clsStreamDestroy(s));
  CK_CLS(clsFreeAsync(NULL, s), clsErrorInvalidResourceHandle);
}
END_TEST

enum { H2H_BYTES = 4096, H2H_HOLD_MS = 200 };

typedef struct h2h_call {
  void *dst;
  const void *src;
} h2h_call;

static clsError_t h2h_async_legacy(void *arg) {
  h2h_call *c = arg;
  return clsMemcpyAsync(c->dst, c->src, H2H_BYTES, clsMemcpyHostToHost, NULL);
}

/* One pairing: the legacy stream is held by a gate; the copy must not
 * return before the gate is released, and once it returns the bytes are
 * there and the legacy stream is idle. */
static void h2h_case(void *dst, void *src, const char *what) {
  memset(dst, 0, H2H_BYTES);
  for (int i = 0; i < H2H_BYTES; ++i)
    ((unsigned char *)src)[i] = (unsigned char)(i * 7 + 3);
  gate *g = gate_new();
  gate_hold(g, NULL);
  ck_assert(gate_wait_entered(g, 5000));
  h2h_call c = {dst, src};
  bg_call bg;
  CK_OK(expect_blocked_until_release(&bg, h2h_async_legacy, &c, g, H2H_HOLD_MS,
                                     what));
  ck_assert_msg(memcmp(dst, src, H2H_BYTES) == 0, "%s: bytes differ", what);
  CK_OK(clsStreamQuery(NULL));
}

/* Row: host-to-host clsMemcpyAsync on the legacy stream returns only
 * after the stream's earlier work and the copy are done, for pageable to
 * pinned, pinned to pinned and pinned to pageable. */
START_TEST(h2h_async_legacy_is_sync) {
  void *p1 = NULL, *p2 = NULL;
  CK_OK(clsMallocHost(&p1, H2H_BYTES));
  CK_OK(clsMallocHost(&p2, H2H_BYTES));
  void *heap = malloc(H2H_BYTES);
  ck_assert_ptr_nonnull(heap);
  h2h_case(p1, heap, "pageable to pinned");
  h2h_case(p2, p1, "pinned to pinned");
  h2h_case(heap, p2, "pinned to pageable");
  free(heap);
  CK_OK(clsFreeHost(p1));
  CK_OK(clsFreeHost(p2));
}
END_TEST

/* Row: clsSetDeviceFlags(0x20) and (0x40) are Success (bits inside
 * clsDeviceMask that name no flag); (0x100) is InvalidValue. */
START_TEST(device_flags_spare_bits) {
  CK_OK(clsSetDeviceFlags(0x20));
  CK_OK(clsSetDeviceFlags(0x40));
  CK_OK(clsSetDeviceFlags(0x20 | 0x40 | clsDeviceScheduleBlockingSync));
  CK_CLS(clsSetDeviceFlags(0x100), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_OK(clsSetDeviceFlags(0));
  /* The device still works after the flags. */
  int *d = dev_ints(16);
  dev_set(d, 5, 16);
  dev_expect(d, 5, 16, "after flags");
  CK_OK(clsFree(d));
}
END_TEST

/* Row: clsEventCreateWithFlags(BlockingSync | DisableTiming |
 * Interprocess) is Success, and the event works as any untimed one in
 * this process. */
START_TEST(event_interprocess_blocking) {
  clsEvent_t e = NULL;
  CK_OK(clsEventCreateWithFlags(
      &e, clsEventBlockingSync | clsEventDisableTiming | clsEventInterprocess));
  ck_assert_ptr_nonnull(e);
  int *d = dev_ints(256);
  CK_OK(clsMemsetAsync(d, 1, 256 * sizeof(int), NULL));
  CK_OK(clsEventRecord(e, NULL));
  CK_OK(clsEventSynchronize(e));
  CK_OK(clsEventQuery(e));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamWaitEvent(s, e, 0));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsFree(d));
}
END_TEST

/* ---- Rows measured on CUDA 13 (H100, 2026-12-06) ------------------------ */

enum { SET_BYTES = 8192, SET_HOLD_MS = 200 };

/* Host memory of three kinds, each SET_BYTES: pinned (clsMallocHost),
 * registered (clsHostRegister of a malloc'ed block) and managed. */
typedef struct host_kinds {
  unsigned char *p[3];
  void *heap;
} host_kinds;
static const char *const kind_names[3] = {"pinned", "registered", "managed"};

static void host_kinds_make(host_kinds *k) {
  CK_OK(clsMallocHost((void **)&k->p[0], SET_BYTES));
  k->heap = malloc(SET_BYTES);
  ck_assert_ptr_nonnull(k->heap);
  CK_OK(clsHostRegister(k->heap, SET_BYTES, clsHostRegisterDefault));
  k->p[1] = k->heap;
  CK_OK(clsMallocManaged((void **)&k->p[2], SET_BYTES, clsMemAttachGlobal));
  for (int i = 0; i < 3; ++i) memset(k->p[i], 0, SET_BYTES);
}

static void host_kinds_free(host_kinds *k) {
  CK_OK(clsFreeHost(k->p[0]));
  CK_OK(clsHostUnregister(k->heap));
  free(k->heap);
  CK_OK(clsFree(k->p[2]));
}

static void expect_bytes(const unsigned char *p, int v, const char *what) {
  for (int i = 0; i < SET_BYTES; ++i)
    ck_assert_msg(p[i] == (unsigned char)v, "%s: byte %d is 0x%x, not 0x%x",
                  what, i, p[i], v);
}

typedef struct set_call {
  void *p;
  int value;
} set_call;

static clsError_t set_sync(void *arg) {
  set_call *c = arg;
  return clsMemset(c->p, c->value, SET_BYTES);
}

/* Row: clsMemset of pinned, registered or managed memory is synchronous:
 * behind the legacy stream held by a gate it returns only once the gate
 * is released and the set is done (the bytes are there, the legacy stream
 * idle). */
START_TEST(memset_host_memory_is_sync) {
  host_kinds k;
  host_kinds_make(&k);
  for (int i = 0; i < 3; ++i) {
    gate *g = gate_new();
    gate_hold(g, NULL);
    ck_assert(gate_wait_entered(g, 5000));
    set_call c = {k.p[i], 0x40 + i};
    bg_call bg;
    CK_OK(expect_blocked_until_release(&bg, set_sync, &c, g, SET_HOLD_MS,
                                       kind_names[i]));
    expect_bytes(k.p[i], 0x40 + i, kind_names[i]);
    CK_OK(clsStreamQuery(NULL));
  }
  host_kinds_free(&k);
}
END_TEST

/* Row: clsMemsetAsync of the same memory on a held non-blocking stream
 * returns at once, and the bytes are set in stream order: not while the
 * gate holds the stream (pinned and registered memory, which the host may
 * read at any time), and once the stream is synchronized. */
START_TEST(memset_async_host_memory_returns) {
  host_kinds k;
  host_kinds_make(&k);
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  for (int i = 0; i < 3; ++i) {
    gate *g = gate_new();
    gate_hold(g, s);
    /* Were it to wait, the gate's host function would give up first and
     * gate_release would fail the test. */
    CK_OK(clsMemsetAsync(k.p[i], 0x50 + i, SET_BYTES, s));
    if (i < 2) expect_bytes(k.p[i], 0, kind_names[i]);
    CK_CLS(clsStreamQuery(s), clsErrorNotReady);
    gate_release(g);
    CK_OK(clsStreamSynchronize(s));
    expect_bytes(k.p[i], 0x50 + i, kind_names[i]);
  }
  CK_OK(clsStreamDestroy(s));
  host_kinds_free(&k);
}
END_TEST

int main(void) {
  Suite *s = suite_create("memrules");
  TCase *tc = tcase_timed("memrules", 120);
  TCase *tc_gate = tcase_tagged(s, "memrules_gate", 120, "gate");
  tcase_add_test(tc, free_async_null);
  tcase_add_test(tc_gate, h2h_async_legacy_is_sync);
  tcase_add_test(tc, device_flags_spare_bits);
  tcase_add_test(tc, event_interprocess_blocking);
  tcase_add_test(tc_gate, memset_host_memory_is_sync);
  tcase_add_test(tc_gate, memset_async_host_memory_returns);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
