/* CLBlast on a handed-out queue (docs/interop.md): CLBlast takes no wait
 * list, so only the queue orders it.  Its SGEMM waits for a
 * clsStreamWaitEvent made before it, and a record after it covers it; on
 * the SVM path it runs on the cl_mem view clsOpenCLGetMem makes.  Built
 * where CMake finds CLBlast. */
#include "raw.h"

#include <clblast_c.h>

#define M 64

START_TEST(sgemm_ordered_by_the_queue) {
  float ha[M * M], hb[M * M], hc[M * M];
  for (int i = 0; i < M * M; ++i) {
    ha[i] = (float)(i % 7) - 3.0f;
    hb[i] = (float)(i % 5) - 2.0f;
  }
  float *a, *b, *c;
  CK_OK(clsMalloc((void **)&a, sizeof ha));
  CK_OK(clsMalloc((void **)&b, sizeof hb));
  CK_OK(clsMalloc((void **)&c, sizeof hc));
  CK_OK(clsMemcpy(a, ha, sizeof ha, clsMemcpyHostToDevice));
  CK_OK(clsMemcpy(b, hb, sizeof hb, clsMemcpyHostToDevice));
  CK_OK(clsMemset(c, 0, sizeof hc));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  cl_command_queue q;
  CK_OK(clsOpenCLGetQueue(s, &q));
  /* The SGEMM must wait for this, though CLBlast never sees it. */
  cl_event g = user_event();
  clsEvent_t eg, e;
  CK_OK(clsOpenCLEventCreateFromEvent(&eg, g, 0));
  CK_OK(clsStreamWaitEvent(s, eg, 0));
  cl_mem ma, mb, mc;
  size_t oa, ob, oc;
  CK_OK(clsOpenCLGetMem(a, &ma, &oa));
  CK_OK(clsOpenCLGetMem(b, &mb, &ob));
  CK_OK(clsOpenCLGetMem(c, &mc, &oc));
  cl_event k = NULL;
  ck_assert_int_eq(CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                                CLBlastTransposeNo, M, M, M, 1.0f, ma,
                                oa / sizeof(float), M, mb, ob / sizeof(float),
                                M, 0.0f, mc, oc / sizeof(float), M, &q, &k),
                   CLBlastSuccess);
  CK_OK(clsEventCreate(&e));
  CK_OK(clsEventRecord(e, s));
  sleep_ms(SETTLE_MS);
  ck_assert_msg(status_of(k) != CL_COMPLETE,
                "CLBlast's SGEMM ran before the awaited event");
  CK_CLS(clsEventQuery(e), clsErrorNotReady);
  release_gate(g);
  CK_OK(clsEventSynchronize(e));
  ck_assert_int_eq(status_of(k), CL_COMPLETE);
  clReleaseEvent(k);
  CK_OK(clsMemcpy(hc, c, sizeof hc, clsMemcpyDeviceToHost));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
      float r = 0;
      for (int l = 0; l < M; ++l) r += ha[i * M + l] * hb[l * M + j];
      ck_assert_msg(hc[i * M + j] == r, "C[%d][%d] = %g, expected %g", i, j,
                    hc[i * M + j], r);
    }
  CK_OK(clsEventDestroy(e));
  CK_OK(clsEventDestroy(eg));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(a));
  CK_OK(clsFree(b));
  CK_OK(clsFree(c));
}
END_TEST

int main(void) {
  Suite *s = suite_create("native_clblast");
  TCase *tc = tcase_tagged(s, "native_clblast", 300, "gate");
  tcase_add_checked_fixture(tc, raw_setup, raw_teardown);
  tcase_add_test(tc, sgemm_ordered_by_the_queue);
  return run_suite(s);
}
