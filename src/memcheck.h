/* Memory: the checks of a pointer and of a copy's sides (memcheck.c),
 * below the copies (memory.c) and the copy nodes (graph.c). */
#ifndef CLSTREAM_MEMCHECK_H
#define CLSTREAM_MEMCHECK_H

#include "internal.h"

/* Where a pointer lies: which allocation kind, how many bytes are left in
 * it from there, and its device. */
typedef struct cls__where {
  enum cls__mem_kind kind;
  size_t avail;
  int dev;
} cls__where;

/* Where p lies (kind CLS__MEM_NONE: in no allocation). */
cls__where cls__locate(const void *p);
/* Checks that [p, p+n), located at w, lies in a device-accessible
 * allocation (InvalidValue, naming the pointer as `what`). */
clsError_t cls__check_dev_range(const cls__where *w, const void *p, size_t n,
                                const char *what);
/* Whether memory of device `owner` can be used by a command of `dev`. */
int cls__reaches(int owner, int dev);
/* Checks that device memory at w can be used by a command of `dev`
 * (NotSupported, naming the pointer as `what`). */
clsError_t cls__check_reach(const cls__where *w, const void *p, int dev,
                            const char *what);
/* Checks a copy's pointers and range as clsMemcpy does (a side the kind
 * names as device memory must lie in a device allocation, a host side in
 * a known allocation must hold n bytes), locates both sides in *dw and
 * *sw and resolves clsMemcpyDefault into *out; *pageable_dst and
 * *pageable_src say which host sides are pageable memory, in no
 * allocation. */
clsError_t cls__copy_check(void *dst, const void *src, size_t n,
                           clsMemcpyKind kind, clsMemcpyKind *out,
                           cls__where *dw, cls__where *sw, int *pageable_dst,
                           int *pageable_src);

#endif /* CLSTREAM_MEMCHECK_H */
