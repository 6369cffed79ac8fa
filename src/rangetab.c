/* Range tables (rangetab.h): sorted arrays of non-overlapping address
 * ranges with a payload each, under a rwlock per table. */
#include "rangetab.h"

#include <stdlib.h>
#include <string.h>

static cls__range *cls__rangetab_at(const cls__rangetab *t, size_t i) {
  return (cls__range *)(t->ents + i * t->entry_size);
}

/* Index of the last entry with base <= p, or -1.  Under the lock. */
static ptrdiff_t cls__rangetab_floor(const cls__rangetab *t, uintptr_t p) {
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cls__rangetab_at(t, mid)->base <= p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (ptrdiff_t)lo - 1;
}

void *cls__rangetab_find(cls__rangetab *t, uintptr_t p) {
  ptrdiff_t i = cls__rangetab_floor(t, p);
  if (i < 0) return NULL;
  cls__range *r = cls__rangetab_at(t, (size_t)i);
  return p - r->base < r->size ? r : NULL;
}

int cls__rangetab_insert(cls__rangetab *t, const void *entry, void *clash) {
  const cls__range *r = entry;
  int rc = CLS__RANGETAB_OK;
  pthread_rwlock_wrlock(&t->lock);
  /* The last entry starting inside the new range, or before it, is the
   * only one that can overlap it. */
  ptrdiff_t last = cls__rangetab_floor(t, r->base + r->size - 1);
  if (last >= 0) {
    const cls__range *l = cls__rangetab_at(t, (size_t)last);
    if (l->base + l->size > r->base) {
      if (clash) memcpy(clash, l, t->entry_size);
      rc = CLS__RANGETAB_OVERLAP;
      goto out;
    }
  }
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    unsigned char *e = realloc(t->ents, cap * t->entry_size);
    if (!e) {
      rc = CLS__RANGETAB_NOMEM;
      goto out;
    }
    t->ents = e;
    t->cap = cap;
  }
  /* Nothing overlaps, so the new entry goes right after `last`. */
  size_t at = (size_t)(last + 1);
  memmove(cls__rangetab_at(t, at + 1), cls__rangetab_at(t, at),
          (t->n - at) * t->entry_size);
  memcpy(cls__rangetab_at(t, at), entry, t->entry_size);
  t->n++;
  atomic_store_explicit(&t->count, t->n, memory_order_release);
out:
  pthread_rwlock_unlock(&t->lock);
  return rc;
}

int cls__rangetab_remove(cls__rangetab *t, uintptr_t base,
                         int (*take)(const void *entry, void *arg), void *arg,
                         void *out) {
  int removed = 0;
  pthread_rwlock_wrlock(&t->lock);
  ptrdiff_t i = cls__rangetab_floor(t, base);
  cls__range *r = i >= 0 ? cls__rangetab_at(t, (size_t)i) : NULL;
  if (r && r->base == base && (!take || take(r, arg))) {
    if (out) memcpy(out, r, t->entry_size);
    memmove(r, cls__rangetab_at(t, (size_t)i + 1),
            (t->n - (size_t)i - 1) * t->entry_size);
    t->n--;
    atomic_store_explicit(&t->count, t->n, memory_order_release);
    atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
    removed = 1;
  }
  pthread_rwlock_unlock(&t->lock);
  return removed;
}

int cls__rangetab_lookup(cls__rangetab *t, uintptr_t p, void *out) {
  pthread_rwlock_rdlock(&t->lock);
  const void *e = cls__rangetab_find(t, p);
  if (e && out) memcpy(out, e, t->entry_size);
  pthread_rwlock_unlock(&t->lock);
  return e != NULL;
}

void cls__rangetab_rdlock(cls__rangetab *t) { pthread_rwlock_rdlock(&t->lock); }

void cls__rangetab_wrlock(cls__rangetab *t) { pthread_rwlock_wrlock(&t->lock); }

void cls__rangetab_unlock(cls__rangetab *t) { pthread_rwlock_unlock(&t->lock); }
