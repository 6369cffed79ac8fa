/* Kernels whose names and parameter lists macros build (issue 35 point
 * 2): HIP-style templates (VECTOR_ADD(T) for several T, VECTOR_SET(T)), a
 * variadic macro, a kernel split across macros, typedef'd pointers and
 * structs, a parameter list split by comments and line continuations.
 * Each is launched with its pointers 4 bytes into their allocations (8
 * for double), an interior offset that the buffer path passes as a
 * buffer and an offset argument the source rewrite adds, and checked.
 * Run on every set-up, and with CLSTREAM_KERNEL_ARG_INFO=source (the
 * parameter types read from the source, as on NVIDIA, whose driver
 * cannot build some modules with -cl-kernel-arg-info).  Kernels:
 * tests/kernels/macro_kernels.cl. */
#include "support.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { N = 1000, GRID = 4, BLOCK = 64 };

static clsModule_t load(void) {
  return load_source(cls_kernel_macro_kernels,
                     "tests/kernels/macro_kernels.cl");
}

static void launch(clsFunction_t f, void **args) {
  CK_OK(clsLaunchKernel(f, (clsDim3){GRID, 1, 1}, (clsDim3){BLOCK, 1, 1}, args,
                        0, NULL));
  CK_OK(clsDeviceSynchronize());
}

/* Device memory of `bytes` with `skip` bytes before the pointer used. */
static void *dev_at(size_t bytes, size_t skip, void **base) {
  CK_OK(clsMalloc(base, bytes + skip));
  CK_OK(clsMemset(*base, 0, bytes + skip));
  return (char *)*base + skip;
}

/* vectorADD_<T> over N elements at an interior offset: the element's
 * size, its type's name, and how to make and compare values. */
#define CHECK_ADD(T, name, skip)                                               \
  do {                                                                         \
    T ha[N], hb[N], hc[N];                                                     \
    for (int i = 0; i < N; i++) {                                              \
      ha[i] = (T)(i % 50);                                                     \
      hb[i] = (T)(3 * (i % 7));                                                \
    }                                                                          \
    void *ba, *bb, *bc;                                                        \
    T *a = dev_at(sizeof ha, skip, &ba), *b = dev_at(sizeof hb, skip, &bb),    \
      *c = dev_at(sizeof hc, skip, &bc);                                       \
    CK_OK(clsMemcpy(a, ha, sizeof ha, clsMemcpyHostToDevice));                 \
    CK_OK(clsMemcpy(b, hb, sizeof hb, clsMemcpyHostToDevice));                 \
    size_t n = N;                                                              \
    void *args[] = {&a, &b, &c, &n};                                           \
    launch(source_fn(m, name), args);                                          \
    CK_OK(clsMemcpy(hc, c, sizeof hc, clsMemcpyDeviceToHost));                 \
    for (int i = 0; i < N; i++)                                                \
      ck_assert_msg(hc[i] == (T)(ha[i] + hb[i]), "%s: element %d wrong", name, \
                    i);                                                        \
    CK_OK(clsFree(ba));                                                        \
    CK_OK(clsFree(bb));                                                        \
    CK_OK(clsFree(bc));                                                        \
  } while (0)

START_TEST(vector_add_templates) {
  clsModule_t m = load();
  CHECK_ADD(float, "vectorADD_float", 4);
  CHECK_ADD(int, "vectorADD_int", 4);
  CHECK_ADD(int8_t, "vectorADD_char", 4);
  CHECK_ADD(int16_t, "vectorADD_short", 4);
  clsFunction_t f;
  clsError_t r = clsModuleGetFunction(&f, m, "vectorADD_double");
  if (r == clsSuccess)
    CHECK_ADD(double, "vectorADD_double", 8);
  else
    printf("NOTE: vectorADD_double: no double on this device (%s)\n",
           clsGetErrorName(r));
  CK_OK(clsModuleUnload(m));
}
END_TEST

