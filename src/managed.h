/* Managed memory's advice records (managed.c), for hostmem.c. */
#ifndef CLSTREAM_MANAGED_H
#define CLSTREAM_MANAGED_H

/* Forgets any advice kept for a range starting at p: called when a new
 * managed allocation gets the address. */
void cls__advice_forget(void *p);

#endif /* CLSTREAM_MANAGED_H */
