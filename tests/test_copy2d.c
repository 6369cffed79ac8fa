/* Pitched memory and 2-D and 3-D copies and sets (clsMallocPitch,
 * clsMalloc3D, clsMemcpy2D, clsMemset2D, clsMemcpy3D and their async
 * forms), with odd widths and pitches, every pairing of host (pageable
 * and pinned) and device memory, and bad input. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

enum { W = 37, H = 13, HP = 41, HP2 = 53 };

static unsigned char pattern(size_t r, size_t c) {
  return (unsigned char)(r * 31 + c * 7 + 1);
}

/* A host matrix of H rows, `pitch` apart: the pattern in the first W
 * bytes of each row, `pad` after. */
static void fill_rows(unsigned char *h, size_t pitch, unsigned char pad) {
  memset(h, pad, pitch * H);
  for (size_t r = 0; r < H; ++r)
    for (size_t c = 0; c < W; ++c) h[r * pitch + c] = pattern(r, c);
}

static void expect_rows(const unsigned char *h, size_t pitch, unsigned char pad,
                        const char *what) {
  for (size_t r = 0; r < H; ++r)
    for (size_t c = 0; c < pitch; ++c) {
      unsigned char want = c < W ? pattern(r, c) : pad;
      if (r + 1 == H && c >= W) break; /* past the last row's end */
      ck_assert_msg(h[r * pitch + c] == want, "%s: [%zu][%zu] = %u, not %u",
                    what, r, c, h[r * pitch + c], want);
    }
}

/* Row: cudaMallocPitch gives a pitch of at least the width; rows are
 * usable up to it. */
START_TEST(malloc_pitch) {
  void *d = NULL;
  size_t pitch = 0;
  CK_OK(clsMallocPitch(&d, &pitch, W, H));
  ck_assert_ptr_nonnull(d);
  ck_assert_uint_ge(pitch, W);
  CK_OK(clsMemset(d, 0, pitch * H));
  CK_OK(clsFree(d));
  clsPitchedPtr pp;
  CK_OK(clsMalloc3D(&pp, make_clsExtent(W, H, 3)));
  ck_assert_ptr_nonnull(pp.ptr);
  ck_assert_uint_ge(pp.pitch, W);
  ck_assert_uint_eq(pp.xsize, W);
  ck_assert_uint_eq(pp.ysize, H);
  CK_OK(clsMemset(pp.ptr, 0, pp.pitch * H * 3));
  CK_OK(clsFree(pp.ptr));
}
END_TEST

/* Host -> device -> device -> host, with an odd host pitch on each side,
 * synchronous and on a stream, from pageable and from pinned memory; the
 * bytes between the rows are left alone. */
static void roundtrip(int pinned, int async) {
  const char *what = pinned ? (async ? "pinned async" : "pinned")
                            : (async ? "pageable async" : "pageable");
  unsigned char *src, *dst;
  if (pinned) {
    CK_OK(clsMallocHost((void **)&src, HP * H));
    CK_OK(clsMallocHost((void **)&dst, HP2 * H));
  } else {
    src = malloc(HP * H);
    dst = malloc(HP2 * H);
  }
  fill_rows(src, HP, 0xee);
  memset(dst, 0xcc, HP2 * H);
  void *d1, *d2;
  size_t p1, p2;
  CK_OK(clsMallocPitch(&d1, &p1, W, H));
  CK_OK(clsMallocPitch(&d2, &p2, W + 3, H));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  if (async) {
    CK_OK(clsMemcpy2DAsync(d1, p1, src, HP, W, H, clsMemcpyHostToDevice, s));
    CK_OK(clsMemcpy2DAsync(d2, p2, d1, p1, W, H, clsMemcpyDeviceToDevice, s));
    CK_OK(clsMemcpy2DAsync(dst, HP2, d2, p2, W, H, clsMemcpyDefault, s));
    CK_OK(clsStreamSynchronize(s));
  } else {
    CK_OK(clsMemcpy2D(d1, p1, src, HP, W, H, clsMemcpyHostToDevice));
    CK_OK(clsMemcpy2D(d2, p2, d1, p1, W, H, clsMemcpyDefault));
    CK_OK(clsMemcpy2D(dst, HP2, d2, p2, W, H, clsMemcpyDeviceToHost));
  }
  expect_rows(dst, HP2, 0xcc, what);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d1));
  CK_OK(clsFree(d2));
  if (pinned) {
    CK_OK(clsFreeHost(src));
    CK_OK(clsFreeHost(dst));
  } else {
    free(src);
    free(dst);
  }
}

