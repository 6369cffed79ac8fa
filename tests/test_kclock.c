/* Issue 25, points 1, 2, 3 and 7: the kernel clock (cls_clock64 and
 * clsDeviceProp's kernelClock), elapsed times on every device (host
 * stamps where the device's timestamps cannot time work), cls_warp_size()
 * in a simpleHyperQ-style reduction, CUDA 13's whole cudaDeviceProp and
 * attribute names, kernel attributes and occupancy.  Kernels:
 * tests/kernels/kclock.cl and kclock_delay.cl. */
#include "support.h"

#include <clstream_kernels.h>

#include <stdio.h>
#include <string.h>

static const clsDim3 one = {1, 1, 1};

typedef struct kc {
  clsModule_t mod;
  clsFunction_t features, sum, busy;
} kc;

static void kc_load(kc *k) {
  clsError_t r = clsModuleLoadData(&k->mod, cls_kernel_kclock, NULL);
  ck_assert_msg(r == clsSuccess, "tests/kernels/kclock.cl: %s\n%s",
                clsGetErrorName(r), clsGetLastBuildLog());
  CK_OK(clsModuleGetFunction(&k->features, k->mod, "kclock_features"));
  CK_OK(clsModuleGetFunction(&k->sum, k->mod, "kclock_sum"));
  CK_OK(clsModuleGetFunction(&k->busy, k->mod, "kclock_busy"));
}

static void props(clsDeviceProp *p) {
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsDeviceSynchronize()); /* opens the device: its probes ran */
  CK_OK(clsGetDeviceProperties(p, dev));
}

/* The kernel's CLS_CLOCK64_KIND is the device's kernelClock; where there
 * is a clock a delay kernel spinning on it ends, having seen at least the
 * ticks it waited for and never a step back; where there is none, the
 * delay module is a build error that names cls_clock64. */
START_TEST(clock_advances_where_the_device_has_one) {
  kc k;
  kc_load(&k);
  clsDeviceProp p;
  props(&p);
  unsigned *feat = (unsigned *)dev_ints(2);
  void *fargs[] = {&feat};
  CK_OK(clsLaunchKernel(k.features, one, one, fargs, 0, NULL));
  unsigned h[2];
  CK_OK(clsMemcpy(h, feat, sizeof h, clsMemcpyDeviceToHost));
  printf("NOTE clock: kernelClock %d, CLS_CLOCK64_KIND %u (%s)\n",
         p.kernelClock, h[0], p.name);
  ck_assert_int_eq((int)h[0], p.kernelClock);
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, cls_kernel_kclock_delay, NULL);
  if (p.kernelClock == clsKernelClockNone) {
    CK_CLS(r, clsErrorInvalidSource);
    ck_assert_msg(strstr(clsGetLastBuildLog(), "cls_clock64") != NULL,
                  "the build log does not name cls_clock64:\n%s",
                  clsGetLastBuildLog());
  } else {
    ck_assert_msg(r == clsSuccess, "%s", clsGetLastBuildLog());
    clsFunction_t block;
    CK_OK(clsModuleGetFunction(&block, m, "clock_block"));
    unsigned long long *out, ticks = p.simulator ? 2000 : 1000000;
    CK_OK(clsMalloc((void **)&out, 2 * sizeof *out));
    void *args[] = {&out, &ticks};
    clsDim3 block32 = {32, 1, 1};
    CK_OK(clsLaunchKernel(block, one, block32, args, 0, NULL));
    unsigned long long seen[2];
    CK_OK(clsMemcpy(seen, out, sizeof seen, clsMemcpyDeviceToHost));
    printf("NOTE clock: waited %llu ticks, saw %llu, %llu steps back\n", ticks,
           seen[0], seen[1]);
    ck_assert_uint_ge(seen[0], ticks);
    ck_assert_uint_eq(seen[1], 0);
    CK_OK(clsFree(out));
    CK_OK(clsModuleUnload(m));
  }
  CK_OK(clsFree(feat));
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

