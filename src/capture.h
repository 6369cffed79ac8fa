/* Private to capture.c and capture_hooks.c: the captures and their member
 * streams, under one lock (capture.c says how they work). */
#ifndef CLSTREAM_CAPTURE_H
#define CLSTREAM_CAPTURE_H

#include "graph.h"

typedef struct cls__capture {
  unsigned long long id;
  int dev;
  clsStreamCaptureMode mode;
  pthread_t thread; /* the one that began it */
  int invalid;
  cls__graph *g;
  cls__bstream *origin;
  int members;
} cls__capture;

typedef struct cls__member {
  cls__bstream *b;
  cls__capture *cap;
  int blocking; /* a stream the legacy stream synchronizes with */
  size_t ntail, captail;
  cls__node **tail;
  struct cls__member *next;
} cls__member;

extern pthread_mutex_t cls__cap_lock;
/* Every member of every capture, under cls__cap_lock. */
extern cls__member *cls__members;

/* Under the lock, each of them. */
cls__member *cls__member_of(cls__bstream *b);
cls__capture *cls__capture_by_id(unsigned long long id);
clsError_t cls__tail_put(cls__member *m, cls__node *const *nodes, size_t n,
                         int add);
clsError_t cls__member_add(cls__bstream *b, cls__capture *cap, int blocking,
                           cls__member **out);
/* Takes m out of the member list and frees it (its capture stays). */
void cls__member_remove(cls__member *m);
void cls__capture_end(cls__capture *cap, int keep_graph);
int cls__legacy_conflict(int invalidate);
/* The calling thread's capture mode (clsThreadExchangeStreamCaptureMode). */
extern _Thread_local clsStreamCaptureMode cls__tl_mode;

static inline int cls__is_legacy(clsStream_t h) {
  return h == NULL || h == clsStreamLegacy;
}

#endif /* CLSTREAM_CAPTURE_H */
