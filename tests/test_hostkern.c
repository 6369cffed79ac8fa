/* Host memory in kernels (issue 26, points 1 and 2): pinned memory
 * (clsMallocHost, clsHostAlloc with and without Mapped), registered
 * memory and managed memory reach kernels on every device, through
 * clsHostGetDevicePointer's pointer and through the host address itself,
 * at the start and inside an allocation; the host sees what kernels wrote
 * once it has synchronized, as on CUDA. */
#include "support.h"
#include "unmapped.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096 };
/* An interior offset, in ints, that any device's buffer alignment
 * (CL_DEVICE_MEM_BASE_ADDR_ALIGN, at most 4096 bits) divides. */
enum { IN = 256 };

/* Fills h[0..n) with i, runs scale by k on `dp` (n ints), synchronizes and
 * checks the host copy h. */
static void scale_and_check(const arith *a, int *h, int *dp, int k, unsigned n,
                            const char *what) {
  for (unsigned i = 0; i < n; ++i) h[i] = (int)i;
  CK_OK(launch_scale(a, NULL, dp, k, n));
  CK_OK(clsDeviceSynchronize());
  for (unsigned i = 0; i < n; ++i)
    ck_assert_msg(h[i] == k * (int)i, "%s: h[%u] = %d, expected %d", what, i,
                  h[i], k * (int)i);
}

/* The common checks for host memory h of N ints: the host address and the
 * device pointer both work in a launch, and so do interior pointers. */
/* ---- Odd offsets ----------------------------------------------------------
 * CUDA takes a pointer anywhere inside host memory a kernel reaches (d + 1),
 * and so does clstream on every device: the buffer path passes each pointer
 * as a buffer and an offset, and on SVM devices a host buffer at an offset
 * no sub-buffer takes runs the function's offset variant. */
static const char odd_src[] =
    "CLS_KERNEL void add_c(CLS_GLOBAL const unsigned char *s,"
    "  CLS_GLOBAL unsigned char *d, int k, unsigned n) {"
    "  unsigned i = cls_global_id(0); if (i < n) d[i] = s[i] + k; }\n"
    "CLS_KERNEL void add_s(CLS_GLOBAL const short *s, CLS_GLOBAL short *d,"
    "  int k, unsigned n) {"
    "  unsigned i = cls_global_id(0); if (i < n) d[i] = s[i] + k; }\n"
    "CLS_KERNEL void add_i(CLS_GLOBAL const int *s, CLS_GLOBAL int *d,"
    "  int k, unsigned n) {"
    "  unsigned i = cls_global_id(0); if (i < n) d[i] = s[i] + k; }\n";

/* Runs d[i] = s[i] + k for i < n with elements of es bytes (1, 2 or 4). */
static clsError_t odd_add(clsModule_t m, size_t es, const void *s, void *d,
                          int k, unsigned n) {
  clsFunction_t f;
  const char *name = es == 1 ? "add_c" : es == 2 ? "add_s" : "add_i";
  clsError_t e = clsModuleGetFunction(&f, m, name);
  if (e != clsSuccess) return e;
  void *args[] = {&s, &d, &k, &n};
  return clsLaunchKernel(f, (clsDim3){(n + 63) / 64, 1, 1}, (clsDim3){64, 1, 1},
                         args, 0, NULL);
}

/* The value byte pattern b gives element i of es bytes: i + b, kept small
 * enough that adding 100 fits in an unsigned char. */
static long odd_val(size_t es, size_t i, int b) {
  return es == 1 ? (long)((i + (size_t)b) % 100) : (long)i * 3 + b;
}
static long odd_get(const unsigned char *h, size_t es, size_t i) {
  if (es == 1) return h[i];
  short s;
  int v;
  if (es == 2) return memcpy(&s, h + i * 2, 2), s;
  return memcpy(&v, h + i * 4, 4), v;
}
static void odd_put(unsigned char *h, size_t es, size_t i, long x) {
  short s = (short)x;
  int v = (int)x;
  if (es == 1) h[i] = (unsigned char)x;
  if (es == 2) memcpy(h + i * 2, &s, 2);
  if (es == 4) memcpy(h + i * 4, &v, 4);
}

