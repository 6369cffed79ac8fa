/* Kernels of the stream-ordered allocator's tests (tests/test_pool.c). */

/* Reads t[0..n) and, where an element is not v, stores 1 in bad[0] and
 * the value seen in bad[1].  Each work-item reads its elements twice, a
 * short busy loop apart, so a writer that runs alongside is seen too. */
CLS_KERNEL void pool_check(CLS_GLOBAL const int *t, int v, unsigned n,
                           CLS_GLOBAL int *bad) {
  unsigned i = cls_global_id(0);
  if (i >= n) return;
  int a = t[i];
  unsigned x = i + 1u;
  for (unsigned k = 0; k < 64u; ++k) x = x * 1664525u + 1013904223u;
  int b = t[i + (x & 0u)];
  if (a != v || b != v) {
    bad[0] = 1;
    bad[1] = a != v ? a : b;
  }
}
