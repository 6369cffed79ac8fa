/* One kernel launched with a narrow grid on one stream and, while that
 * runs, with a wider grid and the same block on another: the pattern that
 * aborts PoCL 4 and 5 inside their kernel cache
 * (docs/repro/pocl5_dlhandle.c) unless clstream's kernel-cache guard
 * orders the wider launch after the narrower one (src/opencl/kcguard.c).
 * CTest runs it as it is (the guard where the driver needs it) and, as
 * test_kcguard_forced, with CLSTREAM_KERNEL_CACHE_GUARD=1 so that every
 * PoCL runs the guard. */
#include "support.h"

#include <stdlib.h>

static unsigned spun(unsigned i, unsigned iters) {
  unsigned x = i + 1u;
  for (unsigned k = 0; k < iters; ++k) x = x * 1664525u + 1013904223u;
  return x;
}

static void expect_spun(const unsigned *dev, unsigned n, unsigned iters,
                        const char *what) {
  unsigned *h = malloc(n * sizeof *h);
  ck_assert_ptr_nonnull(h);
  CK_OK(clsMemcpy(h, dev, n * sizeof *h, clsMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; ++i)
    if (h[i] != spun(i, iters)) {
      free(h);
      ck_abort_msg("%s: out[%u] is wrong", what, i);
    }
  free(h);
}

/* Each round a new block size (a new cache key); the narrow launch spins
 * long enough to be running when the wide one is enqueued. */
START_TEST(narrow_then_wide) {
  enum { WIDE = 4096, ROUNDS = 5 };
  arith a;
  arith_load(&a);
  unsigned *narrow = NULL, *wide = NULL;
  CK_OK(clsMalloc((void **)&narrow, WIDE * sizeof(unsigned)));
  CK_OK(clsMalloc((void **)&wide, WIDE * sizeof(unsigned)));
  clsStream_t s1, s2;
  CK_OK(clsStreamCreateWithFlags(&s1, clsStreamNonBlocking));
  CK_OK(clsStreamCreateWithFlags(&s2, clsStreamNonBlocking));
  for (unsigned r = 0; r < ROUNDS; ++r) {
    unsigned bx = 1u << r, long_iters = 400000, short_iters = 7;
    clsDim3 block = {bx, 1, 1}, one = {1, 1, 1}, many = {WIDE / bx, 1, 1};
    void *na[] = {&narrow, &long_iters};
    void *wa[] = {&wide, &short_iters};
    void *na2[] = {&narrow, &short_iters};
    CK_OK(clsLaunchKernel(a.spin, one, block, na, 0, s1));
    CK_OK(clsLaunchKernel(a.spin, many, block, wa, 0, s2));
    /* A narrower launch again, now that the wide one is known: it needs
     * no wait and must not abort either. */
    CK_OK(clsLaunchKernel(a.spin, one, block, na2, 0, s1));
    CK_OK(clsStreamSynchronize(s2));
    CK_OK(clsStreamSynchronize(s1));
    expect_spun(wide, WIDE, short_iters, "wide");
    expect_spun(narrow, bx, short_iters, "narrow");
  }
  CK_OK(clsStreamDestroy(s1));
  CK_OK(clsStreamDestroy(s2));
  CK_OK(clsFree(narrow));
  CK_OK(clsFree(wide));
  arith_unload(&a);
}
END_TEST

int main(void) {
  Suite *s = suite_create("kcguard");
  TCase *tc = tcase_timed("kcguard", 300);
  tcase_add_test(tc, narrow_then_wide);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
