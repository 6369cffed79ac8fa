/* Test helper: a host range that is not all mapped memory (support for
 * the clsHostRegister range checks of test_hostkern and test_badinput). */
#ifndef CLS_TEST_UNMAPPED_H
#define CLS_TEST_UNMAPPED_H

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* ASan's and TSan's allocators keep gigabytes mapped past any block. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLS_TEST_SANITIZER_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CLS_TEST_SANITIZER_HEAP 1
#endif
#endif

/* A range that is not all mapped memory, for clsHostRegister's check:
 * about 21 GB from a 4-byte malloc, as CUDA was measured refusing; under
 * a sanitizer's allocator, two pages of which the second has been
 * unmapped. */
static void *cls_test_unmapped_range(size_t *bytes, void **undo) {
#ifdef CLS_TEST_SANITIZER_HEAP
  long pg = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  munmap(m + pg, (size_t)pg);
  *bytes = 2 * (size_t)pg;
  *undo = m;
  return m;
#else
  *bytes = (size_t)21 << 30;
  *undo = malloc(4);
  return *undo;
#endif
}

static void cls_test_unmapped_free(void *undo) {
#ifdef CLS_TEST_SANITIZER_HEAP
  munmap(undo, (size_t)sysconf(_SC_PAGESIZE));
#else
  free(undo);
#endif
}

#endif /* CLS_TEST_UNMAPPED_H */
