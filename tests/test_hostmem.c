/* Host memory the device knows about (clsHostAlloc, clsHostGetDevicePointer,
 * clsHostRegister, clsHostUnregister) and managed memory
 * (clsMallocManaged).  What a device can do is read from its properties
 * first, as CUDA programs do (canMapHostMemory, managedMemory,
 * pageableMemoryAccess), and each call must agree with them. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clsDeviceProp current_props(void) {
  int dev;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  return p;
}

/* Every flag combination allocates pinned memory that async copies use. */
START_TEST(host_alloc_flags) {
  static const unsigned flags[] = {
      clsHostAllocDefault, clsHostAllocPortable, clsHostAllocMapped,
      clsHostAllocWriteCombined,
      clsHostAllocPortable | clsHostAllocMapped | clsHostAllocWriteCombined};
  enum { N = 1024 };
  int *d = dev_ints(N);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  for (size_t k = 0; k < sizeof flags / sizeof flags[0]; ++k) {
    int *h = NULL;
    CK_OK(clsHostAlloc((void **)&h, N * sizeof(int), flags[k]));
    ck_assert_ptr_nonnull(h);
    for (int i = 0; i < N; ++i) h[i] = (int)k * 100 + i;
    CK_OK(clsMemcpyAsync(d, h, N * sizeof(int), clsMemcpyHostToDevice, s));
    CK_OK(clsStreamSynchronize(s));
    memset(h, 0, N * sizeof(int));
    CK_OK(clsMemcpyAsync(h, d, N * sizeof(int), clsMemcpyDefault, s));
    CK_OK(clsStreamSynchronize(s));
    for (int i = 0; i < N; ++i)
      ck_assert_msg(h[i] == (int)k * 100 + i, "flags 0x%x: h[%d] = %d",
                    flags[k], i, h[i]);
    /* Host memory is freed with clsFreeHost, not clsFree. */
    CK_CLS(clsFree(h), clsErrorInvalidValue);
    CK_OK(clsFreeHost(h));
    CK_CLS(clsFreeHost(h), clsErrorInvalidValue);
  }
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* Mapped memory: where canMapHostMemory is 1, a kernel writes it through
 * clsHostGetDevicePointer's pointer and the host reads the result in
 * place (zero-copy); elsewhere the allocation works and the device pointer
 * is refused with NotSupported. */
START_TEST(mapped_zero_copy) {
  clsDeviceProp p = current_props();
  arith a;
  arith_load(&a);
  enum { N = 300 };
  int *h = NULL, *dp = NULL;
  CK_OK(clsHostAlloc((void **)&h, N * sizeof(int), clsHostAllocMapped));
  for (int i = 0; i < N; ++i) h[i] = -1;
  clsError_t r = clsHostGetDevicePointer((void **)&dp, h, 0);
  unsigned flags = 0;
  CK_OK(clsGetDeviceFlags(&flags));
  if (!p.canMapHostMemory) {
    CK_CLS(r, clsErrorNotSupported);
    ck_assert_msg(!(flags & clsDeviceMapHost),
                  "clsDeviceMapHost reported by a device that cannot map");
    printf("mapped_zero_copy: device cannot map host memory (checked the "
           "refusal)\n");
  } else {
    CK_OK(r);
    ck_assert_msg(flags & clsDeviceMapHost, "flags 0x%x lack MapHost", flags);
    ck_assert_ptr_nonnull(dp);
    /* An interior pointer maps to the same offset. */
    int *dp5 = NULL;
    CK_OK(clsHostGetDevicePointer((void **)&dp5, h + 5, 0));
    ck_assert_ptr_eq(dp5, dp + 5);
    CK_OK(launch_fill(&a, NULL, dp, 77, N));
    CK_OK(clsDeviceSynchronize());
    host_expect(h, 77, N, "mapped memory written by a kernel");
    /* clsMemset of pinned memory returns once done, as CUDA's does. */
    CK_OK(clsMemset(h, 0, N * sizeof(int)));
    host_expect(h, 0, N, "mapped memory after clsMemset, with no wait");
  }
  CK_OK(clsFreeHost(h));
  arith_unload(&a);
}
END_TEST

/* clsMallocHost memory (no Mapped flag): CUDA maps every pinned allocation
 * (unified addressing), and so does clstream on every device
 * (test_hostkern.c launches kernels on it). */
START_TEST(unmapped_pinned_pointer) {
  void *h = NULL, *dp = NULL;
  CK_OK(clsMallocHost(&h, 64));
  CK_OK(clsHostGetDevicePointer(&dp, h, 0));
  ck_assert_ptr_eq(dp, h);
  CK_OK(clsFreeHost(h));
}
END_TEST

/* Copies src into d on a stream held by a gate, changes src after the
 * call returned, releases the gate and returns what d received. */
static int copy_behind_gate(int *src, int *d, int first, int later) {
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  src[0] = first;
  gate_hold(g, s);
  CK_OK(clsMemcpyAsync(d, src, sizeof(int), clsMemcpyHostToDevice, s));
  src[0] = later;
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamDestroy(s));
  int got;
  dev_get(&got, d, 1);
  return got;
}

/* Registered memory is treated as pinned: an async copy reads it when the
 * copy runs (no staging), as a DMA from page-locked memory does; ordinary
 * memory is staged at the call. */
