/* Checks that the TSan options the tests run with keep the runtime's
 * __tls_get_addr hook from guessing a dynamic-TLS block's bounds
 * (cmake/ClsSanitize.cmake, docs/testing.md).
 *
 * The hook of GCC 12's runtime takes a block whose address is 16 bytes
 * past a 4 KiB boundary for one with a glibc 2.19 header in front of it,
 * and reads {size, start} from the 16 bytes before it: the neighbouring
 * heap block.  A CI run died that way, by chance, in refs_stress.  Here
 * the chance is made certain: a thread mallocs 16-byte blocks until one
 * lies on a 4 KiB boundary with the next one right after it, writes a
 * heap-looking size and a small start into the first, frees the second
 * (the allocator hands it out again next), and then touches the thread
 * locals of a dlopened library, whose 16-byte block glibc mallocs and so
 * gets that address.  With the hook on, the runtime resets the shadow of
 * [start, start + size), asks the kernel for some 0x1ec0... bytes, and
 * exits 66 with "ThreadSanitizer failed to allocate ... (errno: 12)";
 * with intercept_tls_get_addr=0 the program runs to the end.
 *
 * Exit 0: the block was placed and nothing failed; 77 (skipped): the
 * allocator placed no such pair (another runtime), so nothing was shown;
 * other: the library could not be loaded. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef TLS_BLOCK_LIBRARY
#error "TLS_BLOCK_LIBRARY must name the library of tls_block.c"
#endif

enum { MAX_BLOCKS = 4096, SKIPPED = 77 };

static long *(*tls_block_address)(void);
static uintptr_t *blocks[MAX_BLOCKS];

/* The thread: places the block and touches the library's thread locals.
 * Returns 1 when the block was placed, 0 when no pair was found. */
static void *touch(void *unused) {
  (void)unused;
  int pair = -1;
  for (int i = 0; i < MAX_BLOCKS && pair < 0; ++i) {
    blocks[i] = malloc(16);
    if (!blocks[i]) break;
    if (i > 0 && ((uintptr_t)blocks[i - 1] & 4095) == 0 &&
        (uintptr_t)blocks[i] == (uintptr_t)blocks[i - 1] + 16)
      pair = i - 1;
  }
  if (pair < 0) return (void *)0;
  /* What the hook would read as a header: a size ending in the runtime's
   * heap (0x7b00...) and a start in the low program range. */
  blocks[pair][0] = (uintptr_t)0x7b0000000000u;
  blocks[pair][1] = (uintptr_t)0x10000u;
  free(blocks[pair + 1]);
  blocks[pair + 1] = NULL;
  long *words = tls_block_address();
  words[0] = 1;
  printf("tls_guess: the thread's block is at %p, the fake header at %p\n",
         (void *)words, (void *)blocks[pair]);
  return (void *)1;
}

int main(void) {
  void *lib = dlopen(TLS_BLOCK_LIBRARY, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "tls_guess: %s\n", dlerror());
    return 2;
  }
  *(void **)&tls_block_address = dlsym(lib, "tls_block_address");
  if (!tls_block_address) {
    fprintf(stderr, "tls_guess: %s\n", dlerror());
    return 2;
  }
  pthread_t thread;
  void *placed = NULL;
  if (pthread_create(&thread, NULL, touch, NULL) != 0 ||
      pthread_join(thread, &placed) != 0)
    return 2;
  for (int i = 0; i < MAX_BLOCKS; ++i) free(blocks[i]);
  if (!placed) {
    puts("tls_guess: no 16-byte block on a 4 KiB boundary: skipped");
    return SKIPPED;
  }
  puts("tls_guess: the runtime did not guess the block's bounds");
  return 0;
}
