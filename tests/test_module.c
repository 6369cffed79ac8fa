/* Modules and launches: compile, build log, lookup, argument passing,
 * launch configuration, unload. */
#include "support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load_test_kernels(clsModule_t *m) {
  clsError_t r = clsModuleLoadData(m, cls_kernel_test_kernels, NULL);
  ck_assert_msg(r == clsSuccess,
                "loading tests/kernels/test_kernels.cl: %s\n%s",
                clsGetErrorName(r), clsGetLastBuildLog());
}

static clsFunction_t get_fn(clsModule_t m, const char *name) {
  clsFunction_t f = NULL;
  clsError_t r = clsModuleGetFunction(&f, m, name);
  ck_assert_msg(r == clsSuccess, "clsModuleGetFunction(%s): %s", name,
                clsGetErrorName(r));
  ck_assert_ptr_nonnull(f);
  return f;
}

START_TEST(load_and_get_functions) {
  arith a;
  arith_load(&a);
  ck_assert_ptr_nonnull(a.mod);
  ck_assert_ptr_ne(a.fill, a.scale);
  /* Looking up the same name twice gives a usable handle each time. */
  clsFunction_t f2 = get_fn(a.mod, "fill");
  int *d = dev_ints(100);
  int n = 100, v = 6;
  void *args[] = {&d, &v, &n};
  clsDim3 g = {2, 1, 1}, b = {64, 1, 1};
  CK_OK(clsLaunchKernel(f2, g, b, args, 0, NULL));
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d, 6, 100, "d");
  /* Two modules from the same source are independent. */
  arith a2;
  arith_load(&a2);
  ck_assert_ptr_ne(a.mod, a2.mod);
  arith_unload(&a2);
  CK_OK(launch_scale(&a, NULL, d, 2, 100));
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d, 12, 100, "d");
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* A compile error -> InvalidSource and a non-empty build log. */
START_TEST(build_failure) {
  clsModule_t m = NULL;
  const char *bad =
      "/* cls-sweep: expect build error */\n"
      "CLS_KERNEL void broken(CLS_GLOBAL int *t) { t[0] = undeclared_x; }\n";
  CK_CLS(clsModuleLoadData(&m, bad, NULL), clsErrorInvalidSource);
  CK_LAST(clsErrorInvalidSource);
  const char *log = clsGetLastBuildLog();
  ck_assert_ptr_nonnull(log);
  ck_assert_msg(strlen(log) > 0, "empty build log after a compile error");
  ck_assert_msg(strstr(log, "undeclared_x") != NULL,
                "build log does not mention the error: %s", log);
  /* A syntax error too. */
  CK_CLS(clsModuleLoadData(&m,
                           "/* cls-sweep: expect build error */ "
                           "CLS_KERNEL void f( {",
                           NULL),
         clsErrorInvalidSource);
  ck_assert_msg(strlen(clsGetLastBuildLog()) > 0, "empty build log");
  /* A good source still loads afterwards. */
  arith a;
  arith_load(&a);
  arith_unload(&a);
}
END_TEST

/* The build log is per thread: "" before any load, and a failure on one
 * thread does not show on another. */
typedef struct log_probe {
  int nonnull;
  size_t len_before, len_after;
  clsError_t rc;
  int fail;
} log_probe;

static void *log_thread(void *p) {
  log_probe *lp = p;
  const char *l = clsGetLastBuildLog();
  lp->nonnull = l != NULL;
  lp->len_before = l ? strlen(l) : 0;
  if (lp->fail) {
    clsModule_t m;
    lp->rc = clsModuleLoadData(&m,
                               "/* cls-sweep: expect build error */ "
                               "CLS_KERNEL void f( {",
                               NULL);
    l = clsGetLastBuildLog();
    lp->len_after = l ? strlen(l) : 0;
  }
  return NULL;
}

START_TEST(build_log_per_thread) {
  const char *l = clsGetLastBuildLog();
  ck_assert_ptr_nonnull(l);
  ck_assert_str_eq(l, "");
  log_probe fail = {0, 0, 0, clsSuccess, 1};
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, log_thread, &fail), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(fail.nonnull, 1);
  ck_assert_uint_eq(fail.len_before, 0);
  ck_assert_int_eq(fail.rc, clsErrorInvalidSource);
  ck_assert_uint_gt(fail.len_after, 0);
  l = clsGetLastBuildLog();
  ck_assert_ptr_nonnull(l);
  ck_assert_str_eq(l, "");
  /* After a failure here, a fresh thread still sees "". */
  clsModule_t m;
  CK_CLS(clsModuleLoadData(&m,
                           "/* cls-sweep: expect build error */ "
                           "CLS_KERNEL void f( {",
                           NULL),
         clsErrorInvalidSource);
  log_probe fresh = {0, 99, 0, clsSuccess, 0};
  ck_assert_int_eq(pthread_create(&th, NULL, log_thread, &fresh), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(fresh.nonnull, 1);
  ck_assert_uint_eq(fresh.len_before, 0);
}
END_TEST

/* Compiler options reach the compiler. */
START_TEST(load_with_options) {
  const char *src =
      "/* cls-sweep: options -DVAL=42 */\n"
      "CLS_KERNEL void setv(CLS_GLOBAL int *t) { t[cls_global_id(0)] = VAL; "
      "}\n";
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, src, "-DVAL=42");
  ck_assert_msg(r == clsSuccess, "%s\n%s", clsGetErrorName(r),
                clsGetLastBuildLog());
  clsFunction_t f = get_fn(m, "setv");
  int *d = dev_ints(64);
  void *args[] = {&d};
  clsDim3 g = {1, 1, 1}, b = {64, 1, 1};
  CK_OK(clsLaunchKernel(f, g, b, args, 0, NULL));
  CK_OK(clsDeviceSynchronize());
  dev_expect(d, 42, 64, "d");
  CK_OK(clsModuleUnload(m));
  /* Without the option the source does not compile. */
  CK_CLS(clsModuleLoadData(&m, src, NULL), clsErrorInvalidSource);
  CK_CLS(clsModuleLoadData(&m, src, ""), clsErrorInvalidSource);
  CK_OK(clsFree(d));
}
END_TEST