/* Kernels read and write host memory h (of `bytes`) through pointers 1,
 * 2, 3 and 5 elements (of 1, 2 and 4 bytes) into it, alone and beside
 * device memory, alternating with aligned launches of the same function
 * (whose argument values change in between); the host checks every
 * element after synchronizing. */
static void odd_offsets(void *hv, size_t bytes, const char *what) {
  static const size_t offs[] = {1, 2, 3, 5};
  unsigned char *h = hv;
  clsModule_t m;
  CK_OK(clsModuleLoadData(&m, odd_src, NULL));
  const unsigned n = 37;
  unsigned char *d = NULL;
  CK_OK(clsMalloc((void **)&d, 512));
  for (size_t es = 1; es <= 4; es *= 2) {
    const size_t nel = bytes / es, half = nel / 2;
    for (size_t oi = 0; oi < 4; ++oi) {
      const size_t o = offs[oi];
      for (size_t i = 0; i < nel; ++i) odd_put(h, es, i, odd_val(es, i, 1));
      /* Source and destination both at odd offsets of h, then in place;
       * then an aligned launch, then device memory into h. */
      CK_OK(odd_add(m, es, h + o * es, h + (half + o) * es, 7, n));
      CK_OK(clsDeviceSynchronize());
      CK_OK(odd_add(m, es, h + (o + 1) * es, h + (o + 1) * es, 2, n));
      CK_OK(odd_add(m, es, h, h, 0, n));
      CK_OK(clsMemcpy(d, h, 256, clsMemcpyHostToDevice));
      CK_OK(odd_add(m, es, d + 50 * es, h + (half + o + n) * es, 100, 3));
      CK_OK(clsDeviceSynchronize());
      for (size_t i = 0; i < nel; ++i) {
        long want = odd_val(es, i, 1);
        if (i >= o + 1 && i < o + 1 + n) want += 2;
        if (i >= half + o && i < half + o + n)
          want = odd_val(es, i - half, 1) + 7;
        if (i >= half + o + n && i < half + o + n + 3)
          want = odd_val(es, i - half - o - n + 50, 1) + 100;
        long got = odd_get(h, es, i);
        ck_assert_msg(got == want,
                      "%s: %zu-byte elements at +%zu: element %zu is %ld, "
                      "expected %ld",
                      what, es, o, i, got, want);
      }
    }
  }
  CK_OK(clsFree(d));
  CK_OK(clsModuleUnload(m));
}

static void host_memory_in_kernels(int *h, const char *what) {
  arith a;
  arith_load(&a);
  int *dp = NULL;
  CK_OK(clsHostGetDevicePointer((void **)&dp, h, 0));
  ck_assert_ptr_nonnull(dp);
  int *dpi = NULL;
  CK_OK(clsHostGetDevicePointer((void **)&dpi, h + IN, 0));
  ck_assert_ptr_eq(dpi, dp + IN);
  scale_and_check(&a, h, h, 2, N, what);
  scale_and_check(&a, h, dp, 3, N, what);
  /* Inside the allocation: only the part from IN on changes. */
  for (int i = 0; i < N; ++i) h[i] = i;
  CK_OK(launch_fill(&a, NULL, dp + IN, -7, N - IN));
  CK_OK(clsDeviceSynchronize());
  for (int i = 0; i < N; ++i)
    ck_assert_msg(h[i] == (i < IN ? i : -7), "%s inside: h[%d] = %d", what, i,
                  h[i]);
  /* At odd offsets, as a kernel's own pointer arithmetic gives them. */
  odd_offsets(h, N * sizeof(int), what);
  /* A kernel reads host memory written by the host and writes device
   * memory; copies to and from it still work. */
  int *d = dev_ints(N);
  for (int i = 0; i < N; ++i) h[i] = 5;
  CK_OK(launch_add(&a, NULL, h, h, d, N));
  CK_OK(clsMemcpy(h, d, N * sizeof(int), clsMemcpyDeviceToHost));
  host_expect(h, 10, N, what);
  CK_OK(clsFree(d));
  arith_unload(&a);
}

