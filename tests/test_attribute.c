/* Device attributes (clsDeviceGetAttribute), device identity (what
 * major.minor and the OpenCL version fields mean), device flags
 * (clsSetDeviceFlags, clsGetDeviceFlags) and the profiler switches.
 *
 * Rows (CUDA 13 runtime manual, not yet measured on the H200):
 *  - cudaDeviceGetAttribute of a value outside cudaDeviceAttr, or a NULL
 *    value: InvalidValue; a device out of range: InvalidDevice.
 *  - cudaSetDeviceFlags on a device already in use: Success, the flags
 *    replace the old ones ("the previous flags are overwritten").
 *  - cudaGetDeviceFlags: the flags set, with cudaDeviceMapHost, which the
 *    runtime sets implicitly (on OpenCL: where the device can map).
 *  - cudaProfilerStart/Stop without a profiler: Success. */
#include "support.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int on_cuda(int dev) {
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  return strcmp(p.platformName, "CUDA") == 0;
}

static int attr(clsDeviceAttr a, int dev) {
  int v = -12345;
  CK_OK(clsDeviceGetAttribute(&v, a, dev));
  ck_assert_msg(v != -12345, "attribute %d was not stored", (int)a);
  return v;
}

/* Attributes and properties are two views of one device. */
START_TEST(attributes_match_properties) {
  int n;
  CK_OK(clsGetDeviceCount(&n));
  for (int d = 0; d < n; ++d) {
    clsDeviceProp p;
    CK_OK(clsGetDeviceProperties(&p, d));
#define SAME(a, field)                                                         \
  ck_assert_msg(attr(a, d) == (int)(field), "device %d: %s = %d, %s = %d", d,  \
                #a, attr(a, d), #field, (int)(field))
    SAME(clsDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock);
    SAME(clsDevAttrMaxBlockDimX, p.maxThreadsDim[0]);
    SAME(clsDevAttrMaxBlockDimY, p.maxThreadsDim[1]);
    SAME(clsDevAttrMaxBlockDimZ, p.maxThreadsDim[2]);
    SAME(clsDevAttrMaxGridDimX, p.maxGridSize[0]);
    SAME(clsDevAttrMaxGridDimY, p.maxGridSize[1]);
    SAME(clsDevAttrMaxGridDimZ, p.maxGridSize[2]);
    SAME(clsDevAttrMaxSharedMemoryPerBlock, p.sharedMemPerBlock);
    SAME(clsDevAttrWarpSize, p.warpSize);
    SAME(clsDevAttrClockRate, p.clockRate);
    SAME(clsDevAttrMultiProcessorCount, p.multiProcessorCount);
    SAME(clsDevAttrIntegrated, p.integrated);
    SAME(clsDevAttrCanMapHostMemory, p.canMapHostMemory);
    SAME(clsDevAttrComputeMode, p.computeMode);
    SAME(clsDevAttrGpuOverlap, p.deviceOverlap);
    SAME(clsDevAttrConcurrentKernels, p.concurrentKernels);
    SAME(clsDevAttrAsyncEngineCount, p.asyncEngineCount);
    SAME(clsDevAttrUnifiedAddressing, p.unifiedAddressing);
    SAME(clsDevAttrComputeCapabilityMajor, p.major);
    SAME(clsDevAttrComputeCapabilityMinor, p.minor);
    SAME(clsDevAttrStreamPrioritiesSupported, p.streamPrioritiesSupported);
    SAME(clsDevAttrManagedMemory, p.managedMemory);
    SAME(clsDevAttrConcurrentManagedAccess, p.concurrentManagedAccess);
    SAME(clsDevAttrPageableMemoryAccess, p.pageableMemoryAccess);
    SAME(clsDevAttrHostRegisterSupported, p.hostRegisterSupported);
    SAME(clsDevAttrMemoryPoolsSupported, p.memoryPoolsSupported);
#undef SAME
    ck_assert_int_eq(p.streamPrioritiesSupported, p.streamPriorities);
    ck_assert_int_eq(p.deviceOverlap, p.asyncEngineCount > 0);
  }
}
END_TEST

/* Every value of CUDA 13's enum answers; values outside it are
 * InvalidValue and become the thread's last error. */
START_TEST(attribute_values) {
  int v;
  for (int a = 1; a <= 91; ++a) {
    clsError_t r = clsDeviceGetAttribute(&v, (clsDeviceAttr)a, 0);
    ck_assert_msg(r == clsSuccess, "attribute %d: %s", a, clsGetErrorName(r));
  }
  static const int more[] = {95, 97, 99, 106, 115};
  for (size_t i = 0; i < sizeof more / sizeof more[0]; ++i)
    CK_OK(clsDeviceGetAttribute(&v, (clsDeviceAttr)more[i], 0));
  static const int bad[] = {0, -1, -100, 100000, 1 << 30};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    CK_CLS(clsDeviceGetAttribute(&v, (clsDeviceAttr)bad[i], 0),
           clsErrorInvalidValue);
    CK_LAST(clsErrorInvalidValue);
  }
  int n;
  CK_OK(clsGetDeviceCount(&n));
  CK_CLS(clsDeviceGetAttribute(&v, clsDevAttrWarpSize, n),
         clsErrorInvalidDevice);
  CK_CLS(clsDeviceGetAttribute(NULL, clsDevAttrWarpSize, 0),
         clsErrorInvalidValue);
}
END_TEST

/* Rows measured on CUDA 13 (H100): memPitch and cudaDevAttrMaxPitch are
 * both INT_MAX (on OpenCL: or the device's largest allocation, where that
 * is smaller), and attributes 44 and 96, which CUDA 13's enum has no name
 * for, give Success and 1. */