START_TEST(load_invalid_args) {
  clsModule_t m;
  CK_CLS(clsModuleLoadData(NULL, cls_kernel_arith, NULL), clsErrorInvalidValue);
  CK_CLS(clsModuleLoadData(&m, NULL, NULL), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
}
END_TEST

/* An unknown kernel name -> SymbolNotFound. */
START_TEST(unknown_kernel_name) {
  arith a;
  arith_load(&a);
  clsFunction_t f = NULL;
  CK_CLS(clsModuleGetFunction(&f, a.mod, "no_such_kernel"),
         clsErrorSymbolNotFound);
  CK_LAST(clsErrorSymbolNotFound);
  CK_CLS(clsModuleGetFunction(&f, a.mod, "fil"), clsErrorSymbolNotFound);
  CK_CLS(clsModuleGetFunction(&f, a.mod, "Fill"), clsErrorSymbolNotFound);
  CK_CLS(clsModuleGetFunction(&f, a.mod, ""), clsErrorSymbolNotFound);
  CK_CLS(clsModuleGetFunction(NULL, a.mod, "fill"), clsErrorInvalidValue);
  CK_CLS(clsModuleGetFunction(&f, a.mod, NULL), clsErrorInvalidValue);
  CK_CLS(clsModuleGetFunction(&f, NULL, "fill"), clsErrorInvalidResourceHandle);
  arith_unload(&a);
}
END_TEST

/* Pointer arguments at an offset into an allocation.  On a buffer-memory
 * device an offset must be a multiple of bufferArgAlign (the rule in
 * docs/drivers.md): the offsets below are multiples of it there, and an
 * offset that is not is refused with InvalidValue, not sticky. */
START_TEST(launch_pointer_offset) {
  enum { N = 1024 };
  arith a;
  arith_load(&a);
  int dev = -1;
  CK_OK(clsGetDevice(&dev));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  int u = p.bufferMemory ? (int)(p.bufferArgAlign / sizeof(int)) : 1;
  if (u < 1) u = 1;
  ck_assert_int_le(4 * u + 128, N);
  int o1 = p.bufferMemory ? u : 16, o2 = p.bufferMemory ? 2 * u : 100;
  int *d = dev_ints(N);
  dev_set(d, 0, N);
  CK_OK(launch_fill(&a, NULL, d + o1, 7, 16));
  CK_OK(launch_fill(&a, NULL, d + o2, 9, 3));
  CK_OK(clsStreamSynchronize(NULL));
  static int h[N];
  dev_get(h, d, N);
  for (int i = 0; i < N; ++i) {
    int want = (i >= o1 && i < o1 + 16) ? 7 : (i >= o2 && i < o2 + 3) ? 9 : 0;
    ck_assert_msg(h[i] == want, "h[%d] = %d, expected %d", i, h[i], want);
  }
  /* Three different offsets in one launch. */
  int x = p.bufferMemory ? u : 1, y = p.bufferMemory ? 2 * u : 2;
  int z = p.bufferMemory ? (2 * u + 64 + u - 1) / u * u : 128; /* no overlap */
  for (int i = 0; i < N; ++i) h[i] = i;
  dev_put(d, h, N);
  CK_OK(launch_add(&a, NULL, d + x, d + y, d + z, 64));
  CK_OK(clsStreamSynchronize(NULL));
  dev_get(h, d, N);
  for (int i = 0; i < 64; ++i)
    ck_assert_msg(h[z + i] == (x + i) + (y + i), "h[%d] = %d", z + i, h[z + i]);
  ck_assert_int_eq(h[z - 1], z - 1);
  ck_assert_int_eq(h[z + 64], z + 64);
  /* Any offset works, on the buffer path too (a buffer and an offset
   * argument, kernel_rw.c), whatever the device's base alignment. */
  CK_OK(launch_fill(&a, NULL, d + 1, 5, 4));
  CK_OK(clsStreamSynchronize(NULL));
  dev_get(h, d, 6);
  ck_assert_int_eq(h[0], 0);
  for (int i = 1; i < 5; ++i) ck_assert_int_eq(h[i], 5);
  ck_assert_int_eq(h[5], 5); /* untouched: h[i] = i from above */
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Scalars of every size, including a negative int. */
START_TEST(launch_scalars) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(100);
  dev_set(d, 3, 100);
  CK_OK(launch_scale(&a, NULL, d, -5, 100));
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d, -15, 100, "scaled");
  arith_unload(&a);
  CK_OK(clsFree(d));

  clsModule_t m;
  load_test_kernels(&m);
  clsFunction_t f = get_fn(m, "scalars");
  int64_t *out = NULL;
  CK_OK(clsMalloc((void **)&out, 8 * sizeof(int64_t)));
  signed char c = -5;
  short s = -1234;
  int i = 123456789;
  int64_t l = 0x123456789ALL;
  float fl = 2.5f;
  unsigned u = 0xFFFFFFF0u;
  unsigned char b = 200;
  void *args[] = {&out, &c, &s, &i, &l, &fl, &u, &b};
  clsDim3 g = {1, 1, 1}, bl = {1, 1, 1};
  CK_OK(clsLaunchKernel(f, g, bl, args, 0, NULL));
  int64_t h[7];
  CK_OK(clsMemcpy(h, out, sizeof h, clsMemcpyDeviceToHost));
  ck_assert_int_eq(h[0], -5);
  ck_assert_int_eq(h[1], -1234);
  ck_assert_int_eq(h[2], 123456789);
  ck_assert_int_eq(h[3], 0x123456789ALL);
  ck_assert_int_eq(h[4], 10);
  ck_assert_int_eq(h[5], 0xFFFFFFF0LL);
  ck_assert_int_eq(h[6], 200);
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* Vector parameters (int4, float4) passed as 16 bytes, followed by a
 * scalar. */
START_TEST(launch_vector_args) {
  clsModule_t m;
  load_test_kernels(&m);
  clsFunction_t f = get_fn(m, "vec4");
  int *oi = dev_ints(5);
  float *of = NULL;
  CK_OK(clsMalloc((void **)&of, 4 * sizeof(float)));
  _Alignas(16) int vi[4] = {11, -22, 33, -44};
  _Alignas(16) float vf[4] = {0.5f, -1.25f, 3.0f, 1e6f};
  int tail = 99;
  void *args[] = {&oi, &of, vi, vf, &tail};
  clsDim3 g = {1, 1, 1}, b = {1, 1, 1};
  CK_OK(clsLaunchKernel(f, g, b, args, 0, NULL));
  CK_OK(clsDeviceSynchronize());
  int hi[5];
  float hf[4];
  dev_get(hi, oi, 5);
  CK_OK(clsMemcpy(hf, of, sizeof hf, clsMemcpyDeviceToHost));
  for (int k = 0; k < 4; ++k) {
    ck_assert_int_eq(hi[k], vi[k]);
    ck_assert_msg(hf[k] == vf[k], "vf[%d] = %g, expected %g", k, (double)hf[k],
                  (double)vf[k]);
  }
  ck_assert_int_eq(hi[4], 99);
  CK_OK(clsFree(oi));
  CK_OK(clsFree(of));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* 3-D grids: global, group and local ids and sizes. */
START_TEST(launch_3d) {
  clsModule_t m;
  load_test_kernels(&m);
  clsFunction_t f = get_fn(m, "ids3d");
  clsDim3 g = {3, 2, 2}, b = {4, 3, 2};
  unsigned w = g.x * b.x, h = g.y * b.y, dd = g.z * b.z, n = w * h * dd;
  unsigned *out, *bad, *info;
  CK_OK(clsMalloc((void **)&out, n * sizeof(unsigned)));
  CK_OK(clsMalloc((void **)&bad, n * sizeof(unsigned)));
  CK_OK(clsMalloc((void **)&info, 6 * sizeof(unsigned)));
  CK_OK(clsMemset(out, 0, n * sizeof(unsigned)));
  CK_OK(clsMemset(bad, 0, n * sizeof(unsigned)));
  void *args[] = {&out, &bad, &info, &w, &h};
  CK_OK(clsLaunchKernel(f, g, b, args, 0, NULL));
  CK_OK(clsDeviceSynchronize());
  unsigned *ho = malloc(n * sizeof(unsigned)),
           *hb = malloc(n * sizeof(unsigned));
  unsigned hi[6];
  CK_OK(clsMemcpy(ho, out, n * sizeof(unsigned), clsMemcpyDeviceToHost));
  CK_OK(clsMemcpy(hb, bad, n * sizeof(unsigned), clsMemcpyDeviceToHost));
  CK_OK(clsMemcpy(hi, info, sizeof hi, clsMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; ++i) {
    ck_assert_msg(ho[i] == i + 1, "out[%u] = %u", i, ho[i]);
    ck_assert_msg(hb[i] == 0, "ids inconsistent at %u", i);
  }
  ck_assert_uint_eq(hi[0], 3);
  ck_assert_uint_eq(hi[1], 2);
  ck_assert_uint_eq(hi[2], 2);
  ck_assert_uint_eq(hi[3], 4);
  ck_assert_uint_eq(hi[4], 3);
  ck_assert_uint_eq(hi[5], 2);
  free(ho);
  free(hb);
  CK_OK(clsFree(out));
  CK_OK(clsFree(bad));
  CK_OK(clsFree(info));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* Local memory and the barrier. */
START_TEST(launch_local_memory) {
  enum { N = 256 };
  clsModule_t m;
  load_test_kernels(&m);
  clsFunction_t f = get_fn(m, "reverse64");
  int *d = dev_ints(N);
  int h[N];
  for (int i = 0; i < N; ++i) h[i] = i;
  dev_put(d, h, N);
  void *args[] = {&d};
  clsDim3 g = {N / 64, 1, 1}, b = {64, 1, 1};
  CK_OK(clsLaunchKernel(f, g, b, args, 0, NULL));
  CK_OK(clsDeviceSynchronize());
  dev_get(h, d, N);
  for (int i = 0; i < N; ++i)
    ck_assert_msg(h[i] == (i / 64) * 64 + 63 - i % 64, "h[%d] = %d", i, h[i]);
  CK_OK(clsFree(d));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* Row: a zero dimension, or a block above the device's limit ->
 * InvalidValue (CUDA 13.0; older CUDA said InvalidConfiguration); nothing
 * runs, and the error is not sticky: the next launch succeeds. */
START_TEST(launch_invalid_configuration) {
  arith a;
  arith_load(&a);
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  int *d = dev_ints(64);
  dev_set(d, 1, 64);
  int v = 5;
  unsigned n = 64;
  void *args[] = {&d, &v, &n};
  const clsDim3 good_g = {1, 1, 1}, good_b = {64, 1, 1};
  const clsDim3 zero_g[] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 0}};
  const clsDim3 zero_b[] = {{0, 1, 1}, {64, 0, 1}, {64, 1, 0}};
  for (size_t i = 0; i < 4; ++i) {
    CK_CLS(clsLaunchKernel(a.fill, zero_g[i], good_b, args, 0, NULL),
           clsErrorInvalidValue);
    CK_LAST(clsErrorInvalidValue);
  }
  for (size_t i = 0; i < 3; ++i)
    CK_CLS(clsLaunchKernel(a.fill, good_g, zero_b[i], args, 0, NULL),
           clsErrorInvalidValue);
  unsigned maxb = (unsigned)p.maxThreadsPerBlock;
  clsDim3 big = {maxb + 1, 1, 1};
  CK_CLS(clsLaunchKernel(a.fill, good_g, big, args, 0, NULL),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  /* Not sticky: the next call succeeds, and a successful call leaves the
   * stored error as it is (read it, then it is gone). */
  CK_CLS(clsLaunchKernel(a.fill, zero_g[0], good_b, args, 0, NULL),
         clsErrorInvalidValue);
  v = 6;
  CK_OK(clsLaunchKernel(a.fill, good_g, good_b, args, 0, NULL));
  CK_OK(clsStreamSynchronize(NULL));
  dev_expect(d, 6, 64, "d after a good launch behind a rejected one");
  CK_LAST(clsErrorInvalidValue);
  CK_LAST(clsSuccess);
  dev_set(d, 1, 64);
  v = 5;
  /* The product counts, not each dimension alone. */
  if (maxb >= 2 && (unsigned)p.maxThreadsDim[1] >= 2) {
    unsigned bx = maxb < (unsigned)p.maxThreadsDim[0]
                      ? maxb
                      : (unsigned)p.maxThreadsDim[0];
    clsDim3 prod = {bx, (maxb / bx) + 1, 1};
    if (prod.y <= (unsigned)p.maxThreadsDim[1])
      CK_CLS(clsLaunchKernel(a.fill, good_g, prod, args, 0, NULL),
             clsErrorInvalidValue);
  }
  /* A dimension above its own limit. */
  for (int k = 0; k < 3; ++k) {
    clsDim3 b = {1, 1, 1};
    unsigned lim = (unsigned)p.maxThreadsDim[k] + 1;
    if (k == 0) b.x = lim;
    if (k == 1) b.y = lim;
    if (k == 2) b.z = lim;
    CK_CLS(clsLaunchKernel(a.fill, good_g, b, args, 0, NULL),
           clsErrorInvalidValue);
  }
  CK_OK(clsDeviceSynchronize());
  dev_expect(d, 1, 64, "d after rejected launches");

  /* The largest allowed 1-D block works. */
  unsigned bx =
      maxb < (unsigned)p.maxThreadsDim[0] ? maxb : (unsigned)p.maxThreadsDim[0];
  int *e = dev_ints(bx);
  clsDim3 okb = {bx, 1, 1};
  void *args2[] = {&e, &v, &bx};
  CK_OK(clsLaunchKernel(a.fill, good_g, okb, args2, 0, NULL));
  CK_OK(clsDeviceSynchronize());
  dev_expect(e, 5, bx, "e");
  CK_OK(clsFree(e));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Kernels whose body is empty, or whose body the compiler removes as dead
 * code, build and launch, alone and next to a real kernel in one module.
 * (NVIDIA's OpenCL driver cannot build such a program with
 * -cl-kernel-arg-info; clstream then builds it without.) */
START_TEST(empty_and_dead_kernels) {
  clsModule_t alone;
  clsError_t r = clsModuleLoadData(
      &alone, "CLS_KERNEL void empty_kernel(void) {}\n", NULL);
  ck_assert_msg(r == clsSuccess, "empty kernel alone: %s\n%s",
                clsGetErrorName(r), clsGetLastBuildLog());
  clsDim3 g = {4, 1, 1}, b = {32, 1, 1};
  CK_OK(clsLaunchKernel(get_fn(alone, "empty_kernel"), g, b, NULL, 0, NULL));

  const char *mixed =
      "CLS_KERNEL void empty_kernel(void) {}\n"
      "CLS_KERNEL void empty_with_args(CLS_GLOBAL int *p, int n) {}\n"
      "CLS_KERNEL void dead(void) {\n"
      "  float v = 0;\n"
      "  for (int i = 0; i < 100; i++) v += sqrt(v + i);\n"
      "}\n"
      "CLS_KERNEL void add(CLS_GLOBAL int *t, int v, unsigned n) {\n"
      "  unsigned i = cls_global_id(0);\n"
      "  if (i < n) t[i] += v;\n"
      "}\n";
  clsModule_t m;
  r = clsModuleLoadData(&m, mixed, NULL);
  ck_assert_msg(r == clsSuccess, "mixed module: %s\n%s", clsGetErrorName(r),
                clsGetLastBuildLog());
  int *d = dev_ints(128);
  dev_set(d, 1, 128);
  int v = 41, n0 = 0;
  unsigned n = 128;
  void *none_args[] = {&d, &n0};
  void *add_args[] = {&d, &v, &n};
  CK_OK(clsLaunchKernel(get_fn(m, "empty_kernel"), g, b, NULL, 0, NULL));
  CK_OK(
      clsLaunchKernel(get_fn(m, "empty_with_args"), g, b, none_args, 0, NULL));
  CK_OK(clsLaunchKernel(get_fn(m, "dead"), g, b, NULL, 0, NULL));
  CK_OK(clsLaunchKernel(get_fn(m, "add"), g, b, add_args, 0, NULL));
  CK_OK(clsDeviceSynchronize());
  dev_expect(d, 42, 128, "the real kernel of a module with empty ones");
  CK_OK(clsFree(d));
  CK_OK(clsModuleUnload(m));
  CK_OK(clsModuleUnload(alone));
}
END_TEST

/* A trivial kernel runs with a block of maxThreadsPerBlock threads (1024
 * on an H200, as in CUDA), whatever CL_KERNEL_WORK_GROUP_SIZE hints. */
START_TEST(block_of_max_threads) {
  arith a;
  arith_load(&a);
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  unsigned bx = (unsigned)p.maxThreadsPerBlock;
  if (bx > (unsigned)p.maxThreadsDim[0]) bx = (unsigned)p.maxThreadsDim[0];
  unsigned n = 2 * bx;
  int *d = dev_ints(n);
  dev_set(d, 0, n);
  int v = 9;
  void *args[] = {&d, &v, &n};
  clsDim3 g = {2, 1, 1}, b = {bx, 1, 1};
  clsError_t r = clsLaunchKernel(a.fill, g, b, args, 0, NULL);
  ck_assert_msg(r == clsSuccess, "fill with a block of %u threads: %s", bx,
                clsGetErrorName(r));
  CK_OK(clsDeviceSynchronize());
  dev_expect(d, 9, n, "a block of maxThreadsPerBlock threads");
  printf("block_of_max_threads: %u threads per block on %s\n", bx, p.name);
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Parameter lists written in the ways real kernels write them: types
 * behind macros (-D options, #define, #if branches), qualifiers in any
 * order, attributes, comments and line continuations, arrays, vectors,
 * unnamed unsigned.  Every value must arrive: this holds with the
 * driver's argument info and with CLSTREAM_KERNEL_ARG_INFO=source (the
 * suite runs this program both ways), which reads them from the source. */
START_TEST(parameter_lists_in_many_styles) {
  const char *src =
      "/* cls-sweep: options -DREAL=float */\n"
      "#define IDX_T unsigned \\\n int\n"
      "#if defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ >= 120 || \\\n"
      "    defined(__CUDACC_RTC__)\n"
      "#define SCALE_T float\n"
      "#else\n"
      "#define SCALE_T broken_type\n"
      "#endif\n"
      "#ifdef __OPENCL_VERSION__\n"
      "#define ONE_ITEM __attribute__((reqd_work_group_size(1, 1, 1)))\n"
      "#else\n"
      "#define ONE_ITEM\n"
      "#endif\n"
      "#ifdef NOT_DEFINED_ANYWHERE\n"
      "CLS_KERNEL void styles(int only_one) {}\n"
      "#endif\n"
      "/* CLS_KERNEL void styles(float decoy) in a comment */\n"
      "CLS_KERNEL ONE_ITEM\n"
      "void styles(CLS_GLOBAL REAL *restrict out, /* comment */\n"
      "            const CLS_GLOBAL int *in, IDX_T n, SCALE_T s,\n"
      "            CLS_GLOBAL const int *cst, float4 f4, ulong big,\n"
      "            CLS_GLOBAL int arr[], unsigned u, short2 sh) {\n"
      "  out[0] = in[0] + n + s + f4.w + cst[0];\n"
      "  out[1] = (REAL)big; out[2] = arr[1] + u + sh.y;\n"
      "}\n";
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, src, "-DREAL=float");
  ck_assert_msg(r == clsSuccess, "%s\n%s", clsGetErrorName(r),
                clsGetLastBuildLog());
  float *out = NULL;
  int *in = NULL, *cst = NULL, *arr = NULL;
  CK_OK(clsMalloc((void **)&out, 3 * sizeof(float)));
  int hin[2] = {100, 7};
  in = dev_ints(2);
  cst = dev_ints(1);
  arr = dev_ints(2);
  CK_OK(clsMemcpy(in, hin, sizeof hin, clsMemcpyHostToDevice));
  CK_OK(clsMemcpy(arr, hin, sizeof hin, clsMemcpyHostToDevice));
  int c5 = 5;
  CK_OK(clsMemcpy(cst, &c5, sizeof c5, clsMemcpyHostToDevice));
  unsigned n = 20, u = 1000;
  float s = 0.5f, f4[4] = {0, 0, 0, 3};
  uint64_t big = 1u << 20;
  int16_t sh[2] = {0, 30};
  void *args[] = {&out, &in, &n, &s, &cst, f4, &big, &arr, &u, sh};
  clsDim3 one = {1, 1, 1};
  r = clsLaunchKernel(get_fn(m, "styles"), one, one, args, 0, NULL);
  ck_assert_msg(r == clsSuccess, "launch: %s", clsGetErrorName(r));
  float h[3];
  CK_OK(clsMemcpy(h, out, sizeof h, clsMemcpyDeviceToHost));
  ck_assert_float_eq(h[0], 128.5f);
  ck_assert_float_eq(h[1], (float)(1u << 20));
  ck_assert_float_eq(h[2], 1037.0f);
  CK_OK(clsFree(out));
  CK_OK(clsFree(in));
  CK_OK(clsFree(cst));
  CK_OK(clsFree(arr));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* A function works on every device, as a CUDA runtime kernel does: loaded
 * on device a, it launches on device b (built there on first use) and
 * still on a; only a stream of the current device takes a launch.  Loop
 * index 1 gives each device a context of its own (as two platforms'
 * devices have), so the second build is a real second program. */
START_TEST(function_on_every_device) {
  if (!forked_or_skip("function_on_every_device")) return;
  if (_i == 1) setenv("CLSTREAM_CONTEXT_PER_DEVICE", "1", 1);
  int a, b;
  if (!two_devices("function_on_every_device", &a, &b)) return;
  CK_OK(clsSetDevice(a));
  arith k;
  arith_load(&k);
  clsStream_t sa;
  CK_OK(clsStreamCreate(&sa));
  int *da = dev_ints(64);
  CK_OK(launch_fill(&k, sa, da, 3, 64));

  CK_OK(clsSetDevice(b));
  int *db = dev_ints(64);
  CK_OK(launch_fill(&k, NULL, db, 4, 64));
  clsStream_t sb;
  CK_OK(clsStreamCreate(&sb));
  CK_OK(launch_fill(&k, sb, db + 32, 5, 32));
  CK_OK(clsDeviceSynchronize());
  dev_expect(db, 4, 32, "b's memory, filled by a's module on b");
  dev_expect(db + 32, 5, 32, "b's memory, on a created stream of b");
  /* A stream of a while b is current: CUDA's InvalidResourceHandle. */
  CK_CLS(launch_fill(&k, sa, da, 9, 64), clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);

  CK_OK(clsSetDevice(a));
  CK_OK(clsStreamSynchronize(sa));
  dev_expect(da, 3, 64, "a's memory");
  CK_OK(launch_fill(&k, NULL, da, 6, 64));
  CK_OK(clsDeviceSynchronize());
  dev_expect(da, 6, 64, "a's memory after b used the function");
  CK_OK(clsStreamDestroy(sa));
  CK_OK(clsFree(da));
  CK_OK(clsSetDevice(b));
  CK_OK(clsStreamDestroy(sb));
  CK_OK(clsFree(db));
  /* Unloading frees the module on both devices. */
  arith_unload(&k);
  CK_CLS(launch_fill(&k, NULL, db, 1, 1), clsErrorInvalidResourceHandle);
}
END_TEST

/* Whether this is the CUDA build, which launches any pointer as CUDA does
 * (a bad one faults in the kernel): then says that `test` is skipped. */
static int cuda_launches_any_pointer(const char *test) {
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  if (strcmp(p.platformName, "CUDA") != 0) return 0;
  printf("SKIP %s: the CUDA build launches any pointer, as CUDA does\n", test);
  return 1;
}

/* A kernel argument that is neither device memory nor host memory the
 * library knows (pinned, registered, managed) is refused at launch
 * (InvalidValue, nothing runs) on OpenCL, instead of running with its
 * writes lost.  (On CUDA a bad pointer faults in the kernel.)  Pinned
 * memory is kernel memory on both, as CUDA's unified addressing makes it
 * (test_hostkern.c). */
START_TEST(launch_refuses_host_pointers) {
  if (cuda_launches_any_pointer("launch_refuses_host_pointers")) return;
  arith a;
  arith_load(&a);
  static int host[64];
  CK_CLS(launch_fill(&a, NULL, host, 5, 64), clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  int *inside = dev_ints(64);
  CK_CLS(launch_fill(&a, NULL, inside + 64 * 1024 * 1024, 5, 64),
         clsErrorInvalidValue);
  /* Device memory still launches, and nothing refused has run. */
  CK_OK(launch_fill(&a, NULL, inside, 6, 64));
  CK_OK(clsDeviceSynchronize());
  dev_expect(inside, 6, 64, "device memory");
  for (int i = 0; i < 64; ++i) ck_assert_int_eq(host[i], 0);
  CK_OK(clsFree(inside));
  arith_unload(&a);
}
END_TEST

/* A thread that launches into one allocation, waits while the test frees
 * it, then launches into it again. */
typedef struct relaunch {
  const arith *a;
  int *d;
  atomic_int step; /* 1: first launch done; 2: freed; 3: second done */
  clsError_t first, second, copy;
} relaunch;

static void *relaunch_thread(void *arg) {
  relaunch *r = arg;
  int h[64];
  r->first = launch_fill(r->a, NULL, r->d, 4, 64);
  if (r->first == clsSuccess) r->first = clsDeviceSynchronize();
  atomic_store(&r->step, 1);
  if (!wait_atomic_ge(&r->step, 2, 10000)) return NULL;
  r->second = launch_fill(r->a, NULL, r->d, 5, 64);
  r->copy = clsMemcpy(h, r->d, sizeof h, clsMemcpyDeviceToHost);
  atomic_store(&r->step, 3);
  return NULL;
}

/* Freed memory is no longer device memory for a launch or a copy, on the
 * thread that freed it and on one that used it just before, however often
 * it was passed before (pointer lookups are remembered per thread until
 * anything is freed); memory at the same pointer again is found again. */
START_TEST(launch_refuses_freed_memory) {
  if (cuda_launches_any_pointer("launch_refuses_freed_memory")) return;
  arith a;
  arith_load(&a);
  int h[64];
  /* This thread. */
  int *d = dev_ints(64);
  for (int i = 0; i < 3; ++i) CK_OK(launch_fill(&a, NULL, d, i, 64));
  CK_OK(clsMemcpy(h, d, sizeof h, clsMemcpyDeviceToHost));
  host_expect(h, 2, 64, "h");
  CK_OK(clsFree(d));
  CK_CLS(launch_fill(&a, NULL, d, 3, 64), clsErrorInvalidValue);
  CK_CLS(clsMemcpy(h, d, sizeof h, clsMemcpyDeviceToHost),
         clsErrorInvalidValue);
  /* Another thread, which looked d up before the free. */
  relaunch r = {
      &a, dev_ints(64), 0, clsErrorUnknown, clsErrorUnknown, clsErrorUnknown};
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, relaunch_thread, &r), 0);
  ck_assert_msg(wait_atomic_ge(&r.step, 1, 10000), "first launch hung");
  CK_OK(r.first);
  CK_OK(clsFree(r.d));
  atomic_store(&r.step, 2);
  ck_assert_msg(wait_atomic_ge(&r.step, 3, 10000), "second launch hung");
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  CK_CLS(r.second, clsErrorInvalidValue);
  CK_CLS(r.copy, clsErrorInvalidValue);
  /* New memory is found, even where the freed memory was. */
  int *again = dev_ints(64);
  CK_OK(launch_fill(&a, NULL, again, 9, 64));
  CK_OK(clsDeviceSynchronize());
  dev_expect(again, 9, 64, "again");
  CK_OK(clsFree(again));
  arith_unload(&a);
}
END_TEST

/* A launch that repeats some arguments of the one before and changes
 * others (the backend skips setting what the kernel already holds): each
 * launch sees exactly its own values and pointers, NULL included. */
START_TEST(relaunch_same_kernel_new_arguments) {
  arith a;
  arith_load(&a);
  int *x = dev_ints(64), *y = dev_ints(64);
  static const int vals[] = {1, 1, 2, 2, 1, 3};
  int *const ptrs[] = {x, x, x, y, y, x};
  for (int i = 0; i < 6; ++i) {
    CK_OK(launch_fill(&a, NULL, ptrs[i], vals[i], 64));
    CK_OK(launch_fill(&a, NULL, NULL, 7, 0)); /* a NULL between */
    CK_OK(clsStreamSynchronize(NULL));
    dev_expect(ptrs[i], vals[i], 64, ptrs[i] == x ? "x" : "y");
  }
  dev_expect(x, 3, 64, "x at the end");
  dev_expect(y, 1, 64, "y at the end");
  CK_OK(clsFree(x));
  CK_OK(clsFree(y));
  arith_unload(&a);
}
END_TEST

/* On a buffer-memory device (forced here with CLSTREAM_MEMORY=buffers) a
 * kernel pointer argument is a cl_mem, the allocation's buffer or a
 * sub-buffer, which a free releases: the backend's kernel-argument cache
 * must never skip setting one, however often the same slot is launched.
 * The same kernel gets two allocations in turn at the same argument slot,
 * with every other argument equal, then an allocation freed and a new one
 * made of the same size (the reservation's addresses are free at once, so
 * the new one usually lands at the freed pointer, which is what a cache
 * keyed on pointers would confuse), at the start and inside at a
 * sub-buffer offset.  Each launch must write where it was told to. */
START_TEST(buffer_pointer_args_never_cached) {
  if (!forked_or_skip("buffer_pointer_args_never_cached")) return;
  setenv("CLSTREAM_MEMORY", "buffers", 1);
  enum { N = 1024 };
  arith a;
  arith_load(&a);
  int dev = -1;
  CK_OK(clsGetDevice(&dev));
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, dev));
  if (strcmp(p.platformName, "CUDA") == 0) {
    /* The CUDA build has no buffer memory: nothing to cache wrongly. */
    printf("SKIP buffer_pointer_args_never_cached: no buffer memory on the "
           "CUDA build\n");
    arith_unload(&a);
    return;
  }
  ck_assert_int_eq(p.bufferMemory, 1);
  int u = (int)(p.bufferArgAlign / sizeof(int));
  if (u < 1) u = 1;
  ck_assert_int_le(u + 64, N);
  int *x = dev_ints(N), *y = dev_ints(N);
  dev_set(x, 0, N);
  dev_set(y, 0, N);
  /* Two allocations at the same slot, with no free between. */
  for (int v = 1; v <= 3; ++v) {
    CK_OK(launch_fill(&a, NULL, x, v, 64));
    CK_OK(launch_fill(&a, NULL, y, v, 64));
    CK_OK(clsStreamSynchronize(NULL));
    dev_expect(x, v, 64, "x, launched first");
    dev_expect(y, v, 64, "y, launched after x at the same slot");
  }
  /* The slot's last pointer, then its allocation freed and a new one
   * made, and the same pointer first again: it must reach the new buffer.
   * Even rounds: the allocation's start; odd rounds: a sub-buffer. */
  int reused = 0;
  for (int round = 0; round < 4; ++round) {
    int off = round % 2 ? u : 0, other = round % 2 ? 0 : u;
    int *old = x;
    CK_OK(launch_fill(&a, NULL, x + other, 10 + round, 64));
    CK_OK(launch_fill(&a, NULL, x + off, 20 + round, 64)); /* the slot's */
    CK_OK(clsStreamSynchronize(NULL));
    dev_expect(x + off, 20 + round, 64, "x before the free");
    CK_OK(clsFree(x));
    x = dev_ints(N);
    reused += x == old;
    dev_set(x, 0, N);
    CK_OK(launch_fill(&a, NULL, x + off, 30 + round, 64)); /* same pointer */
    CK_OK(clsStreamSynchronize(NULL));
    dev_expect(x + off, 30 + round, 64, "the new x at the slot's pointer");
    CK_OK(launch_fill(&a, NULL, y, 50 + round, 64));
    CK_OK(clsStreamSynchronize(NULL));
    dev_expect(y, 50 + round, 64, "y after the new x");
  }
  if (!reused)
    fprintf(stderr, "buffer_pointer_args_never_cached: no new allocation "
                    "landed at a freed one's address this run\n");
  CK_OK(clsFree(x));
  CK_OK(clsFree(y));
  arith_unload(&a);
}
END_TEST

/* Unloaded modules and their functions -> InvalidResourceHandle; launches
 * already enqueued still run. */
START_TEST(unload_handles_and_pending_launch) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(128);
  dev_set(d, 0, 128);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, d, 3, 128));
  clsFunction_t fill = a.fill;
  clsModule_t mod = a.mod;
  CK_OK(clsModuleUnload(mod));
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 3, 128, "d");

  int v = 1;
  unsigned n = 128;
  void *args[] = {&d, &v, &n};
  clsDim3 gg = {2, 1, 1}, bb = {64, 1, 1};
  clsFunction_t f;
  CK_CLS(clsLaunchKernel(fill, gg, bb, args, 0, s),
         clsErrorInvalidResourceHandle);
  CK_LAST(clsErrorInvalidResourceHandle);
  CK_CLS(clsModuleGetFunction(&f, mod, "fill"), clsErrorInvalidResourceHandle);
  CK_CLS(clsModuleUnload(mod), clsErrorInvalidResourceHandle);
  CK_CLS(clsModuleUnload(NULL), clsErrorInvalidResourceHandle);
  CK_CLS(clsLaunchKernel(NULL, gg, bb, args, 0, s),
         clsErrorInvalidResourceHandle);
  /* Wrong-kind and garbage handles. */
  CK_CLS(clsModuleUnload((clsModule_t)s), clsErrorInvalidResourceHandle);
  CK_CLS(clsLaunchKernel((clsFunction_t)s, gg, bb, args, 0, s),
         clsErrorInvalidResourceHandle);
  CK_CLS(clsModuleUnload((clsModule_t)(uintptr_t)0xabcdef0ull),
         clsErrorInvalidResourceHandle);
  CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 3, 128, "d after rejected launches");

  /* Launch on a destroyed stream. */
  arith_load(&a);
  CK_OK(clsStreamDestroy(s));
  CK_CLS(launch_fill(&a, s, d, 4, 128), clsErrorInvalidResourceHandle);
  arith_unload(&a);
  CK_OK(clsFree(d));
}
END_TEST

