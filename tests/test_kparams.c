/* Kernel parameters (issue 25 points 4 and 5, issue 26 point 5): dynamic
 * shared memory sized at launch, structs passed by value, and pointers at
 * any offset into an allocation (the buffer path's rewrite).  Kernels:
 * tests/kernels/kparams.cl. */
#include "support.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static clsModule_t load(void) {
  return load_source(cls_kernel_kparams, "tests/kernels/kparams.cl");
}

/* A block reduction whose shared array is sized by sharedMem, at several
 * block sizes, each launch a different size (the hidden argument follows). */
START_TEST(dynamic_shared_reduction) {
  clsModule_t m = load();
  clsFunction_t f = source_fn(m, "block_sum");
  enum { N = 1000 };
  float h[N];
  for (int i = 0; i < N; i++) h[i] = (float)(i % 13);
  float *in, *out;
  CK_OK(clsMalloc((void **)&in, sizeof h));
  CK_OK(clsMalloc((void **)&out, N * sizeof(float)));
  CK_OK(clsMemcpy(in, h, sizeof h, clsMemcpyHostToDevice));
  const unsigned blocks[] = {8, 64, 32, 128, 16};
  for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
    unsigned bs = blocks[b], n = N, grid = (N + bs - 1) / bs;
    void *args[] = {&in, &out, &n};
    clsDim3 g = {grid, 1, 1}, blk = {bs, 1, 1};
    CK_OK(clsLaunchKernel(f, g, blk, args, bs * sizeof(float), NULL));
    float parts[N];
    CK_OK(clsMemcpy(parts, out, grid * sizeof(float), clsMemcpyDeviceToHost));
    for (unsigned k = 0; k < grid; k++) {
      float want = 0;
      for (unsigned i = k * bs; i < (k + 1) * bs && i < N; i++) want += h[i];
      ck_assert_msg(parts[k] == want, "block %u of %u: %f, expected %f", k, bs,
                    (double)parts[k], (double)want);
    }
  }
  CK_OK(clsFree(in));
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* A tiled transpose whose tile (and so its shared array) is chosen at
 * launch, on a matrix that no tile divides. */
