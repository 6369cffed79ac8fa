/* Module globals (issue 25 point 6): CLS_CONSTANT and CLS_DEVICE_GLOBAL,
 * clsModuleGetGlobal, clsMemcpyToSymbol and clsMemcpyFromSymbol with their
 * Async forms in stream order, clsGetSymbolAddress, clsGetSymbolSize, and
 * their bad input.  Kernels: tests/kernels/kparams_globals.cl. */
#include "support.h"

#include <stdint.h>
#include <string.h>

typedef struct globals {
  clsModule_t m;
  float *coef;
  int *table, *counter;
  size_t coef_bytes, table_bytes, counter_bytes;
} globals;

static void load(globals *g) {
  clsError_t r = clsModuleLoadData(&g->m, cls_kernel_kparams_globals, NULL);
  ck_assert_msg(r == clsSuccess, "tests/kernels/kparams_globals.cl: %s\n%s",
                clsGetErrorName(r), clsGetLastBuildLog());
  CK_OK(clsModuleGetGlobal((void **)&g->coef, &g->coef_bytes, g->m, "kp_coef"));
  CK_OK(clsModuleGetGlobal((void **)&g->table, &g->table_bytes, g->m,
                           "kp_table"));
  CK_OK(clsModuleGetGlobal((void **)&g->counter, &g->counter_bytes, g->m,
                           "kp_counter"));
}

static clsFunction_t fn(clsModule_t m, const char *name) {
  clsFunction_t f;
  CK_OK(clsModuleGetFunction(&f, m, name));
  return f;
}

/* Sizes, the initial value of a constant, zeros elsewhere. */
START_TEST(initial_values) {
  globals g;
  load(&g);
  ck_assert_uint_eq(g.coef_bytes, 4 * sizeof(float));
  ck_assert_uint_eq(g.table_bytes, 16 * sizeof(int));
  ck_assert_uint_eq(g.counter_bytes, sizeof(int));
  size_t n = 0;
  CK_OK(clsGetSymbolSize(&n, g.table));
  ck_assert_uint_eq(n, 16 * sizeof(int));
  void *a = NULL;
  CK_OK(clsGetSymbolAddress(&a, g.coef));
  ck_assert_ptr_eq(a, g.coef);
  float c[4];
  CK_OK(clsMemcpyFromSymbol(c, g.coef, sizeof c, 0, clsMemcpyDeviceToHost));
  for (int i = 0; i < 4; i++) ck_assert(c[i] == (float)(i + 1));
  int t[16], ctr = -1;
  CK_OK(clsMemcpyFromSymbol(t, g.table, sizeof t, 0, clsMemcpyDefault));
  for (int i = 0; i < 16; i++) ck_assert_int_eq(t[i], 0);
  CK_OK(clsMemcpyFromSymbol(&ctr, g.counter, sizeof ctr, 0,
                            clsMemcpyDeviceToHost));
  ck_assert_int_eq(ctr, 0);
  /* The same name gives the same address; an unknown one is not found. */
  void *again = NULL;
  CK_OK(clsModuleGetGlobal(&again, NULL, g.m, "kp_coef"));
  ck_assert_ptr_eq(again, g.coef);
  CK_CLS(clsModuleGetGlobal(&again, &n, g.m, "no_such_global"),
         clsErrorSymbolNotFound);
  CK_OK(clsModuleUnload(g.m));
}
END_TEST

/* A table written with clsMemcpyToSymbol (at an offset too) is what the
 * kernels read; a constant overwritten changes what they compute. */