START_TEST(copy2d_roundtrip) {
  for (int pinned = 0; pinned < 2; ++pinned)
    for (int async = 0; async < 2; ++async) roundtrip(pinned, async);
}
END_TEST

/* Host to host, both pitches, both calls. */
START_TEST(copy2d_host_to_host) {
  unsigned char *a = malloc(HP * H), *b = malloc(HP2 * H), *pin;
  CK_OK(clsMallocHost((void **)&pin, HP2 * H));
  fill_rows(a, HP, 0x01);
  memset(b, 0x5a, HP2 * H);
  CK_OK(clsMemcpy2D(b, HP2, a, HP, W, H, clsMemcpyHostToHost));
  expect_rows(b, HP2, 0x5a, "host to host");
  memset(pin, 0x5a, HP2 * H);
  CK_OK(clsMemcpy2DAsync(pin, HP2, a, HP, W, H, clsMemcpyDefault, NULL));
  expect_rows(pin, HP2, 0x5a, "pageable to pinned, legacy stream");
  free(a);
  free(b);
  CK_OK(clsFreeHost(pin));
}
END_TEST

/* Memset2D fills the first `width` bytes of each row and nothing else. */
START_TEST(memset2d_rows) {
  void *d;
  size_t pitch;
  CK_OK(clsMallocPitch(&d, &pitch, W, H));
  CK_OK(clsMemset(d, 0x11, pitch * H));
  CK_OK(clsMemset2D(d, pitch, 0x7f, 29, H));
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsMemset2DAsync((char *)d + pitch, pitch, 0x22, 3, 2, s));
  CK_OK(clsStreamSynchronize(s));
  unsigned char *h = malloc(pitch * H);
  CK_OK(clsMemcpy(h, d, pitch * H, clsMemcpyDeviceToHost));
  for (size_t r = 0; r < H; ++r)
    for (size_t c = 0; c < pitch; ++c) {
      unsigned char want = (r == 1 || r == 2) && c < 3 ? 0x22
                           : c < 29                    ? 0x7f
                                                       : 0x11;
      ck_assert_msg(h[r * pitch + c] == want, "[%zu][%zu] = %u, not %u", r, c,
                    h[r * pitch + c], want);
    }
  free(h);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(d));
}
END_TEST

/* A box of a host volume copied into a device volume at an offset, and
 * the whole volume read back. */
START_TEST(copy3d_box) {
  enum { X = 24, Y = 5, Z = 3, HX = 27 };
  unsigned char host[HX * Y * Z], back[X * Y * Z];
  for (size_t i = 0; i < sizeof host; ++i)
    host[i] = (unsigned char)(i * 13 + 5);
  clsPitchedPtr dv;
  CK_OK(clsMalloc3D(&dv, make_clsExtent(X, Y, Z)));
  CK_OK(clsMemset(dv.ptr, 0, dv.pitch * Y * Z));
  clsMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_clsPitchedPtr(host, HX, HX, Y);
  p.srcPos = make_clsPos(1, 1, 0);
  p.dstPtr = dv;
  p.dstPos = make_clsPos(3, 2, 1);
  p.extent = make_clsExtent(10, 3, 2);
  p.kind = clsMemcpyHostToDevice;
  CK_OK(clsMemcpy3D(&p));
  /* Read it all back, on a stream, into a tightly packed volume. */
  clsMemcpy3DParms q;
  memset(&q, 0, sizeof q);
  q.srcPtr = dv;
  q.dstPtr = make_clsPitchedPtr(back, X, X, Y);
  q.extent = make_clsExtent(X, Y, Z);
  q.kind = clsMemcpyDefault;
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsMemcpy3DAsync(&q, s));
  CK_OK(clsStreamSynchronize(s));
  for (size_t z = 0; z < Z; ++z)
    for (size_t y = 0; y < Y; ++y)
      for (size_t x = 0; x < X; ++x) {
        int in = z >= 1 && z < 3 && y >= 2 && y < 5 && x >= 3 && x < 13;
        unsigned char want =
            in ? host[(z - 1) * HX * Y + (y - 2 + 1) * HX + (x - 3 + 1)] : 0;
        ck_assert_msg(back[(z * Y + y) * X + x] == want,
                      "[%zu][%zu][%zu] = %u, not %u", z, y, x,
                      back[(z * Y + y) * X + x], want);
      }
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsFree(dv.ptr));
}
END_TEST

