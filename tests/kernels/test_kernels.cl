/* Kernels that only the tests launch: argument passing (scalars of every
 * size, vector types, pointers at offsets), 3-D indexing and local memory. */

/* One scalar of each size, written out widened to long. */
CLS_KERNEL void scalars(CLS_GLOBAL long *out, char c, short s, int i, long l,
                        float f, unsigned u, unsigned char b) {
  if (cls_global_id(0) == 0) {
    out[0] = c;
    out[1] = s;
    out[2] = i;
    out[3] = l;
    out[4] = (long)(f * 4.0f);
    out[5] = (long)u;
    out[6] = b;
  }
}

/* Vector parameters passed by value (16 bytes each). */
CLS_KERNEL void vec4(CLS_GLOBAL int *oi, CLS_GLOBAL float *of, int4 vi,
                     float4 vf, int tail) {
  if (cls_global_id(0) == 0) {
    oi[0] = vi.x;
    oi[1] = vi.y;
    oi[2] = vi.z;
    oi[3] = vi.w;
    oi[4] = tail;
    of[0] = vf.x;
    of[1] = vf.y;
    of[2] = vf.z;
    of[3] = vf.w;
  }
}

/* out[linear global index] = that index + 1, for a w x h x d grid of
 * work-items; bad[0] counts items whose global id differs from
 * group * local size + local id.  info gets the sizes seen by item 0. */
CLS_KERNEL void ids3d(CLS_GLOBAL unsigned *out, CLS_GLOBAL unsigned *bad,
                      CLS_GLOBAL unsigned *info, unsigned w, unsigned h) {
  unsigned x = cls_global_id(0), y = cls_global_id(1), z = cls_global_id(2);
  unsigned ok = 1;
  if (x != cls_group_id(0) * cls_local_size(0) + cls_local_id(0)) ok = 0;
  if (y != cls_group_id(1) * cls_local_size(1) + cls_local_id(1)) ok = 0;
  if (z != cls_group_id(2) * cls_local_size(2) + cls_local_id(2)) ok = 0;
  out[(z * h + y) * w + x] = (z * h + y) * w + x + 1u;
  if (!ok) bad[(z * h + y) * w + x] = 1u;
  if (x == 0 && y == 0 && z == 0) {
    info[0] = cls_num_groups(0);
    info[1] = cls_num_groups(1);
    info[2] = cls_num_groups(2);
    info[3] = cls_local_size(0);
    info[4] = cls_local_size(1);
    info[5] = cls_local_size(2);
  }
}

/* Reverses each block of 64 ints through local memory. */
CLS_KERNEL void reverse64(CLS_GLOBAL int *t) {
  CLS_LOCAL int tmp[64];
  unsigned l = cls_local_id(0);
  unsigned base = cls_group_id(0) * 64u;
  tmp[l] = t[base + l];
  cls_barrier();
  t[base + l] = tmp[63u - l];
}