START_TEST(malloc_host_in_kernels) {
  int *h = NULL;
  CK_OK(clsMallocHost((void **)&h, N * sizeof(int)));
  host_memory_in_kernels(h, "clsMallocHost");
  CK_OK(clsFreeHost(h));
}
END_TEST

START_TEST(host_alloc_in_kernels) {
  static const unsigned flags[] = {clsHostAllocDefault, clsHostAllocMapped,
                                   clsHostAllocPortable | clsHostAllocMapped,
                                   clsHostAllocWriteCombined};
  for (size_t k = 0; k < sizeof flags / sizeof flags[0]; ++k) {
    int *h = NULL;
    CK_OK(clsHostAlloc((void **)&h, N * sizeof(int), flags[k]));
    char what[64];
    snprintf(what, sizeof what, "clsHostAlloc(0x%x)", flags[k]);
    host_memory_in_kernels(h, what);
    CK_OK(clsFreeHost(h));
  }
}
END_TEST

/* Registered memory: a page-aligned allocation and a plain malloc one (any
 * alignment), both reach kernels in place. */
START_TEST(registered_in_kernels) {
  int *al = NULL;
  ck_assert_int_eq(posix_memalign((void **)&al, 4096, N * sizeof(int)), 0);
  CK_OK(clsHostRegister(al, N * sizeof(int), clsHostRegisterDefault));
  host_memory_in_kernels(al, "registered (aligned)");
  CK_OK(clsHostUnregister(al));
  int *m = malloc(N * sizeof(int) + 8);
  int *mu = m + 1; /* not even 8-byte aligned in general */
  CK_OK(clsHostRegister(mu, N * sizeof(int), clsHostRegisterMapped));
  host_memory_in_kernels(mu, "registered (malloc)");
  CK_OK(clsHostUnregister(mu));
  /* Unregistered, it is ordinary memory again: no device pointer. */
  void *dp = NULL;
  CK_CLS(clsHostGetDevicePointer(&dp, mu, 0), clsErrorInvalidValue);
  free(m);
  free(al);
}
END_TEST

/* clsHostUnregister while a kernel that writes the range is still queued:
 * it waits for the device's work (as freeing does), so the kernel's
 * results are in the caller's memory when it returns.  Unregistering
 * again, or at an interior address, is HostMemoryNotRegistered. */
START_TEST(unregister_while_queued) {
  arith a;
  arith_load(&a);
  int *h = NULL;
  ck_assert_int_eq(posix_memalign((void **)&h, 4096, N * sizeof(int)), 0);
  memset(h, 0, N * sizeof(int));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsHostRegister(h, N * sizeof(int), clsHostRegisterDefault));
  CK_OK(launch_fill(&a, s, h, 41, N));
  CK_CLS(clsHostUnregister(h + 1), clsErrorHostMemoryNotRegistered);
  CK_OK(clsHostUnregister(h));
  host_expect(h, 41, N, "registered memory after clsHostUnregister");
  CK_CLS(clsHostUnregister(h), clsErrorHostMemoryNotRegistered);
  CK_OK(clsStreamDestroy(s));
  free(h);
  arith_unload(&a);
}
END_TEST

/* cudaHostRegister refuses a range that is not all mapped (about 21 GB
 * past a 4-byte malloc: InvalidValue), and a range overlapping one
 * already registered. */
START_TEST(register_checks_range) {
  size_t n;
  void *undo;
  void *p = cls_test_unmapped_range(&n, &undo);
  ck_assert_ptr_nonnull(p);
  CK_CLS(clsHostRegister(p, n, clsHostRegisterDefault), clsErrorInvalidValue);
  cls_test_unmapped_free(undo);
  int *h = NULL;
  ck_assert_int_eq(posix_memalign((void **)&h, 4096, 8192), 0);
  CK_OK(clsHostRegister(h, 8192, clsHostRegisterDefault));
  CK_CLS(clsHostRegister(h + 16, 64, clsHostRegisterDefault),
         clsErrorHostMemoryAlreadyRegistered);
  CK_OK(clsHostUnregister(h));
  free(h);
}
END_TEST

