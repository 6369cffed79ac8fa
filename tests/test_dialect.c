/* The kernel dialect's additions of issue 13 (point 6): size_t and
 * ptrdiff_t kernel parameters, cls_warp_size(), cls_clock64(). */
#include "support.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct dialect {
  clsModule_t mod;
  clsFunction_t sizes, features;
} dialect;

static void dialect_load(dialect *k) {
  clsError_t r = clsModuleLoadData(&k->mod, cls_kernel_dialect, NULL);
  ck_assert_msg(r == clsSuccess, "tests/kernels/dialect.cl: %s\n%s",
                clsGetErrorName(r), clsGetLastBuildLog());
  CK_OK(clsModuleGetFunction(&k->sizes, k->mod, "sizes"));
  CK_OK(clsModuleGetFunction(&k->features, k->mod, "features"));
}

static const clsDim3 one = {1, 1, 1};

/* Host size_t values wider than 32 bits arrive whole. */
START_TEST(size_t_parameters) {
  dialect k;
  dialect_load(&k);
  unsigned long long *out;
  CK_OK(clsMalloc((void **)&out, 3 * sizeof *out));
  int *t = dev_ints(8);
  int vals[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  dev_put(t, vals, 8);
  size_t n = ((size_t)1 << 33) + 5;
  ptrdiff_t d = -((ptrdiff_t)1 << 40);
  size_t at = 6;
  void *args[] = {&out, &n, &d, &t, &at};
  CK_OK(clsLaunchKernel(k.sizes, one, one, args, 0, NULL));
  unsigned long long h[3];
  CK_OK(clsMemcpy(h, out, sizeof h, clsMemcpyDeviceToHost));
  ck_assert_uint_eq(h[0], (unsigned long long)n);
  ck_assert_int_eq((long long)h[1], (long long)d);
  ck_assert_uint_eq(h[2], 16);
  CK_OK(clsFree(out));
  CK_OK(clsFree(t));
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

/* cls_warp_size() agrees with the host's warpSize (a device with OpenCL
 * sub-groups may report its sub-group size where the host reads 1). */
START_TEST(warp_size) {
  dialect k;
  dialect_load(&k);
  unsigned *out = (unsigned *)dev_ints(2);
  void *args[] = {&out};
  CK_OK(clsLaunchKernel(k.features, one, one, args, 0, NULL));
  unsigned h[2];
  CK_OK(clsMemcpy(h, out, sizeof h, clsMemcpyDeviceToHost));
  int dev;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  printf("warp_size: kernel %u, host warpSize %d, CLS_HAS_CLOCK64 %u\n", h[0],
         p.warpSize, h[1]);
  ck_assert_uint_ge(h[0], 1);
  ck_assert_msg(p.warpSize == 1 || h[0] == (unsigned)p.warpSize,
                "cls_warp_size() %u, warpSize %d", h[0], p.warpSize);
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

/* Issue 35's kernel shape (tests/kernels/dialect.cl, warp_loop_sum): a
 * 32-work-item block, a body CLS_LOCAL array, a barrier in a loop from
 * cls_warp_size() / 2 down.  PoCL 5.0 crashed the process on it (the
 * loop bound read the sub-group size, which PoCL 4 to 6 do not know is
 * uniform); clstream makes cls_warp_size() a constant there (facts.c,
 * warp_const).  The sum must be right on every set-up. */
START_TEST(warp_loop_reduction) {
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, cls_kernel_dialect, NULL);
  ck_assert_msg(r == clsSuccess, "%s\n%s", clsGetErrorName(r),
                clsGetLastBuildLog());
  clsFunction_t f;
  CK_OK(clsModuleGetFunction(&f, m, "warp_loop_sum"));
  int h[32], want = 0;
  for (int i = 0; i < 32; i++) want += h[i] = 3 * i + 1;
  int *in = dev_ints(32), *out = dev_ints(1);
  dev_put(in, h, 32);
  void *args[] = {&in, &out};
  CK_OK(clsLaunchKernel(f, one, (clsDim3){32, 1, 1}, args, 0, NULL));
  int got = -1;
  CK_OK(clsMemcpy(&got, out, sizeof got, clsMemcpyDeviceToHost));
  CK_OK(clsDeviceSynchronize());
  /* The loop adds cls_warp_size() elements: all 32 where it is 32. */
  int dev;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  if (p.warpSize == 32) ck_assert_int_eq(got, want);
  CK_OK(clsFree(in));
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(m));
}
END_TEST

static const char clock_src[] =
    "CLS_KERNEL void tick(CLS_GLOBAL ulong *out, ulong cycles) {\n"
    "  if (cls_global_id(0) != 0) return;\n"
    "  ulong t0 = cls_clock64(), t = t0, prev = t0, back = 0;\n"
    "  for (ulong k = 0; k < 100000000ul && t - t0 < cycles; ++k) {\n"
    "    t = cls_clock64();\n"
    "    if (t < prev) back++;\n"
    "    prev = t;\n"
    "  }\n"
    "  out[0] = t - t0;\n"
    "  out[1] = back;\n"
    "}\n";

/* Where the device has a clock, it advances (a spin loop on it ends) and
 * never runs backwards within a work-item; where it has none, using it is
 * a build error that names it. */
START_TEST(clock64) {
  dialect k;
  dialect_load(&k);
  unsigned *feat = (unsigned *)dev_ints(2);
  void *fargs[] = {&feat};
  CK_OK(clsLaunchKernel(k.features, one, one, fargs, 0, NULL));
  unsigned has[2];
  CK_OK(clsMemcpy(has, feat, sizeof has, clsMemcpyDeviceToHost));
  CK_OK(clsFree(feat));
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, clock_src, NULL);
  if (!has[1]) {
    CK_CLS(r, clsErrorInvalidSource);
    ck_assert_msg(strstr(clsGetLastBuildLog(), "cls_clock64") != NULL,
                  "the build log does not name cls_clock64:\n%s",
                  clsGetLastBuildLog());
    printf("clock64: no device clock here (checked the build error)\n");
    CK_OK(clsModuleUnload(k.mod));
    return;
  }
  ck_assert_msg(r == clsSuccess, "%s", clsGetLastBuildLog());
  clsFunction_t tick;
  CK_OK(clsModuleGetFunction(&tick, m, "tick"));
  unsigned long long *out;
  CK_OK(clsMalloc((void **)&out, 2 * sizeof *out));
  unsigned long long cycles = 20000;
  void *args[] = {&out, &cycles};
  CK_OK(clsLaunchKernel(tick, one, one, args, 0, NULL));
  unsigned long long h[2];
  CK_OK(clsMemcpy(h, out, sizeof h, clsMemcpyDeviceToHost));
  printf("clock64: %llu cycles elapsed, %llu steps back\n", h[0], h[1]);
  ck_assert_uint_ge(h[0], cycles);
  ck_assert_uint_eq(h[1], 0);
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(m));
  CK_OK(clsModuleUnload(k.mod));
}
END_TEST

int main(void) {
  Suite *s = suite_create("dialect");
  TCase *tc = tcase_timed("dialect", 120);
  tcase_add_test(tc, size_t_parameters);
  tcase_add_test(tc, warp_size);
  tcase_add_test(tc, warp_loop_reduction);
  tcase_add_test(tc, clock64);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
