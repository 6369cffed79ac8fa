/* OpenCL backend: 2-D copies and fills (clsMemcpy2D, clsMemset2D and the
 * 3-D copies the front cuts into slices), in a stream's order.
 *
 * Rows that touch end to end are one command; otherwise each row is a
 * command of copy.c's (so every pairing of host, pinned and device memory
 * takes the command copy.c picks for it), all but the last enqueued
 * without waiting, the last one returning as `mode` says: the stream is
 * in order, so the last row is done only after the others.  A device
 * whose memory is buffers could take the whole rectangle in one
 * clEnqueueCopyBufferRect; that is not done yet (the row loop costs one
 * enqueue per row). */
#include "command.h"

/* The mode of a row before the last: it need not block. */
static int cls__row_mode(int mode) {
  int how = mode & CLS__COPY_HOW;
  return (mode & ~CLS__COPY_HOW) |
         (how == CLS__COPY_BLOCKING ? CLS__COPY_ASYNC : how);
}

clsError_t cls__b_memcpy2d(cls__bstream *s, void *dst, size_t dpitch,
                           const void *src, size_t spitch, size_t width,
                           size_t height, clsMemcpyKind kind, int mode) {
  if (dpitch == width && spitch == width)
    return cls__b_memcpy(s, dst, src, width * height, kind, mode);
  clsError_t e = clsSuccess;
  for (size_t r = 0; r < height && e == clsSuccess; ++r)
    e = cls__b_memcpy(s, (char *)dst + r * dpitch,
                      (const char *)src + r * spitch, width, kind,
                      r + 1 == height ? mode : cls__row_mode(mode));
  return e;
}

clsError_t cls__b_memset2d(cls__bstream *s, void *dst, size_t pitch, int value,
                           size_t width, size_t height, int mode) {
  if (pitch == width) return cls__b_memset(s, dst, value, width * height, mode);
  clsError_t e = clsSuccess;
  for (size_t r = 0; r < height && e == clsSuccess; ++r)
    e = cls__b_memset(s, (char *)dst + r * pitch, value, width,
                      r + 1 == height ? mode : cls__row_mode(mode));
  return e;
}
