/* OpenCL backend: what graphs need of a kernel (backend.h, "Graphs"): how
 * many bytes of each argument a launch reads, so that a kernel node can
 * copy the values when it is made. */
#include "function.h"

clsError_t cls__b_function_params(cls__bfunction *f, size_t *n, size_t *sizes,
                                  size_t max) {
  if (f->bad >= 0)
    return cls__reason(clsErrorInvalidValue, "%s",
                       f->bad_msg ? f->bad_msg : "unsupported parameter");
  *n = f->nargs;
  for (size_t i = 0; i < f->nargs && i < max; ++i) {
    const cls__oarg *a = &f->args[i];
    sizes[i] = a->kind == CLS__ARG_POINTER ? sizeof(void *)
               : a->kind == CLS__ARG_VEC3  ? a->copy
                                           : a->size;
  }
  return clsSuccess;
}

/* No prepared replay on OpenCL yet: the front issues the nodes one by one
 * (docs/design.md, "Capture and replay", says why). */
clsError_t cls__b_exec_prepare(int dev, const cls__bnode *nodes, size_t n,
                               cls__bexec **out) {
  (void)dev, (void)nodes, (void)n;
  *out = NULL;
  return clsSuccess;
}

clsError_t cls__b_exec_upload(cls__bexec *x, cls__bstream *s) {
  (void)x, (void)s;
  return clsSuccess;
}

clsError_t cls__b_exec_launch(cls__bexec *x, cls__bstream *s) {
  (void)x, (void)s;
  return cls__reason(clsErrorNotSupported, "no prepared replay on OpenCL");
}

clsError_t cls__b_exec_kernel_update(cls__bexec *x, size_t i,
                                     const cls__bnode *node) {
  (void)x, (void)i, (void)node;
  return cls__reason(clsErrorNotSupported, "no prepared replay on OpenCL");
}

void cls__b_exec_destroy(cls__bexec *x) { (void)x; }
