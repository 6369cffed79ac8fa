/* When a module's program goes back to the driver (OpenCL build, under
 * libclsrefs.so, which counts the programs the library holds).
 *
 * A module unloaded while one of its launches is pending keeps its
 * program until that work is done (src/opencl/module.c: NVIDIA's driver
 * breaks when it is released earlier), also when the launch's stream is
 * destroyed first; with no work pending on the device (a module never
 * launched, or one whose launches are done) the unload gives its program
 * back before it returns.  Where host functions run inline (Oclgrind;
 * CLSTREAM_HOST_INLINE=1) no library thread may call the driver, so the
 * unload waits for the pending work and releases the program itself. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "support.h"

#include <dlfcn.h>

static long (*programs)(void);

static void find_shim(void) {
  *(void **)&programs = dlsym(RTLD_DEFAULT, "clsrefs_programs");
  ck_assert_msg(programs != NULL,
                "clsrefs_programs not found: run under libclsrefs.so");
}

/* Waits up to timeout_ms for the shim's program count to reach n. */
static long wait_programs(long n, int timeout_ms) {
  double end = now_ms() + timeout_ms;
  long p;
  while ((p = programs()) != n && now_ms() < end) sleep_ms(1);
  return p;
}

/* Unloads a module whose launch a gate holds on s (destroyed first with
 * `destroy`): the program stays until the gate opens. */
static void unload_pending(int destroy) {
  find_shim();
  arith a;
  arith_load(&a);
  long held = programs();
  ck_assert_int_ge(held, 1);
  int *d = dev_ints(128);
  dev_set(d, 0, 128);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  gate *g = gate_new();
  gate_hold(g, s);
  CK_OK(launch_fill(&a, s, d, 5, 128));
  if (destroy) CK_OK(clsStreamDestroy(s));
  CK_OK(clsModuleUnload(a.mod));
  sleep_ms(50); /* a release on another thread would show by now */
  ck_assert_msg(programs() == held,
                "the program was released (%ld held, %ld before the unload) "
                "while its launch was pending",
                programs(), held);
  gate_release(g);
  if (destroy)
    CK_OK(clsDeviceSynchronize());
  else
    CK_OK(clsStreamSynchronize(s));
  dev_expect(d, 5, 128, "d");
  long left = wait_programs(held - 1, 10000);
  ck_assert_msg(left == held - 1,
                "the program was not released once its launch was done "
                "(%ld held, %ld expected)",
                left, held - 1);
  if (!destroy) CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}

START_TEST(unload_with_launch_pending) { unload_pending(0); }
END_TEST

START_TEST(unload_with_launch_pending_on_destroyed_stream) {
  unload_pending(1);
}
END_TEST

/* Never launched, or its launches done: the unload gives the program
 * back before it returns. */
START_TEST(unload_gives_program_back_at_once) {
  find_shim();
  arith a;
  arith_load(&a);
  long held = programs();
  CK_OK(clsModuleUnload(a.mod));
  ck_assert_int_eq(programs(), held - 1);

  arith_load(&a);
  held = programs();
  int *d = dev_ints(128);
  CK_OK(launch_fill(&a, clsStreamLegacy, d, 7, 128));
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsModuleUnload(a.mod));
  ck_assert_int_eq(programs(), held - 1);
  dev_expect(d, 7, 128, "d");
  CK_OK(clsFree(d));
}
END_TEST

/* A long kernel still running at the unload: the program stays until it
 * ends, except where host functions run inline, where the unload waits
 * for it and gives the program back before it returns.  (No gate: this
 * case runs in the inline variant too.) */
START_TEST(unload_with_kernel_running) {
  find_shim();
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, 0));
  arith a;
  arith_load(&a);
  long held = programs();
  unsigned *out;
  CK_OK(clsMalloc((void **)&out, 64 * sizeof *out));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(launch_spin(&a, s, out, 64, 1u << 24));
  CK_OK(clsModuleUnload(a.mod));
  long after = programs();
  clsError_t busy = clsStreamQuery(s);
  if (p.hostFuncsInline) {
    ck_assert_msg(after == held - 1,
                  "inline host functions: the unload returned with the "
                  "program still held (%ld, %ld before)",
                  after, held);
  } else if (busy == clsErrorNotReady) {
    /* Pending before and after the count was read: it must be held. */
    ck_assert_msg(after == held,
                  "the program was released (%ld held, %ld before the "
                  "unload) while its kernel was running",
                  after, held);
  }
  CK_OK(clsStreamSynchronize(s));
  ck_assert_int_eq(wait_programs(held - 1, 10000), held - 1);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(out));
}
END_TEST

int main(void) {
  Suite *s = suite_create("unload");
  TCase *tc = tcase_timed("unload", 60);
  TCase *tc_gate = tcase_tagged(s, "unload_gate", 60, "gate");
  tcase_add_test(tc_gate, unload_with_launch_pending);
  tcase_add_test(tc_gate, unload_with_launch_pending_on_destroyed_stream);
  tcase_add_test(tc, unload_gives_program_back_at_once);
  tcase_add_test(tc, unload_with_kernel_running);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