START_TEST(to_symbol_reaches_kernels) {
  globals g;
  load(&g);
  int tab[16];
  for (int i = 0; i < 16; i++) tab[i] = 100 + i * i;
  CK_OK(clsMemcpyToSymbol(g.table, tab, 8 * sizeof(int), 0,
                          clsMemcpyHostToDevice));
  CK_OK(clsMemcpyToSymbol(g.table, tab + 8, 8 * sizeof(int), 8 * sizeof(int),
                          clsMemcpyHostToDevice));
  enum { N = 40 };
  int idx[N], out[N], *didx, *dout;
  for (int i = 0; i < N; i++) idx[i] = (i * 7) % 23;
  CK_OK(clsMalloc((void **)&didx, sizeof idx));
  CK_OK(clsMalloc((void **)&dout, sizeof out));
  CK_OK(clsMemcpy(didx, idx, sizeof idx, clsMemcpyHostToDevice));
  unsigned n = N;
  void *args[] = {&didx, &dout, &n};
  clsDim3 grid = {1, 1, 1}, block = {64, 1, 1};
  CK_OK(clsLaunchKernel(fn(g.m, "lookup"), grid, block, args, 0, NULL));
  CK_OK(clsMemcpy(out, dout, sizeof out, clsMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) ck_assert_int_eq(out[i], tab[idx[i] % 16]);

  float c2[4] = {0.5f, -1.0f, 10.0f, 0.0f}, x[8], *dx;
  for (int i = 0; i < 8; i++) x[i] = (float)(i + 1);
  CK_OK(clsMemcpyToSymbol(g.coef, c2, sizeof c2, 0, clsMemcpyDefault));
  CK_OK(clsMalloc((void **)&dx, sizeof x));
  CK_OK(clsMemcpy(dx, x, sizeof x, clsMemcpyHostToDevice));
  unsigned n8 = 8;
  void *cargs[] = {&dx, &n8};
  CK_OK(clsLaunchKernel(fn(g.m, "apply_coef"), grid, block, cargs, 0, NULL));
  float y[8];
  CK_OK(clsMemcpy(y, dx, sizeof y, clsMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++) ck_assert(y[i] == x[i] * c2[i % 4]);
  CK_OK(clsFree(didx));
  CK_OK(clsFree(dout));
  CK_OK(clsFree(dx));
  CK_OK(clsModuleUnload(g.m));
}
END_TEST

/* The Async forms run in stream order between launches: a kernel reads
 * the counter a copy set just before it, and a copy after it reads what
 * the kernel left. */
START_TEST(async_in_stream_order) {
  globals g;
  load(&g);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  int *seen, *host;
  CK_OK(clsMalloc((void **)&seen, sizeof(int)));
  CK_OK(clsMallocHost((void **)&host, 4 * sizeof(int)));
  host[0] = 1000;
  clsFunction_t bump = fn(g.m, "bump_counter");
  int by = 5;
  void *args[] = {&by, &seen};
  clsDim3 one = {1, 1, 1};
  CK_OK(clsMemcpyToSymbolAsync(g.counter, &host[0], sizeof(int), 0,
                               clsMemcpyHostToDevice, s));
  CK_OK(clsLaunchKernel(bump, one, one, args, 0, s));
  CK_OK(clsMemcpyFromSymbolAsync(&host[1], g.counter, sizeof(int), 0,
                                 clsMemcpyDeviceToHost, s));
  CK_OK(clsLaunchKernel(bump, one, one, args, 0, s));
  CK_OK(clsMemcpyFromSymbolAsync(&host[2], g.counter, sizeof(int), 0,
                                 clsMemcpyDeviceToHost, s));
  /* Device to device, both ways, through a plain allocation. */
  CK_OK(clsMemcpyFromSymbolAsync(seen, g.counter, sizeof(int), 0,
                                 clsMemcpyDeviceToDevice, s));
  CK_OK(clsMemcpyToSymbolAsync(g.table, seen, sizeof(int), 4 * sizeof(int),
                               clsMemcpyDeviceToDevice, s));
  CK_OK(clsMemcpyFromSymbolAsync(&host[3], g.table, sizeof(int),
                                 4 * sizeof(int), clsMemcpyDeviceToHost, s));
  CK_OK(clsStreamSynchronize(s));
  ck_assert_int_eq(host[1], 1005);
  ck_assert_int_eq(host[2], 1010);
  ck_assert_int_eq(host[3], 1010);
  CK_OK(clsFree(seen));
  CK_OK(clsFreeHost(host));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsModuleUnload(g.m));
}
END_TEST

/* A symbol's address is device memory: a kernel reads it through a
 * pointer parameter (at an offset too), and clsMemset reaches it. */
START_TEST(address_is_device_memory) {
  globals g;
  load(&g);
  int tab[16];
  for (int i = 0; i < 16; i++) tab[i] = 3 * i - 7;
  CK_OK(clsMemcpyToSymbol(g.table, tab, sizeof tab, 0, clsMemcpyHostToDevice));
  int *addr = NULL, *dout, out[16];
  CK_OK(clsGetSymbolAddress((void **)&addr, g.table));
  CK_OK(clsMalloc((void **)&dout, sizeof out));
  int *from = addr + 3;
  unsigned n = 13;
  void *args[] = {&from, &dout, &n};
  clsDim3 one = {1, 1, 1}, block = {16, 1, 1};
  CK_OK(clsLaunchKernel(fn(g.m, "read_through"), one, block, args, 0, NULL));
  CK_OK(clsMemcpy(out, dout, n * sizeof(int), clsMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++) ck_assert_int_eq(out[i], tab[i + 3]);
  CK_OK(clsMemset(addr, 0, sizeof tab));
  CK_OK(clsMemcpyFromSymbol(out, g.table, sizeof out, 0, clsMemcpyDefault));
  for (int i = 0; i < 16; i++) ck_assert_int_eq(out[i], 0);
  CK_OK(clsFree(dout));
  CK_OK(clsModuleUnload(g.m));
}
END_TEST

/* Bad input, as CUDA answers it; none of it is sticky. */
START_TEST(bad_input) {
  globals g;
  load(&g);
  int h[32] = {0}, local = 0;
  size_t n;
  void *p;
  CK_CLS(clsMemcpyToSymbol(NULL, h, 4, 0, clsMemcpyHostToDevice),
         clsErrorInvalidSymbol);
  CK_CLS(clsMemcpyToSymbol(&local, h, 4, 0, clsMemcpyHostToDevice),
         clsErrorInvalidSymbol);
  CK_CLS(clsMemcpyToSymbol((char *)g.table + 4, h, 4, 0, clsMemcpyHostToDevice),
         clsErrorInvalidSymbol);
  CK_CLS(clsMemcpyToSymbol(g.table, h, sizeof h, 0, clsMemcpyHostToDevice),
         clsErrorInvalidValue);
  CK_CLS(clsMemcpyToSymbol(g.table, h, 4, 64, clsMemcpyHostToDevice),
         clsErrorInvalidValue);
  CK_CLS(clsMemcpyToSymbol(g.table, h, 4, SIZE_MAX, clsMemcpyHostToDevice),
         clsErrorInvalidValue);
  CK_CLS(clsMemcpyToSymbol(g.table, h, 4, 0, clsMemcpyDeviceToHost),
         clsErrorInvalidMemcpyDirection);
  CK_CLS(clsMemcpyFromSymbol(h, g.table, 4, 0, clsMemcpyHostToDevice),
         clsErrorInvalidMemcpyDirection);
  CK_CLS(clsMemcpyFromSymbol(h, g.table, 4, 0, (clsMemcpyKind)77),
         clsErrorInvalidMemcpyDirection);
  CK_CLS(
      clsMemcpyFromSymbolAsync(h, g.table, 65, 0, clsMemcpyDeviceToHost, NULL),
      clsErrorInvalidValue);
  CK_CLS(clsMemcpyToSymbolAsync(&local, h, 4, 0, clsMemcpyHostToDevice, NULL),
         clsErrorInvalidSymbol);
  CK_CLS(clsGetSymbolAddress(NULL, g.table), clsErrorInvalidValue);
  CK_CLS(clsGetSymbolAddress(&p, &local), clsErrorInvalidSymbol);
  CK_CLS(clsGetSymbolSize(NULL, g.table), clsErrorInvalidValue);
  CK_CLS(clsGetSymbolSize(&n, NULL), clsErrorInvalidSymbol);
  CK_CLS(clsModuleGetGlobal(&p, &n, g.m, NULL), clsErrorInvalidValue);
  CK_CLS(clsModuleGetGlobal(&p, &n, NULL, "kp_table"),
         clsErrorInvalidResourceHandle);
  int *table = g.table;
  CK_OK(clsModuleUnload(g.m));
  CK_CLS(clsModuleGetGlobal(&p, &n, g.m, "kp_table"),
         clsErrorInvalidResourceHandle);
  /* Unloading the module drops its globals. */
  CK_CLS(clsGetSymbolSize(&n, table), clsErrorInvalidSymbol);
  CK_LAST(clsErrorInvalidSymbol);
  CK_OK(clsGetLastError());
  CK_OK(clsDeviceSynchronize());
}
END_TEST

/* A module without globals answers SymbolNotFound. */
START_TEST(no_globals) {
  clsModule_t m;
  CK_OK(clsModuleLoadData(&m, cls_kernel_kparams, NULL));
  void *p;
  size_t n;
  CK_CLS(clsModuleGetGlobal(&p, &n, m, "kp_table"), clsErrorSymbolNotFound);
  CK_OK(clsModuleUnload(m));
}
END_TEST

int main(void) {
  Suite *s = suite_create("symbol");
  TCase *tc = tcase_timed("symbol", 300);
  tcase_add_test(tc, initial_values);
  tcase_add_test(tc, to_symbol_reaches_kernels);
  tcase_add_test(tc, async_in_stream_order);
  tcase_add_test(tc, address_is_device_memory);
  tcase_add_test(tc, bad_input);
  tcase_add_test(tc, no_globals);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
