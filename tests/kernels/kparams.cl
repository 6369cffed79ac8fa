/* Kernel parameters (issue 25 points 4 and 5, issue 26 point 5):
 * dynamic shared memory, structs passed by value, pointers at any offset.
 * Every kernel does nothing when its count is 0, so that the kernel sweep
 * (all parameters zero, no dynamic shared memory) runs it harmlessly. */

/* One block's sum of in[0, n), in a dynamic shared array of one float per
 * thread (sharedMem = blockDim.x * sizeof(float)); the block size must be
 * a power of two. */
CLS_KERNEL void block_sum(CLS_GLOBAL const float *in, CLS_GLOBAL float *out,
                          unsigned n) {
  CLS_DYNAMIC_SHARED(float, part);
  if (n == 0) return;
  unsigned t = cls_local_id(0), i = cls_global_id(0);
  part[t] = i < n ? in[i] : 0.0f;
  cls_barrier();
  for (unsigned s = cls_local_size(0) / 2; s > 0; s /= 2) {
    if (t < s) part[t] += part[t + s];
    cls_barrier();
  }
  if (t == 0) out[cls_group_id(0)] = part[0];
}

/* out (h x w) = transpose of in (w x h), through a tile x tile array in
 * dynamic shared memory padded to tile + 1 columns (sharedMem =
 * tile * (tile + 1) * sizeof(float)); blocks are tile x tile. */
CLS_KERNEL void transpose(CLS_GLOBAL const float *in, CLS_GLOBAL float *out,
                          unsigned w, unsigned h) {
  CLS_DYNAMIC_SHARED(float, tile);
  if (w == 0 || h == 0) return;
  unsigned ts = cls_local_size(0);
  unsigned tx = cls_local_id(0), ty = cls_local_id(1);
  unsigned x = cls_group_id(0) * ts + tx, y = cls_group_id(1) * ts + ty;
  if (x < w && y < h) tile[ty * (ts + 1) + tx] = in[y * w + x];
  cls_barrier();
  x = cls_group_id(1) * ts + tx;
  y = cls_group_id(0) * ts + ty;
  if (x < h && y < w) out[y * h + x] = tile[tx * (ts + 1) + ty];
}

/* Structs by value: nesting, arrays inside, padding. */
typedef struct kp_point {
  float x, y;
} kp_point;

struct kp_inner {
  char c; /* 7 bytes of padding follow */
  long v;
};

typedef struct kp_params {
  int n;
  struct kp_inner in; /* at 8 */
  kp_point p[3];      /* at 24 */
  short tag;          /* at 48, then padding to 56 */
} kp_params;

/* Writes every field of p (and of the small q) to out, as longs. */
CLS_KERNEL void take_params(kp_params p, CLS_GLOBAL long *out, kp_point q) {
  if (p.n == 0) return;
  out[0] = p.n;
  out[1] = p.in.c;
  out[2] = p.in.v;
  for (int i = 0; i < 3; i++) {
    out[3 + 2 * i] = (long)p.p[i].x;
    out[4 + 2 * i] = (long)p.p[i].y;
  }
  out[9] = p.tag;
  out[10] = (long)q.x;
  out[11] = (long)q.y;
}

/* Adds 1 to p[0, n) for each element size, so that a pointer at an odd
 * offset into an allocation shows whether exactly its elements moved. */
CLS_KERNEL void bump_char(CLS_GLOBAL char *p, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) p[i] += 1;
}
CLS_KERNEL void bump_short(CLS_GLOBAL short *p, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) p[i] += 1;
}
CLS_KERNEL void bump_int(CLS_GLOBAL int *p, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) p[i] += 1;
}
CLS_KERNEL void bump_long(CLS_GLOBAL long *p, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) p[i] += 1;
}

/* dst[i] = src[i] * k from two interior pointers, one of them const. */
CLS_KERNEL void scale_copy(CLS_GLOBAL int *restrict dst,
                           CLS_GLOBAL const int *restrict src, int k,
                           unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) dst[i] = src[i] * k;
}
