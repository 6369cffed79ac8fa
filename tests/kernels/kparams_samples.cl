/* Kernels of the CUDA-sample-style programs of issue 25 point 9
 * (tests/cuda_names/shared_reduction.c, param_struct.c,
 * constant_table.c).  Each does nothing when its count is 0, so that the
 * kernel sweep's all-zero launches are harmless. */

/* reduction (CUDA samples' reduce2 shape): each block sums blockDim.x * 2
 * elements through `extern __shared__ float sdata[]`, sized at launch. */
CLS_KERNEL void reduce_shared(CLS_GLOBAL const float *g_in,
                              CLS_GLOBAL float *g_out, unsigned n) {
  CLS_DYNAMIC_SHARED(float, sdata);
  if (n == 0) return;
  unsigned tid = cls_local_id(0);
  unsigned i = cls_group_id(0) * (cls_local_size(0) * 2) + tid;
  float sum = i < n ? g_in[i] : 0.0f;
  if (i + cls_local_size(0) < n) sum += g_in[i + cls_local_size(0)];
  sdata[tid] = sum;
  cls_barrier();
  for (unsigned s = cls_local_size(0) / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    cls_barrier();
  }
  if (tid == 0) g_out[cls_group_id(0)] = sdata[0];
}

/* A kernel taking its settings as one struct by value, as SAXPY-style
 * samples with a parameter block do. */
typedef struct saxpy_params {
  float a;
  unsigned n;
  int stride;     /* elements between two used ones */
  float clamp[2]; /* lower and upper bound of the result */
} saxpy_params;

CLS_KERNEL void saxpy_struct(saxpy_params p, CLS_GLOBAL const float *x,
                             CLS_GLOBAL float *y) {
  unsigned i = cls_global_id(0);
  if (i >= p.n) return;
  unsigned k = i * (unsigned)p.stride;
  float v = p.a * x[k] + y[k];
  y[k] = v < p.clamp[0] ? p.clamp[0] : (v > p.clamp[1] ? p.clamp[1] : v);
}

/* A __constant__ filter of taps set by cudaMemcpyToSymbol: out[i] =
 * sum over t of taps[t] * in[i + t]. */
CLS_CONSTANT(float, filter_taps[8]);
CLS_CONSTANT(unsigned, filter_ntaps) = 0;

CLS_KERNEL void fir(CLS_GLOBAL const float *in, CLS_GLOBAL float *out,
                    unsigned n) {
  unsigned i = cls_global_id(0);
  if (i >= n) return;
  float acc = 0.0f;
  for (unsigned t = 0; t < filter_ntaps && t < 8; t++)
    acc += filter_taps[t] * in[i + t];
  out[i] = acc;
}
