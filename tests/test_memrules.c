/* The four CUDA 13 rules measured on the H200 that clstream once answered
 * differently (docs/semantics.md, "Rows confirmed later on CUDA 13"):
 * clsFreeAsync(NULL), host-to-host clsMemcpyAsync on the legacy stream,
 * the device flags 0x20 and 0x40, and an interprocess event created with
 * BlockingSync as well. */
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

int main(void) {
  Suite *s = suite_create("memrules");
  TCase *tc = tcase_timed("memrules", 120);
  TCase *tc_gate = tcase_tagged(s, "memrules_gate", 120, "gate");
  tcase_add_test(tc, free_async_null);
  tcase_add_test(tc_gate, h2h_async_legacy_is_sync);
  tcase_add_test(tc, device_flags_spare_bits);
  tcase_add_test(tc, event_interprocess_blocking);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