/* Managed memory on every device: the host writes it, a kernel scales it
 * through the same pointer (also inside it), the host reads the result
 * after synchronizing.  concurrentManagedAccess says whether the host may
 * touch it while kernels run (fine-grained SVM only). */
START_TEST(managed_in_kernels) {
  int dev;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  ck_assert_int_eq(p.managedMemory, 1);
  int attr = -1;
  CK_OK(clsDeviceGetAttribute(&attr, clsDevAttrConcurrentManagedAccess, dev));
  ck_assert_int_eq(attr, p.concurrentManagedAccess);
  if (p.bufferMemory) ck_assert_int_eq(attr, 0);
  arith a;
  arith_load(&a);
  int *m = NULL;
  CK_OK(clsMallocManaged((void **)&m, N * sizeof(int), clsMemAttachGlobal));
  scale_and_check(&a, m, m, 4, N, "managed");
  for (int i = 0; i < N; ++i) m[i] = 1;
  CK_OK(launch_fill(&a, NULL, m + IN, 9, N - IN));
  CK_OK(clsDeviceSynchronize());
  ck_assert_int_eq(m[IN - 1], 1);
  ck_assert_int_eq(m[IN], 9);
  ck_assert_int_eq(m[N - 1], 9);
  /* Copies and fills take it as device memory. */
  int *d = dev_ints(N);
  CK_OK(clsMemcpy(d, m, N * sizeof(int), clsMemcpyDefault));
  CK_OK(clsMemset(m, 0, N * sizeof(int)));
  host_expect(m, 0, N, "managed memory after clsMemset");
  CK_OK(clsMemcpy(m, d, N * sizeof(int), clsMemcpyDeviceToDevice));
  ck_assert_int_eq(m[IN], 9);
  odd_offsets(m, N * sizeof(int), "managed");
  CK_OK(clsFree(d));
  CK_OK(clsFree(m));
  arith_unload(&a);
}
END_TEST

/* Two streams' kernels write two halves of one pinned allocation, each
 * several times, with no synchronization between the streams: every
 * write lands (the host buffer goes to the device and back in each
 * stream's order). */
START_TEST(two_streams_one_allocation) {
  arith a;
  arith_load(&a);
  int *h = NULL;
  CK_OK(clsMallocHost((void **)&h, N * sizeof(int)));
  clsStream_t s1, s2;
  CK_OK(clsStreamCreate(&s1));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  for (int r = 1; r <= 3; ++r) {
    CK_OK(launch_fill(&a, s1, h, r, IN));
    CK_OK(launch_fill(&a, s2, h + IN, -r, N - IN));
  }
  CK_OK(launch_scale(&a, s1, h, 2, IN));
  CK_OK(clsStreamSynchronize(s1));
  CK_OK(clsStreamSynchronize(s2));
  for (int i = 0; i < N; ++i)
    ck_assert_msg(h[i] == (i < IN ? 6 : -3), "h[%d] = %d", i, h[i]);
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFreeHost(h));
  arith_unload(&a);
}
END_TEST

static int range_int(clsMemRangeAttribute attr, const void *p, size_t n) {
  int v = 12345;
  CK_OK(clsMemRangeGetAttribute(&v, sizeof v, attr, p, n));
  return v;
}

/* Advice is accepted and answered back by clsMemRangeGetAttribute, as
 * CUDA's runtime answers it; a prefetch is ordered in its stream (behind a
 * gate it waits, and a kernel after it sees the data). */
