/*
 * A range table: an ordered set of address ranges [base, base+size) that
 * never overlap, each carrying a fixed-size payload, with a lookup of the
 * range that contains an address.  The front's allocation table
 * (memory.c) and the OpenCL backend's buffer table (opencl/memory.c) are
 * each one of these; each owns its entries and what their payloads mean,
 * the table owns only their order, their storage and the lock.
 *
 * An entry is the owner's own struct whose first member is a cls__range;
 * the table stores copies of it (entry_size bytes each) in one sorted
 * array, so a lookup is a binary search and an insert or a removal moves
 * the entries after it.
 *
 * Thread safety: every table has its own rwlock, a leaf (nothing else is
 * taken while it is held).  cls__rangetab_insert, _remove and _lookup take
 * it themselves; cls__rangetab_find is for callers that hold it
 * (cls__rangetab_rdlock or _wrlock) across a longer step.  _count and
 * _gen take no lock: one atomic load each, for early-outs and caches.
 * Nothing here blocks on the device or allocates except to grow.
 */
#ifndef CLSTREAM_RANGETAB_H
#define CLSTREAM_RANGETAB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The head of every entry: the addresses it covers. */
typedef struct cls__range {
  uintptr_t base;
  size_t size;
} cls__range;

typedef struct cls__rangetab {
  pthread_rwlock_t lock;
  size_t entry_size;   /* bytes per entry, a cls__range first */
  unsigned char *ents; /* n entries, sorted by base (under lock) */
  size_t n, cap;       /* under lock */
  atomic_size_t count; /* n, published after every change */
  atomic_size_t gen;   /* bumped by every removal */
} cls__rangetab;

/* A static initializer for a table of `entry_type` entries. */
#define CLS__RANGETAB_INIT(entry_type)                                         \
  { PTHREAD_RWLOCK_INITIALIZER, sizeof(entry_type), NULL, 0, 0, 0, 0 }

/* What cls__rangetab_insert did. */
enum {
  CLS__RANGETAB_OK = 0,
  CLS__RANGETAB_OVERLAP, /* the range overlaps an entry already there */
  CLS__RANGETAB_NOMEM    /* no host memory to grow the table */
};

/* Inserts a copy of `entry` (entry_size bytes, a cls__range first, size
 * non-zero).  On CLS__RANGETAB_OVERLAP, `clash` (if not NULL) gets a copy
 * of the entry in the way.  Takes the write lock. */
int cls__rangetab_insert(cls__rangetab *t, const void *entry, void *clash);

/* Removes the entry that starts exactly at `base`, if `take` (NULL: any)
 * says yes to it; a removed entry is copied to `out` (if not NULL).
 * Returns whether one was removed.  Takes the write lock; `take` runs
 * under it and must only look at the entry. */
int cls__rangetab_remove(cls__rangetab *t, uintptr_t base,
                         int (*take)(const void *entry, void *arg), void *arg,
                         void *out);

/* Copies the entry that contains p to `out` (if not NULL); returns whether
 * there is one.  Takes the read lock. */
int cls__rangetab_lookup(cls__rangetab *t, uintptr_t p, void *out);

/* The entry that contains p, or NULL, for a caller holding the lock (read
 * or write; a writer may change the payload, never the range).  Valid
 * until the lock is released. */
void *cls__rangetab_find(cls__rangetab *t, uintptr_t p);

void cls__rangetab_rdlock(cls__rangetab *t);
void cls__rangetab_wrlock(cls__rangetab *t);
void cls__rangetab_unlock(cls__rangetab *t);

/* How many entries there are, without the lock: 0 is exact once the
 * changes that emptied the table have returned (acquire: an insert that
 * returned before is seen). */
static inline size_t cls__rangetab_count(cls__rangetab *t) {
  return atomic_load_explicit(&t->count, memory_order_acquire);
}

/* The table's generation, without the lock: it changes with every
 * removal, so an entry copied by a lookup that began after reading
 * generation g is still in the table while the generation is g.  Read it
 * before the lookup it guards. */
static inline size_t cls__rangetab_gen(cls__rangetab *t) {
  return atomic_load_explicit(&t->gen, memory_order_acquire);
}

#endif /* CLSTREAM_RANGETAB_H */
