/* Kernels whose names and parameter lists macros build (issue 35 point
 * 2), as CUDA code ported to C writes its templates (HIP's unit tests
 * do): function-like macros with ## and #, a variadic macro, a kernel
 * split over several macros, typedef'd pointer and struct parameters, and
 * a parameter list split by comments and line continuations.  Every
 * kernel does nothing when its count is 0, so that the kernel sweep (all
 * parameters zero) runs it harmlessly. */

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* HIP's vectorADD, one kernel per element type. */
#define VECTOR_ADD(T)                                                          \
  CLS_KERNEL void vectorADD_##T(CLS_GLOBAL const T *A_d,                       \
                                CLS_GLOBAL const T *B_d, CLS_GLOBAL T *C_d,    \
                                size_t NELEM) {                                \
    size_t stride = (size_t)cls_local_size(0) * cls_num_groups(0);             \
    for (size_t i = cls_global_id(0); i < NELEM; i += stride)                  \
      C_d[i] = (T)(A_d[i] + B_d[i]);                                           \
  }
VECTOR_ADD(float)
VECTOR_ADD(int)
VECTOR_ADD(char)
VECTOR_ADD(short)
#if defined(cl_khr_fp64) || defined(__CUDACC_RTC__) || defined(__CUDACC__)
VECTOR_ADD(double)
#endif

/* HIP's VectorSet: a const pointer and a const value. */
#define VECTOR_SET(T)                                                          \
  CLS_KERNEL void VectorSet_##T(CLS_GLOBAL T *const vec, const T value,        \
                                size_t N) {                                    \
    for (size_t i = cls_global_id(0); i < N;                                   \
         i += (size_t)cls_local_size(0) * cls_num_groups(0))                   \
      vec[i] = value;                                                          \
  }
VECTOR_SET(int)
VECTOR_SET(float)

/* A parameter list passed through __VA_ARGS__, a name pasted from two
 * words, and a count from a stringized word (sizeof "four" is 5). */
#define CLS_PASTE(a, b) a##b
#define KERNEL_OF(name, ...) CLS_KERNEL void CLS_PASTE(name, _v)(__VA_ARGS__)
#define WORD_LEN(w) (sizeof(#w) - 1)
KERNEL_OF(scale, CLS_GLOBAL float *out, CLS_GLOBAL const float *in, float k,
          unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) out[i] = in[i] * k + (float)WORD_LEN(four);
}

/* A kernel split across macros: its head, its pointer parameter and the
 * opening of its body each come from one. */
#define KHEAD(name) CLS_KERNEL void name(
#define KPTR(T, n) CLS_GLOBAL T *n
#define KBODY ) {
/* The shapes below are the test: clang-format would respell them. */
// clang-format off
KHEAD(split_fill) KPTR(int, out), int v, unsigned n KBODY
  unsigned i = cls_global_id(0);
  if (i < n) out[i] = v + (int)i;
}
// clang-format on

/* typedef'd pointer and struct parameters. */
typedef CLS_GLOBAL float *fptr;
typedef CLS_GLOBAL const int *ciptr;
typedef struct {
  float a;
  int b;
} pair_t;
CLS_KERNEL void typedef_args(fptr out, ciptr in, const pair_t p, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) out[i] = p.a * (float)in[i] + (float)p.b;
}

/* A parameter list split by comments and line continuations. */
// clang-format off
CLS_KERNEL void /* the kernel */ split_params(
    CLS_GLOBAL /* where */ int * /* a pointer */ out, // the output
    int /* a value
           over two lines */ v, unsigned \
n) {
  unsigned i = cls_global_id(0);
  if (i < n) out[i] = v * (int)i;
}
// clang-format on