START_TEST(advise_prefetch_attributes) {
  int dev;
  CK_OK(clsGetDevice(&dev));
  int *m = NULL;
  CK_OK(clsMallocManaged((void **)&m, N * sizeof(int), clsMemAttachGlobal));
  const size_t bytes = N * sizeof(int);
  clsMemLocation on_dev = {clsMemLocationTypeDevice, dev};
  clsMemLocation on_host = {clsMemLocationTypeHost, 0};
  /* Nothing said yet. */
  ck_assert_int_eq(range_int(clsMemRangeAttributeReadMostly, m, bytes), 0);
  ck_assert_int_eq(range_int(clsMemRangeAttributePreferredLocation, m, bytes),
                   clsInvalidDeviceId);
  ck_assert_int_eq(
      range_int(clsMemRangeAttributeLastPrefetchLocation, m, bytes),
      clsInvalidDeviceId);
  CK_OK(clsMemAdvise(m, bytes, clsMemAdviseSetReadMostly, on_host));
  ck_assert_int_eq(range_int(clsMemRangeAttributeReadMostly, m, bytes), 1);
  CK_OK(clsMemAdvise(m, bytes, clsMemAdviseUnsetReadMostly, on_host));
  ck_assert_int_eq(range_int(clsMemRangeAttributeReadMostly, m, bytes), 0);
  CK_OK(clsMemAdvise(m, bytes, clsMemAdviseSetPreferredLocation, on_dev));
  ck_assert_int_eq(range_int(clsMemRangeAttributePreferredLocation, m, bytes),
                   dev);
  ck_assert_int_eq(
      range_int(clsMemRangeAttributePreferredLocationType, m, bytes),
      clsMemLocationTypeDevice);
  ck_assert_int_eq(range_int(clsMemRangeAttributePreferredLocationId, m, bytes),
                   dev);
  CK_OK(clsMemAdvise(m, bytes, clsMemAdviseSetPreferredLocation, on_host));
  ck_assert_int_eq(range_int(clsMemRangeAttributePreferredLocation, m, bytes),
                   clsCpuDeviceId);
  CK_OK(clsMemAdvise(m, bytes, clsMemAdviseUnsetPreferredLocation, on_host));
  ck_assert_int_eq(range_int(clsMemRangeAttributePreferredLocation, m, bytes),
                   clsInvalidDeviceId);
  CK_OK(clsMemAdvise(m, bytes, clsMemAdviseSetAccessedBy, on_dev));
  int acc[4];
  CK_OK(clsMemRangeGetAttribute(acc, sizeof acc, clsMemRangeAttributeAccessedBy,
                                m, bytes));
  ck_assert_int_eq(acc[0], dev);
  ck_assert_int_eq(acc[1], clsInvalidDeviceId);
  ck_assert_int_eq(acc[3], clsInvalidDeviceId);
  CK_OK(clsMemAdvise(m, bytes, clsMemAdviseUnsetAccessedBy, on_dev));
  CK_OK(clsMemRangeGetAttribute(acc, sizeof acc, clsMemRangeAttributeAccessedBy,
                                m, bytes));
  ck_assert_int_eq(acc[0], clsInvalidDeviceId);

  /* Prefetch to the device, a kernel, prefetch back, all in one stream. */
  arith a;
  arith_load(&a);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  for (int i = 0; i < N; ++i) m[i] = i;
  CK_OK(clsMemPrefetchAsync(m, bytes, on_dev, 0, s));
  ck_assert_int_eq(
      range_int(clsMemRangeAttributeLastPrefetchLocation, m, bytes), dev);
  CK_OK(launch_scale(&a, s, m, 5, N));
  CK_OK(clsMemPrefetchAsync(m, bytes, on_host, 0, s));
  CK_OK(clsStreamSynchronize(s));
  for (int i = 0; i < N; ++i)
    ck_assert_msg(m[i] == 5 * i, "m[%d] = %d after prefetches", i, m[i]);
  ck_assert_int_eq(
      range_int(clsMemRangeAttributeLastPrefetchLocation, m, bytes),
      clsCpuDeviceId);
  ck_assert_int_eq(
      range_int(clsMemRangeAttributeLastPrefetchLocationType, m, bytes),
      clsMemLocationTypeHost);
  /* Part of the allocation, and the legacy stream. */
  CK_OK(clsMemPrefetchAsync(m + IN, 64, on_dev, 0, NULL));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsStreamDestroy(s));
  arith_unload(&a);
  CK_OK(clsFree(m));
  /* A new allocation at the same address starts with no advice. */
  CK_OK(clsMallocManaged((void **)&m, bytes, clsMemAttachGlobal));
  ck_assert_int_eq(
      range_int(clsMemRangeAttributeLastPrefetchLocation, m, bytes),
      clsInvalidDeviceId);
  CK_OK(clsFree(m));
}
END_TEST

