/* Memory pools as objects (clsDeviceGetDefaultMemPool, the pool
 * attributes, clsMemPoolTrimTo), free memory (clsMemGetInfo) and peers
 * (clsDeviceCanAccessPeer, Enable/DisablePeerAccess, clsMemcpyPeer and
 * its async form) on one device and on two split devices, sharing a
 * context or not. */
#include "support.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on_cuda(void) {
  int d;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&d));
  CK_OK(clsGetDeviceProperties(&p, d));
  return strcmp(p.platformName, "CUDA") == 0;
}

static unsigned long long attr64(clsMemPool_t p, clsMemPoolAttr a) {
  unsigned long long v = 0;
  CK_OK(clsMemPoolGetAttribute(p, a, &v));
  return v;
}

/* Rows: each device has a default pool, which is also its current one;
 * setting it back is Success; a device out of range is InvalidDevice. */
START_TEST(default_pool) {
  int n, dev;
  CK_OK(clsGetDeviceCount(&n));
  CK_OK(clsGetDevice(&dev));
  clsMemPool_t p = NULL, q = NULL;
  CK_OK(clsDeviceGetDefaultMemPool(&p, dev));
  ck_assert_ptr_nonnull(p);
  CK_OK(clsDeviceGetMemPool(&q, dev));
  ck_assert_ptr_eq(p, q);
  CK_OK(clsDeviceSetMemPool(dev, p));
  CK_CLS(clsDeviceGetDefaultMemPool(&p, n), clsErrorInvalidDevice);
  CK_CLS(clsDeviceGetDefaultMemPool(&p, -1), clsErrorInvalidDevice);
  CK_CLS(clsDeviceGetDefaultMemPool(NULL, dev), clsErrorInvalidValue);
}
END_TEST

/* Rows: Used and Reserved count what clsMallocAsync hands out and what
 * the pool holds; the High ones keep the peak and are reset by 0 alone;
 * the Current ones are read-only. */