/* Rows (measured on the H200): width above a pitch is InvalidPitchValue
 * (12) for copies, InvalidValue for sets; rows running past
 * the allocation, NULL pointers, arrays and boxes wider than the pitch
 * are refused; nothing at all to copy is Success. */
START_TEST(bad_input) {
  void *d;
  size_t pitch;
  unsigned char h[4096];
  CK_OK(clsMallocPitch(&d, &pitch, W, H));
  CK_CLS(clsMemcpy2D(d, pitch, h, 8, 9, 2, clsMemcpyHostToDevice),
         clsErrorInvalidPitchValue);
  CK_CLS(clsMemcpy2D(d, 8, h, 64, 9, 2, clsMemcpyHostToDevice),
         clsErrorInvalidPitchValue);
  CK_LAST(clsErrorInvalidPitchValue);
  CK_CLS(clsMemset2D(d, 8, 0, 9, 2), clsErrorInvalidValue); /* not 12 */
  CK_CLS(clsMemcpy2D(d, pitch, h, 64, W, H + 1, clsMemcpyHostToDevice),
         clsErrorInvalidValue);
  CK_CLS(clsMemset2D(d, pitch, 0, W, H + 1), clsErrorInvalidValue);
  CK_CLS(clsMemcpy2D(NULL, pitch, h, 64, W, 1, clsMemcpyHostToDevice),
         clsErrorInvalidValue);
  CK_CLS(clsMemcpy2D(d, pitch, h, 64, W, 1, (clsMemcpyKind)7),
         clsErrorInvalidMemcpyDirection);
  CK_CLS(clsMemcpy2D(h, 64, h + 2048, 64, 8, 2, clsMemcpyHostToDevice),
         clsErrorInvalidValue); /* "device" side not in an allocation */
  CK_OK(clsMemcpy2D(d, pitch, h, 64, 0, H, clsMemcpyHostToDevice));
  CK_OK(clsMemcpy2D(d, pitch, h, 64, W, 0, clsMemcpyHostToDevice));
  CK_OK(clsMemset2D(d, pitch, 0, 0, 0));
  CK_CLS(clsMallocPitch(NULL, &pitch, 8, 8), clsErrorInvalidValue);
  CK_CLS(clsMallocPitch(&d, NULL, 8, 8), clsErrorInvalidValue);
  CK_CLS(clsMalloc3D(NULL, make_clsExtent(1, 1, 1)), clsErrorInvalidValue);
  clsMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  CK_CLS(clsMemcpy3D(NULL), clsErrorInvalidValue);
  p.srcPtr = make_clsPitchedPtr(h, 64, 64, 4);
  p.dstPtr = make_clsPitchedPtr(d, pitch, W, H);
  p.extent = make_clsExtent(W, 2, 1);
  p.kind = clsMemcpyHostToDevice;
  CK_OK(clsMemcpy3D(&p));
  p.dstPos = make_clsPos(pitch - 2, 0, 0); /* the box passes the pitch */
  CK_CLS(clsMemcpy3D(&p), clsErrorInvalidValue);
  p.dstPos = make_clsPos(0, 0, 0);
  p.srcArray = h;
  CK_CLS(clsMemcpy3D(&p), clsErrorNotSupported);
  p.srcArray = NULL;
  p.srcPtr.ptr = NULL;
  CK_CLS(clsMemcpy3DAsync(&p, NULL), clsErrorInvalidValue);
  p.srcPtr.ptr = h;
  p.extent = make_clsExtent(W, 3, 2); /* two slices, but ysize 4 < 3 + 2 */
  p.srcPos = make_clsPos(0, 2, 0);
  CK_CLS(clsMemcpy3D(&p), clsErrorInvalidValue);
  CK_OK(clsFree(d));
}
END_TEST

int main(void) {
  Suite *s = suite_create("copy2d");
  TCase *tc = tcase_timed("copy2d", 120);
  tcase_add_test(tc, malloc_pitch);
  tcase_add_test(tc, copy2d_roundtrip);
  tcase_add_test(tc, copy2d_host_to_host);
  tcase_add_test(tc, memset2d_rows);
  tcase_add_test(tc, copy3d_box);
  tcase_add_test(tc, bad_input);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