/* A kernel launch respects stream order with host functions and other
 * launches. */
START_TEST(launch_stream_order) {
  arith a;
  arith_load(&a);
  int *d = dev_ints(1000);
  dev_set(d, 1, 1000);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  for (int k = 0; k < 10; ++k) CK_OK(launch_scale(&a, s, d, 2, 1000));
  CK_OK(launch_fill(&a, s, d + 512, -1, 488));
  CK_OK(launch_scale(&a, s, d, 3, 1000));
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  int h[1000];
  dev_get(h, d, 1000);
  for (int i = 0; i < 1000; ++i)
    ck_assert_msg(h[i] == (i < 512 ? 1024 * 3 : -3), "h[%d] = %d", i, h[i]);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
  arith_unload(&a);
}
END_TEST

/* Parameter types beyond the built-in scalars and vectors: a double (when
 * the device compiles fp64), a NULL device pointer, a typedef'd scalar and
 * a struct by value.  cudaLaunchKernel takes all of them; the OpenCL
 * backend may reject the last two (it sizes parameters from their type
 * names), but then cleanly: InvalidValue and nothing launched. */
START_TEST(launch_other_param_types) {
  const char *src =
      "typedef int myint;\n"
      "typedef struct { int a; float b; long c; } trio;\n"
      "CLS_KERNEL void take_null(CLS_GLOBAL int *maybe, CLS_GLOBAL int *o) {\n"
      "  o[0] = maybe == 0 ? 7 : 9; }\n"
      "CLS_KERNEL void take_typedef(CLS_GLOBAL int *o, myint v) { o[0] = v; }\n"
      "CLS_KERNEL void take_struct(CLS_GLOBAL long *o, trio t) {\n"
      "  o[0] = t.a; o[1] = (long)(t.b * 2.0f); o[2] = t.c; }\n";
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, src, NULL);
  ck_assert_msg(r == clsSuccess, "%s\n%s", clsGetErrorName(r),
                clsGetLastBuildLog());
  int64_t *o = NULL;
  CK_OK(clsMalloc((void **)&o, 4 * sizeof(int64_t)));
  CK_OK(clsMemset(o, 0, 4 * sizeof(int64_t)));
  clsDim3 g = {1, 1, 1}, b = {1, 1, 1};

  int *nul = NULL, *oi = (int *)o;
  void *a1[] = {&nul, &oi};
  CK_OK(clsLaunchKernel(get_fn(m, "take_null"), g, b, a1, 0, NULL));
  int hi = 0;
  CK_OK(clsMemcpy(&hi, oi, sizeof hi, clsMemcpyDeviceToHost));
  ck_assert_int_eq(hi, 7);

  int v = 12345;
  void *a2[] = {&oi, &v};
  r = clsLaunchKernel(get_fn(m, "take_typedef"), g, b, a2, 0, NULL);
  ck_assert_msg(r == clsSuccess || r == clsErrorInvalidValue,
                "typedef'd parameter: %s", clsGetErrorName(r));
  CK_OK(clsMemcpy(&hi, oi, sizeof hi, clsMemcpyDeviceToHost));
  ck_assert_int_eq(hi, r == clsSuccess ? 12345 : 7);
  if (r != clsSuccess)
    printf("NOTE launch_other_param_types: typedef'd parameter rejected\n");

  struct {
    int a;
    float b;
    int64_t c;
  } t = {5, 1.5f, 1234567890123LL};
  CK_OK(clsMemset(o, 0, 4 * sizeof(int64_t)));
  void *a3[] = {&o, &t};
  r = clsLaunchKernel(get_fn(m, "take_struct"), g, b, a3, 0, NULL);
  ck_assert_msg(r == clsSuccess || r == clsErrorInvalidValue,
                "struct parameter: %s", clsGetErrorName(r));
  int64_t h[3];
  CK_OK(clsMemcpy(h, o, sizeof h, clsMemcpyDeviceToHost));
  if (r == clsSuccess) {
    ck_assert_int_eq(h[0], 5);
    ck_assert_int_eq(h[1], 3);
    ck_assert_int_eq(h[2], 1234567890123LL);
  } else {
    ck_assert_int_eq(h[0], 0);
    ck_assert_int_eq(h[2], 0);
    printf("NOTE launch_other_param_types: struct parameter rejected\n");
  }
  CK_OK(clsModuleUnload(m));

  /* double, where the device has fp64. */
  const char *dsrc =
      "CLS_KERNEL void take_double(CLS_GLOBAL double *o, double d, int i) {\n"
      "  o[0] = d * 2.0; o[1] = (double)i; }\n";
  r = clsModuleLoadData(&m, dsrc, NULL);
  if (r == clsErrorInvalidSource) {
    printf("NOTE launch_other_param_types: no fp64 on this device\n");
  } else {
    CK_OK(r);
    double d = 1.25, hd[2] = {0, 0};
    double *od = (double *)o;
    int i = -3;
    void *a4[] = {&od, &d, &i};
    CK_OK(clsLaunchKernel(get_fn(m, "take_double"), g, b, a4, 0, NULL));
    CK_OK(clsMemcpy(hd, od, sizeof hd, clsMemcpyDeviceToHost));
    ck_assert_msg(hd[0] == 2.5 && hd[1] == -3.0, "got %g %g", hd[0], hd[1]);
    CK_OK(clsModuleUnload(m));
  }
  CK_OK(clsFree(o));
}
END_TEST

