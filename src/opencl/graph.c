/* OpenCL backend: what graphs need of a kernel (backend.h, "Graphs"): how
 * many bytes of each argument a launch reads, so that a kernel node can
 * copy the values when it is made. */
#include "function.h"

clsError_t cls__b_function_params(cls__bfunction *f, size_t *n, size_t *sizes,
                                  size_t max) {
  if (f->bad >= 0)
    return cls__reason(clsErrorInvalidValue, "%s",
                       f->bad_msg ? f->bad_msg : "unsupported parameter");
  *n = f->nuser; /* the hidden arguments after them are launch.c's */
  for (size_t i = 0; i < f->nuser && i < max; ++i) {
    const cls__oarg *a = &f->args[i];
    sizes[i] = a->kind == CLS__ARG_POINTER ? sizeof(void *)
               : a->kind == CLS__ARG_VEC3  ? a->copy
                                           : a->size;
  }
  return clsSuccess;
}