START_TEST(pitch_and_unnamed_attributes) {
  int n;
  CK_OK(clsGetDeviceCount(&n));
  for (int d = 0; d < n; ++d) {
    clsDeviceProp p;
    CK_OK(clsGetDeviceProperties(&p, d));
    ck_assert_uint_le(p.memPitch, (size_t)INT_MAX);
    ck_assert_uint_eq(p.memPitch, (size_t)attr(clsDevAttrMaxPitch, d));
    if (on_cuda(d) || p.totalGlobalMem > (size_t)INT_MAX)
      ck_assert_uint_eq(p.memPitch, (size_t)INT_MAX);
    ck_assert_int_eq(attr((clsDeviceAttr)44, d), 1);
    ck_assert_int_eq(attr((clsDeviceAttr)96, d), 1);
  }
}
END_TEST

/* Point 5 of issue 13: major.minor is the hardware's compute capability
 * where there is one (CUDA, NVIDIA under OpenCL) and 7.5 elsewhere, so
 * that "requires SM 3.5" gates pass; the OpenCL version has its own
 * fields; compute mode is Default (never Prohibited). */
START_TEST(device_identity) {
  int n;
  CK_OK(clsGetDeviceCount(&n));
  for (int d = 0; d < n; ++d) {
    clsDeviceProp p;
    CK_OK(clsGetDeviceProperties(&p, d));
    printf("device %d (%s): compute capability %d.%d (%s), OpenCL %d.%d\n", d,
           p.name, p.major, p.minor,
           p.computeCapabilityNative ? "the hardware's" : "nominal",
           p.clVersionMajor, p.clVersionMinor);
    if (on_cuda(d)) {
      ck_assert_int_eq(p.computeCapabilityNative, 1);
      ck_assert_int_eq(p.clVersionMajor, 0);
    } else {
      ck_assert_msg(p.clVersionMajor >= 1, "device %d: OpenCL %d.%d", d,
                    p.clVersionMajor, p.clVersionMinor);
      if (!p.computeCapabilityNative) {
        ck_assert_int_eq(p.major, 7);
        ck_assert_int_eq(p.minor, 5);
      }
    }
    ck_assert_msg(p.major * 10 + p.minor >= 35,
                  "device %d: %d.%d fails an "
                  "SM 3.5 gate",
                  d, p.major, p.minor);
    ck_assert_int_ne(p.computeMode, clsComputeModeProhibited);
    ck_assert_int_eq(attr(clsDevAttrComputeMode, d), clsComputeModeDefault);
    ck_assert_int_ge(p.warpSize, 1);
  }
}
END_TEST

/* Each schedule flag round-trips, is accepted on a device already in use
 * (CUDA 13 overwrites), and waits under it still wait for held work. */
START_TEST(device_flags) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s)); /* the device is in use from here on */
  static const unsigned sched[] = {
      clsDeviceScheduleSpin, clsDeviceScheduleYield,
      clsDeviceScheduleBlockingSync, clsDeviceScheduleAuto};
  for (size_t i = 0; i < sizeof sched / sizeof sched[0]; ++i) {
    CK_OK(clsSetDeviceFlags(sched[i] | clsDeviceMapHost));
    unsigned f = 0xdead;
    CK_OK(clsGetDeviceFlags(&f));
    ck_assert_msg((f & clsDeviceScheduleMask) == sched[i],
                  "set schedule 0x%x, got flags 0x%x", sched[i], f);
    gate *g = gate_new();
    gate_hold(g, s);
    clsEvent_t e;
    CK_OK(clsEventCreate(&e));
    CK_OK(clsEventRecord(e, s));
    bg_call c;
    CK_OK(expect_blocked_until_release(&c, bg_stream_sync, s, g, SETTLE_MS,
                                       "clsStreamSynchronize"));
    CK_OK(clsEventSynchronize(e));
    CK_OK(clsEventDestroy(e));
  }
  /* The deprecated name is the same flag. */
  CK_OK(clsSetDeviceFlags(clsDeviceBlockingSync));
  unsigned f;
  CK_OK(clsGetDeviceFlags(&f));
  ck_assert_uint_eq(f & clsDeviceScheduleMask, clsDeviceScheduleBlockingSync);
  CK_OK(clsSetDeviceFlags(clsDeviceScheduleAuto));
  CK_CLS(clsSetDeviceFlags(clsDeviceScheduleSpin | clsDeviceScheduleYield),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_CLS(clsSetDeviceFlags(0x100), clsErrorInvalidValue);
  CK_CLS(clsGetDeviceFlags(NULL), clsErrorInvalidValue);
  CK_OK(clsStreamDestroy(s));
}
END_TEST

START_TEST(profiler) {
  CK_OK(clsProfilerStart());
  CK_OK(clsProfilerStart());
  CK_OK(clsProfilerStop());
  CK_OK(clsProfilerStop());
  CK_LAST(clsSuccess);
}
END_TEST

int main(void) {
  Suite *s = suite_create("attribute");
  TCase *tc = tcase_timed("attribute", 120);
  TCase *tc_gate_threads =
      tcase_tagged(s, "attribute_gate_threads", 120, "gate threads");
  tcase_add_test(tc, attributes_match_properties);
  tcase_add_test(tc, attribute_values);
  tcase_add_test(tc, pitch_and_unnamed_attributes);
  tcase_add_test(tc, device_identity);
  tcase_add_test(tc_gate_threads, device_flags);
  tcase_add_test(tc, profiler);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