START_TEST(vector_set_templates) {
  clsModule_t m = load();
  void *bi, *bf;
  int *vi = dev_at(N * sizeof(int), 4, &bi);
  float *vf = dev_at(N * sizeof(float), 4, &bf);
  int iv = -7;
  float fv = 2.5f;
  size_t n = N;
  void *ai[] = {&vi, &iv, &n}, *af[] = {&vf, &fv, &n};
  launch(source_fn(m, "VectorSet_int"), ai);
  launch(source_fn(m, "VectorSet_float"), af);
  int hi[N + 1];
  float hf[N];
  CK_OK(clsMemcpy(hi, bi, sizeof hi, clsMemcpyDeviceToHost));
  CK_OK(clsMemcpy(hf, vf, sizeof hf, clsMemcpyDeviceToHost));
  ck_assert_int_eq(hi[0], 0); /* the 4 bytes before the pointer */
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(hi[i + 1], -7);
    ck_assert_msg(hf[i] == 2.5f, "VectorSet_float: element %d", i);
  }
  CK_OK(clsFree(bi));
  CK_OK(clsFree(bf));
  CK_OK(clsModuleUnload(m));
}
END_TEST

/* The variadic kernel (scale_v), the split one (split_fill), typedef'd
 * parameters (typedef_args) and the split parameter list (split_params). */
START_TEST(variadic_split_typedef) {
  clsModule_t m = load();
  void *b1, *b2, *b3;
  float *out = dev_at(N * sizeof(float), 4, &b1);
  float *in = dev_at(N * sizeof(float), 4, &b2);
  int *io = dev_at(N * sizeof(int), 4, &b3);
  float hin[N], hout[N];
  int hio[N];
  for (int i = 0; i < N; i++) hin[i] = (float)i;
  CK_OK(clsMemcpy(in, hin, sizeof hin, clsMemcpyHostToDevice));
  float k = 2.0f;
  unsigned n = GRID * BLOCK; /* one element a work-item */
  void *as[] = {&out, &in, &k, &n};
  launch(source_fn(m, "scale_v"), as);
  CK_OK(clsMemcpy(hout, out, sizeof hout, clsMemcpyDeviceToHost));
  for (int i = 0; i < (int)n; i++)
    ck_assert_msg(hout[i] == 2.0f * (float)i + 4.0f, "scale_v: element %d", i);

  int v = 5;
  void *af[] = {&io, &v, &n};
  launch(source_fn(m, "split_fill"), af);
  CK_OK(clsMemcpy(hio, io, sizeof hio, clsMemcpyDeviceToHost));
  for (int i = 0; i < (int)n; i++) ck_assert_int_eq(hio[i], 5 + i);

  /* in as ints: split_fill left 5 + i there. */
  struct {
    float a;
    int b;
  } p = {0.5f, 3};
  void *at[] = {&out, &io, &p, &n};
  launch(source_fn(m, "typedef_args"), at);
  CK_OK(clsMemcpy(hout, out, sizeof hout, clsMemcpyDeviceToHost));
  for (int i = 0; i < (int)n; i++)
    ck_assert_msg(hout[i] == 0.5f * (float)(5 + i) + 3.0f,
                  "typedef_args: element %d: %f", i, (double)hout[i]);

  v = 3;
  void *ap[] = {&io, &v, &n};
  launch(source_fn(m, "split_params"), ap);
  CK_OK(clsMemcpy(hio, io, sizeof hio, clsMemcpyDeviceToHost));
  for (int i = 0; i < (int)n; i++) ck_assert_int_eq(hio[i], 3 * i);
  CK_OK(clsFree(b1));
  CK_OK(clsFree(b2));
  CK_OK(clsFree(b3));
  CK_OK(clsModuleUnload(m));
}
END_TEST

int main(void) {
  Suite *s = suite_create("macro_kernels");
  TCase *tc = tcase_timed("macro_kernels", 120);
  tcase_add_test(tc, vector_add_templates);
  tcase_add_test(tc, vector_set_templates);
  tcase_add_test(tc, variadic_split_typedef);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