START_TEST(dynamic_shared_transpose) {
  clsModule_t m = load();
  clsFunction_t f = source_fn(m, "transpose");
  enum { W = 37, H = 21 };
  float h[W * H], t[W * H];
  for (int i = 0; i < W * H; i++) h[i] = (float)i;
  float *in, *out;
  CK_OK(clsMalloc((void **)&in, sizeof h));
  CK_OK(clsMalloc((void **)&out, sizeof h));
  CK_OK(clsMemcpy(in, h, sizeof h, clsMemcpyHostToDevice));
  const unsigned tiles[] = {4, 8, 16};
  for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
    unsigned ts = tiles[k], w = W, hh = H;
    CK_OK(clsMemset(out, 0, sizeof h));
    void *args[] = {&in, &out, &w, &hh};
    clsDim3 g = {(W + ts - 1) / ts, (H + ts - 1) / ts, 1}, b = {ts, ts, 1};
    CK_OK(clsLaunchKernel(f, g, b, args, ts * (ts + 1) * sizeof(float), NULL));
    CK_OK(clsMemcpy(t, out, sizeof t, clsMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        ck_assert_msg(t[x * H + y] == h[y * W + x], "tile %u: (%d, %d)", ts, x,
                      y);
  }
  CK_OK(clsFree(in));
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* More dynamic shared memory than the device has is InvalidValue (not
 * sticky), as CUDA's launch check. */
START_TEST(dynamic_shared_too_much) {
  clsModule_t m = load();
  clsFunction_t f = source_fn(m, "block_sum");
  int dev;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  float *buf;
  CK_OK(clsMalloc((void **)&buf, 64 * sizeof(float)));
  unsigned n = 64;
  void *args[] = {&buf, &buf, &n};
  clsDim3 one = {1, 1, 1}, b = {64, 1, 1};
  CK_CLS(clsLaunchKernel(f, one, b, args, p.sharedMemPerBlock + 1, NULL),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_OK(clsGetLastError());
  CK_OK(clsLaunchKernel(f, one, b, args, 64 * sizeof(float), NULL));
  CK_OK(clsDeviceSynchronize());
  /* The kernel's MaxDynamicSharedMemorySize, once set, bounds it too. */
  CK_OK(clsFuncSetAttribute(f, clsFuncAttributeMaxDynamicSharedMemorySize,
                            64 * sizeof(float)));
  CK_CLS(clsLaunchKernel(f, one, b, args, 64 * sizeof(float) + 4, NULL),
         clsErrorInvalidValue);
  CK_LAST(clsErrorInvalidValue);
  CK_OK(clsLaunchKernel(f, one, b, args, 64 * sizeof(float), NULL));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsFree(buf));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* The host's copy of tests/kernels/kparams.cl's structs: OpenCL C's long
 * is 64 bits; the layout (padding included) is C's on both sides. */
typedef struct kp_point {
  float x, y;
} kp_point;
struct kp_inner {
  char c;
  int64_t v;
};
typedef struct kp_params {
  int n;
  struct kp_inner in;
  kp_point p[3];
  short tag;
} kp_params;

/* A struct with a nested struct, an array of structs and padding arrives
 * whole, beside a small struct, and again with other values. */
START_TEST(struct_by_value) {
  ck_assert_uint_eq(sizeof(kp_params), 56);
  clsModule_t m = load();
  clsFunction_t f = source_fn(m, "take_params");
  int64_t *out;
  CK_OK(clsMalloc((void **)&out, 12 * sizeof *out));
  for (int round = 0; round < 2; round++) {
    kp_params p;
    memset(&p, 0xA5, sizeof p); /* padding bytes the kernel must ignore */
    p.n = 7 + round;
    p.in.c = (char)(-3 - round);
    p.in.v = (int64_t)1 << (40 + round);
    for (int i = 0; i < 3; i++) {
      p.p[i].x = (float)(10 * i + 1 + round);
      p.p[i].y = (float)(10 * i + 2);
    }
    p.tag = (short)(-1234 + round);
    kp_point q = {55.0f + (float)round, -66.0f};
    void *args[] = {&p, &out, &q};
    clsDim3 one = {1, 1, 1};
    CK_OK(clsLaunchKernel(f, one, one, args, 0, NULL));
    int64_t h[12];
    CK_OK(clsMemcpy(h, out, sizeof h, clsMemcpyDeviceToHost));
    ck_assert_int_eq(h[0], p.n);
    ck_assert_int_eq(h[1], p.in.c);
    ck_assert_int_eq(h[2], p.in.v);
    for (int i = 0; i < 3; i++) {
      ck_assert_int_eq(h[3 + 2 * i], (int64_t)p.p[i].x);
      ck_assert_int_eq(h[4 + 2 * i], (int64_t)p.p[i].y);
    }
    ck_assert_int_eq(h[9], p.tag);
    ck_assert_int_eq(h[10], (int64_t)q.x);
    ck_assert_int_eq(h[11], (int64_t)q.y);
  }
  CK_OK(clsFree(out));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* A parameter type the device cannot measure fails the launch with
 * InvalidValue, never a truncated copy: a sampler is no value. */
START_TEST(struct_unmeasurable) {
  static const char src[] =
      "/* cls-sweep: opencl only */\n"
      "CLS_KERNEL void s(CLS_GLOBAL int *p, sampler_t q) { p[0] = 1; }\n";
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, src, NULL);
  if (r != clsSuccess) {
    printf("struct_unmeasurable: samplers do not build here (%s)\n",
           clsGetErrorName(r));
    return;
  }
  clsFunction_t f = source_fn(m, "s");
  int *d;
  CK_OK(clsMalloc((void **)&d, 64));
  uint64_t zero = 0;
  void *args[] = {&d, &zero};
  clsDim3 one = {1, 1, 1};
  CK_CLS(clsLaunchKernel(f, one, one, args, 0, NULL), clsErrorInvalidValue);
  CK_OK(clsFree(d));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* Runs bump_<kind> on p + off (elements of `size` bytes) over n elements
 * and checks that exactly bytes [off * size, (off + n) * size) moved. */
static void bump_at(clsModule_t m, const char *kernel, size_t size,
                    unsigned off, unsigned n) {
  enum { BYTES = 256 };
  unsigned char *d, h[BYTES], want[BYTES];
  for (int i = 0; i < BYTES; i++) want[i] = (unsigned char)(i * 7);
  CK_OK(clsMalloc((void **)&d, BYTES));
  CK_OK(clsMemcpy(d, want, BYTES, clsMemcpyHostToDevice));
  void *p = d + off * size;
  void *args[] = {&p, &n};
  clsDim3 g = {1, 1, 1}, b = {64, 1, 1};
  CK_OK(clsLaunchKernel(source_fn(m, kernel), g, b, args, 0, NULL));
  CK_OK(clsMemcpy(h, d, BYTES, clsMemcpyDeviceToHost));
  /* Adding 1 to a little-endian element adds 1 to its lowest byte (no
   * carry: the pattern's bytes are below 0xff where it matters). */
  for (unsigned e = 0; e < n; e++) {
    size_t at = (off + e) * size;
    unsigned char lo = want[at];
    want[at] = (unsigned char)(lo + 1);
    if (lo == 0xff) ck_abort_msg("test pattern carries");
  }
  for (int i = 0; i < BYTES; i++)
    ck_assert_msg(h[i] == want[i], "%s at element %u: byte %d is %u, not %u",
                  kernel, off, i, h[i], want[i]);
  CK_OK(clsFree(d));
}

/* Odd offsets of every element size, on every memory path (the buffer
 * path passes a buffer and an offset; SVM passes the pointer). */
START_TEST(interior_pointers) {
  clsModule_t m = load();
  const unsigned offs[] = {1, 3, 5, 7, 13};
  for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++) {
    bump_at(m, "bump_char", 1, offs[k], 9);
    bump_at(m, "bump_short", 2, offs[k], 9);
    bump_at(m, "bump_int", 4, offs[k], 9);
    bump_at(m, "bump_long", 8, offs[k], 9);
  }
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* Two interior pointers into one allocation, a const one among them,
 * then the same kernel at offset 0 again (the offset is reset). */
START_TEST(interior_pointers_two) {
  clsModule_t m = load();
  clsFunction_t f = source_fn(m, "scale_copy");
  int h[64], *d;
  for (int i = 0; i < 64; i++) h[i] = i;
  CK_OK(clsMalloc((void **)&d, sizeof h));
  CK_OK(clsMemcpy(d, h, sizeof h, clsMemcpyHostToDevice));
  int *dst = d + 33, *src = d + 1, k = 3;
  unsigned n = 5;
  void *args[] = {&dst, &src, &k, &n};
  clsDim3 g = {1, 1, 1}, b = {8, 1, 1};
  CK_OK(clsLaunchKernel(f, g, b, args, 0, NULL));
  dst = d + 50;
  src = d;
  CK_OK(clsLaunchKernel(f, g, b, args, 0, NULL));
  int t[64];
  CK_OK(clsMemcpy(t, d, sizeof t, clsMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++) {
    int want = i;
    if (i >= 33 && i < 38) want = (i - 32) * 3;
    if (i >= 50 && i < 55) want = (i - 50) * 3;
    ck_assert_msg(t[i] == want, "element %d is %d, not %d", i, t[i], want);
  }
  CK_OK(clsFree(d));
  CK_OK(clsModuleUnload(m));
}
END_TEST

int main(void) {
  Suite *s = suite_create("kparams");
  TCase *tc = tcase_timed("kparams", 300);
  tcase_add_test(tc, dynamic_shared_reduction);
  tcase_add_test(tc, dynamic_shared_transpose);
  tcase_add_test(tc, dynamic_shared_too_much);
  tcase_add_test(tc, struct_by_value);
  tcase_add_test(tc, struct_unmeasurable);
  tcase_add_test(tc, interior_pointers);
  tcase_add_test(tc, interior_pointers_two);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