START_TEST(pool_counts) {
  int dev;
  CK_OK(clsGetDevice(&dev));
  clsMemPool_t p;
  CK_OK(clsDeviceGetDefaultMemPool(&p, dev));
  unsigned long long keep = ~0ull, zero = 0, five = 5;
  CK_OK(clsMemPoolSetAttribute(p, clsMemPoolAttrReleaseThreshold, &keep));
  ck_assert(attr64(p, clsMemPoolAttrReleaseThreshold) == keep);
  unsigned long long used0 = attr64(p, clsMemPoolAttrUsedMemCurrent);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  enum { N = 3 << 20 };
  void *a = NULL;
  CK_OK(clsMallocAsync(&a, N, s));
  unsigned long long used1 = attr64(p, clsMemPoolAttrUsedMemCurrent);
  unsigned long long res1 = attr64(p, clsMemPoolAttrReservedMemCurrent);
  ck_assert(used1 >= used0 + N);
  ck_assert(res1 >= used1);
  ck_assert(attr64(p, clsMemPoolAttrUsedMemHigh) >= used1);
  ck_assert(attr64(p, clsMemPoolAttrReservedMemHigh) >= res1);
  CK_OK(clsFreeAsync(a, s));
  CK_OK(clsStreamSynchronize(s));
  ck_assert(attr64(p, clsMemPoolAttrUsedMemCurrent) == used0);
  /* The threshold keeps the freed memory in the pool. */
  ck_assert(attr64(p, clsMemPoolAttrReservedMemCurrent) == res1);
  ck_assert(attr64(p, clsMemPoolAttrUsedMemHigh) >= used1);
  CK_OK(clsMemPoolSetAttribute(p, clsMemPoolAttrUsedMemHigh, &zero));
  ck_assert(attr64(p, clsMemPoolAttrUsedMemHigh) == used0);
  CK_OK(clsMemPoolSetAttribute(p, clsMemPoolAttrReservedMemHigh, &zero));
  ck_assert(attr64(p, clsMemPoolAttrReservedMemHigh) == res1);
  /* Only 0 resets a High one (the H200's CUDA 13 refused 5). */
  CK_CLS(clsMemPoolSetAttribute(p, clsMemPoolAttrUsedMemHigh, &five),
         clsErrorInvalidValue);
  ck_assert(attr64(p, clsMemPoolAttrUsedMemHigh) == used0);
  CK_CLS(clsMemPoolSetAttribute(p, clsMemPoolAttrUsedMemCurrent, &zero),
         clsErrorInvalidValue);
  CK_CLS(clsMemPoolSetAttribute(p, clsMemPoolAttrReservedMemCurrent, &zero),
         clsErrorInvalidValue);
  /* Trimming to 0 gives back everything no allocation uses. */
  CK_OK(clsMemPoolTrimTo(p, 0));
  ck_assert(attr64(p, clsMemPoolAttrReservedMemCurrent) <= used0);
  /* A threshold of 0: what a free returns leaves the pool once reached
   * (on OpenCL at the next free or trim; CUDA at a synchronization). */
  CK_OK(clsMemPoolSetAttribute(p, clsMemPoolAttrReleaseThreshold, &zero));
  CK_OK(clsMallocAsync(&a, N, s));
  CK_OK(clsFreeAsync(a, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsMemPoolTrimTo(p, 0));
  ck_assert(attr64(p, clsMemPoolAttrReservedMemCurrent) <= used0);
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Rows: the Reuse flags are ints, read back as set. */
START_TEST(pool_reuse_flags) {
  int dev;
  CK_OK(clsGetDevice(&dev));
  clsMemPool_t p;
  CK_OK(clsDeviceGetDefaultMemPool(&p, dev));
  int v = 0, got = -1;
  CK_OK(clsMemPoolSetAttribute(p, clsMemPoolReuseAllowOpportunistic, &v));
  CK_OK(clsMemPoolGetAttribute(p, clsMemPoolReuseAllowOpportunistic, &got));
  ck_assert_int_eq(got, 0);
  /* Without opportunistic reuse, memory still flows through one stream. */
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  void *a, *b;
  CK_OK(clsMallocAsync(&a, 1000, s));
  CK_OK(clsFreeAsync(a, s));
  CK_OK(clsMallocAsync(&b, 1000, s));
  if (!on_cuda()) ck_assert_ptr_eq(a, b); /* the same stream's block */
  CK_OK(clsFreeAsync(b, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamDestroy(s));
  v = 1;
  CK_OK(clsMemPoolSetAttribute(p, clsMemPoolReuseAllowOpportunistic, &v));
  CK_OK(clsMemPoolGetAttribute(p, clsMemPoolReuseAllowOpportunistic, &got));
  ck_assert_int_eq(got, 1);
  for (int a2 = clsMemPoolReuseFollowEventDependencies;
       a2 <= clsMemPoolReuseAllowInternalDependencies; ++a2) {
    got = -1;
    CK_OK(clsMemPoolGetAttribute(p, (clsMemPoolAttr)a2, &got));
    ck_assert(got == 0 || got == 1);
  }
}
END_TEST

/* Rows: a NULL or unknown pool, an attribute outside the enum and a NULL
 * value are InvalidValue. */
START_TEST(pool_bad_input) {
  int dev;
  CK_OK(clsGetDevice(&dev));
  clsMemPool_t p;
  CK_OK(clsDeviceGetDefaultMemPool(&p, dev));
  unsigned long long v = 0;
  int x = 0;
  CK_CLS(clsMemPoolGetAttribute(NULL, clsMemPoolAttrUsedMemCurrent, &v),
         clsErrorInvalidValue);
  CK_CLS(clsMemPoolGetAttribute((clsMemPool_t)&x, clsMemPoolAttrUsedMemCurrent,
                                &v),
         clsErrorInvalidValue);
  CK_CLS(clsMemPoolGetAttribute(p, (clsMemPoolAttr)0, &v),
         clsErrorInvalidValue);
  CK_CLS(clsMemPoolGetAttribute(p, (clsMemPoolAttr)9, &v),
         clsErrorInvalidValue);
  CK_CLS(clsMemPoolGetAttribute(p, clsMemPoolAttrUsedMemCurrent, NULL),
         clsErrorInvalidValue);
  CK_CLS(clsMemPoolSetAttribute(p, clsMemPoolAttrReleaseThreshold, NULL),
         clsErrorInvalidValue);
  CK_CLS(clsMemPoolTrimTo(NULL, 0), clsErrorInvalidValue);
  CK_CLS(clsDeviceSetMemPool(dev, NULL), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
}
END_TEST

/* Rows: free <= total, total is the device's memory, and (where free is
 * clstream's own count) an allocation lowers free by its size. */
START_TEST(mem_get_info) {
  size_t f0 = 0, t0 = 0, f1 = 0, t1 = 0;
  CK_OK(clsMemGetInfo(&f0, &t0));
  int dev;
  clsDeviceProp prop;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&prop, dev));
  ck_assert_uint_eq(t0, prop.totalGlobalMem);
  ck_assert_uint_le(f0, t0);
  void *d;
  CK_OK(clsMalloc(&d, 64 << 20));
  CK_OK(clsMemGetInfo(&f1, &t1));
  ck_assert_uint_eq(t1, t0);
  if (prop.isCpu) ck_assert_uint_le(f1 + (64 << 20), f0);
  CK_OK(clsFree(d));
  /* NULL pointers are left out (CUDA 13: Success, H200). */
  CK_OK(clsMemGetInfo(NULL, &t1));
  ck_assert_uint_eq(t1, t0);
  CK_OK(clsMemGetInfo(&f1, NULL));
}
END_TEST

/* Row measured on CUDA 13 (H100): with ReleaseThreshold UINT64_MAX, after
 * a 1 MiB clsMallocAsync, its clsFreeAsync and a synchronize the default
 * pool's UsedMemCurrent is back where it was (0 in a fresh process) and
 * ReservedMemCurrent holds at least the MiB; clsMemPoolTrimTo(pool, 0)
 * gives it back (0 again). */
START_TEST(pool_trim_after_free) {
  int dev;
  CK_OK(clsGetDevice(&dev));
  clsMemPool_t p;
  CK_OK(clsDeviceGetDefaultMemPool(&p, dev));
  unsigned long long keep = UINT64_MAX;
  CK_OK(clsMemPoolSetAttribute(p, clsMemPoolAttrReleaseThreshold, &keep));
  unsigned long long used0 = attr64(p, clsMemPoolAttrUsedMemCurrent);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  void *a = NULL;
  CK_OK(clsMallocAsync(&a, 1 << 20, s));
  CK_OK(clsFreeAsync(a, s));
  CK_OK(clsStreamSynchronize(s));
  ck_assert(attr64(p, clsMemPoolAttrUsedMemCurrent) == used0);
  ck_assert(attr64(p, clsMemPoolAttrReservedMemCurrent) >= used0 + (1 << 20));
  CK_OK(clsMemPoolTrimTo(p, 0));
  ck_assert(attr64(p, clsMemPoolAttrReservedMemCurrent) <= used0);
  CK_OK(clsStreamDestroy(s));
}
END_TEST

/* Rows (one device, measured on the H200): a device and itself are not
 * peers; enabling access to the current device is PeerAccessUnsupported
 * and disabling it PeerAccessNotEnabled; flags are InvalidValue; a peer copy
 * within one device works, and a pointer of the wrong device is InvalidValue.
 */
START_TEST(peer_single) {
  int dev, n, can = -1;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceCount(&n));
  CK_OK(clsDeviceCanAccessPeer(&can, dev, dev));
  ck_assert_int_eq(can, 0);
  CK_CLS(clsDeviceCanAccessPeer(&can, dev, n), clsErrorInvalidDevice);
  CK_CLS(clsDeviceCanAccessPeer(NULL, dev, dev), clsErrorInvalidValue);
  CK_CLS(clsDeviceEnablePeerAccess(dev, 0), clsErrorPeerAccessUnsupported);
  CK_CLS(clsDeviceDisablePeerAccess(dev), clsErrorPeerAccessNotEnabled);
  CK_CLS(clsDeviceEnablePeerAccess(n, 0), clsErrorInvalidDevice);
  CK_CLS(clsDeviceEnablePeerAccess(dev, 1), clsErrorInvalidValue);
  int *a = dev_ints(256), *b = dev_ints(256);
  dev_set(a, 9, 256);
  CK_OK(clsMemcpyPeer(b, dev, a, dev, 256 * sizeof(int)));
  dev_expect(b, 9, 256, "peer copy");
  dev_set(a, 4, 256);
  CK_OK(clsMemcpyPeerAsync(b, dev, a, dev, 256 * sizeof(int), NULL));
  dev_expect(b, 4, 256, "async peer copy");
  CK_CLS(clsMemcpyPeer(b, n, a, dev, 16), clsErrorInvalidDevice);
  int host[4];
  CK_CLS(clsMemcpyPeer(host, dev, a, dev, 16), clsErrorInvalidValue);
  CK_CLS(clsMemcpyPeer(b, dev, a, dev, 257 * sizeof(int)),
         clsErrorInvalidValue);
  CK_OK(clsMemcpyPeer(b, dev, a, dev, 0));
  CK_OK(clsFree(a));
  CK_OK(clsFree(b));
}
END_TEST

/* Two devices: peers where they share a context (access enabled once,
 * 704 the second time, 705 once disabled), PeerAccessUnsupported where
 * they do not; the copies work either way. */
static void peer_pair(int own_context) {
  if (!forked_or_skip("peer_pair")) return;
#ifdef CLS_TEST_CUDA
  /* CLSTREAM_CONTEXT_PER_DEVICE is the OpenCL build's: CUDA's devices are
   * peers wherever CUDA says so (two H200s: always). */
  if (own_context) {
    printf("SKIP peer_pair_own_contexts: OpenCL build only\n");
    return;
  }
#endif
  if (own_context) setenv("CLSTREAM_CONTEXT_PER_DEVICE", "1", 1);
  int a, b;
  if (!two_devices("peer_pair", &a, &b)) return;
  int can = -1;
  CK_OK(clsDeviceCanAccessPeer(&can, a, b));
  /* Two devices of one platform (PoCL's sub-devices, two GPUs) share a
   * context unless told not to; devices of two platforms (the H200
   * beside PoCL) never do. */
  clsDeviceProp pa, pb;
  CK_OK(clsGetDeviceProperties(&pa, a));
  CK_OK(clsGetDeviceProperties(&pb, b));
  ck_assert_int_eq(can, !own_context &&
                            strcmp(pa.platformName, pb.platformName) == 0);
  CK_OK(clsSetDevice(a));
  if (!can) {
    CK_CLS(clsDeviceEnablePeerAccess(b, 0), clsErrorPeerAccessUnsupported);
  } else {
    CK_OK(clsDeviceEnablePeerAccess(b, 0));
    CK_CLS(clsDeviceEnablePeerAccess(b, 0), clsErrorPeerAccessAlreadyEnabled);
    CK_OK(clsDeviceDisablePeerAccess(b));
  }
  CK_CLS(clsDeviceDisablePeerAccess(b), clsErrorPeerAccessNotEnabled);
  enum { N = 1000 };
  int *da = dev_ints(N);
  dev_set(da, 31, N);
  CK_OK(clsSetDevice(b));
  int *db = dev_ints(N);
  dev_set(db, 0, N);
  CK_OK(clsMemcpyPeer(db, b, da, a, N * sizeof(int)));
  dev_expect(db, 31, N, "peer copy a -> b");
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  dev_set(db, 17, N);
  CK_OK(clsMemcpyPeerAsync(da, a, db, b, N * sizeof(int), s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamDestroy(s));
  CK_CLS(clsMemcpyPeer(db, a, da, a, 16), clsErrorInvalidValue);
  CK_OK(clsFree(db));
  CK_OK(clsSetDevice(a));
  dev_expect(da, 17, N, "peer copy b -> a");
  CK_OK(clsFree(da));
}

START_TEST(peer_pair_shared) { peer_pair(0); }
END_TEST

START_TEST(peer_pair_own_contexts) { peer_pair(1); }
END_TEST

int main(void) {
  Suite *s = suite_create("mpool");
  TCase *tc = tcase_timed("mpool", 120);
  tcase_add_test(tc, default_pool);
  tcase_add_test(tc, pool_counts);
  tcase_add_test(tc, pool_trim_after_free);
  tcase_add_test(tc, pool_reuse_flags);
  tcase_add_test(tc, pool_bad_input);
  tcase_add_test(tc, mem_get_info);
  tcase_add_test(tc, peer_single);
  tcase_add_test(tc, peer_pair_shared);
  tcase_add_test(tc, peer_pair_own_contexts);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
