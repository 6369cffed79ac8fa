/* OpenCL backend: the stream-ordered allocator's pool (clsMallocAsync,
 * clsFreeAsync), one per device, owned by the library.
 *
 * A free records, as an event record would, the point its stream has
 * reached (for the legacy stream, with the blocking streams' work it waits
 * for).  The block then waits in the pool with that record and a reference
 * to the stream's queue.  An allocation on stream T may take a block
 *  - freed in T itself: T's later work is ordered after the free's point
 *    by the in-order queue, so no wait is needed, even if the point has
 *    not been reached yet;
 *  - freed in any stream, once the free's point has been reached (its
 *    record completed or failed): no work from before the free still runs.
 * Nothing else: the pool never adds a hidden wait between streams, and
 * never hands out memory that unfinished work may still use.
 *
 * Blocks are grouped by size class; a block is at least the size asked for
 * and less than twice it.  Free blocks beyond CLS__POOL_KEEP bytes per
 * device go back to the driver once their point has been reached.  The
 * pool's lock is a leaf: under it the pool only queries event status and
 * releases events and queues (never blocking calls). */
#include "command.h"

#include <pthread.h>
#include <stdlib.h>

enum {
  CLS__POOL_MIN_SHIFT = 8,  /* 256 bytes: CUDA's allocation alignment */
  CLS__POOL_BIG_SHIFT = 20, /* above 1 MiB, sizes round to 1 MiB */
  CLS__POOL_BUCKETS = 64,
  CLS__POOL_SCAN = 32 /* blocks looked at per allocation */
};
#define CLS__POOL_KEEP ((size_t)64 << 20)

typedef struct cls__block {
  void *p;
  size_t cap;         /* bytes the block holds */
  cls__btoken *freed; /* the free's point; NULL once reached */
  cl_command_queue q; /* the freeing stream's queue, retained */
  struct cls__block *next;
} cls__block;

typedef struct cls__pool {
  pthread_mutex_t lock;
  cls__block *bucket[CLS__POOL_BUCKETS]; /* newest first */
  size_t cached;                         /* bytes in free blocks */
} cls__pool;

static pthread_once_t cls__pools_once = PTHREAD_ONCE_INIT;
static cls__pool *cls__pools;

static void cls__pools_init(void) {
  int n = cls__b_device_count();
  cls__pools = calloc(n > 0 ? (size_t)n : 1, sizeof *cls__pools);
  for (int i = 0; cls__pools && i < n; ++i)
    pthread_mutex_init(&cls__pools[i].lock, NULL);
}

static cls__pool *cls__pool_of(int dev) {
  pthread_once(&cls__pools_once, cls__pools_init);
  return cls__pools ? &cls__pools[dev] : NULL;
}

static unsigned cls__log2(size_t v) {
  unsigned k = 0;
  while (v >>= 1) ++k;
  return k;
}

/* The size of the block the pool makes for a request of n bytes. */
static size_t cls__pool_cap(size_t n) {
  const size_t big = (size_t)1 << CLS__POOL_BIG_SHIFT;
  if (n > big) return n > SIZE_MAX - (big - 1) ? n : (n + big - 1) & ~(big - 1);
  size_t c = (size_t)1 << CLS__POOL_MIN_SHIFT;
  while (c < n) c <<= 1;
  return c;
}

/* Whether the free's point has been reached (a failed command counts: it
 * no longer runs).  Under the pool's lock. */
static int cls__block_reached(cls__block *b) {
  if (!b->freed) return 1;
  if (cls__b_token_status(b->freed) == clsErrorNotReady) return 0;
  cls__b_token_release(b->freed);
  b->freed = NULL;
  return 1;
}

/* Drops what a block holds besides its memory (under the lock or not). */
static void cls__block_forget(cls__block *b) {
  cls__b_token_release(b->freed);
  if (b->q) clReleaseCommandQueue(b->q);
  b->freed = NULL;
  b->q = NULL;
}

/* Unlinks up to `want` bytes (all, for SIZE_MAX) of free blocks whose
 * point has been reached; returns them as a list for the caller to free
 * outside the lock.  Under the lock. */