/* simpleHyperQ's sum: 32 threads reduce from warpSize / 2 down with a
 * barrier between steps, over more values than threads. */
START_TEST(warp_reduction_sums_right) {
  kc k;
  kc_load(&k);
  clsDeviceProp p;
  props(&p);
  enum { N = 1000 };
  long long host[N], want = 0;
  for (int i = 0; i < N; ++i) want += host[i] = 3 * i + 1;
  long long *dev;
  CK_OK(clsMalloc((void **)&dev, sizeof host));
  CK_OK(clsMemcpy(dev, host, sizeof host, clsMemcpyHostToDevice));
  int n = N;
  void *args[] = {&dev, &n};
  clsDim3 block = {32, 1, 1};
  CK_OK(clsLaunchKernel(k.sum, one, block, args, 0, NULL));
  long long got = 0;
  CK_OK(clsMemcpy(&got, dev, sizeof got, clsMemcpyDeviceToHost));
  unsigned *feat = (unsigned *)dev_ints(2);
  void *fargs[] = {&feat};
  CK_OK(clsLaunchKernel(k.features, one, one, fargs, 0, NULL));
  unsigned h[2];
  CK_OK(clsMemcpy(h, feat, sizeof h, clsMemcpyDeviceToHost));
  printf("NOTE warp: cls_warp_size() %u, warpSize %d, sum %lld of %lld\n", h[1],
         p.warpSize, got, want);
  ck_assert_msg(got == want, "sum %lld, want %lld (cls_warp_size() %u)", got,
                want, h[1]);
  ck_assert_uint_ge(h[1], 1);
  CK_OK(clsFree(feat));
  CK_OK(clsFree(dev));
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

/* A kernel between two records: positive, and within the host's span
 * from before the first record to after the synchronize, on every device
 * (rusticl's are host-stamped). */
START_TEST(elapsed_over_a_kernel_on_every_device) {
  kc k;
  kc_load(&k);
  clsDeviceProp p;
  props(&p);
  printf("NOTE elapsed: eventHostStamps %d, timerResolutionNs %g\n",
         p.eventHostStamps, p.timerResolutionNs);
  ck_assert(p.timerResolutionNs > 0.0);
  unsigned *out;
  unsigned n = 4096, rounds = p.simulator ? 10 : 2000;
  CK_OK(clsMalloc((void **)&out, n * sizeof *out));
  clsStream_t s;
  clsEvent_t a, b;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsEventCreate(&a));
  CK_OK(clsEventCreate(&b));
  void *args[] = {&out, &rounds};
  clsDim3 grid = {n / 64, 1, 1}, block = {64, 1, 1};
  CK_OK(clsLaunchKernel(k.busy, grid, block, args, 0, s)); /* warm-up */
  CK_OK(clsStreamSynchronize(s));
  for (int round = 0; round < 3; ++round) {
    double t0 = now_ms();
    CK_OK(clsEventRecord(a, s));
    CK_OK(clsLaunchKernel(k.busy, grid, block, args, 0, s));
    CK_OK(clsEventRecord(b, s));
    CK_OK(clsEventSynchronize(b));
    double t1 = now_ms();
    float ms = -1.0f, back = 1.0f;
    CK_OK(clsEventElapsedTime(&ms, a, b));
    CK_OK(clsEventElapsedTime(&back, b, a));
    printf("NOTE elapsed: kernel %.4f ms, host span %.4f ms\n", (double)ms,
           t1 - t0);
    ck_assert_msg(ms > 0.0f, "elapsed %g over a kernel", (double)ms);
    ck_assert_msg((double)ms <= t1 - t0 + p.timerResolutionNs / 1e6 + 1e-3,
                  "elapsed %.4f ms > host span %.4f ms", (double)ms, t1 - t0);
    ck_assert_msg(back == -ms, "reverse %g, forward %g", (double)back,
                  (double)ms);
  }
  CK_OK(clsEventDestroy(a));
  CK_OK(clsEventDestroy(b));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

/* CUDA 13's fields: consistent with each other and with the attributes
 * of the same names; every name of clstream.h's enum is accepted. */
START_TEST(device_query_surface) {
  clsDeviceProp p;
  props(&p);
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  ck_assert_uint_gt(p.memPitch, 0);
  ck_assert_uint_gt(p.totalConstMem, 0);
  ck_assert_int_ge(p.maxThreadsPerMultiProcessor, p.maxThreadsPerBlock);
  ck_assert_int_ge(p.maxBlocksPerMultiProcessor, 1);
  ck_assert_uint_ge(p.sharedMemPerBlockOptin, p.sharedMemPerBlock);
  ck_assert_uint_ge(p.sharedMemPerMultiprocessor, p.sharedMemPerBlock);
  ck_assert_int_ge(p.warpSize, 1);
  struct {
    clsDeviceAttr a;
    long long want;
  } same[] = {
      {clsDevAttrPciBusId, p.pciBusID},
      {clsDevAttrPciDeviceId, p.pciDeviceID},
      {clsDevAttrPciDomainId, p.pciDomainID},
      {clsDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor},
      {clsDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor},
      {clsDevAttrL2CacheSize, p.l2CacheSize},
      {clsDevAttrEccEnabled, p.ECCEnabled},
      {clsDevAttrWarpSize, p.warpSize},
      {clsDevAttrGlobalL1CacheSupported, p.globalL1CacheSupported},
      {clsDevAttrMaxRegistersPerBlock, p.regsPerBlock},
  };
  for (size_t i = 0; i < sizeof same / sizeof same[0]; ++i) {
    int v = -12345;
    CK_OK(clsDeviceGetAttribute(&v, same[i].a, dev));
    ck_assert_msg(v == same[i].want, "attribute %d: %d, property %lld",
                  (int)same[i].a, v, same[i].want);
  }
  /* Every attribute the enum names reads (the CUDA build: the runtime
   * may refuse a few on some devices, so only OpenCL is held to it). */
  int listed = 0;
  for (int a = 1; a < (int)clsDevAttrMax; ++a) {
    int v;
    clsError_t r = clsDeviceGetAttribute(&v, (clsDeviceAttr)a, dev);
    if (r == clsSuccess) ++listed;
    (void)clsGetLastError();
  }
  printf("NOTE device query: %d attributes answer; kernelClock %d, "
         "PCI %d:%d.%d\n",
         listed, p.kernelClock, p.pciDomainID, p.pciBusID, p.pciDeviceID);
  ck_assert_int_ge(listed, 120);
}
END_TEST

/* clsFuncGetAttributes and clsFuncSetAttribute on a kernel with 256 bytes
 * of static shared memory. */
START_TEST(function_attributes) {
  kc k;
  kc_load(&k);
  clsDeviceProp p;
  props(&p);
  clsFuncAttributes a;
  CK_OK(clsFuncGetAttributes(&a, k.sum));
  printf("NOTE funcattr: maxThreadsPerBlock %d, shared %zu, local %zu, "
         "regs %d, dynamic %d, carveout %d\n",
         a.maxThreadsPerBlock, a.sharedSizeBytes, a.localSizeBytes, a.numRegs,
         a.maxDynamicSharedSizeBytes, a.preferredShmemCarveout);
  ck_assert_int_ge(a.maxThreadsPerBlock, 32);
  ck_assert_int_le(a.maxThreadsPerBlock, p.maxThreadsPerBlock);
  /* The driver's CL_KERNEL_LOCAL_MEM_SIZE: the kernel's 32 longs, or 0
   * where the driver does not count static local arrays (PoCL 5.0 on the
   * H200 machine, 2026-12-04), never a made-up figure in between. */
  ck_assert(a.sharedSizeBytes == 0 ||
            a.sharedSizeBytes >= 32 * sizeof(long long));
  ck_assert_int_eq(a.preferredShmemCarveout, -1);
  CK_OK(clsFuncSetAttribute(k.sum, clsFuncAttributeMaxDynamicSharedMemorySize,
                            1024));
  CK_OK(clsFuncSetAttribute(k.sum,
                            clsFuncAttributePreferredSharedMemoryCarveout, 50));
  CK_OK(clsFuncGetAttributes(&a, k.sum));
  ck_assert_int_eq(a.maxDynamicSharedSizeBytes, 1024);
  ck_assert_int_eq(a.preferredShmemCarveout, 50);
  /* The most a kernel may ask for: the opt-in limit less its static. */
  int room = (int)(p.sharedMemPerBlockOptin - a.sharedSizeBytes);
  CK_OK(clsFuncSetAttribute(k.sum, clsFuncAttributeMaxDynamicSharedMemorySize,
                            room));
  CK_CLS(clsFuncSetAttribute(k.sum, clsFuncAttributeMaxDynamicSharedMemorySize,
                             room + 1),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  if (p.clVersionMajor > 0) /* OpenCL: no thread-block clusters */
    CK_CLS(clsFuncSetAttribute(k.sum, clsFuncAttributeRequiredClusterWidth, 2),
           clsErrorNotSupported);
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

/* Occupancy from the device's limits: a block the kernel can run fits at
 * least once, a larger one not at all, shared memory limits it, and the
 * potential block size stays within the kernel's and the caller's limit. */
START_TEST(occupancy) {
  kc k;
  kc_load(&k);
  clsDeviceProp p;
  props(&p);
  clsFuncAttributes a;
  CK_OK(clsFuncGetAttributes(&a, k.busy));
  int n = -1;
  CK_OK(clsOccupancyMaxActiveBlocksPerMultiprocessor(&n, k.busy, 32, 0));
  ck_assert_int_ge(n, 1);
  ck_assert_int_le(n * 32, p.maxThreadsPerMultiProcessor);
  CK_OK(clsOccupancyMaxActiveBlocksPerMultiprocessor(&n, k.busy,
                                                     a.maxThreadsPerBlock, 0));
  ck_assert_int_ge(n, 1);
  CK_OK(clsOccupancyMaxActiveBlocksPerMultiprocessor(
      &n, k.busy, a.maxThreadsPerBlock + 1, 0));
  ck_assert_int_eq(n, 0);
  CK_OK(clsOccupancyMaxActiveBlocksPerMultiprocessor(
      &n, k.busy, 32, p.sharedMemPerMultiprocessor + 1));
  ck_assert_int_eq(n, 0);
  int grid = -1, block = -1;
  CK_OK(clsOccupancyMaxPotentialBlockSize(&grid, &block, k.busy, 0, 0));
  printf("NOTE occupancy: %d blocks of 32; potential block %d, grid %d\n", n,
         block, grid);
  ck_assert_int_ge(block, 1);
  ck_assert_int_le(block, a.maxThreadsPerBlock);
  ck_assert_int_ge(grid, p.multiProcessorCount);
  CK_OK(clsOccupancyMaxPotentialBlockSize(&grid, &block, k.busy, 0, 64));
  ck_assert_int_ge(block, 1);
  ck_assert_int_le(block, 64);
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

int main(void) {
  Suite *s = suite_create("kclock");
  TCase *tc = tcase_timed("kclock", 240);
  tcase_add_test(tc, clock_advances_where_the_device_has_one);
  tcase_add_test(tc, warp_reduction_sums_right);
  tcase_add_test(tc, elapsed_over_a_kernel_on_every_device);
  tcase_add_test(tc, device_query_surface);
  tcase_add_test(tc, function_attributes);
  tcase_add_test(tc, occupancy);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