int main(void) {
  Suite *s = suite_create("module");
  TCase *tc = tcase_timed("module", 90);
  TCase *tc_gate = tcase_tagged(s, "module_gate", 90, "gate");
  TCase *tc_threads = tcase_tagged(s, "module_threads", 90, "threads");
  tcase_add_test(tc, load_and_get_functions);
  tcase_add_test(tc, build_failure);
  tcase_add_test(tc_threads, build_log_per_thread);
  tcase_add_test(tc, load_with_options);
  tcase_add_test(tc, load_invalid_args);
  tcase_add_test(tc, unknown_kernel_name);
  tcase_add_test(tc, launch_pointer_offset);
  tcase_add_test(tc, launch_scalars);
  tcase_add_test(tc, launch_vector_args);
  tcase_add_test(tc, launch_3d);
  tcase_add_test(tc, launch_local_memory);
  tcase_add_test(tc, launch_invalid_configuration);
  tcase_add_test(tc, empty_and_dead_kernels);
  tcase_add_test(tc, block_of_max_threads);
  tcase_add_test(tc, parameter_lists_in_many_styles);
  tcase_add_loop_test(tc, function_on_every_device, 0, 2);
  tcase_add_test(tc, launch_refuses_host_pointers);
  tcase_add_test(tc_threads, launch_refuses_freed_memory);
  tcase_add_test(tc, relaunch_same_kernel_new_arguments);
  tcase_add_test(tc, buffer_pointer_args_never_cached);
  tcase_add_test(tc_gate, unload_handles_and_pending_launch);
  tcase_add_test(tc_gate, launch_stream_order);
  tcase_add_test(tc, launch_other_param_types);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