START_TEST(register_is_pinned) {
  int *d = dev_ints(1);
  int *buf = calloc(1024, sizeof(int));
  ck_assert_int_eq(copy_behind_gate(buf, d, 1, 2), 1); /* pageable: staged */
  CK_OK(clsHostRegister(buf, 1024 * sizeof(int), clsHostRegisterDefault));
  ck_assert_int_eq(copy_behind_gate(buf, d, 3, 4), 4); /* pinned: in place */
  CK_OK(clsHostUnregister(buf));
  ck_assert_int_eq(copy_behind_gate(buf, d, 5, 6), 5); /* pageable again */
  /* Registered again, with every flag OpenCL can take. */
  CK_OK(clsHostRegister(buf, 1024 * sizeof(int),
                        clsHostRegisterPortable | clsHostRegisterMapped |
                            clsHostRegisterReadOnly));
  CK_OK(clsHostUnregister(buf));
  free(buf);
  CK_OK(clsFree(d));
}
END_TEST

/* A registered range's device pointer exists on every device (a buffer
 * over the range, or the range itself with pageableMemoryAccess). */
START_TEST(register_mapped_pointer) {
  int *buf = calloc(256, sizeof(int));
  void *dp = NULL;
  CK_OK(clsHostRegister(buf, 256 * sizeof(int), clsHostRegisterMapped));
  CK_OK(clsHostGetDevicePointer(&dp, buf, 0));
  ck_assert_ptr_nonnull(dp);
  CK_OK(clsHostUnregister(buf));
  free(buf);
}
END_TEST

/* Managed memory: host and kernel use one pointer; NotSupported where the
 * device says managedMemory 0. */
START_TEST(managed_roundtrip) {
  clsDeviceProp p = current_props();
  int *m = NULL;
  clsError_t r =
      clsMallocManaged((void **)&m, 1000 * sizeof(int), clsMemAttachGlobal);
  if (!p.managedMemory) {
    CK_CLS(r, clsErrorNotSupported);
    printf("managed_roundtrip: no managed memory on this device (checked "
           "the refusal)\n");
    return;
  }
  CK_OK(r);
  arith a;
  arith_load(&a);
  for (int i = 0; i < 1000; ++i) m[i] = i;
  CK_OK(launch_scale(&a, NULL, m, 3, 1000));
  CK_OK(clsDeviceSynchronize());
  for (int i = 0; i < 1000; ++i)
    ck_assert_msg(m[i] == 3 * i, "m[%d] = %d", i, m[i]);
  /* Copies treat it as device memory. */
  int h[4];
  CK_OK(clsMemcpy(h, m + 10, sizeof h, clsMemcpyDefault));
  ck_assert_int_eq(h[0], 30);
  /* clsMemset of device memory returns at once (docs/semantics.md), of
   * managed memory once it is done (CUDA documents memsets of Unified
   * Memory as fully synchronous): the host reads it with no wait. */
  CK_OK(clsMemset(m, 0, 4 * sizeof(int)));
  ck_assert_int_eq(m[0], 0);
  ck_assert_int_eq(m[3], 0);
  ck_assert_int_eq(m[4], 12);
  CK_CLS(clsFreeHost(m), clsErrorInvalidValue);
  CK_OK(clsFree(m));
  int *m2 = NULL;
  CK_OK(clsMallocManaged((void **)&m2, 64, clsMemAttachHost));
  m2[0] = 1;
  CK_OK(clsFree(m2));
  arith_unload(&a);
}
END_TEST

/* A kernel whose parameter list comes from macros (an object-like one
 * and a function-like one with ##) takes registered memory at +4 bytes on
 * every memory path: the buffer path's rewrite (and the offset variant on
 * SVM) reads the preprocessed program and gives it its offset argument,
 * where it once refused this with InvalidValue. */
START_TEST(odd_offset_macro_params) {
  static const char src[] =
      "#define PUT_ARGS (CLS_GLOBAL int *t, int v)\n"
      "#define PUT(sfx, args) CLS_KERNEL void put_##sfx args\n"
      "PUT(one, PUT_ARGS) { t[cls_global_id(0)] = v; }\n";
  clsModule_t m;
  clsFunction_t f;
  CK_OK(clsModuleLoadData(&m, src, NULL));
  CK_OK(clsModuleGetFunction(&f, m, "put_one"));
  int *r = calloc(64, sizeof(int));
  ck_assert_ptr_nonnull(r);
  CK_OK(clsHostRegister(r, 64 * sizeof(int), clsHostRegisterDefault));
  int *t = r + 1, v = 3;
  void *args[] = {&t, &v};
  CK_OK(clsLaunchKernel(f, (clsDim3){1, 1, 1}, (clsDim3){4, 1, 1}, args, 0,
                        NULL));
  CK_OK(clsDeviceSynchronize());
  ck_assert_int_eq(r[0], 0);
  for (int i = 1; i <= 4; i++) ck_assert_int_eq(r[i], 3);
  ck_assert_int_eq(r[5], 0);
  CK_OK(clsHostUnregister(r));
  CK_OK(clsModuleUnload(m));
  free(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hostmem");
  TCase *tc = tcase_timed("hostmem", 120);
  TCase *tc_gate = tcase_tagged(s, "hostmem_gate", 120, "gate");
  tcase_add_test(tc, host_alloc_flags);
  tcase_add_test(tc, mapped_zero_copy);
  tcase_add_test(tc, unmapped_pinned_pointer);
  tcase_add_test(tc_gate, register_is_pinned);
  tcase_add_test(tc, register_mapped_pointer);
  tcase_add_test(tc, managed_roundtrip);
  tcase_add_test(tc, odd_offset_macro_params);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
