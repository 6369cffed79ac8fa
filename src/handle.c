/* Handles: a generation-tagged slot table, so that a destroyed, garbage or
 * wrong-kind handle is rejected without dereferencing it.
 *
 * A handle's value is (generation << 32) | (slot << 4) | kind, with the
 * generation never 0, so no handle equals NULL, clsStreamLegacy or
 * clsStreamPerThread.  Slots live in chunks that are never freed, so a
 * lookup reads only memory the library owns; lookups take no lock. */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The slot layout and the lookup (cls__handle_get) are in internal.h. */
cls__slot *_Atomic cls__chunks[CLS__MAX_CHUNKS];
static pthread_mutex_t cls__handles_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t cls__free_head; /* slot index + 1; 0 = empty */
static uint32_t cls__nslots;    /* slots handed out so far */

static inline cls__slot *cls__slot_at(uint32_t index) {
  uint32_t c = index >> CLS__CHUNK_BITS;
  if (c >= CLS__MAX_CHUNKS) return NULL;
  cls__slot *chunk =
      atomic_load_explicit(&cls__chunks[c], memory_order_acquire);
  return chunk ? &chunk[index & (CLS__CHUNK_SLOTS - 1)] : NULL;
}

uintptr_t cls__handle_new(enum cls__kind kind, void *obj) {
  uintptr_t h = 0;
  pthread_mutex_lock(&cls__handles_lock);
  uint32_t index;
  cls__slot *slot;
  if (cls__free_head) {
    index = cls__free_head - 1;
    slot = cls__slot_at(index);
    cls__free_head = slot->next_free;
  } else {
    index = cls__nslots;
    uint32_t c = index >> CLS__CHUNK_BITS;
    if (c >= CLS__MAX_CHUNKS) goto out;
    if (!atomic_load_explicit(&cls__chunks[c], memory_order_relaxed)) {
      cls__slot *chunk = calloc(CLS__CHUNK_SLOTS, sizeof *chunk);
      if (!chunk) goto out;
      atomic_store_explicit(&cls__chunks[c], chunk, memory_order_release);
    }
    cls__nslots++;
    slot = cls__slot_at(index);
  }
  if (++slot->gen == 0) slot->gen = 1;
  h = ((uintptr_t)slot->gen << 32) | ((uintptr_t)index << 4) | (uintptr_t)kind;
  atomic_store_explicit(&slot->obj, obj, memory_order_release);
  atomic_store_explicit(&slot->id, h, memory_order_release);
out:
  pthread_mutex_unlock(&cls__handles_lock);
  return h;
}

void *cls__handle_retire(enum cls__kind kind, uintptr_t h) {
  if ((h & 0xf) != (uintptr_t)kind || (h >> 32) == 0) return NULL;
  uint32_t index = (uint32_t)((h >> 4) & 0x0fffffffu);
  cls__slot *slot = cls__slot_at(index);
  if (!slot) return NULL;
  uintptr_t expect = h;
  if (!atomic_compare_exchange_strong(&slot->id, &expect, 0)) return NULL;
  void *obj = atomic_load_explicit(&slot->obj, memory_order_relaxed);
  pthread_mutex_lock(&cls__handles_lock);
  atomic_store_explicit(&slot->obj, NULL, memory_order_release);
  slot->next_free = cls__free_head;
  cls__free_head = index + 1;
  pthread_mutex_unlock(&cls__handles_lock);
  return obj;
}
