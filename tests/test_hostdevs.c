/* Host memory in kernels of every device (issue 35, point 3): pinned
 * (clsMallocHost), mapped (clsHostAlloc with Mapped), registered
 * (clsHostRegister with Mapped) and managed memory made while one device
 * is current, then used by a kernel on each device in turn, whichever
 * device is current, as hip-tests' hipHostRegister
 * ReferenceFromKernelandhipMemset does.  With one platform loaded the
 * devices share a context; ci/test.sh runs this program with PoCL and
 * rusticl loaded together, where a device of the other platform reaches
 * the memory through a buffer of its own context (src/opencl/hostview.c),
 * once with each as the default device. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

enum { N = 1024 };

static const char inc_src[] =
    "CLS_KERNEL void inc(CLS_GLOBAL int *a, unsigned n) {\n"
    "  unsigned i = cls_global_id(0);\n"
    "  if (i < n) a[i] += 1;\n"
    "}\n";

enum kind { PINNED, MAPPED, REGISTERED, MANAGED };
static const char *const kind_name[] = {"pinned", "mapped", "registered",
                                        "managed"};

/* Host memory of N ints of kind k, made while device `owner` is current
 * (registered: *plain gets the malloc'd array to free). */
static int *make(enum kind k, int owner, int **plain) {
  int *h = NULL;
  *plain = NULL;
  CK_OK(clsSetDevice(owner));
  switch (k) {
  case PINNED:
    CK_OK(clsMallocHost((void **)&h, N * sizeof *h));
    break;
  case MAPPED:
    CK_OK(clsHostAlloc((void **)&h, N * sizeof *h,
                       clsHostAllocMapped | clsHostAllocPortable));
    break;
  case REGISTERED:
    *plain = h = malloc(N * sizeof *h);
    ck_assert_ptr_nonnull(h);
    CK_OK(clsHostRegister(h, N * sizeof *h, clsHostRegisterMapped));
    break;
  default:
    CK_OK(clsMallocManaged((void **)&h, N * sizeof *h, clsMemAttachGlobal));
    break;
  }
  return h;
}

static void release(enum kind k, int *h, int *plain) {
  if (k == REGISTERED) {
    CK_OK(clsHostUnregister(h));
    free(plain);
  } else if (k == MANAGED) {
    CK_OK(clsFree(h));
  } else {
    CK_OK(clsFreeHost(h));
  }
}

/* Memory of kind k made on device `owner`, incremented by a kernel on
 * every device (through its device pointer, and at an interior offset),
 * checked on the host after each device synchronizes. */
static void every_device(enum kind k, int owner) {
  int ndev = 0;
  CK_OK(clsGetDeviceCount(&ndev));
  int *plain;
  int *h = make(k, owner, &plain);
  for (int i = 0; i < N; ++i) h[i] = 1;
  clsModule_t m;
  clsFunction_t inc;
  CK_OK(clsModuleLoadData(&m, inc_src, NULL));
  CK_OK(clsModuleGetFunction(&inc, m, "inc"));
  for (int d = 0; d < ndev; ++d) {
    CK_OK(clsSetDevice(d));
    int *dp = h;
    if (k == MAPPED || k == REGISTERED)
      CK_OK(clsHostGetDevicePointer((void **)&dp, h, 0));
    unsigned n = N;
    void *args[] = {&dp, &n};
    CK_OK(clsLaunchKernel(inc, (clsDim3){N / 64, 1, 1}, (clsDim3){64, 1, 1},
                          args, 0, NULL));
    /* The second half again, from an interior pointer. */
    int *mid = dp + N / 2;
    unsigned half = N / 2;
    void *margs[] = {&mid, &half};
    CK_OK(clsLaunchKernel(inc, (clsDim3){N / 128, 1, 1}, (clsDim3){64, 1, 1},
                          margs, 0, NULL));
    CK_OK(clsDeviceSynchronize());
    for (int i = 0; i < N; ++i) {
      int want = 1 + (d + 1) * (i < N / 2 ? 1 : 2);
      ck_assert_msg(h[i] == want,
                    "%s memory of device %d, after device %d of %d: h[%d] = "
                    "%d, expected %d",
                    kind_name[k], owner, d, ndev, i, h[i], want);
    }
  }
  CK_OK(clsSetDevice(owner));
  CK_OK(clsModuleUnload(m));
  release(k, h, plain);
}

/* Made on the first device, and on the last (another platform's, where
 * two are loaded). */
START_TEST(host_memory_on_every_device) {
  int ndev = 0;
  CK_OK(clsGetDeviceCount(&ndev));
  every_device((enum kind)_i, 0);
  every_device((enum kind)_i, ndev - 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hostdevs");
  TCase *tc = tcase_timed("hostdevs", 120);
  tcase_add_loop_test(tc, host_memory_on_every_device, PINNED, MANAGED + 1);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