/* The prefetch waits for the stream's earlier work. */
START_TEST(prefetch_in_stream_order) {
  int dev;
  CK_OK(clsGetDevice(&dev));
  int *m = NULL;
  CK_OK(clsMallocManaged((void **)&m, 64, clsMemAttachGlobal));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  clsMemLocation on_dev = {clsMemLocationTypeDevice, dev};
  CK_OK(clsMemPrefetchAsync(m, 64, on_dev, 0, s));
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamQuery(s));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(m));
}
END_TEST

/* A kernel node passing pinned and registered memory at odd offsets: the
 * graph replays it as a plain launch does, every time. */
START_TEST(odd_offsets_in_graph) {
  int *p = NULL, *r = malloc(N * sizeof(int));
  ck_assert_ptr_nonnull(r);
  CK_OK(clsMallocHost((void **)&p, N * sizeof(int)));
  CK_OK(clsHostRegister(r, N * sizeof(int), clsHostRegisterDefault));
  clsModule_t m;
  CK_OK(clsModuleLoadData(&m, odd_src, NULL));
  clsStream_t s;
  clsGraph_t g;
  clsGraphExec_t x;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamBeginCapture(s, clsStreamCaptureModeGlobal));
  clsFunction_t f;
  CK_OK(clsModuleGetFunction(&f, m, "add_i"));
  int *src = p + 1, *dst = r + 3, k = 5;
  unsigned n = 100;
  void *args[] = {&src, &dst, &k, &n};
  CK_OK(
      clsLaunchKernel(f, (clsDim3){2, 1, 1}, (clsDim3){64, 1, 1}, args, 0, s));
  src = r + 3, dst = p + 2; /* read back what the first node wrote */
  CK_OK(
      clsLaunchKernel(f, (clsDim3){2, 1, 1}, (clsDim3){64, 1, 1}, args, 0, s));
  CK_OK(clsStreamEndCapture(s, &g));
  CK_OK(clsGraphInstantiate(&x, g, 0));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < N; ++i) p[i] = r[i] = i + round;
    CK_OK(clsGraphLaunch(x, s));
    CK_OK(clsStreamSynchronize(s));
    for (int i = 0; i < 110; ++i) {
      int rw = i >= 3 && i < 103 ? (i - 2) + round + 5 : i + round;
      int pw = i >= 2 && i < 102 ? (i - 1) + round + 10 : i + round;
      ck_assert_msg(r[i] == rw && p[i] == pw,
                    "round %d: r[%d] = %d (expected %d), p[%d] = %d "
                    "(expected %d)",
                    round, i, r[i], rw, i, p[i], pw);
    }
  }
  CK_OK(clsGraphExecDestroy(x));
  CK_OK(clsGraphDestroy(g));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsModuleUnload(m));
  CK_OK(clsHostUnregister(r));
  CK_OK(clsFreeHost(p));
  free(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hostkern");
  TCase *tc = tcase_timed("hostkern", 120);
  tcase_add_test(tc, malloc_host_in_kernels);
  tcase_add_test(tc, host_alloc_in_kernels);
  tcase_add_test(tc, registered_in_kernels);
  tcase_add_test(tc, unregister_while_queued);
  tcase_add_test(tc, register_checks_range);
  tcase_add_test(tc, managed_in_kernels);
  tcase_add_test(tc, advise_prefetch_attributes);
  tcase_add_test(tc, two_streams_one_allocation);
  tcase_add_test(tc, odd_offsets_in_graph);
  suite_add_tcase(s, tc);
  TCase *tc_gate = tcase_tagged(s, "hostkern_gate", 120, "gate");
  tcase_add_test(tc_gate, prefetch_in_stream_order);
  return run_suite(s);
}