static cls__block *cls__pool_trim(cls__pool *pl, size_t want) {
  CLS__ASSERT_MUTEX_HELD(&pl->lock);
  cls__block *out = NULL;
  size_t got = 0;
  for (int k = CLS__POOL_BUCKETS - 1; k >= 0 && got < want; --k) {
    for (cls__block **at = &pl->bucket[k]; *at && got < want;) {
      cls__block *b = *at;
      if (!cls__block_reached(b)) {
        at = &b->next;
        continue;
      }
      *at = b->next;
      pl->cached -= b->cap;
      got += b->cap;
      b->next = out;
      out = b;
    }
  }
  return out;
}

static void cls__free_blocks(int dev, cls__block *b) {
  while (b) {
    cls__block *next = b->next;
    cls__block_forget(b);
    cls__b_free(dev, b->p);
    free(b);
    b = next;
  }
}

/* Puts a block into its bucket and gives back what exceeds the pool's
 * keep. */
static void cls__pool_put(int dev, cls__pool *pl, cls__block *b) {
  unsigned k = cls__log2(b->cap);
  pthread_mutex_lock(&pl->lock);
  b->next = pl->bucket[k];
  pl->bucket[k] = b;
  pl->cached += b->cap;
  cls__block *extra = NULL;
  if (pl->cached > CLS__POOL_KEEP)
    extra = cls__pool_trim(pl, pl->cached - CLS__POOL_KEEP);
  pthread_mutex_unlock(&pl->lock);
  cls__free_blocks(dev, extra);
}

clsError_t cls__b_malloc_async(cls__bstream *s, size_t size, void **out) {
  int dev = s->dev->index;
  cls__pool *pl = cls__pool_of(dev);
  if (!pl) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  size_t need = cls__pool_cap(size);
  unsigned k = cls__log2(need);
  cls__block *hit = NULL;
  pthread_mutex_lock(&pl->lock);
  int looked = 0;
  for (cls__block **at = &pl->bucket[k]; *at && looked < CLS__POOL_SCAN;
       at = &(*at)->next, ++looked) {
    cls__block *b = *at;
    if (b->cap < need) continue; /* a smaller clsMalloc block */
    /* The same queue orders this stream's later work after the free. */
    if (b->q == s->q || cls__block_reached(b)) {
      *at = b->next;
      pl->cached -= b->cap;
      hit = b;
      break;
    }
  }
  pthread_mutex_unlock(&pl->lock);
  if (hit) {
    *out = hit->p;
    cls__block_forget(hit);
    free(hit);
    return clsSuccess;
  }
  clsError_t e = cls__b_malloc(dev, need, out);
  if (e == clsErrorMemoryAllocation) {
    /* Give the driver back whatever the pool may, and try once more. */
    pthread_mutex_lock(&pl->lock);
    cls__block *all = cls__pool_trim(pl, SIZE_MAX);
    pthread_mutex_unlock(&pl->lock);
    if (all) {
      cls__free_blocks(dev, all);
      e = cls__b_malloc(dev, need, out);
    }
  }
  return e;
}

clsError_t cls__b_free_async(cls__bstream *s, int dev, void *p, size_t size,
                             int kind) {
  cls__pool *pl = cls__pool_of(dev);
  cls__block *b = calloc(1, sizeof *b);
  if (!pl || !b) {
    free(b);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  b->p = p;
  b->cap = kind == CLS__MEM_POOL ? cls__pool_cap(size) : size;
  /* What an event recorded now would capture, without timing: nothing on
   * an idle stream, else the newest command or a marker after it. */
  clsError_t e = cls__ocl_record(s, 0, &b->freed);
  if (e != clsSuccess) {
    free(b);
    return e;
  }
  clRetainCommandQueue(s->q);
  b->q = s->q;
  cls__pool_put(dev, pl, b);
  return clsSuccess;
}

void cls__b_pool_free_now(int dev, void *p, size_t size) {
  cls__pool *pl = cls__pool_of(dev);
  cls__block *b = pl ? calloc(1, sizeof *b) : NULL;
  if (!b) {
    cls__b_free(dev, p); /* no room to keep it: the device is idle */
    return;
  }
  b->p = p;
  b->cap = cls__pool_cap(size);
  cls__pool_put(dev, pl, b);
}
